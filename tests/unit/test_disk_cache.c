#define _GNU_SOURCE
/* The disk tier of the kernel cache, on its internal API: round trips, and
 * every kind of damage read as a miss (flipped bytes, truncation, another
 * format version, another key's entry under this name, another generator or
 * toolchain version), LRU eviction, unusable directories, racing writers. */
#include <pthread.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk_cache.h"
#include "fingerprint.h"
#include "test_util.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/ixjit-test-disk-%d", (int)getpid());
  return 0;
}

static void entry_path(const char *key, char *path, size_t size) {
  char name[48];
  ixj__disk_cache_file_name(key, name);
  snprintf(path, size, "%s/%s", dir, name);
}

static void clear_dir(void) {
  ixj_cache_clear(dir, NULL, NULL);
  rmdir(dir);
}

static disk_cache *open_cache(uint64_t max) {
  disk_cache *dc = NULL;
  ixj_error err;
  if (ixj__disk_cache_open(dir, max, &dc, &err) != IXJ_OK) fail_msg("%s", err.message);
  return dc;
}

static bool load_equals(disk_cache *dc, const char *key, const char *want) {
  void *p = NULL;
  size_t n = 0;
  if (!ixj__disk_cache_load(dc, key, &p, &n)) return false;
  bool same = n == strlen(want) && !memcmp(p, want, n);
  free(p);
  return same;
}

/* Applies damage to the file of `key`, then expects a miss and the file gone. */
static void damage_is_a_miss(disk_cache *dc, const char *key, void (*damage)(const char *path)) {
  char path[512];
  assert_int_equal(ixj__disk_cache_store(dc, key, "payload bytes", 13, NULL), IXJ_OK);
  assert_true(load_equals(dc, key, "payload bytes"));
  entry_path(key, path, sizeof path);
  damage(path);
  assert_false(load_equals(dc, key, "payload bytes"));
  assert_int_not_equal(access(path, F_OK), 0); /* removed, to be rewritten */
  assert_int_equal(ixj__disk_cache_store(dc, key, "payload bytes", 13, NULL), IXJ_OK);
  assert_true(load_equals(dc, key, "payload bytes"));
}

static void flip_last_byte(const char *path) {
  FILE *f = fopen(path, "r+b");
  fseek(f, -1, SEEK_END);
  int c = fgetc(f);
  fseek(f, -1, SEEK_END);
  fputc(c ^ 0x40, f);
  fclose(f);
}
static void truncate_file(const char *path) { assert_int_equal(truncate(path, 40), 0); }
static void other_version(const char *path) {
  FILE *f = fopen(path, "r+b");
  fseek(f, 8, SEEK_SET);
  fputc(DISK_FORMAT_VERSION + 1, f);
  fclose(f);
}
static void flip_key_byte(const char *path) {
  FILE *f = fopen(path, "r+b");
  fseek(f, 73, SEEK_SET); /* a byte of the echoed key (the header is 72 bytes) */
  int c = fgetc(f);
  fseek(f, 73, SEEK_SET); /* a byte of the echoed key (the header is 72 bytes) */
  fputc(c ^ 1, f);
  fclose(f);
}

