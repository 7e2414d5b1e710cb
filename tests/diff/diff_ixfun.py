#!/usr/bin/env python3
"""Differential test: random pipelines evaluated by `ixjit eval` and by the
independent NumPy model must give the same shape and the same offsets; both
must reject the same invalid pipelines. With --roundtrip, also checks that
`ixjit show` output parses back to an index function with identical points.

usage: diff_ixfun.py IXJIT [--cases N] [--seed S] [--roundtrip]
"""
import argparse
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ixfun_model import ModelError, evaluate  # noqa: E402
from random_pipelines import pipeline  # noqa: E402


def run(ixjit, *args):
    return subprocess.run([ixjit, *args], capture_output=True, text=True)


def parse_eval(out):
    lines = out.split("\n")
    shape = [int(x) for x in lines[0].split()[1:]]
    points = [int(x) for x in lines[1].split()] if len(lines) > 1 else []
    return shape, points


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ixjit")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--roundtrip", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    failures = valid = invalid = multi = empty = 0
    for case in range(a.cases):
        text, expect_error = pipeline(rng)
        try:
            want = evaluate(text)
            model_error = None
        except ModelError as e:
            want, model_error = None, str(e)
        r = run(a.ixjit, "eval", text)
        if model_error is not None:
            invalid += 1
            if r.returncode != 2 or not r.stderr.startswith("ixjit: error: "):
                failures += 1
                print(f"FAIL case {case}: model rejects ({model_error}) but ixjit exit {r.returncode}\n  {text}\n  {r.stdout[:200]}")
            continue
        valid += 1
        if r.returncode != 0:
            failures += 1
            print(f"FAIL case {case}: ixjit rejects a valid pipeline: {r.stderr.strip()}\n  {text}")
            continue
        empty += not want[1]
        got = parse_eval(r.stdout)
        if got != want:
            failures += 1
            print(f"FAIL case {case}: mismatch\n  {text}\n  model shape {want[0]} points {want[1][:40]}\n  ixjit shape {got[0]} points {got[1][:40]}")
            continue
        if a.roundtrip:
            s = run(a.ixjit, "show", text)
            if s.returncode != 0:
                failures += 1
                print(f"FAIL case {case}: show failed: {s.stderr.strip()}\n  {text}")
                continue
            shown = s.stdout.strip()
            if shown.count("{offset:") > 1:
                multi += 1
            r2 = run(a.ixjit, "eval", shown)
            s2 = run(a.ixjit, "show", shown)
            if r2.returncode != 0 or parse_eval(r2.stdout) != want or s2.stdout.strip() != shown:
                failures += 1
                print(f"FAIL case {case}: round trip\n  {text}\n  {shown}\n  {r2.stderr.strip()}")
    print(f"{valid} valid ({empty} without points) and {invalid} invalid pipelines; "
          f"{multi} shown with several LMADs (round trip checked: {a.roundtrip})")
    print(f"{a.cases - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
