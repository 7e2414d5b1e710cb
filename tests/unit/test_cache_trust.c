#define _GNU_SOURCE
/* The disk cache's trust boundary (docs/cache.md, "Trust"): directories 0700
 * and entries 0600 whatever the umask; another user's directory, or one that
 * group or others can write, is never used; an entry that is another user's
 * file, writable by others, a symbolic link or a FIFO is a miss with one
 * warning, never a load and never a hang; scan reports each and why, prune
 * removes them. The tests that chown run only as root (skipped otherwise). */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_auth.h"
#include "disk_cache.h"
#include "test_util.h"

#define OTHER_UID 12345

static char base[256], dir[300];
static const char *KEY = "ixjit-cache-key\nformat=1\ngenerator=g1\nbackend=llvm-object\ntoolchain=t\nsignature=s\n";

static int warnings;
static char last_warning[512];
static void count_warnings(void *user, ixj_log_level level, const char *message) {
  (void)user;
  if (level != IXJ_LOG_WARNING) return;
  warnings++;
  snprintf(last_warning, sizeof last_warning, "%s", message);
}

static void remove_tree(const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  assert_int_equal(system(cmd), 0);
}

static int setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/ixjit-test-trust-%d", (int)getpid());
  snprintf(dir, sizeof dir, "%s/cache", base);
  remove_tree(base);
  return mkdir(base, 0700);
}

static int teardown(void **state) {
  (void)state;
  remove_tree(base);
  return 0;
}

static mode_t mode_of(const char *path) {
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  return st.st_mode & 07777;
}

static void entry_path(const char *key, char *path, size_t size) {
  char name[48];
  ixj__disk_cache_file_name(key, name);
  snprintf(path, size, "%s/%s", dir, name);
}

/* A fresh directory with the valid entry of KEY. */
static disk_cache *cache_with_entry(void) {
  disk_cache *dc = NULL;
  ixj_error err;
  remove_tree(dir);
  if (ixj__disk_cache_open(dir, 0, &dc, &err) != IXJ_OK) fail_msg("%s", err.message);
  ixj__disk_cache_set_log(dc, count_warnings, NULL);
  assert_int_equal(ixj__disk_cache_store(dc, KEY, "payload", 7, NULL), IXJ_OK);
  void *p;
  size_t n;
  assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
  free(p);
  warnings = 0;
  last_warning[0] = '\0';
  return dc;
}

typedef struct scan_result {
  int entries, bad;
  char problem[256];
} scan_result;

static void visit(void *user, const ixj_cache_entry *e) {
  scan_result *r = user;
  r->entries++;
  if (!e->valid) {
    r->bad++;
    snprintf(r->problem, sizeof r->problem, "%s", e->problem);
  }
}

/* The entry of KEY is refused: a miss with one warning naming `why`, never
 * read; scan reports it with `why`; prune removes it; then a store and a load
 * work again. */
static void entry_is_refused(disk_cache *dc, const char *why) {
  void *p = NULL;
  size_t n = 0;
  char path[512];
  entry_path(KEY, path, sizeof path);
  assert_false(ixj__disk_cache_load(dc, KEY, &p, &n));
  assert_int_equal(warnings, 1);
  if (!strstr(last_warning, why)) fail_msg("warning '%s' lacks '%s'", last_warning, why);
  assert_false(ixj__disk_cache_has(dc, KEY));
  struct stat st;
  assert_int_equal(lstat(path, &st), 0); /* left alone by the load */
  scan_result r = {0, 0, ""};
  assert_int_equal(ixj_cache_scan(dir, visit, &r, NULL), IXJ_OK);
  assert_int_equal(r.entries, 1);
  assert_int_equal(r.bad, 1);
  if (!strstr(r.problem, why)) fail_msg("scan's problem '%s' lacks '%s'", r.problem, why);
  int removed = 0;
  assert_int_equal(ixj_cache_prune(dir, 0, &removed, NULL), IXJ_OK);
  assert_int_equal(removed, 1);
  assert_int_not_equal(lstat(path, &st), 0);
  assert_int_equal(ixj__disk_cache_store(dc, KEY, "payload", 7, NULL), IXJ_OK);
  assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
  assert_int_equal(n, 7);
  free(p);
}