static void test_round_trip_and_damage(void **state) {
  (void)state;
  clear_dir();
  disk_cache *dc = open_cache(0); /* creates the missing directory */
  const char *key = "ixjit-cache-key\nformat=1\ngenerator=g1\nbackend=llvm-object\ntoolchain=LLVM 19.1.7\nsignature=s\n";
  assert_false(load_equals(dc, key, "x"));
  damage_is_a_miss(dc, key, flip_last_byte);
  damage_is_a_miss(dc, key, truncate_file);
  damage_is_a_miss(dc, key, other_version);
  damage_is_a_miss(dc, key, flip_key_byte);

  /* another key's entry renamed into this key's name */
  const char *other = "ixjit-cache-key\nformat=1\ngenerator=g1\nbackend=llvm-object\ntoolchain=LLVM 19.1.7\nsignature=t\n";
  char pa[512], pb[512];
  assert_int_equal(ixj__disk_cache_store(dc, other, "other payload", 13, NULL), IXJ_OK);
  entry_path(key, pa, sizeof pa);
  entry_path(other, pb, sizeof pb);
  assert_int_equal(rename(pb, pa), 0);
  assert_false(load_equals(dc, key, "other payload"));
  assert_false(load_equals(dc, key, "payload bytes"));

  /* another generator or toolchain version: a miss, not a stale hit */
  assert_int_equal(ixj__disk_cache_store(dc, key, "payload bytes", 13, NULL), IXJ_OK);
  assert_false(load_equals(dc, "ixjit-cache-key\nformat=1\ngenerator=g2\nbackend=llvm-object\ntoolchain=LLVM 19.1.7\nsignature=s\n",
                           "payload bytes"));
  assert_false(load_equals(dc, "ixjit-cache-key\nformat=1\ngenerator=g1\nbackend=llvm-object\ntoolchain=LLVM 20.1.0\nsignature=s\n",
                           "payload bytes"));
  assert_true(load_equals(dc, key, "payload bytes"));
  ixj__disk_cache_close(dc);
  clear_dir();
}

/* Keys whose entries share one shard (the first two hex digits of their name). */
static void same_shard_keys(char keys[5][32]) {
  char first[48], name[48];
  int found = 0;
  for (int k = 0; found < 5; k++) {
    snprintf(keys[found], sizeof keys[found], "key number %d", k);
    ixj__disk_cache_file_name(keys[found], name);
    if (found == 0) memcpy(first, name, sizeof name);
    if (!memcmp(first, name, 2)) found++;
  }
}

static int present(char keys[5][32], int *first_present) {
  int n = 0;
  *first_present = -1;
  for (int k = 0; k < 5; k++) {
    char path[512];
    entry_path(keys[k], path, sizeof path);
    if (access(path, F_OK) == 0 && n++ == 0) *first_present = k;
  }
  return n;
}

/* A store keeps its shard within 1/256 of the limit (the least recently used
 * entries of that shard go, and no other shard is listed); prune enforces the
 * whole limit. Entries here are 184 bytes. */
/* The key names the generator by its sources' fingerprint (16 hex digits),
 * so a build whose emitter changed misses what another build left. */
static void test_key_names_generator(void **state) {
  (void)state;
  assert_int_equal(strlen(ixj__generator_fingerprint), 16);
  assert_int_equal(strspn(ixj__generator_fingerprint, "0123456789abcdef"), 16);
  char *key = ixj__disk_cache_key("llvm-object", "LLVM 19.1.7", "sig");
  assert_non_null(key);
  char want[128];
  snprintf(want, sizeof want, "\ngenerator=ixjit %s (kernel format 1, generator %s)\n", IXJIT_VERSION_STRING,
           ixj__generator_fingerprint);
  assert_non_null(strstr(key, want));
  assert_non_null(strstr(key, "\nsignature=sig\n"));
  free(key);
}

static void test_lru_eviction(void **state) {
  (void)state;
  clear_dir();
  char keys[5][32], payload[100];
  memset(payload, 'p', sizeof payload);
  same_shard_keys(keys);
  disk_cache *dc = open_cache(256 * 560); /* a shard holds three */
  for (int k = 0; k < 5; k++) {
    assert_int_equal(ixj__disk_cache_store(dc, keys[k], payload, sizeof payload, NULL), IXJ_OK);
    char path[512];
    entry_path(keys[k], path, sizeof path);
    struct timespec t[2] = {{1000 + k, 0}, {1000 + k, 0}}; /* distinct, increasing last use */
    utimensat(AT_FDCWD, path, t, 0);
  }
  int first;
  assert_int_equal(present(keys, &first), 3);
  assert_int_equal(first, 2); /* the least recently used went first */
  ixj__disk_cache_close(dc);

  /* prune to the room of two: across shards, the oldest go */
  int removed = 0;
  assert_int_equal(ixj_cache_prune(dir, 400, &removed, NULL), IXJ_OK);
  assert_int_equal(removed, 1);
  assert_int_equal(present(keys, &first), 2);
  assert_int_equal(first, 3);
  clear_dir();
}

