/* What a result needs beside its numbers to be compared later: the build
 * (commit, versions), the machine (CPU model and features, last-level cache,
 * CPUs) and its state (load average at the start), and the date. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifndef IXJIT_SOURCE_DIR
#define IXJIT_SOURCE_DIR "."
#endif
#ifndef IXJIT_LLVM_VERSION
#define IXJIT_LLVM_VERSION "unknown"
#endif

/* The first line a command prints, or "". */
static void first_line(const char *cmd, char *out, size_t size) {
  out[0] = '\0';
  FILE *p = popen(cmd, "r");
  if (!p) return;
  if (fgets(out, (int)size, p)) out[strcspn(out, "\r\n")] = '\0';
  else out[0] = '\0';
  pclose(p);
}

static void commit(char *out, size_t size) {
  char dirty[8];
  first_line("git -C '" IXJIT_SOURCE_DIR "' rev-parse --short=12 HEAD 2>/dev/null", out, size);
  if (!out[0]) {
    snprintf(out, size, "unknown");
    return;
  }
  /* Uncommitted changes to the library or the bench make the commit only approximate. */
  first_line("git -C '" IXJIT_SOURCE_DIR "' status --porcelain --untracked-files=no -- gen runtime templates include tools "
             "2>/dev/null | head -1",
             dirty, sizeof dirty);
  if (dirty[0]) strncat(out, "-dirty", size - strlen(out) - 1);
}

static void cpuinfo(bench_meta *m) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
  if (!f) return;
  static const char *keep[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vbmi2",
                               "erms", "fsrm", "movdir64b", "amx_tile"};
  bool model = false, flags = false;
  while (fgets(line, sizeof line, f) && !(model && flags)) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    char *value = colon + 2 <= line + strlen(line) ? colon + 2 : colon + 1;
    value[strcspn(value, "\n")] = '\0';
    if (!model && !strncmp(line, "model name", 10)) {
      snprintf(m->cpu_model, sizeof m->cpu_model, "%s", value);
      model = true;
    } else if (!flags && !strncmp(line, "flags", 5)) {
      size_t n = 0;
      for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) {
        char word[40];
        snprintf(word, sizeof word, " %s ", keep[k]);
        char padded[8200];
        snprintf(padded, sizeof padded, " %s ", value);
        if (strstr(padded, word) && n < sizeof m->cpu_features)
          n += (size_t)snprintf(m->cpu_features + n, sizeof m->cpu_features - n, n ? " %s" : "%s", keep[k]);
      }
      flags = true;
    }
  }
  fclose(f);
}

static double llc_bytes(void) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l3 > 0 ? (double)l3 : l2 > 0 ? (double)l2 : 0;
}

/* NVRTC's version, from the library the CUDA path would load (no GPU needed). */
static void nvrtc_version(char *out, size_t size) {
  snprintf(out, size, "absent");
  const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  for (size_t k = 0; k < 3; k++) {
    void *h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    int (*version)(int *, int *) = (int (*)(int *, int *))dlsym(h, "nvrtcVersion");
    int major = 0, minor = 0;
    if (version && version(&major, &minor) == 0) snprintf(out, size, "%d.%d", major, minor);
    return; /* left loaded: unloading it leaks its C++ runtime's pool (and the CUDA path loads it anyway) */
  }
}

void bench_meta_collect(bench_meta *m) {
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%S%z", &tm);
  if (gethostname(m->host, sizeof m->host) != 0) snprintf(m->host, sizeof m->host, "unknown");
  m->host[sizeof m->host - 1] = '\0';
  commit(m->commit, sizeof m->commit);
  snprintf(m->ixjit_version, sizeof m->ixjit_version, "%s", IXJIT_VERSION_STRING);
  snprintf(m->llvm_version, sizeof m->llvm_version, "%s", IXJIT_LLVM_VERSION);
  nvrtc_version(m->nvrtc_version, sizeof m->nvrtc_version);
  cpuinfo(m);
  m->num_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
  m->llc_bytes = llc_bytes();
  if (getloadavg(m->load_avg, 3) != 3) m->load_avg[0] = m->load_avg[1] = m->load_avg[2] = -1;
  ixj_context *ctx;
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1};
  if (ixj_context_create(&o, &ctx, NULL) == IXJ_OK) {
    snprintf(m->target, sizeof m->target, "%s", ixj_context_target(ctx));
    ixj_context_destroy(ctx);
  }
}
