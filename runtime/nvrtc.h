/* Internal: NVRTC, loaded at run time with dlopen (never linked), so the
 * library works on machines without CUDA. NVRTC needs no GPU: CUDA kernels
 * compile (and warm a cache) on CPU-only machines. */
#ifndef IXJIT_RUNTIME_NVRTC_H
#define IXJIT_RUNTIME_NVRTC_H

#include <stdbool.h>
#include <stddef.h>

#include "ixjit/status.h"

/* Compiles CUDA C. arch "sm_XY" gives a CUBIN for exactly that GPU,
 * "compute_XY" gives PTX. *binary is malloc'ed (NUL-terminated for PTX). At
 * most a few compiles run at once (each holds a lot of memory). */
ixj_status ixj__nvrtc_compile(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err);
/* The same for sm_XY, also returning the PTX NVRTC made on the way
 * (*ptx malloc'ed, NUL-terminated). */
ixj_status ixj__nvrtc_compile_with_ptx(const char *source, const char *arch, void **cubin, size_t *size, char **ptx,
                                  ixj_error *err);
/* "NVRTC 13.0", or an error when NVRTC cannot be loaded. */
ixj_status ixj__nvrtc_version(char *buf, size_t size, ixj_error *err);
/* Whether NVRTC can compile for sm_XY (cc = 10*X + Y). */
bool ixj__nvrtc_supports(int cc);
/* The newest architecture NVRTC supports (0 when it cannot be loaded). */
int ixj__nvrtc_newest(void);

#endif
