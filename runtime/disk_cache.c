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
 * rename), and a reader checks everything before trusting a byte.
 *
 * Trust: an entry is object code that will run, and its checksum is no
 * authentication. So a directory is used only when the effective user owns
 * it and nobody else can write it, and an entry only when it is a regular
 * file owned by that user and writable by nobody else. The directory is
 * opened once and every file is reached relative to that descriptor, so a
 * path swapped after the check changes nothing; entries are opened with
 * O_NOFOLLOW | O_NONBLOCK, so a symbolic link or a FIFO is a miss, never a
 * load or a hang. */
#include "disk_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  int dirfd; /* the checked directory: every file is reached through it */
  uint64_t max_bytes;
  ixj_log_fn log;
  void *log_user;
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

/* ---- trust ------------------------------------------------------------------ */

static const char *file_kind(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISLNK(m) ? "a symbolic link"
         : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* Why an opened file may not be trusted (NULL: it may). `dir` selects the
 * directory rules; reason is filled when the answer is not NULL. */
static const char *untrusted(const struct stat *st, bool dir, char *reason, size_t size) {
  uid_t me = geteuid();
  if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
    snprintf(reason, size, "%s, not %s", file_kind(st->st_mode), dir ? "a directory" : "a regular file");
  else if (st->st_uid != me)
    snprintf(reason, size, "owned by uid %lu, not by the effective user (uid %lu)", (unsigned long)st->st_uid,
             (unsigned long)me);
  else if (st->st_mode & (S_IWGRP | S_IWOTH))
    snprintf(reason, size, "writable by group or others (mode %04o)", (unsigned)(st->st_mode & 07777));
  else
    return NULL;
  return reason;
}

/* mkdir -p, every directory it makes 0700 whatever the umask. */
static int make_dirs(const char *path) {
  char tmp[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof tmp) return -1;
  memcpy(tmp, path, n + 1);
  for (char *p = tmp + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(tmp, 0700) == 0) chmod(tmp, 0700);
    else if (errno != EEXIST) return -1;
    if (!(*p = c)) return 0;
  }
}

/* The directory opened and checked: a descriptor, or -1 with the reason. */
static int open_trusted_dir(const char *dir, bool create, char *reason, size_t size) {
  if (create && make_dirs(dir) != 0) {
    snprintf(reason, size, "%s", strerror(errno));
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    snprintf(reason, size, "%s", strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (untrusted(&st, true, reason, size)) {
    close(fd);
    return -1;
  }
  return fd;
}

#define ENTRY_MISSING (-1)
#define ENTRY_REFUSED (-2)

/* An entry opened for reading if it may be trusted: a descriptor, or
 * ENTRY_MISSING, or ENTRY_REFUSED with the reason. Never follows a link,
 * never waits for a writer. */
static int open_trusted_entry(int dirfd, const char *name, struct stat *st, char *reason, size_t size) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return ENTRY_MISSING;
    snprintf(reason, size, "%s", errno == ELOOP ? "a symbolic link, not a regular file" : strerror(errno));
    return ENTRY_REFUSED;
  }
  if (fstat(fd, st) != 0) {
    snprintf(reason, size, "cannot stat: %s", strerror(errno));
    close(fd);
    return ENTRY_REFUSED;
  }
  if (untrusted(st, false, reason, size)) {
    close(fd);
    return ENTRY_REFUSED;
  }
  return fd;
}

/* ---- the context's cache ---------------------------------------------------- */

ixj_status ixj__disk_cache_open(const char *dir, uint64_t max_bytes, disk_cache **out, ixj_error *err) {
  *out = NULL;
  if (!dir || !*dir) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "no cache directory");
  char reason[160];
  int fd = open_trusted_dir(dir, true, reason, sizeof reason);
  if (fd < 0) return ixj__fail(err, IXJ_ERR_IO, "cache directory %s is unusable: %s", dir, reason);
  disk_cache *dc = calloc(1, sizeof *dc);
  char *copy = strdup(dir);
  if (!dc || !copy) {
    free(dc);
    free(copy);
    close(fd);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  dc->dir = copy;
  dc->dirfd = fd;
  dc->max_bytes = max_bytes ? max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES;
  *out = dc;
  return IXJ_OK;
}

void ixj__disk_cache_set_log(disk_cache *dc, ixj_log_fn log, void *user) {
  dc->log = log;
  dc->log_user = user;
}

void ixj__disk_cache_close(disk_cache *dc) {
  if (!dc) return;
  close(dc->dirfd);
  free(dc->dir);
  free(dc);
}

const char *ixj__disk_cache_dir(const disk_cache *dc) { return dc->dir; }

/* Reads and checks one opened entry (and closes it). On success *key_out and
 * *payload are malloc'ed. */
