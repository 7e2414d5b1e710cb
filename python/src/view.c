/* Arrays in, without copies: the buffer protocol, DLPack capsules and
 * __array_interface__, each turned into one pyixj_view (a pointer to element
 * (0, ..., 0), shape, byte strides, item size, read-only or not). Every
 * number that comes from the producer is checked before it is used. */
#include "pyixjit.h"

#include <string.h>

static bool little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

static void clear(pyixj_view *v) {
  memset(v, 0, sizeof *v);
}

void pyixj_view_release(pyixj_view *v) {
  if (v->has_buffer) PyBuffer_Release(&v->buffer);
  if (v->managed) {
    /* a renamed ("used_") capsule no longer deletes: the consumer does */
    if (v->versioned) {
      struct DLManagedTensorVersioned *m = v->managed;
      if (m->deleter) m->deleter(m);
    } else {
      DLManagedTensor *m = v->managed;
      if (m->deleter) m->deleter(m);
    }
  }
  Py_XDECREF(v->owner);
  clear(v);
}

static int refuse_readonly(const char *what, const char *why) {
  pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s is read-only (%s): ixjit never writes it", what, why);
  return -1;
}

/* ---- the buffer protocol ------------------------------------------------- */

/* The struct-module format of one item: its kind and byte order. */
static void kind_of_format(const char *f, pyixj_view *v) {
  v->kind = KIND_OTHER;
  if (!f) f = "B";
  bool le = little_endian();
  if (*f == '<' || *f == '>' || *f == '!' || *f == '=' || *f == '@') {
    v->swapped = (*f == '<' && !le) || ((*f == '>' || *f == '!') && le);
    f++;
  }
  if (f[0] && f[1] && f[0] != 'Z') return; /* a struct of several fields */
  switch (f[0]) {
  case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': v->kind = KIND_INT; break;
  case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': v->kind = KIND_UINT; break;
  case 'e': case 'f': case 'd': v->kind = KIND_FLOAT; break;
  case '?': v->kind = KIND_BOOL; break;
  case 'Z':
    if ((f[1] == 'e' || f[1] == 'f' || f[1] == 'd') && !f[2]) v->kind = KIND_COMPLEX;
    break;
  default: break;
  }
}

/* Whether a struct-module format holds Python object references ('O'),
 * field names (between colons) aside: moving those as bytes would corrupt
 * reference counts, so such arrays are refused. */
static bool has_objects(const char *f) {
  for (; f && *f; f++) {
    if (*f == ':') {
      while (f[1] && f[1] != ':') f++;
      if (f[1]) f++;
    } else if (*f == 'O') {
      return true;
    }
  }
  return false;
}

static int from_buffer(PyObject *obj, int how, const char *what, pyixj_view *v) {
  /* the format is asked for always: NumPy keeps it with the array, and object arrays must be recognized */
  if (PyObject_GetBuffer(obj, &v->buffer, PyBUF_STRIDES | PyBUF_FORMAT) < 0) return -1;
  v->has_buffer = true;
  Py_buffer *b = &v->buffer;
  if (has_objects(b->format)) {
    PyErr_Format(PyExc_TypeError, "%s holds Python objects (format '%s'): ixjit moves plain data only", what, b->format);
    return -1;
  }
  if (b->ndim < 0 || b->ndim > IXJ_MAX_RANK) {
    pyixj_raise_msg(IXJ_ERR_LIMIT, "%s has %d dims; ixjit takes at most %d", what, b->ndim, IXJ_MAX_RANK);
    return -1;
  }
  if (b->itemsize <= 0) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: item size %zd", what, b->itemsize);
    return -1;
  }
  v->ptr = b->buf;
  v->ndim = b->ndim;
  v->itemsize = b->itemsize;
  v->readonly = b->readonly;
  int64_t row = b->itemsize;
  for (int k = b->ndim - 1; k >= 0; k--) {
    v->shape[k] = b->shape ? b->shape[k] : (int64_t)(b->len / b->itemsize);
    v->strides[k] = b->strides ? b->strides[k] : row;
    row *= v->shape[k] > 0 ? v->shape[k] : 1; /* only used without strides, for a contiguous buffer */
  }
  if (how & VIEW_KIND) kind_of_format(b->format, v);
  if ((how & VIEW_WRITE) && v->readonly) return refuse_readonly(what, "a read-only buffer");
  return 0;
}