static void test_modes_whatever_the_umask(void **state) {
  (void)state;
  char parent[320], path[512];
  mode_t masks[2] = {0, 0277}; /* the loosest, and one that would leave the owner no write */
  for (int m = 0; m < 2; m++) {
    remove_tree(dir);
    snprintf(parent, sizeof parent, "%s/cache/made", base);
    mode_t old = umask(masks[m]);
    disk_cache *dc = NULL;
    char sub[400];
    snprintf(sub, sizeof sub, "%s/inner", parent);
    ixj_status st = ixj__disk_cache_open(sub, 0, &dc, NULL);
    if (st == IXJ_OK) st = ixj__disk_cache_store(dc, KEY, "payload", 7, NULL);
    umask(old);
    assert_int_equal(st, IXJ_OK);
    assert_int_equal(mode_of(dir), 0700);
    assert_int_equal(mode_of(parent), 0700);
    assert_int_equal(mode_of(sub), 0700);
    char name[48];
    ixj__disk_cache_file_name(KEY, name);
    snprintf(path, sizeof path, "%s/%s", sub, name);
    assert_int_equal(mode_of(path), 0600);
    ixj__disk_cache_close(dc);
  }
  remove_tree(dir);
}

static void test_directory_others_can_write(void **state) {
  (void)state;
  mode_t modes[3] = {0777, 0770, 01777}; /* world, group, and /tmp's sticky world */
  for (int m = 0; m < 3; m++) {
    disk_cache *dc = cache_with_entry();
    ixj__disk_cache_close(dc);
    assert_int_equal(chmod(dir, modes[m]), 0);
    ixj_error err;
    assert_int_equal(ixj__disk_cache_open(dir, 0, &dc, &err), IXJ_ERR_IO);
    assert_null(dc);
    assert_non_null(strstr(err.message, "writable by group or others"));
    scan_result r = {0, 0, ""};
    assert_int_equal(ixj_cache_scan(dir, visit, &r, NULL), IXJ_OK);
    assert_int_equal(r.bad, 1);
    assert_non_null(strstr(r.problem, "not trusted: writable by group or others"));
    assert_int_equal(ixj_cache_prune(dir, 0, NULL, &err), IXJ_ERR_IO);
    assert_int_equal(ixj_cache_clear(dir, NULL, &err), IXJ_ERR_IO);
    assert_non_null(strstr(err.message, "is not trusted"));
  }
}

static void test_another_users_directory(void **state) {
  (void)state;
  if (geteuid() != 0) skip();
  disk_cache *dc = cache_with_entry();
  ixj__disk_cache_close(dc);
  assert_int_equal(chown(dir, OTHER_UID, OTHER_UID), 0);
  ixj_error err;
  assert_int_equal(ixj__disk_cache_open(dir, 0, &dc, &err), IXJ_ERR_IO);
  assert_non_null(strstr(err.message, "owned by uid 12345"));
  scan_result r = {0, 0, ""};
  assert_int_equal(ixj_cache_scan(dir, visit, &r, NULL), IXJ_OK);
  assert_int_equal(r.bad, 1);
  assert_non_null(strstr(r.problem, "owned by uid 12345"));
  assert_int_equal(ixj_cache_prune(dir, 0, NULL, &err), IXJ_ERR_IO);
}

static void test_another_users_entry(void **state) {
  (void)state;
  if (geteuid() != 0) skip();
  disk_cache *dc = cache_with_entry();
  char path[512];
  entry_path(KEY, path, sizeof path);
  assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
  entry_is_refused(dc, "owned by uid 12345");
  ixj__disk_cache_close(dc);
}

static void test_entry_others_can_write(void **state) {
  (void)state;
  disk_cache *dc = cache_with_entry();
  char path[512];
  entry_path(KEY, path, sizeof path);
  assert_int_equal(chmod(path, 0666), 0);
  entry_is_refused(dc, "writable by group or others");
  ixj__disk_cache_close(dc);
}

/* Before the trust checks, this load blocked forever in fopen (the harness's
 * timeout ends the test then). */
static void test_fifo_entry(void **state) {
  (void)state;
  disk_cache *dc = cache_with_entry();
  char path[512];
  entry_path(KEY, path, sizeof path);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(mkfifo(path, 0600), 0);
  entry_is_refused(dc, "a FIFO");
  ixj__disk_cache_close(dc);
}

