/* Internal: the per-call fast path's table, for the commonest calls: a CPU
 * copy, fill or cat (of up to CALL_MAX_SRCS inputs) whose operands are each
 * one LMAD. Its key is made from the call itself, without planning: the
 * operation, the element size, a cat's axis and input count and, per
 * operand, the LMAD without its offset (rank, shape, strides, rotations,
 * permutation) and where the operand's first element falls within 64 bytes
 * (the planner's alignment decisions look no further: unit_plan_key checks
 * it). Everything the planner decides is a function of that key and of the
 * context (target, last-level cache), except the runtime offsets, which for
 * one LMAD are the LMAD's own offset. So an entry keeps what the launch needs
 * (the kernel, strategy, work units) and what the checks need (each
 * operand's reachable offsets relative to its LMAD's offset), and a call that
 * finds its key neither plans nor formats nor allocates. Entries are added
 * after a call has passed every check the long way; like the kernel cache's,
 * they are read without a lock and live as long as the context. */
#ifndef IXJIT_RUNTIME_CALL_CACHE_H
#define IXJIT_RUNTIME_CALL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "plan.h"
#include "validate.h"

/* The most inputs of a cat the table takes (more take the long way, whose
 * planning is then small beside the copy of so many inputs), and so the most
 * operands of an entry. */
#define CALL_MAX_SRCS 8
#define CALL_MAX_OPERANDS (1 + CALL_MAX_SRCS)
/* Room for a key, in 64-bit words: a copy of two operands of up to
 * IXJ_MAX_RANK dims fits (134 words), as does a cat of CALL_MAX_SRCS inputs
 * of up to 6 dims; a call whose key would not fit takes the long way. */
#define CALL_KEY_WORDS 256

/* What a CPU launch needs from a plan (backend_cpu.c). */
typedef struct cpu_launch_desc {
  plan_strategy strategy;
  ixj_op_kind op;
  int num_operands;
  int vector_elems;
  size_t elem_size;
  int64_t count;
  uint64_t work_units;
  bool nontemporal; /* MEMCPY plans: streaming stores (runtime/stream_copy.c) */
  uint64_t inline_below; /* fewer bytes moved run on the caller's thread (backend_cpu.c) */
} cpu_launch_desc;

typedef struct call_value {
  kernel_slot *slot; /* the kernel's, read lock-free (cache.h); NULL for MEMCPY */
  cpu_launch_desc launch;
  /* operand o (dst, then the sources; a fill's dst only) reaches the offsets
   * [offset + lo[o], offset + hi[o]] of its buffer */
  int64_t lo[CALL_MAX_OPERANDS], hi[CALL_MAX_OPERANDS];
} call_value;

typedef struct call_cache call_cache;

ixj_status ixj__call_cache_create(call_cache **out, ixj_error *err);
/* No lookup may be running. */
void ixj__call_cache_destroy(call_cache *c);
/* The key of a call, into key[CALL_KEY_WORDS] (built in words, read as
 * bytes): its length in bytes, or 0 when the call is not one the table takes
 * (a chain, no buffers, an empty operand, a cat of more than CALL_MAX_SRCS
 * inputs, a key longer than CALL_KEY_WORDS). */
size_t ixj__call_key(const op_call *c, int64_t *key);
/* The value of a key, or NULL. Lock-free; the value lives as long as the table. */
const call_value *ixj__call_cache_find(call_cache *c, const uint8_t *key, size_t len);
/* Adds key -> value unless the key is there already. False when out of
 * memory (the call goes on the long way next time too). */
bool ixj__call_cache_add(call_cache *c, const uint8_t *key, size_t len, const call_value *value);

#endif
