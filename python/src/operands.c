/* Views -> operands of the C API. A view's byte strides become element
 * strides in a unit every stride and the item size are multiples of (so an
 * item of 12 bytes moves as 3 units of 4, and a field view with odd strides
 * as bytes); the pointer moves to the lowest element the view reaches, which
 * the index function is shifted by, as DLPack and NumPy negative strides
 * need. All arithmetic on the producer's numbers is checked. */
#include "pyixjit.h"

#include <string.h>

static void shape_text(char *buf, size_t size, int n, const int64_t *shape) {
  size_t len = 0;
  buf[0] = '\0';
  len += (size_t)PyOS_snprintf(buf + len, size - len, "(");
  for (int k = 0; k < n && len < size; k++)
    len += (size_t)PyOS_snprintf(buf + len, size - len, k ? ", %lld" : "%lld", (long long)shape[k]);
  if (len < size) PyOS_snprintf(buf + len, size - len, n == 1 ? ",)" : ")");
}

int64_t pyixj_common_unit(pyixj_view *const *views, int n, const char *op) {
  int64_t item = views[0]->itemsize, unit = 16;
  for (int k = 1; k < n; k++)
    if (views[k]->itemsize != item) {
      pyixj_raise_msg(IXJ_ERR_MISMATCH, "%s: item sizes differ (%lld and %lld bytes); ixjit moves bytes and does not cast",
                      op, (long long)item, (long long)views[k]->itemsize);
      return 0;
    }
  while (unit > 1 && item % unit) unit /= 2;
  for (int k = 0; k < n; k++)
    for (int d = 0; d < views[k]->ndim; d++)
      while (unit > 1 && views[k]->shape[d] > 1 && views[k]->strides[d] % unit) unit /= 2;
  return unit;
}

int pyixj_broadcast(pyixj_view *v, int ndim, const int64_t *shape) {
  if (v->ndim > ndim) goto bad;
  int64_t s[IXJ_MAX_RANK], st[IXJ_MAX_RANK];
  int lead = ndim - v->ndim;
  for (int k = 0; k < ndim; k++) {
    int64_t n = k < lead ? 1 : v->shape[k - lead], stride = k < lead ? 0 : v->strides[k - lead];
    if (n == shape[k]) {
      s[k] = n;
      st[k] = stride;
    } else if (n == 1) {
      s[k] = shape[k];
      st[k] = 0;
    } else {
      goto bad;
    }
  }
  v->ndim = ndim;
  memcpy(v->shape, s, sizeof(int64_t) * (size_t)ndim);
  memcpy(v->strides, st, sizeof(int64_t) * (size_t)ndim);
  return 0;
bad:;
  char a[200], b[200];
  shape_text(a, sizeof a, v->ndim, v->shape);
  shape_text(b, sizeof b, ndim, shape);
  pyixj_raise_msg(IXJ_ERR_MISMATCH, "the source's shape %s does not broadcast to the destination's %s", a, b);
  return -1;
}

int pyixj_layout(const pyixj_view *v, int64_t unit, int64_t *shape, int64_t *strides, int64_t *lo, int64_t *span) {
  int rank = v->ndim;
  bool empty = false;
  for (int k = 0; k < v->ndim; k++) {
    shape[k] = v->shape[k];
    /* exact: pyixj_common_unit divides them; a dim of extent <= 1 is never
     * stepped, so its stride (arbitrary in NumPy) is 0, one layout for all */
    strides[k] = shape[k] > 1 ? v->strides[k] / unit : 0;
    if (shape[k] == 0) empty = true;
    if (shape[k] < 0) {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "extent %lld of dim %d is negative", (long long)shape[k], k);
      return -1;
    }
  }
  if (v->itemsize > unit) {
    if (rank == IXJ_MAX_RANK) {
      pyixj_raise_msg(IXJ_ERR_LIMIT, "%d dims of %lld-byte items: one too many to split them into %lld-byte units",
                      rank, (long long)v->itemsize, (long long)unit);
      return -1;
    }
    shape[rank] = v->itemsize / unit;
    strides[rank] = 1;
    rank++;
  }
  int64_t a = 0, b = 0;
  for (int k = 0; k < rank && !empty; k++) {
    int64_t step;
    if (shape[k] > 1 && (__builtin_mul_overflow(shape[k] - 1, strides[k], &step) ||
                         (step < 0 ? __builtin_add_overflow(a, step, &a) : __builtin_add_overflow(b, step, &b)))) {
      pyixj_raise_msg(IXJ_ERR_OVERFLOW, "the offsets of dim %d overflow 64-bit arithmetic", k);
      return -1;
    }
  }
  int64_t n = 0, bytes;
  if (!empty && (__builtin_sub_overflow(b, a, &n) || __builtin_add_overflow(n, 1, &n) ||
                 __builtin_mul_overflow(n, unit, &bytes) || __builtin_mul_overflow(a, unit, &bytes) || a == INT64_MIN)) {
    pyixj_raise_msg(IXJ_ERR_OVERFLOW, "the array's byte extent overflows 64-bit arithmetic");
    return -1;
  }
  *lo = empty ? 0 : a;
  *span = empty ? 0 : n;
  return rank;
}

