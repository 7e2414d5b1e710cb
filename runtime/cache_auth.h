/* Internal: authenticated cache entries. A secret the user controls (a key
 * file) and an HMAC-SHA-256 over everything an entry holds, so that an entry
 * is loaded only when someone holding the secret wrote it: what a shared
 * directory or a remote store (runtime/remote_cache.h) requires, since the
 * entry's XXH3 checksum is no authentication.
 *
 * libsodium computes the MACs. A build without it has no authentication:
 * ixj__cache_auth_open then fails with IXJ_ERR_UNAVAILABLE and says so. */
#ifndef IXJIT_RUNTIME_CACHE_AUTH_H
#define IXJIT_RUNTIME_CACHE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ixjit/status.h"

#define CACHE_AUTH_MAC_BYTES 32
#define CACHE_AUTH_MIN_KEY_BYTES 32
#define CACHE_AUTH_MAX_KEY_BYTES 4096

typedef struct cache_auth cache_auth;

/* One part of the authenticated message. */
typedef struct cache_auth_part {
  const void *data;
  size_t size;
} cache_auth_part;

/* Whether this build can authenticate entries (it has libsodium). */
bool ixj__cache_auth_available(void);
/* Reads the key file: a regular file (not a link, FIFO or device) owned by
 * the effective user, readable and writable by nobody else (mode 0600 or
 * 0400), of CACHE_AUTH_MIN_KEY_BYTES to CACHE_AUTH_MAX_KEY_BYTES bytes; its
 * whole content is the HMAC key. *out is the caller's (ixj__cache_auth_close).
 * IXJ_ERR_IO when the file cannot be read or is not trusted, IXJ_ERR_LIMIT
 * for a wrong size, IXJ_ERR_UNAVAILABLE without libsodium. */
ixj_status ixj__cache_auth_open(const char *path, cache_auth **out, ixj_error *err);
/* Wipes the key and frees it; NULL is fine. */
void ixj__cache_auth_close(cache_auth *a);
/* The MAC of the parts, in order, into mac. */
void ixj__cache_auth_mac(const cache_auth *a, const cache_auth_part *parts, int n, uint8_t mac[CACHE_AUTH_MAC_BYTES]);
/* Whether mac is the parts' MAC (compared in constant time). */
bool ixj__cache_auth_verify(const cache_auth *a, const cache_auth_part *parts, int n,
                            const uint8_t mac[CACHE_AUTH_MAC_BYTES]);

#endif
