/* Windows of huge spaces (emu_huge.h). */
#define _GNU_SOURCE
#include "emu_huge.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "emit_cuda.h"
#include "emu_runtime.h"

#define PAGE 4096u

static const char *const huge_cases[] = {
    "copy\t4\tiota 70001 70003\tiota 70003 70001 | permute 1 0 | rotate 5 9",
    "copy\t8\tiota 4900280003\tiota 70001 70003 | permute 1 0 | slice ::-1 | reshape 4900280003",
    "copy\t2\tiota 70001 70003\tiota 70003 70001 | permute 1 0",
    "copy\t8\tiota 37 41 43 47 53 59\tiota 59 53 47 43 41 37 | permute 5 4 3 2 1 0 | rotate 1 2 3 4 5 6",
    "fill\t4\tiota 70001 70004",
    "fill\t16\tiota 70001 70003",
    "cat\t4\t1\tiota 70001 70003\tiota 70001 70000\tiota 3 70001 | permute 1 0",
    /* 32-bit indices, offsets past 2^31: the tile's offsets stay 64-bit */
    "copy\t4\tiota 64 48\tiota 48 70000000 | slice : 0:64 | permute 1 0",
    "copy\t4\tiota 64 48\tiota 48 70000000 | slice : 0:64 | permute 1 0 | rotate 1 1",
};
#define NARROW_FROM 7 /* the cases from here on have 32-bit indices */

int ixj__emu_add_huge(emu_case **cases, int *n, char *why, size_t why_size) {
  int count = (int)(sizeof huge_cases / sizeof *huge_cases);
  emu_case *grown = realloc(*cases, (size_t)(*n + count) * sizeof *grown);
  if (!grown) return -1;
  *cases = grown;
  for (int k = 0; k < count; k++) {
    emu_case *c = &grown[*n];
    if (ixj__emu_parse_case(huge_cases[k], 0, c, why, why_size)) return -1;
    c->huge = k < NARROW_FROM ? 64 : 32; /* the index width it must be planned with */
    (*n)++;
  }
  return 0;
}

/* A NORESERVE mapping of a whole view: only touched pages cost memory. */
typedef struct sparse {
  unsigned char *base;
  size_t size;
  int tag; /* sources: the tag's operand number; 0 for the destination */
  size_t elem_size;
} sparse;

static sparse srcs[EMU_MAX_OPS];
static int num_srcs;
static struct sigaction chained;

static void tag_of(int operand, uint64_t off, size_t e, unsigned char *out) {
  uint64_t h[2] = {off * 0x9E3779B97F4A7C15u + (uint64_t)operand * 0xC2B2AE3D27D4EB4Fu, 0};
  h[0] ^= h[0] >> 29;
  h[0] *= 0xBF58476D1CE4E5B9u;
  h[0] ^= h[0] >> 32;
  h[1] = h[0] * 0x94D049BB133111EBu + off;
  memcpy(out, h, e);
  out[0] |= 1; /* never zero: an untouched destination element is */
}

/* A read of a source page not yet filled: fill it with the tags, read-only. */
static void on_fault(int sig, siginfo_t *si, void *uc) {
  uintptr_t a = (uintptr_t)si->si_addr;
  for (int k = 0; k < num_srcs; k++) {
    sparse *s = &srcs[k];
    if (a < (uintptr_t)s->base || a >= (uintptr_t)s->base + s->size) continue;
    unsigned char *page = (unsigned char *)(a & ~(uintptr_t)(PAGE - 1));
    if (mprotect(page, PAGE, PROT_READ | PROT_WRITE)) break;
    uint64_t first = (uint64_t)(page - s->base) / s->elem_size;
    for (size_t b = 0; b < PAGE; b += s->elem_size) tag_of(s->tag, first + b / s->elem_size, s->elem_size, page + b);
    mprotect(page, PAGE, PROT_READ);
    return;
  }
  chained.sa_sigaction(sig, si, uc); /* a real fault: the test's crash report */
}

