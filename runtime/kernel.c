/* Prepared kernels (include/ixjit/kernel.h). A kernel keeps clones of its
 * index functions, each operand's reachable byte range (from offset 0 of its
 * buffer), and plan variants: one per combination of the operands' buffer
 * addresses modulo 64 bytes, the furthest any plan looks (unit_plan_key). The
 * variant for aligned buffers is made at prepare; others on their first run.
 * A variant keeps only what the launch needs (runtime/call_cache.h's
 * cpu_launch_desc, the runtime offsets, the kernel), so a run checks the
 * buffers by arithmetic, finds its variant in a short list read without a
 * lock (insert-only, published with release stores, as in cache.c), and
 * launches.
 *
 * Tiered execution: a variant holds its kernel's slot in the memory cache,
 * not a copy of the kernel. Under IXJIT_COMPILE=async prepare queues the
 * compile and returns at once; runs read the slot (one acquire load) and take
 * the generic kernel until it is ready, the compiled one from then on: the
 * handle upgrades itself when the compile lands, with no lock and nothing to
 * call. A variant whose slot has no kernel and is due for a retry (cache-only
 * found it in no tier at prepare, or a background compile failed, and the
 * cache's retry interval has passed; or, for an unpinned variant, it was
 * evicted) looks its kernel up again through the dispatcher, on the run
 * that finds it due: the same key, so the same slot, which the lookup makes
 * READY when the disk (or the remote store) has the kernel now, e.g. after
 * `ixjit warm` or another process's compile. The cache allows one retry per
 * interval (the others see the slot PENDING or not due), and the pin a
 * variant holds stays on its slot throughout. Runs with their kernel never
 * reach this. */
#include "ixjit/kernel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "call_cache.h"
#include "context_internal.h"
#include "dispatch.h"
#include "error.h"
#include "generic.h"
#include "ixfun_internal.h"

typedef struct variant {
  uint8_t align[PLAN_MAX_OPERANDS]; /* each operand's buffer address modulo 64 */
  kernel_slot *slot;                /* the kernel's (cache.h); NULL: a plan without one (MEMCPY) */
  bool pinned;                      /* slot pinned against eviction (else runs are reader's sections) */
  cpu_launch_desc launch;
  int64_t offs[PLAN_MAX_OPERANDS];
  struct variant *next; /* fixed before publication */
} variant;

struct ixj_kernel {
  ixj_context *ctx;
  ixj_op_kind op;
  size_t elem_size;
  int axis;
  int num_srcs; /* copy 1, fill 0, cat the inputs */
  int num_operands; /* with dims: dst and the sources */
  bool empty;       /* no points: runs check and do nothing */
  ixj_ixfun *f[PLAN_MAX_OPERANDS];
  operand_range range[PLAN_MAX_OPERANDS];
  _Atomic(variant *) variants;
  pthread_mutex_t add_lock;
};

void ixj_kernel_release(ixj_kernel *k) {
  if (!k) return;
  for (variant *v = atomic_load_explicit(&k->variants, memory_order_relaxed), *next; v; v = next) {
    next = v->next;
    if (v->pinned) ixj__cache_unpin(k->ctx->cache, v->slot);
    free(v);
  }
  for (int o = 0; o < k->num_operands; o++) ixj_ixfun_free(k->f[o]);
  pthread_mutex_destroy(&k->add_lock);
  free(k);
}

/* The dispatcher's PREPARE of the kernel for buffers at `bufs` (NULL: as
 * prepared, all aligned): its plan into *plan, its slot in res->slot. */
static ixj_status dispatch_prepare(const ixj_kernel *k, const ixj_buffer *bufs, ixj_plan *plan, dispatch_result *res,
                                   ixj_error *err) {
  ixj_operand ops[PLAN_MAX_OPERANDS];
  for (int o = 0; o < k->num_operands; o++)
    ops[o] = (ixj_operand){bufs ? bufs[o].data : NULL, bufs ? bufs[o].size_bytes : 0, k->f[o]};
  static const unsigned char some_value[16];
  op_call c = {k->op, k->elem_size, &ops[0], k->num_srcs, &ops[1], some_value, k->axis, bufs == NULL};
  dispatch_request req = {DISPATCH_PREPARE, &ixj__backend_cpu, NULL, c, true, NULL, false, plan, 0};
  return ixj__dispatch(k->ctx, &req, res, err);
}

/* The variant for buffers at `data` (NULL: as prepared, all aligned): planned
 * and its kernel found or compiled through the dispatcher, then published. */
