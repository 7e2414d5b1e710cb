/* The remote tier (remote_cache.h) on hiredis's synchronous API.
 *
 * Connections: lookups take one from a small pool of idle connections (or
 * make one), and give it back only after a clean reply; any error or timeout
 * frees it (a late reply on it would answer the next command). The writer
 * thread has its own. Every connection has the connect timeout for connect()
 * and the read timeout as SO_RCVTIMEO/SO_SNDTIMEO, so no call waits on the
 * network longer than those.
 *
 * The breaker: BREAKER_FAILURES failures in a row open it for BREAKER_MS;
 * while open, lookups are misses and pushes are dropped without a network
 * call; the first call after that tries again (one failure reopens it).
 *
 * Keys: PREFIX + the entry's file name without ".ixk" (the XXH3-128 of the
 * disk key); values: the entry exactly as on disk, with its HMAC. Counters:
 * PREFIX "stats:hits" and "stats:misses", added to by the writer thread. */
#include "remote_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "error.h"
#include "ixjit/cache.h"
#include "ixjit/number.h"

#define DEFAULT_PREFIX "ixjit:"
#define DEFAULT_TIMEOUT_MS 10
#define DEFAULT_CONNECT_TIMEOUT_MS 5
#define DEFAULT_MAX_ENTRY ((uint64_t)4 << 20)
#define BREAKER_FAILURES 3
#define BREAKER_MS 10000
#define POOL_SIZE 8
#define QUEUE_MAX_BYTES ((size_t)64 << 20)

typedef struct remote_target {
  char host[256]; /* TCP host, or "" for a unix socket */
  char path[256]; /* unix socket path */
  int port;
  int db;
} remote_target;

/* "redis://HOST[:PORT][/DB]" or "unix:///PATH". */
static ixj_status parse_url(const char *url, remote_target *t, ixj_error *err) {
  memset(t, 0, sizeof *t);
  t->port = 6379;
  uint64_t v;
  if (!strncmp(url, "unix://", 7)) {
    const char *p = url + 7;
    if (*p != '/' || strlen(p) >= sizeof t->path)
      return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "remote cache '%.100s': unix:// needs an absolute path", url);
    snprintf(t->path, sizeof t->path, "%s", p);
    return IXJ_OK;
  }
  if (strncmp(url, "redis://", 8))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                     "remote cache '%.100s' is not redis://HOST:PORT[/DB] or unix:///PATH", url);
  const char *h = url + 8, *slash = strchr(h, '/'), *end = slash ? slash : h + strlen(h);
  const char *colon = memchr(h, ':', (size_t)(end - h));
  const char *host_end = colon ? colon : end;
  if (host_end == h || (size_t)(host_end - h) >= sizeof t->host)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "remote cache '%.100s': no host", url);
  memcpy(t->host, h, (size_t)(host_end - h));
  if (colon) {
    char port[16];
    size_t n = (size_t)(end - colon - 1);
    if (n == 0 || n >= sizeof port) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "remote cache '%.100s': bad port", url);
    memcpy(port, colon + 1, n);
    port[n] = '\0';
    if (ixj_parse_count(port, 1, 65535, &v, err) != IXJ_OK) return IXJ_ERR_INVALID_ARGUMENT;
    t->port = (int)v;
  }
  if (slash && slash[1]) {
    if (ixj_parse_count(slash + 1, 0, 1 << 20, &v, err) != IXJ_OK) return IXJ_ERR_INVALID_ARGUMENT;
    t->db = (int)v;
  }
  return IXJ_OK;
}

#ifdef IXJIT_HAVE_HIREDIS
#include <hiredis/hiredis.h>

/* A job for the writer thread: a value to SET, or (disk_key set) a remote
 * hit's payload to write to the disk cache, off the caller's path (the
 * fsync costs milliseconds). */
typedef struct push_item {
  struct push_item *next;
  char name[128];
  void *bytes;
  size_t size;
  char *disk_key;
} push_item;

