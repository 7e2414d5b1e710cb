/* The fill value as one element of the destination's type. Python numbers
 * are converted the way NumPy assigns them (ints that do not fit are an
 * OverflowError, floats to ints are refused rather than truncated); anything
 * else must hold exactly one element's bytes. */
#include "pyixjit.h"

#include <string.h>

static void swap_bytes(unsigned char *p, int64_t n) {
  for (int64_t a = 0, b = n - 1; a < b; a++, b--) {
    unsigned char t = p[a];
    p[a] = p[b];
    p[b] = t;
  }
}

static int pack_int(PyObject *value, const pyixj_view *d, unsigned char *out) {
  int overflow = 0;
  int64_t n = d->itemsize;
  if (d->kind == KIND_UINT) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (n < 8 && u >> (8 * n)) overflow = 1;
    if (!overflow) {
      if (n == 1) out[0] = (uint8_t)u;
      if (n == 2) { uint16_t x = (uint16_t)u; memcpy(out, &x, 2); }
      if (n == 4) { uint32_t x = (uint32_t)u; memcpy(out, &x, 4); }
      if (n == 8) { uint64_t x = (uint64_t)u; memcpy(out, &x, 8); }
    }
  } else {
    long long s = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (s == -1 && PyErr_Occurred()) return -1;
    if (!overflow && n < 8 && (s < -(1LL << (8 * n - 1)) || s >= (1LL << (8 * n - 1)))) overflow = 1;
    if (!overflow) {
      if (n == 1) { int8_t x = (int8_t)s; memcpy(out, &x, 1); }
      if (n == 2) { int16_t x = (int16_t)s; memcpy(out, &x, 2); }
      if (n == 4) { int32_t x = (int32_t)s; memcpy(out, &x, 4); }
      if (n == 8) { int64_t x = (int64_t)s; memcpy(out, &x, 8); }
    }
  }
  if (overflow || !(n == 1 || n == 2 || n == 4 || n == 8)) {
    PyErr_Format(PyExc_OverflowError, "fill value %R does not fit the destination's %lld-byte integers", value,
                 (long long)n);
    return -1;
  }
  return 0;
}

static int pack_float(double x, int64_t n, pyixj_kind kind, unsigned char *out) {
  int le = 1; /* native order: swapped afterwards when the array is not */
  const uint16_t one = 1;
  le = *(const uint8_t *)&one == 1;
  if (kind == KIND_BFLOAT && n == 2) {
    float f = (float)x;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) bits |= 0x00400000u; /* NaN stays NaN */
    else bits += 0x7fffu + ((bits >> 16) & 1u);                   /* round to nearest even */
    uint16_t h = (uint16_t)(bits >> 16);
    memcpy(out, &h, 2);
    return 0;
  }
  if (n == 2) return PyFloat_Pack2(x, (char *)out, le);
  if (n == 4) return PyFloat_Pack4(x, (char *)out, le);
  if (n == 8) return PyFloat_Pack8(x, (char *)out, le);
  PyErr_Format(PyExc_TypeError, "fill: a %lld-byte float destination takes its value as bytes (a NumPy scalar)",
               (long long)n);
  return -1;
}

int pyixj_fill_value(PyObject *value, const pyixj_view *d, unsigned char *out) {
  int64_t n = d->itemsize;
  memset(out, 0, (size_t)n);
  bool number = PyBool_Check(value) || PyLong_Check(value) || PyFloat_Check(value) || PyComplex_Check(value);
  if (number && d->kind != KIND_OTHER) {
    int rc = 0;
    if (d->kind == KIND_BOOL) {
      if (PyComplex_Check(value) || PyFloat_Check(value)) goto wrong;
      int t = PyObject_IsTrue(value);
      if (t < 0) return -1;
      out[0] = (unsigned char)t;
      return 0;
    }
    if (d->kind == KIND_INT || d->kind == KIND_UINT) {
      if (!PyLong_Check(value)) goto wrong;
      rc = pack_int(value, d, out);
    } else if (d->kind == KIND_FLOAT || d->kind == KIND_BFLOAT) {
      if (PyComplex_Check(value)) goto wrong;
      double x = PyFloat_AsDouble(value);
      if (x == -1.0 && PyErr_Occurred()) return -1;
      rc = pack_float(x, n, d->kind, out);
    } else { /* complex: two floats */
      Py_complex c = PyComplex_AsCComplex(value);
      if (c.real == -1.0 && PyErr_Occurred()) return -1;
      rc = pack_float(c.real, n / 2, KIND_FLOAT, out);
      if (rc == 0) rc = pack_float(c.imag, n / 2, KIND_FLOAT, out + n / 2);
      if (rc == 0 && d->swapped) {
        swap_bytes(out, n / 2);
        swap_bytes(out + n / 2, n / 2);
      }
      return rc;
    }
    if (rc == 0 && d->swapped) swap_bytes(out, n);
    return rc;
  }
  if (PyObject_CheckBuffer(value)) {
    Py_buffer b;
    if (PyObject_GetBuffer(value, &b, PyBUF_SIMPLE) < 0) {
      /* a 0-d NumPy array of another layout: not contiguous bytes */
      return -1;
    }
    int ok = b.len == n;
    if (ok) memcpy(out, b.buf, (size_t)n);
    PyBuffer_Release(&b);
    if (ok) return 0;
    PyErr_Format(PyExc_ValueError, "fill value %R holds %zd bytes; the destination's elements have %lld", value,
                 b.len, (long long)n);
    return -1;
  }
wrong:
  PyErr_Format(PyExc_TypeError,
               "fill value %R does not convert to the destination's element type; pass a NumPy scalar of its dtype",
               value);
  return -1;
}
