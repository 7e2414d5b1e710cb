/* The CPU backend: LLVM IR (gen/emit_llvm) compiled to object code by the
 * context's LLVM JIT (jit_llvm.c), linked into it, and run over chunks of
 * work units on the context's thread pool (pool.c). */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "call_cache.h"
#include "clock.h"
#include "context_internal.h"
#include "emit_llvm.h"
#include "error.h"
#include "stream_copy.h"

/* arch NULL: this CPU. Else another CPU, "NAME[+FEATURES]" (warming only):
 * its kernels are compiled for it and never loaded here, unless it is this
 * very CPU (the same target string). */
static ixj_status cpu_target(ixj_context *ctx, const char *arch, ixj__target *out, ixj_error *err) {
  *out = (ixj__target){.backend = &ixj__backend_cpu,
                       .loadable = true,
                       .cpu_vector_bytes = ixj__jit_llvm_vector_bytes(ctx->jit),
                       .cpu_asm_regs = ixj__jit_llvm_asm_registers(ctx->jit),
                       .cpu_zen = ixj__jit_llvm_zen(ctx->jit)};
  const char *name = ixj__jit_llvm_target(ctx->jit); /* copied, not formatted: every call passes here */
  if (arch) {
    const jit_cpu *other;
    ixj_status st = ixj__jit_llvm_cpu(ctx->jit, arch, &other, err);
    if (st != IXJ_OK) return st;
    if (other) {
      out->loadable = false;
      out->cpu_vector_bytes = other->vector_bytes;
      out->cpu_asm_regs = other->asm_regs;
      out->cpu_zen = other->zen;
      name = other->target;
    }
  }
  size_t n = strlen(name);
  IXJ_ASSERT(err, n < sizeof out->name);
  memcpy(out->name, name, n + 1);
  return IXJ_OK;
}

static ixj_status cpu_key_inputs(ixj_context *ctx, const ixj__target *t, char *id, size_t id_size, char *toolchain,
                                 size_t toolchain_size, ixj_error *err) {
  (void)t;
  (void)err;
  snprintf(id, id_size, "llvm-object");
  snprintf(toolchain, toolchain_size, "%s", ixj__jit_llvm_toolchain(ctx->jit));
  return IXJ_OK;
}

static ixj_status cpu_compile(ixj_context *ctx, const ixj__target *t, const char *text, void **image, size_t *size,
                              ixj_error *err) {
  const jit_cpu *other = t->loadable ? NULL : ixj__jit_llvm_cpu_named(ctx->jit, t->name);
  IXJ_ASSERT(err, t->loadable || other);
  return ixj__jit_llvm_object_for(ctx->jit, other, text, image, size, err);
}

static ixj_status cpu_load(ixj_context *ctx, const void *image, size_t size, const char *name, kernel_ref *kernel,
                           ixj_error *err) {
  ixj_kernel_fn fn;
  ixj_status st = ixj__jit_llvm_link(ctx->jit, image, size, name, &fn, err);
  if (st == IXJ_OK) kernel->fn = (void (*)(void))fn;
  return st;
}

/* What every chunk of one launch shares. */
typedef struct launch {
  ixj_kernel_fn fn;
  /* the kernels' operand arrays, the caller's (a launch returns before its
   * caller does): copying them was a `rep movs`, whose start-up cost a small
   * call more than the copy; a fill's, with the value second, are here */
  const void *const *ptrs;
  const int64_t *offs;
  const void *fill_ptrs[2];
  size_t elem_size;
  bool nontemporal; /* MEMCPY: streaming stores */
} launch;

static void run_kernel_chunk(void *arg, uint64_t begin, uint64_t end) {
  launch *l = arg;
  l->fn(l->ptrs, l->offs, (int64_t)begin, (int64_t)end);
}

static void run_memcpy_chunk(void *arg, uint64_t begin, uint64_t end) {
  launch *l = arg;
  char *d = (char *)l->ptrs[0] + (l->offs[0] + (int64_t)begin) * (int64_t)l->elem_size;
  const char *s = (const char *)l->ptrs[1] + (l->offs[1] + (int64_t)begin) * (int64_t)l->elem_size;
  size_t n = (end - begin) * l->elem_size;
  if (l->nontemporal) ixj__stream_copy(d, s, n);
  else memcpy(d, s, n);
}