static void test_symlink_entry(void **state) {
  (void)state;
  disk_cache *dc = cache_with_entry();
  char path[512], elsewhere[400];
  entry_path(KEY, path, sizeof path);
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.ixk", base); /* a valid entry, outside */
  assert_int_equal(rename(path, elsewhere), 0);
  assert_int_equal(symlink(elsewhere, path), 0);
  entry_is_refused(dc, "a symbolic link");
  assert_int_equal(access(elsewhere, F_OK), 0); /* prune removed the link, not its target */
  ixj__disk_cache_close(dc);
}

/* Through a context: a planted entry of the very kernel a copy needs, whole
 * and with a right checksum but another user's file, is compiled over, never
 * loaded. */
static void test_planted_entry_is_not_run(void **state) {
  (void)state;
  if (geteuid() != 0) skip();
  remove_tree(dir);
  ixj_error err;
  ixj_context *ctx;
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir, .log = count_warnings};
  ixj_ixfun *f = parse_ok("iota 8 4 | permute 1 0"), *g = parse_ok("iota 4 8");
  int32_t a[32], b[32];
  for (int k = 0; k < 32; k++) a[k] = k;
  ixj_operand od = {b, sizeof b, g}, os = {a, sizeof a, f};
  ixj_call_info info;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, &info, &err), IXJ_OK);
  assert_false(info.disk_hit);
  ixj_context_destroy(ctx);

  /* now the entries (in their shards, which stay ours) are another user's files */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "find '%s' -type f -name '*.ixk' -exec chown %d:%d {} + -print | wc -l", dir, OTHER_UID,
           OTHER_UID);
  FILE *p = popen(cmd, "r");
  int planted = 0;
  assert_non_null(p);
  assert_int_equal(fscanf(p, "%d", &planted), 1);
  pclose(p);
  assert_true(planted >= 1);

  warnings = 0;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  memset(b, 0, sizeof b);
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, &info, &err), IXJ_OK);
  assert_false(info.cache_hit);
  assert_false(info.disk_hit); /* compiled, not loaded */
  assert_int_equal(warnings, 1);
  assert_non_null(strstr(last_warning, "owned by uid 12345"));
  assert_int_equal(b[1], 4);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(f);
  ixj_ixfun_free(g);
}

/* ---- authenticated entries (IXJIT_CACHE_KEY_FILE) ------------------------- */

/* A key file of n bytes of `fill` with the mode given, at base/NAME. */
static void write_key(const char *name, char fill, size_t n, mode_t mode, char *path, size_t size) {
  char buf[64];
  snprintf(path, size, "%s/%s", base, name);
  unlink(path);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  memset(buf, fill, sizeof buf);
  assert_int_equal(write(fd, buf, n), (ssize_t)n);
  close(fd);
  assert_int_equal(chmod(path, mode), 0);
}

static cache_auth *key_of(char fill) {
  char path[400];
  cache_auth *a = NULL;
  ixj_error err;
  write_key(fill == 'a' ? "key-a" : "key-b", fill, 32, 0600, path, sizeof path);
  if (ixj__cache_auth_open(path, &a, &err) != IXJ_OK) fail_msg("%s", err.message);
  return a;
}

static void test_key_file_rules(void **state) {
  (void)state;
  if (!ixj__cache_auth_available()) skip();
  char path[400], link[450];
  cache_auth *a = NULL;
  ixj_error err;
  write_key("key", 'k', 32, 0644, path, sizeof path); /* others can read it: they could forge */
  assert_int_equal(ixj__cache_auth_open(path, &a, &err), IXJ_ERR_IO);
  assert_non_null(strstr(err.message, "read or written by group or others"));
  write_key("key", 'k', 31, 0600, path, sizeof path);
  assert_int_equal(ixj__cache_auth_open(path, &a, &err), IXJ_ERR_LIMIT);
  assert_non_null(strstr(err.message, "31 bytes"));
  write_key("key", 'k', 32, 0600, path, sizeof path);
  snprintf(link, sizeof link, "%s/key-link", base);
  unlink(link);
  assert_int_equal(symlink(path, link), 0);
  assert_int_equal(ixj__cache_auth_open(link, &a, &err), IXJ_ERR_IO);
  assert_non_null(strstr(err.message, "symbolic link"));
  assert_int_equal(ixj__cache_auth_open(base, &a, &err), IXJ_ERR_IO); /* a directory */
  if (geteuid() == 0) {
    assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
    assert_int_equal(ixj__cache_auth_open(path, &a, &err), IXJ_ERR_IO);
    assert_non_null(strstr(err.message, "owned by uid 12345"));
    assert_int_equal(chown(path, 0, 0), 0);
  }
  assert_int_equal(ixj__cache_auth_open(path, &a, &err), IXJ_OK);
  assert_non_null(a);
  ixj__cache_auth_close(a);
}

