/* The disk tier: one self-checking file per key, written atomically.
 *
 *   offset  size  field
 *   0       8     magic "IXJITKC\0"
 *   8       4     format version (little endian)
 *   12      4     key length K
 *   16      8     payload length P
 *   24      8     XXH3-64 of everything after it (flags, MAC, key, payload)
 *   32      4     flags: bit 0, authenticated (no other bit is defined)
 *   36      4     zero
 *   40      32    HMAC-SHA-256 of bytes 0..24 and 32..40, the key and the payload
 *                 (cache_auth.h); zero when not authenticated
 *   72      K     the key, echoed
 *   72+K    P     the payload
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
 * load or a hang.
 *
 * With a cache key (cache_auth.h) every entry written carries an HMAC over
 * its header, key and payload, and an entry is loaded only when its HMAC
 * verifies: then a shared directory (one another user owns or may write) can
 * be allowed, since nobody without the key can write an entry that loads.
 * The whole entry is read into memory and checked there, so what is checked
 * is what is loaded. */
#include "disk_cache.h"

#include <dirent.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "cache_auth.h"
#include "error.h"
#include "ixjit/ixjit.h"
#include "fingerprint.h"

#define HEADER_SIZE 72
#define FLAG_AUTHENTICATED 1u
#define MAX_ENTRY ((uint64_t)1 << 31) /* an object file of a copy kernel is kilobytes */
#define SUFFIX ".ixk"
#define TEMP_PREFIX ".tmp-"
#define MAX_KEY (1u << 20)

static const char MAGIC[8] = {'I', 'X', 'J', 'I', 'T', 'K', 'C', '\0'};

