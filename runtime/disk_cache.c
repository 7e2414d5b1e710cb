/* The disk tier: one self-checking file per key, written atomically.
 *
 *   offset  size  field
 *   0       8     magic "IXJITKC\0"
 *   8       4     format version (little endian)
 *   12      4     key length K
 *   16      8     payload length P
 *   24      8     XXH3-64 of key and payload
 *   32      K     the key, echoed
 *   32+K    P     the payload
 *
 * No lock is needed: a writer never exposes a partial file (temp + fsync +
 * rename), and a reader checks everything before trusting a byte. */
#include "disk_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "error.h"
#include "ixjit/ixjit.h"

#define HEADER_SIZE 32
#define SUFFIX ".ixk"
#define TEMP_PREFIX ".tmp-"
#define MAX_KEY (1u << 20)

static const char MAGIC[8] = {'I', 'X', 'J', 'I', 'T', 'K', 'C', '\0'};

struct disk_cache {
  char *dir;
  uint64_t max_bytes;
};

static void put_u32(unsigned char *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static void put_u64(unsigned char *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; k--) v = v << 8 | p[k];
  return v;
}
static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
  return v;
}

static uint64_t checksum(const char *key, size_t klen, const void *payload, size_t plen) {
  XXH3_state_t *s = XXH3_createState();
  uint64_t h = 0;
  if (!s) return 0;
  XXH3_64bits_reset(s);
  XXH3_64bits_update(s, key, klen);
  XXH3_64bits_update(s, payload, plen);
  h = XXH3_64bits_digest(s);
  XXH3_freeState(s);
  return h;
}

#define GENERATOR_VERSION "ixjit " IXJIT_VERSION_STRING " (kernel format 1)"

char *ixj__disk_cache_key(const char *backend, const char *toolchain, const char *signature) {
  const char *fmt = "ixjit-cache-key\nformat=%u\ngenerator=%s\nbackend=%s\ntoolchain=%s\nsignature=%s\n";
  int n = snprintf(NULL, 0, fmt, DISK_FORMAT_VERSION, GENERATOR_VERSION, backend, toolchain, signature);
  char *key = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (key) snprintf(key, (size_t)n + 1, fmt, DISK_FORMAT_VERSION, GENERATOR_VERSION, backend, toolchain, signature);
  return key;
}

void ixj__disk_cache_file_name(const char *key, char name[48]) {
  XXH128_hash_t h = XXH3_128bits(key, strlen(key));
  snprintf(name, 48, "%016llx%016llx" SUFFIX, (unsigned long long)h.high64, (unsigned long long)h.low64);
}