static disk_cache *keyed_cache(const cache_auth *a, bool shared) {
  disk_cache *dc = NULL;
  ixj_error err;
  disk_cache_config cfg = {0, a, shared};
  if (ixj__disk_cache_open_with(dir, &cfg, &dc, &err) != IXJ_OK) fail_msg("%s", err.message);
  ixj__disk_cache_set_log(dc, count_warnings, NULL);
  warnings = 0;
  return dc;
}

/* Writes the entry of KEY made by `writer` (NULL: unauthenticated) into place. */
static void plant(const cache_auth *writer, const char *payload) {
  void *bytes;
  size_t n;
  char path[512];
  assert_int_equal(ixj__disk_entry_encode(writer, KEY, payload, strlen(payload), &bytes, &n, NULL), IXJ_OK);
  entry_path(KEY, path, sizeof path);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
  chmod(path, 0600);
  free(bytes);
}

static void test_keyed_entries(void **state) {
  (void)state;
  if (!ixj__cache_auth_available()) skip();
  cache_auth *a = key_of('a'), *b = key_of('b');
  remove_tree(dir);
  disk_cache *dc = keyed_cache(a, false);
  void *p = NULL;
  size_t n = 0;
  /* round trip */
  assert_int_equal(ixj__disk_cache_store(dc, KEY, "payload", 7, NULL), IXJ_OK);
  assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
  assert_int_equal(n, 7);
  free(p);
  /* an unauthenticated entry (checksum right, no HMAC), one made with
   * another key, and one whose HMAC is all wrong: each a miss with a warning,
   * left for the store to replace */
  const struct {
    const cache_auth *writer;
    const char *why;
  } cases[2] = {{NULL, "not authenticated"}, {b, "authentication failed"}};
  for (int k = 0; k < 2; k++) {
    plant(cases[k].writer, "forged!");
    warnings = 0;
    assert_false(ixj__disk_cache_load(dc, KEY, &p, &n));
    assert_int_equal(warnings, 1);
    if (!strstr(last_warning, cases[k].why)) fail_msg("warning '%s' lacks '%s'", last_warning, cases[k].why);
    /* scan reports it with the key in the environment, and prune removes it */
    char key_path[400];
    snprintf(key_path, sizeof key_path, "%s/key-a", base);
    setenv("IXJIT_CACHE_KEY_FILE", key_path, 1);
    scan_result r = {0, 0, ""};
    assert_int_equal(ixj_cache_scan(dir, visit, &r, NULL), IXJ_OK);
    assert_int_equal(r.bad, 1);
    if (!strstr(r.problem, cases[k].why)) fail_msg("scan's problem '%s' lacks '%s'", r.problem, cases[k].why);
    int removed = 0;
    assert_int_equal(ixj_cache_prune(dir, 0, &removed, NULL), IXJ_OK);
    assert_int_equal(removed, 1);
    unsetenv("IXJIT_CACHE_KEY_FILE");
    r = (scan_result){0, 0, ""};
    assert_int_equal(ixj__disk_cache_store(dc, KEY, "payload", 7, NULL), IXJ_OK);
    assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
    free(p);
  }
  /* a MAC byte flipped with the checksum recomputed is what a forger can do:
   * it is refused (the header's MAC is at offset 40) */
  {
    void *bytes;
    assert_int_equal(ixj__disk_entry_encode(a, KEY, "payload", 7, &bytes, &n, NULL), IXJ_OK);
    assert_null(ixj__disk_entry_decode(a, bytes, n, KEY, NULL, NULL, NULL));
    ((unsigned char *)bytes)[40] ^= 1;
    const char *why = ixj__disk_entry_decode(a, bytes, n, KEY, NULL, NULL, NULL);
    assert_non_null(why); /* the checksum catches it first; a forger recomputes it: */
    ((unsigned char *)bytes)[40] ^= 1;
    assert_null(ixj__disk_entry_decode(NULL, bytes, n, KEY, NULL, NULL, NULL)); /* no key: the checksum only */
    assert_non_null(strstr(ixj__disk_entry_decode(b, bytes, n, KEY, NULL, NULL, NULL), "authentication failed"));
    assert_non_null(strstr(ixj__disk_entry_decode(a, bytes, n - 1, KEY, NULL, NULL, NULL), "truncated"));
    free(bytes);
  }
  ixj__disk_cache_close(dc);
  /* without a key, an authenticated entry loads by its checksum and owner */
  assert_int_equal(ixj__disk_cache_open(dir, 0, &dc, NULL), IXJ_OK);
  assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
  free(p);
  ixj__disk_cache_close(dc);
  ixj__cache_auth_close(a);
  ixj__cache_auth_close(b);
  remove_tree(dir);
}