static int map_sparse(sparse *s, size_t size, int prot) {
  s->size = (size + PAGE - 1) / PAGE * PAGE;
  s->base = mmap(NULL, s->size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return s->base == MAP_FAILED ? -1 : 0;
}

/* Units [b, e): points for elementwise plans, tiles for tiled ones. */
static uint64_t points_in(const ixj_plan *p, uint64_t b, uint64_t e) {
  if (p->strategy != PLAN_TILED) return e - b;
  int r = p->rank, T = p->tile;
  uint64_t nb = (uint64_t)(p->shape[r - 2] + T - 1) / (uint64_t)T, na = (uint64_t)(p->shape[r - 1] + T - 1) / (uint64_t)T;
  uint64_t total = 0;
  for (uint64_t t = b; t < e; t++) {
    uint64_t ta = t % na, tb = t / na % nb;
    uint64_t ea = (uint64_t)p->shape[r - 1] - ta * (uint64_t)T, eb = (uint64_t)p->shape[r - 2] - tb * (uint64_t)T;
    total += (ea < (uint64_t)T ? ea : (uint64_t)T) * (eb < (uint64_t)T ? eb : (uint64_t)T);
  }
  return total;
}

/* The expected bytes of the destination element at offset off; -1 when the
 * destination is not row-major there. */
static int expected(const emu_case *c, uint64_t off, unsigned char *want) {
  int rank = ixj_ixfun_rank(c->f[0]);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK], at;
  ixj_ixfun_shape(c->f[0], shape);
  uint64_t x = off;
  for (int k = rank - 1; k >= 0; k--) {
    idx[k] = (int64_t)(x % (uint64_t)shape[k]);
    x /= (uint64_t)shape[k];
  }
  if (x || ixj_ixfun_index(c->f[0], rank, idx, &at, NULL) != IXJ_OK || (uint64_t)at != off) return -1;
  if (c->op == IXJ_OP_FILL) {
    memcpy(want, c->value, c->elem_size);
    return 0;
  }
  int k = 0;
  if (c->op == IXJ_OP_CAT) /* the input holding the axis coordinate */
    for (int64_t ext[IXJ_MAX_RANK];; k++) {
      ixj_ixfun_shape(c->f[1 + k], ext);
      if (idx[c->axis] < ext[c->axis]) break;
      idx[c->axis] -= ext[c->axis];
    }
  if (ixj_ixfun_index(c->f[1 + k], rank, idx, &at, NULL) != IXJ_OK) return -1;
  tag_of(1 + k, (uint64_t)at, c->elem_size, want);
  return 0;
}

