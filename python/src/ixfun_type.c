/* ixjit.IndexFunction: an immutable ixj_ixfun handle; every method returns a
 * new one (the algebra of ixjit/ixfun.h, NumPy's semantics). */
#include "pyixjit.h"

#include <string.h>

PyObject *pyixj_ixfun_wrap(ixj_ixfun *f) {
  pyixj_ixfun_obj *o = PyObject_New(pyixj_ixfun_obj, &pyixj_IndexFunctionType);
  if (!o) {
    ixj_ixfun_free(f);
    return NULL;
  }
  o->f = f;
  return (PyObject *)o;
}

static PyObject *result(ixj_status st, ixj_ixfun *f, const ixj_error *err) {
  return st == IXJ_OK ? pyixj_ixfun_wrap(f) : pyixj_raise(err);
}

static void ixfun_dealloc(PyObject *self) {
  ixj_ixfun_free(((pyixj_ixfun_obj *)self)->f);
  PyObject_Free(self);
}

/* A sequence of ints (or, from *args, the args themselves, or one sequence
 * in them) into out[0..n). */
static int int_list(PyObject *args, const char *what, int64_t *out, int *n) {
  PyObject *seq = args;
  if (PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 1 && !PyLong_Check(PyTuple_GET_ITEM(args, 0)))
    seq = PyTuple_GET_ITEM(args, 0);
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
  if (len > IXJ_MAX_RANK) {
    Py_DECREF(fast);
    pyixj_raise_msg(IXJ_ERR_LIMIT, "%s: %zd items; ixjit takes at most %d dims", what, len, IXJ_MAX_RANK);
    return -1;
  }
  for (Py_ssize_t k = 0; k < len; k++) {
    PyObject *item = PySequence_Fast_GET_ITEM(fast, k);
    PyObject *index = PyNumber_Index(item);
    out[k] = index ? PyLong_AsLongLong(index) : -1;
    Py_XDECREF(index);
    if (out[k] == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
  }
  *n = (int)len;
  Py_DECREF(fast);
  return 0;
}

/* ---- construction ---------------------------------------------------------- */

static PyObject *ixfun_parse(PyObject *cls, PyObject *text) {
  (void)cls;
  const char *s = PyUnicode_Check(text) ? PyUnicode_AsUTF8(text) : NULL;
  if (!s) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "IndexFunction.parse takes a str");
    return NULL;
  }
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_parse(s, &f, &err);
  return result(st, f, &err);
}

static PyObject *ixfun_from_strides(PyObject *cls, PyObject *args, PyObject *kw) {
  (void)cls;
  static char *names[] = {"shape", "strides", "offset", NULL};
  PyObject *shape, *strides;
  long long offset = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|L:from_strides", names, &shape, &strides, &offset)) return NULL;
  int64_t sh[IXJ_MAX_RANK], st[IXJ_MAX_RANK];
  int n, m;
  if (int_list(shape, "shape", sh, &n) < 0 || int_list(strides, "strides", st, &m) < 0) return NULL;
  if (n != m) return pyixj_raise_msg(IXJ_ERR_MISMATCH, "from_strides: %d extents but %d strides", n, m);
  ixj_ixfun *f;
  ixj_error err;
  ixj_status s = ixj_ixfun_strided(n, sh, st, offset, &f, &err);
  return result(s, f, &err);
}

static PyObject *ixfun_iota(PyObject *cls, PyObject *args, PyObject *kw) {
  (void)cls;
  long long offset = 0;
  if (kw) {
    PyObject *o = PyDict_GetItemString(kw, "offset");
    if (!o || PyDict_Size(kw) != 1) {
      PyErr_SetString(PyExc_TypeError, "iota takes the shape and offset= only");
      return NULL;
    }
    offset = PyLong_AsLongLong(o);
    if (offset == -1 && PyErr_Occurred()) return NULL;
  }
  int64_t sh[IXJ_MAX_RANK];
  int n;
  if (int_list(args, "shape", sh, &n) < 0) return NULL;
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_iota(n, sh, offset, &f, &err);
  return result(st, f, &err);
}

/* ---- the algebra ------------------------------------------------------------- */

static ixj_ixfun *F(PyObject *self) { return ((pyixj_ixfun_obj *)self)->f; }

static PyObject *ixfun_permute(PyObject *self, PyObject *args) {
  int64_t p[IXJ_MAX_RANK];
  int n, perm[IXJ_MAX_RANK];
  if (int_list(args, "axes", p, &n) < 0) return NULL;
  for (int k = 0; k < n; k++) {
    if (p[k] < -IXJ_MAX_RANK || p[k] > IXJ_MAX_RANK)
      return pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "permute: axis %lld is out of range", (long long)p[k]);
    perm[k] = (int)(p[k] < 0 ? p[k] + ixj_ixfun_rank(F(self)) : p[k]);
  }
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_permute(F(self), n, perm, &f, &err);
  return result(st, f, &err);
}

