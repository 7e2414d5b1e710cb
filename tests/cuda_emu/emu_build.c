/* Compiling emitted CUDA C for the host (emu_build.h). */
#define _GNU_SOURCE
#include "emu_build.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

extern char **environ;

/* Trapping checks: a misaligned vector access, a signed overflow in the
 * offsets, a shift too far or an index past a (shared) array stops the
 * kernel with SIGILL, which the test reports. No strict aliasing: the
 * kernels reinterpret element pointers as uint4, as CUDA allows. */
#define CXX_FLAGS                                                                                                    \
  "-std=c++17 -O1 -g0 -fPIC -shared -fno-strict-aliasing -w "                                                       \
  "-fsanitize=alignment,signed-integer-overflow,shift,bounds,null,return,unreachable "                               \
  "-fsanitize-undefined-trap-on-error"

typedef struct str {
  char *s;
  size_t len, cap;
  int oom;
} str;

static void put(str *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->oom || n < 0) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->len + (size_t)n + 1) * 2;
    char *g = realloc(b->s, cap);
    if (!g) {
      b->oom = 1;
      return;
    }
    b->s = g;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

static int is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

char *ixj__emu_rewrite(const char *src, unsigned *bound) {
  str out = {0};
  /* the bound: a number or a product of numbers (the tiled template's T * ROWS) */
  const char *lb = strstr(src, "__launch_bounds__(");
  *bound = 0;
  if (lb) {
    char *at = (char *)lb + strlen("__launch_bounds__(");
    unsigned long v = strtoul(at, &at, 10);
    while (*at == ' ' || *at == '*') {
      while (*at == ' ') at++;
      if (*at != '*') break;
      v *= strtoul(at + 1, &at, 10);
    }
    *bound = *at == ')' ? (unsigned)v : 0;
  }
  for (const char *p = src;;) {
    const char *q = strstr(p, "__shared__");
    if (!q) {
      put(&out, "%s", p);
      break;
    }
    /* __shared__ TYPE NAME [..]..; -> TYPE (&NAME)[..].. = ixj_emu_shared_var<TYPE [..]..>(); */
    const char *t = q + strlen("__shared__"), *t_end, *n, *n_end, *d, *d_end;
    while (*t == ' ') t++;
    for (t_end = t; is_ident(*t_end); t_end++) {}
    for (n = t_end; *n == ' '; n++) {}
    for (n_end = n; is_ident(*n_end); n_end++) {}
    for (d = n_end; *d == ' '; d++) {}
    d_end = strchr(d, ';');
    if (t_end == t || n_end == n || *d != '[' || !d_end || memchr(d, '\n', (size_t)(d_end - d))) {
      /* left alone: the shim's __shared__ makes it a compile error */
      put(&out, "%.*s", (int)(t - p), p);
      p = t;
      continue;
    }
    put(&out, "%.*s%.*s (&%.*s)%.*s = ixj_emu_shared_var<%.*s %.*s>()", (int)(q - p), p, (int)(t_end - t), t,
        (int)(n_end - n), n, (int)(d_end - d), d, (int)(t_end - t), t, (int)(d_end - d), d);
    p = d_end;
  }
  if (out.oom) {
    free(out.s);
    return NULL;
  }
  return out.s;
}

/* One translation unit: kernels[0..n) in namespaces, their entries, and a
 * table the loader reads. */
static char *unit_text(emu_kernel *k, int n) {
  str u = {0};
  put(&u, "#include \"cuda_shim.h\"\n");
  for (int i = 0; i < n; i++) {
    char *body = ixj__emu_rewrite(k[i].source, &k[i].launch_bound);
    if (!body) {
      u.oom = 1;
      break;
    }
    put(&u, "namespace ixj_emu_ns_%s {\n%s\n}\n", k[i].name, body);
    put(&u,
        "extern \"C\" void %s_entry(const void *args, long long begin, long long end) {\n"
        "  ixj_emu_ns_%s::ixj_args a;\n  std::memcpy(&a, args, sizeof a);\n  ixj_emu_ns_%s::%s(a, begin, end);\n}\n"
        "extern \"C\" const unsigned long %s_args_size = sizeof(ixj_emu_ns_%s::ixj_args);\n",
        k[i].name, k[i].name, k[i].name, k[i].name, k[i].name, k[i].name);
    free(body);
  }
  if (u.oom) {
    free(u.s);
    return NULL;
  }
  return u.s;
}

void ixj__emu_free_kernels(emu_kernel *k, int n) {
  for (int i = 0; k && i < n; i++) free(k[i].source);
  free(k);
}

typedef struct unit {
  int first, count;
  char so[4096], cmd[8192];
  pid_t pid;
} unit;

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

static pid_t spawn_shell(const char *cmd) {
  pid_t pid;
  char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
  return posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) ? -1 : pid;
}

