/* One case of the emulator test: an operation from the JIT corpus, planned for
 * the GPU at the addresses its buffers will have, its kernel, and its run
 * against the reference interpreter. */
#ifndef IXJIT_TESTS_CUDA_EMU_CASE_H
#define IXJIT_TESTS_CUDA_EMU_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "emit_cuda.h"
#include "emu_buffer.h"
#include "emu_build.h"
#include "ixjit/ixjit.h"
#include "plan.h"

#define EMU_MAX_OPS (1 + IXJ_MAX_CAT_INPUTS)

typedef struct emu_case {
  int id;                       /* its index in the run */
  int line;                     /* in its corpus file (0: built in) */
  char *text;                   /* the corpus line, for messages */
  ixj_op_kind op;
  size_t elem_size;
  int axis, num_srcs, num_ops;  /* num_ops: buffers (dst and sources) */
  ixj_ixfun *f[EMU_MAX_OPS];    /* dst, then the sources */
  size_t span[EMU_MAX_OPS];     /* bytes each view reaches */
  size_t misalign[EMU_MAX_OPS]; /* its start past a 16-byte boundary */
  unsigned char value[16];      /* a fill's element */
  uint64_t seed, chunk_blocks;
  int numpy;
  int huge;                     /* a built-in huge case: the index width it must be planned with */
  size_t shift_src;             /* self-test: the source moves this far after planning */
  cuda_division division;       /* ixjit's, or a measurement baseline's (NVRTC's /, runtime magic) */
  cuda_divisors divisors;       /* CUDA_DIV_RUNTIME: what the kernel reads, after ixj__emu_prepare */
  /* after ixj__emu_prepare */
  char *signature;
  int kernel;                   /* index in the kernel table; -1: no kernel */
  plan_strategy strategy;
  int vector_elems, index_bits;
} emu_case;

/* One corpus line (tab-separated, see gen_jit_cases.py). 0, or -1 with why. */
int ixj__emu_parse_case(const char *line, int lineno, emu_case *c, char *why, size_t why_size);
/* The corpus, or `sample` lines spread over it (0: all). */
int ixj__emu_read_cases(const char *path, int sample, emu_case **cases, int *n, char *why, size_t why_size);
/* The GPU plan of c with its buffers at addr[] (the destination first). */
ixj_status ixj__emu_plan(const emu_case *c, const uintptr_t *addr, ixj_plan *p, ixj_error *err);
/* Plans and emits every case; *kernels gets one per distinct signature and
 * division style. */
int ixj__emu_prepare(emu_case *cases, int n, emu_kernel **kernels, int *nkernels, char *why, size_t why_size);
/* Runs one case (buffers in buf, for the crash handler): 0 passed, 1 the
 * bytes differ, 2 the launch failed; the reason printed. */
int ixj__emu_run_case(emu_case *c, const emu_kernel *kernels, emu_buffer *buf);
/* What parsing and preparing c allocated. */
void ixj__emu_case_dispose(emu_case *c);
/* Cases marked numpy leave their buffers in dir for numpy_oracle.py. */
void ixj__emu_numpy_dir(const char *dir);

#endif