static PyObject *ixfun_rotate(PyObject *self, PyObject *args) {
  int64_t a[IXJ_MAX_RANK];
  int n;
  if (int_list(args, "amounts", a, &n) < 0) return NULL;
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_rotate(F(self), n, a, &f, &err);
  return result(st, f, &err);
}

static PyObject *ixfun_reshape(PyObject *self, PyObject *args) {
  int64_t s[IXJ_MAX_RANK];
  int n;
  if (int_list(args, "shape", s, &n) < 0) return NULL;
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_reshape(F(self), n, s, &f, &err);
  return result(st, f, &err);
}

static PyObject *ixfun_expand(PyObject *self, PyObject *args) {
  int64_t s[IXJ_MAX_RANK];
  int n;
  if (int_list(args, "shape", s, &n) < 0) return NULL;
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_expand(F(self), n, s, &f, &err);
  return result(st, f, &err);
}

static PyObject *ixfun_rebase(PyObject *self, PyObject *base) {
  if (!PYIXJ_IXFUN_CHECK(base)) {
    PyErr_SetString(PyExc_TypeError, "rebase takes an IndexFunction");
    return NULL;
  }
  ixj_ixfun *f;
  ixj_error err;
  ixj_status st = ixj_ixfun_rebase(F(self), F(base), &f, &err);
  return result(st, f, &err);
}

/* f[key]: ints fix a dim (negative from the end), slices are NumPy's basic
 * slices; missing trailing dims stay whole. */
static PyObject *ixfun_getitem(PyObject *self, PyObject *key) {
  PyObject *items = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
  if (!items) return NULL;
  int rank = ixj_ixfun_rank(F(self));
  int64_t shape[IXJ_MAX_RANK];
  ixj_ixfun_shape(F(self), shape);
  Py_ssize_t n = PyTuple_GET_SIZE(items);
  ixj_slice_item sl[IXJ_MAX_RANK];
  ixj_error err;
  PyObject *out = NULL;
  if (n > rank) {
    pyixj_raise_msg(IXJ_ERR_OUT_OF_RANGE, "%zd indices for %d dims", n, rank);
    goto done;
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *it = PyTuple_GET_ITEM(items, k);
    if (PySlice_Check(it)) {
      PySliceObject *s = (PySliceObject *)it;
      long long start = 0, stop = 0, step = 1;
      if ((s->start != Py_None && (start = PyLong_AsLongLong(s->start)) == -1 && PyErr_Occurred()) ||
          (s->stop != Py_None && (stop = PyLong_AsLongLong(s->stop)) == -1 && PyErr_Occurred()) ||
          (s->step != Py_None && (step = PyLong_AsLongLong(s->step)) == -1 && PyErr_Occurred()))
        goto done;
      if (step == 0) {
        pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "slice step cannot be zero");
        goto done;
      }
      if (ixj_slice_numpy(shape[k], s->start != Py_None, start, s->stop != Py_None, stop, step, &sl[k], &err) != IXJ_OK) {
        pyixj_raise(&err);
        goto done;
      }
    } else {
      PyObject *index = PyNumber_Index(it);
      if (!index) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "IndexFunction indices are ints and slices, not %.100s", Py_TYPE(it)->tp_name);
        goto done;
      }
      long long i = PyLong_AsLongLong(index);
      Py_DECREF(index);
      if (i == -1 && PyErr_Occurred()) goto done;
      if (i < 0) i += shape[k];
      if (i < 0 || i >= shape[k]) {
        pyixj_raise_msg(IXJ_ERR_OUT_OF_RANGE, "index %lld is out of range for dim %zd of extent %lld", i, k,
                        (long long)shape[k]);
        goto done;
      }
      sl[k] = (ixj_slice_item){IXJ_SLICE_FIX, i, 1, 1};
    }
  }
  ixj_ixfun *f;
  ixj_status st = ixj_ixfun_slice(F(self), (int)n, sl, &f, &err);
  out = result(st, f, &err);
done:
  Py_DECREF(items);
  return out;
}

/* ---- queries ------------------------------------------------------------------- */

static PyObject *int_tuple(int n, const int64_t *v) {
  PyObject *t = PyTuple_New(n);
  for (int k = 0; t && k < n; k++) {
    PyObject *x = PyLong_FromLongLong(v[k]);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, k, x);
  }
  return t;
}

static PyObject *get_shape(PyObject *self, void *c) {
  (void)c;
  int64_t s[IXJ_MAX_RANK];
  ixj_ixfun_shape(F(self), s);
  return int_tuple(ixj_ixfun_rank(F(self)), s);
}

