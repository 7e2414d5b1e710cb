/* Peer runner for `ixjit bench`: oneDNN's JIT reorder (Debian libdnnl-dev)
 * doing a copy between the same strided layouts as ixjit, explicit strides on
 * both memory descriptors. The line protocol is described in
 * tools/bench_peers.c. oneDNN runs on OpenMP here: the thread count is set
 * with omp_set_num_threads, found at run time in the libgomp that libdnnl
 * already loaded. A reorder primitive splits its work for the thread count it
 * was created under (jit:uni balances the kernel against dnnl_get_max_threads()
 * when its descriptor is made) and keeps that split whatever the count at
 * execution, so each thread count a case runs at gets its own primitive,
 * created with that count set. */
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_OPERANDS 66
#define MAX_THREAD_COUNTS 8

typedef struct operand {
  size_t bytes;
  long long offset;
  int rank;
  dnnl_dims_t shape, strides;
} operand;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static void (*set_threads)(int);
static dnnl_memory_desc_t md_src, md_dst;
/* The case's primitives, one per thread count it was created for; num_prims
 * is 0 until a case is prepared. */
static dnnl_primitive_t prims[MAX_THREAD_COUNTS];
static int prim_threads[MAX_THREAD_COUNTS], num_prims;
static dnnl_memory_t mem_src, mem_dst;
static void *buf_src, *buf_dst;

static void release(void) {
  for (int k = 0; k < num_prims; k++) dnnl_primitive_destroy(prims[k]);
  num_prims = 0;
  if (mem_src) dnnl_memory_destroy(mem_src);
  if (mem_dst) dnnl_memory_destroy(mem_dst);
  free(buf_src);
  free(buf_dst);
  mem_src = mem_dst = NULL;
  buf_src = buf_dst = NULL;
}

/* Like the bench's own buffers (tools/bench_pages.c): from 4 MiB on, 2 MiB
 * aligned and advised onto huge pages when the bench says IXJIT_BENCH_PAGES=huge. */
static void *buffer(size_t bytes) {
  const char *pages = getenv("IXJIT_BENCH_PAGES");
  size_t huge = (size_t)2 << 20, from = (size_t)4 << 20;
  if (!pages || strcmp(pages, "huge") || bytes < from) return malloc(bytes ? bytes : 1);
  size_t n = (bytes + huge - 1) / huge * huge;
  void *p = aligned_alloc(huge, n);
  if (p) (void)madvise(p, n, MADV_HUGEPAGE);
  return p;
}

/* The primitive for `threads` threads (0: whatever OpenMP's default is),
 * created with that count set the first time it is asked for; NULL with *why
 * set when oneDNN refuses or MAX_THREAD_COUNTS are taken. */
static dnnl_primitive_t primitive(int threads, const char **why) {
  for (int k = 0; k < num_prims; k++)
    if (prim_threads[k] == threads) return prims[k];
  *why = "more thread counts than the runner keeps primitives for";
  if (num_prims == MAX_THREAD_COUNTS) return NULL;
  if (threads > 0 && set_threads) set_threads(threads);
  dnnl_primitive_desc_t pd;
  *why = "no reorder for this pair of layouts";
  if (dnnl_reorder_primitive_desc_create(&pd, &md_src, engine, &md_dst, engine, NULL) != dnnl_success) return NULL;
  dnnl_primitive_t prim;
  dnnl_status_t st = dnnl_primitive_create(&prim, pd);
  dnnl_primitive_desc_destroy(pd);
  *why = "dnnl_primitive_create failed";
  if (st != dnnl_success) return NULL;
  prims[num_prims] = prim;
  prim_threads[num_prims++] = threads;
  return prim;
}

