/* ixjit — a runtime generator of specialized strided-copy kernels.
 * The umbrella header: include this one. */
#ifndef IXJIT_IXJIT_H
#define IXJIT_IXJIT_H

#include "ixjit/context.h"
#include "ixjit/cuda.h"
#include "ixjit/divmod.h"
#include "ixjit/ixfun.h"
#include "ixjit/ops.h"
#include "ixjit/record.h"
#include "ixjit/status.h"

#define IXJIT_VERSION_STRING "0.1.0"

#endif
