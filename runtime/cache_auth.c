/* Authenticated cache entries (cache_auth.h): HMAC-SHA-256 from libsodium,
 * keyed with the whole content of a key file the user controls. The key file
 * gets the disk cache's own trust rules, stricter: nobody else may even read
 * it, since whoever reads it can forge entries. */
#include "cache_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

#ifdef IXJIT_HAVE_SODIUM
#include <sodium.h>
#endif

struct cache_auth {
  size_t size;
  unsigned char key[CACHE_AUTH_MAX_KEY_BYTES];
};

#ifdef IXJIT_HAVE_SODIUM

bool ixj__cache_auth_available(void) { return true; }

/* Reads at most `cap` bytes of an opened file; -1 on a read error. */
static ssize_t read_all(int fd, unsigned char *buf, size_t cap) {
  size_t got = 0;
  while (got < cap) {
    ssize_t r = read(fd, buf + got, cap - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

ixj_status ixj__cache_auth_open(const char *path, cache_auth **out, ixj_error *err) {
  *out = NULL;
  if (!path || !*path) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "no cache key file");
  if (sodium_init() < 0) return ixj__fail(err, IXJ_ERR_UNAVAILABLE, "libsodium cannot be initialized");
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return ixj__fail(err, IXJ_ERR_IO, "cache key file %s: %s", path,
                     e == ELOOP ? "a symbolic link, not a regular file" : strerror(e));
  }
  ixj_status status = IXJ_OK;
  uid_t me = geteuid();
  if (!S_ISREG(st.st_mode))
    status = ixj__fail(err, IXJ_ERR_IO, "cache key file %s is not a regular file", path);
  else if (st.st_uid != me)
    status = ixj__fail(err, IXJ_ERR_IO, "cache key file %s is owned by uid %lu, not by the effective user (uid %lu)", path,
                       (unsigned long)st.st_uid, (unsigned long)me);
  else if (st.st_mode & 077)
    status = ixj__fail(err, IXJ_ERR_IO, "cache key file %s can be read or written by group or others (mode %04o): chmod 600 it",
                       path, (unsigned)(st.st_mode & 07777));
  else if (st.st_size < CACHE_AUTH_MIN_KEY_BYTES || st.st_size > CACHE_AUTH_MAX_KEY_BYTES)
    status = ixj__fail(err, IXJ_ERR_LIMIT, "cache key file %s holds %lld bytes, not %d to %d", path, (long long)st.st_size,
                       CACHE_AUTH_MIN_KEY_BYTES, CACHE_AUTH_MAX_KEY_BYTES);
  cache_auth *a = status == IXJ_OK ? calloc(1, sizeof *a) : NULL;
  if (status == IXJ_OK && !a) status = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (status == IXJ_OK) {
    ssize_t n = read_all(fd, a->key, sizeof a->key);
    if (n < 0) status = ixj__fail(err, IXJ_ERR_IO, "cache key file %s: %s", path, strerror(errno));
    else if (n < CACHE_AUTH_MIN_KEY_BYTES) /* it shrank since the fstat */
      status = ixj__fail(err, IXJ_ERR_LIMIT, "cache key file %s holds %zd bytes, not %d to %d", path, n,
                         CACHE_AUTH_MIN_KEY_BYTES, CACHE_AUTH_MAX_KEY_BYTES);
    else
      a->size = (size_t)n;
  }
  close(fd);
  if (status != IXJ_OK) {
    ixj__cache_auth_close(a);
    return status;
  }
  *out = a;
  return IXJ_OK;
}

void ixj__cache_auth_close(cache_auth *a) {
  if (!a) return;
  sodium_memzero(a, sizeof *a);
  free(a);
}

void ixj__cache_auth_mac(const cache_auth *a, const cache_auth_part *parts, int n, uint8_t mac[CACHE_AUTH_MAC_BYTES]) {
  crypto_auth_hmacsha256_state s;
  crypto_auth_hmacsha256_init(&s, a->key, a->size);
  for (int k = 0; k < n; k++) crypto_auth_hmacsha256_update(&s, parts[k].data, parts[k].size);
  crypto_auth_hmacsha256_final(&s, mac);
  sodium_memzero(&s, sizeof s);
}

bool ixj__cache_auth_verify(const cache_auth *a, const cache_auth_part *parts, int n,
                            const uint8_t mac[CACHE_AUTH_MAC_BYTES]) {
  uint8_t want[CACHE_AUTH_MAC_BYTES];
  ixj__cache_auth_mac(a, parts, n, want);
  return crypto_verify_32(want, mac) == 0;
}

#else /* no libsodium: no authentication, and every call says so */

bool ixj__cache_auth_available(void) { return false; }

ixj_status ixj__cache_auth_open(const char *path, cache_auth **out, ixj_error *err) {
  (void)path;
  *out = NULL;
  return ixj__fail(err, IXJ_ERR_UNAVAILABLE,
                   "authenticated cache entries are unavailable: this ixjit was built without libsodium "
                   "(Debian libsodium-dev)");
}

void ixj__cache_auth_close(cache_auth *a) { free(a); }

void ixj__cache_auth_mac(const cache_auth *a, const cache_auth_part *parts, int n, uint8_t mac[CACHE_AUTH_MAC_BYTES]) {
  (void)a, (void)parts, (void)n;
  memset(mac, 0, CACHE_AUTH_MAC_BYTES);
}

bool ixj__cache_auth_verify(const cache_auth *a, const cache_auth_part *parts, int n,
                            const uint8_t mac[CACHE_AUTH_MAC_BYTES]) {
  (void)a, (void)parts, (void)n, (void)mac;
  return false; /* nothing is authentic without a way to check it */
}

#endif
