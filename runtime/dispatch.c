/* The dispatch pipeline (see dispatch.h), written once for every backend
 * against runtime/backend.h. Nothing here is global: the context's caches,
 * JIT and pool lock what they share, and a request's state lives on the
 * calling thread. */
#include "dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "call_cache.h"
#include "clock.h"
#include "context_internal.h"
#include "error.h"
#include "generic.h"
#include "plan.h"
#include "ixfun_internal.h"
#include "plan_key.h"
#include "record.h"

/* The kernel's symbol: derived from the signature's hash, so distinct
 * signatures never clash in a JIT or a CUDA library. */
static void kernel_name_of(const char *signature, char name[48]) {
  XXH128_hash_t h = XXH3_128bits(signature, strlen(signature));
  snprintf(name, 48, "ixj_%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* The signature of a plan for a target: malloc'ed, NULL when out of memory. */
static char *signature_of(const ixj_plan *plan, const char *target) {
  size_t n = ixj__plan_signature(plan, target, NULL, 0);
  char *s = malloc(n + 1);
  if (s) ixj__plan_signature(plan, target, s, n + 1);
  return s;
}

/* Planning needs the pointers only for their alignment: without buffers
 * (warming, emission) NULL stands for aligned and 1 for not. */
static ixj_status make_plan(ixj_context *ctx, const dispatch_request *req, const ixj__target *target, ixj_plan *plan,
                            ixj_error *err) {
  const op_call *c = &req->call;
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  const void *ptrs[1 + IXJ_MAX_CAT_INPUTS];
  const void *shapes_ptr = req->aligned ? NULL : (const void *)1;
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  ptrs[0] = c->shapes_only ? shapes_ptr : c->dst->data;
  for (int s = 0; s < n; s++) {
    srcs[s] = c->srcs[s].ixfun;
    ptrs[1 + s] = c->shapes_only ? shapes_ptr : c->srcs[s].data;
  }
  if (c->op == IXJ_OP_FILL) ptrs[1] = c->shapes_only ? shapes_ptr : c->value;
  plan_request pr = {.op = c->op,
                     .elem_size = c->elem_size,
                     .dst = c->dst->ixfun,
                     .num_srcs = n,
                     .srcs = srcs,
                     .cat_axis = c->axis,
                     .pointers = ptrs,
                     .last_level_cache = ctx->last_level_cache,
                     .gpu = req->backend->gpu,
                     .cpu_vector_bytes = target->cpu_vector_bytes,
                     .cpu_asm_regs = target->cpu_asm_regs,
                     .cpu_zen = target->cpu_zen};
  return ixj__plan_build(&pr, plan, err);
}

/* One kernel being found or made; lives on the calling thread. A memory hit
 * needs only the plan key; the text (signature, kernel name, disk key) is
 * made on the first need, on a miss. */
typedef struct kernel_job {
  ixj_context *ctx;
  const ixj__target *target;
  const ixj_plan *plan;
  const uint8_t *plan_key; /* the memory cache's key */
  size_t plan_key_len;
  char *signature;         /* malloc'ed, made on first need */
  char name[48];           /* the kernel's symbol, with the signature */
  char *key; /* the disk-cache key, made on first need; NULL while the disk cache is off */
  const op_call *call; /* what the record file gets (index functions only) */
  bool record;         /* a compiled kernel is recorded (IXJIT_RECORD, a RUN or PREPARE) */
  size_t image_bytes;  /* the loaded kernel's object code: what it counts against the memory limit */
} kernel_job;

static ixj_status job_signature(kernel_job *j, ixj_error *err) {
  if (j->signature) return IXJ_OK;
  if (!(j->signature = signature_of(j->plan, j->target->name))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  kernel_name_of(j->signature, j->name);
  return IXJ_OK;
}

static ixj_status job_key(kernel_job *j, ixj_error *err) {
  char id[64], toolchain[64];
  if (!j->ctx->disk || j->key) return IXJ_OK;
  const ixj__backend *b = j->target->backend;
  ixj_status st = b->key_inputs(j->ctx, j->target, id, sizeof id, toolchain, sizeof toolchain, err);
  if (st != IXJ_OK) return st;
  j->key = ixj__disk_cache_key(id, toolchain, j->signature);
  return j->key ? IXJ_OK : ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
}

/* The kernel's image: from the disk cache (unless skip_disk), else compiled
 * and written back (a cache that cannot be written costs one warning, never
 * the call). *image malloc'ed. */
static ixj_status job_image(kernel_job *j, bool skip_disk, void **image, size_t *size, bool *from_disk,
                            ixj_error *err) {
  ixj_context *ctx = j->ctx;
  const ixj__backend *b = j->target->backend;
  *image = NULL;
  *from_disk = false;
  ixj_status st = job_signature(j, err);
  if (st == IXJ_OK) st = job_key(j, err);
  if (st != IXJ_OK) return st;
  if (j->key && !skip_disk &&
      (ixj__disk_cache_load(ctx->disk, j->key, image, size) ||
       (ctx->remote && ixj__remote_cache_fetch(ctx->remote, j->key, image, size)))) { /* the remote tier: after the disk */
    *from_disk = true;
    return IXJ_OK;
  }
  char *text = NULL;
  st = b->emit(j->plan, j->name, j->signature, &text, err);
  if (st == IXJ_OK) st = b->compile(ctx, j->target, text, image, size, err);
  free(text);
  if (st == IXJ_OK && j->key) {
    ixj_error werr;
    if (ixj__disk_cache_store(ctx->disk, j->key, *image, *size, &werr) != IXJ_OK)
      ixj__ctx_warn_disk_once(ctx, werr.message);
    if (ctx->remote) ixj__remote_cache_push(ctx->remote, j->key, *image, *size); /* in the background */
  }
  return st;
}

/* One line in the record file for a kernel the disk cache lacked: what an
 * offline job should warm. A failed write is a warning. */
static void job_record(const kernel_job *j) {
  const op_call *c = j->call;
  const ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS];
  int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
  for (int k = 0; k < n; k++) srcs[k] = c->srcs[k].ixfun;
  ixj_error err;
  if (ixj__record_append(j->ctx->record_fd, c->op, c->elem_size, j->plan->vector_elems > 1, c->axis, c->dst->ixfun, n,
                         srcs, &err) != IXJ_OK)
    ixj__ctx_log(j->ctx, IXJ_LOG_WARNING, "%s", err.message);
}

/* The memory cache missed (cache_compile_fn): the disk or a compile, then the
 * load. A disk image that does not load is replaced by a fresh compile. */
static ixj_status job_kernel(void *arg, kernel_ref *kernel, bool *loaded, ixj_error *err) {
  kernel_job *j = arg;
  const ixj__backend *b = j->target->backend;
  void *image;
  size_t size = 0;
  bool from_disk;
  ixj_status st = job_image(j, false, &image, &size, &from_disk, err);
  if (st == IXJ_OK) st = b->load(j->ctx, image, size, j->name, kernel, err);
  if (st != IXJ_OK && from_disk) {
    free(image);
    st = job_image(j, true, &image, &size, &from_disk, err);
    if (st == IXJ_OK) st = b->load(j->ctx, image, size, j->name, kernel, err);
  }
  free(image);
  j->image_bytes = size;
  *loaded = st == IXJ_OK && from_disk;
  if (st == IXJ_OK && !from_disk && j->record) job_record(j);
  return st;
}

/* cache-only's miss: the tiers a sync load reads, in its order (the disk,
 * then the remote store when one is configured: a remote hit is written to
 * the disk as for sync), then the load; never a compile. IXJ_ERR_UNAVAILABLE
 * when no tier has the kernel (or its image does not load: a later `ixjit
 * warm` replaces it). */
static ixj_status job_from_disk(kernel_job *j, kernel_ref *kernel, ixj_error *err) {
  void *image = NULL;
  size_t size = 0;
  ixj_status st = job_signature(j, err);
  if (st == IXJ_OK) st = job_key(j, err);
  if (st != IXJ_OK) return st;
  ixj_context *ctx = j->ctx;
  if (!j->key || !(ixj__disk_cache_load(ctx->disk, j->key, &image, &size) ||
                   (ctx->remote && ixj__remote_cache_fetch(ctx->remote, j->key, &image, &size))))
    return ixj__fail(err, IXJ_ERR_UNAVAILABLE, "%s is not in the disk cache%s (IXJIT_COMPILE=cache-only)", j->name,
                     ctx->remote ? " nor the remote store" : "");
  st = j->target->backend->load(j->ctx, image, size, j->name, kernel, err);
  free(image);
  j->image_bytes = size;
  return st;
}

/* ---- bounded memory ------------------------------------------------------ */

static void cpu_evict(void *arg, const kernel_ref *kernel) {
  ixj__jit_llvm_unlink(((ixj_context *)arg)->jit, (ixj_kernel_fn)kernel->fn);
}

/* A kernel this job just loaded into slot counts against the memory limit
 * (CPU kernels only: the JIT can remove them; CUDA modules stay): its object
 * code rounded up to pages, plus a page for its data and the JIT's
 * bookkeeping. */
static void account(const kernel_job *j, kernel_slot *slot) {
  if (j->target->backend != &ixj__backend_cpu || !slot) return;
  size_t page = 4096, bytes = (j->image_bytes + page - 1) / page * page + page;
  ixj__cache_account(j->ctx->cache, slot, bytes, cpu_evict, j->ctx);
}

/* ---- tiered execution: the background compile ------------------------------ */

/* A kernel_job that outlives its call, for the compiler thread: it owns a
 * copy of the plan, of the chain tails the plan borrowed from the call's
 * index functions, of the key and, when recording, clones of the index
 * functions. */
typedef struct async_job {
  kernel_job j;
  kernel_slot *slot;
  ixj__target target;
  uint8_t *plan_key;
  ixj_lmad *tails[PLAN_MAX_OPERANDS];
  ixj_ixfun *clones[PLAN_MAX_OPERANDS];
  ixj_operand ops[PLAN_MAX_OPERANDS];
  op_call call;
  ixj_plan plan;
} async_job;

static void async_free(async_job *a) {
  for (int o = 0; o < PLAN_MAX_OPERANDS; o++) {
    free(a->tails[o]);
    ixj_ixfun_free(a->clones[o]);
  }
  free(a->plan_key);
  free(a->j.key);
  free(a->j.signature);
  free(a);
}

static void async_run(void *arg) {
  async_job *a = arg;
  kernel_ref kernel = {NULL};
  bool loaded = false;
  ixj_error err = {IXJ_OK, 0, ""};
  double t0 = ixj__now_ms();
  ixj_status st = job_kernel(&a->j, &kernel, &loaded, &err);
  double ms = ixj__now_ms() - t0;
  ixj__cache_finish(a->j.ctx->cache, a->slot, st, &kernel, loaded, false, ms, &err);
  if (st == IXJ_OK) {
    account(&a->j, a->slot);
    ixj__cache_trim(a->j.ctx->cache, a->slot);
  }
  if (st == IXJ_OK)
    ixj__ctx_log(a->j.ctx, IXJ_LOG_DEBUG, "%s %s in the background (%s) in %.2f ms", loaded ? "loaded" : "compiled",
                 a->j.name, ixj__plan_strategy_name(a->plan.strategy), ms);
  else
    ixj__ctx_log(a->j.ctx, IXJ_LOG_WARNING, "background compile: %s", err.message);
  async_free(a);
}

/* The context goes before the compile started: the slot fails, which nobody
 * reads any more. */
static void async_drop(void *arg) {
  async_job *a = arg;
  ixj_error err;
  ixj__fail(&err, IXJ_ERR_UNAVAILABLE, "the context was destroyed before the kernel was compiled");
  ixj__cache_finish(a->j.ctx->cache, a->slot, err.status, NULL, false, true, 0, &err);
  async_free(a);
}

/* Queues the compile of j's kernel into slot. */
static ixj_status async_submit(const kernel_job *j, kernel_slot *slot, ixj_error *err) {
  async_job *a = calloc(1, sizeof *a);
  if (!a) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  a->slot = slot;
  a->target = *j->target;
  memcpy(&a->plan, j->plan, sizeof a->plan);
  bool ok = (a->plan_key = malloc(j->plan_key_len ? j->plan_key_len : 1)) != NULL;
  if (ok) memcpy(a->plan_key, j->plan_key, j->plan_key_len);
  for (int o = 0; ok && o < a->plan.num_operands; o++) {
    plan_operand *po = &a->plan.operand[o];
    if (po->num_tail <= 0) continue;
    if ((ok = (a->tails[o] = malloc(sizeof(ixj_lmad) * (size_t)po->num_tail)) != NULL)) {
      memcpy(a->tails[o], po->tail, sizeof(ixj_lmad) * (size_t)po->num_tail);
      po->tail = a->tails[o];
    }
  }
  bool record = j->record && j->call;
  if (record) { /* the record line needs the index functions, which the call takes back */
    const op_call *c = j->call;
    int n = c->op == IXJ_OP_FILL ? 0 : c->num_srcs;
    for (int o = 0; ok && o < 1 + n; o++) {
      const ixj_operand *from = o ? &c->srcs[o - 1] : c->dst;
      ok = ixj_ixfun_clone(from->ixfun, &a->clones[o], NULL) == IXJ_OK;
      a->ops[o] = (ixj_operand){NULL, 0, a->clones[o]};
    }
    a->call = (op_call){c->op, c->elem_size, &a->ops[0], n, &a->ops[1], NULL, c->axis, true};
  }
  if (!ok) {
    async_free(a);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  a->j = (kernel_job){j->ctx, &a->target, &a->plan, a->plan_key, j->plan_key_len, NULL, "", NULL,
                      record ? &a->call : NULL, record, 0};
  ixj_status st = ixj__compiler_submit(j->ctx->compiler, async_run, async_drop, a, err);
  if (st != IXJ_OK) async_free(a);
  return st;
}

/* The kernel of a RUN or PREPARE by the context's mode: sync waits for it
 * (single flight); async and cache-only never wait: *ready false means the
 * call runs the generic kernel. *slot is the key's slot either way. CUDA
 * kernels are always sync: the generic kernel is a CPU one. */
static ixj_status find_kernel(kernel_job *j, ixj_call_info *info, kernel_ref *kernel, kernel_slot **slot, bool *ready,
                              ixj_error *err) {
  ixj_context *ctx = j->ctx;
  *ready = true;
  if (ctx->compile == IXJ_COMPILE_SYNC || j->target->backend != &ixj__backend_cpu) {
    ixj_status st = ixj__cache_get_slot(ctx->cache, j->plan_key, j->plan_key_len, job_kernel, j, kernel,
                                        &info->cache_hit, &info->disk_hit, &info->compile_ms, slot, err);
    if (st == IXJ_OK && !info->cache_hit) account(j, *slot);
    return st;
  }
  cache_begin what;
  bool fresh;
  ixj_status st = ixj__cache_begin(ctx->cache, j->plan_key, j->plan_key_len, slot, &what, &fresh, err);
  if (st != IXJ_OK) return st;
  if (what == CACHE_READY) {
    info->cache_hit = ixj__slot_kernel(*slot, kernel);
    return IXJ_OK;
  }
  *ready = false;
  if (what == CACHE_PENDING) return IXJ_OK;
  ixj_error merr = {IXJ_OK, 0, ""};
  if (ctx->compile == IXJ_COMPILE_ASYNC) {
    if ((st = async_submit(j, *slot, &merr)) != IXJ_OK) /* the generic kernel now; a retry after the interval */
      ixj__cache_finish(ctx->cache, *slot, st, NULL, false, false, 0, &merr);
    return IXJ_OK;
  }
  double t0 = ixj__now_ms(); /* cache-only */
  st = job_from_disk(j, kernel, &merr);
  double ms = ixj__now_ms() - t0;
  ixj__cache_finish(ctx->cache, *slot, st, kernel, st == IXJ_OK, st == IXJ_ERR_UNAVAILABLE, ms, &merr);
  if (st == IXJ_OK) {
    *ready = info->disk_hit = true;
    info->compile_ms = ms;
    account(j, *slot);
  } else if (fresh && ctx->record_fd >= 0 && j->call) {
    job_record(j); /* once per kernel: what `ixjit warm` should compile */
  }
  return IXJ_OK;
}

/* WARM: the kernel on disk afterwards (and in memory when loadable here). */
static ixj_status warm(kernel_job *j, dispatch_result *out, ixj_error *err) {
  ixj_context *ctx = j->ctx;
  bool present;
  ixj_status st;
  if (j->target->loadable) {
    kernel_ref kernel;
    bool hit, loaded;
    double ms;
    kernel_slot *slot;
    st = ixj__cache_get_slot(ctx->cache, j->plan_key, j->plan_key_len, job_kernel, j, &kernel, &hit, &loaded, &ms,
                             &slot, err);
    if (st == IXJ_OK && !hit) account(j, slot);
    present = hit || loaded;
  } else {
    void *image;
    size_t size;
    st = job_image(j, false, &image, &size, &present, err);
    free(image);
  }
  if (st == IXJ_OK) st = job_signature(j, err);
  if (st == IXJ_OK) st = job_key(j, err);
  if (st == IXJ_OK && present && ctx->remote) ixj__remote_cache_warmed(ctx->remote, j->key); /* on disk; warm --remote */
  if (st == IXJ_OK && !ixj__disk_cache_has(ctx->disk, j->key)) {
    const char *dir = ixj__disk_cache_dir(ctx->disk);
    /* a directory that can be written lost the entry to eviction: the size
     * limit is below this one entry */
    st = access(dir, W_OK) == 0
             ? ixj__fail(err, IXJ_ERR_LIMIT, "compiled and written, but evicted at once: the cache size limit "
                                             "(IXJIT_CACHE_MAX_BYTES) is smaller than this kernel's entry")
             : ixj__fail(err, IXJ_ERR_IO, "compiled, but the cache directory %s cannot be written", dir);
  }
  if (st == IXJ_OK) out->outcome = present ? IXJ_WARM_PRESENT : IXJ_WARM_COMPILED;
  return st;
}

/* The operands' data pointers as a backend's launch takes them. */
static void operand_pointers(const op_call *c, const void **ptrs) {
  ptrs[0] = c->dst->data;
  for (int s = 0; s < (c->op == IXJ_OP_FILL ? 0 : c->num_srcs); s++) ptrs[1 + s] = c->srcs[s].data;
}

/* A validated CPU call by the generic kernel (its own is not ready). */
static void run_generic(ixj_context *ctx, const op_call *c, ixj_call_info *info, bool timed) {
  double t0 = timed ? ixj__now_ms() : 0;
  ixj__generic_run(ctx->pool, c);
  if (timed) info->run_ms = ixj__now_ms() - t0;
  info->generic = true;
  ixj__cache_count_generic(ctx->cache);
}

/* The backend's launch on the request's device. */
static ixj_status launch(ixj_context *ctx, const dispatch_request *req, const ixj_plan *plan, const kernel_ref *kernel,
                         const void *const *ptrs, const void *fill_value, double *run_ms, ixj_error *err) {
  const ixj__backend *b = req->backend;
  return b->device_launch ? b->device_launch(ctx, req->device, plan, kernel, ptrs, fill_value, req->stream, run_ms, err)
                          : b->launch(ctx, plan, kernel, ptrs, fill_value, req->stream, run_ms, err);
}

/* RUN with a kernel: the memory cache (or the rest of the pipeline), then the launch. */
static ixj_status run(kernel_job *j, const dispatch_request *req, dispatch_result *out, kernel_slot **slot,
                      ixj_error *err) {
  ixj_context *ctx = j->ctx;
  const op_call *c = &req->call;
  ixj_call_info *info = &out->info;
  kernel_ref kernel;
  bool cpu = j->target->backend == &ixj__backend_cpu;
  /* A kernel found may be evicted before its launch begins (another call's
   * miss over the memory limit): then it is found (made) again; after a few
   * such rounds the generic kernel runs. The launch itself is a reader's
   * section, which eviction waits for. */
  for (int round = 0; round < 4; round++) {
    bool ready;
    ixj_status st = find_kernel(j, info, &kernel, slot, &ready, err);
    if (st != IXJ_OK) return st;
    if (!ready) break;
    unsigned token = ixj__cache_enter(ctx->cache);
    if (!ixj__cache_use(ctx->cache, *slot, &kernel)) {
      ixj__cache_leave(ctx->cache, token);
      continue;
    }
    if (!info->cache_hit && j->name[0])
      ixj__ctx_log(ctx, IXJ_LOG_DEBUG, "%s %s (%s, %s) in %.2f ms", info->disk_hit ? "loaded" : "compiled", j->name,
                   info->strategy, j->target->name, info->compile_ms);
    const void *ptrs[PLAN_MAX_OPERANDS];
    operand_pointers(c, ptrs);
    st = launch(ctx, req, j->plan, &kernel, ptrs, c->op == IXJ_OP_FILL ? c->value : NULL, &info->run_ms, err);
    ixj__cache_leave(ctx->cache, token);
    return st;
  }
  if (!cpu) /* CUDA kernels are never evicted, and the generic kernel is a CPU one */
    return ixj__fail(err, IXJ_ERR_BACKEND, "the CUDA kernel is not ready");
  run_generic(ctx, c, info, true);
  return IXJ_OK;
}

/* A plan without a kernel (EMPTY, MEMCPY). */
static ixj_status no_kernel(ixj_context *ctx, const dispatch_request *req, const ixj_plan *plan, const char *signature,
                            dispatch_result *out, ixj_error *err) {
  const ixj__backend *b = req->backend;
  if (req->mode == DISPATCH_WARM) {
    out->outcome = IXJ_WARM_NO_KERNEL;
  } else if (req->mode == DISPATCH_EMIT) {
#define NOTE "%sixjit: strategy %s needs no kernel%s\n%ssignature: %s\n"
    const char *strategy = ixj__plan_strategy_name(plan->strategy);
    int n = snprintf(NULL, 0, NOTE, b->comment, strategy, b->memcpy_by, b->comment, signature);
    if (n < 0 || !(out->text = malloc((size_t)n + 1))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    snprintf(out->text, (size_t)n + 1, NOTE, b->comment, strategy, b->memcpy_by, b->comment, signature);
#undef NOTE
  } else if (req->mode == DISPATCH_RUN && plan->strategy == PLAN_MEMCPY) {
    const void *ptrs[PLAN_MAX_OPERANDS];
    operand_pointers(&req->call, ptrs);
    out->info.cache_hit = true; /* nothing to compile */
    return launch(ctx, req, plan, NULL, ptrs, NULL, &out->info.run_ms, err);
  }
  return IXJ_OK;
}

/* The kernel of a plan that has one: its key, then the memory cache and the
 * rest of the pipeline. The key of a plain copy or fill fits the stack
 * buffer; a larger one is malloc'ed. */
static ixj_status with_kernel(ixj_context *ctx, const dispatch_request *req, const ixj__target *target,
                              const ixj_plan *plan, dispatch_result *out, kernel_slot **slot, ixj_error *err) {
  uint8_t stack_key[PLAN_KEY_STACK_BYTES], *key = stack_key;
  size_t n = ixj__plan_key(plan, target->name, stack_key, sizeof stack_key);
  if (n > sizeof stack_key) {
    if (!(key = malloc(n))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    ixj__plan_key(plan, target->name, key, n);
  }
  bool record = req->mode != DISPATCH_WARM && ctx->record_fd >= 0;
  kernel_job job = {ctx, target, plan, key, n, NULL, "", NULL, &req->call, record, 0};
  ixj_status st;
  *slot = NULL;
  if (req->mode == DISPATCH_WARM) {
    st = warm(&job, out, err);
  } else if (req->mode == DISPATCH_PREPARE) {
    kernel_ref kernel;
    bool ready;
    st = find_kernel(&job, &out->info, &kernel, slot, &ready, err);
  } else {
    st = run(&job, req, out, slot, err);
  }
  free(job.key);
  free(job.signature);
  if (key != stack_key) free(key);
  return st;
}

/* ---- the fast path (call_cache.h) ----------------------------------------- */

/* An operand's byte range [*lo, *hi) from its offset range relative to its
 * LMAD's offset; false when it leaves the buffer (the long way reports it). */
static bool fast_range(const ixj_operand *o, int64_t rel_lo, int64_t rel_hi, size_t elem, uintptr_t *lo, uintptr_t *hi) {
  int64_t off = o->ixfun->lmads[0].offset, min, max;
  uint64_t end;
  if (__builtin_add_overflow(off, rel_lo, &min) || __builtin_add_overflow(off, rel_hi, &max) || min < 0) return false;
  if (__builtin_mul_overflow((uint64_t)max + 1, (uint64_t)elem, &end) || end > o->size_bytes) return false;
  *lo = (uintptr_t)o->data + (uintptr_t)min * elem;
  *hi = (uintptr_t)o->data + (uintptr_t)end;
  return true;
}

/* The sources of a call the table takes: a copy's one, a cat's inputs. */
static int fast_num_srcs(const op_call *c) { return c->op == IXJ_OP_FILL ? 0 : c->op == IXJ_OP_COPY ? 1 : c->num_srcs; }

/* A call whose key is in the table: the checks that depend on the buffers
 * (bounds, no source or fill value overlapping the destination), then the
 * launch. False, with nothing done, when a check fails: the long way then
 * reports the error. */
static bool fast_run(ixj_context *ctx, const dispatch_request *req, const call_value *v, dispatch_result *out,
                     ixj_status *st, ixj_error *err) {
  const op_call *c = &req->call;
  uintptr_t dlo, dhi, slo, shi;
  if (!fast_range(c->dst, v->lo[0], v->hi[0], c->elem_size, &dlo, &dhi)) return false;
  /* set as far as the launch reads them (its operands; a fill's second is
   * the value, at offset 0): zeroing all of them cost a 1 KiB copy 5-10% */
  const void *ptrs[CALL_MAX_OPERANDS];
  int64_t offs[CALL_MAX_OPERANDS];
  ptrs[0] = c->dst->data;
  offs[0] = c->dst->ixfun->lmads[0].offset;
  ptrs[1] = NULL;
  offs[1] = 0;
  int srcs = fast_num_srcs(c);
  for (int k = 0; k < srcs; k++) {
    const ixj_operand *s = &c->srcs[k];
    if (!fast_range(s, v->lo[1 + k], v->hi[1 + k], c->elem_size, &slo, &shi) || (slo < dhi && dlo < shi)) return false;
    ptrs[1 + k] = s->data;
    offs[1 + k] = s->ixfun->lmads[0].offset;
  }
  if (c->op == IXJ_OP_FILL) {
    uintptr_t x = (uintptr_t)c->value;
    if (!c->value || (x < dhi && dlo < x + c->elem_size)) return false;
  }
  kernel_ref kernel;
  out->info.fast_path = true;
  out->info.strategy = ixj__plan_strategy_name(v->launch.strategy);
  if (!v->slot) { /* MEMCPY */
    out->info.cache_hit = true;
    *st = ixj__cpu_run(ctx, &v->launch, NULL, ptrs, offs, c->value, req->timed ? &out->info.run_ms : NULL, err);
    return true;
  }
  unsigned token = ixj__cache_enter(ctx->cache);
  if (!ixj__cache_use(ctx->cache, v->slot, &kernel)) {
    ixj__cache_leave(ctx->cache, token);
    /* tiered: still compiling, or failed within the retry interval: the
     * generic kernel; else (sync, evicted, a retry due) the long way */
    int state = atomic_load_explicit(&v->slot->state, memory_order_relaxed);
    if (ctx->compile == IXJ_COMPILE_SYNC ||
        !(state == KERNEL_PENDING || (state == KERNEL_FAILED && !ixj__cache_retry_due(ctx->cache, v->slot))))
      return false;
    run_generic(ctx, c, &out->info, req->timed);
    *st = IXJ_OK;
    return true;
  }
  ixj__cache_count_hit(ctx->cache, token);
  out->info.cache_hit = true;
  *st = ixj__cpu_run(ctx, &v->launch, &kernel, ptrs, offs, c->value, req->timed ? &out->info.run_ms : NULL, err);
  ixj__cache_leave(ctx->cache, token);
  return true;
}

/* After a call that passed every check the long way: its entry. None where
 * the plan's runtime offsets are not the operands' own LMAD offsets, which
 * the fast path passes (they are, for single LMADs; this keeps it so). */
static void fast_add(ixj_context *ctx, const op_call *c, const uint8_t *key, size_t len, const ixj_plan *plan,
                     kernel_slot *slot) {
  call_value v;
  memset(&v, 0, sizeof v);
  v.slot = slot;
  ixj__cpu_launch_desc(plan, &v.launch);
  int operands = 1 + fast_num_srcs(c);
  if (plan->num_operands < operands) return;
  for (int o = 0; o < operands; o++) {
    const ixj_ixfun *f = o ? c->srcs[o - 1].ixfun : c->dst->ixfun;
    if (plan->operand[o].runtime_offset != f->lmads[0].offset) return;
    ixj_offset_range r = ixj_ixfun_offset_range(f);
    v.lo[o] = r.min - f->lmads[0].offset;
    v.hi[o] = r.max - f->lmads[0].offset;
  }
  ixj__call_cache_add(ctx->calls, key, len, &v); /* out of memory: the long way again next time */
}

/* The long way: everything after the fast path. Its own frame, never
 * inlined: the plan on its stack is 23 KB, whose pages the compiler probes
 * (stack-clash protection) on every entry, which the fast path must not pay. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static ixj_status long_way(ixj_context *ctx, const dispatch_request *req, dispatch_result *out, const uint8_t *call_key,
                           size_t call_len, ixj_error *err) {
  const ixj__backend *b = req->backend;
  ixj__target target;
  ixj_plan plan; /* on the stack: no allocation per call */
  char *signature = NULL;
  ixj_status st = !req->arch && b->device_target ? b->device_target(ctx, req->device, &target, err)
                                                 : b->target(ctx, req->arch, &target, err);
  if (st == IXJ_OK && req->mode == DISPATCH_WARM && !ctx->disk)
    st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "the disk cache is off: nothing to warm");
  if (st == IXJ_OK) st = ixj__op_validate(&req->call, err);
  if (st == IXJ_OK) st = make_plan(ctx, req, &target, &plan, err);
  if (st != IXJ_OK) goto done;
  out->info.strategy = ixj__plan_strategy_name(plan.strategy);
  bool kernel = plan.strategy != PLAN_EMPTY && plan.strategy != PLAN_MEMCPY;
  if (req->mode == DISPATCH_EMIT) { /* only emission needs the text up front */
    if (!(signature = signature_of(&plan, target.name))) {
      st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
      goto done;
    }
    kernel_name_of(signature, out->kernel_name);
  }
  kernel_slot *found = NULL;
  if (!kernel) {
    st = no_kernel(ctx, req, &plan, signature, out, err);
  } else if (req->mode == DISPATCH_EMIT) {
    st = b->emit(&plan, out->kernel_name, signature, &out->text, err);
  } else {
    st = with_kernel(ctx, req, &target, &plan, out, &found, err);
  }
  if (st == IXJ_OK && call_len && plan.strategy != PLAN_EMPTY) fast_add(ctx, &req->call, call_key, call_len, &plan, found);
  if (st == IXJ_OK && req->mode == DISPATCH_PREPARE) {
    *req->plan_out = plan;
    out->slot = found;
  }
  if (found) ixj__cache_trim(ctx->cache, found); /* outside any reader's section; cheap under the limit */
  if (st == IXJ_OK && req->mode == DISPATCH_EMIT) {
    out->signature = signature;
    signature = NULL;
  }
done:
  if (st != IXJ_OK) {
    free(out->text);
    out->text = NULL;
  }
  free(signature);
  return st;
}

/* Field by field: a memset of the 120 bytes was a `rep stos`, whose start-up
 * was 14% of a fast-path call. */
static void clear_result(dispatch_result *out) {
  out->info = (ixj_call_info){.strategy = "empty"};
  out->outcome = IXJ_WARM_NO_KERNEL;
  out->text = NULL;
  out->signature = NULL;
  out->kernel_name[0] = '\0';
  out->slot = NULL;
}

ixj_status ixj__dispatch(ixj_context *ctx, const dispatch_request *req, dispatch_result *out, ixj_error *err) {
  clear_result(out);
  int64_t call_key[CALL_KEY_WORDS];
  size_t call_len =
      req->mode == DISPATCH_RUN && req->backend == &ixj__backend_cpu ? ixj__call_key(&req->call, call_key) : 0;
  ixj_status st;
  if (call_len) {
    const call_value *v = ixj__call_cache_find(ctx->calls, (const uint8_t *)call_key, call_len);
    if (v && fast_run(ctx, req, v, out, &st, err)) return st;
  }
  return long_way(ctx, req, out, (const uint8_t *)call_key, call_len, err);
}

ixj_status ixj__dispatch_shapes(ixj_context *ctx, dispatch_mode mode, const ixj__backend *backend, const char *arch,
                                ixj_op_kind op, const ixj_ixfun *dst, int num_srcs, const ixj_ixfun *const *srcs,
                                int axis, size_t elem_size, bool aligned, dispatch_result *out, ixj_error *err) {
  ixj_operand d = {NULL, 0, dst}, s[IXJ_MAX_CAT_INPUTS];
  clear_result(out);
  if (num_srcs < 0 || num_srcs > IXJ_MAX_CAT_INPUTS)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "1..%d inputs, not %d", IXJ_MAX_CAT_INPUTS, num_srcs);
  for (int k = 0; k < num_srcs; k++) s[k] = (ixj_operand){NULL, 0, srcs[k]};
  dispatch_request req = {mode, backend, arch, {op, elem_size, &d, num_srcs, s, NULL, axis, true}, aligned, NULL, false, NULL, 0};
  return ixj__dispatch(ctx, &req, out, err);
}
