/* Internal: the CPU JIT backend (LLVM ORC LLJIT through the LLVM-C API). */
#ifndef IXJIT_RUNTIME_JIT_LLVM_H
#define IXJIT_RUNTIME_JIT_LLVM_H

#include "emit_llvm.h"

typedef struct jit_llvm jit_llvm;

ixj_status ixj__jit_llvm_create(jit_llvm **out, ixj_error *err);
void ixj__jit_llvm_destroy(jit_llvm *jit);
/* "cpu:NAME:HASH-OF-FEATURES", part of every CPU signature. */
const char *ixj__jit_llvm_target(const jit_llvm *jit);
/* The widest vector register the host's features allow, in bytes: 64 with
 * AVX-512 (avx512f and evex512), else 32. Covered by the target string (its
 * features hash), so it never changes a signature's meaning. */
int ixj__jit_llvm_vector_bytes(const jit_llvm *jit);
/* "LLVM 19.1.7": the toolchain, part of every disk-cache key. */
const char *ixj__jit_llvm_toolchain(const jit_llvm *jit);
/* Optimizes (O3, host CPU and features) and compiles `ir` to object code on
 * the calling thread: *object is malloc'ed. Safe from many threads at once. */
ixj_status ixj__jit_llvm_object(jit_llvm *jit, const char *ir, void **object, size_t *size, ixj_error *err);
/* Links object code into the JIT (under a lock) and returns the address of
 * `name`. Each object must be linked once per JIT. */
ixj_status ixj__jit_llvm_link(jit_llvm *jit, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                         ixj_error *err);

#endif
