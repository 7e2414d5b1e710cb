/* The _ixjit module: copy, fill and cat on arrays (or raw buffers through
 * explicit index functions), the default context, and the types. The calls
 * are METH_FASTCALL with hand-parsed keywords: on a cache hit the whole
 * Python-level cost is these few lines, the views, and the library's fast
 * path (python/bench/overhead.py measures it). */
#include "pyixjit.h"

#include <string.h>

int pyixj_kwargs(const char *fn, PyObject *kwnames, PyObject *const *kwvalues, int n, const char *const *names,
                 PyObject **values) {
  for (int k = 0; k < n; k++) values[k] = NULL;
  if (!kwnames) return 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
    PyObject *name = PyTuple_GET_ITEM(kwnames, i);
    int k = 0;
    while (k < n && PyUnicode_CompareWithASCIIString(name, names[k]) != 0) k++;
    if (k == n || values[k]) {
      PyErr_Format(PyExc_TypeError, "%s() got %s keyword argument '%U'", fn, k == n ? "an unexpected" : "a repeated",
                   name);
      return -1;
    }
    values[k] = kwvalues[i];
  }
  return 0;
}

int pyixj_elem_size(PyObject *o, int64_t *out) {
  if (!o || o == Py_None) return 0;
  long long e = PyLong_AsLongLong(o);
  if (e == -1 && PyErr_Occurred()) return -1;
  if (e <= 0 || e > 16) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "elem_size %lld is not 1, 2, 4, 8 or 16", e);
    return -1;
  }
  *out = e;
  return 0;
}

static bool is_ixfun(PyObject *o) { return o && o != Py_None && PYIXJ_IXFUN_CHECK(o); }

static int check_ixfun_arg(PyObject *o, const char *name) {
  if (o && o != Py_None && !PYIXJ_IXFUN_CHECK(o)) {
    PyErr_Format(PyExc_TypeError, "%s= takes an ixjit.IndexFunction", name);
    return -1;
  }
  return 0;
}

/* The operand of one view: through its index function when it has one
 * (a raw buffer in elements of `elem` bytes), else from its own layout in
 * units of `unit` bytes. */
static int make_operand(const pyixj_view *v, PyObject *index, int64_t unit, pyixj_operand *o) {
  if (is_ixfun(index)) return pyixj_operand_raw(v, ((pyixj_ixfun_obj *)index)->f, o);
  return pyixj_operand_from_view(v, unit, o);
}

/* With an index function on some operand, the element size is elem_size=,
 * else the item size of the arrays beside it (of the raw buffers when all are
 * raw); the arrays must have that item size and strides in whole elements.
 * 0 with an exception. */
static int64_t explicit_unit(pyixj_view *const *views, PyObject *const *indexes, int n, int64_t elem) {
  for (int k = 0; k < n && !elem; k++)
    if (!is_ixfun(indexes[k])) elem = views[k]->itemsize;
  for (int k = 0; k < n && !elem; k++) {
    if (views[k]->itemsize != views[0]->itemsize) {
      pyixj_raise_msg(IXJ_ERR_MISMATCH, "raw buffers of %lld- and %lld-byte items: pass elem_size=",
                      (long long)views[0]->itemsize, (long long)views[k]->itemsize);
      return 0;
    }
  }
  if (!elem) elem = views[0]->itemsize;
  if (!(elem == 1 || elem == 2 || elem == 4 || elem == 8 || elem == 16)) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "element size %lld is not 1, 2, 4, 8 or 16 bytes (pass elem_size=)",
                    (long long)elem);
    return 0;
  }
  for (int k = 0; k < n; k++) {
    if (is_ixfun(indexes[k])) continue;
    bool whole = views[k]->itemsize == elem;
    for (int d = 0; d < views[k]->ndim && whole; d++) whole = views[k]->shape[d] <= 1 || views[k]->strides[d] % elem == 0;
    if (!whole) {
      pyixj_raise_msg(IXJ_ERR_MISMATCH, "an array of %lld-byte items (strides %s) beside %lld-byte elements",
                      (long long)views[k]->itemsize, views[k]->itemsize == elem ? "not in whole items" : "any",
                      (long long)elem);
      return 0;
    }
  }
  return elem;
}

