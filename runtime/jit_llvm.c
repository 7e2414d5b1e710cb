/* CPU JIT. One LLJIT per context. The C API's LLJIT is not safe for
 * concurrent add+lookup, so each compile runs its passes
 * and codegen to an object file on the calling thread with its own
 * LLVMContext and a TargetMachine no other thread uses meanwhile (taken from
 * an idle pool, given back after), and only linking the object into
 * the JIT is serialized. The object bytes are what a disk cache would store. */
#include "jit_llvm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <xxhash.h>

#include "error.h"
#include "x86_cpus.h"

#define MAX_OTHER_CPUS 32
/* Idle target machines kept for the next compiles, per pool: more
 * than the threads that compile at once (callers in sync mode, the compiler
 * thread, `ixjit warm -j`) only hold memory. */
#define MAX_IDLE_MACHINES 8
/* What every x86-64 CPU has: always on in a feature list given by hand (LLVM
 * aborts on an x86-64 target without 64bit). */
#define X86_64_BASELINE "64bit,cmov,cx8,fxsr,mmx,sse,sse2"

/* A target machine for one CPU and its data layout string. Creating one was
 * 0.2-0.4 ms of every compile, and the first use of its subtarget (the
 * passes' target analysis builds it) about 1 ms more (docs/hot-path.md); a
 * kept machine has its subtarget already. LLVM's target machines are not
 * safe for two threads at once (the subtarget cache is a plain map), so a
 * machine is either idle (in a machine_pool, under its lock) or one
 * compile's. */
typedef struct machine {
  LLVMTargetMachineRef tm;
  const jit_cpu *cpu; /* NULL: the host */
  char *layout;
  struct machine *next;
} machine;

/* Idle machines, most recently used first, under lock. */
typedef struct machine_pool {
  pthread_mutex_t lock;
  machine *idle;
  int num_idle;
} machine_pool;

/* The host's idle machines are the process's, shared by every context: the
 * host's triple, CPU and features are the same in each, so a new context's
 * first compile takes a machine whose subtarget is built instead of paying
 * for a new one (1-2 ms of that compile: docs/hot-path.md, round 15). They
 * live until the process ends. */
static machine_pool host_machines = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

