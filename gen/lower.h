/* Internal: the index math of a kernel as a small typed program.
 *
 * Every kernel ixjit emits, for every target, computes the same things: the
 * coordinates of its first point (an unflatten by magic division), the offset
 * of a point in each operand (rotations, strides, the re-linearisation of a
 * chain) and the odometer step to the next point. That arithmetic is lowered
 * here once, into an array of three-address instructions over 32- and 64-bit
 * integers; the LLVM and CUDA emitters (gen/emit_llvm.c, gen/emit_cuda.c) only
 * print it into their loop skeletons, and ixj__iprog_eval runs it in C so that unit tests
 * check a kernel's index math against the reference interpreter without LLVM
 * or NVRTC.
 *
 * A value is the index of the instruction that defines it. Constants and the
 * skeleton's inputs (a loop counter, a digit kept in a variable) are
 * instructions too; printers inline them. Instructions are appended in order,
 * so a printer can print any range [from, to) of the program into one slot of
 * a template, provided every value the range reads is defined in a range
 * printed before it, in a block that dominates it: the emitters' concern. */
#ifndef IXJIT_GEN_LOWER_H
#define IXJIT_GEN_LOWER_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "plan.h"

typedef enum iprog_type {
  IPROG_I1,  /* a condition */
  IPROG_U32, /* 32-bit index arithmetic */
  IPROG_U64, /* 64-bit index arithmetic */
  IPROG_S64  /* element offsets (strides may be negative) */
} iprog_type;

typedef enum iprog_op {
  IOP_INPUT,        /* the skeleton's value number imm (a name the printer is given) */
  IOP_CONST,        /* imm */
  IOP_ADD,          /* a + b, wrapping in the type */
  IOP_SUB,          /* a - b */
  IOP_MUL,          /* a * b, low half */
  IOP_MULHI,        /* high half of the double-width product of a and b (unsigned) */
  IOP_LSHR,         /* a >> imm, logical */
  IOP_AND,          /* a & b */
  IOP_EQ,           /* a == b (I1) */
  IOP_ULT,          /* a < b, unsigned (I1) */
  IOP_SELECT,       /* a ? b : c */
  IOP_CAST,         /* a converted to the type: zero-extend, truncate, or the same bits */
  /* Only in the CUDA kernels made to measure ixjit against other division
   * styles; the LLVM printer refuses them (no hardware division in any IR). */
  IOP_UDIV,         /* a / b */
  IOP_UREM,         /* a % b */
  IOP_ARG_QUOTIENT, /* a / divisor number imm, with the divisor's magic read at run time (imm2: its value) */
  IOP_ARG_DIVISOR   /* divisor number imm, read at run time (imm2: its value) */
} iprog_op;

/* LLVM's poison-generating flags: promises the lowering can prove. */
enum { IPROG_NUW = 1, IPROG_NSW = 2 };

typedef struct iprog_inst {
  uint8_t op;    /* iprog_op */
  uint8_t type;  /* iprog_type of the result */
  uint8_t flags; /* IPROG_NUW | IPROG_NSW */
  int32_t a, b, c;
  int64_t imm, imm2;
} iprog_inst;

typedef struct iprog {
  iprog_inst *inst;
  int count, cap;
  bool oom; /* sticks once an allocation failed; every later value is 0 */
} iprog;

/* How quotients by constants are computed. */
typedef enum lower_division {
  LOWER_DIV_MAGIC,  /* the bound-aware multiply-high sequences of gen/divmod (ixjit) */
  LOWER_DIV_PLAIN,  /* a / D and a % D on the constants (to measure NVRTC's own reduction) */
  LOWER_DIV_RUNTIME /* PyTorch IntDivider style: magic read from the arguments */
} lower_division;

#define LOWER_MAX_RUNTIME_DIVISORS 64
#define LOWER_MAX_INPUTS 64