struct disk_cache {
  char *dir;
  int dirfd; /* the checked directory: every file is reached through it */
  uint64_t max_bytes;
  const cache_auth *auth; /* borrowed; NULL: entries are not authenticated */
  bool shared;            /* a directory others may write: entries need their HMAC, not their owner */
  mode_t dir_mode;        /* the directory's permissions, which a shared one's shards copy */
  ixj_log_fn log;
  void *log_user;
  atomic_int stats_fd;    /* the counters file, opened (made) at the first flush; -1 before */
  atomic_uint_fast64_t pending[DISK_STAT_COUNT]; /* counted, not yet added to the file */
  atomic_uint_fast64_t unflushed;
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

/* XXH3 of the header's tail (flags, MAC), the key and the payload: damage
 * anywhere after the checksum field is caught before anything else. */
static uint64_t checksum(const unsigned char *header, const char *key, size_t klen, const void *payload, size_t plen) {
  XXH3_state_t *s = XXH3_createState();
  uint64_t h = 0;
  if (!s) return 0;
  XXH3_64bits_reset(s);
  XXH3_64bits_update(s, header + 32, HEADER_SIZE - 32);
  XXH3_64bits_update(s, key, klen);
  XXH3_64bits_update(s, payload, plen);
  h = XXH3_64bits_digest(s);
  XXH3_freeState(s);
  return h;
}

/* The generator: the version, and the fingerprint of the sources that write
 * kernels, since two builds of one version may write a signature's kernel
 * differently (an emitter fixed or tuned): neither loads the other's. */
#define GENERATOR_VERSION "ixjit " IXJIT_VERSION_STRING " (kernel format 1, generator %s)"

char *ixj__disk_cache_key(const char *backend, const char *toolchain, const char *signature) {
  const char *fmt = "ixjit-cache-key\nformat=%u\ngenerator=" GENERATOR_VERSION "\nbackend=%s\ntoolchain=%s\nsignature=%s\n";
  int n = snprintf(NULL, 0, fmt, DISK_FORMAT_VERSION, ixj__generator_fingerprint, backend, toolchain, signature);
  char *key = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (key)
    snprintf(key, (size_t)n + 1, fmt, DISK_FORMAT_VERSION, ixj__generator_fingerprint, backend, toolchain, signature);
  return key;
}

void ixj__disk_cache_file_name(const char *key, char name[48]) {
  XXH128_hash_t h = XXH3_128bits(key, strlen(key));
  char hex[33];
  snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
  snprintf(name, 48, "%.2s/%s" SUFFIX, hex, hex);
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
 * directory rules; `shared` (entries authenticated by their HMAC) waives the
 * owner and mode rules, never the type. reason is filled when the answer is
 * not NULL. */
static const char *untrusted(const struct stat *st, bool dir, bool shared, char *reason, size_t size) {
  uid_t me = geteuid();
  if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
    snprintf(reason, size, "%s, not %s", file_kind(st->st_mode), dir ? "a directory" : "a regular file");
  else if (shared)
    return NULL;
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
static int open_trusted_dir(const char *dir, bool create, bool shared, char *reason, size_t size) {
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
  if (untrusted(&st, true, shared, reason, size)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* ---- shards ------------------------------------------------------------------
 * Entries live in 256 subdirectories named by their hash's first two hex
 * digits ("3f/3f....ixk"), so a store lists one shard (1/256 of the cache), never
 * the whole directory; eviction keeps each shard within 1/256 of the limit
 * (ccache's rule for its 16), and `ixjit cache prune` enforces the exact
 * total. A shard is reached without following a link and gets the
 * directory's trust rules. */

#define SHARDS 256
#define SHARD_MISSING (-1)
#define SHARD_REFUSED (-2)

static bool is_shard_name(const char *s) {
  return strlen(s) == 2 && strchr("0123456789abcdef", s[0]) && strchr("0123456789abcdef", s[1]) && s[0] && s[1];
}

/* The directory that holds the relative entry name `rel` ("xx/NAME", or a
 * top-level "NAME" of an older layout), opened and checked: a descriptor
 * (the caller closes it) and *base, or SHARD_MISSING, or SHARD_REFUSED with
 * the reason. create makes a missing shard with `mode`. */
static int open_holder(int dirfd, const char *rel, bool create, bool shared, mode_t mode, const char **base, char *reason,
                       size_t size) {
  const char *slash = strchr(rel, '/');
  if (!slash) {
    *base = rel;
    return dup(dirfd);
  }
  char shard[3] = {rel[0], rel[1], '\0'};
  *base = slash + 1;
  if (slash != rel + 2 || !is_shard_name(shard)) {
    snprintf(reason, size, "not an entry name");
    return SHARD_REFUSED;
  }
  int fd = openat(dirfd, shard, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (mkdirat(dirfd, shard, mode) == 0 || errno == EEXIST) {
      fd = openat(dirfd, shard, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) fchmod(fd, mode); /* whatever the umask (a no-op on another's shard) */
    }
  }
  if (fd < 0) {
    if (errno == ENOENT) return SHARD_MISSING;
    snprintf(reason, size, "shard %s: %s", shard,
             errno == ELOOP || errno == ENOTDIR ? "not a directory (a link or a file)" : strerror(errno));
    return SHARD_REFUSED;
  }
  struct stat st;
  char why[120] = "cannot stat";
  if (fstat(fd, &st) != 0 || untrusted(&st, true, shared, why, sizeof why)) {
    snprintf(reason, size, "shard %s: %s", shard, why);
    close(fd);
    return SHARD_REFUSED;
  }
  return fd;
}

#define ENTRY_MISSING (-1)
#define ENTRY_REFUSED (-2)

/* An entry opened for reading if it may be trusted: a descriptor, or
 * ENTRY_MISSING, or ENTRY_REFUSED with the reason. Never follows a link,
 * never waits for a writer. */
static int open_trusted_entry(int dirfd, const char *rel, bool shared, struct stat *st, char *reason, size_t size) {
  const char *name;
  int holder = open_holder(dirfd, rel, false, shared, 0, &name, reason, size);
  if (holder == SHARD_MISSING) return ENTRY_MISSING;
  if (holder < 0) return ENTRY_REFUSED;
  int fd = openat(holder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close(holder);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return ENTRY_MISSING;
    snprintf(reason, size, "%s", errno == ELOOP ? "a symbolic link, not a regular file" : strerror(errno));
    return ENTRY_REFUSED;
  }
  if (fstat(fd, st) != 0) {
    snprintf(reason, size, "cannot stat: %s", strerror(errno));
    close(fd);
    return ENTRY_REFUSED;
  }
  if (untrusted(st, false, shared, reason, size)) {
    close(fd);
    return ENTRY_REFUSED;
  }
  return fd;
}

/* Removes the entry (or temporary file) `rel`; 0 when removed. */
static int unlink_entry(int dirfd, const char *rel) {
  const char *name;
  char reason[160];
  int holder = open_holder(dirfd, rel, false, true, 0, &name, reason, sizeof reason);
  if (holder < 0) return -1;
  int r = unlinkat(holder, name, 0);
  close(holder);
  return r;
}

/* ---- the entry format -------------------------------------------------------- */

/* The header of an entry of key and payload, authenticated when auth is set. */
static void make_header(unsigned char h[HEADER_SIZE], const cache_auth *auth, const char *key, size_t klen,
                        const void *payload, size_t size) {
  memset(h, 0, HEADER_SIZE);
  memcpy(h, MAGIC, sizeof MAGIC);
  put_u32(h + 8, DISK_FORMAT_VERSION);
  put_u32(h + 12, (uint32_t)klen);
  put_u64(h + 16, size);
  if (auth) {
    put_u32(h + 32, FLAG_AUTHENTICATED);
    /* the header but its checksum, which covers the MAC */
    cache_auth_part parts[4] = {{h, 24}, {h + 32, 8}, {key, klen}, {payload, size}};
    ixj__cache_auth_mac(auth, parts, 4, h + 40);
  }
  put_u64(h + 24, checksum(h, key, klen, payload, size));
}

ixj_status ixj__disk_entry_encode(const cache_auth *auth, const char *key, const void *payload, size_t size, void **out,
                                  size_t *out_size, ixj_error *err) {
  size_t klen = strlen(key), total;
  *out = NULL;
  if (klen > MAX_KEY || size > MAX_ENTRY) return ixj__fail(err, IXJ_ERR_LIMIT, "cache entry too large");
  total = HEADER_SIZE + klen + size;
  unsigned char *buf = malloc(total);
  if (!buf) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  make_header(buf, auth, key, klen, payload, size);
  memcpy(buf + HEADER_SIZE, key, klen);
  if (size) memcpy(buf + HEADER_SIZE + klen, payload, size);
  *out = buf;
  *out_size = total;
  return IXJ_OK;
}

const char *ixj__disk_entry_decode(const cache_auth *auth, const void *entry, size_t len, const char *expect_key,
                                   char **key_out, void **payload, size_t *plen) {
  const unsigned char *h = entry;
  if (len < HEADER_SIZE) return "truncated header";
  if (memcmp(h, MAGIC, sizeof MAGIC)) return "not an ixjit cache entry";
  if (get_u32(h + 8) != DISK_FORMAT_VERSION) return "another format version";
  uint32_t klen = get_u32(h + 12), flags = get_u32(h + 32);
  uint64_t size = get_u64(h + 16);
  if (klen > MAX_KEY || size > MAX_ENTRY || (uint64_t)len != HEADER_SIZE + klen + size) return "truncated or oversized";
  const char *key = (const char *)h + HEADER_SIZE;
  const unsigned char *data = h + HEADER_SIZE + klen;
  if (memchr(key, '\0', klen)) return "bad key";
  if (checksum(h, key, klen, data, size) != get_u64(h + 24)) return "checksum mismatch";
  static const unsigned char zero[CACHE_AUTH_MAC_BYTES];
  if ((flags & ~FLAG_AUTHENTICATED) || get_u32(h + 36) || (!flags && memcmp(h + 40, zero, sizeof zero)))
    return "bad header";
  if (expect_key && (strlen(expect_key) != klen || memcmp(expect_key, key, klen))) return "key mismatch";
  if (auth && !flags) return "not authenticated (no HMAC), and a cache key is configured";
  if (auth) {
    cache_auth_part parts[4] = {{h, 24}, {h + 32, 8}, {key, klen}, {data, size}};
    if (!ixj__cache_auth_verify(auth, parts, 4, h + 40)) return "authentication failed (HMAC mismatch: another key, or forged)";
  }
  char *k = key_out ? malloc(klen + 1) : NULL;
  void *p = payload ? malloc(size ? size : 1) : NULL;
  if ((key_out && !k) || (payload && !p)) {
    free(k);
    free(p);
    return "out of memory";
  }
  if (k) {
    memcpy(k, key, klen);
    k[klen] = '\0';
    *key_out = k;
  }
  if (p) {
    if (size) memcpy(p, data, size);
    *payload = p;
  }
  if (plen) *plen = size;
  return NULL;
}

/* Whether a decoding problem is damage (the file goes) rather than a reason
 * not to trust a whole entry (left for a store of the right kernel to replace). */
static bool is_damage(const char *problem) {
  return strcmp(problem, "out of memory") && strncmp(problem, "not authenticated", 17) &&
         strncmp(problem, "authentication failed", 21);
}

/* ---- counters across processes ----------------------------------------------
 * The file "stats" in the directory: a magic and DISK_STAT_COUNT little-endian
 * 64-bit counters. A context counts in memory and adds its counts to the file
 * under flock(LOCK_EX) every FLUSH_EVERY events and when it closes, so the
 * file costs one lock per many lookups and concurrent processes never lose
 * each other's counts (a process killed loses only its unflushed ones). The
 * counters are statistics, never trusted for anything else. */

#define STATS_FILE "stats"
#define STATS_MAGIC "IXJITST1"
#define STATS_SIZE (8 + 8 * DISK_STAT_COUNT)
#define FLUSH_EVERY 64

static int open_stats(int dirfd, bool create, bool shared) {
  int flags = (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int fd = openat(dirfd, STATS_FILE, flags, shared ? 0664 : 0600);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    fd = -1;
  }
  return fd;
}

static void read_counts(int fd, uint64_t *v) {
  unsigned char b[STATS_SIZE];
  memset(v, 0, sizeof(uint64_t) * DISK_STAT_COUNT);
  if (pread(fd, b, sizeof b, 0) == (ssize_t)sizeof b && !memcmp(b, STATS_MAGIC, 8))
    for (int k = 0; k < DISK_STAT_COUNT; k++) v[k] = get_u64(b + 8 + 8 * k);
}

void ixj__disk_cache_flush_counts(disk_cache *dc) {
  uint64_t add[DISK_STAT_COUNT], v[DISK_STAT_COUNT];
  bool any = false;
  if (!dc) return;
  for (int k = 0; k < DISK_STAT_COUNT; k++) any |= (add[k] = atomic_exchange(&dc->pending[k], 0)) != 0;
  if (!any) return;
  int fd = atomic_load(&dc->stats_fd);
  if (fd < 0) { /* a directory that was never counted in has no file */
    int mine = open_stats(dc->dirfd, true, dc->shared), expected = -1;
    if (mine < 0) return;
    if (atomic_compare_exchange_strong(&dc->stats_fd, &expected, mine)) fd = mine;
    else close(mine), fd = expected; /* another thread opened it first */
  }
  if (flock(fd, LOCK_EX) != 0) return;
  unsigned char b[STATS_SIZE];
  read_counts(fd, v);
  memcpy(b, STATS_MAGIC, 8);
  for (int k = 0; k < DISK_STAT_COUNT; k++) put_u64(b + 8 + 8 * k, v[k] + add[k]);
  ssize_t w = pwrite(fd, b, sizeof b, 0);
  (void)w; /* a counter that cannot be written is lost, never an error */
  flock(fd, LOCK_UN);
}

void ixj__disk_cache_count(disk_cache *dc, disk_stat counter, uint64_t n) {
  if (!dc || !n) return;
  atomic_fetch_add(&dc->pending[counter], n);
  if ((atomic_fetch_add(&dc->unflushed, 1) + 1) % FLUSH_EVERY == 0) ixj__disk_cache_flush_counts(dc);
}

ixj_status ixj_cache_counters(const char *dir, ixj_cache_counter_values *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir && out);
  uint64_t v[DISK_STAT_COUNT];
  memset(out, 0, sizeof *out);
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) return errno == ENOENT ? IXJ_OK : ixj__fail(err, IXJ_ERR_IO, "cannot read %s: %s", dir, strerror(errno));
  int fd = open_stats(dirfd, false, true);
  close(dirfd);
  if (fd < 0) return IXJ_OK; /* never counted: zeros */
  flock(fd, LOCK_SH);
  read_counts(fd, v);
  flock(fd, LOCK_UN);
  close(fd);
  out->memory_hits = v[DISK_STAT_MEMORY_HITS];
  out->disk_hits = v[DISK_STAT_DISK_HITS];
  out->disk_misses = v[DISK_STAT_DISK_MISSES];
  out->remote_hits = v[DISK_STAT_REMOTE_HITS];
  out->remote_misses = v[DISK_STAT_REMOTE_MISSES];
  out->refused = v[DISK_STAT_REFUSED];
  return IXJ_OK;
}

/* ---- the context's cache ---------------------------------------------------- */

ixj_status ixj__disk_cache_open_with(const char *dir, const disk_cache_config *cfg, disk_cache **out, ixj_error *err) {
  *out = NULL;
  if (!dir || !*dir) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "no cache directory");
  bool shared = cfg && cfg->shared;
  if (shared && !cfg->auth)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                     "a shared cache directory needs authenticated entries: set IXJIT_CACHE_KEY_FILE");
  char reason[160];
  int fd = open_trusted_dir(dir, true, shared, reason, sizeof reason);
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
  dc->max_bytes = cfg && cfg->max_bytes ? cfg->max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES;
  dc->auth = cfg ? cfg->auth : NULL;
  dc->shared = shared;
  struct stat st;
  dc->dir_mode = fstat(fd, &st) == 0 ? (st.st_mode & 07777) : 0700;
  atomic_init(&dc->stats_fd, -1);
  for (int k = 0; k < DISK_STAT_COUNT; k++) atomic_init(&dc->pending[k], 0);
  atomic_init(&dc->unflushed, 0);
  *out = dc;
  return IXJ_OK;
}

ixj_status ixj__disk_cache_open(const char *dir, uint64_t max_bytes, disk_cache **out, ixj_error *err) {
  disk_cache_config cfg = {max_bytes, NULL, false};
  return ixj__disk_cache_open_with(dir, &cfg, out, err);
}

void ixj__disk_cache_set_log(disk_cache *dc, ixj_log_fn log, void *user) {
  dc->log = log;
  dc->log_user = user;
}

void ixj__disk_cache_close(disk_cache *dc) {
  if (!dc) return;
  ixj__disk_cache_flush_counts(dc);
  if (atomic_load(&dc->stats_fd) >= 0) close(atomic_load(&dc->stats_fd));
  close(dc->dirfd);
  free(dc->dir);
  free(dc);
}

const char *ixj__disk_cache_dir(const disk_cache *dc) { return dc->dir; }
const cache_auth *ixj__disk_cache_auth(const disk_cache *dc) { return dc->auth; }

/* Reads one opened entry whole (and closes it): its bytes malloc'ed, or a problem. */
static const char *read_file(int fd, const struct stat *st, unsigned char **out, size_t *len) {
  const char *problem = NULL;
  unsigned char *buf = NULL;
  if ((uint64_t)st->st_size > HEADER_SIZE + MAX_KEY + MAX_ENTRY) problem = "truncated or oversized";
  else if (!(buf = malloc(st->st_size ? (size_t)st->st_size : 1))) problem = "out of memory";
  size_t got = 0, want = problem ? 0 : (size_t)st->st_size;
  while (!problem && got < want) {
    ssize_t r = read(fd, buf + got, want - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) problem = "read error";
    else if (r == 0) problem = "truncated or oversized"; /* shrank since the fstat */
    else got += (size_t)r;
  }
  close(fd);
  if (problem) {
    free(buf);
    return problem;
  }
  *out = buf;
  *len = got;
  return NULL;
}

/* Reads and checks one opened entry (and closes it). On success *key_out and
 * *payload are malloc'ed. */
static const char *read_entry(const cache_auth *auth, int fd, const struct stat *st, const char *expect_key,
                              char **key_out, void **payload, size_t *plen) {
  unsigned char *buf;
  size_t len;
  const char *problem = read_file(fd, st, &buf, &len);
  if (problem) return problem;
  problem = ixj__disk_entry_decode(auth, buf, len, expect_key, key_out, payload, plen);
  free(buf);
  return problem;
}

bool ixj__disk_cache_has(const disk_cache *dc, const char *key) {
  char name[48], reason[160];
  struct stat st;
  const char *base;
  ixj__disk_cache_file_name(key, name);
  int holder = open_holder(dc->dirfd, name, false, dc->shared, 0, &base, reason, sizeof reason);
  if (holder < 0) return false;
  bool ok = fstatat(holder, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !untrusted(&st, false, dc->shared, reason, sizeof reason);
  close(holder);
  return ok;
}

static void warn(const disk_cache *dc, const char *name, const char *reason) {
  if (!dc->log) return;
  char msg[400];
  snprintf(msg, sizeof msg, "cache entry %s/%s is not trusted (%s): ignored, a miss", dc->dir, name,
           reason);
  dc->log(dc->log_user, IXJ_LOG_WARNING, msg);
}

bool ixj__disk_cache_load(disk_cache *dc, const char *key, void **payload, size_t *size) {
  char name[48], reason[160];
  struct stat st;
  ixj__disk_cache_file_name(key, name);
  int fd = open_trusted_entry(dc->dirfd, name, dc->shared, &st, reason, sizeof reason);
  if (fd < 0) {
    if (fd == ENTRY_REFUSED) warn(dc, name, reason); /* a miss; the store replaces it */
    ixj__disk_cache_count(dc, fd == ENTRY_REFUSED ? DISK_STAT_REFUSED : DISK_STAT_DISK_MISSES, 1);
    return false;
  }
  struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  futimens(fd, now); /* last use, for LRU */
  const char *problem = read_entry(dc->auth, fd, &st, key, NULL, payload, size);
  if (problem) {
    if (is_damage(problem)) unlink_entry(dc->dirfd, name); /* bad: remove; it will be rewritten */
    else if (strcmp(problem, "out of memory")) warn(dc, name, problem);
    ixj__disk_cache_count(dc, is_damage(problem) ? DISK_STAT_DISK_MISSES : DISK_STAT_REFUSED, 1);
    return false;
  }
  ixj__disk_cache_count(dc, DISK_STAT_DISK_HITS, 1);
  return true;
}

typedef struct file_info {
  char name[256]; /* relative: "xx/NAME" (or a top-level NAME of an older layout) */
  uint64_t size;
  int64_t mtime;
  const char *refused; /* a shard that may not be trusted (static text in `why`), else NULL */
  char why[160];
} file_info;

static int by_mtime(const void *a, const void *b) {
  const file_info *x = a, *y = b;
  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

typedef struct file_list {
  file_info *v;
  int n, cap;
  bool failed;
} file_list;

static file_info *list_add(file_list *l) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    file_info *w = realloc(l->v, (size_t)cap * sizeof *w);
    if (!w) {
      l->failed = true;
      return NULL;
    }
    l->v = w;
    l->cap = cap;
  }
  file_info *f = &l->v[l->n++];
  memset(f, 0, sizeof *f);
  return f;
}

/* The entries (*.ixk, whatever their type) of one directory, named
 * prefix + NAME; temps when asked; shards too when `shards` (then their
 * entries, each shard checked like the directory). Nothing is opened but
 * directories, so nothing can block. */
static int list_dir(int dirfd, const char *prefix, bool temps, bool shards, bool shared, file_list *l) {
  int fd = dup(dirfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return -1;
  }
  rewinddir(d);
  struct dirent *e;
  while (!l->failed && (e = readdir(d))) {
    if (shards && is_shard_name(e->d_name)) {
      char rel[8], reason[160];
      const char *base;
      snprintf(rel, sizeof rel, "%.2s/x", e->d_name);
      int sfd = open_holder(dirfd, rel, false, shared, 0, &base, reason, sizeof reason);
      if (sfd >= 0) {
        char sub[4];
        snprintf(sub, sizeof sub, "%.2s/", e->d_name);
        list_dir(sfd, sub, temps, false, shared, l);
        close(sfd);
      } else if (sfd == SHARD_REFUSED) {
        file_info *f = list_add(l);
        if (f) {
          snprintf(f->name, sizeof f->name, "%s", e->d_name);
          snprintf(f->why, sizeof f->why, "%s", reason);
          f->refused = f->why;
        }
      }
      continue;
    }
    bool entry = has_suffix(e->d_name, SUFFIX) && e->d_name[0] != '.';
    bool temp = !strncmp(e->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX));
    if (!(entry || (temps && temp)) || strlen(prefix) + strlen(e->d_name) >= sizeof l->v->name) continue;
    struct stat st;
    if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    file_info *f = list_add(l);
    if (!f) break;
    snprintf(f->name, sizeof f->name, "%s%s", prefix, e->d_name);
    f->size = (uint64_t)st.st_size;
    f->mtime = (int64_t)st.st_mtime;
  }
  closedir(d);
  return 0;
}

/* Every entry of the cache (the shards' and any top-level one). */
static int list_files(int dirfd, bool temps, bool shared, file_info **out, int *count) {
  file_list l = {NULL, 0, 0, false};
  if (list_dir(dirfd, "", temps, true, shared, &l) != 0 || l.failed) {
    free(l.v);
    return -1;
  }
  *out = l.v ? l.v : malloc(1);
  *count = l.n;
  return *out ? 0 : -1;
}

/* Removes the least recently used of the listed entries until their total
 * fits; refused shards are never touched. */
static int evict_listed(int dirfd, file_info *v, int n, uint64_t max_bytes) {
  int removed = 0;
  uint64_t total = 0;
  for (int k = 0; k < n; k++) total += v[k].size;
  qsort(v, (size_t)n, sizeof *v, by_mtime);
  for (int k = 0; k < n && total > max_bytes; k++) {
    if (v[k].refused) continue;
    if (unlink_entry(dirfd, v[k].name) == 0) removed++;
    total -= v[k].size;
  }
  return removed;
}

/* The whole cache within max_bytes (prune). */
static int evict(int dirfd, uint64_t max_bytes, bool shared) {
  file_info *v;
  int n, removed;
  if (list_files(dirfd, false, shared, &v, &n) != 0) return 0;
  removed = evict_listed(dirfd, v, n, max_bytes);
  free(v);
  return removed;
}

/* One shard within its share of the limit (after a store: one shard listed,
 * not the cache). */
static void evict_shard(int shardfd, uint64_t max_bytes) {
  file_list l = {NULL, 0, 0, false};
  if (list_dir(shardfd, "", false, false, true, &l) == 0 && !l.failed) evict_listed(shardfd, l.v, l.n, max_bytes / SHARDS);
  free(l.v);
}

ixj_status ixj__disk_cache_store(disk_cache *dc, const char *key, const void *payload, size_t size, ixj_error *err) {
  char rel[48], temp[128], reason[160];
  const char *name;
  unsigned char h[HEADER_SIZE];
  size_t klen = strlen(key);
  if (klen > MAX_KEY || size > MAX_ENTRY) return ixj__fail(err, IXJ_ERR_LIMIT, "cache entry too large");
  ixj__disk_cache_file_name(key, rel);
  /* a shared directory's entries are for the others too: readable, never
   * writable (their HMAC, not their mode, is what makes them loadable); its
   * shards are made like it */
  mode_t mode = dc->shared ? 0644 : 0600;
  int shard = open_holder(dc->dirfd, rel, true, dc->shared, dc->shared ? dc->dir_mode : 0700, &name, reason, sizeof reason);
  if (shard < 0)
    return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir,
                     shard == SHARD_REFUSED ? reason : strerror(errno));
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(temp, sizeof temp, TEMP_PREFIX "%s.%ld.%ld", name, (long)getpid(), (long)ts.tv_nsec);
  make_header(h, dc->auth, key, klen, payload, size);
  int fd = openat(shard, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(errno));
    close(shard);
    return st;
  }
  const struct {
    const void *p;
    size_t n;
  } parts[3] = {{h, HEADER_SIZE}, {key, klen}, {payload, size}};
  bool ok = fchmod(fd, mode) == 0; /* whatever the umask */
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
  if (ok && renameat(shard, temp, shard, name) != 0) ok = false, saved = errno;
  if (!ok) {
    unlinkat(shard, temp, 0);
    close(shard);
    return ixj__fail(err, IXJ_ERR_IO, "cannot write to the cache %s: %s", dc->dir, strerror(saved));
  }
  evict_shard(shard, dc->max_bytes);
  close(shard);
  return IXJ_OK;
}

