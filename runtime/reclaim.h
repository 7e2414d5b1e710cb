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
 * section and reused after it exits. */
#ifndef IXJIT_RUNTIME_RECLAIM_H
#define IXJIT_RUNTIME_RECLAIM_H

void ixj__reader_enter(void);
void ixj__reader_leave(void);
/* Returns once every reader's section begun before the call has ended. Never
 * call it inside a section. */
void ixj__reader_synchronize(void);

#endif