/* The lowering state: the program being built and the plan's index width. */
typedef struct lower {
  iprog prog;
  const ixj_plan *plan;
  iprog_type index; /* IPROG_U32 or IPROG_U64 */
  lower_division division;
  int num_divisors; /* LOWER_DIV_RUNTIME: divisors read at run time, in order */
  uint32_t divisor[LOWER_MAX_RUNTIME_DIVISORS];
  ixj_error error;  /* the first failure (status IXJ_OK while there is none) */
  /* for the printers */
  int printed;                          /* instructions already printed */
  int num_inputs;
  char input[LOWER_MAX_INPUTS][24];     /* the skeleton's name of each input */
} lower;

/* ---- the program ---------------------------------------------------------- */

void ixj__lower_init(lower *lw, const ixj_plan *p, lower_division division);
void ixj__lower_dispose(lower *lw);
/* The first failure: IXJ_ERR_NO_MEMORY when an instruction could not be
 * appended, IXJ_ERR_INTERNAL when the plan broke a promise (a division the
 * plan's bounds should have made valid). */
ixj_status ixj__lower_status(const lower *lw, ixj_error *err);

int ixj__iprog_input(iprog *p, iprog_type type, int slot);
/* A new input whose name in the skeleton is fmt with k (printf-style). */
int ixj__lower_input(lower *lw, iprog_type type, const char *fmt, int k) IXJ_PRINTF(3, 0);
/* Records a failure (the first one is kept). */
void ixj__lower_fail(lower *lw, ixj_status status, const char *message);
int ixj__iprog_const(iprog *p, iprog_type type, int64_t value);
/* Appends one instruction (after folding the trivial cases: x + 0, x * 1,
 * a cast to the same type, a shift by 0) and returns its value. */
int ixj__iprog_emit(iprog *p, iprog_op op, iprog_type type, int flags, int a, int b, int c, int64_t imm);
int ixj__iprog_const_s64(iprog *p, int64_t value);
/* The constant a value holds, when it is one. */
bool ixj__iprog_is_const(const iprog *p, int v, int64_t *value);

/* Runs instructions [0, count): in[k] is input slot k; *values gets one
 * result per instruction (count entries), each reduced to its type's width. */
ixj_status ixj__iprog_eval(const iprog *p, const uint64_t *in, int num_in, uint64_t *values, ixj_error *err);

/* ---- the index math, once for every target --------------------------------- */

/* Every coordinate of n (index type) over `shape` in row-major order, for
 * n <= bound: digits[k] in the index type. */
void ixj__lower_unflatten(lower *lw, int n, int rank, const int64_t *shape, uint64_t bound, int *digits);
/* (d + r) mod extent for d < extent and 0 <= r < extent: a compare and a select. */
int ixj__lower_rotate(lower *lw, int d, int64_t r, int64_t extent);
/* base + sum_j rot_j(coord_j) * stride_j over dims [0, rank), in S64 (base:
 * an S64 value). */
int ixj__lower_offset(lower *lw, int base, int rank, const int *coord, const int64_t *stride,
                      const int64_t *rotate, const int64_t *extent);
/* A head offset x re-linearised through the operand's chain (identity for
 * one LMAD): each tail LMAD unflattens it by its logical shape and maps it. */
int ixj__lower_chain(lower *lw, const plan_operand *o, int x);
/* ixj__lower_chain for an operand of one tail LMAD whose run dim
 * (ixj__plan_run_dim) is not rotated, and *left: how many points from x on (x included) stay in the
 * run, each the run dim's stride further in memory (an S64 value >= 1). */
int ixj__lower_chain_run(lower *lw, const plan_operand *o, int x, int *left);
/* The offset of operand o at the point `coord` (index type) of an iteration
 * space of `extent`: head LMAD, then the chain. */
int ixj__lower_point_offset(lower *lw, const plan_operand *o, int rank, const int *coord, const int64_t *extent);
/* The odometer: digit[rank-1] advances by `step`, carries ripple outwards
 * (straight-line: compares and selects, no branches). next[k] gets the new
 * digits. The outermost digit never wraps: stepping past the last point of
 * the space leaves it at its extent (no kernel reads the digits then). */
void ixj__lower_odometer(lower *lw, int rank, const int *digit, const int64_t *shape, int64_t step, int *next);

#endif