static int load_unit(const unit *u, emu_kernel *k, char *why, size_t why_size) {
  void *h = dlopen(u->so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, why_size, "dlopen %s: %s", u->so, dlerror());
    return -1;
  }
  for (int i = u->first; i < u->first + u->count; i++) {
    char sym[64];
    snprintf(sym, sizeof sym, "%s_entry", k[i].name);
    void *fn = dlsym(h, sym);
    snprintf(sym, sizeof sym, "%s_args_size", k[i].name);
    const unsigned long *size = dlsym(h, sym);
    if (!fn || !size) {
      snprintf(why, why_size, "%s lacks %s", u->so, sym);
      return -1;
    }
    memcpy(&k[i].fn, &fn, sizeof fn);
    k[i].args_size = *size;
  }
  return 0; /* loaded for the rest of the process */
}

/* mkdir -p */
static int mkdir_p(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *c = path + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    if (mkdir(path, 0700) && errno != EEXIST) return -1;
    *c = '/';
  }
  return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

/* Removes the units of earlier runs that this one did not use, so the cache
 * holds one corpus's worth (each test has a directory of its own). */
static void prune(const char *dir, const unit *units, int nunits) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *ent; (ent = readdir(d));) {
    if (strncmp(ent->d_name, "u-", 2)) continue;
    int used = 0;
    for (int i = 0; i < nunits && !used; i++) {
      const char *base = strrchr(units[i].so, '/');
      used = base && !strncmp(ent->d_name, base + 1, strlen("u-0123456789abcdef"));
    }
    if (used) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    unlink(path);
  }
  closedir(d);
}

int ixj__emu_build(const emu_builder *b, emu_kernel *k, int n, char *why, size_t why_size) {
  int per = b->per_unit > 0 ? b->per_unit : 100, nunits = (n + per - 1) / per, st = 0;
  unit *units = calloc((size_t)(nunits ? nunits : 1), sizeof *units);
  if (!units) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  if (mkdir_p(b->cache_dir)) {
    snprintf(why, why_size, "cannot make %s: %s", b->cache_dir, strerror(errno));
    free(units);
    return -1;
  }
  int running = 0, next = 0, done = 0;
  while (st == 0 && done < nunits) {
    /* start compilers while there is room */
    while (st == 0 && next < nunits && running < (b->jobs > 0 ? b->jobs : 1)) {
      unit *u = &units[next];
      u->first = next * per;
      u->count = u->first + per <= n ? per : n - u->first;
      char *text = unit_text(k + u->first, u->count);
      if (!text) {
        snprintf(why, why_size, "out of memory");
        st = -1;
        break;
      }
      char cmd_tail[4096];
      snprintf(cmd_tail, sizeof cmd_tail, "%s " CXX_FLAGS " -I%s", b->cxx, b->shim_dir);
      XXH64_hash_t h = XXH3_64bits_withSeed(text, strlen(text), XXH3_64bits(cmd_tail, strlen(cmd_tail)));
      char cpp[4096];
      snprintf(cpp, sizeof cpp, "%s/u-%016llx.cpp", b->cache_dir, (unsigned long long)h);
      snprintf(u->so, sizeof u->so, "%s/u-%016llx.so", b->cache_dir, (unsigned long long)h);
      next++;
      if (access(u->so, R_OK) == 0) { /* compiled by an earlier run */
        free(text);
        u->pid = 0;
        st = load_unit(u, k, why, why_size);
        done++;
        continue;
      }
      if (write_file(cpp, text)) {
        snprintf(why, why_size, "cannot write %s", cpp);
        free(text);
        st = -1;
        break;
      }
      free(text);
      /* into a temporary name, then renamed: a concurrent run never loads half a file */
      snprintf(u->cmd, sizeof u->cmd, "%s -o %s.%d.tmp %s && mv -f %s.%d.tmp %s", cmd_tail, u->so, (int)getpid(), cpp,
               u->so, (int)getpid(), u->so);
      u->pid = spawn_shell(u->cmd);
      if (u->pid < 0) {
        snprintf(why, why_size, "cannot run %s", b->cxx);
        st = -1;
        break;
      }
      running++;
    }
    if (st || running == 0) continue;
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      snprintf(why, why_size, "waitpid: %s", strerror(errno));
      st = -1;
      break;
    }
    for (int i = 0; i < next; i++) {
      unit *u = &units[i];
      if (u->pid != pid) continue;
      running--;
      done++;
      u->pid = 0;
      if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        snprintf(why, why_size, "the host compiler failed: %s", u->cmd);
        st = -1;
      } else {
        st = load_unit(u, k, why, why_size);
      }
    }
  }
  while (running > 0) { /* after a failure: reap the others */
    int status;
    if (waitpid(-1, &status, 0) < 0) break;
    running--;
  }
  if (st == 0) prune(b->cache_dir, units, nunits);
  free(units);
  return st;
}