static size_t op_bytes(const pyixj_operand *o) { return o->op.size_bytes; }

/* ---- copy ---------------------------------------------------------------------- */

static PyObject *mod_copy(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)m;
  static const char *const names[] = {"dst_index", "src_index", "elem_size", "context"};
  PyObject *kw[4];
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "copy(dst, src, *, dst_index=None, src_index=None, elem_size=None, context=None)");
    return NULL;
  }
  if (pyixj_kwargs("copy", kwnames, args + nargs, 4, names, kw) < 0) return NULL;
  int64_t elem = 0;
  if (check_ixfun_arg(kw[0], "dst_index") < 0 || check_ixfun_arg(kw[1], "src_index") < 0 ||
      pyixj_elem_size(kw[2], &elem) < 0)
    return NULL;
  pyixj_context_obj *ctx = pyixj_context_get(kw[3]);
  if (!ctx) return NULL;
  pyixj_view d, s;
  if (pyixj_view_acquire(args[0], VIEW_WRITE, "the destination", &d) < 0) return NULL;
  if (pyixj_view_acquire(args[1], VIEW_READ, "the source", &s) < 0) {
    pyixj_view_release(&d);
    return NULL;
  }
  PyObject *result = NULL;
  pyixj_operand od = {{0}}, os = {{0}};
  pyixj_view *views[2] = {&d, &s};
  int64_t unit;
  if (d.gpu != s.gpu || d.device != s.device) {
    pyixj_raise_msg(IXJ_ERR_MISMATCH, "the destination and the source live on different devices");
    goto done;
  }
  if (is_ixfun(kw[0]) || is_ixfun(kw[1])) {
    if (!(unit = explicit_unit(views, kw, 2, elem))) goto done;
  } else {
    if (elem) {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "elem_size= goes with dst_index= or src_index=");
      goto done;
    }
    if (pyixj_broadcast(&s, d.ndim, d.shape) < 0 || !(unit = pyixj_common_unit(views, 2, "copy"))) goto done;
  }
  if (make_operand(&d, kw[0], unit, &od) < 0 || make_operand(&s, kw[1], unit, &os) < 0) goto done;
  ixj_error err;
  ixj_status st;
  ixj_context *c = ctx->ctx;
  Py_INCREF(ctx);
  if (d.gpu) {
    Py_BEGIN_ALLOW_THREADS
    st = ixj_copy_cuda_device(c, d.device, &od.op, &os.op, (size_t)unit, NULL, NULL, &err);
    Py_END_ALLOW_THREADS
  } else if (op_bytes(&od) < PYIXJ_NOGIL_BYTES && !od.fresh && !os.fresh) {
    st = ixj_copy(c, &od.op, &os.op, (size_t)unit, NULL, &err);
  } else {
    Py_BEGIN_ALLOW_THREADS
    st = ixj_copy(c, &od.op, &os.op, (size_t)unit, NULL, &err);
    Py_END_ALLOW_THREADS
  }
  Py_DECREF(ctx);
  if (st != IXJ_OK) pyixj_raise(&err);
  else result = Py_NewRef(args[0]);
done:
  pyixj_operand_clear(&od);
  pyixj_operand_clear(&os);
  pyixj_view_release(&s);
  pyixj_view_release(&d);
  return result;
}

/* ---- fill ---------------------------------------------------------------------- */

