"""Random permutes and cats of arrays large enough for the tiled paths, against NumPy.

test_random.py draws tiny views (extents up to 6), which the element loops take; these draw
extents from a list that includes the shapes the tiled kernels single out: powers of two (rows
4 KiB apart crowd one L1 set: gathered and whole-register blocks), extents just under, at and
over a block or two (9, 15, 16, 17, 31, 32, 33), odd pitches (staged tiles), channels of
NCHW -> NHWC. Each case runs in a context that keeps outputs in cache and in one that streams
them (last_level_cache=64 KiB), and the destination's whole base array must come out byte for
byte as NumPy's assignment leaves it. Three such layouts were wrong or refused before round 22
(the regressions below): a gathered byte tile one block wide along a, a cat part that gathered
after staging, and a fused a whose destination unit dim runs backwards.
"""
import numpy as np
import pytest

import ixjit

DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.complex128]
DIMS = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 20, 31, 32, 33, 60, 64, 65, 100, 128, 129, 250, 256, 512, 1000, 1024,
        4096]
MAX_BYTES = 4 << 20


def random_dtype(rng):
    return np.dtype(DTYPES[int(rng.integers(len(DTYPES)))])


def random_bytes(rng, shape, dtype):
    n = int(np.prod(shape)) * dtype.itemsize
    return rng.integers(0, 256, n, dtype=np.uint8).view(dtype).reshape(shape)


def random_shape(rng, rank, itemsize, parts=1):
    for _ in range(100):
        shape = [int(rng.choice(DIMS)) for _ in range(rank)]
        if 4096 <= int(np.prod(shape)) * itemsize * parts <= MAX_BYTES:
            return shape
    return None


def destination_for(rng, shape, dtype):
    """A zeroed base array and a view of `shape` in it: contiguous from an element or two
    in, rows padded to a pitch, the middle of a taller array, or every dim reversed."""
    kind = int(rng.integers(4))
    size = int(np.prod(shape))
    if kind == 0:
        base = np.zeros(size + 4, dtype)
        at = int(rng.integers(0, 4))
        return base, (lambda b: b[at:at + size].reshape(shape))
    if kind == 1:
        pad = int(rng.choice([1, 3, 16, 64]))
        base = np.zeros(tuple(shape[:-1]) + (shape[-1] + pad,), dtype)
        return base, (lambda b: b[..., :shape[-1]])
    if kind == 2:
        base = np.zeros((shape[0] + 2,) + tuple(shape[1:]), dtype)
        return base, (lambda b: b[1:-1])
    base = np.zeros(shape, dtype)
    return base, (lambda b: b[(slice(None, None, -1),) * len(shape)])


def check_copy(ctx, src):
    rng = np.random.default_rng(abs(hash(src.shape)) % 1000)
    base, view = destination_for(rng, src.shape, src.dtype)
    want = base.copy()
    view(want)[...] = src
    ixjit.copy(view(base), src, context=ctx)
    assert base.tobytes() == want.tobytes(), (src.dtype, src.shape, src.strides)


@pytest.mark.parametrize("seed", range(4))
def test_random_permutes(seed, cache_ctx):
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        dtype, rank = random_dtype(rng), int(rng.integers(2, 5))
        shape = random_shape(rng, rank, dtype.itemsize)
        if shape is None:
            continue
        src = random_bytes(rng, shape, dtype)
        if rng.random() < 0.3:  # a slice of the source along one dim: off by one, every other, reversed
            d = int(rng.integers(rank))
            cut = [slice(1, None), slice(None, None, 2), slice(None, None, -1)][int(rng.integers(3))]
            src = src[(slice(None),) * d + (cut,)]
            if src.size == 0:
                continue
        check_copy(cache_ctx, src.transpose(rng.permutation(rank)))


@pytest.mark.parametrize("seed", range(4))
def test_random_cats(seed, cache_ctx):
    rng = np.random.default_rng(200 + seed)
    for _ in range(20):
        dtype, rank, count = random_dtype(rng), int(rng.integers(2, 5)), int(rng.integers(2, 5))
        axis = int(rng.integers(rank))
        shape = random_shape(rng, rank, dtype.itemsize, parts=count)
        if shape is None:
            continue
        srcs = []
        for _ in range(count):
            part = list(shape)
            part[axis] = int(rng.choice([1, 2, 3, 16, 17, 33, 64, 100]))
            if rng.random() < 0.5:  # a permuted view of its own buffer
                order = rng.permutation(rank)
                srcs.append(random_bytes(rng, [part[o] for o in order], dtype).transpose(np.argsort(order)))
            else:
                srcs.append(random_bytes(rng, part, dtype))
        want_view = np.concatenate(srcs, axis=axis)
        base, view = destination_for(rng, want_view.shape, dtype)
        want = base.copy()
        view(want)[...] = want_view
        ixjit.cat(view(base), srcs, axis=axis, context=cache_ctx)
        assert base.tobytes() == want.tobytes(), (dtype, axis, [(s.shape, s.strides) for s in srcs])


@pytest.mark.parametrize("channels", [9, 12, 15, 16, 20, 24, 31, 32, 33])
def test_nchw_to_nhwc_bytes_over_4k_planes(channels, cache_ctx):
    """Crowded byte tiles one block wide along a (9 to 31 channels) read the source in
    place; from two blocks on they gather their rows first."""
    rng = np.random.default_rng(channels)
    src = random_bytes(rng, (2, channels, 64, 64), np.dtype(np.uint8)).transpose(0, 2, 3, 1)
    check_copy(cache_ctx, src)


def test_cat_of_wide_nhwc_byte_parts(cache_ctx):
    """Parts staged as spans of 250-byte rows do not gather (more than the stack should
    hold), in the cat's rebuilt part plans as in a copy's."""
    rng = np.random.default_rng(7)
    srcs = [random_bytes(rng, (2, 250, 64, 64), np.dtype(np.uint8)).transpose(0, 2, 3, 1) for _ in range(2)]
    dst = np.zeros((4, 64, 64, 250), np.uint8)
    ixjit.cat(dst, srcs, axis=0, context=cache_ctx)
    assert np.array_equal(dst, np.concatenate(srcs, axis=0))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_reversed_destination_rows_of_a_6d_style_permute(dtype, cache_ctx):
    """A destination unit dim of 8 reversed, its partner (stride 8) forward: no contiguous
    run to fuse the tile's a over (the fused plan was refused with an internal error)."""
    rng = np.random.default_rng(8)
    src = random_bytes(rng, (24, 8, 40), np.dtype(dtype)).transpose(2, 0, 1)
    base = np.zeros((40, 25, 8), dtype)
    want = base.copy()
    want[::-1, 1:, ::-1] = src
    ixjit.copy(base[::-1, 1:, ::-1], src, context=cache_ctx)
    assert base.tobytes() == want.tobytes()
