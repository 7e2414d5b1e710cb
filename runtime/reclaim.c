/* Reclamation (reclaim.h): a process-wide list of per-thread records, each a
 * sequence number odd while its thread is inside a section. The list only
 * grows (push by compare-and-swap); a record whose thread exited is
 * reclaimed by the next new thread. */
#include "reclaim.h"

#include <limits.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define IXJ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IXJ_TSAN 1
#endif
#endif

/* A cache line of its own (aligned_alloc): two threads' section stores
 * never hit one line. */
typedef struct record {
  _Alignas(64) atomic_uint_fast64_t seq; /* odd: inside a section; written by its thread only */
  atomic_bool in_use;                    /* a live thread owns it */
  unsigned index;                        /* its place from the list's end: 0, 1, ...; fixed */
  struct record *next;                   /* fixed before the record is published */
} record;
_Static_assert(sizeof(record) == 64, "a record is one cache line");

static _Atomic(record *) records;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static bool membarrier_ok; /* written once, before any record exists */

#if defined(__GNUC__)
#define TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define TLS_FAST
#endif
static _Thread_local record *mine TLS_FAST;

static int membarrier(int cmd) { return (int)syscall(SYS_membarrier, cmd, 0, 0); }

static void thread_exit(void *arg) {
  record *r = arg;
  mine = NULL; /* a later call from another key's destructor claims again */
  atomic_store_explicit(&r->seq, 0, memory_order_release);
  atomic_store_explicit(&r->in_use, false, memory_order_release); /* the next owner sees all of ours */
}

static void init(void) {
  pthread_key_create(&exit_key, thread_exit);
#ifndef IXJ_TSAN
  int cmds = membarrier(MEMBARRIER_CMD_QUERY);
  membarrier_ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                  membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
#endif
}

/* This thread's record: a free one, or a new one pushed on the list. NULL
 * when out of memory: then the thread's sections use the global fallback. */
static record *claim(void) {
  pthread_once(&once, init);
  for (record *r = atomic_load_explicit(&records, memory_order_acquire); r; r = r->next) {
    bool expected = false;
    if (atomic_compare_exchange_strong(&r->in_use, &expected, true)) {
      mine = r;
      break;
    }
  }
  if (!mine) {
    record *r = aligned_alloc(64, sizeof *r);
    if (!r) return NULL;
    atomic_init(&r->seq, 0);
    atomic_init(&r->in_use, true);
    r->next = atomic_load_explicit(&records, memory_order_acquire);
    /* seq_cst: a reclaimer that does not see the new record must be ordered
     * before this thread's first section (which then sees the slot's state);
     * acquire on failure: the new head's index is read */
    do r->index = r->next ? r->next->index + 1 : 0;
    while (!atomic_compare_exchange_weak_explicit(&records, &r->next, r, memory_order_seq_cst, memory_order_acquire));
    mine = r;
  }
  pthread_setspecific(exit_key, mine);
  return mine;
}

/* Out of memory for a record: one shared count, read-modify-written. */
static atomic_uint_fast64_t fallback_readers;

unsigned ixj__reader_enter(void) {
  record *r = mine ? mine : claim();
  if (!r) {
    atomic_fetch_add_explicit(&fallback_readers, 1, memory_order_seq_cst);
    return UINT_MAX;
  }
  uint_fast64_t s = atomic_load_explicit(&r->seq, memory_order_relaxed) + 1;
  if (membarrier_ok) {
    atomic_store_explicit(&r->seq, s, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst); /* the compiler keeps the order; membarrier gives the rest */
  } else {
    atomic_exchange_explicit(&r->seq, s, memory_order_seq_cst);
  }
  return r->index;
}

unsigned ixj__thread_index(void) {
  record *r = mine ? mine : claim();
  return r ? r->index : UINT_MAX;
}

void ixj__reader_leave(void) {
  record *r = mine;
  if (!r) {
    atomic_fetch_sub_explicit(&fallback_readers, 1, memory_order_release);
    return;
  }
  atomic_store_explicit(&r->seq, atomic_load_explicit(&r->seq, memory_order_relaxed) + 1, memory_order_release);
}

void ixj__reader_synchronize(void) {
  pthread_once(&once, init);
  if (membarrier_ok) membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED); /* every thread: a full barrier */
  else atomic_thread_fence(memory_order_seq_cst);
  for (record *r = atomic_load_explicit(&records, memory_order_seq_cst); r; r = r->next) {
    uint_fast64_t s = atomic_load_explicit(&r->seq, memory_order_seq_cst);
    if (s & 1) /* inside: wait for that section's end (a later one began after us and sees the slot EVICTING) */
      while (atomic_load_explicit(&r->seq, memory_order_acquire) == s) sched_yield();
  }
  while (atomic_load_explicit(&fallback_readers, memory_order_acquire)) sched_yield();
}