static ixj_status add_variant(const ixj_kernel *k, const ixj_buffer *bufs, const uint8_t *align, const variant **out,
                              ixj_error *err) {
  ixj_kernel *mk = (ixj_kernel *)k; /* the variant list is the kernel's one mutable part */
  ixj_plan *plan = malloc(sizeof *plan);
  variant *v = calloc(1, sizeof *v);
  if (!plan || !v) {
    free(plan);
    free(v);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  dispatch_result res;
  ixj_status st;
  /* pinned, so that the memory cache never evicts it; a kernel evicted
   * between its lookup and the pin is looked up (made) again, a few times */
  for (int round = 0; (st = dispatch_prepare(k, bufs, plan, &res, err)) == IXJ_OK && res.slot; round++)
    if ((v->pinned = ixj__cache_pin(k->ctx->cache, res.slot)) || round == 3) break;
  if (st != IXJ_OK) {
    free(plan);
    free(v);
    return st;
  }
  memcpy(v->align, align, (size_t)k->num_operands);
  v->slot = res.slot;
  ixj__cpu_launch_desc(plan, &v->launch);
  for (int o = 0; o < plan->num_operands; o++) v->offs[o] = plan->operand[o].runtime_offset;
  free(plan);
  pthread_mutex_lock(&mk->add_lock);
  const variant *found = NULL;
  for (variant *x = atomic_load_explicit(&mk->variants, memory_order_relaxed); x && !found; x = x->next)
    if (!memcmp(x->align, align, (size_t)k->num_operands)) found = x;
  if (found) {
    if (v->pinned) ixj__cache_unpin(k->ctx->cache, v->slot);
    free(v); /* another run made it meanwhile */
  } else {
    v->next = atomic_load_explicit(&mk->variants, memory_order_relaxed);
    atomic_store_explicit(&mk->variants, v, memory_order_release);
    found = v;
  }
  pthread_mutex_unlock(&mk->add_lock);
  *out = found;
  return IXJ_OK;
}

static ixj_status prepare(ixj_context *ctx, ixj_op_kind op, const ixj_ixfun *dst, int num_srcs,
                          const ixj_ixfun *const *srcs, int axis, size_t elem_size, unsigned flags, ixj_kernel **out,
                          ixj_error *err) {
  if (out) *out = NULL;
  IXJ_REQUIRE_ARGS(err, ctx && dst && out && (srcs || num_srcs == 0));
  ixj_status st = ixj__prepare_validate(op, dst, num_srcs, srcs, axis, elem_size, flags, err);
  if (st != IXJ_OK) return st;
  ixj_kernel *k = calloc(1, sizeof *k);
  if (!k) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  k->ctx = ctx;
  k->op = op;
  k->elem_size = elem_size;
  k->axis = axis;
  k->num_srcs = num_srcs;
  atomic_init(&k->variants, NULL);
  pthread_mutex_init(&k->add_lock, NULL);
  for (int o = 0; o < 1 + num_srcs; o++) {
    if ((st = ixj_ixfun_clone(o ? srcs[o - 1] : dst, &k->f[o], err)) != IXJ_OK) {
      ixj_kernel_release(k);
      return st;
    }
    k->num_operands++;
    if ((st = ixj__operand_range(k->f[o], elem_size, o, &k->range[o], err)) != IXJ_OK) {
      ixj_kernel_release(k);
      return st;
    }
  }
  k->empty = k->range[0].empty;
  static const uint8_t aligned[PLAN_MAX_OPERANDS];
  const variant *v;
  if (!k->empty && (st = add_variant(k, NULL, aligned, &v, err)) != IXJ_OK) {
    ixj_kernel_release(k);
    return st;
  }
  *out = k;
  return IXJ_OK;
}

ixj_status ixj_prepare_copy(ixj_context *ctx, const ixj_ixfun *dst, const ixj_ixfun *src, size_t elem_size,
                            unsigned flags, ixj_kernel **out, ixj_error *err) {
  return prepare(ctx, IXJ_OP_COPY, dst, src ? 1 : -1, &src, 0, elem_size, flags, out, err);
}

ixj_status ixj_prepare_fill(ixj_context *ctx, const ixj_ixfun *dst, size_t elem_size, unsigned flags, ixj_kernel **out,
                            ixj_error *err) {
  return prepare(ctx, IXJ_OP_FILL, dst, 0, NULL, 0, elem_size, flags, out, err);
}

ixj_status ixj_prepare_cat(ixj_context *ctx, const ixj_ixfun *dst, int axis, int num_srcs,
                           const ixj_ixfun *const *srcs, size_t elem_size, unsigned flags, ixj_kernel **out,
                           ixj_error *err) {
  if (num_srcs < 1) {
    if (out) *out = NULL;
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  }
  return prepare(ctx, IXJ_OP_CAT, dst, num_srcs, srcs, axis, elem_size, flags, out, err);
}

/* A variant's slot without a kernel: when a retry is due (see the top of the
 * file), the lookup again, which makes the slot READY if a tier has the
 * kernel now (cache-only: the disk or the remote store; async: the compile
 * queued again; an evicted unpinned one: made again). True when it ran; the
 * caller then reads the slot again. Off the runs that have their kernel. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static bool retry_variant(const ixj_kernel *k, const ixj_buffer *bufs, const variant *v) {
  kernel_cache *cache = k->ctx->cache;
  int state = atomic_load_explicit(&v->slot->state, memory_order_relaxed);
  if (!(state == KERNEL_EVICTED || (state == KERNEL_FAILED && ixj__cache_retry_due(cache, v->slot)))) return false;
  ixj_plan *plan = malloc(sizeof *plan);
  if (!plan) return false; /* out of memory: the generic kernel, a retry on a later run */
  dispatch_result res;
  ixj_error err;
  /* the run's buffers have the variant's alignments: the same plan, key and slot */
  bool ran = dispatch_prepare(k, bufs, plan, &res, &err) == IXJ_OK;
  free(plan);
  return ran;
}