static PyObject *get_base(PyObject *self, void *c) {
  (void)c;
  int64_t s[IXJ_MAX_RANK];
  ixj_ixfun_base(F(self), s);
  return int_tuple(ixj_ixfun_base_rank(F(self)), s);
}

static PyObject *get_ndim(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(ixj_ixfun_rank(F(self)));
}

static PyObject *get_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(ixj_ixfun_num_points(F(self)));
}

static PyObject *get_num_lmads(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLong(ixj_ixfun_num_lmads(F(self)));
}

static PyObject *get_is_contiguous(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(ixj_ixfun_is_contiguous(F(self)));
}

static PyObject *get_is_linear(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(ixj_ixfun_is_linear(F(self)));
}

static PyObject *get_is_direct(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(ixj_ixfun_is_direct(F(self)));
}

static PyObject *get_offset_range(PyObject *self, void *c) {
  (void)c;
  ixj_offset_range r = ixj_ixfun_offset_range(F(self));
  if (r.empty) Py_RETURN_NONE;
  return Py_BuildValue("(LL)", (long long)r.min, (long long)r.max);
}

static PyObject *get_lmads(PyObject *self, void *c) {
  (void)c;
  int n = ixj_ixfun_num_lmads(F(self));
  PyObject *list = PyList_New(n);
  for (int k = 0; list && k < n; k++) {
    const ixj_lmad *l = ixj_ixfun_lmad(F(self), k);
    int64_t perm[IXJ_MAX_RANK];
    for (int d = 0; d < l->rank; d++) perm[d] = l->perm[d];
    PyObject *d = Py_BuildValue("{s:L,s:N,s:N,s:N,s:N}", "offset", (long long)l->offset, "shape",
                                int_tuple(l->rank, l->shape), "strides", int_tuple(l->rank, l->stride), "rotates",
                                int_tuple(l->rank, l->rotate), "permutation", int_tuple(l->rank, perm));
    if (!d) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, k, d);
  }
  return list;
}

static PyObject *ixfun_index(PyObject *self, PyObject *args) {
  int64_t idx[IXJ_MAX_RANK], off;
  int n;
  if (int_list(args, "index", idx, &n) < 0) return NULL;
  ixj_error err;
  if (ixj_ixfun_index(F(self), n, idx, &off, &err) != IXJ_OK) return pyixj_raise(&err);
  return PyLong_FromLongLong(off);
}

static PyObject *ixfun_required_bytes(PyObject *self, PyObject *arg) {
  Py_ssize_t e = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (e == -1 && PyErr_Occurred()) return NULL;
  if (e <= 0) return pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "required_bytes: element size %zd", e);
  size_t bytes;
  ixj_error err;
  if (ixj_ixfun_required_bytes(F(self), (size_t)e, &bytes, &err) != IXJ_OK) return pyixj_raise(&err);
  return PyLong_FromSize_t(bytes);
}

/* Every point's offset, as a NumPy int64 array of the function's shape (row-
 * major walk of the logical index, the shape of the result). */
static PyObject *ixfun_offsets(PyObject *self, PyObject *unused) {
  (void)unused;
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np) return NULL;
  PyObject *shape = get_shape(self, NULL);
  PyObject *arr = shape ? PyObject_CallMethod(np, "empty", "Os", shape, "int64") : NULL;
  Py_XDECREF(shape);
  Py_DECREF(np);
  if (!arr) return NULL;
  Py_buffer b;
  if (PyObject_GetBuffer(arr, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
    Py_DECREF(arr);
    return NULL;
  }
  const ixj_ixfun *f = F(self);
  int rank = ixj_ixfun_rank(f);
  int64_t ext[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, n = ixj_ixfun_num_points(f), *out = b.buf;
  ixj_ixfun_shape(f, ext);
  ixj_error err;
  ixj_status st = IXJ_OK;
  Py_BEGIN_ALLOW_THREADS
  for (int64_t p = 0; p < n && st == IXJ_OK; p++) {
    st = ixj_ixfun_index(f, rank, idx, &out[p], &err);
    for (int k = rank - 1; k >= 0 && ++idx[k] == ext[k]; k--) idx[k] = 0;
  }
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&b);
  if (st != IXJ_OK) {
    Py_DECREF(arr);
    return pyixj_raise(&err);
  }
  return arr;
}

/* ---- text, equality ------------------------------------------------------------- */

static PyObject *ixfun_str(PyObject *self) {
  char *s = ixj_ixfun_to_string(F(self));
  if (!s) return PyErr_NoMemory();
  PyObject *r = PyUnicode_FromString(s);
  ixj_free(s);
  return r;
}

