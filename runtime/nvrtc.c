/* NVRTC through dlopen: libnvrtc.so.13, then .12 (also looked up in
 * $CUDA_HOME/lib64 and /usr/local/cuda/lib64). */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "nvrtc.h"

#define MAX_CONCURRENT_COMPILES 4

typedef int nvrtcResult; /* NVRTC_SUCCESS == 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

static struct {
  void *handle;
  char problem[200];
  int major, minor;
  int archs[64], num_archs;
  sem_t slots;
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*GetNumSupportedArchs)(int *);
  nvrtcResult (*GetSupportedArchs)(int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                               const char *const *);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetPTX)(nvrtcProgram, char *);
} nv;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void *open_nvrtc(void) {
  static const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12"};
  const char *home = getenv("CUDA_HOME");
  for (int k = 0; k < 2; k++) {
    void *h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    char path[512];
    const char *dirs[] = {home, "/usr/local/cuda"};
    for (int d = 0; d < 2; d++) {
      if (!dirs[d]) continue;
      snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[k]);
      if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) return h;
    }
  }
  return NULL;
}

#define LOAD(sym)                                                              \
  do {                                                                         \
    *(void **)&nv.sym = dlsym(nv.handle, "nvrtc" #sym);                        \
    if (!nv.sym) {                                                             \
      snprintf(nv.problem, sizeof nv.problem, "NVRTC lacks nvrtc%s", #sym);    \
      return;                                                                  \
    }                                                                          \
  } while (0)

static void load(void) {
  nv.handle = open_nvrtc();
  if (!nv.handle) {
    snprintf(nv.problem, sizeof nv.problem, "NVRTC unavailable: cannot load libnvrtc.so.13 or .12");
    return;
  }
  LOAD(GetErrorString);
  LOAD(Version);
  LOAD(GetNumSupportedArchs);
  LOAD(GetSupportedArchs);
  LOAD(CreateProgram);
  LOAD(DestroyProgram);
  LOAD(CompileProgram);
  LOAD(GetProgramLogSize);
  LOAD(GetProgramLog);
  LOAD(GetCUBINSize);
  LOAD(GetCUBIN);
  LOAD(GetPTXSize);
  LOAD(GetPTX);
  nv.Version(&nv.major, &nv.minor);
  if (nv.GetNumSupportedArchs(&nv.num_archs) != 0 || nv.num_archs > 64) nv.num_archs = 0;
  else nv.GetSupportedArchs(nv.archs);
  sem_init(&nv.slots, 0, MAX_CONCURRENT_COMPILES);
}

static ixj_status ready(ixj_error *err) {
  pthread_once(&load_once, load);
  return nv.problem[0] ? ixj__fail(err, IXJ_ERR_UNAVAILABLE, "%s", nv.problem) : IXJ_OK;
}

ixj_status ixj__nvrtc_version(char *buf, size_t size, ixj_error *err) {
  ixj_status st = ready(err);
  if (st == IXJ_OK) snprintf(buf, size, "NVRTC %d.%d", nv.major, nv.minor);
  return st;
}

bool ixj__nvrtc_supports(int cc) {
  if (ready(NULL) != IXJ_OK) return false;
  for (int k = 0; k < nv.num_archs; k++)
    if (nv.archs[k] == cc) return true;
  return false;
}

int ixj__nvrtc_newest(void) {
  int newest = 0;
  if (ready(NULL) != IXJ_OK) return 0;
  for (int k = 0; k < nv.num_archs; k++) newest = nv.archs[k] > newest ? nv.archs[k] : newest;
  return newest;
}

ixj_status ixj__nvrtc_compile(const char *source, const char *arch, void **binary, size_t *size, ixj_error *err) {
  return ixj__nvrtc_compile_with_ptx(source, arch, binary, size, NULL, err);
}

ixj_status ixj__nvrtc_compile_with_ptx(const char *source, const char *arch, void **binary, size_t *size, char **ptx,
                                  ixj_error *err) {
  ixj_status st = ready(err);
  if (st != IXJ_OK) return st;
  bool cubin = !strncmp(arch, "sm_", 3);
  char opt_arch[64];
  snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=%s", arch);
  const char *opts[] = {opt_arch, "-lineinfo"};
  nvrtcProgram prog = NULL;
  *binary = NULL;
  sem_wait(&nv.slots);
  nvrtcResult r = nv.CreateProgram(&prog, source, "ixjit.cu", 0, NULL, NULL);
  if (r == 0) r = nv.CompileProgram(prog, 2, opts);
  if (r != 0) {
    size_t n = 0;
    char log[IXJ_ERROR_MESSAGE_SIZE] = "";
    if (prog && nv.GetProgramLogSize(prog, &n) == 0 && n > 1) {
      char *full = malloc(n);
      if (full && nv.GetProgramLog(prog, full) == 0) snprintf(log, sizeof log, "%s", full);
      free(full);
    }
    st = ixj__fail(err, IXJ_ERR_BACKEND, "NVRTC (%s): %s%s%s", arch, nv.GetErrorString(r), *log ? ": " : "", log);
  } else {
    r = cubin ? nv.GetCUBINSize(prog, size) : nv.GetPTXSize(prog, size);
    if (r == 0 && *size == 0) st = ixj__fail(err, IXJ_ERR_BACKEND, "NVRTC (%s) produced nothing", arch);
    else if (r != 0) st = ixj__fail(err, IXJ_ERR_BACKEND, "NVRTC (%s): no output: %s", arch, nv.GetErrorString(r));
    else if (!(*binary = malloc(*size + 1))) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    else if ((cubin ? nv.GetCUBIN(prog, *binary) : nv.GetPTX(prog, *binary)) != 0)
      st = ixj__fail(err, IXJ_ERR_BACKEND, "NVRTC: cannot read the output");
    if (*binary) ((char *)*binary)[*size] = '\0';
    size_t psize = 0;
    if (st == IXJ_OK && ptx && cubin) {
      *ptx = nv.GetPTXSize(prog, &psize) == 0 ? malloc(psize + 1) : NULL;
      if (!*ptx) {
        st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "NVRTC: cannot read the PTX");
      } else if (nv.GetPTX(prog, *ptx) != 0) {
        st = ixj__fail(err, IXJ_ERR_BACKEND, "NVRTC: cannot read the PTX");
        free(*ptx);
        *ptx = NULL;
      } else {
        (*ptx)[psize] = '\0';
      }
    }
  }
  if (prog) nv.DestroyProgram(&prog);
  sem_post(&nv.slots);
  if (st != IXJ_OK) {
    free(*binary);
    *binary = NULL;
  }
  return st;
}
