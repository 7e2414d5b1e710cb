/* ixjit's CPython extension (_ixjit): what its files share.
 *
 * One concern per file: module.c (the module, its functions, the default
 * context), errors.c (ixj_status -> exceptions), view.c (arrays in: the
 * buffer protocol, DLPack capsules, __array_interface__), operands.c (views
 * -> operands: broadcasting, element units, index functions), value.c (fill
 * values), ixfun_type.c (IndexFunction), context_type.c (Context, cache
 * statistics, warm), kernel_type.c (prepared kernels). */
#ifndef IXJIT_PYTHON_PYIXJIT_H
#define IXJIT_PYTHON_PYIXJIT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "ixjit/ixjit.h"

/* ---- errors.c ---------------------------------------------------------- */

/* The exception types, made by pyixj_errors_init (module.c adds them). */
extern PyObject *pyixj_Error, *pyixj_InvalidInput, *pyixj_Unavailable, *pyixj_BackendError;
int pyixj_errors_init(PyObject *module);
/* Raises the exception for a failed call (err as the call filled it);
 * returns NULL so callers can `return pyixj_raise(&err);`. */
PyObject *pyixj_raise(const ixj_error *err);
/* The same with a message of ixjit's own (status picks the type). */
PyObject *pyixj_raise_msg(ixj_status status, const char *fmt, ...);

/* ---- view.c: one array's memory, whatever it came as ------------------- */

typedef enum pyixj_kind { KIND_OTHER, KIND_INT, KIND_UINT, KIND_FLOAT, KIND_BFLOAT, KIND_COMPLEX, KIND_BOOL } pyixj_kind;

typedef struct pyixj_view {
  char *ptr; /* element (0, ..., 0) */
  int ndim;
  int64_t itemsize;
  int64_t shape[IXJ_MAX_RANK];
  int64_t strides[IXJ_MAX_RANK]; /* bytes */
  bool readonly;
  bool gpu;   /* CUDA device memory */
  int device; /* its CUDA device (DLPack device_id); 0 on the CPU */
  /* the element type, for fill values only */
  pyixj_kind kind;
  bool swapped; /* non-native byte order */
  /* what keeps the memory alive until pyixj_view_release */
  bool has_buffer;
  Py_buffer buffer;
  void *managed; /* a DLPack managed tensor whose deleter we call */
  bool versioned;
  PyObject *owner; /* the __array_interface__ object */
} pyixj_view;

/* What the caller will do with the memory. */
enum { VIEW_READ = 0, VIEW_WRITE = 1, VIEW_KIND = 2 /* fill in kind and swapped */ };

/* Views obj's memory without copying: the buffer protocol first (NumPy's
 * cheapest door, and the one that reaches read-only and broadcast arrays),
 * then __dlpack__ (versioned capsules preferred, legacy ones accepted), then
 * __array_interface__. VIEW_WRITE refuses read-only memory (a read-only
 * buffer, DLPack's READ_ONLY flag, a producer's copy) with InvalidInput.
 * -1 with an exception set, the view then holding nothing. */
int pyixj_view_acquire(PyObject *obj, int how, const char *what, pyixj_view *v);
void pyixj_view_release(pyixj_view *v);

/* ---- operands.c: views -> operands of the C API -------------------------- */

typedef struct pyixj_operand {
  ixj_operand op;
  ixj_ixfun *ixfun;  /* owned unless borrowed */
  bool borrowed;
  int64_t lo;        /* the first reached element, relative to the view's ptr (<= 0) */
  bool fresh;        /* a layout not seen before: its kernel may have to be compiled */
} pyixj_operand;

/* The largest element size (1, 2, 4, 8 or 16 bytes) that divides every
 * view's itemsize and every byte stride, so that any strided array (odd
 * itemsizes, unaligned field views) is moved in whole units; 0 if the views'
 * itemsizes differ (set with an exception). */
int64_t pyixj_common_unit(pyixj_view *const *views, int n, const char *op);
/* Broadcasts v to ndim/shape (NumPy's rules; the source side of copy). -1
 * with an exception when it does not broadcast. */
int pyixj_broadcast(pyixj_view *v, int ndim, const int64_t *shape);
/* The operand for v in elements of unit bytes (itemsize > unit: one more
 * trailing dim). -1 with an exception. */
int pyixj_operand_from_view(const pyixj_view *v, int64_t unit, pyixj_operand *o);
/* A raw buffer viewed through an index function (which stays the caller's):
 * element 0 at the buffer's start, its bytes the buffer's. */
int pyixj_operand_raw(const pyixj_view *v, const ixj_ixfun *f, pyixj_operand *o);
void pyixj_operand_clear(pyixj_operand *o);
/* Frees the index functions kept by layout (module teardown only). */
void pyixj_layouts_free(void);
/* The shape and element strides an operand_from_view would use, without an
 * index function (prepared kernels compare them per call). rank -1 on error. */
int pyixj_layout(const pyixj_view *v, int64_t unit, int64_t *shape, int64_t *strides, int64_t *lo, int64_t *span);

/* ---- value.c ----------------------------------------------------------- */

/* The fill value as one element of the destination's type: a Python bool,
 * int, float or complex converted to it, or any object whose buffer holds
 * exactly itemsize bytes (a NumPy scalar or 0-d array of that dtype). */
int pyixj_fill_value(PyObject *value, const pyixj_view *dst, unsigned char *out);

/* ---- ixfun_type.c ------------------------------------------------------ */

typedef struct pyixj_ixfun_obj {
  PyObject_HEAD
  ixj_ixfun *f;
} pyixj_ixfun_obj;
extern PyTypeObject pyixj_IndexFunctionType;
#define PYIXJ_IXFUN_CHECK(o) PyObject_TypeCheck((o), &pyixj_IndexFunctionType)
/* Steals f: a new IndexFunction object, or NULL (f freed) on error. */
PyObject *pyixj_ixfun_wrap(ixj_ixfun *f);

/* ---- context_type.c ---------------------------------------------------- */

typedef struct pyixj_context_obj {
  PyObject_HEAD
  ixj_context *ctx;
} pyixj_context_obj;
extern PyTypeObject pyixj_ContextType;
/* The context a call names (a Context, or None for the process default, made
 * on first use): borrowed, or NULL with an exception. */
pyixj_context_obj *pyixj_context_get(PyObject *maybe);
/* The default context is not inherited across fork (its threads are not). */
void pyixj_context_forget_default(void);
void pyixj_context_free_default(void);
/* A call releases the GIL when its destination has at least this many
 * bytes, or when a layout is new (a compile may follow, tens of ms): below
 * it, on a cache hit, releasing and taking the GIL back costs more than the
 * copy. */
#define PYIXJ_NOGIL_BYTES ((size_t)1 << 15)

/* ---- kernel_type.c ----------------------------------------------------- */

extern PyTypeObject pyixj_KernelType;
PyObject *pyixj_prepare_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* ---- module.c ---------------------------------------------------------- */

/* Keyword arguments of a METH_FASTCALL | METH_KEYWORDS call: names[] in
 * order, values[] filled (NULL when absent); -1 with TypeError for an
 * unknown or repeated name. */
int pyixj_kwargs(const char *fn, PyObject *kwnames, PyObject *const *kwvalues, int n, const char *const *names,
                 PyObject **values);

/* An elem_size= argument: *out unchanged for None or absent; -1 with
 * InvalidInput unless it is 1..16 (the library checks which sizes exist). */
int pyixj_elem_size(PyObject *o, int64_t *out);

#endif