static void count_warnings(void *user, ixj_log_level level, const char *message) {
  (void)message;
  if (level == IXJ_LOG_WARNING) ++*(int *)user;
}

static void test_unusable_directories(void **state) {
  (void)state;
  disk_cache *dc = NULL;
  ixj_error err;
  /* a directory nobody, not even root, can create files in (root owns it: to
   * anyone else it is another user's directory, never used) */
  if (geteuid() == 0) {
    assert_int_equal(ixj__disk_cache_open("/proc", 0, &dc, &err), IXJ_OK);
    assert_int_not_equal(ixj__disk_cache_store(dc, "k", "v", 1, &err), IXJ_OK);
    assert_non_null(strstr(err.message, "cannot write to the cache /proc"));
    assert_false(ixj__disk_cache_load(dc, "k", NULL, NULL));
    ixj__disk_cache_close(dc);
  } else {
    assert_int_equal(ixj__disk_cache_open("/proc", 0, &dc, &err), IXJ_ERR_IO);
    assert_non_null(strstr(err.message, "owned by uid 0"));
  }
  assert_int_not_equal(ixj__disk_cache_open("/proc/ixjit/cannot/exist", 0, &dc, &err), IXJ_OK);
  assert_null(dc);

  /* a context over such a directory still compiles and runs, with one warning */
  int warnings = 0;
  ixj_context *ctx;
  ixj_context_options o = {.num_threads = 1, .disk_cache = 1, .cache_dir = "/proc", .log = count_warnings,
                           .log_user = &warnings};
  assert_int_equal(ixj_context_create(&o, &ctx, &err), IXJ_OK);
  ixj_ixfun *f = parse_ok("iota 4 | slice ::-1"), *g = parse_ok("iota 4");
  int32_t a[4] = {1, 2, 3, 4}, b[4];
  ixj_operand od = {b, sizeof b, g}, os = {a, sizeof a, f};
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_OK);
  assert_int_equal(b[0], 4);
  ixj_ixfun *h = parse_ok("iota 4 | rotate 1");
  os.ixfun = h;
  assert_int_equal(ixj_copy(ctx, &od, &os, 4, NULL, &err), IXJ_OK); /* a second compile: no second warning */
  assert_int_equal(b[0], 2);
  assert_int_equal(warnings, 1);
  ixj_ixfun_free(h);
  ixj_context_destroy(ctx);
  ixj_ixfun_free(f);
  ixj_ixfun_free(g);
}

static void *racing_writer(void *arg) {
  disk_cache *dc = arg;
  for (int k = 0; k < 200; k++) ixj__disk_cache_store(dc, "one key", "same payload", 12, NULL);
  return NULL;
}

static void test_racing_writers(void **state) {
  (void)state;
  clear_dir();
  disk_cache *dc = open_cache(0);
  pthread_t th[4];
  for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, racing_writer, dc);
  for (int k = 0; k < 200; k++) {
    void *p;
    size_t n;
    if (ixj__disk_cache_load(dc, "one key", &p, &n)) { /* whenever it is there, it is whole */
      assert_int_equal(n, 12);
      assert_memory_equal(p, "same payload", 12);
      free(p);
    }
  }
  for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
  assert_true(load_equals(dc, "one key", "same payload"));
  ixj__disk_cache_close(dc);
  clear_dir();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_and_damage),
      cmocka_unit_test(test_key_names_generator),
      cmocka_unit_test(test_lru_eviction),
      cmocka_unit_test(test_unusable_directories),
      cmocka_unit_test(test_racing_writers),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