/* Below these many bytes moved (read + written) a launch runs on the
 * caller's thread and never wakes the pool: handing it out and joining cost
 * more than a second core saves. Measured on the 2-core development VM (a
 * build that always used the pool, a 1-thread against a 2-thread context,
 * interleaved; docs/cpu-path.md "Dispatch"): since the pool spins before it
 * sleeps (pool.c), elementwise copies and fills gain from a second thread
 * from 512 KiB moved (1.25-1.70x there; 0.62-0.80x with the pool that slept
 * at once, which is why this was 1 MiB). Transposes, since each thread
 * keeps its share of a repeated job in its own cache (pool.c), gain from
 * about 1.5 MiB (4-byte ones 1.31-1.66x at 1.5 MiB, 2-, 1- and 8-byte ones
 * 1.04-2.0x at 1.5-1.6 MiB; 2 MiB when chunks went first come, first
 * served); below it some do (4-byte ones 1.10-1.41x at 1.13 MiB) and some
 * lose (8-byte ones 0.56-0.90x at 1.06 MiB, bytes 0.54-0.65x at 1 MiB).
 * Staged ones (plan.staged), about half as fast per byte in cache, gain
 * from 1 MiB (1.29-1.53x there). */
#define INLINE_BYTES_ELEMENTWISE ((uint64_t)512 << 10)
#define INLINE_BYTES_TILED ((uint64_t)3 << 19)
#define INLINE_BYTES_STAGED ((uint64_t)1 << 20)

static uint64_t inline_below(const ixj_plan *p) {
  if (p->strategy != PLAN_TILED) return INLINE_BYTES_ELEMENTWISE;
  return p->staged ? INLINE_BYTES_STAGED : INLINE_BYTES_TILED;
}

static bool run_inline(const cpu_launch_desc *d) {
  uint64_t bytes = (uint64_t)d->count * d->elem_size * (d->op == IXJ_OP_FILL ? 1 : 2);
  return bytes < d->inline_below;
}

ixj_status ixj__cpu_run(ixj_context *ctx, const cpu_launch_desc *d, const kernel_ref *kernel, const void *const *ptrs,
                        const int64_t *offs, const void *fill_value, double *run_ms, ixj_error *err) {
  IXJ_ASSERT(err, d->num_operands >= 1 && d->num_operands <= PLAN_MAX_OPERANDS);
  IXJ_ASSERT(err, kernel || (d->strategy == PLAN_MEMCPY && d->op == IXJ_OP_COPY));
  launch l;
  l.elem_size = d->elem_size;
  l.nontemporal = d->nontemporal;
  /* the kernels' operand array: dst, then the sources; a fill's value second */
  l.ptrs = ptrs;
  l.offs = offs;
  if (d->op == IXJ_OP_FILL) {
    IXJ_ASSERT(err, d->num_operands <= 2);
    l.fill_ptrs[0] = ptrs[0];
    l.fill_ptrs[1] = fill_value;
    l.ptrs = l.fill_ptrs;
  }
  double t0 = run_ms ? ixj__now_ms() : 0;
  bool small = run_inline(d);
  if (!kernel) {
    l.fn = NULL;
    if (small) run_memcpy_chunk(&l, 0, (uint64_t)d->count); /* count > 0: EMPTY plans never launch */
    else ixj__pool_run(ctx->pool, (uint64_t)d->count, 1u << 16, 64, run_memcpy_chunk, &l);
  } else {
    l.fn = (ixj_kernel_fn)kernel->fn;
    uint64_t grain = d->strategy == PLAN_TILED ? 1 : 1u << 15; /* tiles: the byte threshold already kept small work here */
    if (small) run_kernel_chunk(&l, 0, d->work_units);
    else ixj__pool_run(ctx->pool, d->work_units, grain, (uint64_t)d->vector_elems, run_kernel_chunk, &l);
  }
  if (run_ms) *run_ms = ixj__now_ms() - t0;
  return IXJ_OK;
}

void ixj__cpu_launch_desc(const ixj_plan *p, cpu_launch_desc *d) {
  *d = (cpu_launch_desc){p->strategy, p->op, p->num_operands, p->vector_elems, p->elem_size, p->count, p->work_units,
                         p->nontemporal != 0, inline_below(p)};
}

static ixj_status cpu_launch(ixj_context *ctx, const ixj_plan *p, const kernel_ref *kernel, const void *const *ptrs,
                             const void *fill_value, void *stream, double *run_ms, ixj_error *err) {
  (void)stream;
  IXJ_ASSERT(err, p->num_operands >= 1 && p->num_operands <= PLAN_MAX_OPERANDS);
  cpu_launch_desc d;
  int64_t offs[PLAN_MAX_OPERANDS];
  ixj__cpu_launch_desc(p, &d);
  for (int o = 0; o < p->num_operands; o++) offs[o] = p->operand[o].runtime_offset;
  return ixj__cpu_run(ctx, &d, kernel, ptrs, offs, fill_value, run_ms, err);
}

const ixj__backend ixj__backend_cpu = {
    .name = "cpu",
    .gpu = false,
    .comment = "; ",
    .memcpy_by = "",
    .target = cpu_target,
    .key_inputs = cpu_key_inputs,
    .emit = ixj__emit_llvm,
    .compile = cpu_compile,
    .load = cpu_load,
    .launch = cpu_launch,
};