/* Index functions by layout, so that a call on arrays seen before makes
 * none (a malloc, the validation and a free were most of a cache hit's
 * cost). The table is read and filled under the GIL; a slot, once filled,
 * is never replaced or freed while the module lives, because a call that
 * released the GIL may still be using its index function. A layout whose
 * slot is taken gets an index function of its own per call. */
#define LAYOUT_SLOTS 512
typedef struct layout_slot {
  int rank; /* 0: empty (a rank-0 layout is not kept) */
  int64_t shape[IXJ_MAX_RANK], strides[IXJ_MAX_RANK];
  ixj_ixfun *f;
} layout_slot;
static layout_slot layouts[LAYOUT_SLOTS];

static size_t layout_hash(int rank, const int64_t *shape, const int64_t *strides) {
  uint64_t h = (uint64_t)rank * 0x9e3779b97f4a7c15u;
  for (int k = 0; k < rank; k++) {
    h = (h ^ (uint64_t)shape[k]) * 0x100000001b3u;
    h = (h ^ (uint64_t)strides[k]) * 0x100000001b3u;
  }
  return (size_t)((h ^ (h >> 29)) % LAYOUT_SLOTS);
}

void pyixj_layouts_free(void) {
  for (int k = 0; k < LAYOUT_SLOTS; k++) {
    ixj_ixfun_free(layouts[k].f);
    layouts[k].f = NULL;
    layouts[k].rank = 0;
  }
}

int pyixj_operand_from_view(const pyixj_view *v, int64_t unit, pyixj_operand *o) {
  memset(o, 0, sizeof *o);
  int64_t shape[IXJ_MAX_RANK], strides[IXJ_MAX_RANK], lo, span;
  int rank = pyixj_layout(v, unit, shape, strides, &lo, &span);
  if (rank < 0) return -1;
  uintptr_t below = (uintptr_t)0 - (uintptr_t)(lo * unit), end;
  if (span && ((uintptr_t)v->ptr < below ||
               __builtin_add_overflow((uintptr_t)v->ptr - below, (uintptr_t)(span * unit), &end))) {
    pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "the array's bytes wrap around the address space");
    return -1;
  }
  layout_slot *slot = NULL;
  if (rank > 0) {
    slot = &layouts[layout_hash(rank, shape, strides)];
    size_t bytes = sizeof(int64_t) * (size_t)rank;
    if (slot->rank == rank && !memcmp(slot->shape, shape, bytes) && !memcmp(slot->strides, strides, bytes)) {
      o->borrowed = true;
      o->ixfun = slot->f;
      o->lo = lo;
      o->op.ixfun = slot->f;
      o->op.data = span ? v->ptr + lo * unit : v->ptr;
      o->op.size_bytes = (size_t)(span * unit);
      return 0;
    }
  }
  ixj_error err;
  if (ixj_ixfun_strided(rank, shape, strides, -lo, &o->ixfun, &err) != IXJ_OK) {
    pyixj_raise(&err);
    return -1;
  }
  o->fresh = true;
  if (slot && slot->rank == 0) { /* the slot is free: the table keeps it */
    slot->rank = rank;
    memcpy(slot->shape, shape, sizeof(int64_t) * (size_t)rank);
    memcpy(slot->strides, strides, sizeof(int64_t) * (size_t)rank);
    slot->f = o->ixfun;
    o->borrowed = true;
  }
  o->lo = lo;
  o->op.ixfun = o->ixfun;
  o->op.data = span ? v->ptr + lo * unit : v->ptr;
  o->op.size_bytes = (size_t)(span * unit);
  return 0;
}

int pyixj_operand_raw(const pyixj_view *v, const ixj_ixfun *f, pyixj_operand *o) {
  memset(o, 0, sizeof *o);
  int64_t row = v->itemsize, count = 1;
  for (int k = v->ndim - 1; k >= 0; k--) {
    if (v->shape[k] > 1 && v->strides[k] != row) {
      pyixj_raise_msg(IXJ_ERR_INVALID_ARGUMENT, "a buffer viewed through an index function must be contiguous");
      return -1;
    }
    if (__builtin_mul_overflow(row, v->shape[k], &row) || __builtin_mul_overflow(count, v->shape[k], &count)) {
      pyixj_raise_msg(IXJ_ERR_OVERFLOW, "the buffer's size overflows 64-bit arithmetic");
      return -1;
    }
  }
  o->borrowed = true;
  o->fresh = true; /* explicit index functions are not in the layout table: assume a compile may follow */
  o->ixfun = (ixj_ixfun *)f;
  o->op.ixfun = f;
  o->op.data = v->ptr;
  o->op.size_bytes = (size_t)(count * v->itemsize);
  return 0;
}

void pyixj_operand_clear(pyixj_operand *o) {
  if (!o->borrowed) ixj_ixfun_free(o->ixfun);
  memset(o, 0, sizeof *o);
}
