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

  DIR *d = opendir(dir); /* now the entries are another user's files */
  struct dirent *e;
  int planted = 0;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') {
      char path[600];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
      planted++;
    }
  closedir(d);
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
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
