/* Internal: the CPU JIT backend (LLVM ORC LLJIT through the LLVM-C API). */
#ifndef IXJIT_RUNTIME_JIT_LLVM_H
#define IXJIT_RUNTIME_JIT_LLVM_H

#include <stdbool.h>

#include "emit_llvm.h"

typedef struct jit_llvm jit_llvm;

/* A CPU other than the host's (`ixjit warm --target cpu:NAME[+FEATURES]`):
 * kernels are compiled for it and written to the disk cache, never loaded
 * here. Its target string names its CPU and features as the host's does, so
 * an entry is loaded only on a host whose CPU name and enabled features are
 * exactly these. */
typedef struct jit_cpu {
  char cpu[48];     /* the LLVM CPU name, "znver3" */
  char *features;   /* the feature list the target machine gets: every feature the host's LLVM knows, + or - */
  char target[160]; /* "cpu:NAME:HASH" (the hash of the enabled features); "cpu:NAME:llvm-defaults" without a list */
  int vector_bytes; /* 64 with avx512f and evex512, else 32 */
  int asm_regs;     /* the vector registers a transpose block's inline-asm shuffles may use (ixj__jit_asm_registers) */
  int zen;          /* plan_request.cpu_zen for this CPU (ixj__jit_llvm_zen) */
  bool host;
} jit_cpu;

ixj_status ixj__jit_llvm_create(jit_llvm **out, ixj_error *err);
void ixj__jit_llvm_destroy(jit_llvm *jit);
/* "cpu:NAME:HASH-OF-FEATURES", part of every CPU signature. */
const char *ixj__jit_llvm_target(const jit_llvm *jit);
/* The widest vector register the host's features allow, in bytes: 64 with
 * AVX-512 (avx512f and evex512), else 32. Covered by the target string (its
 * features hash), so it never changes a signature's meaning. */
int ixj__jit_llvm_vector_bytes(const jit_llvm *jit);
/* The vector registers a transpose block's shuffle network may use as one
 * inline-asm statement (gen/emit_llvm.c), from the host's features: 32 with
 * AVX-512BW and VL (byte and word unpacks on zmm, registers 16-31 at every
 * width), 16 with AVX2, else 0 (the shuffles stay IR). Covered by the target
 * string like the vector width. */
int ixj__jit_llvm_asm_registers(const jit_llvm *jit);
/* Whether the plan takes AMD Zen's rules (plan_request.cpu_zen, gen/plan.h),
 * by the CPU's name: 1 on AMD's Zen cores ("znver*"), else 0. Covered by the
 * target string, which names the CPU. */
int ixj__jit_llvm_zen(const jit_llvm *jit);
/* "LLVM 19.1.7": the toolchain, part of every disk-cache key. */
const char *ixj__jit_llvm_toolchain(const jit_llvm *jit);
/* Optimizes (the kernels' own pass pipeline, codegen O2, host CPU and
 * features: jit_llvm.c) and compiles `ir` to object code on the calling
 * thread: *object is malloc'ed. Safe from many threads at once. */
ixj_status ixj__jit_llvm_object(jit_llvm *jit, const char *ir, void **object, size_t *size, ixj_error *err);
/* The CPU of spec "NAME" (LLVM's own features for it) or "NAME+F,F,..." (F
 * a feature name, or +name, -name; the list is the whole set: every feature
 * it leaves out is off, but the x86-64 baseline), checked (IXJ_ERR_INVALID_ARGUMENT: not x86-64, an
 * unknown CPU or feature; IXJ_ERR_LIMIT: too many). *out is the JIT's (valid
 * until ixj__jit_llvm_destroy), or NULL when the spec is the host itself.
 * Thread-safe. */
ixj_status ixj__jit_llvm_cpu(jit_llvm *jit, const char *spec, const jit_cpu **out, ixj_error *err);
/* The other CPU whose target string is `target` (asked for before by
 * ixj__jit_llvm_cpu), or NULL (the host's, or unknown). */
const jit_cpu *ixj__jit_llvm_cpu_named(jit_llvm *jit, const char *target);
/* As ixj__jit_llvm_object, for cpu (NULL: the host). */
ixj_status ixj__jit_llvm_object_for(jit_llvm *jit, const jit_cpu *cpu, const char *ir, void **object, size_t *size,
                                    ixj_error *err);

/* Where one compile's time went, in ms of the calling thread's CPU time (so
 * other processes' load does not count): what tools/compile_phases.c
 * reports. Each phase is added to, so one struct can sum several calls. */
typedef struct jit_phases {
  double machine;        /* taking a target machine for the CPU (and its context) */
  double parse, verify;  /* the IR text to a module, the verifier */
  double passes;         /* the kernels' pass pipeline */
  double codegen;        /* instruction selection to object code */
  double add, lookup;    /* ORC: adding the object; the lookup, which materializes it (links, relocates, maps) */
} jit_phases;

/* ixj__jit_llvm_object_for and ixj__jit_llvm_link, timing each phase into
 * *phases (not NULL). */
ixj_status ixj__jit_llvm_object_timed(jit_llvm *jit, const jit_cpu *cpu, const char *ir, void **object, size_t *size,
                                      jit_phases *phases, ixj_error *err);
/* The host's enabled features, sorted and comma-separated: what its target
 * string's hash is taken of. */
const char *ixj__jit_llvm_host_features(const jit_llvm *jit);
/* "cpu:NAME:HASH": the target string of a CPU and its enabled features (the
 * form above), into out. */
void ixj__cpu_target_name(const char *cpu, const char *enabled, char *out, size_t size);
/* The host's CPU name and enabled features (as above), without a JIT: both
 * malloc'ed; IXJ_ERR_NO_MEMORY leaves them NULL. */
ixj_status ixj__cpu_host(char **name, char **enabled);
/* Links object code into the JIT (under a lock) and returns the address of
 * `name`. Each object must be linked once per JIT. */
ixj_status ixj__jit_llvm_link(jit_llvm *jit, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                         ixj_error *err);
ixj_status ixj__jit_llvm_link_timed(jit_llvm *jit, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                                    jit_phases *phases, ixj_error *err);
/* Removes a kernel linked by ixj__jit_llvm_link: its code, data and symbol
 * leave the JIT (its ORC resource tracker), and `name` may be linked again.
 * No thread may be running it. False when fn was not linked here (or LLVM
 * failed to remove it: then it stays). */
bool ixj__jit_llvm_unlink(jit_llvm *jit, ixj_kernel_fn fn);

#endif
