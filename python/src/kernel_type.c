/* ixjit.Kernel: a prepared copy (include/ixjit/kernel.h). Planned and
 * compiled once for two layouts; a call only views its arrays, checks that
 * their layouts are the prepared ones, and runs (ixj_kernel_run checks the
 * buffers). An operand prepared from an IndexFunction is a raw contiguous
 * buffer at run time. */
#include "pyixjit.h"

#include <stddef.h>
#include <string.h>

typedef struct layout {
  bool raw;
  int rank; /* in units, the split item dim included */
  int64_t shape[IXJ_MAX_RANK], strides[IXJ_MAX_RANK], lo, span;
} layout;

typedef struct kernel_obj {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  ixj_kernel *k;
  PyObject *ctx; /* a strong reference: the context outlives its kernels */
  int64_t unit, itemsize;
  int dst_ndim; /* the destination's shape as arrays give it, for broadcasting the source */
  int64_t dst_shape[IXJ_MAX_RANK];
  layout op[2];
} kernel_obj;

static PyObject *kernel_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

static int record(const pyixj_view *v, int64_t unit, layout *l, ixj_ixfun **f) {
  l->raw = false;
  l->rank = pyixj_layout(v, unit, l->shape, l->strides, &l->lo, &l->span);
  if (l->rank < 0) return -1;
  ixj_error err;
  if (ixj_ixfun_strided(l->rank, l->shape, l->strides, -l->lo, f, &err) != IXJ_OK) {
    pyixj_raise(&err);
    return -1;
  }
  return 0;
}

PyObject *pyixj_prepare_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"elem_size", "context"};
  PyObject *kw[2];
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "prepare_copy(dst, src, *, elem_size=None, context=None)");
    return NULL;
  }
  if (pyixj_kwargs("prepare_copy", kwnames, args + nargs, 2, names, kw) < 0) return NULL;
  int64_t elem = 0;
  if (pyixj_elem_size(kw[0], &elem) < 0) return NULL;
  pyixj_context_obj *ctx = pyixj_context_get(kw[1]);
  if (!ctx) return NULL;
  kernel_obj *k = PyObject_New(kernel_obj, &pyixj_KernelType);
  if (!k) return NULL;
  k->k = NULL;
  k->vectorcall = kernel_call;
  k->ctx = Py_NewRef((PyObject *)ctx);
  pyixj_view views[2];
  bool have[2] = {false, false}, raw[2];
  ixj_ixfun *made[2] = {NULL, NULL};
  const ixj_ixfun *f[2];
  PyObject *out = NULL;
  for (int o = 0; o < 2; o++) {
    raw[o] = PYIXJ_IXFUN_CHECK(args[o]);
    if (raw[o]) {
      f[o] = ((pyixj_ixfun_obj *)args[o])->f;
    } else {
      if (pyixj_view_acquire(args[o], VIEW_READ, o ? "the source" : "the destination", &views[o]) < 0) goto done;
      have[o] = true;
      if (views[o].gpu) {
        pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "prepared kernels run on the CPU only (CUDA: use ixjit.copy)");
        goto done;
      }
    }
  }
  if (raw[0] || raw[1]) {
    int64_t item = have[0] ? views[0].itemsize : have[1] ? views[1].itemsize : 0;
    if (!elem) elem = item;
    if (!elem) {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "prepare_copy of two IndexFunctions needs elem_size=");
      goto done;
    }
    for (int o = 0; o < 2; o++)
      if (have[o] && views[o].itemsize != elem) {
        pyixj_raise_msg(IXJ_ERR_MISMATCH, "an array of %lld-byte items beside %lld-byte elements",
                        (long long)views[o].itemsize, (long long)elem);
        goto done;
      }
    k->unit = elem;
    for (int o = 0; o < 2; o++)
      for (int d = 0; have[o] && d < views[o].ndim; d++)
        if (views[o].shape[d] > 1 && views[o].strides[d] % elem) {
          pyixj_raise_msg(IXJ_ERR_MISMATCH, "an array whose strides are not whole %lld-byte elements", (long long)elem);
          goto done;
        }
  } else {
    if (elem) {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "elem_size= goes with IndexFunction operands");
      goto done;
    }
    if (pyixj_broadcast(&views[1], views[0].ndim, views[0].shape) < 0) goto done;
    pyixj_view *vp[2] = {&views[0], &views[1]};
    if (!(k->unit = pyixj_common_unit(vp, 2, "prepare_copy"))) goto done;
  }
  k->itemsize = have[0] ? views[0].itemsize : have[1] ? views[1].itemsize : k->unit;
  k->dst_ndim = have[0] ? views[0].ndim : 0;
  if (have[0]) memcpy(k->dst_shape, views[0].shape, sizeof k->dst_shape);
  for (int o = 0; o < 2; o++) {
    k->op[o].raw = raw[o];
    if (!raw[o]) {
      if (record(&views[o], k->unit, &k->op[o], &made[o]) < 0) goto done;
      f[o] = made[o];
    }
  }
  ixj_error err;
  ixj_status st;
  ixj_context *c = ctx->ctx;
  Py_BEGIN_ALLOW_THREADS
  st = ixj_prepare_copy(c, f[0], f[1], (size_t)k->unit, IXJ_PREPARE_DEFAULT, &k->k, &err);
  Py_END_ALLOW_THREADS
  if (st != IXJ_OK) pyixj_raise(&err);
  else out = Py_NewRef((PyObject *)k);
