/* Internal: safe reclamation of JIT'd code that threads may be running, for
 * the memory cache's eviction (cache.c). A reader brackets its use of a
 * kernel with ixj__reader_enter/leave; a reclaimer first makes the kernel
 * unreachable (its slot EVICTING), then ixj__reader_synchronize waits until
 * every section that began before it has ended, then frees the code.
 *
 * The reader's side is two plain stores to a per-thread record, no atomic
 * read-modify-write and no fence: on this project's VM one locked
 * instruction costs ~130 ns, more than half the whole per-call hit. The
 * ordering a reader needs (its "inside" store before its reads of the slot)
 * comes from the reclaimer instead: membarrier(2)'s private expedited command
 * runs a full barrier on every thread of the process (the userspace-RCU
 * scheme). Where membarrier is missing (Linux < 4.14, or refused), and under
 * ThreadSanitizer (which does not model it), readers use a seq_cst exchange
 * instead. Records are per thread and process-wide, made on a thread's first
 * section and reused after it exits; each owns a cache line (threads in
 * their sections write no shared line) and carries an index, dense from 0,
 * that no two live threads share: data indexed by it (cache.c's hit
 * counters) has one writer at a time and needs no atomic read-modify-write.
 * A record's next owner is ordered after the last one's exit (a release
 * store, then the claim's compare-and-swap). */
#ifndef IXJIT_RUNTIME_RECLAIM_H
#define IXJIT_RUNTIME_RECLAIM_H

/* Enters a section; returns this thread's index (see above), UINT_MAX when
 * the thread has no record (out of memory). */
unsigned ixj__reader_enter(void);
void ixj__reader_leave(void);
/* This thread's index without entering a section (claiming its record on
 * first use); UINT_MAX when out of memory. */
unsigned ixj__thread_index(void);
/* Returns once every reader's section begun before the call has ended. Never
 * call it inside a section. */
void ixj__reader_synchronize(void);

#endif
