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


def batch(ixjit, command, texts):
    """`ixjit COMMAND -` over many lines: per text, its output lines or an error."""
    r = subprocess.run([ixjit, command, "--inline-errors", "-"], input="".join(t + "\n" for t in texts), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ixjit {command} - failed: {r.stderr}")
    lines, out, k = r.stdout.split("\n"), [], 0
    for _ in texts:
        if lines[k].startswith("error: "):
            out.append(("error", lines[k]))
            k += 1
        elif command == "eval":
            out.append(("ok", parse_eval(lines[k] + "\n" + lines[k + 1])))
            k += 2
        else:
            out.append(("ok", lines[k]))
            k += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ixjit")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--roundtrip", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    failures = valid = invalid = multi = empty = 0
    cases = [pipeline(rng)[0] for _ in range(a.cases)]
    round_trips = []
    results = batch(a.ixjit, "eval", cases)
    shown = batch(a.ixjit, "show", cases) if a.roundtrip else None
    for case, text in enumerate(cases):
        try:
            want = evaluate(text)
            model_error = None
        except ModelError as e:
            want, model_error = None, str(e)
        kind, got = results[case]
        if model_error is not None:
            invalid += 1
            if kind != "error":
                failures += 1
                print(f"FAIL case {case}: model rejects ({model_error}) but ixjit accepts\n  {text}")
            continue
        valid += 1
        if kind == "error":
            failures += 1
            print(f"FAIL case {case}: ixjit rejects a valid pipeline: {got}\n  {text}")
            continue
        empty += not want[1]
        if got != want:
            failures += 1
            print(f"FAIL case {case}: mismatch\n  {text}\n  model shape {want[0]} points {want[1][:40]}\n  ixjit shape {got[0]} points {got[1][:40]}")
            continue
        if a.roundtrip:
            skind, stext = shown[case]
            if skind != "ok":
                failures += 1
                print(f"FAIL case {case}: show failed: {stext}\n  {text}")
                continue
            multi += stext.count("{offset:") > 1
            round_trips.append((case, text, stext, want))
    if round_trips:  # the printed forms, evaluated and printed again
        texts = [rt[2] for rt in round_trips]
        for (case, text, stext, want), (k2, again), (k3, reshown) in zip(
                round_trips, batch(a.ixjit, "eval", texts), batch(a.ixjit, "show", texts)):
            if k2 != "ok" or again != want or reshown != stext:
                failures += 1
                print(f"FAIL case {case}: round trip\n  {text}\n  {stext}")
    print(f"{valid} valid ({empty} without points) and {invalid} invalid pipelines; "
          f"{multi} shown with several LMADs (round trip checked: {a.roundtrip})")
    print(f"{a.cases - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
