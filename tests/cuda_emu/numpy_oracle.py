#!/usr/bin/env python3
"""The NumPy oracle of the CUDA emulator test (test_cuda_emu.c --numpy).

For each case the test left in DIR (NNNNNN.case: the corpus line;
.before/.after: the destination view's bytes before and after the emulated
kernel; .src0, .src1, ...: the sources; .value: a fill's element) the result
is recomputed from the independent NumPy model of the index functions
(tests/diff/ixfun_model.py) and must equal .after byte for byte.

usage: numpy_oracle.py DIR
"""
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
from ixfun_model import evaluate  # noqa: E402


def elements(path, e):
    raw = np.fromfile(path, dtype=np.uint8)
    return raw[: len(raw) // e * e].reshape(-1, e)


def expected(stem, fields):
    op, e = fields[0], int(fields[1])
    first = 3 if op == "cat" else 2
    dst_shape, dst_offs = evaluate(fields[first])
    out = elements(stem + ".before", e).copy()
    dst_offs = np.array(dst_offs, dtype=np.int64)
    if op == "fill":
        out[dst_offs] = np.frombuffer(open(stem + ".value", "rb").read(), dtype=np.uint8)
        return out
    if op == "copy":
        _, src_offs = evaluate(fields[first + 1])
        out[dst_offs] = elements(stem + ".src0", e)[np.array(src_offs, dtype=np.int64)]
        return out
    axis = int(fields[2])
    parts = [evaluate(t) for t in fields[first + 1:]]
    cuts = np.cumsum([shape[axis] for shape, _ in parts])[:-1]
    dst = dst_offs.reshape(dst_shape)
    for k, (piece, (shape, offs)) in enumerate(zip(np.split(dst, cuts, axis=axis), parts)):
        if piece.size:
            out[piece.reshape(-1)] = elements(f"{stem}.src{k}", e)[np.array(offs, dtype=np.int64)]
    return out


def main():
    bad = 0
    cases = sorted(glob.glob(os.path.join(sys.argv[1], "*.case")))
    for path in cases:
        stem = path[: -len(".case")]
        fields = open(path).read().rstrip("\n").split("\t")
        e = int(fields[1])
        got = elements(stem + ".after", e)
        want = expected(stem, fields)
        if got.shape != want.shape or not np.array_equal(got, want):
            diff = np.argwhere(np.any(got != want, axis=1)) if got.shape == want.shape else [[-1]]
            print(f"NumPy oracle: {os.path.basename(stem)}: element {int(diff[0][0])} differs: {fields}")
            bad += 1
    print(f"NumPy oracle: {len(cases) - bad} of {len(cases)} cases agree")
    return 1 if bad or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
