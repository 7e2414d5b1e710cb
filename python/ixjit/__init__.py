"""ixjit: runtime-generated strided copy kernels for NumPy, PyTorch and DLPack arrays.

Arrays come in without copies (the buffer protocol, ``__dlpack__`` with
versioned or legacy capsules, ``__array_interface__``); their shape, byte
strides and offset become an index function, from which ixjit JIT-compiles (and
caches) a kernel for the exact layout pair. See docs/python.md.

    >>> import numpy as np, ixjit
    >>> a = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> out = np.empty((4, 3), np.float32)
    >>> ixjit.copy(out, a.T)          # out[...] = a.T
    >>> ixjit.IndexFunction.parse("iota 3 4 | permute 1 0").shape
    (4, 3)
"""

import os as _os

from ._ixjit import (
    DLPACK_MAJOR_VERSION,
    DLPACK_MINOR_VERSION,
    BackendError,
    Context,
    Error,
    IndexFunction,
    InvalidInput,
    Kernel,
    Unavailable,
    __version__,
    cat,
    copy,
    cuda_available,
    default_context,
    fill,
    prepare_copy,
)
from . import _ixjit

__all__ = [
    "BackendError", "Context", "Error", "IndexFunction", "InvalidInput", "Kernel", "Unavailable",
    "cache_stats", "cat", "contiguous", "copy", "cuda_available", "default_context", "fill",
    "prepare_copy", "transpose", "warm", "__version__",
]

# A forked child has none of the parent's worker threads: its first call makes
# a default context of its own (contexts the user made before the fork must
# not be used in the child).
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_ixjit._forget_default_context)


def _numpy_view(x):
    """x as a NumPy array without a copy (NumPy arrays as they are; others
    through DLPack)."""
    import numpy as np

    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__") and hasattr(np, "from_dlpack"):
        return np.from_dlpack(x)
    return np.asarray(x)


def contiguous(x, *, context=None):
    """A new C-contiguous NumPy array with x's contents (numpy.ascontiguousarray, always a copy),
    the copy made by ixjit."""
    import numpy as np

    v = _numpy_view(x)
    out = np.empty(v.shape, dtype=v.dtype)
    return copy(out, v, context=context)


def transpose(x, axes=None, *, context=None):
    """A new C-contiguous NumPy array holding numpy.transpose(x, axes), the copy made by ixjit."""
    import numpy as np

    v = _numpy_view(x).transpose(axes)
    out = np.empty(v.shape, dtype=v.dtype)
    return copy(out, v, context=context)


def cache_stats(context=None):
    """The kernel cache's counters of a context (default: the process's):
    hits, misses, disk_hits, compiles, failures, compile_ms, entries."""
    return (context or default_context()).cache_stats()


def warm(file, target="cpu", *, context=None):
    """Compiles every signature of a record or spec file (IXJIT_RECORD's format) into a context's
    caches (memory and disk); target 'cuda:sm_XY' makes CUDA images without a GPU. Returns
    {'compiled', 'present', 'failed', 'bad_lines', 'errors': [(line, message)]}."""
    return (context or default_context()).warm(_os.fspath(file), target)