struct remote_cache {
  char *url, *prefix;
  remote_target target;
  uint64_t ttl_s, max_entry;
  int timeout_ms, connect_timeout_ms;
  bool publish;
  const cache_auth *auth;
  disk_cache *disk;
  ixj_log_fn log;
  void *log_user;

  pthread_mutex_t lock; /* the pool, the breaker, the queue */
  redisContext *pool[POOL_SIZE];
  int idle;
  int failures;        /* in a row */
  double open_until;   /* ms on ixj__now_ms's clock: the breaker is open before it */
  pthread_cond_t wake;
  pthread_cond_t written; /* a disk write of `inflight` finished */
  push_item *inflight;    /* disk writes in progress (warming waits for its own), linked by next */
  push_item *head, *tail;
  size_t queued_bytes;
  bool stopping;
  pthread_t writer;
  bool writer_started;
  atomic_uint_fast64_t hits, misses, unflushed_hits, unflushed_misses;
};

static void warn(remote_cache *rc, const char *fmt, ...) IXJ_PRINTF(2, 3);
static void warn(remote_cache *rc, const char *fmt, ...) {
  if (!rc->log) return;
  char msg[512];
  int n = snprintf(msg, sizeof msg, "remote cache %s: ", rc->url);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
  va_end(ap);
  rc->log(rc->log_user, IXJ_LOG_WARNING, msg);
}

static struct timeval ms_tv(int ms) { return (struct timeval){ms / 1000, (ms % 1000) * 1000}; }

/* ---- the breaker ---- */

static bool breaker_allows(remote_cache *rc) {
  pthread_mutex_lock(&rc->lock);
  bool ok = ixj__now_ms() >= rc->open_until;
  pthread_mutex_unlock(&rc->lock);
  return ok;
}

static void breaker_result(remote_cache *rc, bool ok) {
  pthread_mutex_lock(&rc->lock);
  bool opened = false;
  if (ok) {
    rc->failures = 0;
  } else if (++rc->failures >= BREAKER_FAILURES) {
    rc->open_until = ixj__now_ms() + BREAKER_MS;
    rc->failures = BREAKER_FAILURES - 1; /* after the pause, one more failure reopens it */
    opened = true;
  }
  pthread_mutex_unlock(&rc->lock);
  if (opened) warn(rc, "%d failures in a row: not asked again for %d s", BREAKER_FAILURES, BREAKER_MS / 1000);
}

/* ---- connections ---- */

static redisContext *connect_store(remote_cache *rc, int connect_ms, int io_ms, char *why, size_t size) {
  const remote_target *t = &rc->target;
  redisContext *c = t->path[0] ? redisConnectUnixWithTimeout(t->path, ms_tv(connect_ms))
                               : redisConnectWithTimeout(t->host, t->port, ms_tv(connect_ms));
  if (!c || c->err) {
    snprintf(why, size, "cannot connect: %s", c ? c->errstr : "out of memory");
    if (c) redisFree(c);
    return NULL;
  }
  if (redisSetTimeout(c, ms_tv(io_ms)) != REDIS_OK) {
    snprintf(why, size, "cannot set the timeout");
    redisFree(c);
    return NULL;
  }
  if (t->db) {
    redisReply *r = redisCommand(c, "SELECT %d", t->db);
    bool ok = r && r->type == REDIS_REPLY_STATUS;
    if (!ok) snprintf(why, size, "SELECT %d: %s", t->db, r ? (r->type == REDIS_REPLY_ERROR ? r->str : "bad reply") : c->errstr);
    if (r) freeReplyObject(r);
    if (!ok) {
      redisFree(c);
      return NULL;
    }
  }
  return c;
}

static redisContext *take(remote_cache *rc, char *why, size_t size) {
  redisContext *c = NULL;
  pthread_mutex_lock(&rc->lock);
  if (rc->idle > 0) c = rc->pool[--rc->idle];
  pthread_mutex_unlock(&rc->lock);
  return c ? c : connect_store(rc, rc->connect_timeout_ms, rc->timeout_ms, why, size);
}

