/* ixjit — the record file: one line per kernel a process had to compile.
 *
 * IXJIT_RECORD=FILE (or ixj_context_options.record_path) makes a context
 * append one line per signature the disk cache lacked; `ixjit warm FILE`
 * compiles them all offline. Hand-written spec files use the same format.
 * A line is tab-separated:
 *
 *   copy TAB ELEM TAB ALIGNED TAB DST TAB SRC
 *   fill TAB ELEM TAB ALIGNED TAB DST
 *   cat  TAB ELEM TAB ALIGNED TAB AXIS TAB DST TAB SRC...
 *
 * ELEM is the element size in bytes (1..16; the operation itself checks that
 * it is 1, 2, 4, 8 or 16), ALIGNED is 0 or 1 (whether the operands' memory is
 * aligned: it selects the vector width), AXIS is the cat axis, and DST and
 * SRC are index functions in the IXFUN text syntax (docs/syntax.md). Empty
 * fields (two tabs in a row) are skipped. Blank lines and lines starting with
 * '#' carry nothing (ixj_record_is_blank). */
#ifndef IXJIT_RECORD_H
#define IXJIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "ixjit/ixfun.h"
#include "ixjit/ops.h"
#include "ixjit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One line of a record or spec file. */
typedef struct ixj_record {
  ixj_op_kind op;
  size_t elem_size;
  bool aligned;
  int axis;     /* cat only (0 otherwise) */
  int num_srcs; /* copy: 1, fill: 0, cat: 1..IXJ_MAX_CAT_INPUTS */
  ixj_ixfun *dst;
  ixj_ixfun *srcs[IXJ_MAX_CAT_INPUTS]; /* the index functions are owned by the record: ixj_record_clear */
} ixj_record;

/* Parses one line (a trailing "\n" or "\r\n" is ignored). IXJ_OK: *out is
 * filled and owns its index functions (free them with ixj_record_clear).
 * Otherwise *out holds nothing to free and err says which field is wrong:
 * IXJ_ERR_PARSE for a bad line (a blank line or comment included: test with
 * ixj_record_is_blank first), IXJ_ERR_NO_MEMORY. Whatever *out held before is
 * overwritten, not freed. */
IXJ_API ixj_status ixj_record_parse(const char *line, ixj_record *out, ixj_error *err);
/* Whether a line carries no record: empty, whitespace only, or a '#' comment
 * (after leading whitespace). */
IXJ_API bool ixj_record_is_blank(const char *line);
/* Frees the record's index functions and zeroes it: r can be reused. NULL is fine. */
IXJ_API void ixj_record_clear(ixj_record *r);
/* The line, with its trailing '\n', for an operation: srcs holds 1 index
 * function for copy, 0 for fill (srcs may be NULL), 1..IXJ_MAX_CAT_INPUTS for
 * cat; axis is written for cat only. *line is malloc'ed: free it with
 * ixj_free. The index functions are only read. */
IXJ_API ixj_status ixj_record_format(ixj_op_kind op, size_t elem_size, bool aligned, int axis, const ixj_ixfun *dst,
                                     int num_srcs, const ixj_ixfun *const *srcs, char **line, ixj_error *err);

#ifdef __cplusplus
}
#endif
#endif