static PyObject *mod_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)m;
  static const char *const names[] = {"dst_index", "elem_size", "context"};
  PyObject *kw[3];
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "fill(dst, value, *, dst_index=None, elem_size=None, context=None)");
    return NULL;
  }
  if (pyixj_kwargs("fill", kwnames, args + nargs, 3, names, kw) < 0) return NULL;
  int64_t elem = 0;
  if (check_ixfun_arg(kw[0], "dst_index") < 0 || pyixj_elem_size(kw[1], &elem) < 0) return NULL;
  pyixj_context_obj *ctx = pyixj_context_get(kw[2]);
  if (!ctx) return NULL;
  pyixj_view d;
  if (pyixj_view_acquire(args[0], VIEW_WRITE | VIEW_KIND, "the destination", &d) < 0) return NULL;
  PyObject *result = NULL;
  pyixj_operand od = {{0}};
  int64_t unit;
  unsigned char value[4096];
  pyixj_view *views[1] = {&d};
  if (d.itemsize > (int64_t)sizeof value) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "fill: %lld-byte items are too large", (long long)d.itemsize);
    goto done;
  }
  if (is_ixfun(kw[0])) {
    if (!(unit = explicit_unit(views, &kw[0], 1, elem))) goto done;
  } else if (!(unit = pyixj_common_unit(views, 1, "fill"))) {
    goto done;
  }
  /* a raw buffer's elements are what elem_size says, whatever its item size */
  pyixj_view as_elem = d;
  if (is_ixfun(kw[0])) as_elem.itemsize = unit;
  if (pyixj_fill_value(args[1], &as_elem, value) < 0) goto done;
  /* an item of several units repeats: fill element by element of the unit, per lane */
  if (make_operand(&d, kw[0], unit, &od) < 0) goto done;
  ixj_error err;
  ixj_status st = IXJ_OK;
  ixj_context *c = ctx->ctx;
  Py_INCREF(ctx);
  if (d.itemsize == unit || is_ixfun(kw[0])) {
    if (d.gpu) {
      Py_BEGIN_ALLOW_THREADS
      st = ixj_fill_cuda_device(c, d.device, &od.op, value, (size_t)unit, NULL, NULL, &err);
      Py_END_ALLOW_THREADS
    } else if (op_bytes(&od) < PYIXJ_NOGIL_BYTES && !od.fresh) {
      st = ixj_fill(c, &od.op, value, (size_t)unit, NULL, &err);
    } else {
      Py_BEGIN_ALLOW_THREADS
      st = ixj_fill(c, &od.op, value, (size_t)unit, NULL, &err);
      Py_END_ALLOW_THREADS
    }
  } else {
    /* items wider than the unit (the trailing dim of the operand): one fill
     * per unit of the item, on that slice of the trailing dim */
    int rank = ixj_ixfun_rank(od.ixfun);
    int64_t parts = d.itemsize / unit;
    for (int64_t p = 0; p < parts && st == IXJ_OK; p++) {
      ixj_slice_item items[IXJ_MAX_RANK];
      int64_t shape[IXJ_MAX_RANK];
      ixj_ixfun_shape(od.ixfun, shape);
      for (int k = 0; k < rank - 1; k++) items[k] = (ixj_slice_item){IXJ_SLICE_RANGE, 0, shape[k], 1};
      items[rank - 1] = (ixj_slice_item){IXJ_SLICE_FIX, p, 1, 1};
      ixj_ixfun *f;
      st = ixj_ixfun_slice(od.ixfun, rank, items, &f, &err);
      if (st != IXJ_OK) break;
      ixj_operand part = od.op;
      part.ixfun = f;
      Py_BEGIN_ALLOW_THREADS
      st = d.gpu ? ixj_fill_cuda_device(c, d.device, &part, value + p * unit, (size_t)unit, NULL, NULL, &err)
                 : ixj_fill(c, &part, value + p * unit, (size_t)unit, NULL, &err);
      Py_END_ALLOW_THREADS
      ixj_ixfun_free(f);
    }
  }
  Py_DECREF(ctx);
  if (st != IXJ_OK) pyixj_raise(&err);
  else result = Py_NewRef(args[0]);
done:
  pyixj_operand_clear(&od);
  pyixj_view_release(&d);
  return result;
}

/* ---- cat ----------------------------------------------------------------------- */

