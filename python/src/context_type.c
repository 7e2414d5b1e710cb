/* ixjit.Context: options, the JIT, the kernel caches and the thread pool of
 * one ixj_context; the process's default one, made on first use; cache
 * statistics; warm(file), which reads a record or spec file with the C
 * API's ixj_record_parse and compiles each line with ixj_warm (the library's
 * `ixjit warm`, one thread). */
#include "pyixjit.h"

#include <stdio.h>
#include <string.h>

static pyixj_context_obj *default_ctx; /* guarded by the GIL */

static int context_init(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"threads", "cache_dir", "disk_cache", "cache_max_bytes", "record", "last_level_cache",
                          "compile", NULL};
  int threads = 0;
  PyObject *cache_dir = Py_None, *disk = Py_None, *record = Py_None;
  unsigned long long max_bytes = 0, llc = 0;
  const char *compile = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|$iOOKOKz:Context", names, &threads, &cache_dir, &disk, &max_bytes,
                                   &record, &llc, &compile))
    return -1;
  /* tiered execution (ixj_compile_mode): None is IXJIT_COMPILE, else sync */
  int mode = IXJ_COMPILE_DEFAULT;
  if (compile) {
    if (!strcmp(compile, "sync")) mode = IXJ_COMPILE_SYNC;
    else if (!strcmp(compile, "async")) mode = IXJ_COMPILE_ASYNC;
    else if (!strcmp(compile, "cache-only")) mode = IXJ_COMPILE_CACHE_ONLY;
    else {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "Context: compile='%s': use 'sync', 'async' or 'cache-only'", compile);
      return -1;
    }
  }
  pyixj_context_obj *c = (pyixj_context_obj *)self;
  if (c->ctx) {
    PyErr_SetString(PyExc_RuntimeError, "Context.__init__ called twice");
    return -1;
  }
  PyObject *dir_bytes = NULL, *rec_bytes = NULL;
  if ((cache_dir != Py_None && !PyUnicode_FSConverter(cache_dir, &dir_bytes)) ||
      (record != Py_None && !PyUnicode_FSConverter(record, &rec_bytes))) {
    Py_XDECREF(dir_bytes);
    return -1;
  }
  int use_disk = 0;
  if (disk != Py_None) {
    int t = PyObject_IsTrue(disk);
    if (t < 0) return -1;
    use_disk = t ? 1 : -1;
  }
  ixj_context_options o = {.num_threads = threads,
                           .last_level_cache = (size_t)llc,
                           .disk_cache = use_disk,
                           .cache_dir = dir_bytes ? PyBytes_AS_STRING(dir_bytes) : NULL,
                           .cache_max_bytes = max_bytes,
                           .record_path = rec_bytes ? PyBytes_AS_STRING(rec_bytes) : NULL,
                           .compile_mode = mode};
  ixj_error err;
  ixj_status st;
  Py_BEGIN_ALLOW_THREADS
  st = ixj_context_create(&o, &c->ctx, &err);
  Py_END_ALLOW_THREADS
  Py_XDECREF(dir_bytes);
  Py_XDECREF(rec_bytes);
  if (st != IXJ_OK) {
    pyixj_raise(&err);
    return -1;
  }
  return 0;
}

/* A context is destroyed only when nothing refers to it: every call and
 * every prepared kernel holds a reference while it uses it. */
static void context_dealloc(PyObject *self) {
  pyixj_context_obj *c = (pyixj_context_obj *)self;
  if (c->ctx) {
    Py_BEGIN_ALLOW_THREADS
    ixj_context_destroy(c->ctx);
    Py_END_ALLOW_THREADS
  }
  Py_TYPE(self)->tp_free(self);
}