static void give_back(remote_cache *rc, redisContext *c) {
  pthread_mutex_lock(&rc->lock);
  if (rc->idle < POOL_SIZE) rc->pool[rc->idle++] = c, c = NULL;
  pthread_mutex_unlock(&rc->lock);
  if (c) redisFree(c);
}

static void remote_name(const remote_cache *rc, const char *key, char *out, size_t size) {
  char file[48];
  ixj__disk_cache_file_name(key, file); /* "xx/<32 hex>.ixk" */
  const char *slash = strchr(file, '/');
  snprintf(out, size, "%s%.32s", rc->prefix, slash ? slash + 1 : file);
}

/* ---- the writer thread's queue ---- */

static void enqueue(remote_cache *rc, push_item *it) {
  pthread_mutex_lock(&rc->lock);
  bool room = !rc->stopping && rc->queued_bytes + it->size <= QUEUE_MAX_BYTES;
  if (room) {
    if (rc->tail) rc->tail->next = it;
    else rc->head = it;
    rc->tail = it;
    rc->queued_bytes += it->size;
    pthread_cond_signal(&rc->wake);
  }
  pthread_mutex_unlock(&rc->lock);
  if (!room) { /* a store (or disk) slower than the callers: this one is dropped */
    free(it->bytes);
    free(it->disk_key);
    free(it);
  }
}

/* A remote hit reaches the disk cache from the writer thread (a disk that
 * cannot be written costs the next process a fetch, never this call). */
static void enqueue_disk_write(remote_cache *rc, const char *key, const void *payload, size_t size) {
  push_item *it = calloc(1, sizeof *it);
  if (!it) return;
  it->disk_key = strdup(key);
  it->bytes = malloc(size ? size : 1);
  if (!it->disk_key || !it->bytes) {
    free(it->disk_key);
    free(it->bytes);
    free(it);
    return;
  }
  memcpy(it->bytes, payload, size);
  it->size = size;
  enqueue(rc, it);
}

static bool inflight_has(const remote_cache *rc, const char *key) {
  for (const push_item *p = rc->inflight; p; p = p->next)
    if (!strcmp(p->disk_key, key)) return true;
  return false;
}

/* Writes an in-flight item (on rc->inflight) to the disk, then takes it off
 * the list and wakes whoever waits for it. */
static void disk_write(remote_cache *rc, push_item *it) {
  ixj_error werr;
  ixj__disk_cache_store(rc->disk, it->disk_key, it->bytes, it->size, &werr);
  pthread_mutex_lock(&rc->lock);
  for (push_item **at = &rc->inflight; *at; at = &(*at)->next)
    if (*at == it) {
      *at = it->next;
      break;
    }
  pthread_cond_broadcast(&rc->written);
  pthread_mutex_unlock(&rc->lock);
}

/* ---- lookups ---- */

bool ixj__remote_cache_fetch(remote_cache *rc, const char *key, void **payload, size_t *size) {
  char name[128], why[200];
  *payload = NULL;
  bool hit = false;
  if (!breaker_allows(rc)) goto miss;
  remote_name(rc, key, name, sizeof name);
  redisContext *c = take(rc, why, sizeof why);
  if (!c) {
    warn(rc, "%s: treated as a miss", why);
    breaker_result(rc, false);
    goto miss;
  }
  redisReply *r = redisCommand(c, "GET %s", name);
  if (!r || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_NIL)) {
    warn(rc, "GET: %s: treated as a miss",
         !r ? (c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK) ? "timed out" : c->errstr)
            : r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
    if (r) freeReplyObject(r);
    redisFree(c);
    breaker_result(rc, false);
    goto miss;
  }
  give_back(rc, c);
  breaker_result(rc, true);
  if (r->type == REDIS_REPLY_STRING) {
    const char *problem = (uint64_t)r->len > rc->max_entry + 4096 + strlen(key)
                              ? "larger than the entry limit"
                              : ixj__disk_entry_decode(rc->auth, r->str, (size_t)r->len, key, NULL, payload, size);
    if (problem) warn(rc, "entry %s refused (%s): treated as a miss", name, problem);
    hit = !problem;
  }
  freeReplyObject(r);
  if (hit) {
    enqueue_disk_write(rc, key, *payload, *size);
    atomic_fetch_add(&rc->hits, 1);
    atomic_fetch_add(&rc->unflushed_hits, 1);
    ixj__disk_cache_count(rc->disk, DISK_STAT_REMOTE_HITS, 1);
    return true;
  }