/* ---- directory maintenance (public) ---------------------------------------- */

/* What maintenance reads besides the directory: the key and the shared
 * opt-in, from the environment as a context's defaults are. */
typedef struct maint {
  int fd;
  cache_auth *auth;
  bool shared;
  char reason[160]; /* why a context would not use the directory ("": it would) */
} maint;

static void maint_close(maint *m) {
  if (m->fd >= 0) close(m->fd);
  ixj__cache_auth_close(m->auth);
}

bool ixj__cache_shared_from_env(void) {
  const char *v = getenv("IXJIT_CACHE_SHARED");
  return v && !strcmp(v, "1");
}

/* The directory for maintenance: IXJ_OK with m->reason set when it is not
 * one a context would use, or an error (unreadable; a key file that cannot
 * be used). */
static ixj_status maint_open(const char *dir, maint *m, ixj_error *err) {
  const char *key_file = getenv("IXJIT_CACHE_KEY_FILE");
  struct stat st;
  memset(m, 0, sizeof *m);
  m->fd = -1;
  m->shared = ixj__cache_shared_from_env();
  if (key_file && *key_file) {
    ixj_error kerr;
    if (ixj__cache_auth_open(key_file, &m->auth, &kerr) != IXJ_OK)
      return ixj__fail(err, kerr.status == IXJ_ERR_UNAVAILABLE ? IXJ_ERR_UNAVAILABLE : IXJ_ERR_IO, "IXJIT_CACHE_KEY_FILE: %s",
                       kerr.message);
  }
  if (m->shared && !m->auth) {
    maint_close(m);
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "IXJIT_CACHE_SHARED=1 needs a key: set IXJIT_CACHE_KEY_FILE");
  }
  m->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (m->fd < 0 || fstat(m->fd, &st) != 0) {
    ixj_status s = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    maint_close(m);
    return s;
  }
  untrusted(&st, true, m->shared, m->reason, sizeof m->reason);
  return IXJ_OK;
}