struct jit_llvm {
  LLVMOrcLLJITRef lljit;
  LLVMTargetRef llvm_target; /* the triple's */
  machine_pool other_machines; /* idle machines for the other CPUs (ixj__jit_llvm_cpu) */
  pthread_mutex_t link_lock;
  char *triple, *cpu, *features;
  char *enabled; /* the host's enabled features, canonical (canonical_features) */
  char target[160];
  char toolchain[32];
  int vector_bytes;
  int asm_regs;
  int zen;
  /* Other CPUs asked for (warming for another machine): added, never
   * removed, so a pointer to one stays valid for the JIT's lifetime. */
  pthread_mutex_t others_lock;
  jit_cpu *others[MAX_OTHER_CPUS];
  int num_others;
  /* Each linked kernel's resource tracker, by address, under link_lock: what
   * ixj__jit_llvm_unlink removes (the memory cache's eviction). */
  struct linked {
    uintptr_t addr;
    LLVMOrcResourceTrackerRef rt;
  } *links;
  size_t num_links, cap_links;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_llvm(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
}

/* Moves an LLVMErrorRef's message into err. */
static ixj_status llvm_fail(ixj_error *err, LLVMErrorRef e, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: %s: %s", what, m);
  LLVMDisposeErrorMessage(m);
  return IXJ_ERR_BACKEND;
}

/* Whether a comma-separated feature list ("+avx2,-avx512f,...") enables `name`. */
static bool has_feature(const char *features, const char *name) {
  size_t n = strlen(name);
  for (const char *p = features; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) /* each "+name" or "-name" */
    if (p[0] == '+' && !strncmp(p + 1, name, n) && (p[1 + n] == ',' || p[1 + n] == '\0')) return true;
  return false;
}

/* plan_request.cpu_zen by the CPU's LLVM name: AMD's Zen cores
 * ("znver1".."znver5") take the plan's Zen rules (gen/plan.h, cpu_zen):
 * measured on Zen 3 and Zen 4 VMs, each where the Intel ones differ. */
static int is_zen(const char *cpu) { return strncmp(cpu, "znver", 5) == 0; }

static int asm_registers(const char *features) {
  if (has_feature(features, "avx512bw") && has_feature(features, "avx512vl")) return 32;
  return has_feature(features, "avx2") ? 16 : 0;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The enabled features of an LLVM feature list ("+avx2,-avx512f,..."), names
 * only, sorted, comma-separated: what a CPU target's hash is taken of, so the
 * order LLVM lists them in never matters and a list written by hand ("cpu:
 * NAME+FEATURES") names the same target as the host's own. malloc'ed; NULL
 * when out of memory. */
static char *canonical_features(const char *features) {
  size_t len = strlen(features), n = 0;
  char *copy = malloc(len + 1), *out = malloc(len + 1);
  const char **names = malloc((len / 2 + 1) * sizeof *names);
  if (!copy || !out || !names) {
    free(copy), free(out), free(names);
    return NULL;
  }
  memcpy(copy, features, len + 1);
  for (char *save = NULL, *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save))
    if (f[0] == '+' && f[1]) names[n++] = f + 1;
  qsort(names, n, sizeof *names, compare_names);
  out[0] = '\0';
  for (size_t k = 0, at = 0; k < n; k++) {
    if (k && !strcmp(names[k], names[k - 1])) continue;
    at += (size_t)sprintf(out + at, at ? ",%s" : "%s", names[k]); /* fits: no longer than the list */
  }
  free(copy);
  free(names);
  return out;
}

void ixj__cpu_target_name(const char *cpu, const char *enabled, char *out, size_t size) {
  snprintf(out, size, "cpu:%s:%016llx", cpu, (unsigned long long)XXH3_64bits(enabled, strlen(enabled)));
}

ixj_status ixj__cpu_host(char **name, char **enabled) {
  char *features = LLVMGetHostCPUFeatures();
  char *cpu = LLVMGetHostCPUName();
  *enabled = canonical_features(features);
  *name = *enabled ? strdup(cpu) : NULL;
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(cpu);
  if (*name) return IXJ_OK;
  free(*enabled);
  *enabled = NULL;
  return IXJ_ERR_NO_MEMORY;
}

ixj_status ixj__jit_llvm_create(jit_llvm **out, ixj_error *err) {
  pthread_once(&init_once, init_llvm);
  jit_llvm *j = calloc(1, sizeof *j);
  if (!j) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_init(&j->link_lock, NULL);
  pthread_mutex_init(&j->others_lock, NULL);
  pthread_mutex_init(&j->other_machines.lock, NULL);
  j->triple = LLVMGetDefaultTargetTriple();
  j->cpu = LLVMGetHostCPUName();
  j->features = LLVMGetHostCPUFeatures();
  if (!(j->enabled = canonical_features(j->features))) {
    ixj__jit_llvm_destroy(j);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &j->llvm_target, &msg)) {
    ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: no target for %s: %s", j->triple, msg);
    LLVMDisposeMessage(msg);
    ixj__jit_llvm_destroy(j);
    return IXJ_ERR_BACKEND;
  }
  ixj__cpu_target_name(j->cpu, j->enabled, j->target, sizeof j->target);
  j->vector_bytes = has_feature(j->features, "avx512f") && has_feature(j->features, "evex512") ? 64 : 32;
  j->asm_regs = asm_registers(j->features);
  j->zen = is_zen(j->cpu);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(j->toolchain, sizeof j->toolchain, "LLVM %u.%u.%u", major, minor, patch);
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&j->lljit, builder);
  if (e) {
    ixj_status st = llvm_fail(err, e, "creating the JIT");
    j->lljit = NULL;
    ixj__jit_llvm_destroy(j);
    return st;
  }
  *out = j;
  return IXJ_OK;
}