/* A shared directory: refused without the key, allowed with it (and the
 * opt-in); another user's entry then loads by its HMAC, and a forged one
 * does not. */
static void test_shared_directory(void **state) {
  (void)state;
  if (!ixj__cache_auth_available()) skip();
  cache_auth *a = key_of('a'), *b = key_of('b');
  disk_cache *dc = cache_with_entry();
  ixj__disk_cache_close(dc);
  assert_int_equal(chmod(dir, 01777), 0);
  ixj_error err;
  disk_cache_config no_key = {0, NULL, true};
  assert_int_equal(ixj__disk_cache_open_with(dir, &no_key, &dc, &err), IXJ_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "needs authenticated entries"));
  disk_cache_config not_shared = {0, a, false};
  assert_int_equal(ixj__disk_cache_open_with(dir, &not_shared, &dc, &err), IXJ_ERR_IO);
  dc = keyed_cache(a, true);
  void *p;
  size_t n;
  assert_false(ixj__disk_cache_load(dc, KEY, &p, &n)); /* written without the key */
  assert_int_equal(ixj__disk_cache_store(dc, KEY, "payload", 7, NULL), IXJ_OK);
  char path[512];
  entry_path(KEY, path, sizeof path);
  assert_int_equal(mode_of(path), 0644); /* the others read it */
  if (geteuid() == 0) assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
  assert_true(ixj__disk_cache_load(dc, KEY, &p, &n));
  assert_int_equal(n, 7);
  free(p);
  if (geteuid() == 0) assert_int_equal(chown(path, 0, 0), 0);
  plant(b, "forged!");
  assert_false(ixj__disk_cache_load(dc, KEY, &p, &n));
  ixj__disk_cache_close(dc);
  ixj__cache_auth_close(a);
  ixj__cache_auth_close(b);
  assert_int_equal(chmod(dir, 0700), 0);
  remove_tree(dir);
}

/* Through a context: a key file that cannot be used turns the disk cache off
 * (one warning), never a load of unauthenticated entries. */
static void test_context_key_option(void **state) {
  (void)state;
  char path[400];
  write_key("key-open", 'o', 32, 0604, path, sizeof path);
  remove_tree(dir);
  ixj_error err;
  ixj_context *ctx;
  warnings = 0;
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = dir, .log = count_warnings,
                           .cache_key_file = path};
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_null(ixj_context_cache_dir(ctx));
  assert_int_equal(warnings, 1);
  assert_non_null(strstr(last_warning, ixj__cache_auth_available() ? "group or others" : "without libsodium"));
  ixj_context_destroy(ctx);
  if (!ixj__cache_auth_available()) return;
  assert_int_equal(chmod(path, 0600), 0);
  warnings = 0;
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  assert_non_null(ixj_context_cache_dir(ctx));
  assert_int_equal(warnings, 0);
  ixj_context_destroy(ctx);
  remove_tree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modes_whatever_the_umask),
      cmocka_unit_test(test_directory_others_can_write),
      cmocka_unit_test(test_another_users_directory),
      cmocka_unit_test(test_another_users_entry),
      cmocka_unit_test(test_entry_others_can_write),
      cmocka_unit_test(test_fifo_entry),
      cmocka_unit_test(test_symlink_entry),
      cmocka_unit_test(test_planted_entry_is_not_run),
      cmocka_unit_test(test_key_file_rules),
      cmocka_unit_test(test_keyed_entries),
      cmocka_unit_test(test_shared_directory),
      cmocka_unit_test(test_context_key_option),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