/* Checks one listed entry fully; *key and *payload malloc'ed when valid. */
static const char *check_entry(const maint *m, const char *name, char *reason, size_t size, char **key, void **payload) {
  struct stat st;
  size_t plen;
  char expect[48];
  int fd = open_trusted_entry(m->fd, name, m->shared, &st, reason, size);
  if (fd == ENTRY_MISSING) return "removed while listing";
  if (fd < 0) return reason;
  const char *problem = read_entry(m->auth, fd, &st, NULL, key, payload, &plen);
  if (!problem) {
    ixj__disk_cache_file_name(*key, expect);
    if (strcmp(expect, name)) problem = "stored under another key's name";
  }
  return problem;
}

ixj_status ixj_cache_scan(const char *dir, ixj_cache_visit visit, void *user, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir && visit);
  char why[200];
  file_info *v;
  int n;
  maint m;
  ixj_status opened = maint_open(dir, &m, err);
  if (opened != IXJ_OK) return opened;
  if (list_files(m.fd, false, m.shared, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    maint_close(&m);
    return st;
  }
  snprintf(why, sizeof why, "in a directory that is not trusted: %s", m.reason);
  for (int k = 0; k < n; k++) {
    char *key = NULL, reason[160];
    void *payload = NULL;
    const char *problem = m.reason[0]  ? why
                          : v[k].refused ? v[k].refused
                                         : check_entry(&m, v[k].name, reason, sizeof reason, &key, &payload);
    ixj_cache_entry e = {v[k].name, v[k].size, v[k].mtime, problem == NULL, problem, problem ? NULL : key};
    visit(user, &e);
    free(key);
    free(payload);
  }
  free(v);
  maint_close(&m);
  return IXJ_OK;
}