static void machine_dispose(machine *m) {
  LLVMDisposeTargetMachine(m->tm);
  LLVMDisposeMessage(m->layout);
  free(m);
}

void ixj__jit_llvm_destroy(jit_llvm *j) {
  if (!j) return;
  for (machine *m = j->other_machines.idle, *next; m; m = next) {
    next = m->next;
    machine_dispose(m);
  }
  pthread_mutex_destroy(&j->other_machines.lock);
  /* Each tracker is removed (its code freed) before it is released: a live
   * tracker's release hands its code to the JITDylib's default tracker, and
   * LLVM 19's ObjectLinkingLayer::handleTransferResources reads the source's
   * allocations through a reference that adding the default tracker's entry
   * can invalidate (its DenseMap grows: with 47, 95, 191... kernels linked):
   * about one teardown in fifty then threw std::length_error and aborted
   * the process (fixed upstream by llvm-project PR 114063, LLVM 20). */
  for (size_t k = 0; k < j->num_links; k++) {
    LLVMConsumeError(LLVMOrcResourceTrackerRemove(j->links[k].rt));
    LLVMOrcReleaseResourceTracker(j->links[k].rt);
  }
  free(j->links);
  if (j->lljit) LLVMOrcDisposeLLJIT(j->lljit);
  LLVMDisposeMessage(j->triple);
  LLVMDisposeMessage(j->cpu);
  LLVMDisposeMessage(j->features);
  free(j->enabled);
  for (int k = 0; k < j->num_others; k++) {
    free(j->others[k]->features);
    free(j->others[k]);
  }
  pthread_mutex_destroy(&j->others_lock);
  pthread_mutex_destroy(&j->link_lock);
  free(j);
}

const char *ixj__jit_llvm_target(const jit_llvm *j) { return j->target; }
const char *ixj__jit_llvm_toolchain(const jit_llvm *j) { return j->toolchain; }
int ixj__jit_llvm_vector_bytes(const jit_llvm *j) { return j->vector_bytes; }
int ixj__jit_llvm_asm_registers(const jit_llvm *j) { return j->asm_regs; }
int ixj__jit_llvm_zen(const jit_llvm *j) { return j->zen; }

