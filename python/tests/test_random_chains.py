"""Random chains (index functions of several LMADs) as sources, destinations and fill targets,
against NumPy.

A chain is what NumPy cannot view: a reshape of a permuted, rotated or sliced array. Each case
builds one from random steps twice, as an `ixjit.IndexFunction` and, independently, as NumPy
operations on an array of flat positions (`np.roll` for a rotate, a copying `reshape`), so that
the second says which buffer element each point is; the whole buffer must then come out as
NumPy's fancy indexing leaves it. Sizes up to 4 MiB, in a context that keeps outputs in cache
and in one that streams them. Round 23 found fills and copies into a chain read with a step of
2 to 4 after its reshape wrong, and writing past the buffer (the regression below).
"""
import numpy as np
import pytest

import ixjit

DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.complex128]
DIMS = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 60, 63, 64, 65, 100, 127, 128, 129, 250, 256,
        500, 512, 1000, 1024, 4096]
MAX_BYTES = 4 << 20


def random_extents(rng, count):
    """count as 1 to 3 extents: up to two random divisors split off, in random order."""
    dims = []
    for _ in range(int(rng.integers(0, 3))):
        divisors = [d for d in range(2, min(count, 512) + 1) if count % d == 0]
        if not divisors:
            break
        dims.append(int(rng.choice(divisors)))
        count //= dims[-1]
    dims.append(count)
    return [int(x) for x in rng.permutation(dims)]


def random_slice(rng, extent):
    k = int(rng.integers(6))
    if k == 0 or extent < 3:
        return slice(None)
    return [slice(int(rng.integers(0, extent // 2)), None), slice(None, None, -1), slice(1, extent - 1),
            slice(None, None, 2), slice(None, None, -2)][k - 1]


def random_chain(rng, f, flat, steps):
    """steps random permutes, rotates, slices and reshapes, on f and on flat alike."""
    for _ in range(steps):
        op = int(rng.integers(5))
        if op == 0 and flat.ndim > 1:
            perm = [int(x) for x in rng.permutation(flat.ndim)]
            f, flat = f.permute(*perm), flat.transpose(perm)
        elif op == 1:
            amounts = [int(rng.integers(-m, m + 1)) if rng.random() < 0.5 else 0 for m in flat.shape]
            f = f.rotate(*amounts)
            for axis, r in enumerate(amounts):  # new[i] = old[(i + r) mod n]
                flat = np.roll(flat, -r, axis=axis)
        elif op == 2:
            key = tuple(random_slice(rng, m) for m in flat.shape)
            f, flat = f[key], flat[key]
        elif flat.size:
            shape = random_extents(rng, flat.size)
            f, flat = f.reshape(*shape), flat.reshape(shape)
    return f, flat


def random_case(rng):
    dtype = np.dtype(DTYPES[int(rng.integers(len(DTYPES)))])
    while True:
        shape = [int(rng.choice(DIMS)) for _ in range(int(rng.integers(1, 4)))]
        if 512 <= int(np.prod(shape)) * dtype.itemsize <= MAX_BYTES:
            break
    f, flat = random_chain(rng, ixjit.IndexFunction.iota(*shape), np.arange(int(np.prod(shape))).reshape(shape),
                           int(rng.integers(1, 6)))
    return dtype, int(np.prod(shape)), f, flat


def random_bytes(rng, count, dtype):
    return rng.integers(0, 256, count * dtype.itemsize, dtype=np.uint8).view(dtype)


@pytest.mark.parametrize("seed", range(4))
def test_random_chains(seed, cache_ctx):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(60):
        dtype, count, f, flat = random_case(rng)
        if flat.size == 0:
            continue
        assert f.shape == flat.shape and (f.offsets() == flat).all(), str(f)
        kind = int(rng.integers(4))
        buffer = np.zeros(count, dtype)
        want = buffer.copy()
        if kind == 0:  # a chain read into a contiguous array
            raw = random_bytes(rng, count, dtype)
            out = np.zeros(flat.shape, dtype)
            ixjit.copy(out, raw, src_index=f, context=cache_ctx)
            assert out.tobytes() == raw[flat].tobytes(), str(f)
            continue
        if kind == 1:  # written through a chain from a transposed array
            src = random_bytes(rng, flat.size, dtype).reshape(flat.shape)
            if src.ndim > 1:
                order = rng.permutation(src.ndim)
                src = np.ascontiguousarray(src.transpose(order)).transpose(np.argsort(order))
            want[flat] = src
            ixjit.copy(buffer, src, dst_index=f, context=cache_ctx)
        elif kind == 2:  # filled through a chain
            value = random_bytes(rng, 1, dtype)[0]
            want[flat] = value
            ixjit.fill(buffer, value, dst_index=f, context=cache_ctx)
        else:  # chain to chain: the destination a chain of the same shape over its own buffer
            g, at = random_chain(rng, ixjit.IndexFunction.iota(*flat.shape), np.arange(flat.size).reshape(flat.shape),
                                 int(rng.integers(1, 4)))
            if at.size != flat.size:  # sliced: no longer the source's shape
                continue
            g, at = g.reshape(*flat.shape), at.reshape(flat.shape)
            raw = random_bytes(rng, count, dtype)
            buffer, want = np.zeros(flat.size, dtype), np.zeros(flat.size, dtype)
            want[at] = raw[flat]
            ixjit.copy(buffer, raw, dst_index=g, src_index=f, context=cache_ctx)
        assert buffer.tobytes() == want.tobytes(), (kind, str(f))


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("step", [2, 3, 4])
def test_chain_destination_read_with_a_step(dtype, step, cache_ctx):
    """The head of a.T.reshape(...)[::step] steps through the reshape's positions, not memory:
    every 2nd to 4th element by masked stores (plan.store_pitch) took it for memory."""
    f = ixjit.IndexFunction.iota(4, 250 * step).permute(1, 0).reshape(1000 * step)[::step]
    flat = np.arange(1000 * step).reshape(4, 250 * step).T.reshape(1000 * step)[::step]
    buffer = np.zeros(1000 * step + 64, dtype)  # 64 elements past the chain's buffer must stay zero
    want = buffer.copy()
    src = np.arange(1, 1001, dtype=dtype)
    want[flat] = src
    ixjit.copy(buffer[:1000 * step], src, dst_index=f, context=cache_ctx)
    assert buffer.tobytes() == want.tobytes()
    want[flat] = 7
    ixjit.fill(buffer[:1000 * step], dtype(7), dst_index=f, context=cache_ctx)
    assert buffer.tobytes() == want.tobytes()
