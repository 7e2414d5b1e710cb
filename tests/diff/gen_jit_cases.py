#!/usr/bin/env python3
"""Random copy, fill and cat cases for the JIT differential test
(tests/unit/test_jit_diff.c), one per line, tab-separated:

    copy <TAB> E <TAB> DST <TAB> SRC
    fill <TAB> E <TAB> DST
    cat  <TAB> E <TAB> AXIS <TAB> DST <TAB> SRC1 <TAB> SRC2 ...

Sources come from the random pipelines of the algebra's differential test
(every stage kind, ranks 1-6, several LMADs); destinations are injective views
of the same shape (permutations, reversals, rotations, strided embeddings,
reshapes that push LMADs). Element sizes 1, 2, 4, 8, 16.

usage: gen_jit_cases.py OUT [--copies N] [--fills N] [--cats N] [--large N] [--tiled N] [--tiled-cats N]
                         [--chain-dsts N] [--flat-chains N] [--rolled N] [--multi-rolled N]
                         [--packed-rows N] [--row-quads N] [--seed S]
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ixfun_model import ModelError, evaluate  # noqa: E402
from random_pipelines import _factorize, pipeline  # noqa: E402

ELEM_SIZES = [1, 2, 4, 8, 16]


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def injective_with_shape(rng, shape):
    """An IXFUN of exactly this shape that maps distinct points apart."""
    count = _count(shape)
    if count == 0:
        return "iota " + " ".join(map(str, shape))
    f = _factorize(rng, count, 4)
    if rng.random() < 0.4:  # a strided embedding in a larger array
        steps = [rng.choice([1, 1, 2, 3]) for _ in f]
        starts = [rng.randint(0, 2) for _ in f]
        outer = [s + (n - 1) * st + 1 + rng.randint(0, 2) for s, n, st in zip(starts, f, steps)]
        text = "iota " + " ".join(map(str, outer)) + " | slice " + " ".join(
            f"{s}:+{n}*{st}" for s, n, st in zip(starts, f, steps))
    else:
        text = "iota " + " ".join(map(str, f))
    for _ in range(rng.randint(0, 3)):
        cur = evaluate(text)[0]
        c = rng.random()
        if c < 0.35:
            perm = list(range(len(cur)))
            rng.shuffle(perm)
            text += " | permute " + " ".join(map(str, perm))
        elif c < 0.55:
            text += " | rotate " + " ".join(str(rng.randint(-3, 3)) for _ in cur)
        elif c < 0.75:
            text += " | slice " + " ".join(rng.choice([":", "::-1"]) for _ in cur)
        else:
            text += " | reshape " + " ".join(map(str, _factorize(rng, count, 4)))
    return text + " | reshape " + " ".join(map(str, shape))


def copy_case(rng):
    while True:
        src, bad = pipeline(rng, invalid_rate=0)
        try:
            shape, _ = evaluate(src)
        except ModelError:
            continue
        return f"copy\t{rng.choice(ELEM_SIZES)}\t{injective_with_shape(rng, shape)}\t{src}"


def fill_case(rng):
    shape = _factorize(rng, rng.randint(1, 3000), 6)
    return f"fill\t{rng.choice(ELEM_SIZES)}\t{injective_with_shape(rng, shape)}"


def cat_case(rng):
    rank = rng.randint(1, 4)
    shape = [rng.randint(1, 6) for _ in range(rank)]
    axis = rng.randrange(rank)
    parts = []
    for _ in range(rng.randint(1, 4)):
        s = list(shape)
        s[axis] = rng.randint(0, 5)
        parts.append(s)
    total = list(shape)
    total[axis] = sum(p[axis] for p in parts)
    srcs = [injective_with_shape(rng, s) if rng.random() < 0.5 else
            injective_with_shape(rng, s) + " | rotate " + " ".join("1" for _ in s) for s in parts]
    return "\t".join(["cat", str(rng.choice(ELEM_SIZES)), str(axis), injective_with_shape(rng, total)] + srcs)


def large_case(rng, k):
    """Bigger cases, so the thread pool splits rows and tiles mid-way."""
    n, m = rng.randint(150, 700), rng.randint(150, 700)
    e = rng.choice(ELEM_SIZES[:4])
    kind = k % 7
    if kind == 0:  # transpose: tiled
        return f"copy\t{e}\tiota {n} {m}\tiota {m} {n} | permute 1 0"
    if kind == 1:  # contiguous rows inside larger arrays: inner-contiguous, maybe vectors
        return f"copy\t{e}\tiota {n + 5} {m} | slice 3:{n + 3}\tiota {n + 9} {m} | slice 7:{n + 7}"
    if kind == 2:  # reversed, strided, rotated
        return f"copy\t{e}\tiota {n} {m}\tiota {2 * n} {m} | slice ::-2 | rotate 3 -7"
    if kind == 3:  # a chain on the source
        return f"copy\t{e}\tiota {n * m}\tiota {n} {m} | permute 1 0 | reshape {n * m}"
    if kind == 4:
        return f"fill\t{e}\tiota {n} {m + 3} | slice : 1:{m + 1}"
    if kind == 5:  # NCHW -> NHWC with a few channels: a zip
        c, h, w = rng.randint(2, 7), rng.randint(20, 120), rng.randint(20, 120)
        return f"copy\t{e}\tiota 2 {h} {w} {c}\tiota 2 {c} {h} {w} | permute 0 2 3 1"
    # a destination unit dim of 2..8 continued by another: a fused a (6-D permute style)
    a = rng.choice([2, 4, 8])
    return f"copy\t{e}\tiota 3 {n} 5 {a}\tiota 5 3 {a} {n} | permute 1 3 0 2"


# extents the tiled kernels single out: powers of two (rows 4 KiB apart crowd
# one L1 set), one block and two (9, 15, 16, 17, 31, 32, 33), odd ones (staged
# rows), NHWC channel counts
TILED_DIMS = [1, 2, 3, 5, 8, 9, 15, 16, 17, 20, 31, 32, 33, 60, 64, 65, 100, 128, 129, 250, 256, 512, 1024, 4096]


def tiled_shape(rng, rank, e, parts=1, most=1 << 21):
    """Half of them with source rows a multiple of 4 KiB long (crowded)."""
    crowded = rng.random() < 0.5
    while True:
        shape = [rng.choice(TILED_DIMS) for _ in range(rank)]
        if crowded:
            shape[-1] = 4096 // e * rng.choice([1, 2])
        if 4096 <= _count(shape) * e * parts <= most:
            return shape


def tiled_case(rng):
    """A permute of a rank-2 to rank-4 array of such extents, its destination
    contiguous or rows padded to a pitch, some dims reversed: the transposes' blocks, gathered,
    stacked, staged and fused tiles at their edges (round 22: a gathered byte
    tile one block wide along a copied the wrong bytes)."""
    e = rng.choice(ELEM_SIZES)
    rank = rng.randint(2, 4)
    shape = tiled_shape(rng, rank, e)
    perm = list(range(rank))
    while perm == sorted(perm):
        rng.shuffle(perm)
    out = [shape[p] for p in perm]
    dst = "iota " + " ".join(map(str, out))
    if rng.random() < 0.4:
        pad = rng.choice([1, 3, 16])
        dst = "iota " + " ".join(map(str, out[:-1] + [out[-1] + pad])) + " | slice " + " ".join(
            [":"] * (rank - 1) + [f":{out[-1]}"])
    if rng.random() < 0.25:  # some dims reversed (round 22: a fused a running backwards was refused)
        dst += " | slice " + " ".join(rng.choice([":", "::-1"]) for _ in out)
    return f"copy\t{e}\t{dst}\tiota {' '.join(map(str, shape))} | permute {' '.join(map(str, perm))}"


def tiled_cat_case(rng):
    """A cat of such permuted parts: each part is rebuilt from the cat's plan
    (round 22: one gathered after staging, which the emitter refused)."""
    e = rng.choice(ELEM_SIZES)
    rank = rng.randint(2, 4)
    count = rng.randint(2, 3)
    shape = tiled_shape(rng, rank, e, count)
    axis = rng.randrange(rank)
    srcs, total = [], 0
    for _ in range(count):
        part = list(shape)
        part[axis] = rng.choice([1, 3, 16, 17, 64])
        total += part[axis]
        perm = list(range(rank))
        rng.shuffle(perm)
        inverse = [perm.index(j) for j in range(rank)]
        stored = [part[p] for p in perm]
        srcs.append(f"iota {' '.join(map(str, stored))} | permute {' '.join(map(str, inverse))}")
    out = list(shape)
    out[axis] = total
    return "\t".join(["cat", str(e), str(axis), "iota " + " ".join(map(str, out))] + srcs)


def chain_dst_case(rng):
    """A copy or fill whose destination is a chain (a reshape of a non-contiguous
    view) read with a step of 2 to 4 or backwards after the reshape, so that
    its head's strides count elements of the tail's space, not of memory
    (round 23: the masked stores of every 2nd to 4th element took them for
    memory and wrote elsewhere, past the buffer's end too)."""
    e = rng.choice([1, 2, 4, 4, 8, 8, 16])
    rank = rng.randint(1, 3)
    shape = [rng.choice([1, 3, 4, 8, 12, 16, 17, 32, 64, 100]) for _ in range(rank - 1)] + [rng.choice([4, 8, 16, 32, 48, 64, 128])]
    k = rng.randrange(rank) if rng.random() < 0.3 else rank - 1
    step = rng.choice([2, 3, 4, -1, -2])
    outer = list(shape)
    outer[k] *= abs(step)
    # the chain itself: a transposed or strided view of the outer count, reshaped
    count = _count(outer)
    f = _factorize(rng, count, 3)
    while sum(x > 1 for x in f) < 2:  # a transpose of two extents or more: no single LMAD
        f = _factorize(rng, count, 3)
    perm = list(range(len(f)))
    big = [q for q in range(len(f)) if f[q] > 1]
    while [q for q in perm if f[q] > 1] == big:
        rng.shuffle(perm)
    stored = [f[q] for q in perm]
    inverse = [perm.index(j) for j in range(len(f))]
    chain = f"iota {' '.join(map(str, stored))} | permute {' '.join(map(str, inverse))} | reshape {' '.join(map(str, outer))}"
    dst = chain + " | slice " + " ".join(f"::{step}" if j == k else ":" for j in range(rank))
    if rng.random() < 0.4:
        return f"fill\t{e}\t{dst}"
    return f"copy\t{e}\t{dst}\tiota {' '.join(map(str, shape))}"


def reshaped_view(rng, view, shape):
    """A plain reshape to shape of a non-contiguous view of extents view: a
    permuted array, sliced by an offset, backwards or with a step, maybe
    rotated."""
    rank = len(view)
    stored, key = [], []
    for n in view:
        k = rng.random()
        if k < 0.3:
            stored.append(n + rng.randint(1, 3))
            key.append(f"{stored[-1] - n}:")
        elif k < 0.45:
            stored.append(n)
            key.append("::-1")
        elif k < 0.6:
            stored.append(2 * n)
            key.append("1::2")
        else:
            stored.append(n)
            key.append(":")
    order = list(range(rank))
    rng.shuffle(order)  # memory order of the view's dims
    text = f"iota {' '.join(str(stored[q]) for q in order)} | permute {' '.join(str(order.index(i)) for i in range(rank))}"
    text += " | slice " + " ".join(key)
    if rng.random() < 0.15:
        text += " | rotate " + " ".join(str(rng.randint(-3, 3)) for _ in view)
    return text + " | reshape " + " ".join(map(str, shape))


def flat_chain_case(rng):
    """Plain reshapes of non-contiguous views whose factors need not line up
    (ixj__plan_unchain_flat reads them in flat order): from a chain into a
    contiguous array, through one into another chain, into one from a
    contiguous array, and fills of one (transposed after its reshape too)."""
    e = rng.choice([1, 2, 4, 4, 8, 16])
    view = [rng.randint(2, 70) for _ in range(rng.choice([2, 2, 3]))]
    if rng.random() < 0.3:
        view[-1] = rng.choice([64, 128, 250, 256])
    count = _count(view)
    shape = _factorize(rng, count, 3)
    chain = reshaped_view(rng, view, shape)
    kind = rng.randrange(4)
    if kind == 0:
        return f"copy\t{e}\tiota {' '.join(map(str, shape))}\t{chain}"
    if kind == 1:
        if len(shape) > 1 and rng.random() < 0.5:
            chain += " | permute " + " ".join(map(str, reversed(range(len(shape)))))
        return f"fill\t{e}\t{chain}"
    if kind == 2:
        other = _factorize(rng, count, 3)
        return f"copy\t{e}\t{reshaped_view(rng, other, shape)}\t{chain}"
    return f"copy\t{e}\t{chain}\tiota {' '.join(map(str, shape))}"


def _transpose_shape(rng):
    """An element size, a rank of 2 or 3, tiled extents and a permutation
    that moves them (no identity)."""
    e = rng.choice(ELEM_SIZES)
    rank = rng.randint(2, 3)
    shape = tiled_shape(rng, rank, e, most=1 << 20)
    perm = list(range(rank))
    while perm == sorted(perm):
        rng.shuffle(perm)
    return e, rank, shape, perm


def rolled_case(rng):
    """A transpose whose source is rotated along one dim (a roll, then a
    permute), sometimes reshaped after (a chain read in flat order): split
    into the cat of its two unrotated runs (split_boxes in gen/plan.c),
    the rotation by one, by n - 1 or anywhere between."""
    e, rank, shape, perm = _transpose_shape(rng)
    j = rng.choice([k for k in range(rank) if shape[k] > 1])
    rot = [0] * rank
    rot[j] = rng.choice([1, shape[j] - 1, rng.randint(1, shape[j] - 1)])
    src = f"iota {' '.join(map(str, shape))} | rotate {' '.join(map(str, rot))} | permute {' '.join(map(str, perm))}"
    out = [shape[p] for p in perm]
    if rng.random() < 0.3:  # reshaped: its rows of two view rows
        out = [out[0] // 2, 2 * out[1]] + out[2:] if out[0] % 2 == 0 else out
        src += " | reshape " + " ".join(map(str, out))
    return f"copy\t{e}\tiota {' '.join(map(str, out))}\t{src}"


def multi_rolled_case(rng):
    """A transpose rotated along two dims of its source, into a rotated
    destination, or both (sometimes along three dims, which keep the element
    loop): split into the cat of the unrotated boxes between the places where
    the rotations wrap (split_boxes in gen/plan.c)."""
    e, rank, shape, perm = _transpose_shape(rng)
    out = [shape[p] for p in perm]

    def rotation(extents, dims):
        rot = [0] * len(extents)
        for j in dims:
            if extents[j] > 1:
                rot[j] = rng.choice([1, extents[j] - 1, rng.randint(1, extents[j] - 1)])
        return rot

    src_dims = rng.sample(range(rank), rng.choice([0, 1, 2, 2]))
    dst_dims = rng.sample(range(rank), rng.choice([0, 1, 1, 2]) if src_dims else rng.choice([1, 2]))
    src = f"iota {' '.join(map(str, shape))}"
    if src_dims:
        src += " | rotate " + " ".join(map(str, rotation(shape, src_dims)))
    src += f" | permute {' '.join(map(str, perm))}"
    dst = f"iota {' '.join(map(str, out))}"
    if dst_dims:
        dst += " | rotate " + " ".join(map(str, rotation(out, dst_dims)))
    return f"copy\t{e}\t{dst}\t{src}"


def packed_rows_case(rng):
    """Rows sliced from wider ones into a destination where they lie back to
    back (packed rows, whose lines repeat every lcm(n, L) / L lines: the
    period's table, packed_period in gen/plan.c), row lengths around a line
    or a few, in cache or large enough to stream."""
    e = rng.choice([1, 2, 4, 8])
    n = rng.randint(max(1, 64 // e), 1200 // e)
    start = rng.randint(0, 40)
    pitch = n + start + rng.randint(0, 40)
    rows = rng.randint(20, max(21, (600 << 10) // (n * e)))
    return f"copy\t{e}\tiota {rows} {n}\tiota {rows} {pitch} | slice : {start}:{start + n}"


def row_quads_case(rng):
    """A (1, 0, 2) or (0, 2, 1, 3) permute of contiguous rows of 64 bytes to
    1 KiB whose source rows lie a page or more apart, large enough to stream:
    walked in the source's order, four (or two) rows a step into one run of
    the destination with AVX-512 (row_quads in gen/plan.c);
    extents divisible by 4, by 2 only, or odd."""
    e = rng.choice(ELEM_SIZES)
    row = rng.choice([64, 128, 256, 512, 1024]) // e
    a = rng.choice([4, 8, 12, 6, 10, 5, 7, rng.randint(2, 40)])
    b = max(4096 // (row * e), (300 << 10) // (a * row * e) + 1)
    if rng.random() < 0.3:
        return f"copy\t{e}\tiota 2 {b} {a} {row}\tiota 2 {a} {b} {row} | permute 0 2 1 3"
    return f"copy\t{e}\tiota {b} {a} {row}\tiota {a} {b} {row} | permute 1 0 2"


def intel_rules_case(rng):
    """Round 31's plans on Intel with AVX-512, large enough to stream (more
    than the corpus's 256 KiB of cache): float transposes whose source rows
    spread over the L1 sets (tiles of 32 rows), whose rows crowd one set but
    lie off lines (prefetched one tile ahead into L2; staged where the
    destination's rows are off lines too), or whose tile count along b has a
    divisor from 8 to 15 (blocks of 16 tiles ending past b's end); and rows
    read with a stride of 2 or 3, or reversed, two rows apart (row groups)."""
    kind = rng.randrange(4)
    if kind == 3:
        e = rng.choice(ELEM_SIZES)
        step = rng.choice([2, 3])
        n = rng.choice([64, 128, 256, 512]) // e * rng.randint(1, 3)
        r = 4 * ((300 << 10) // (4 * n * e) + rng.randint(1, 3)) + rng.choice([0, 0, 2])
        rows = rng.choice(["::2", "::-2", "1::2"])
        return f"copy\t{e}\tiota {r} {n}\tiota {2 * r} {n * step} | slice {rows} ::{step}"
    if kind == 0:  # a pitch that is no multiple of 4 KiB: spread
        pitch = 1024 * rng.randint(1, 3) + 16 * rng.choice([1, 2, 3, 5, 7])
        b = pitch
    elif kind == 1:  # a few elements off a multiple of 4 KiB: crowded, off lines
        pitch = 1024 * rng.randint(1, 2) + rng.choice([-3, -1, 1, 2, 5])
        b = pitch
    else:  # 64 x t columns of a crowded 8 KiB pitch, t with a divisor from 8 to 15 but not 16
        pitch = 2048
        b = 64 * rng.choice([18, 20, 24, 27, 30])
    a = (300 << 10) // (b * 4) + rng.randint(1, 80)
    src = f"iota {a} {pitch}" + (f" | slice : :{b}" if b != pitch else "") + " | permute 1 0"
    dst = f"iota {b} {a}"
    if rng.random() < 0.4:  # destination rows padded, on lines or off them (staged)
        pad = rng.choice([1, 3, 16])
        dst = f"iota {b} {a + pad} | slice : :{a}"
    return f"copy\t4\t{dst}\t{src}"


def zen_rules_case(rng):
    """Round 32's plans on Zen with AVX-512 (Intel's with AVX-512 take the
    same layouts their own way), large enough to stream: float transposes
    whose source or destination rows crowd one L1 set (a pitch of 1024 or
    2048 floats), a spanning 64 rows or more (64 x 32 tiles) or fewer (32 x
    64), cut short on either side; and (2, 1, 0) or (3, 1, 2, 0) permutes
    whose source unit dim of 8 to 64 elements fuses with the dim that
    continues it (fused b)."""
    if rng.random() < 0.5:
        pitch = rng.choice([1024, 2048])
        b = pitch - rng.choice([0, 0, 16, 5, 40])
        a = rng.choice([40, 63, 64, 65, 100, 130, 200]) + (300 << 10) // (b * 4) * rng.randint(0, 1)
        src = f"iota {a} {pitch}" + (f" | slice : :{b}" if b != pitch else "") + " | permute 1 0"
        dst = f"iota {b} {a}"
        if rng.random() < 0.4:  # a destination pitch of its own: crowded too, or spread
            dpitch = rng.choice([1024, 2048, a + 16])
            dst = f"iota {b} {max(dpitch, a)} | slice : :{a}"
        return f"copy\t4\t{dst}\t{src}"
    e = rng.choice([2, 4, 8])
    n = rng.choice([8, 16, 32, 64 // e]) if e < 8 else 8
    mid = rng.choice([16, 40, 64, 100])
    outer = (300 << 10) // (n * mid * e) + rng.randint(1, 30)
    if rng.random() < 0.3:
        return f"copy\t{e}\tiota {n} 4 {mid} {outer}\tiota {outer} 4 {mid} {n} | permute 3 1 2 0"
    return f"copy\t{e}\tiota {n} {mid} {outer}\tiota {outer} {mid} {n} | permute 2 1 0"


def crowded_destination_case(rng):
    """Round 33's plan on Zen with AVX-512: batched transposes of halves and
    bytes whose destination rows crowd one L1 set (a pitch of 2 to 8 KiB)
    while the source's rows spread, large enough to stream (halves in 64-byte
    blocks, bytes gathered: zen_crowded_destination in gen/plan.c); the
    destination's rows cut short or not, b a whole line or not."""
    e = rng.choice([1, 2])
    pitch = rng.choice([2048, 4096, 8192]) // e
    a = pitch - rng.choice([0, 0, 8, 33])
    b = rng.choice([64, 128, 96, 130, 200]) // e
    batch = (300 << 10) // (a * b * e) + rng.randint(1, 3)
    dst = f"iota {batch} {b} {pitch}" + (f" | slice : : :{a}" if a != pitch else "")
    return f"copy\t{e}\t{dst}\tiota {batch} {a} {b} | permute 0 2 1"


def mid_rows_case(rng):
    """Round 33's float tiles on Zen with AVX-512 whose source rows lie back
    to back, 256 or 320 bytes each (NHWC -> NCHW of 64 or 80 channels),
    into destination rows crowding one L1 set (a pitch of 4 to 16 KiB): 32
    rows a tile (zen_mid_sequential_rows in gen/plan.c); the destination's
    rows cut short or not."""
    c = rng.choice([64, 80])
    pitch = rng.choice([1024, 2048, 4096])
    a = pitch - rng.choice([0, 0, 1, 7, 40])
    n = (300 << 10) // (c * a * 4) + rng.randint(1, 3)
    dst = f"iota {n} {c} {pitch}" + (f" | slice : : :{a}" if a != pitch else "")
    return f"copy\t4\t{dst}\tiota {n} {a} {c} | permute 0 2 1"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--copies", type=int, default=2000)
    ap.add_argument("--fills", type=int, default=300)
    ap.add_argument("--cats", type=int, default=300)
    ap.add_argument("--large", type=int, default=25)
    ap.add_argument("--tiled", type=int, default=60)
    ap.add_argument("--tiled-cats", type=int, default=20)
    ap.add_argument("--chain-dsts", type=int, default=80)
    ap.add_argument("--flat-chains", type=int, default=120)
    ap.add_argument("--rolled", type=int, default=40)
    ap.add_argument("--multi-rolled", type=int, default=40)
    ap.add_argument("--packed-rows", type=int, default=30)
    ap.add_argument("--row-quads", type=int, default=30)
    ap.add_argument("--intel-rules", type=int, default=30)
    ap.add_argument("--zen-rules", type=int, default=30)
    ap.add_argument("--crowded-dsts", type=int, default=20)
    ap.add_argument("--mid-rows", type=int, default=10)
    ap.add_argument("--seed", type=int, default=29112026)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    lines = [copy_case(rng) for _ in range(a.copies)]
    lines += [fill_case(rng) for _ in range(a.fills)]
    lines += [cat_case(rng) for _ in range(a.cats)]
    lines += [large_case(rng, k) for k in range(a.large)]
    lines += [tiled_case(rng) for _ in range(a.tiled)]
    lines += [tiled_cat_case(rng) for _ in range(a.tiled_cats)]
    lines += [chain_dst_case(rng) for _ in range(a.chain_dsts)]
    lines += [flat_chain_case(rng) for _ in range(a.flat_chains)]
    lines += [rolled_case(rng) for _ in range(a.rolled)]
    lines += [multi_rolled_case(rng) for _ in range(a.multi_rolled)]
    lines += [packed_rows_case(rng) for _ in range(a.packed_rows)]
    lines += [row_quads_case(rng) for _ in range(a.row_quads)]
    lines += [intel_rules_case(rng) for _ in range(a.intel_rules)]
    lines += [zen_rules_case(rng) for _ in range(a.zen_rules)]
    lines += [crowded_destination_case(rng) for _ in range(a.crowded_dsts)]
    lines += [mid_rows_case(rng) for _ in range(a.mid_rows)]
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
