#!/bin/sh
# `ixjit bench` end to end, with no timing assertion: --help, bad arguments
# and suites (exit 2, SUITE:LINE), a tiny run of the whole default suite
# (--size-scale) writing JSON and SVG, the compare of that JSON with a
# synthetic 2x slowdown (flagged, exit 1) and with a synthetic rerun whose
# repetitions overlap (not flagged), and --micro leaving no directory behind.
# usage: test_bench_cli.sh IXJIT PYTHON3
set -u
ixjit=$1
python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --help: the usage on stdout, exit 0, nothing measured.
out=$("$ixjit" bench --help) && echo "$out" | grep -q -- "--baseline FILE" && ok || bad "--help"
"$ixjit" bench --bogus >/dev/null 2>"$work/err"; [ $? -eq 2 ] && grep -q "unknown option '--bogus'" "$work/err" && ok || bad "unknown option"
"$ixjit" bench --reps 0 >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--reps 0"
"$ixjit" bench --threads 1,x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--threads 1,x"
"$ixjit" bench --pages large >/dev/null 2>"$work/err"; [ $? -eq 2 ] && grep -q "expected huge or small" "$work/err" && ok || bad "--pages large"
printf 'let N = 8\ncopy a elem=4 dst=iota $N src=iota $N\ncopy b elem=5 dst=iota 4 src=iota 4\n' >"$work/bad.suite"
"$ixjit" bench "$work/bad.suite" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.suite:3: elem=5" "$work/err" && ok || bad "suite error (rc $rc): $(cat "$work/err")"

# A tiny run of the whole default suite: every case runs, JSON and SVG are written.
"$ixjit" bench --size-scale 0.002 --reps 2 --min-time 0.2 --threads 1,2 --peers numpy \
  --json "$work/a.json" --plot "$work/a.svg" >"$work/table" 2>"$work/progress"; rc=$?
[ $rc -eq 0 ] && ok || bad "tiny run exited $rc: $(tail -5 "$work/progress")"
grep -q "^t2d_e4 " "$work/table" && grep -q "^cat8_inner_t " "$work/table" && ok || bad "table rows"
grep -q "^\[1/" "$work/progress" && ok || bad "progress lines"
grep -q "^gpu: \|^GPU (" "$work/table" && ok || bad "the GPU line"
grep -q "<svg" "$work/a.svg" && grep -q "t2d_e4" "$work/a.svg" && ok || bad "svg"
"$python" - "$work/a.json" <<'PY' && ok || bad "json content"
import json, sys
d = json.load(open(sys.argv[1]))
c, b = d["context"], d["benchmarks"]
for key in ("date", "commit", "ixjit_version", "llvm_version", "nvrtc_version", "cpu_model", "cpu_features",
            "llc_bytes", "threads", "load_avg", "peers", "command", "num_cpus", "pages"):
    assert key in c, key
strategies = {e.get("strategy") for e in b if e.get("method") == "ixjit"}
for s in ("memcpy", "inner_contiguous", "tiled", "general"):
    assert s in strategies, (s, strategies)
methods = {e["method"] for e in b}
for m in ("ixjit", "memcpy", "nt_copy", "memset", "nt_fill", "generic"):
    assert m in methods, (m, methods)
assert all("real_time" in e and "cpu_time" in e and "time_unit" in e for e in b)  # what compare.py needs
assert any(x["method"] == "numpy" and "cannot express" in x["error_message"] for x in c["skipped"])
reps = [e for e in b if e["run_type"] == "iteration"]
assert all(e["real_time"] > 0 and e["time_unit"] == "ms" for e in reps)
aggs = {e["aggregate_name"] for e in b if e["run_type"] == "aggregate"}
assert aggs == {"median", "min", "max"}, aggs
assert any(e["threads"] == 2 for e in reps)
assert c["pages"].startswith("huge"), c["pages"]  # the default: as NumPy allocates
PY

# --pages small: one case of 4 MiB and more on 4 KiB pages, for every method, the peers included.
"$ixjit" bench --filter '^t2d_e4$' --size-scale 0.1 --reps 1 --min-time 0.2 --threads 1 --peers numpy --pages small \
  --json "$work/s.json" >"$work/table" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^pages: small" "$work/table" && ok || bad "--pages small (rc $rc): $(tail -3 "$work/table")"
