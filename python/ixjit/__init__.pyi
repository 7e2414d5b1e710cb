"""Type stubs for the ixjit package."""
from os import PathLike
from typing import Any, Dict, Optional, Sequence, Union

from ._ixjit import (DLPACK_MAJOR_VERSION as DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION as DLPACK_MINOR_VERSION,
                     BackendError as BackendError, Context as Context, Error as Error,
                     IndexFunction as IndexFunction, InvalidInput as InvalidInput, Kernel as Kernel,
                     Unavailable as Unavailable, __version__ as __version__, cat as cat, copy as copy,
                     cuda_available as cuda_available, default_context as default_context, fill as fill,
                     prepare_copy as prepare_copy)

def contiguous(x: Any, *, context: Optional[Context] = None) -> Any: ...
def transpose(x: Any, axes: Optional[Sequence[int]] = None, *, context: Optional[Context] = None) -> Any: ...
def cache_stats(context: Optional[Context] = None) -> Dict[str, Union[int, float]]: ...
def warm(file: Union[str, PathLike], target: str = "cpu", *, context: Optional[Context] = None) -> Dict[str, Any]: ...