/* Whether `name` is one of the feature names of an LLVM feature list. */
static bool knows_feature(const char *features, const char *name, size_t n) {
  for (const char *p = features; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if ((p[0] == '+' || p[0] == '-') && !strncmp(p + 1, name, n) && (p[1 + n] == ',' || p[1 + n] == '\0')) return true;
  return false;
}

/* Whether the list "a,b,c" holds the name of n chars. */
static bool list_has(const char *list, const char *name, size_t n) {
  for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0')) return true;
  return false;
}

static bool known_cpu(const char *name) {
  return bsearch(&name, x86_cpus, sizeof x86_cpus / sizeof *x86_cpus, sizeof *x86_cpus, compare_names) != NULL;
}

/* spec "NAME" or "NAME+F,F,...", checked, into a new jit_cpu (not yet shared). */
static ixj_status make_cpu(const jit_llvm *j, const char *spec, jit_cpu **out, ixj_error *err) {
  const char *plus = strchr(spec, '+');
  size_t n = plus ? (size_t)(plus - spec) : strlen(spec);
  if (strncmp(j->triple, "x86_64", 6))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cpu:%s: warming for another CPU needs an x86-64 host, not %s", spec,
                     j->triple);
  jit_cpu *c = calloc(1, sizeof *c);
  if (!c) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  if (n == 0 || n >= sizeof c->cpu) {
    free(c);
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cpu:%s: a CPU name is needed, such as znver3 or x86-64-v3", spec);
  }
  memcpy(c->cpu, spec, n);
  c->zen = is_zen(c->cpu);
  if (!known_cpu(c->cpu)) {
    ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cpu:%s: LLVM knows no x86-64 CPU '%s' (llc -mcpu=help lists them)", spec,
              c->cpu);
    free(c);
    return IXJ_ERR_INVALID_ARGUMENT;
  }
  if (!plus) { /* the CPU's own features, as LLVM defines them: no host reports this target */
    c->features = strdup("");
    snprintf(c->target, sizeof c->target, "cpu:%s:llvm-defaults", c->cpu);
    c->vector_bytes = 32;
    c->asm_regs = 0; /* features unknown: IR shuffles */
  } else {
    /* every feature the host's LLVM reports is set one way or the other, so
     * the CPU's defaults never add one the list leaves out */
    size_t given_len = strlen(plus + 1), cap = strlen(j->features) + 1, at = 0;
    char *given = malloc(given_len + 2), *all = malloc(cap);
    if (!given || !all) {
      free(given), free(all), free(c);
      return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    }
    given[0] = '\0';
    ixj_status st = IXJ_OK;
    for (const char *p = plus + 1; st == IXJ_OK && *p;) { /* "f", "+f" or "-f", comma-separated */
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      const char *name = *p == '+' || *p == '-' ? p + 1 : p;
      size_t nlen = len - (size_t)(name - p);
      if (!nlen || !knows_feature(j->features, name, nlen))
        st = ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cpu:%s: '%.*s' is not an x86-64 feature LLVM reports", spec,
                       (int)len, p);
      else if (*p != '-')
        at += (size_t)sprintf(given + at, "%s%.*s", at ? "," : "", (int)nlen, name); /* "a,b,c": no longer than the spec */
      p += len + (end != NULL);
    }
    at = 0;
    for (const char *p = j->features; st == IXJ_OK && p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if (len < 2) continue;
      bool on = list_has(given, p + 1, len - 1) || list_has(X86_64_BASELINE, p + 1, len - 1);
      at += (size_t)snprintf(all + at, cap - at, "%s%c%.*s", at ? "," : "", on ? '+' : '-', (int)(len - 1), p + 1);
    }
    free(given);
    char *enabled = st == IXJ_OK ? canonical_features(all) : NULL;
    if (st == IXJ_OK && !enabled) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    if (st != IXJ_OK) {
      free(all), free(c);
      return st;
    }
    c->features = all;
    ixj__cpu_target_name(c->cpu, enabled, c->target, sizeof c->target);
    c->vector_bytes = has_feature(all, "avx512f") && has_feature(all, "evex512") ? 64 : 32;
    c->asm_regs = asm_registers(all);
    free(enabled);
  }
  if (!c->features) {
    free(c);
    return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  }
  c->host = !strcmp(c->target, j->target);
  *out = c;
  return IXJ_OK;
}

ixj_status ixj__jit_llvm_cpu(jit_llvm *j, const char *spec, const jit_cpu **out, ixj_error *err) {
  jit_cpu *c = NULL;
  ixj_status st = make_cpu(j, spec, &c, err);
  if (st != IXJ_OK) return st;
  *out = NULL; /* the host itself: its own target */
  if (!c->host) {
    pthread_mutex_lock(&j->others_lock);
    for (int k = 0; k < j->num_others && !*out; k++)
      if (!strcmp(j->others[k]->target, c->target)) *out = j->others[k]; /* asked for before */
    if (!*out && j->num_others == MAX_OTHER_CPUS)
      st = ixj__fail(err, IXJ_ERR_LIMIT, "cpu:%s: at most %d other CPUs per context", spec, MAX_OTHER_CPUS);
    else if (!*out)
      *out = j->others[j->num_others++] = c, c = NULL; /* the JIT's now */
    pthread_mutex_unlock(&j->others_lock);
  }
  if (c) {
    free(c->features);
    free(c);
  }
  return st;
}

