/* Internal: LLVM IR text for a plan, from the templates in templates/llvm/.
 * The IR contains no hardware division: every div/mod is a sequence chosen by
 * gen/divmod for the bound the plan proves. */
#ifndef IXJIT_GEN_EMIT_LLVM_H
#define IXJIT_GEN_EMIT_LLVM_H

#include "plan.h"

/* The kernel's C signature: every emitted function has this type. */
typedef void (*ixj_kernel_fn)(const void *const *ptrs, const int64_t *offs, int64_t begin, int64_t end);

/* malloc'ed IR text defining `name` (NULL and an error when out of memory or
 * for a plan without a kernel: EMPTY, MEMCPY). */
ixj_status ixj__emit_llvm(const ixj_plan *p, const char *name, const char *signature, char **out, ixj_error *err);

#endif
