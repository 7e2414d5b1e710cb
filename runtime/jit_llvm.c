/* CPU JIT. One LLJIT per context. The C API's LLJIT is not safe for
 * concurrent add+lookup (research/jit.md §3.4), so each compile runs its passes
 * and codegen to an object file on the calling thread with its own
 * TargetMachine and LLVMContext, and only linking the object into the JIT is
 * serialized. The object bytes are what a disk cache would store. */
#include "jit_llvm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct jit_llvm {
  LLVMOrcLLJITRef lljit;
  pthread_mutex_t link_lock;
  char *triple, *cpu, *features;
  char target[160];
  char toolchain[32];
  int vector_bytes;
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

ixj_status ixj__jit_llvm_create(jit_llvm **out, ixj_error *err) {
  pthread_once(&init_once, init_llvm);
  jit_llvm *j = calloc(1, sizeof *j);
  if (!j) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  pthread_mutex_init(&j->link_lock, NULL);
  j->triple = LLVMGetDefaultTargetTriple();
  j->cpu = LLVMGetHostCPUName();
  j->features = LLVMGetHostCPUFeatures();
  snprintf(j->target, sizeof j->target, "cpu:%s:%016llx", j->cpu,
           (unsigned long long)XXH3_64bits(j->features, strlen(j->features)));
  j->vector_bytes = has_feature(j->features, "avx512f") && has_feature(j->features, "evex512") ? 64 : 32;
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

void ixj__jit_llvm_destroy(jit_llvm *j) {
  if (!j) return;
  if (j->lljit) LLVMOrcDisposeLLJIT(j->lljit);
  LLVMDisposeMessage(j->triple);
  LLVMDisposeMessage(j->cpu);
  LLVMDisposeMessage(j->features);
  pthread_mutex_destroy(&j->link_lock);
  free(j);
}

const char *ixj__jit_llvm_target(const jit_llvm *j) { return j->target; }
const char *ixj__jit_llvm_toolchain(const jit_llvm *j) { return j->toolchain; }
int ixj__jit_llvm_vector_bytes(const jit_llvm *j) { return j->vector_bytes; }

/* IR text -> optimized object code, entirely on the calling thread. */
static ixj_status compile_object(jit_llvm *j, const char *ir, LLVMMemoryBufferRef *obj, ixj_error *err) {
  LLVMTargetRef target;
  char *msg = NULL;
  ixj_status st = IXJ_OK;
  if (LLVMGetTargetFromTriple(j->triple, &target, &msg)) {
    ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: no target for %s: %s", j->triple, msg);
    LLVMDisposeMessage(msg);
    return IXJ_ERR_BACKEND;
  }
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, j->triple, j->cpu, j->features, LLVMCodeGenLevelAggressive,
                                                    LLVMRelocPIC, LLVMCodeModelJITDefault);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  /* the parser takes ownership of the buffer */
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "ixjit");
  if (LLVMParseIRInContext(ctx, mb, &mod, &msg)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: the emitted IR does not parse: %s", msg);
    LLVMDisposeMessage(msg);
    goto done;
  }
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: the emitted IR is invalid: %s", msg);
    LLVMDisposeMessage(msg);
    goto done;
  }
  LLVMDisposeMessage(msg);
  msg = NULL;
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(layout);
  LLVMSetTarget(mod, j->triple);
  LLVMSetDataLayout(mod, dl);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(layout);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) {
    st = llvm_fail(err, e, "optimizing");
    goto done;
  }
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, obj)) {
    st = ixj__fail(err, IXJ_ERR_BACKEND, "LLVM: code generation failed: %s", msg);
    LLVMDisposeMessage(msg);
  }
done:
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  LLVMDisposeTargetMachine(tm);
  return st;
}

ixj_status ixj__jit_llvm_object(jit_llvm *j, const char *ir, void **object, size_t *size, ixj_error *err) {
  LLVMMemoryBufferRef obj = NULL;
  ixj_status st = compile_object(j, ir, &obj, err);
  if (st != IXJ_OK) return st;
  *size = LLVMGetBufferSize(obj);
  *object = malloc(*size ? *size : 1);
  if (*object) memcpy(*object, LLVMGetBufferStart(obj), *size);
  LLVMDisposeMemoryBuffer(obj);
  return *object ? IXJ_OK : ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
}

ixj_status ixj__jit_llvm_link(jit_llvm *j, const void *object, size_t size, const char *name, ixj_kernel_fn *fn,
                         ixj_error *err) {
  LLVMMemoryBufferRef obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, name);
  pthread_mutex_lock(&j->link_lock);
  LLVMOrcJITDylibRef dylib = LLVMOrcLLJITGetMainJITDylib(j->lljit);
  /* a tracker per object: a failed link takes all it defined away with it,
   * so a wrong object (a bad cache entry) cannot poison the kernel it holds */
  LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(dylib);
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(j->lljit, rt, obj); /* takes the buffer */
  LLVMOrcExecutorAddress addr = 0;
  if (!e) e = LLVMOrcLLJITLookup(j->lljit, &addr, name);
  if (e) LLVMConsumeError(LLVMOrcResourceTrackerRemove(rt));
  LLVMOrcReleaseResourceTracker(rt); /* on success its symbols stay with the JITDylib */
  pthread_mutex_unlock(&j->link_lock);
  if (e) return llvm_fail(err, e, "linking the kernel");
  *fn = (ixj_kernel_fn)(uintptr_t)addr;
  return IXJ_OK;
}