static PyObject *ixfun_repr(PyObject *self) {
  PyObject *s = ixfun_str(self);
  if (!s) return NULL;
  PyObject *r = PyUnicode_FromFormat("IndexFunction.parse(%R)", s);
  Py_DECREF(s);
  return r;
}

static Py_hash_t ixfun_hash(PyObject *self) {
  PyObject *s = ixfun_str(self);
  if (!s) return -1;
  Py_hash_t h = PyObject_Hash(s);
  Py_DECREF(s);
  return h;
}

static PyObject *ixfun_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PYIXJ_IXFUN_CHECK(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = ixj_ixfun_equal(F(a), F(b));
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *ixfun_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  (void)kw;
  if (PyTuple_GET_SIZE(args) == 1 && PyUnicode_Check(PyTuple_GET_ITEM(args, 0)))
    return ixfun_parse(NULL, PyTuple_GET_ITEM(args, 0));
  PyErr_SetString(PyExc_TypeError, "IndexFunction(text); or IndexFunction.parse, .iota, .from_strides");
  return NULL;
}

static PyMethodDef ixfun_methods[] = {
    {"parse", (PyCFunction)ixfun_parse, METH_O | METH_CLASS,
     "parse(text) -> IndexFunction\n\nThe IXFUN syntax: a pipeline such as 'iota 8 6 | permute 1 0', or Futhark's "
     "printed format. Malformed text raises InvalidInput (a ValueError) with .column."},
    {"from_strides", (PyCFunction)(void (*)(void))ixfun_from_strides, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_strides(shape, strides, offset=0) -> IndexFunction\n\nOne LMAD, NumPy/DLPack style: strides in elements "
     "(negative and zero allowed), the first element at offset."},
    {"iota", (PyCFunction)(void (*)(void))ixfun_iota, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "iota(*shape, offset=0) -> IndexFunction\n\nThe row-major array of shape."},
    {"permute", ixfun_permute, METH_VARARGS, "permute(*axes): new dim k is old dim axes[k] (numpy.transpose)."},
    {"rotate", ixfun_rotate, METH_VARARGS, "rotate(*amounts): new[i] = old[(i + amount) mod n] per dim."},
    {"reshape", ixfun_reshape, METH_VARARGS, "reshape(*shape): row-major reshape (one -1 allowed)."},
    {"expand", ixfun_expand, METH_VARARGS, "expand(*shape): numpy.broadcast_to."},
    {"rebase", ixfun_rebase, METH_O, "rebase(base): put this function on top of base instead of its iota."},
    {"index", ixfun_index, METH_VARARGS, "index(*i) -> int: the flat offset of one point."},
    {"offsets", ixfun_offsets, METH_NOARGS, "offsets() -> numpy.ndarray: every point's offset (int64, this shape)."},
    {"required_bytes", ixfun_required_bytes, METH_O,
     "required_bytes(elem_size) -> int: the bytes a buffer needs for every reached offset."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef ixfun_getset[] = {
    {"shape", get_shape, NULL, "The logical shape (tuple).", NULL},
    {"ndim", get_ndim, NULL, "The number of logical dims.", NULL},
    {"size", get_size, NULL, "The number of points.", NULL},
    {"base", get_base, NULL, "The shape of the row-major array it was built over.", NULL},
    {"num_lmads", get_num_lmads, NULL, "The LMADs in the chain.", NULL},
    {"lmads", get_lmads, NULL, "The chain, head first: dicts of offset, shape, strides, rotates, permutation.", NULL},
    {"is_contiguous", get_is_contiguous, NULL, "The reached offsets form one gap-free interval (proven).", NULL},
    {"is_linear", get_is_linear, NULL, "f(i) is the row-major offset of i.", NULL},
    {"is_direct", get_is_direct, NULL, "Exactly iota(base).", NULL},
    {"offset_range", get_offset_range, NULL, "(min, max) reached offset (an enclosure for chains), None if empty.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMappingMethods ixfun_mapping = {NULL, ixfun_getitem, NULL};

PyTypeObject pyixj_IndexFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ixjit.IndexFunction",
    .tp_basicsize = sizeof(pyixj_ixfun_obj),
    .tp_dealloc = ixfun_dealloc,
    .tp_repr = ixfun_repr,
    .tp_str = ixfun_str,
    .tp_hash = ixfun_hash,
    .tp_as_mapping = &ixfun_mapping,
    .tp_richcompare = ixfun_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "IndexFunction(text)\n\nAn immutable index function (a chain of LMADs): maps every point of its shape "
              "to a flat element offset. Made by parse, iota or from_strides; every operation returns a new one.",
    .tp_methods = ixfun_methods,
    .tp_getset = ixfun_getset,
    .tp_new = ixfun_new,
};