/* One window: 0, 1 (wrong bytes or count), 2 (the launch failed). */
static int window(emu_case *c, const ixj_plan *p, const emu_kernel *k, uint64_t b, uint64_t e) {
  sparse dst = {0};
  int result = 2;
  size_t es = c->elem_size;
  if (map_sparse(&dst, c->span[0], PROT_READ | PROT_WRITE)) goto done;
  num_srcs = 0;
  for (int s = 0; s < c->num_srcs; s++, num_srcs++) {
    srcs[s] = (sparse){.tag = 1 + s, .elem_size = es};
    if (map_sparse(&srcs[s], c->span[1 + s], PROT_NONE)) goto done;
  }
  const void *ptrs[EMU_MAX_OPS] = {dst.base};
  for (int s = 0; s < c->num_srcs; s++) ptrs[1 + s] = srcs[s].base;
  unsigned char args[CUDA_ARGS_MAX_BYTES];
  size_t used;
  ixj_error err;
  char why[512];
  if (ixj__cuda_pack_args(p, ptrs, c->op == IXJ_OP_FILL ? c->value : NULL, NULL, args, sizeof args, &used, &err) != IXJ_OK) {
    printf("FAIL %s: pack: %s\n", c->text, err.message);
    goto done;
  }
  emu_config cfg = {c->seed + b, c->chunk_blocks, k->launch_bound};
  if (ixj__emu_run_units(p, k->fn, args, &cfg, b, e, why, sizeof why)) {
    printf("FAIL %s: units [%llu, %llu): %s\n", c->text, (unsigned long long)b, (unsigned long long)e, why);
    goto done;
  }
  /* every destination page the window touched, element by element */
  size_t pages = dst.size / PAGE;
  unsigned char *resident = malloc(pages);
  if (!resident || mincore(dst.base, dst.size, resident)) {
    free(resident);
    goto done;
  }
  uint64_t written = 0, want_count = points_in(p, b, e);
  result = 0;
  for (size_t pg = 0; pg < pages && result == 0; pg++) {
    if (!(resident[pg] & 1)) continue;
    for (size_t at = pg * PAGE; at < (pg + 1) * PAGE && at + es <= c->span[0] && result == 0; at += es) {
      const unsigned char *got = dst.base + at;
      unsigned char want[16], zero[16] = {0};
      if (!memcmp(got, zero, es)) continue;
      written++;
      if (expected(c, at / es, want) || memcmp(got, want, es)) {
        printf("FAIL %s: units [%llu, %llu): element %llu holds the wrong bytes\n", c->text, (unsigned long long)b,
               (unsigned long long)e, (unsigned long long)(at / es));
        result = 1;
      }
    }
  }
  free(resident);
  if (result == 0 && written != want_count) {
    printf("FAIL %s: units [%llu, %llu) wrote %llu elements, not %llu\n", c->text, (unsigned long long)b,
           (unsigned long long)e, (unsigned long long)written, (unsigned long long)want_count);
    result = 1;
  }
done:
  if (dst.base && dst.base != MAP_FAILED) munmap(dst.base, dst.size);
  for (int s = 0; s < num_srcs; s++)
    if (srcs[s].base && srcs[s].base != MAP_FAILED) munmap(srcs[s].base, srcs[s].size);
  num_srcs = 0;
  if (result == 2 && !dst.base) printf("FAIL %s: cannot map the views\n", c->text);
  return result;
}

int ixj__emu_run_huge(emu_case *c, const emu_kernel *kernels, emu_buffer *buf) {
  memset(buf, 0, EMU_MAX_OPS * sizeof *buf);
  ixj_plan *p = malloc(sizeof *p);
  uintptr_t addr[EMU_MAX_OPS] = {0}; /* page-aligned, as the sparse mappings are */
  ixj_error err;
  if (!p || ixj__emu_plan(c, addr, p, &err) != IXJ_OK || c->kernel < 0) {
    printf("FAIL %s: no kernel to run\n", c->text);
    free(p);
    return 2;
  }
  if (p->index_bits != c->huge) {
    printf("FAIL %s: planned with %d-bit indices\n", c->text, p->index_bits);
    free(p);
    return 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigaction(SIGSEGV, &sa, &chained);
  /* windows of a few blocks, each starting on a block as every chunk does */
  unsigned blocks, bx, by;
  ixj__cuda_launch_shape(p, 1, &blocks, &bx, &by);
  uint64_t per_block = p->strategy == PLAN_TILED ? 1 : (uint64_t)bx * CUDA_UNITS_PER_THREAD * (uint64_t)p->vector_elems;
  uint64_t w = 4 * per_block, units = p->work_units;
  uint64_t starts[3] = {0, 0, 0};
  int windows = 1; /* a small space: one window, the whole of it */
  if (units > 2 * w) {
    windows = 3;
    starts[1] = (units / 2 - w / 3) / per_block * per_block;
    starts[2] = (units - w) / per_block * per_block;
  }
  int result = 0;
  for (int k = 0; k < windows && result == 0; k++) {
    /* the last window ends where the space does */
    uint64_t e = k == windows - 1 ? units : starts[k] + w;
    result = window(c, p, &kernels[c->kernel], starts[k], e);
  }
  sigaction(SIGSEGV, &chained, NULL);
  free(p);
  return result;
}