static const char *read_entry(int fd, const struct stat *st, char **key_out, void **payload, size_t *plen) {
  unsigned char h[HEADER_SIZE];
  const char *problem = NULL;
  char *key = NULL;
  void *data = NULL;
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return "cannot open";
  }
  if (fread(h, 1, HEADER_SIZE, f) != HEADER_SIZE) problem = "truncated header";
  else if (memcmp(h, MAGIC, sizeof MAGIC)) problem = "not an ixjit cache entry";
  else if (get_u32(h + 8) != DISK_FORMAT_VERSION) problem = "another format version";
  if (!problem) {
    uint32_t klen = get_u32(h + 12);
    uint64_t len = get_u64(h + 16);
    if (klen > MAX_KEY || len > (uint64_t)st->st_size || (uint64_t)st->st_size != HEADER_SIZE + klen + len) {
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
  char name[48], reason[160];
  struct stat st;
  ixj__disk_cache_file_name(key, name);
  return fstatat(dc->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !untrusted(&st, false, reason, sizeof reason);
}

static void warn(const disk_cache *dc, const char *name, const char *reason) {
  if (!dc->log) return;
  char msg[400];
  snprintf(msg, sizeof msg, "cache entry %s/%s is not trusted (%s): ignored, the kernel is compiled", dc->dir, name,
           reason);
  dc->log(dc->log_user, IXJ_LOG_WARNING, msg);
}

bool ixj__disk_cache_load(disk_cache *dc, const char *key, void **payload, size_t *size) {
  char name[48], reason[160];
  char *echoed = NULL;
  struct stat st;
  ixj__disk_cache_file_name(key, name);
  int fd = open_trusted_entry(dc->dirfd, name, &st, reason, sizeof reason);
  if (fd < 0) {
    if (fd == ENTRY_REFUSED) warn(dc, name, reason); /* a miss; the store replaces it */
    return false;
  }
  struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  futimens(fd, now); /* last use, for LRU */
  const char *problem = read_entry(fd, &st, &echoed, payload, size);
  if (!problem && strcmp(echoed, key)) problem = "key mismatch";
  free(echoed);
  if (problem) {
    if (strcmp(problem, "out of memory")) unlinkat(dc->dirfd, name, 0); /* bad: remove; it will be rewritten */
    if (!strcmp(problem, "key mismatch")) free(*payload);
    return false;
  }
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

/* Entries of a directory (*.ixk, whatever their type) with sizes and times;
 * temps when asked. Nothing is opened, so nothing can block. */
static int list_files(int dirfd, bool temps, file_info **out, int *count) {
  int fd = dup(dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return -1;
  }
  rewinddir(d);
  int n = 0, cap = 64;
  file_info *v = malloc((size_t)cap * sizeof *v);
  struct dirent *e;
  while (v && (e = readdir(d))) {
    bool entry = has_suffix(e->d_name, SUFFIX) && e->d_name[0] != '.';
    bool temp = !strncmp(e->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX));
    if (!(entry || (temps && temp)) || strlen(e->d_name) >= sizeof v->name) continue;
    struct stat st;
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
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
static int evict(int dirfd, uint64_t max_bytes) {
  file_info *v;
  int n, removed = 0;
  if (list_files(dirfd, false, &v, &n) != 0) return 0;
  uint64_t total = 0;
  for (int k = 0; k < n; k++) total += v[k].size;
  qsort(v, (size_t)n, sizeof *v, by_mtime);
  for (int k = 0; k < n && total > max_bytes; k++) {
    if (unlinkat(dirfd, v[k].name, 0) == 0) removed++;
    total -= v[k].size;
  }
  free(v);
  return removed;
}

ixj_status ixj__disk_cache_store(disk_cache *dc, const char *key, const void *payload, size_t size, ixj_error *err) {
  char name[48], temp[128];
  unsigned char h[HEADER_SIZE];
  size_t klen = strlen(key);
  if (klen > MAX_KEY) return ixj__fail(err, IXJ_ERR_LIMIT, "cache key too long");
  ixj__disk_cache_file_name(key, name);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(temp, sizeof temp, TEMP_PREFIX "%s.%ld.%ld", name, (long)getpid(), (long)ts.tv_nsec);
  memcpy(h, MAGIC, sizeof MAGIC);
  put_u32(h + 8, DISK_FORMAT_VERSION);
  put_u32(h + 12, (uint32_t)klen);
  put_u64(h + 16, size);
  put_u64(h + 24, checksum(key, klen, payload, size));
  int fd = openat(dc->dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(errno));
  const struct {
    const void *p;
    size_t n;
  } parts[3] = {{h, HEADER_SIZE}, {key, klen}, {payload, size}};
  bool ok = fchmod(fd, 0600) == 0; /* whatever the umask */
  int saved = errno;
  for (int k = 0; k < 3 && ok; k++) {
    const char *p = parts[k].p;
    size_t left = parts[k].n;
    while (left && ok) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      if (ok) p += w, left -= (size_t)w;
      else saved = errno;
    }
  }
  if (ok && fsync(fd) != 0) ok = false, saved = errno;
  if (close(fd) != 0 && ok) ok = false, saved = errno;
  if (ok && renameat(dc->dirfd, temp, dc->dirfd, name) != 0) ok = false, saved = errno;
  if (!ok) {
    unlinkat(dc->dirfd, temp, 0);
    return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(saved));
  }
  evict(dc->dirfd, dc->max_bytes);
  return IXJ_OK;
}

/* ---- directory maintenance (public) ---------------------------------------- */

/* The directory for maintenance: a descriptor (with `reason` set when it is
 * not one a context would use), or -1 and an IXJ_ERR_IO error. */
static int open_for_maintenance(const char *dir, char *reason, size_t size, ixj_error *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  reason[0] = '\0';
  if (fd < 0 || fstat(fd, &st) != 0) {
    ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  untrusted(&st, true, reason, size);
  return fd;
}

/* Checks one listed entry fully; *key and *payload malloc'ed when valid. */
static const char *check_entry(int dirfd, const char *name, char *reason, size_t size, char **key, void **payload) {
  struct stat st;
  size_t plen;
  char expect[48];
  int fd = open_trusted_entry(dirfd, name, &st, reason, size);
  if (fd == ENTRY_MISSING) return "removed while listing";
  if (fd < 0) return reason;
  const char *problem = read_entry(fd, &st, key, payload, &plen);
  if (!problem) {
    ixj__disk_cache_file_name(*key, expect);
    if (strcmp(expect, name)) problem = "stored under another key's name";
  }
  return problem;
}

ixj_status ixj_cache_scan(const char *dir, ixj_cache_visit visit, void *user, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir && visit);
  char dir_reason[160], why[200];
  file_info *v;
  int n, fd = open_for_maintenance(dir, dir_reason, sizeof dir_reason, err);
  if (fd < 0) return IXJ_ERR_IO;
  if (list_files(fd, false, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    close(fd);
    return st;
  }
  snprintf(why, sizeof why, "in a directory that is not trusted: %s", dir_reason);
  for (int k = 0; k < n; k++) {
    char *key = NULL, reason[160];
    void *payload = NULL;
    const char *problem = dir_reason[0] ? why : check_entry(fd, v[k].name, reason, sizeof reason, &key, &payload);
    ixj_cache_entry e = {v[k].name, v[k].size, v[k].mtime, problem == NULL, problem, problem ? NULL : key};
    visit(user, &e);
    free(key);
    free(payload);
  }
  free(v);
  close(fd);
  return IXJ_OK;
}

/* prune and clear remove files: only in a directory a context would use. */
static int open_for_removal(const char *dir, ixj_error *err) {
  char reason[160];
  int fd = open_for_maintenance(dir, reason, sizeof reason, err);
  if (fd >= 0 && reason[0]) {
    ixj__fail(err, IXJ_ERR_IO, "cache directory %s is not trusted: %s", dir, reason);
    close(fd);
    return -1;
  }
  return fd;
}

/* Temporary files older than a minute belong to a writer that died. */
static int remove_stale_temps(int dirfd, int64_t older_than) {
  file_info *v;
  int n, removed = 0;
  if (list_files(dirfd, true, &v, &n) != 0) return 0;
  for (int k = 0; k < n; k++) {
    if (strncmp(v[k].name, TEMP_PREFIX, strlen(TEMP_PREFIX)) || v[k].mtime > older_than) continue;
    if (unlinkat(dirfd, v[k].name, 0) == 0) removed++;
  }
  free(v);
  return removed;
}

ixj_status ixj_cache_prune(const char *dir, uint64_t max_bytes, int *removed, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir);
  file_info *v;
  int n, count = 0, fd = open_for_removal(dir, err);
  if (fd < 0) return IXJ_ERR_IO;
  if (list_files(fd, false, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    close(fd);
    return st;
  }
  for (int k = 0; k < n; k++) { /* the invalid and the untrusted */
    char *key = NULL, reason[160];
    void *payload = NULL;
    if (check_entry(fd, v[k].name, reason, sizeof reason, &key, &payload) && unlinkat(fd, v[k].name, 0) == 0) count++;
    free(key);
    free(payload);
  }
  free(v);
  count += remove_stale_temps(fd, (int64_t)time(NULL) - 60);
  count += evict(fd, max_bytes ? max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES);
  close(fd);
  if (removed) *removed = count;
  return IXJ_OK;
}

ixj_status ixj_cache_clear(const char *dir, int *removed, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir);
  file_info *v;
  int n, count = 0, fd = open_for_removal(dir, err);
  if (fd < 0) return IXJ_ERR_IO;
  if (list_files(fd, true, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    close(fd);
    return st;
  }
  for (int k = 0; k < n; k++)
    if (unlinkat(fd, v[k].name, 0) == 0) count++;
  free(v);
  close(fd);
  if (removed) *removed = count;
  return IXJ_OK;
}
