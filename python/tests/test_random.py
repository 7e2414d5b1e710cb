"""Random views against NumPy: a copy of a random source layout (negative, zero and
non-contiguous strides) into a random destination view must leave the destination's
whole base array byte for byte as np.copyto leaves a copy of it."""
import numpy as np
import pytest

import ixjit

DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.complex128, np.dtype("V6"), np.dtype("V24")]


def random_view(rng, base):
    idx = []
    for n in base.shape:
        step = int(rng.choice([1, 1, 2, 3, -1, -2]))
        a, b = sorted(int(x) for x in rng.integers(0, n + 1, 2))
        idx.append(slice(a, max(b, a + 1), step) if step > 0 else slice(max(b, a + 1) - 1, a - 1 if a else None, step))
    v = base[tuple(idx)]
    return v.transpose(rng.permutation(v.ndim)) if v.ndim > 1 and rng.random() < 0.5 else v


def random_source(rng, shape, dtype):
    """A read-only view of `shape` with random strides (multiples of the item size,
    negative and zero ones included) into a pattern buffer."""
    item = dtype.itemsize
    strides = [int(rng.choice([0, 1, 2, -1, -3])) * item * int(rng.integers(1, 4)) for _ in shape]
    extent = sum(abs(s) * max(n - 1, 0) for s, n in zip(strides, shape))
    buf = np.frombuffer(rng.integers(0, 256, 2 * extent + item, dtype=np.uint8).tobytes(), np.uint8)
    start = buf[extent:]
    return np.lib.stride_tricks.as_strided(start.view(dtype) if item == 1 or len(start) % item == 0 else
                                           start[: len(start) // item * item].view(dtype),
                                           shape=shape, strides=strides, writeable=False)


def same_view(base_copy, base, view):
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    flat = base_copy.reshape(-1).view(np.uint8)[offset:]
    return np.lib.stride_tricks.as_strided(flat[: len(flat) // view.itemsize * view.itemsize].view(view.dtype),
                                           shape=view.shape, strides=view.strides)


@pytest.mark.parametrize("seed", range(6))
def test_random_views(seed, ctx):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        dtype = np.dtype(DTYPES[int(rng.integers(len(DTYPES)))])
        shape = tuple(int(rng.integers(1, 7)) for _ in range(int(rng.integers(1, 4))))
        base = np.frombuffer(bytes([0xAB]) * (int(np.prod(shape)) * dtype.itemsize), dtype).reshape(shape).copy()
        dst = random_view(rng, base)
        src = random_source(rng, dst.shape, dtype)
        want = base.copy()
        np.copyto(same_view(want, base, dst), src)
        ixjit.copy(dst, src, context=ctx)
        assert base.tobytes() == want.tobytes(), (dtype, dst.shape, dst.strides, src.strides)