const jit_cpu *ixj__jit_llvm_cpu_named(jit_llvm *j, const char *target) {
  const jit_cpu *c = NULL;
  pthread_mutex_lock(&j->others_lock);
  for (int k = 0; k < j->num_others && !c; k++)
    if (!strcmp(j->others[k]->target, target)) c = j->others[k];
  pthread_mutex_unlock(&j->others_lock);
  return c;
}

const char *ixj__jit_llvm_host_features(const jit_llvm *j) { return j->enabled; }

/* The passes the kernels need, instead of default<O3>'s ~90: the emitter
 * already writes the loops, vector accesses and index arithmetic it wants
 * (gen/emit_llvm.c), so what is left is tidying its SSA (sroa, early-cse,
 * instcombine, simplifycfg), hoisting the loop-invariant offset arithmetic
 * (licm), unrolling the tiled micro-kernels' short constant loops (as O3
 * did: the tiled kernels' object code is O3's, and straight-line code is
 * cheaper to generate: a 6-D permute's compile 21 -> 9 ms) and vectorizing
 * the scalar loops the emitter leaves to LLVM (general and rotated copies).
 * Measured with /usr/lib/llvm-19 on the development VM (docs/hot-path.md):
 * the optimizer's share of a compile falls from 4-56 ms to 1-7 ms per
 * kernel, and code generation, which is then most of the rest, runs at
 * LLVM's default level (O2: its O3 adds nothing to machine code for loops
 * like these). */
static const char KERNEL_PIPELINE[] = "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
                                      "loop-mssa(licm),loop-unroll,loop-vectorize,instcombine<no-verify-fixpoint>,"
                                      "simplifycfg)";
/* The same without the vectorizer, for modules whose every function says
 * it has nothing for it (the tiled template's "ixjit-no-vectorize": its
 * vectors are the emitter's, and all the vectorizer ever took were the edge
 * loops, where it made a 1000 x 1000 transpose's code twice the size and its
 * compile 2.4x as long for no measurable bandwidth; with in-cache shapes it
 * spent 5-7 ms proving it had nothing to do: docs/hot-path.md). */
static const char SCALAR_PIPELINE[] = "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
                                      "loop-mssa(licm),loop-unroll,instcombine<no-verify-fixpoint>,simplifycfg)";

/* Whether every function defined in mod carries "ixjit-no-vectorize". */
static bool nothing_to_vectorize(LLVMModuleRef mod) {
  static const char key[] = "ixjit-no-vectorize";
  bool any = false;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    if (!LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, sizeof key - 1)) return false;
    any = true;
  }
  return any;
}

/* The calling thread's CPU time, ms. */
static double thread_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Adds the time since *t to *slot and restarts *t; nothing when slot is NULL
 * (an untimed compile reads no clock). */
static void lap(double *slot, double *t) {
  if (!slot) return;
  double now = thread_ms();
  *slot += now - *t;
  *t = now;
}
#define PHASE(ph, field) ((ph) ? &(ph)->field : NULL)

/* An idle machine for cpu (NULL: the host), taken off its pool, or a new
 * one; NULL when LLVM cannot make one. The caller's until machine_put. */
static machine *machine_take(jit_llvm *j, const jit_cpu *cpu) {
  machine_pool *pool = cpu ? &j->other_machines : &host_machines;
  machine *m = NULL;
  pthread_mutex_lock(&pool->lock);
  for (machine **at = &pool->idle; *at; at = &(*at)->next)
    if ((*at)->cpu == cpu) {
      m = *at;
      *at = m->next;
      pool->num_idle--;
      break;
    }
  pthread_mutex_unlock(&pool->lock);
  if (m) return m;
  if (!(m = calloc(1, sizeof *m))) return NULL;
  m->cpu = cpu;
  m->tm = LLVMCreateTargetMachine(j->llvm_target, j->triple, cpu ? cpu->cpu : j->cpu, cpu ? cpu->features : j->features,
                                  LLVMCodeGenLevelDefault, LLVMRelocPIC, LLVMCodeModelJITDefault);
  if (m->tm) {
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(m->tm);
    m->layout = LLVMCopyStringRepOfTargetData(layout);
    LLVMDisposeTargetData(layout);
  }
  if (!m->tm || !m->layout) {
    if (m->tm) LLVMDisposeTargetMachine(m->tm);
    free(m);
    return NULL;
  }
  return m;
}