"$python" -c 'import json, sys; assert json.load(open(sys.argv[1]))["context"]["pages"].startswith("small")' "$work/s.json" \
  && ok || bad "--pages small in the JSON"

# Synthetic results from that run: every ixjit repetition 2x slower; and a
# rerun with the repetitions reordered and one of them 3x slower.
"$python" - "$work/a.json" "$work/slow.json" "$work/rerun.json" <<'PY' || bad "making synthetic results"
import json, sys
d = json.load(open(sys.argv[1]))
def change(f):
    e = json.loads(json.dumps(d))
    groups = {}
    for x in e["benchmarks"]:
        if x.get("method") == "ixjit" and x["run_type"] == "iteration" and not x.get("error_occurred"):
            groups.setdefault(x["run_name"], []).append(x)
    for g in groups.values():
        f(g)
    return e
def slow(g):
    for x in g:
        x["real_time"] *= 2
def rerun(g):
    times = [x["real_time"] for x in g][::-1]
    times[0] *= 3
    for x, t in zip(g, times):
        x["real_time"] = t
json.dump(change(slow), open(sys.argv[2], "w"))
json.dump(change(rerun), open(sys.argv[3], "w"))
PY
"$ixjit" bench --input "$work/slow.json" --baseline "$work/a.json" --threshold 10 >"$work/cmp" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "REGRESSION" "$work/cmp" && ok || bad "2x slowdown not flagged (rc $rc)"
"$ixjit" bench --input "$work/rerun.json" --baseline "$work/a.json" --threshold 10 >"$work/cmp" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q "REGRESSION" "$work/cmp" && grep -q " 0 regressions" "$work/cmp" && ok || bad "rerun flagged (rc $rc): $(grep REGRESSION "$work/cmp" | head -3)"
"$ixjit" bench --input "$work/a.json" --baseline "$work/a.json" >/dev/null 2>&1 && ok || bad "self compare"
"$ixjit" bench --input "$work/a.json" --plot "$work/b.svg" >/dev/null 2>&1 && cmp -s "$work/a.svg" "$work/b.svg" && ok || bad "replot from JSON"

# The compile medians by kind, recomputed here from a copy of that run's JSON
# whose compile times are set: every compiling ixjit row counts, memcpy plans
# and kernels another case had made (0 ms) do not.
"$python" - "$work/a.json" "$work/compile.json" "$work/compile.want" <<'PY' || bad "making compile results"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
kinds = {"inner_contiguous": "elementwise", "general": "elementwise", "tiled": "tiled", "cat_parts": "cat"}
runs = {e["run_name"]: kinds[e["strategy"]] for e in d["benchmarks"]
        if e.get("method") == "ixjit" and e.get("strategy") in kinds}
got, ms_of = {}, {}
for i, (name, kind) in enumerate(sorted(runs.items())):
    ms_of[name] = 0 if i % 5 == 4 else 1.0 + (i * 37 % 23) / 4  # some shared kernels, the rest spread
    if ms_of[name] > 0:
        got.setdefault(kind, []).append(ms_of[name])
for e in d["benchmarks"]:  # every entry of a run carries its compile time
    if e["run_name"] in ms_of and "compile_ms" in e:
        e["compile_ms"] = ms_of[e["run_name"]]
json.dump(d, open(sys.argv[2], "w"))
want = [f"{k} {statistics.median(got[k]):.1f} ({len(got[k])})" for k in ("elementwise", "tiled", "cat")]
open(sys.argv[3], "w").write(", ".join(want) + "\n")
PY
"$ixjit" bench --input "$work/compile.json" >"$work/table" 2>&1
grep "^compile, " "$work/table" | sed 's/^[^:]*: //' | cmp -s - "$work/compile.want" && ok ||
  bad "compile medians: $(grep '^compile, ' "$work/table") against $(cat "$work/compile.want")"

# --micro: the cache and division numbers; its cache directory is its own and is removed.
mkdir "$work/tmp"
TMPDIR="$work/tmp" "$ixjit" bench --micro --reps 2 --json "$work/m.json" >"$work/micro" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "cache/memory_hit/threads:1" "$work/micro" && grep -q "magic" "$work/micro" && ok || bad "micro (rc $rc): $(tail -3 "$work/micro")"
[ -z "$(ls -A "$work/tmp")" ] && ok || bad "micro left $(ls "$work/tmp")"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
