/* The emulator's runner (emu_runtime.h). Each block's threads are fibers on
 * stacks of their own; a round runs every thread that is not waiting, in a
 * shuffled order, until it reaches a barrier or returns. A round ends when
 * every thread has; then all of them must wait at the same barrier (or all
 * have returned), else the block diverged. This file is built without
 * AddressSanitizer: its stack switches are invisible to ASan. */
#define _GNU_SOURCE
#include "emu_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "emit_cuda.h"

#define STACK_BYTES (128 << 10)
#define MAX_THREADS 1024
#define SHARED_BYTES (48 << 10) /* CUDA's limit for static shared memory per block */

enum { RUNNABLE, AT_BARRIER, EXITED };

typedef struct fiber {
  ucontext_t uc;
  ixj_emu_thread_view view;
  int state, site;
  size_t shared_used; /* bytes of the shared window this thread's declarations took */
} fiber;

const ixj_emu_thread_view *ixj_emu_current;

static fiber *fibers;
static unsigned char *stacks;
static unsigned char *shared_top; /* the shared window's end: a guard page follows */
static ucontext_t scheduler;
static fiber *running;
static ixj_emu_kernel_fn launch_fn;
static const void *launch_args;
static long long launch_begin, launch_end;
static char failure[256]; /* the first failure of the launch */
static uint64_t rng_state;

static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void shuffle(unsigned *v, unsigned n) {
  for (unsigned k = n; k > 1; k--) {
    unsigned j = (unsigned)(next_random() % k), t = v[k - 1];
    v[k - 1] = v[j];
    v[j] = t;
  }
}

static void fail(const char *what) {
  if (!failure[0]) {
    const ixj_emu_thread_view *v = running ? &running->view : NULL;
    if (v)
      snprintf(failure, sizeof failure, "%s (block %u, thread %u,%u)", what, v->block_idx.x, v->thread_idx.x,
               v->thread_idx.y);
    else
      snprintf(failure, sizeof failure, "%s", what);
  }
}

