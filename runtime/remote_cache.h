/* Internal: the remote tier of the kernel cache, behind the disk
 * (docs/remote-cache.md): memory -> disk -> remote -> compile. A Redis server
 * (hiredis) holds entries in the disk format (disk_cache.h), every one
 * authenticated (cache_auth.h): without a key the tier refuses to start.
 *
 * Never worse than no remote: every network call is bounded by a connect and
 * a read timeout of a few milliseconds; any failure is a miss and one
 * warning; after a few failures in a row a circuit breaker stops asking for a
 * while. Pushes of compiled entries go through a writer thread, never the
 * caller's. A build without hiredis has no remote tier: opening one then
 * fails with IXJ_ERR_UNAVAILABLE. */
#ifndef IXJIT_RUNTIME_REMOTE_CACHE_H
#define IXJIT_RUNTIME_REMOTE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache_auth.h"
#include "disk_cache.h"
#include "ixjit/context.h"

typedef struct remote_cache remote_cache;

/* The remote tier a context's options (else the environment: IXJIT_REMOTE_CACHE,
 * IXJIT_REMOTE_PREFIX, IXJIT_REMOTE_TTL, IXJIT_REMOTE_MAX_ENTRY,
 * IXJIT_REMOTE_TIMEOUT_MS, IXJIT_REMOTE_CONNECT_TIMEOUT_MS) ask for, over the
 * disk cache `disk` (remote hits are written there) with the key `auth`
 * (both borrowed, both must outlive it). IXJ_OK with *out NULL when none is
 * asked for. An error (a malformed URL or value, no key, no disk cache, no
 * hiredis) means no remote tier; the caller logs it. Nothing here touches
 * the network: connections are made on the first miss. */
ixj_status ixj__remote_cache_open(const ixj_context_options *opts, const cache_auth *auth, disk_cache *disk,
                                  remote_cache **out, ixj_error *err);
/* Pushes what is queued (each push bounded by the timeout; the breaker stops
 * a dead store), joins the writer thread, frees everything. NULL is fine. */
void ixj__remote_cache_close(remote_cache *rc);
/* The URL in use. */
const char *ixj__remote_cache_url(const remote_cache *rc);
/* The entry of `key` from the store, authenticated, and written to the disk
 * cache: *payload malloc'ed. False (a miss) on anything else: absent, the
 * breaker open, a timeout or error (one warning), an entry that fails its
 * checks (one warning). */
bool ixj__remote_cache_fetch(remote_cache *rc, const char *key, void **payload, size_t *size);
/* Queues the entry of `key` for the writer thread (copied; an entry above
 * the size limit is not pushed). Never blocks on the network. */
void ixj__remote_cache_push(remote_cache *rc, const char *key, const void *payload, size_t size);
/* Warming found the kernel of `key`: a remote hit's disk write, which the
 * writer thread does later for runs, is done now (warming's product is the
 * disk entry); and with remote_publish the disk's entry is queued for the
 * store too (a kernel already on disk reaches it). */
void ixj__remote_cache_warmed(remote_cache *rc, const char *key);
/* Kernels this context found in the store. */
uint64_t ixj__remote_cache_hits(const remote_cache *rc);
/* Whether warming should also push kernels already on disk (`ixjit warm --remote`). */
bool ixj__remote_cache_publishes(const remote_cache *rc);

#endif