bool ixj_cache_default_dir(char *buf, size_t size) {
  const char *env = getenv("IXJIT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n = env && *env ? snprintf(buf, size, "%s", env)
          : xdg && *xdg ? snprintf(buf, size, "%s/ixjit", xdg)
          : home && *home ? snprintf(buf, size, "%s/.cache/ixjit", home)
                          : -1;
  return n > 0 && (size_t)n < size;
}

/* mkdir -p */
static int make_dirs(const char *path) {
  char tmp[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof tmp) return -1;
  memcpy(tmp, path, n + 1);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

ixj_status ixj__disk_cache_open(const char *dir, uint64_t max_bytes, disk_cache **out, ixj_error *err) {
  *out = NULL;
  if (!dir || !*dir) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "no cache directory");
  struct stat st;
  if (make_dirs(dir) != 0 || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return ixj__fail(err, IXJ_ERR_IO, "cache directory %s is unusable: %s", dir, strerror(errno));
  disk_cache *dc = calloc(1, sizeof *dc);
  char *copy = strdup(dir);
  if (!dc || !copy) {
    free(dc);
    free(copy);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  dc->dir = copy;
  dc->max_bytes = max_bytes ? max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES;
  *out = dc;
  return IXJ_OK;
}

void ixj__disk_cache_close(disk_cache *dc) {
  if (!dc) return;
  free(dc->dir);
  free(dc);
}

const char *ixj__disk_cache_dir(const disk_cache *dc) { return dc->dir; }

static void path_of(const char *dir, const char *name, char *path, size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
}

/* Reads and checks one file. On success *key_out and *payload are malloc'ed. */
static const char *read_entry(const char *path, char **key_out, void **payload, size_t *plen) {
  unsigned char h[HEADER_SIZE];
  const char *problem = NULL;
  char *key = NULL;
  void *data = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return "cannot open";
  struct stat st;
  if (fstat(fileno(f), &st) != 0) problem = "cannot stat";
  else if (fread(h, 1, HEADER_SIZE, f) != HEADER_SIZE) problem = "truncated header";
  else if (memcmp(h, MAGIC, sizeof MAGIC)) problem = "not an ixjit cache entry";
  else if (get_u32(h + 8) != DISK_FORMAT_VERSION) problem = "another format version";
  if (!problem) {
    uint32_t klen = get_u32(h + 12);
    uint64_t len = get_u64(h + 16);
    if (klen > MAX_KEY || len > (uint64_t)st.st_size || (uint64_t)st.st_size != HEADER_SIZE + klen + len) {
      problem = "truncated or oversized";
    } else if (!(key = malloc(klen + 1)) || !(data = malloc(len ? len : 1))) {
      problem = "out of memory";
    } else if (fread(key, 1, klen, f) != klen || fread(data, 1, len, f) != len) {
      problem = "read error";
    } else {
      key[klen] = '\0';
      if (strlen(key) != klen) problem = "bad key";
      else if (checksum(key, klen, data, len) != get_u64(h + 24)) problem = "checksum mismatch";
      *plen = len;
    }
  }
  fclose(f);
  if (problem) {
    free(key);
    free(data);
    return problem;
  }
  *key_out = key;
  *payload = data;
  return NULL;
}

bool ixj__disk_cache_has(const disk_cache *dc, const char *key) {
  char name[48], path[4200];
  ixj__disk_cache_file_name(key, name);
  path_of(dc->dir, name, path, sizeof path);
  return access(path, R_OK) == 0;
}

bool ixj__disk_cache_load(disk_cache *dc, const char *key, void **payload, size_t *size) {
  char name[48], path[4200];
  char *echoed = NULL;
  ixj__disk_cache_file_name(key, name);
  path_of(dc->dir, name, path, sizeof path);
  if (access(path, F_OK) != 0) return false;
  const char *problem = read_entry(path, &echoed, payload, size);
  if (!problem && strcmp(echoed, key)) problem = "key mismatch";
  free(echoed);
  if (problem) {
    if (strcmp(problem, "out of memory")) unlink(path); /* bad: remove; it will be rewritten */
    if (!strcmp(problem, "key mismatch")) free(*payload);
    return false;
  }
  utimes(path, NULL); /* last use, for LRU */
  return true;
}

typedef struct file_info {
  char name[256];
  uint64_t size;
  int64_t mtime;
} file_info;

static int by_mtime(const void *a, const void *b) {
  const file_info *x = a, *y = b;
  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* Entries of a directory (*.ixk) with sizes and times; temps when asked. */
static int list_files(const char *dir, bool temps, file_info **out, int *count) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0, cap = 64;
  file_info *v = malloc((size_t)cap * sizeof *v);
  struct dirent *e;
  while (v && (e = readdir(d))) {
    bool entry = has_suffix(e->d_name, SUFFIX) && e->d_name[0] != '.';
    bool temp = !strncmp(e->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX));
    if (!(entry || (temps && temp)) || strlen(e->d_name) >= sizeof v->name) continue;
    char path[4200];
    struct stat st;
    path_of(dir, e->d_name, path, sizeof path);
    if (stat(path, &st) != 0) continue;
    if (n == cap) {
      file_info *w = realloc(v, (size_t)(cap *= 2) * sizeof *v);
      if (!w) break;
      v = w;
    }
    snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
    v[n].size = (uint64_t)st.st_size;
    v[n].mtime = (int64_t)st.st_mtime;
    n++;
  }
  closedir(d);
  if (!v) return -1;
  *out = v;
  *count = n;
  return 0;
}

/* Removes the least recently used entries until the total fits. */
static int evict(const char *dir, uint64_t max_bytes) {
  file_info *v;
  int n, removed = 0;
  if (list_files(dir, false, &v, &n) != 0) return 0;
  uint64_t total = 0;
  for (int k = 0; k < n; k++) total += v[k].size;
  qsort(v, (size_t)n, sizeof *v, by_mtime);
  for (int k = 0; k < n && total > max_bytes; k++) {
    char path[4200];
    path_of(dir, v[k].name, path, sizeof path);
    if (unlink(path) == 0) removed++;
    total -= v[k].size;
  }
  free(v);
  return removed;
}

ixj_status ixj__disk_cache_store(disk_cache *dc, const char *key, const void *payload, size_t size, ixj_error *err) {
  char name[48], path[4200], temp[4200];
  unsigned char h[HEADER_SIZE];
  size_t klen = strlen(key);
  if (klen > MAX_KEY) return ixj__fail(err, IXJ_ERR_LIMIT, "cache key too long");
  ixj__disk_cache_file_name(key, name);
  path_of(dc->dir, name, path, sizeof path);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(temp, sizeof temp, "%s/" TEMP_PREFIX "%s.%ld.%ld", dc->dir, name, (long)getpid(), (long)ts.tv_nsec);
  memcpy(h, MAGIC, sizeof MAGIC);
  put_u32(h + 8, DISK_FORMAT_VERSION);
  put_u32(h + 12, (uint32_t)klen);
  put_u64(h + 16, size);
  put_u64(h + 24, checksum(key, klen, payload, size));
  int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(errno));
  const struct {
    const void *p;
    size_t n;
  } parts[3] = {{h, HEADER_SIZE}, {key, klen}, {payload, size}};
  bool ok = true;
  for (int k = 0; k < 3 && ok; k++) {
    const char *p = parts[k].p;
    size_t left = parts[k].n;
    while (left && ok) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      if (ok) p += w, left -= (size_t)w;
    }
  }
  int saved = errno;
  ok = ok && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (ok && rename(temp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(temp);
    return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(saved));
  }
  evict(dc->dir, dc->max_bytes);
  return IXJ_OK;
}

