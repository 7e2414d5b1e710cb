/* The library's versions (include/ixjit/version.h): its own, the LLVM it was
 * built against and runs with, NVRTC as loaded, and the host CPU as a target.
 * Worked out once, on the first call, and kept for the process's lifetime. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "ixjit/version.h"
#include "jit_llvm.h"
#include "nvrtc.h"

#ifndef IXJIT_LLVM_BUILT
#error "the build defines IXJIT_LLVM_BUILT (llvm-config --version)"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char llvm_runtime[32], nvrtc[32], nvrtc_problem[IXJ_ERROR_MESSAGE_SIZE];
static char host_target[160], *host_cpu;

static void collect(void) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(llvm_runtime, sizeof llvm_runtime, "%u.%u.%u", major, minor, patch);
  char text[32];
  ixj_error err;
  if (ixj__nvrtc_version(text, sizeof text, &err) == IXJ_OK)
    snprintf(nvrtc, sizeof nvrtc, "%s", strncmp(text, "NVRTC ", 6) ? text : text + 6);
  else
    snprintf(nvrtc_problem, sizeof nvrtc_problem, "%s", err.message);
  char *name, *enabled;
  if (ixj__cpu_host(&name, &enabled) == IXJ_OK) {
    ixj__cpu_target_name(name, enabled, host_target, sizeof host_target); /* as ixj_context_target() */
    size_t n = strlen(name) + strlen(enabled) + 6;
    if ((host_cpu = malloc(n))) snprintf(host_cpu, n, "cpu:%s+%s", name, enabled);
    free(name);
    free(enabled);
  }
}

const char *ixj_version(void) { return IXJIT_VERSION_STRING; }

void ixj_version_get(ixj_version_info *out) {
  if (!out) return;
  pthread_once(&once, collect);
  *out = (ixj_version_info){IXJIT_VERSION_STRING, IXJIT_LLVM_BUILT, llvm_runtime, nvrtc, nvrtc_problem,
                            host_target, host_cpu ? host_cpu : ""};
}