/* ---- DLPack ---------------------------------------------------------------- */

static bool cuda_type(int t) { return t == kDLCUDA || t == kDLCUDAManaged; }

/* obj.__dlpack__(**kw), retried without the keywords an older producer
 * (DLPack < 1.0: NumPy < 2.1, PyTorch < 2.3) does not take. */
static PyObject *export_capsule(PyObject *obj, bool write) {
  PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
  if (!method) return NULL;
  PyObject *capsule = NULL;
  for (int attempt = 0; attempt < 2 && !capsule; attempt++) {
    PyObject *kw = PyDict_New();
    if (!kw) break;
    int bad = 0;
    if (attempt == 0) {
      PyObject *ver = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
      bad |= !ver || PyDict_SetItemString(kw, "max_version", ver) < 0;
      Py_XDECREF(ver);
      /* a destination must be the producer's own memory, never a copy of it */
      if (write) bad |= PyDict_SetItemString(kw, "copy", Py_False) < 0;
    }
    if (!bad) {
      PyObject *empty = PyTuple_New(0);
      capsule = empty ? PyObject_Call(method, empty, kw) : NULL;
      Py_XDECREF(empty);
    }
    Py_DECREF(kw);
    if (!capsule && attempt == 0 && PyErr_ExceptionMatches(PyExc_TypeError)) PyErr_Clear();
    else break;
  }
  Py_DECREF(method);
  return capsule;
}

static int from_dltensor(const DLTensor *t, const char *what, pyixj_view *v) {
  int dt = t->device.device_type;
  if (dt != kDLCPU && dt != kDLCUDAHost && !cuda_type(dt)) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: DLPack device type %d is not supported (CPU and CUDA only)", what, dt);
    return -1;
  }
  v->gpu = cuda_type(dt);
  v->device = v->gpu ? (int)t->device.device_id : 0;
  if (t->ndim < 0 || t->ndim > IXJ_MAX_RANK) {
    pyixj_raise_msg(IXJ_ERR_LIMIT, "%s has %d dims; ixjit takes at most %d", what, (int)t->ndim, IXJ_MAX_RANK);
    return -1;
  }
  if (t->ndim > 0 && !t->shape) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: DLPack tensor with NULL shape", what);
    return -1;
  }
  if (t->dtype.lanes == 0 || t->dtype.bits == 0 || t->dtype.bits % 8) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: DLPack dtype of %u bits x %u lanes is not whole bytes", what,
                    (unsigned)t->dtype.bits, (unsigned)t->dtype.lanes);
    return -1;
  }
  v->itemsize = (int64_t)(t->dtype.bits / 8) * t->dtype.lanes;
  v->ndim = t->ndim;
  uintptr_t p;
  if (t->byte_offset > (uint64_t)INT64_MAX || __builtin_add_overflow((uintptr_t)t->data, (uintptr_t)t->byte_offset, &p)) {
    pyixj_raise_msg(IXJ_ERR_OVERFLOW, "%s: DLPack byte_offset %llu overflows", what, (unsigned long long)t->byte_offset);
    return -1;
  }
  v->ptr = (char *)p;
  int64_t row = 1;
  for (int k = t->ndim - 1; k >= 0; k--) {
    int64_t n = t->shape[k], s = t->strides ? t->strides[k] : row;
    if (n < 0 || __builtin_mul_overflow(s, v->itemsize, &v->strides[k]) || (n > 1 && __builtin_mul_overflow(row, n, &row))) {
      pyixj_raise_msg(n < 0 ? IXJ_ERR_INVALID_ARGUMENT : IXJ_ERR_OVERFLOW,
                      "%s: DLPack dim %d (extent %lld, stride %lld) is out of range", what, k, (long long)n, (long long)s);
      return -1;
    }
    v->shape[k] = n;
  }
  switch (t->dtype.code) {
  case kDLInt: v->kind = KIND_INT; break;
  case kDLUInt: v->kind = KIND_UINT; break;
  case kDLFloat: v->kind = KIND_FLOAT; break;
  case kDLBfloat: v->kind = KIND_BFLOAT; break;
  case kDLComplex: v->kind = KIND_COMPLEX; break;
  case kDLBool: v->kind = KIND_BOOL; break;
  default: v->kind = KIND_OTHER; break;
  }
  if (t->dtype.lanes != 1) v->kind = KIND_OTHER;
  return 0;
}