/* Gives a machine back to its pool (the newest first), or disposes of it
 * when enough are idle there. */
static void machine_put(jit_llvm *j, machine *m) {
  machine_pool *pool = m->cpu ? &j->other_machines : &host_machines;
  pthread_mutex_lock(&pool->lock);
  bool keep = pool->num_idle < MAX_IDLE_MACHINES;
  if (keep) {
    m->next = pool->idle;
    pool->idle = m;
    pool->num_idle++;
  }
  pthread_mutex_unlock(&pool->lock);
  if (!keep) machine_dispose(m);
}

/* LLVM reports some errors as diagnostics (an inline-asm operand it cannot
 * allocate, say), and its default handler prints them and exits the process:
 * this one keeps the first error's text for the compile's status. */
typedef struct diagnostics {
  bool error;
  char message[256];
} diagnostics;

static void on_diagnostic(LLVMDiagnosticInfoRef info, void *opaque) {
  diagnostics *d = opaque;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || d->error) return;
  char *text = LLVMGetDiagInfoDescription(info);
  d->error = true;
  snprintf(d->message, sizeof d->message, "%s", text ? text : "(no description)");
  LLVMDisposeMessage(text);
}

/* IR text -> optimized object code, entirely on the calling thread, for cpu
 * (NULL: the host); ph: NULL or where to add each phase's time. */
static ixj_status compile_object(jit_llvm *j, const jit_cpu *cpu, const char *ir, LLVMMemoryBufferRef *obj,
                                 jit_phases *ph, ixj_error *err) {
  char *msg = NULL;
  ixj_status st = IXJ_OK;
  double t = ph ? thread_ms() : 0;
  machine *m = machine_take(j, cpu);
  if (!m) return ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: cannot make a target machine for %s", cpu ? cpu->target : j->target);
  LLVMTargetMachineRef tm = m->tm;
  LLVMContextRef ctx = LLVMContextCreate();
  diagnostics diag = {false, ""};
  LLVMContextSetDiagnosticHandler(ctx, on_diagnostic, &diag);
  LLVMModuleRef mod = NULL;
  lap(PHASE(ph, machine), &t);
  /* the parser takes ownership of the buffer */
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "ixjit");
  if (LLVMParseIRInContext(ctx, mb, &mod, &msg)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: the emitted IR does not parse: %s", msg);
    LLVMDisposeMessage(msg);
    goto done;
  }
  lap(PHASE(ph, parse), &t);
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: the emitted IR is invalid: %s", msg);
    LLVMDisposeMessage(msg);
    goto done;
  }
  LLVMDisposeMessage(msg);
  msg = NULL;
  lap(PHASE(ph, verify), &t);
  LLVMSetTarget(mod, j->triple);
  LLVMSetDataLayout(mod, m->layout);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, nothing_to_vectorize(mod) ? SCALAR_PIPELINE : KERNEL_PIPELINE, tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) {
    st = llvm_fail(err, e, "optimizing");
    goto done;
  }
  lap(PHASE(ph, passes), &t);
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, obj)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: code generation failed: %s", msg);
    LLVMDisposeMessage(msg);
  } else if (diag.error) {
    LLVMDisposeMemoryBuffer(*obj);
    *obj = NULL;
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: code generation failed: %s", diag.message);
  }
done:
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  machine_put(j, m);
  lap(PHASE(ph, codegen), &t); /* with the module's disposal: part of its cost */
  return st;
}