/* NULL when oneDNN can take the case, else why not. */
static const char *prepare(const char *op, int elem, int n, operand *ops) {
  if (strcmp(op, "copy")) return "the oneDNN peer runs copies (reorders) only";
  if (n != 2) return "a copy has two operands";
  dnnl_data_type_t dt = elem == 1 ? dnnl_u8 : elem == 2 ? dnnl_bf16 : elem == 4 ? dnnl_f32 : dnnl_data_type_undef;
  if (dt == dnnl_data_type_undef) return "oneDNN 2.x has no 8- or 16-byte data type";
  if (ops[0].rank > DNNL_MAX_NDIMS) return "more dims than oneDNN takes";
  if (ops[0].rank == 0) return "no dims";
  dnnl_memory_desc_t md[2];
  for (int k = 0; k < 2; k++) {
    for (int d = 0; d < ops[k].rank; d++)
      if (ops[k].strides[d] <= 0) return "oneDNN strides must be positive (no reversed or broadcast dims)";
    if (dnnl_memory_desc_init_by_strides(&md[k], ops[k].rank, ops[k].shape, dt, ops[k].strides) != dnnl_success)
      return "dnnl_memory_desc_init_by_strides refused the layout";
  }
  buf_dst = buffer(ops[0].bytes);
  buf_src = buffer(ops[1].bytes);
  if (!buf_dst || !buf_src) return "out of memory";
  memset(buf_dst, 0, ops[0].bytes);
  memset(buf_src, 1, ops[1].bytes);
  md_dst = md[0];
  md_src = md[1];
  if (dnnl_memory_create(&mem_dst, &md[0], engine, (char *)buf_dst + ops[0].offset * elem) != dnnl_success ||
      dnnl_memory_create(&mem_src, &md[1], engine, (char *)buf_src + ops[1].offset * elem) != dnnl_success)
    return "dnnl_memory_create failed";
  const char *why = NULL;
  return primitive(0, &why) ? NULL : why;
}

static int execute(dnnl_primitive_t prim) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, mem_src}, {DNNL_ARG_TO, mem_dst}};
  return dnnl_primitive_execute(prim, stream, 2, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
}

int main(void) {
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
      dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
    puts("unavailable oneDNN could not create a CPU engine");
    return 0;
  }
  set_threads = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  const dnnl_version_t *v = dnnl_version();
  printf("ready %d.%d.%d any\n", v->major, v->minor, v->patch);
  fflush(stdout);
  char line[4096], op[16] = "";
  int elem = 0, n = 0, want = 0;
  operand ops[MAX_OPERANDS];
  while (fgets(line, sizeof line, stdin)) {
    if (!strncmp(line, "case ", 5)) {
      int axis, nsrc;
      if (sscanf(line + 5, "%15s %d %d %d", op, &elem, &axis, &nsrc) != 4) nsrc = 0;
      n = 0;
      want = nsrc + 1;
    } else if (!strncmp(line, "operand ", 8) && n < MAX_OPERANDS) {
      operand *o = &ops[n++];
      char *s = line + 8, *end;
      o->bytes = strtoull(s, &end, 10);
      o->offset = strtoll(end, &end, 10);
      o->rank = (int)strtol(end, &end, 10);
      if (o->rank > DNNL_MAX_NDIMS) continue;
      for (int d = 0; d < o->rank; d++) o->shape[d] = strtoll(end, &end, 10);
      for (int d = 0; d < o->rank; d++) o->strides[d] = strtoll(end, &end, 10);
    } else if (!strncmp(line, "go", 2)) {
      release();
      const char *why = n == want ? prepare(op, elem, n, ops) : "malformed case";
      if (!why && !execute(prims[0])) why = "the reorder failed";
      if (why) {
        release();
        printf("cannot %s\n", why);
      } else {
        puts("ok");
      }
    } else if (!strncmp(line, "run ", 4)) {
      int threads = 1;
      long long iterations = 1;
      sscanf(line + 4, "%d %lld", &threads, &iterations);
      const char *why = "no case is prepared";
      dnnl_primitive_t prim = num_prims ? primitive(threads, &why) : NULL;
      if (prim && set_threads) set_threads(threads);
      double t0 = now_s();
      int ok = prim != NULL;
      if (ok) why = "the reorder failed";
      for (long long k = 0; ok && k < iterations; k++) ok = execute(prim);
      if (ok) printf("time %.9f\n", now_s() - t0);
      else printf("error %s\n", why);
    } else if (!strncmp(line, "end", 3)) {
      release();
      puts("ok");
    } else if (!strncmp(line, "quit", 4)) {
      break;
    }
    fflush(stdout);
  }
  release();
  dnnl_stream_destroy(stream);
  dnnl_engine_destroy(engine);
  return 0;
}
