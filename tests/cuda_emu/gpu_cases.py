#!/usr/bin/env python3
"""Cases the JIT corpus holds few of on the GPU, in its format (see
tests/diff/gen_jit_cases.py): tiled transposes (2-D, batched 3-D, inside
larger arrays, transposed chains the plan refines, edges that are not whole
tiles) and uint4-vectorized copies and fills (rows that are whole 16-byte
vectors at 16-byte pitches), every element size.

usage: gpu_cases.py OUT [--cases N] [--seed S]
"""
import argparse
import random

ELEM_SIZES = [1, 2, 4, 8, 16]


def transpose(rng, e):
    a, b = rng.randint(8, 80), rng.randint(8, 80)
    kind = rng.randrange(5)
    if kind == 0:
        return f"copy\t{e}\tiota {a} {b}\tiota {b} {a} | permute 1 0"
    if kind == 1:
        k = rng.randint(2, 4)
        return f"copy\t{e}\tiota {k} {a} {b}\tiota {k} {b} {a} | permute 0 2 1"
    if kind == 2:  # a strided destination, a source inside a larger array
        return (f"copy\t{e}\tiota {a} {b + 5} | slice : 2:{b + 2}"
                f"\tiota {b + 3} {a + 7} | slice 1:{b + 1} 3:{a + 3} | permute 1 0")
    if kind == 3:  # a.T.reshape: planned as the transpose it is
        return f"copy\t{e}\tiota {a * b}\tiota {b} {a} | permute 1 0 | reshape {a * b}"
    return f"copy\t{e}\tiota {a} {b}\tiota {b} {a} | slice ::-1 : | permute 1 0"


def vectorized(rng, e):
    lanes = max(1, 16 // e)
    rows, m = rng.randint(1, 40), lanes * rng.randint(1, 24)
    pad, start = lanes * rng.randint(0, 3), lanes * rng.randint(0, 2)
    pitch = m + pad + start
    if rng.random() < 0.5:
        return f"fill\t{e}\tiota {rows} {pitch} | slice : {start}:{start + m}"
    return (f"copy\t{e}\tiota {rows} {m + pad} | slice : 0:{m}"
            f"\tiota {rows + 2} {pitch} | slice 1:{rows + 1} {start}:{start + m}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=14)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    lines = []
    for k in range(a.cases):
        e = ELEM_SIZES[k % len(ELEM_SIZES)]
        lines.append(transpose(rng, e) if k % 2 == 0 else vectorized(rng, e))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