/* prune and clear remove files: only in a directory a context would use. */
static ixj_status maint_open_for_removal(const char *dir, maint *m, ixj_error *err) {
  ixj_status st = maint_open(dir, m, err);
  if (st == IXJ_OK && m->reason[0]) {
    st = ixj__fail(err, IXJ_ERR_IO, "cache directory %s is not trusted: %s", dir, m->reason);
    maint_close(m);
  }
  return st;
}

/* Temporary files older than a minute belong to a writer that died. */
static bool is_temp(const char *rel) {
  const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
  return !strncmp(base, TEMP_PREFIX, strlen(TEMP_PREFIX));
}

static int remove_stale_temps(int dirfd, bool shared, int64_t older_than) {
  file_info *v;
  int n, removed = 0;
  if (list_files(dirfd, true, shared, &v, &n) != 0) return 0;
  for (int k = 0; k < n; k++) {
    if (v[k].refused || !is_temp(v[k].name) || v[k].mtime > older_than) continue;
    if (unlink_entry(dirfd, v[k].name) == 0) removed++;
  }
  free(v);
  return removed;
}

ixj_status ixj_cache_prune(const char *dir, uint64_t max_bytes, int *removed, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir);
  file_info *v;
  int n, count = 0;
  maint m;
  ixj_status opened = maint_open_for_removal(dir, &m, err);
  if (opened != IXJ_OK) return opened;
  if (list_files(m.fd, false, m.shared, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    maint_close(&m);
    return st;
  }
  for (int k = 0; k < n; k++) { /* the invalid, the untrusted and the unauthenticated */
    char *key = NULL, reason[160];
    void *payload = NULL;
    if (!v[k].refused && check_entry(&m, v[k].name, reason, sizeof reason, &key, &payload) &&
        unlink_entry(m.fd, v[k].name) == 0)
      count++;
    free(key);
    free(payload);
  }
  free(v);
  count += remove_stale_temps(m.fd, m.shared, (int64_t)time(NULL) - 60);
  count += evict(m.fd, max_bytes ? max_bytes : IXJ_CACHE_DEFAULT_MAX_BYTES, m.shared);
  maint_close(&m);
  if (removed) *removed = count;
  return IXJ_OK;
}

ixj_status ixj_cache_clear(const char *dir, int *removed, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dir);
  file_info *v;
  int n, count = 0;
  maint m;
  ixj_status opened = maint_open_for_removal(dir, &m, err);
  if (opened != IXJ_OK) return opened;
  if (list_files(m.fd, true, m.shared, &v, &n) != 0) {
    ixj_status st = ixj__fail(err, IXJ_ERR_IO, "cannot read the cache directory %s: %s", dir, strerror(errno));
    maint_close(&m);
    return st;
  }
  for (int k = 0; k < n; k++)
    if (!v[k].refused && unlink_entry(m.fd, v[k].name) == 0) count++;
  free(v);
  unlinkat(m.fd, STATS_FILE, 0); /* everything: the counters too (not counted as a file removed) */
  for (int k = 0; k < SHARDS; k++) { /* the emptied shards (one still in use stays) */
    char shard[3];
    snprintf(shard, sizeof shard, "%02x", k);
    unlinkat(m.fd, shard, AT_REMOVEDIR);
  }
  maint_close(&m);
  if (removed) *removed = count;
  return IXJ_OK;
}