static int setup(void) {
  if (fibers) return 0;
  fibers = calloc(MAX_THREADS, sizeof *fibers);
  stacks = mmap(NULL, (size_t)MAX_THREADS * STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
  /* the shared window ends at an inaccessible page: a store past a tile faults */
  unsigned char *sh = mmap(NULL, SHARED_BYTES + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!fibers || stacks == MAP_FAILED || sh == MAP_FAILED || mprotect(sh + SHARED_BYTES, 4096, PROT_NONE)) return -1;
  shared_top = sh + SHARED_BYTES;
  return 0;
}

void ixj_emu_syncthreads(int site) {
  running->state = AT_BARRIER;
  running->site = site;
  swapcontext(&running->uc, &scheduler);
}

/* Declarations are placed downwards from the window's end, so the first
 * variable's last byte touches the guard page. */
void *ixj_emu_shared_alloc(size_t size, size_t align) {
  size_t at = running->shared_used + size;
  at = (at + align - 1) / align * align;
  if (at > SHARED_BYTES) {
    fail("more than 48 KiB of static shared memory");
    at = size; /* keep going on valid memory; the launch fails anyway */
  }
  running->shared_used = at;
  return shared_top - at;
}

static void fiber_entry(void) {
  launch_fn(launch_args, launch_begin, launch_end);
  running->state = EXITED; /* uc_link returns to the scheduler */
}

/* Runs one block to completion; 0, or -1 after a failure. */
static int run_block(unsigned bx, unsigned nthreads, unsigned block_x, unsigned grid_x) {
  static unsigned order[MAX_THREADS];
  for (size_t b = 0; b < SHARED_BYTES; b += 8) {
    uint64_t g = next_random();
    memcpy(shared_top - SHARED_BYTES + b, &g, 8);
  }
  for (unsigned t = 0; t < nthreads; t++) {
    fiber *f = &fibers[t];
    f->view = (ixj_emu_thread_view){{t % block_x, t / block_x, 0}, {bx, 0, 0}, {block_x, nthreads / block_x, 1}, {grid_x, 1, 1}};
    f->state = RUNNABLE;
    f->shared_used = 0;
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = stacks + (size_t)t * STACK_BYTES;
    f->uc.uc_stack.ss_size = STACK_BYTES;
    f->uc.uc_link = &scheduler;
    makecontext(&f->uc, fiber_entry, 0);
    order[t] = t;
  }
  for (;;) {
    shuffle(order, nthreads);
    for (unsigned k = 0; k < nthreads; k++) {
      fiber *f = &fibers[order[k]];
      if (f->state != RUNNABLE) continue;
      running = f;
      ixj_emu_current = &f->view;
      swapcontext(&scheduler, &f->uc);
    }
    running = NULL;
    ixj_emu_current = NULL;
    unsigned waiting = 0, exited = 0;
    int site = -1, same = 1;
    for (unsigned t = 0; t < nthreads; t++) {
      if (fibers[t].state == EXITED) {
        exited++;
        continue;
      }
      waiting++;
      if (site >= 0 && fibers[t].site != site) same = 0;
      site = fibers[t].site;
    }
    if (failure[0]) return -1;
    if (!waiting) return 0;
    if (exited || !same) {
      char what[128];
      snprintf(what, sizeof what, "block %u diverged: %u threads at barriers (%s), %u returned", bx, waiting,
               same ? "one barrier" : "different barriers", exited);
      fail(what);
      return -1;
    }
    for (unsigned t = 0; t < nthreads; t++) fibers[t].state = RUNNABLE;
  }
}

int ixj__emu_launch(ixj_emu_kernel_fn fn, const void *args, unsigned blocks, unsigned block_x, unsigned block_y,
                    long long begin, long long end, const emu_config *cfg, char *why, size_t why_size) {
  unsigned nthreads = block_x * block_y;
  failure[0] = 0;
  if (setup()) {
    snprintf(why, why_size, "the emulator could not map its stacks");
    return -1;
  }
  if (nthreads == 0 || nthreads > MAX_THREADS || (cfg->launch_bound && nthreads > cfg->launch_bound)) {
    snprintf(why, why_size, "a block of %u x %u threads (launch bound %u)", block_x, block_y, cfg->launch_bound);
    return -1;
  }
  rng_state = cfg->seed * 0x9E3779B97F4A7C15u + (uint64_t)begin + 1;
  launch_fn = fn;
  launch_args = args;
  launch_begin = begin;
  launch_end = end;
  unsigned *order = malloc((blocks ? blocks : 1) * sizeof *order);
  if (!order) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  for (unsigned b = 0; b < blocks; b++) order[b] = b;
  shuffle(order, blocks);
  int st = 0;
  for (unsigned b = 0; b < blocks && st == 0; b++) st = run_block(order[b], nthreads, block_x, blocks);
  free(order);
  if (st) snprintf(why, why_size, "%s", failure);
  return st;
}

int ixj__emu_run_units(const ixj_plan *p, ixj_emu_kernel_fn fn, const void *args, const emu_config *cfg, uint64_t from,
                       uint64_t to, char *why, size_t why_size) {
  uint64_t per_launch = ixj__cuda_units_per_launch(p, cfg->chunk_blocks);
  for (uint64_t b = from; b < to; b += per_launch) {
    uint64_t e = b + per_launch < to ? b + per_launch : to;
    unsigned blocks, bx, by;
    ixj__cuda_launch_shape(p, e - b, &blocks, &bx, &by);
    if (ixj__emu_launch(fn, args, blocks, bx, by, (long long)b, (long long)e, cfg, why, why_size)) return -1;
  }
  return 0;
}

int ixj__emu_run_plan(const ixj_plan *p, ixj_emu_kernel_fn fn, const void *args, const emu_config *cfg, char *why,
                      size_t why_size) {
  return ixj__emu_run_units(p, fn, args, cfg, 0, p->work_units, why, why_size);
}

const ixj_emu_thread_view *ixj__emu_running(void) { return running ? &running->view : NULL; }
