"""Python-level call overhead on a cache hit: ixjit.copy and a prepared
ixjit.Kernel against numpy.copyto and torch.Tensor.copy_ on the same small
views (an 8x8 float32 transpose, a 64-element contiguous copy).

    python python/bench/overhead.py [--repeat 7] [--number 20000]

Prints the minimum and median over `repeat` timings of `number` calls, in
microseconds per call. torch is optional (skipped when it does not import).
A busy machine inflates every column alike; compare columns of one run."""
import argparse
import statistics
import timeit

import numpy as np

import ixjit


def cases():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.empty((8, 8), np.float32)
    flat = np.arange(64, dtype=np.float32)
    fout = np.empty(64, np.float32)
    return {"transpose 8x8 f32": (out, a.T), "contiguous 64 f32": (fout, flat)}


def measure(fn, number, repeat):
    fn()  # compile / warm every cache first
    times = timeit.repeat(fn, number=number, repeat=repeat)
    per = [t / number * 1e6 for t in times]
    return min(per), statistics.median(per)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args()
    try:
        import torch
    except Exception:  # not installed, or broken: the column is left out
        torch = None
    ctx = ixjit.Context(threads=1, disk_cache=False)
    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'absent'}, ixjit {ixjit.__version__}")
    print(f"{'case':22} {'call':28} {'min us':>8} {'median us':>10}")
    for name, (dst, src) in cases().items():
        kernel = ixjit.prepare_copy(dst, src, context=ctx)
        rows = [
            ("ixjit.copy", lambda: ixjit.copy(dst, src, context=ctx)),
            ("ixjit.copy (default ctx)", lambda: ixjit.copy(dst, src)),
            ("ixjit Kernel (prepared)", lambda: kernel(dst, src)),
            ("numpy.copyto", lambda: np.copyto(dst, src)),
        ]
        if torch is not None:
            td, ts = torch.from_numpy(dst), torch.from_numpy(np.ascontiguousarray(src))
            if src.ndim == 2 and not src.flags["C_CONTIGUOUS"]:
                ts = torch.from_numpy(np.ascontiguousarray(src.T)).T  # the same transposed view
            rows.append(("torch.Tensor.copy_", lambda: td.copy_(ts)))
            rows.append(("ixjit.copy (torch views)", lambda: ixjit.copy(td, ts, context=ctx)))
        for label, fn in rows:
            lo, med = measure(fn, args.number, args.repeat)
            print(f"{name:22} {label:28} {lo:8.3f} {med:10.3f}")
        np.testing.assert_array_equal(dst, src)


if __name__ == "__main__":
    main()
