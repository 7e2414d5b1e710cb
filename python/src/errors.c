/* ixj_status -> Python exceptions. Every exception ixjit raises derives from
 * ixjit.Error and carries the library's status name and, for text, the
 * 1-based column; the value mistakes are also ValueErrors, a missing GPU
 * also a RuntimeError (ixjit.Unavailable), out of memory a MemoryError. */
#include "pyixjit.h"

#include <stdarg.h>
#include <string.h>

PyObject *pyixj_Error, *pyixj_InvalidInput, *pyixj_Unavailable, *pyixj_BackendError;

int pyixj_errors_init(PyObject *module) {
  pyixj_Error = PyErr_NewExceptionWithDoc("ixjit.Error", "Base of every exception ixjit raises: attributes status "
                                          "(the library's status name) and column (1-based, text input; else 0).",
                                          NULL, NULL);
  if (!pyixj_Error) return -1;
  PyObject *bases = PyTuple_Pack(2, pyixj_Error, PyExc_ValueError);
  if (!bases) return -1;
  pyixj_InvalidInput = PyErr_NewExceptionWithDoc(
      "ixjit.InvalidInput",
      "A value ixjit refuses (also a ValueError): malformed IXFUN text (see column), a shape, stride, element size, "
      "axis or buffer that does not fit, a read-only or self-overlapping destination.",
      bases, NULL);
  Py_DECREF(bases);
  if (!pyixj_InvalidInput) return -1;
  bases = PyTuple_Pack(2, pyixj_Error, PyExc_RuntimeError);
  if (!bases) return -1;
  pyixj_Unavailable = PyErr_NewExceptionWithDoc(
      "ixjit.Unavailable", "A backend that is not there: no CUDA driver, no GPU, no NVRTC (also a RuntimeError).",
      bases, NULL);
  pyixj_BackendError = PyErr_NewExceptionWithDoc(
      "ixjit.BackendError",
      "LLVM, NVRTC or the CUDA driver failed, a file could not be used, or an internal error (also a RuntimeError).",
      bases, NULL);
  Py_DECREF(bases);
  if (!pyixj_Unavailable || !pyixj_BackendError) return -1;
  if (PyModule_AddObjectRef(module, "Error", pyixj_Error) < 0 ||
      PyModule_AddObjectRef(module, "InvalidInput", pyixj_InvalidInput) < 0 ||
      PyModule_AddObjectRef(module, "Unavailable", pyixj_Unavailable) < 0 ||
      PyModule_AddObjectRef(module, "BackendError", pyixj_BackendError) < 0)
    return -1;
  return 0;
}

static PyObject *type_for(ixj_status st) {
  switch (st) {
  case IXJ_ERR_NO_MEMORY: return PyExc_MemoryError;
  case IXJ_ERR_UNAVAILABLE: return pyixj_Unavailable;
  case IXJ_ERR_BACKEND:
  case IXJ_ERR_IO:
  case IXJ_ERR_INTERNAL: return pyixj_BackendError;
  default: return pyixj_InvalidInput;
  }
}

static PyObject *raise(ixj_status st, int column, const char *message) {
  PyObject *type = type_for(st);
  /* the library's parse messages already start with "column N: " */
  PyObject *text = column > 0 && strncmp(message, "column ", 7) ? PyUnicode_FromFormat("column %d: %s", column, message)
                                                                 : PyUnicode_FromString(message);
  if (!text) return NULL;
  PyObject *exc = PyObject_CallOneArg(type, text);
  Py_DECREF(text);
  if (!exc) return NULL;
  if (type != PyExc_MemoryError) {
    PyObject *name = PyUnicode_FromString(ixj_status_name(st)), *col = PyLong_FromLong(column);
    if (!name || !col || PyObject_SetAttrString(exc, "status", name) < 0 || PyObject_SetAttrString(exc, "column", col) < 0) {
      Py_XDECREF(name);
      Py_XDECREF(col);
      Py_DECREF(exc);
      return NULL;
    }
    Py_DECREF(name);
    Py_DECREF(col);
  }
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
  return NULL;
}

PyObject *pyixj_raise(const ixj_error *err) { return raise(err->status, err->column, err->message); }

PyObject *pyixj_raise_msg(ixj_status status, const char *fmt, ...) {
  char message[IXJ_ERROR_MESSAGE_SIZE * 2];
  va_list ap;
  va_start(ap, fmt);
  PyOS_vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return raise(status, 0, message);
}