miss:
  atomic_fetch_add(&rc->misses, 1);
  atomic_fetch_add(&rc->unflushed_misses, 1);
  ixj__disk_cache_count(rc->disk, DISK_STAT_REMOTE_MISSES, 1);
  return false;
}

void ixj__remote_cache_warmed(remote_cache *rc, const char *key) {
  void *payload;
  size_t size;
  push_item *mine = NULL, **at;
  pthread_mutex_lock(&rc->lock);
  for (at = &rc->head; *at; at = &(*at)->next) /* this key's disk write, when still queued */
    if ((*at)->disk_key && !strcmp((*at)->disk_key, key)) {
      mine = *at;
      *at = mine->next;
      rc->queued_bytes -= mine->size;
      break;
    }
  if (mine && rc->tail == mine) { /* the new tail: the last item left, if any */
    rc->tail = NULL;
    for (push_item *p = rc->head; p; p = p->next) rc->tail = p;
  }
  if (mine) mine->next = rc->inflight, rc->inflight = mine;
  else
    while (inflight_has(rc, key)) pthread_cond_wait(&rc->written, &rc->lock);
  pthread_mutex_unlock(&rc->lock);
  if (mine) {
    disk_write(rc, mine);
    free(mine->bytes);
    free(mine->disk_key);
    free(mine);
  }
  if (!rc->publish || !ixj__disk_cache_load(rc->disk, key, &payload, &size)) return;
  ixj__remote_cache_push(rc, key, payload, size);
  free(payload);
}

/* ---- pushes: the writer thread ---- */

void ixj__remote_cache_push(remote_cache *rc, const char *key, const void *payload, size_t size) {
  if (size > rc->max_entry) {
    if (rc->log) {
      char msg[200];
      snprintf(msg, sizeof msg, "remote cache: an entry of %zu bytes is above the limit of %llu: not pushed", size,
               (unsigned long long)rc->max_entry);
      rc->log(rc->log_user, IXJ_LOG_DEBUG, msg);
    }
    return;
  }
  push_item *it = calloc(1, sizeof *it);
  if (!it) return;
  if (ixj__disk_entry_encode(rc->auth, key, payload, size, &it->bytes, &it->size, NULL) != IXJ_OK) {
    free(it);
    return;
  }
  remote_name(rc, key, it->name, sizeof it->name);
  enqueue(rc, it);
}

/* One command on the writer's connection; false (and the connection gone) on failure. */
static bool writer_command(remote_cache *rc, redisContext **c, redisReply *r, const char *what) {
  bool ok = r && r->type != REDIS_REPLY_ERROR;
  if (!ok) {
    warn(rc, "%s: %s", what, !r ? ((*c)->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK) ? "timed out" : (*c)->errstr) : r->str);
    redisFree(*c);
    *c = NULL;
  }
  if (r) freeReplyObject(r);
  breaker_result(rc, ok);
  return ok;
}

static void writer_flush_counts(remote_cache *rc, redisContext **c) {
  uint64_t h = atomic_exchange(&rc->unflushed_hits, 0), m = atomic_exchange(&rc->unflushed_misses, 0);
  char name[160];
  if (h && *c) {
    snprintf(name, sizeof name, "%sstats:hits", rc->prefix);
    writer_command(rc, c, redisCommand(*c, "INCRBY %s %llu", name, (unsigned long long)h), "INCRBY");
  }
  if (m && *c) {
    snprintf(name, sizeof name, "%sstats:misses", rc->prefix);
    writer_command(rc, c, redisCommand(*c, "INCRBY %s %llu", name, (unsigned long long)m), "INCRBY");
  }
}