/* A CUDA tensor needs its device here (ixjit.Unavailable without a GPU,
 * ValueError for a device the process lacks), checked before any of it is
 * read. */
static int check_cuda(const DLTensor *t, const char *what) {
  if (!cuda_type(t->device.device_type)) return 0;
  ixj_error err;
  ixj_status st = ixj_cuda_device_available((int)t->device.device_id, NULL, &err);
  if (st != IXJ_OK) {
    pyixj_raise_msg(st == IXJ_ERR_INVALID_ARGUMENT ? st : IXJ_ERR_UNAVAILABLE, "%s is a CUDA tensor: %s", what, err.message);
    return -1;
  }
  return 0;
}

/* __dlpack_device__ is not asked: stream=None means the legacy default
 * stream for CUDA producers, the one ixjit's CUDA calls here run on, and the
 * capsule names its device (PyTorch's __dlpack_device__ alone costs 4 us). */
static int from_dlpack(PyObject *obj, int how, const char *what, pyixj_view *v) {
  PyObject *capsule = export_capsule(obj, how & VIEW_WRITE);
  if (!capsule) return -1;
  int rc = -1;
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    struct DLManagedTensorVersioned *m = PyCapsule_GetPointer(capsule, "dltensor_versioned");
    /* consumed: from here on the deleter is ours to call (DLPack's renaming protocol) */
    if (PyCapsule_SetName(capsule, "used_dltensor_versioned") == 0) {
      v->managed = m;
      v->versioned = true;
      if (m->version.major != DLPACK_MAJOR_VERSION) {
        pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: DLPack version %u.%u; ixjit reads %d.x", what,
                        (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
      } else if (check_cuda(&m->dl_tensor, what) == 0 && from_dltensor(&m->dl_tensor, what, v) == 0) {
        v->readonly = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
        if ((how & VIEW_WRITE) && v->readonly)
          refuse_readonly(what, "DLPack READ_ONLY flag");
        else if ((how & VIEW_WRITE) && (m->flags & DLPACK_FLAG_BITMASK_IS_COPIED))
          pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: the producer exported a copy; writing it would be lost", what);
        else
          rc = 0;
      }
    }
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
    if (PyCapsule_SetName(capsule, "used_dltensor") == 0) {
      v->managed = m;
      rc = check_cuda(&m->dl_tensor, what) == 0 ? from_dltensor(&m->dl_tensor, what, v) : -1;
    }
  } else {
    PyErr_Format(PyExc_TypeError, "%s: __dlpack__ returned neither a \"dltensor_versioned\" nor a \"dltensor\" capsule",
                 what);
  }
  Py_DECREF(capsule);
  return rc;
}

/* ---- __array_interface__ ------------------------------------------------- */

static int int64_items(PyObject *seq, int n, int64_t *out, const char *what) {
  if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
    PyErr_Format(PyExc_TypeError, "%s: __array_interface__ shape and strides must be tuples of one length", what);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    out[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, k));
    if (out[k] == -1 && PyErr_Occurred()) return -1;
  }
  return 0;
}