pyixj_context_obj *pyixj_context_get(PyObject *maybe) {
  if (maybe && maybe != Py_None) {
    if (!PyObject_TypeCheck(maybe, &pyixj_ContextType) || !((pyixj_context_obj *)maybe)->ctx) {
      PyErr_SetString(PyExc_TypeError, "context= takes an ixjit.Context");
      return NULL;
    }
    return (pyixj_context_obj *)maybe;
  }
  if (!default_ctx) {
    PyObject *empty = PyTuple_New(0);
    PyObject *c = empty ? PyObject_Call((PyObject *)&pyixj_ContextType, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (!c) return NULL;
    if (default_ctx) Py_DECREF(c); /* another thread made one while this one had released the GIL */
    else default_ctx = (pyixj_context_obj *)c;
  }
  return default_ctx;
}

/* In a forked child the default context's worker threads do not exist: it
 * is dropped without being destroyed (destroying would wait for them). */
void pyixj_context_forget_default(void) { default_ctx = NULL; }

void pyixj_context_free_default(void) { Py_CLEAR(default_ctx); }

static ixj_context *C(PyObject *self) { return ((pyixj_context_obj *)self)->ctx; }

/* Context.__new__ without __init__ leaves no ixj_context: refuse to use it. */
#define REQUIRE_CTX(self)                                                   \
  do {                                                                      \
    if (!C(self)) {                                                         \
      PyErr_SetString(PyExc_RuntimeError, "ixjit.Context was not initialized"); \
      return NULL;                                                          \
    }                                                                       \
  } while (0)

static PyObject *context_cache_stats(PyObject *self, PyObject *unused) {
  (void)unused;
  REQUIRE_CTX(self);
  ixj_cache_stats s;
  ixj_context_cache_stats(C(self), &s);
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d,s:K,s:K,s:K}", "hits", (unsigned long long)s.hits, "misses",
                       (unsigned long long)s.misses, "disk_hits", (unsigned long long)s.disk_hits, "compiles",
                       (unsigned long long)s.compiles, "failures", (unsigned long long)s.failures, "compile_ms",
                       s.compile_ms, "entries", (unsigned long long)s.entries, "generic_calls",
                       (unsigned long long)s.generic_calls, "compiles_queued", (unsigned long long)s.compiles_queued);
}

static PyObject *context_wait_compiles(PyObject *self, PyObject *unused) {
  (void)unused;
  REQUIRE_CTX(self);
  ixj_context *c = C(self);
  Py_BEGIN_ALLOW_THREADS
  ixj_wait_compiles(c);
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

/* One line of a warm file: bad lines are counted and reported, not fatal. */
static void warm_line(ixj_context *ctx, const char *arch, const char *line, int lineno, long *counts, PyObject *errors) {
  ixj_record r;
  ixj_error err;
  ixj_status st = ixj_record_parse(line, &r, &err);
  if (st == IXJ_OK) {
    ixj_warm_outcome outcome = IXJ_WARM_PRESENT;
    const ixj_ixfun *const *srcs = (const ixj_ixfun *const *)r.srcs;
    Py_BEGIN_ALLOW_THREADS
    st = arch ? ixj_warm_cuda(ctx, arch, r.op, r.dst, r.num_srcs, srcs, r.axis, r.elem_size, r.aligned, &outcome, &err)
              : ixj_warm(ctx, r.op, r.dst, r.num_srcs, srcs, r.axis, r.elem_size, r.aligned, &outcome, &err);
    Py_END_ALLOW_THREADS
    ixj_record_clear(&r);
    if (st == IXJ_OK) {
      counts[outcome == IXJ_WARM_COMPILED ? 0 : 1]++;
      return;
    }
    counts[2]++;
  } else {
    counts[3]++;
  }
  PyObject *e = Py_BuildValue("(is)", lineno, err.message);
  if (e) {
    PyList_Append(errors, e);
    Py_DECREF(e);
  }
}

static PyObject *context_warm(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"file", "target", NULL};
  REQUIRE_CTX(self);
  PyObject *path;
  const char *target = "cpu";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|s:warm", names, PyUnicode_FSConverter, &path, &target)) return NULL;
  const char *arch = NULL;
  if (strcmp(target, "cpu")) {
    if (strncmp(target, "cuda:", 5)) {
      Py_DECREF(path);
      return pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "warm: target '%s': use 'cpu' or 'cuda:sm_XY'", target);
    }
    arch = target + 5;
  }
  FILE *in = fopen(PyBytes_AS_STRING(path), "r");
  if (!in) {
    PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
    Py_DECREF(path);
    return NULL;
  }
  Py_DECREF(path);
  long counts[4] = {0, 0, 0, 0}; /* compiled, present, failed, bad lines */
  PyObject *errors = PyList_New(0), *seen = PySet_New(NULL);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  for (int lineno = 1; errors && seen && (len = getline(&line, &cap, in)) >= 0; lineno++) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
    if (ixj_record_is_blank(line)) continue;
    /* identical lines warm once, as in `ixjit warm` */
    PyObject *key = PyBytes_FromStringAndSize(line, len);
    int dup = key ? PySet_Contains(seen, key) : -1;
    if (dup == 0) dup = PySet_Add(seen, key);
    else if (dup == 1) dup = 2;
    Py_XDECREF(key);
    if (dup < 0) break;
    if (dup == 2) continue;
    warm_line(C(self), arch, line, lineno, counts, errors);
  }
  free(line);
  fclose(in);
  Py_XDECREF(seen);
  if (!errors || PyErr_Occurred()) {
    Py_XDECREF(errors);
    return NULL;
  }
  return Py_BuildValue("{s:l,s:l,s:l,s:l,s:N}", "compiled", counts[0], "present", counts[1], "failed", counts[2],
                       "bad_lines", counts[3], "errors", errors);
}

