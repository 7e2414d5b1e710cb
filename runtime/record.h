/* Internal: appending to a record file (the line format and its parser are
 * public: include/ixjit/record.h, runtime/record.c). */
#ifndef IXJIT_RUNTIME_RECORD_H
#define IXJIT_RUNTIME_RECORD_H

#include "ixjit/record.h"

/* Appends the line a call would record to the file open (O_APPEND) at fd, in
 * one write(), so lines of several processes never interleave. The index
 * functions are only read. IXJ_ERR_IO when the write fails or is short. */
ixj_status ixj__record_append(int fd, ixj_op_kind op, size_t elem_size, bool aligned, int axis, const ixj_ixfun *dst,
                              int num_srcs, const ixj_ixfun *const *srcs, ixj_error *err);

#endif
