"""Random IXFUN pipelines for the differential tests: ranks 1-6, every stage
kind, negative and zero steps, rotations, reshapes of non-contiguous views,
rebases, and a share of invalid stages that both sides must reject."""
import random

from ixfun_model import ModelError, evaluate, base_count, _evaluate

MAX_POINTS = 4096


def _factorize(rng, n, max_rank=6):
    """A random shape of rank 1..max_rank with element count n."""
    if n == 0:
        rank = rng.randint(1, 3)
        shape = [rng.randint(1, 4) for _ in range(rank)]
        shape[rng.randrange(rank)] = 0
        return shape
    factors, m, p = [], n, 2
    while p * p <= m:
        while m % p == 0:
            factors.append(p)
            m //= p
        p += 1
    if m > 1:
        factors.append(m)
    rank = rng.randint(1, max_rank)
    shape = [1] * rank
    for f in factors:
        shape[rng.randrange(rank)] *= f
    return shape


def _first_stage(rng):
    rank = rng.randint(1, 4)
    shape = [rng.choice([1, 2, 3, 4, 5, 6, 7]) for _ in range(rank)]
    if rng.random() < 0.03:
        shape[rng.randrange(rank)] = 0
    if rng.random() < 0.75:
        off = f" offset={rng.randint(0, 9)}" if rng.random() < 0.2 else ""
        return "iota " + " ".join(map(str, shape)) + off
    strides = [rng.randint(-7, 7) for _ in shape]
    # an offset that keeps every point non-negative
    off = sum(-s * (n - 1) for s, n in zip(strides, shape) if s < 0 and n > 0) + rng.randint(0, 3)
    return f"strided shape={','.join(map(str, shape))} strides={','.join(map(str, strides))} offset={off}"


def _slice_item(rng, n):
    kind = rng.random()
    if kind < 0.25 and n > 0:
        i = rng.randrange(n)
        return str(i - n if rng.random() < 0.3 else i), True
    if kind < 0.6:
        step = rng.choice([1, 1, 2, 3, -1, -1, -2, -3])
        # mostly non-empty ranges, sometimes clipped or empty ones
        start = "" if rng.random() < 0.4 else str(rng.randint(-n - 2, n + 1) if rng.random() < 0.2 else rng.randint(-n, max(n - 1, 0)))
        stop = "" if rng.random() < 0.5 else str(rng.randint(-n - 2, n + 2))
        if step == 1 and rng.random() < 0.5:
            return f"{start}:{stop}", False
        return f"{start}:{stop}:{step}", False
    if n == 0:
        return "0:+0*1", False
    start = rng.randrange(n)
    step = rng.choice([0, 1, 2, -1, -2, 3])
    if step == 0:
        most = 3
    elif step > 0:
        most = (n - 1 - start) // step + 1
    else:
        most = start // -step + 1
    count = rng.randint(1, most) if rng.random() < 0.9 else rng.randint(0, most)
    return f"{start}:+{count}*{step}", False


def _valid_stage(rng, shape, text):
    rank = len(shape)
    count = 1
    for d in shape:
        count *= d
    kinds = ["permute", "rotate", "slice", "slice", "reshape", "reshape", "expand", "rebase"]
    kind = rng.choice(kinds)
    if kind == "permute" and rank > 0:
        perm = list(range(rank))
        rng.shuffle(perm)
        return "permute " + " ".join(map(str, perm))
    if kind == "rotate" and rank > 0:
        return "rotate " + " ".join(str(rng.randint(-2 * d - 2, 2 * d + 2)) for d in shape)
    if kind == "slice" and rank > 0:
        k = rng.randint(1, rank)
        items = [_slice_item(rng, shape[j])[0] for j in range(k)]
        return "slice " + " ".join(items)
    if kind == "reshape":
        new = _factorize(rng, count)
        if rng.random() < 0.2 and count > 0:
            new[rng.randrange(len(new))] = -1
        return "reshape " + " ".join(map(str, new))
    if kind == "expand" and rank < 6:
        lead = [rng.randint(1, 3) for _ in range(rng.randint(0, min(2, 6 - rank)))]
        tail = [rng.randint(1, 3) if d == 1 and rng.random() < 0.7 else d for d in shape]
        return "expand " + " ".join(map(str, lead + tail))
    if kind == "rebase":
        arr, base = _evaluate(text)
        if arr.size and (arr.min() < 0 or arr.max() >= base):
            return None
        nb = "iota " + " ".join(map(str, _factorize(rng, base, 4)))
        for _ in range(rng.randint(0, 3)):
            nb_shape, _ = evaluate(nb)
            r = len(nb_shape)
            c = rng.random()
            if c < 0.3:
                perm = list(range(r))
                rng.shuffle(perm)
                nb += " | permute " + " ".join(map(str, perm))
            elif c < 0.5:
                nb += " | rotate " + " ".join(str(rng.randint(-3, 3)) for _ in nb_shape)
            elif c < 0.75:
                nb += " | slice " + " ".join(rng.choice([":", "::-1"]) for _ in nb_shape)
            else:
                nb += " | reshape " + " ".join(map(str, _factorize(rng, base, 4)))
        return f"rebase ({nb})"
    return None


def _invalid_stage(rng, shape):
    rank = len(shape)
    c = rng.randrange(6)
    if c == 0 and rank >= 2:
        return "permute " + " ".join(["0"] * rank)
    if c == 1:
        return "rotate " + " ".join(["1"] * (rank + 1))
    if c == 2 and rank > 0:
        return f"slice {shape[0] + rng.randint(0, 3)}"
    if c == 3:
        return "reshape " + str(max(1, 1 + sum(shape) * 7))
    if c == 4 and rank > 0 and any(d > 1 for d in shape):
        return "expand " + " ".join(str(d + 1 if d > 1 else d) for d in shape)
    if c == 5 and rank > 0 and shape[0] > 0:
        return f"slice 0:+{shape[0] + 1}*1"
    return "permute " + " ".join(str(k + 1) for k in range(rank)) if rank else "slice 0"


def pipeline(rng, invalid_rate=0.04):
    """(text, expect_error)."""
    text = _first_stage(rng)
    for _ in range(rng.randint(1, 6)):
        shape, points = evaluate(text)
        if rng.random() < invalid_rate:
            return f"{text} | {_invalid_stage(rng, shape)}", True
        for _attempt in range(10):
            st = _valid_stage(rng, shape, text)
            if st is None:
                continue
            cand = f"{text} | {st}"
            try:
                s2, p2 = evaluate(cand)
            except ModelError:
                continue
            if len(s2) <= 6 and len(p2) <= MAX_POINTS:
                text = cand
                break
    return text, False