static PyObject *get_threads(PyObject *self, void *c) {
  (void)c;
  REQUIRE_CTX(self);
  return PyLong_FromLong(ixj_context_num_threads(C(self)));
}

static PyObject *get_target(PyObject *self, void *c) {
  (void)c;
  REQUIRE_CTX(self);
  return PyUnicode_FromString(ixj_context_target(C(self)));
}

static PyObject *get_cache_dir(PyObject *self, void *c) {
  (void)c;
  REQUIRE_CTX(self);
  const char *d = ixj_context_cache_dir(C(self));
  if (!d) Py_RETURN_NONE;
  return PyUnicode_DecodeFSDefault(d);
}

static PyObject *context_repr(PyObject *self) {
  REQUIRE_CTX(self);
  const char *d = ixj_context_cache_dir(C(self));
  return PyUnicode_FromFormat("ixjit.Context(threads=%d, target=%s, cache_dir=%s)", ixj_context_num_threads(C(self)),
                              ixj_context_target(C(self)), d ? d : "None");
}

static PyMethodDef context_methods[] = {
    {"cache_stats", context_cache_stats, METH_NOARGS,
     "cache_stats() -> dict: hits, misses, disk_hits, compiles, failures, compile_ms, entries, generic_calls, "
     "compiles_queued."},
    {"wait_compiles", context_wait_compiles, METH_NOARGS,
     "wait_compiles(): returns once the background compiles queued so far (compile='async') are done."},
    {"warm", (PyCFunction)(void (*)(void))context_warm, METH_VARARGS | METH_KEYWORDS,
     "warm(file, target='cpu') -> dict\n\nCompiles every signature of a record or spec file (IXJIT_RECORD's format, "
     "include/ixjit/record.h) into this context's caches, memory and disk; target 'cuda:sm_XY' makes CUDA images "
     "(no GPU needed). Returns the counts compiled, present, failed and bad_lines, and errors: [(line, message)]."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"threads", get_threads, NULL, "Threads an operation runs on, the caller included.", NULL},
    {"target", get_target, NULL, "The CPU the kernels are compiled for.", NULL},
    {"cache_dir", get_cache_dir, NULL, "The disk cache directory in use, or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pyixj_ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ixjit.Context",
    .tp_basicsize = sizeof(pyixj_context_obj),
    .tp_dealloc = context_dealloc,
    .tp_repr = context_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(*, threads=0, cache_dir=None, disk_cache=None, cache_max_bytes=0, record=None, "
              "last_level_cache=0, compile=None)\n\nThe JIT, its kernel caches and thread pool. threads=0: IXJIT_NUM_THREADS or the "
              "online CPUs; disk_cache None: on unless IXJIT_CACHE=off; cache_dir None: IXJIT_CACHE_DIR, else "
              "~/.cache/ixjit; record: append the signature of each compiled kernel to this file (for warm); compile: what a call "
              "whose kernel is not in memory does, 'sync' (compile, then run), 'async' (run the generic kernel now, "
              "compile in the background) or 'cache-only' (never compile), None: IXJIT_COMPILE, else sync. Every "
              "call is thread-safe. Pass it as context= to copy, fill, cat and prepare_copy; without it they use the "
              "process's default context.",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_init = context_init,
    .tp_new = PyType_GenericNew,
};
