/* ixjit — a runtime generator of specialized strided-copy kernels.
 * The umbrella header: include this one. It leaves out only dlpack.h, which
 * needs <dlpack/dlpack.h>; include that one too for the DLPack forms. */
#ifndef IXJIT_IXJIT_H
#define IXJIT_IXJIT_H

#include "ixjit/cache.h"
#include "ixjit/context.h"
#include "ixjit/cuda.h"
#include "ixjit/divmod.h"
#include "ixjit/emit.h"
#include "ixjit/ixfun.h"
#include "ixjit/number.h"
#include "ixjit/kernel.h"
#include "ixjit/ops.h"
#include "ixjit/record.h"
#include "ixjit/reference.h"
#include "ixjit/status.h"
#include "ixjit/version.h" /* generated from CMakeLists.txt's project() */

#endif
