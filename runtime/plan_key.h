/* Internal: the memory cache's key of a plan, a compact binary fingerprint
 * of everything its kernel bakes in plus the target: the same information as
 * the text signature (gen/plan.c), made without formatting, so a memory hit
 * never prints text. */
#ifndef IXJIT_RUNTIME_PLAN_KEY_H
#define IXJIT_RUNTIME_PLAN_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* Room for the keys of plain copies and fills (one LMAD per operand): the
 * dispatcher's stack buffer; larger keys (long chains, many cat inputs) take
 * a malloc'ed one. */
#define PLAN_KEY_STACK_BYTES 4096

/* Writes the key of plan p for `target` into buf (what fits in size bytes)
 * and returns its whole length, snprintf-style: a caller can size a second
 * pass exactly. Two plans have equal keys exactly when their signatures are
 * equal (unit_plan_key checks it). */
size_t ixj__plan_key(const ixj_plan *p, const char *target, uint8_t *buf, size_t size);

#endif