static void *writer_main(void *arg) {
  remote_cache *rc = arg;
  redisContext *c = NULL;
  for (;;) {
    pthread_mutex_lock(&rc->lock);
    while (!rc->head && !rc->stopping) pthread_cond_wait(&rc->wake, &rc->lock);
    push_item *it = rc->head;
    if (it) {
      rc->head = it->next;
      if (!rc->head) rc->tail = NULL;
      rc->queued_bytes -= it->size;
      if (it->disk_key) it->next = rc->inflight, rc->inflight = it;
    }
    pthread_mutex_unlock(&rc->lock);
    if (!it) break; /* stopping, and nothing left */
    char why[200];
    if (it->disk_key) {
      disk_write(rc, it);
    } else if (breaker_allows(rc) && (c || (c = connect_store(rc, rc->connect_timeout_ms, rc->timeout_ms, why, sizeof why)))) {
      redisReply *r = rc->ttl_s ? redisCommand(c, "SET %s %b EX %llu", it->name, it->bytes, it->size,
                                               (unsigned long long)rc->ttl_s)
                                : redisCommand(c, "SET %s %b", it->name, it->bytes, it->size);
      if (writer_command(rc, &c, r, "SET")) writer_flush_counts(rc, &c);
    } else if (breaker_allows(rc)) {
      warn(rc, "%s: an entry is not pushed", why);
      breaker_result(rc, false);
    }
    free(it->bytes);
    free(it->disk_key);
    free(it);
  }
  if (breaker_allows(rc) && (atomic_load(&rc->unflushed_hits) || atomic_load(&rc->unflushed_misses))) {
    char why[200];
    if (!c) c = connect_store(rc, rc->connect_timeout_ms, rc->timeout_ms, why, sizeof why);
    if (c) writer_flush_counts(rc, &c);
  }
  if (c) redisFree(c);
  return NULL;
}

/* ---- the tier ---- */

const char *ixj__remote_cache_url(const remote_cache *rc) { return rc->url; }
uint64_t ixj__remote_cache_hits(const remote_cache *rc) { return atomic_load(&rc->hits); }
bool ixj__remote_cache_publishes(const remote_cache *rc) { return rc->publish; }

void ixj__remote_cache_close(remote_cache *rc) {
  if (!rc) return;
  if (rc->writer_started) {
    pthread_mutex_lock(&rc->lock);
    rc->stopping = true;
    pthread_cond_signal(&rc->wake);
    pthread_mutex_unlock(&rc->lock);
    pthread_join(rc->writer, NULL);
  }
  for (int k = 0; k < rc->idle; k++) redisFree(rc->pool[k]);
  pthread_cond_destroy(&rc->wake);
  pthread_cond_destroy(&rc->written);
  pthread_mutex_destroy(&rc->lock);
  free(rc->url);
  free(rc->prefix);
  free(rc);
}

/* ---- the store's statistics (public: ixjit cache stats --remote) ---- */

static bool is_entry_name(const char *s, size_t n, size_t prefix) {
  if (n != prefix + 32) return false;
  for (size_t k = prefix; k < n; k++)
    if (!strchr("0123456789abcdef", s[k]) || !s[k]) return false;
  return true;
}

static uint64_t reply_number(redisReply *r) {
  if (!r) return 0;
  uint64_t v = r->type == REDIS_REPLY_INTEGER ? (uint64_t)r->integer
               : r->type == REDIS_REPLY_STRING ? strtoull(r->str, NULL, 10)
                                               : 0;
  freeReplyObject(r);
  return v;
}

