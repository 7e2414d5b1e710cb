"""An independent NumPy model of the IXFUN syntax (docs/syntax.md).

Each pipeline is evaluated as NumPy would: the "array of offsets" is built by
np.arange / np.indices and transformed by transpose, roll, basic slicing,
np.take, reshape and broadcast_to. It shares no code with ixjit.
evaluate(text) returns (shape, flat list of offsets) or raises ModelError.
"""
import numpy as np


class ModelError(Exception):
    pass


def _ints(words, what):
    try:
        return [int(w) for w in words]
    except ValueError:
        raise ModelError(f"{what}: bad integer")


def _split_stages(text):
    """Split on top-level '|', keeping parenthesised rebase arguments whole."""
    stages, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ModelError("unbalanced )")
        if ch == "|" and depth == 0:
            stages.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise ModelError("unbalanced (")
    stages.append(cur.strip())
    return stages


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _first(stage):
    words = stage.split()
    name, args = words[0], words[1:]
    if name == "iota":
        offset = 0
        if args and args[-1].startswith("offset="):
            offset = int(args.pop()[7:])
        shape = _ints(args, "iota")
        if any(d < 0 for d in shape):
            raise ModelError("negative extent")
        arr = np.arange(_count(shape), dtype=np.int64).reshape(shape) + offset
        return arr, _count(shape)
    if name == "strided":
        kv = dict(a.split("=", 1) for a in args)
        shape = _ints(kv["shape"].split(","), "shape") if kv.get("shape") else []
        strides = _ints(kv["strides"].split(","), "strides") if kv.get("strides") else []
        offset = int(kv.get("offset", "0"))
        if len(shape) != len(strides) or any(d < 0 for d in shape):
            raise ModelError("bad strided")
        arr = np.full(shape, offset, dtype=np.int64)
        if shape:
            idx = np.indices(shape, dtype=np.int64)
            for k, s in enumerate(strides):
                arr = arr + idx[k] * s
        # base: the shape when the strides are row-major (an iota), else the
        # smallest one-dimensional buffer holding every point.
        nonunit = [(n, s) for n, s in zip(shape, strides) if n != 1]
        rowmajor = bool(nonunit) and all(n > 0 for n, _ in nonunit)
        want = 1
        for n, s in reversed(nonunit):
            rowmajor = rowmajor and s == want
            want *= n
        if rowmajor:
            base = _count(shape)
        else:
            base = int(arr.max()) + 1 if arr.size and arr.max() >= 0 else 0
        return arr, base
    raise ModelError(f"bad first stage {name}")


def _slice(arr, items):
    if len(items) > arr.ndim:
        raise ModelError("too many slice items")
    axis = 0
    for it in items:
        n = arr.shape[axis]
        if ":+" in it:
            start, rest = it.split(":+")
            count, step = rest.split("*")
            start, count, step = int(start), int(count), int(step)
            if count < 0:
                raise ModelError("negative count")
            idx = start + step * np.arange(count, dtype=np.int64)
            if count and (idx.min() < 0 or idx.max() >= n):
                raise ModelError("slice leaves the dim")
            arr = np.take(arr, idx, axis=axis)
            axis += 1
        elif ":" in it:
            parts = it.split(":")
            if len(parts) > 3:
                raise ModelError("too many colons")
            vals = [int(p) if p else None for p in parts] + [None] * (3 - len(parts))
            if vals[2] == 0:
                raise ModelError("zero step")
            arr = arr[(slice(None),) * axis + (slice(*vals),)]
            axis += 1
        else:
            i = int(it)
            if not -n <= i < n:
                raise ModelError("index out of range")
            arr = np.take(arr, i, axis=axis)
    return arr


def _apply(arr, base, stage):
    name, _, rest = stage.partition(" ")
    rest = rest.strip()
    if name == "rebase":
        if not (rest.startswith("(") and rest.endswith(")")):
            raise ModelError("rebase needs (...)")
        nb, nb_base = _evaluate(rest[1:-1])
        if base != nb.size:
            raise ModelError("rebase: element counts differ")
        if arr.size and (arr.min() < 0 or arr.max() >= nb.size):
            raise ModelError("rebase: offsets outside the new base")
        return nb.reshape(-1)[arr], nb_base
    words = rest.split()
    if name == "permute":
        perm = _ints(words, "permute")
        if sorted(perm) != list(range(arr.ndim)):
            raise ModelError("bad permutation")
        return arr.transpose(perm), base
    if name == "rotate":
        amounts = _ints(words, "rotate")
        if len(amounts) != arr.ndim:
            raise ModelError("rotate arity")
        for k, r in enumerate(amounts):
            if arr.shape[k]:
                arr = np.roll(arr, -r, axis=k)
        return arr, base
    if name == "slice":
        return _slice(arr, words), base
    if name == "reshape":
        shape = _ints(words, "reshape")
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise ModelError("bad reshape")
        try:
            return arr.reshape(shape), base
        except ValueError:
            raise ModelError("reshape count")
    if name == "expand":
        shape = _ints(words, "expand")
        if any(d < 0 for d in shape):
            raise ModelError("negative extent")
        try:
            return np.broadcast_to(arr, shape), base
        except ValueError:
            raise ModelError("cannot broadcast")
    raise ModelError(f"unknown stage {name}")


def _evaluate(text):
    stages = _split_stages(text)
    arr, base = _first(stages[0])
    for st in stages[1:]:
        arr, base = _apply(arr, base, st)
    return arr, base


def evaluate(text):
    arr, _ = _evaluate(text)
    return list(arr.shape), [int(v) for v in arr.reshape(-1)]


def base_count(text):
    return _evaluate(text)[1]