static PyObject *mod_cat(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)m;
  static const char *const names[] = {"axis", "context"};
  PyObject *kw[2];
  if (nargs < 2 || nargs > 3) {
    PyErr_SetString(PyExc_TypeError, "cat(dst, srcs, axis=0, *, context=None)");
    return NULL;
  }
  if (pyixj_kwargs("cat", kwnames, args + nargs, 2, names, kw) < 0) return NULL;
  PyObject *axis_obj = nargs == 3 ? args[2] : kw[0];
  if (nargs == 3 && kw[0]) {
    PyErr_SetString(PyExc_TypeError, "cat() got axis twice");
    return NULL;
  }
  long axis = 0;
  if (axis_obj && (axis = PyLong_AsLong(axis_obj)) == -1 && PyErr_Occurred()) return NULL;
  pyixj_context_obj *ctx = pyixj_context_get(kw[1]);
  if (!ctx) return NULL;
  PyObject *seq = PySequence_Fast(args[1], "cat: srcs must be a sequence of arrays");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > IXJ_MAX_CAT_INPUTS) {
    Py_DECREF(seq);
    return pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "cat takes 1..%d inputs, not %zd", IXJ_MAX_CAT_INPUTS, n);
  }
  pyixj_view views[1 + IXJ_MAX_CAT_INPUTS];
  pyixj_view *vp[1 + IXJ_MAX_CAT_INPUTS];
  pyixj_operand ops[1 + IXJ_MAX_CAT_INPUTS];
  memset(ops, 0, sizeof ops);
  int acquired = 0, made = 0;
  PyObject *result = NULL;
  if (pyixj_view_acquire(args[0], VIEW_WRITE, "the destination", &views[0]) < 0) goto done;
  acquired = 1;
  for (Py_ssize_t k = 0; k < n; k++, acquired++) {
    char what[48];
    PyOS_snprintf(what, sizeof what, "input %zd", k);
    if (pyixj_view_acquire(PySequence_Fast_GET_ITEM(seq, k), VIEW_READ, what, &views[k + 1]) < 0) goto done;
  }
  for (int k = 0; k < acquired; k++) {
    vp[k] = &views[k];
    if (views[k].gpu != views[0].gpu || views[k].device != views[0].device) {
      pyixj_raise_msg(IXJ_ERR_MISMATCH, "cat: the arrays live on different devices");
      goto done;
    }
  }
  if (axis < 0) axis += views[0].ndim;
  if (axis < 0 || axis >= views[0].ndim) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "cat: axis out of range for %d dims", views[0].ndim);
    goto done;
  }
  int64_t unit = pyixj_common_unit(vp, acquired, "cat");
  if (!unit) goto done;
  for (; made < acquired; made++)
    if (pyixj_operand_from_view(&views[made], unit, &ops[made]) < 0) goto done;
  ixj_operand srcs[IXJ_MAX_CAT_INPUTS];
  for (Py_ssize_t k = 0; k < n; k++) srcs[k] = ops[k + 1].op;
  ixj_error err;
  ixj_status st;
  ixj_context *c = ctx->ctx;
  bool gpu = views[0].gpu;
  Py_INCREF(ctx);
  Py_BEGIN_ALLOW_THREADS
  st = gpu ? ixj_cat_cuda_device(c, views[0].device, &ops[0].op, (int)axis, (int)n, srcs, (size_t)unit, NULL, NULL, &err)
           : ixj_cat(c, &ops[0].op, (int)axis, (int)n, srcs, (size_t)unit, NULL, &err);
  Py_END_ALLOW_THREADS
  Py_DECREF(ctx);
  if (st != IXJ_OK) pyixj_raise(&err);
  else result = Py_NewRef(args[0]);
done:
  for (int k = 0; k < made; k++) pyixj_operand_clear(&ops[k]);
  for (int k = 0; k < acquired; k++) pyixj_view_release(&views[k]);
  Py_DECREF(seq);
  return result;
}

/* ---- small ones ------------------------------------------------------------------ */