static int from_interface(PyObject *obj, PyObject *iface, int how, const char *what, pyixj_view *v) {
  if (!PyDict_Check(iface)) {
    PyErr_Format(PyExc_TypeError, "%s: __array_interface__ is not a dict", what);
    return -1;
  }
  PyObject *shape = PyDict_GetItemString(iface, "shape"), *typestr = PyDict_GetItemString(iface, "typestr"),
           *data = PyDict_GetItemString(iface, "data"), *strides = PyDict_GetItemString(iface, "strides"),
           *mask = PyDict_GetItemString(iface, "mask");
  if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data || !PyTuple_Check(data) ||
      PyTuple_GET_SIZE(data) != 2 || (mask && mask != Py_None)) {
    PyErr_Format(PyExc_TypeError, "%s: __array_interface__ without a shape, typestr and (pointer, read-only) data, or "
                 "with a mask", what);
    return -1;
  }
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > IXJ_MAX_RANK) {
    pyixj_raise_msg(IXJ_ERR_LIMIT, "%s has %zd dims; ixjit takes at most %d", what, ndim, IXJ_MAX_RANK);
    return -1;
  }
  v->ndim = (int)ndim;
  if (int64_items(shape, v->ndim, v->shape, what) < 0) return -1;
  const char *ts = PyUnicode_AsUTF8(typestr);
  if (!ts) return -1;
  long size = 0;
  for (const char *c = ts + 2; *c >= '0' && *c <= '9' && size < 1 << 20; c++) size = size * 10 + (*c - '0');
  if (strlen(ts) < 3 || size <= 0) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "%s: typestr '%s' has no item size", what, ts);
    return -1;
  }
  if (ts[1] == 'O') {
    PyErr_Format(PyExc_TypeError, "%s holds Python objects (typestr '%s'): ixjit moves plain data only", what, ts);
    return -1;
  }
  v->itemsize = size;
  v->swapped = (ts[0] == '>' && little_endian()) || (ts[0] == '<' && !little_endian());
  switch (ts[1]) {
  case 'i': v->kind = KIND_INT; break;
  case 'u': v->kind = KIND_UINT; break;
  case 'f': v->kind = KIND_FLOAT; break;
  case 'c': v->kind = KIND_COMPLEX; break;
  case 'b': v->kind = KIND_BOOL; break;
  default: v->kind = KIND_OTHER; break;
  }
  void *p = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (!p && PyErr_Occurred()) return -1;
  int ro = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
  if (ro < 0) return -1;
  v->ptr = p;
  v->readonly = ro;
  if (strides && strides != Py_None) {
    if (int64_items(strides, v->ndim, v->strides, what) < 0) return -1;
  } else {
    int64_t row = v->itemsize;
    for (int k = v->ndim - 1; k >= 0; k--) {
      v->strides[k] = row;
      if (v->shape[k] > 1 && __builtin_mul_overflow(row, v->shape[k], &row)) {
        pyixj_raise_msg(IXJ_ERR_OVERFLOW, "%s: the shape overflows 64-bit arithmetic", what);
        return -1;
      }
    }
  }
  v->owner = Py_NewRef(obj);
  if ((how & VIEW_WRITE) && v->readonly) return refuse_readonly(what, "__array_interface__ data is read-only");
  return 0;
}

/* ---- the order ------------------------------------------------------------- */

int pyixj_view_acquire(PyObject *obj, int how, const char *what, pyixj_view *v) {
  clear(v);
  int rc;
  if (PyObject_CheckBuffer(obj)) {
    if (from_buffer(obj, how, what, v) == 0) return 0;
    /* an exporter that refuses (NumPy's datetime64, say) may still have another door */
    if (!PyErr_ExceptionMatches(PyExc_BufferError) && !PyErr_ExceptionMatches(PyExc_ValueError) &&
        !PyErr_ExceptionMatches(PyExc_NotImplementedError))
      goto fail;
    if (PyErr_ExceptionMatches(pyixj_Error)) goto fail; /* our own refusal (read-only): final */
    pyixj_view_release(v);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *iface = PyObject_GetAttrString(obj, "__array_interface__");
    if (!iface) {
      PyErr_Clear();
      PyErr_Restore(type, value, tb);
      goto fail;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    rc = from_interface(obj, iface, how, what, v);
    Py_DECREF(iface);
    if (rc == 0) return 0;
    goto fail;
  }
  PyObject *dl = PyObject_GetAttrString(obj, "__dlpack__");
  if (dl) {
    Py_DECREF(dl);
    if (from_dlpack(obj, how, what, v) == 0) return 0;
    goto fail;
  }
  PyErr_Clear();
  PyObject *iface = PyObject_GetAttrString(obj, "__array_interface__");
  if (iface) {
    rc = from_interface(obj, iface, how, what, v);
    Py_DECREF(iface);
    if (rc == 0) return 0;
    goto fail;
  }
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError,
               "%s: expected an array (the buffer protocol, __dlpack__ or __array_interface__), got %.100s", what,
               Py_TYPE(obj)->tp_name);
fail:
  pyixj_view_release(v);
  return -1;
}