/* Operand o's byte range in buffer b; an error when it does not fit. */
ixj_status ixj_kernel_run(const ixj_kernel *k, ixj_buffer dst, int num_srcs, const ixj_buffer *srcs,
                          const void *value, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, k);
  ixj_buffer bufs[PLAN_MAX_OPERANDS];
  uintptr_t dlo, dhi;
  ixj_status st = ixj__prepared_run_check(k->op, k->num_srcs, k->range, dst, num_srcs, srcs, value, bufs, &dlo, &dhi, err);
  if (st != IXJ_OK || k->empty) return st;
  if (value && (uintptr_t)value < dhi && dlo < (uintptr_t)value + k->elem_size)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "fill: the value overlaps the destination's memory");
  uint8_t align[PLAN_MAX_OPERANDS];
  for (int o = 0; o < k->num_operands; o++) align[o] = (uint8_t)((uintptr_t)bufs[o].data % 64);
  const variant *v = atomic_load_explicit(&k->variants, memory_order_acquire);
  while (v && memcmp(v->align, align, (size_t)k->num_operands)) v = v->next;
  if (!v && (st = add_variant(k, bufs, align, &v, err)) != IXJ_OK) return st;
  kernel_ref kernel;
  kernel_cache *cache = k->ctx->cache;
  /* pinned: never evicted, so no reader's section (the prepared run stays a
   * few loads and the launch); unpinned (the pin lost a race with eviction
   * four times): a section like the per-call path's */
  bool section = v->slot && !v->pinned;
  unsigned token = section ? ixj__cache_enter(cache) : 0;
  if (v->slot && !(section ? ixj__cache_use(cache, v->slot, &kernel) : ixj__slot_kernel(v->slot, &kernel))) {
    if (section) ixj__cache_leave(cache, token);
    bool have = false;
    if (retry_variant(k, bufs, v)) { /* it may be there now */
      token = section ? ixj__cache_enter(cache) : 0;
      have = section ? ixj__cache_use(cache, v->slot, &kernel) : ixj__slot_kernel(v->slot, &kernel);
      if (!have && section) ixj__cache_leave(cache, token);
    }
    if (!have) {
      /* not compiled (yet: async), in no tier (cache-only), or evicted: the generic kernel */
      ixj_operand ops[PLAN_MAX_OPERANDS];
      for (int o = 0; o < k->num_operands; o++) ops[o] = (ixj_operand){bufs[o].data, bufs[o].size_bytes, k->f[o]};
      op_call c = {k->op, k->elem_size, &ops[0], k->num_srcs, &ops[1], value, k->axis, false};
      ixj__generic_run(k->ctx->pool, &c);
      ixj__cache_count_generic(cache);
      return IXJ_OK;
    }
  }
  const void *ptrs[PLAN_MAX_OPERANDS];
  for (int o = 0; o < k->num_operands; o++) ptrs[o] = bufs[o].data;
  st = ixj__cpu_run(k->ctx, &v->launch, v->slot ? &kernel : NULL, ptrs, v->offs, value, NULL, err);
  if (section) ixj__cache_leave(cache, token);
  return st;
}