static PyObject *mod_cuda_available(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  int cc = 0;
  ixj_error err;
  if (ixj_cuda_available(&cc, &err) != IXJ_OK) return Py_BuildValue("(Os)", Py_False, err.message);
  return Py_BuildValue("(Oi)", Py_True, cc);
}

static PyObject *mod_default_context(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  return Py_XNewRef((PyObject *)pyixj_context_get(NULL));
}

static PyObject *mod_forget_default(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  pyixj_context_forget_default();
  Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"copy", (PyCFunction)(void (*)(void))mod_copy, METH_FASTCALL | METH_KEYWORDS,
     "copy(dst, src, *, dst_index=None, src_index=None, elem_size=None, context=None) -> dst\n\n"
     "dst[...] = src, moving bytes (no casting: the item sizes must match); src broadcasts to dst's shape. "
     "With dst_index= or src_index= (IndexFunctions) that operand is a raw contiguous buffer viewed through it, "
     "in elements of elem_size bytes (default: the other array's item size). A read-only destination, one whose "
     "index function maps two points to one place, or a source overlapping it raise InvalidInput; nothing is "
     "written then."},
    {"fill", (PyCFunction)(void (*)(void))mod_fill, METH_FASTCALL | METH_KEYWORDS,
     "fill(dst, value, *, dst_index=None, elem_size=None, context=None) -> dst\n\n"
     "Every element of dst = value (a Python number converted to dst's element type, or an object holding one "
     "element's bytes, such as a NumPy scalar)."},
    {"cat", (PyCFunction)(void (*)(void))mod_cat, METH_FASTCALL | METH_KEYWORDS,
     "cat(dst, srcs, axis=0, *, context=None) -> dst\n\nConcatenates srcs along axis into dst in one launch."},
    {"prepare_copy", (PyCFunction)(void (*)(void))pyixj_prepare_copy, METH_FASTCALL | METH_KEYWORDS,
     "prepare_copy(dst, src, *, elem_size=None, context=None) -> Kernel\n\n"
     "Plans and compiles a copy once; the Kernel is called as kernel(dst, src) on arrays of the same layouts as "
     "the arrays it was prepared with (or on raw buffers, for operands given as IndexFunctions)."},
    {"cuda_available", mod_cuda_available, METH_NOARGS,
     "cuda_available() -> (True, compute_capability) or (False, reason)."},
    {"default_context", mod_default_context, METH_NOARGS, "default_context() -> Context: the process's own."},
    {"_forget_default_context", mod_forget_default, METH_NOARGS, "After fork, in the child (os.register_at_fork)."},
    {NULL, NULL, 0, NULL}};

static void module_free(void *m) {
  (void)m;
  pyixj_context_free_default();
  pyixj_layouts_free();
}

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        .m_name = "ixjit._ixjit",
                                        .m_doc = "ixjit's C extension: see the ixjit package.",
                                        .m_size = -1,
                                        .m_methods = module_methods,
                                        .m_free = module_free};

PyMODINIT_FUNC PyInit__ixjit(void); /* the one symbol the module exports */
PyMODINIT_FUNC PyInit__ixjit(void) {
  if (PyType_Ready(&pyixj_IndexFunctionType) < 0 || PyType_Ready(&pyixj_ContextType) < 0 ||
      PyType_Ready(&pyixj_KernelType) < 0)
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (pyixj_errors_init(m) < 0 || PyModule_AddObjectRef(m, "IndexFunction", (PyObject *)&pyixj_IndexFunctionType) < 0 ||
      PyModule_AddObjectRef(m, "Context", (PyObject *)&pyixj_ContextType) < 0 ||
      PyModule_AddObjectRef(m, "Kernel", (PyObject *)&pyixj_KernelType) < 0 ||
      PyModule_AddStringConstant(m, "__version__", IXJIT_VERSION_STRING) < 0 ||
      PyModule_AddIntConstant(m, "DLPACK_MAJOR_VERSION", DLPACK_MAJOR_VERSION) < 0 ||
      PyModule_AddIntConstant(m, "DLPACK_MINOR_VERSION", DLPACK_MINOR_VERSION) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