/* ---- directory maintenance (public) ---------------------------------------- */

ixj_status ixj_cache_scan(const char *dir, ixj_cache_visit visit, void *user, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir && visit);
  file_info *v;
  int n;
  if (list_files(dir, false, &v, &n) != 0)
    return ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
  for (int k = 0; k < n; k++) {
    char path[4200], *key = NULL, expect[48];
    void *payload = NULL;
    size_t plen;
    path_of(dir, v[k].name, path, sizeof path);
    const char *problem = read_entry(path, &key, &payload, &plen);
    if (!problem) {
      ixj__disk_cache_file_name(key, expect);
      if (strcmp(expect, v[k].name)) problem = "stored under another key's name";
    }
    ixj_cache_entry e = {v[k].name, v[k].size, v[k].mtime, problem == NULL, problem, problem ? NULL : key};
    visit(user, &e);
    free(key);
    free(payload);
  }
  free(v);
  return IXJ_OK;
}

typedef struct prune_state {
  const char *dir;
  int removed;
} prune_state;

static void remove_invalid(void *user, const ixj_cache_entry *e) {
  prune_state *s = user;
  char path[4200];
  path_of(s->dir, e->file, path, sizeof path);
  if (!e->valid && unlink(path) == 0) s->removed++;
}

/* Temporary files older than a minute belong to a writer that died. */
static int remove_stale_temps(const char *dir, int64_t older_than) {
  file_info *v;
  int n, removed = 0;
  if (list_files(dir, true, &v, &n) != 0) return 0;
  for (int k = 0; k < n; k++) {
    char path[4200];
    if (strncmp(v[k].name, TEMP_PREFIX, strlen(TEMP_PREFIX)) || v[k].mtime > older_than) continue;
    path_of(dir, v[k].name, path, sizeof path);
    if (unlink(path) == 0) removed++;
  }
  free(v);
  return removed;
}

ixj_status ixj_cache_prune(const char *dir, uint64_t max_bytes, int *removed, ixj_error *err) {
  prune_state s = {dir, 0};
  ixj_status st = ixj_cache_scan(dir, remove_invalid, &s, err);
  if (st != IXJ_OK) return st;
  s.removed += remove_stale_temps(dir, (int64_t)time(NULL) - 60);
  s.removed += evict(dir, max_bytes ? max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES);
  if (removed) *removed = s.removed;
  return IXJ_OK;
}

ixj_status ixj_cache_clear(const char *dir, int *removed, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir);
  file_info *v;
  int n, count = 0;
  if (list_files(dir, true, &v, &n) != 0)
    return ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
  for (int k = 0; k < n; k++) {
    char path[4200];
    path_of(dir, v[k].name, path, sizeof path);
    if (unlink(path) == 0) count++;
  }
  free(v);
  if (removed) *removed = count;
  return IXJ_OK;
}