ixj_status ixj_remote_cache_stats(const char *url, const char *prefix, ixj_remote_stats *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, url && out);
  memset(out, 0, sizeof *out);
  remote_cache rc;
  memset(&rc, 0, sizeof rc);
  rc.url = (char *)url;
  ixj_status st = parse_url(url, &rc.target, err);
  if (st != IXJ_OK) return st;
  if (!prefix) prefix = DEFAULT_PREFIX;
  char why[200], pattern[200], name[160];
  pthread_mutex_init(&rc.lock, NULL);
  redisContext *c = connect_store(&rc, 1000, 5000, why, sizeof why); /* maintenance: a patient timeout */
  pthread_mutex_destroy(&rc.lock);
  if (!c) return ixj__fail(err, IXJ_ERR_IO, "remote cache %s: %s", url, why);
  size_t n = 0;
  for (const char *p = prefix; *p && n + 3 < sizeof pattern; p++) { /* the prefix, its glob characters escaped */
    if (strchr("*?[]\\", *p)) pattern[n++] = '\\';
    pattern[n++] = *p;
  }
  snprintf(pattern + n, sizeof pattern - n, "*");
  char cursor[32] = "0";
  do {
    redisReply *r = redisCommand(c, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING) {
      st = ixj__fail(err, IXJ_ERR_IO, "remote cache %s: SCAN: %s", url, r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
      if (r) freeReplyObject(r);
      break;
    }
    snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
    redisReply *keys = r->element[1];
    int asked = 0;
    for (size_t k = 0; k < keys->elements; k++) /* pipelined: one round trip per batch */
      if (is_entry_name(keys->element[k]->str, keys->element[k]->len, strlen(prefix))) {
        redisAppendCommand(c, "STRLEN %b", keys->element[k]->str, keys->element[k]->len);
        asked++;
      }
    for (int k = 0; k < asked; k++) {
      void *reply = NULL;
      if (redisGetReply(c, &reply) != REDIS_OK) break;
      out->entries++;
      out->bytes += reply_number(reply);
    }
    freeReplyObject(r);
  } while (strcmp(cursor, "0"));
  if (st == IXJ_OK) {
    snprintf(name, sizeof name, "%sstats:hits", prefix);
    out->hits = reply_number(redisCommand(c, "GET %s", name));
    snprintf(name, sizeof name, "%sstats:misses", prefix);
    out->misses = reply_number(redisCommand(c, "GET %s", name));
  }
  redisFree(c);
  return st;
}

#endif /* IXJIT_HAVE_HIREDIS */

/* ---- configuration (both builds) ---- */

/* An option, else the environment variable parsed as a size or count, else
 * the default; a bad value is an error (the tier stays off, said once). */
static ixj_status knob(uint64_t option, const char *env, bool size, uint64_t min, uint64_t max, uint64_t def,
                       uint64_t *out, ixj_error *err) {
  const char *v = getenv(env);
  ixj_error e;
  *out = def;
  if (option && (option < min || option > max))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "the option of %s: %llu is outside %llu..%llu", env,
                     (unsigned long long)option, (unsigned long long)min, (unsigned long long)max);
  if (option) *out = option;
  else if (v && *v && (size ? ixj_parse_size(v, min, max, out, &e) : ixj_parse_count(v, min, max, out, &e)) != IXJ_OK)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s: %s", env, e.message);
  return IXJ_OK;
}