done:
  for (int o = 0; o < 2; o++) {
    ixj_ixfun_free(made[o]);
    if (have[o]) pyixj_view_release(&views[o]);
  }
  Py_DECREF(k);
  return out;
}

/* The buffer of one operand at run time, once its layout is the prepared one. */
static int buffer_of(kernel_obj *k, int o, pyixj_view *v, ixj_buffer *b) {
  const layout *l = &k->op[o];
  if (l->raw) {
    pyixj_operand tmp;
    if (pyixj_operand_raw(v, NULL, &tmp) < 0) return -1;
    b->data = tmp.op.data;
    b->size_bytes = tmp.op.size_bytes;
    return 0;
  }
  if (o == 1 && pyixj_broadcast(v, k->dst_ndim, k->dst_shape) < 0) return -1;
  int64_t shape[IXJ_MAX_RANK], strides[IXJ_MAX_RANK], lo, span;
  bool same = v->itemsize == k->itemsize;
  for (int d = 0; same && d < v->ndim; d++) same = v->shape[d] <= 1 || v->strides[d] % k->unit == 0;
  int rank = same ? pyixj_layout(v, k->unit, shape, strides, &lo, &span) : 0;
  if (rank < 0) return -1;
  same = same && rank == l->rank && !memcmp(shape, l->shape, sizeof(int64_t) * (size_t)rank);
  for (int d = 0; same && d < rank; d++) same = shape[d] <= 1 || strides[d] == l->strides[d];
  if (!same) {
    pyixj_raise_msg(IXJ_ERR_MISMATCH, "%s: the array's layout (shape, strides, item size) is not the one the kernel "
                    "was prepared for", o ? "the source" : "the destination");
    return -1;
  }
  b->data = span ? v->ptr + lo * k->unit : v->ptr;
  b->size_bytes = (size_t)(span * k->unit);
  return 0;
}

static PyObject *kernel_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  kernel_obj *k = (kernel_obj *)self;
  if (PyVectorcall_NARGS(nargsf) != 2 || kwnames) {
    PyErr_SetString(PyExc_TypeError, "kernel(dst, src)");
    return NULL;
  }
  pyixj_view d, s;
  if (pyixj_view_acquire(args[0], VIEW_WRITE, "the destination", &d) < 0) return NULL;
  if (pyixj_view_acquire(args[1], VIEW_READ, "the source", &s) < 0) {
    pyixj_view_release(&d);
    return NULL;
  }
  PyObject *result = NULL;
  ixj_buffer bd, bs;
  if (d.gpu || s.gpu) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "prepared kernels run on the CPU only (CUDA: use ixjit.copy)");
  } else if (buffer_of(k, 0, &d, &bd) == 0 && buffer_of(k, 1, &s, &bs) == 0) {
    ixj_error err;
    ixj_status st;
    if (bd.size_bytes < PYIXJ_NOGIL_BYTES) {
      st = ixj_kernel_run(k->k, bd, 1, &bs, NULL, &err);
    } else {
      Py_BEGIN_ALLOW_THREADS
      st = ixj_kernel_run(k->k, bd, 1, &bs, NULL, &err);
      Py_END_ALLOW_THREADS
    }
    if (st != IXJ_OK) pyixj_raise(&err);
    else result = Py_NewRef(args[0]);
  }
  pyixj_view_release(&s);
  pyixj_view_release(&d);
  return result;
}

static void kernel_dealloc(PyObject *self) {
  kernel_obj *k = (kernel_obj *)self;
  ixj_kernel_release(k->k); /* before its context can go */
  Py_XDECREF(k->ctx);
  PyObject_Free(self);
}

static PyObject *get_elem_size(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromLongLong(((kernel_obj *)self)->unit);
}

static PyGetSetDef kernel_getset[] = {
    {"elem_size", get_elem_size, NULL, "The element size the kernel moves (bytes).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pyixj_KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ixjit.Kernel",
    .tp_basicsize = sizeof(kernel_obj),
    .tp_dealloc = kernel_dealloc,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(kernel_obj, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A prepared copy (from ixjit.prepare_copy): kernel(dst, src) -> dst. Safe to call from many threads.",
    .tp_getset = kernel_getset,
};