ixj_status ixj__jit_llvm_object(jit_llvm *j, const char *ir, void **object, size_t *size, ixj_error *err) {
  return ixj__jit_llvm_object_for(j, NULL, ir, object, size, err);
}

ixj_status ixj__jit_llvm_object_for(jit_llvm *j, const jit_cpu *cpu, const char *ir, void **object, size_t *size,
                                    ixj_error *err) {
  return ixj__jit_llvm_object_timed(j, cpu, ir, object, size, NULL, err);
}

ixj_status ixj__jit_llvm_object_timed(jit_llvm *j, const jit_cpu *cpu, const char *ir, void **object, size_t *size,
                                      jit_phases *ph, ixj_error *err) {
  LLVMMemoryBufferRef obj = NULL;
  ixj_status st = compile_object(j, cpu, ir, &obj, ph, err);
  if (st != IXJ_OK) return st;
  *size = LLVMGetBufferSize(obj);
  *object = malloc(*size ? *size : 1);
  if (*object) memcpy(*object, LLVMGetBufferStart(obj), *size);
  LLVMDisposeMemoryBuffer(obj);
  return *object ? IXJ_OK : ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
}

ixj_status ixj__jit_llvm_link(jit_llvm *j, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                         ixj_error *err) {
  return ixj__jit_llvm_link_timed(j, object, size, name, fn, NULL, err);
}

ixj_status ixj__jit_llvm_link_timed(jit_llvm *j, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                                    jit_phases *ph, ixj_error *err) {
  double t = ph ? thread_ms() : 0;
  pthread_mutex_lock(&j->link_lock);
  /* room to keep the tracker first: a linked kernel's tracker is never
   * released while live (see ixj__jit_llvm_destroy) */
  if (j->num_links == j->cap_links) {
    size_t cap = j->cap_links ? 2 * j->cap_links : 64;
    struct linked *grown = realloc(j->links, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&j->link_lock);
      return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    }
    j->links = grown;
    j->cap_links = cap;
  }
  LLVMMemoryBufferRef obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, name);
  LLVMOrcJITDylibRef dylib = LLVMOrcLLJITGetMainJITDylib(j->lljit);
  /* a tracker per object: a failed link takes all it defined away with it,
   * so a wrong object (a bad cache entry) cannot poison the kernel it holds */
  LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(dylib);
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(j->lljit, rt, obj); /* takes the buffer */
  lap(PHASE(ph, add), &t);
  LLVMOrcExecutorAddress addr = 0;
  if (!e) e = LLVMOrcLLJITLookup(j->lljit, &addr, name);
  lap(PHASE(ph, lookup), &t);
  if (e) { /* a failed link takes all it defined away with it */
    LLVMConsumeError(LLVMOrcResourceTrackerRemove(rt));
    LLVMOrcReleaseResourceTracker(rt);
  } else { /* kept, to unlink the kernel later */
    j->links[j->num_links++] = (struct linked){(uintptr_t)addr, rt};
  }
  pthread_mutex_unlock(&j->link_lock);
  if (e) return llvm_fail(err, e, "linking the kernel");
  *fn = (ixj_kernel_fn)(uintptr_t)addr;
  return IXJ_OK;
}

bool ixj__jit_llvm_unlink(jit_llvm *j, ixj_kernel_fn fn) {
  bool found = false;
  pthread_mutex_lock(&j->link_lock);
  for (size_t k = 0; k < j->num_links && !found; k++)
    if (j->links[k].addr == (uintptr_t)fn) {
      LLVMOrcResourceTrackerRef rt = j->links[k].rt;
      j->links[k] = j->links[--j->num_links];
      LLVMErrorRef e = LLVMOrcResourceTrackerRemove(rt); /* the code and its symbols go */
      LLVMOrcReleaseResourceTracker(rt);
      found = !e;
      if (e) LLVMConsumeError(e);
    }
  pthread_mutex_unlock(&j->link_lock);
  return found;
}