ixj_status ixj__remote_cache_open(const ixj_context_options *opts, const cache_auth *auth, disk_cache *disk,
                                  remote_cache **out, ixj_error *err) {
  *out = NULL;
  const char *url = opts->remote_cache ? opts->remote_cache : getenv("IXJIT_REMOTE_CACHE");
  if (!url || !*url || !strcmp(url, "off")) return IXJ_OK;
  remote_target t;
  ixj_status st = parse_url(url, &t, err);
  if (st != IXJ_OK) return st;
  if (!disk) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "remote cache %s needs the disk cache, which is off", url);
  if (!auth)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT,
                     "remote cache %s refuses to start without authenticated entries: set IXJIT_CACHE_KEY_FILE "
                     "(a secret of at least 32 bytes, mode 0600, the same on every machine)",
                     url);
  uint64_t ttl, max_entry, timeout, connect_timeout;
  if ((st = knob(opts->remote_ttl_s, "IXJIT_REMOTE_TTL", false, 1, UINT32_MAX, 0, &ttl, err)) != IXJ_OK ||
      (st = knob(opts->remote_max_entry_bytes, "IXJIT_REMOTE_MAX_ENTRY", true, 1, (uint64_t)1 << 31, DEFAULT_MAX_ENTRY,
                 &max_entry, err)) != IXJ_OK ||
      (st = knob((uint64_t)(opts->remote_timeout_ms > 0 ? opts->remote_timeout_ms : 0), "IXJIT_REMOTE_TIMEOUT_MS", false,
                 1, 60000, DEFAULT_TIMEOUT_MS, &timeout, err)) != IXJ_OK ||
      (st = knob((uint64_t)(opts->remote_connect_timeout_ms > 0 ? opts->remote_connect_timeout_ms : 0),
                 "IXJIT_REMOTE_CONNECT_TIMEOUT_MS", false, 1, 60000, DEFAULT_CONNECT_TIMEOUT_MS, &connect_timeout,
                 err)) != IXJ_OK)
    return st;
  const char *prefix = opts->remote_prefix ? opts->remote_prefix : getenv("IXJIT_REMOTE_PREFIX");
  if (!prefix) prefix = DEFAULT_PREFIX;
  if (strlen(prefix) > 64) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "remote cache key prefix longer than 64 bytes");
#ifdef IXJIT_HAVE_HIREDIS
  remote_cache *rc = calloc(1, sizeof *rc);
  if (!rc || !(rc->url = strdup(url)) || !(rc->prefix = strdup(prefix))) {
    if (rc) free(rc->url);
    free(rc);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  rc->target = t;
  rc->ttl_s = ttl;
  rc->max_entry = max_entry;
  rc->timeout_ms = (int)timeout;
  rc->connect_timeout_ms = (int)connect_timeout;
  rc->publish = opts->remote_publish > 0;
  rc->auth = auth;
  rc->disk = disk;
  rc->log = opts->log;
  rc->log_user = opts->log_user;
  pthread_mutex_init(&rc->lock, NULL);
  pthread_cond_init(&rc->wake, NULL);
  pthread_cond_init(&rc->written, NULL);
  if (pthread_create(&rc->writer, NULL, writer_main, rc) != 0) {
    ixj__remote_cache_close(rc);
    return ixj__fail(err, IXJ_ERR_LIMIT, "remote cache %s: cannot start its writer thread", url);
  }
  rc->writer_started = true;
  *out = rc;
  return IXJ_OK;
#else
  return ixj__fail(err, IXJ_ERR_UNAVAILABLE,
                   "remote cache %s is unavailable: this ixjit was built without hiredis (Debian libhiredis-dev)", url);
#endif
}

#ifndef IXJIT_HAVE_HIREDIS
/* Without hiredis no remote_cache is ever made: these are never reached with one. */
void ixj__remote_cache_close(remote_cache *rc) { (void)rc; }
const char *ixj__remote_cache_url(const remote_cache *rc) {
  (void)rc;
  return NULL;
}
bool ixj__remote_cache_fetch(remote_cache *rc, const char *key, void **payload, size_t *size) {
  (void)rc, (void)key, (void)size;
  *payload = NULL;
  return false;
}
void ixj__remote_cache_push(remote_cache *rc, const char *key, const void *payload, size_t size) {
  (void)rc, (void)key, (void)payload, (void)size;
}
void ixj__remote_cache_warmed(remote_cache *rc, const char *key) { (void)rc, (void)key; }
uint64_t ixj__remote_cache_hits(const remote_cache *rc) {
  (void)rc;
  return 0;
}
ixj_status ixj_remote_cache_stats(const char *url, const char *prefix, ixj_remote_stats *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, url && out);
  (void)prefix;
  memset(out, 0, sizeof *out);
  return ixj__fail(err, IXJ_ERR_UNAVAILABLE,
                   "remote cache %s is unavailable: this ixjit was built without hiredis (Debian libhiredis-dev)", url);
}
bool ixj__remote_cache_publishes(const remote_cache *rc) {
  (void)rc;
  return false;
}
#endif
