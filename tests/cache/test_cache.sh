#!/bin/sh
# The disk cache across processes, through the CLI:
#   warm, then a new process compiles nothing; 8 processes warming one
#   directory at once; writers killed with SIGKILL mid-way; flipped bytes,
#   truncation, another format version, another key's entry renamed into
#   place; read-only and missing directories; bad spec lines.
# usage: test_cache.sh IXJIT PYTHON GEN_JIT_CASES
ixjit="$1" python="$2" gen="$3"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE

# A spec in the recorded format from the JIT test corpus: op, elem, aligned, ...
"$python" "$gen" "$tmp/cases.txt" --copies 120 --fills 20 --cats 20 --large 0 --seed 7
awk -F '\t' 'BEGIN { OFS = "\t" } { $2 = $2 "\t" (NR % 2); print }' "$tmp/cases.txt" > "$tmp/spec.txt"

# 1. warm, then a new process compiles nothing
out=$("$ixjit" warm --cache "$tmp/c1" -j 2 "$tmp/spec.txt" 2>/dev/null); rc=$?
[ $rc = 0 ] && ok || bad "warm exit $rc: $out"
out=$("$ixjit" warm --cache "$tmp/c1" -j 2 "$tmp/spec.txt" 2>/dev/null)
expect "second warm compiles nothing" ": 0 compiled" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/c1" "$ixjit" run copy --dst 'iota 40 60' --src 'iota 60 40 | permute 1 0' --elem-size 4 --check)
expect "first run compiles" "cache: miss (compiled" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/c1" "$ixjit" run copy --dst 'iota 40 60' --src 'iota 60 40 | permute 1 0' --elem-size 4 --check)
expect "new process: disk hit" "cache: hit (disk" "$out"
expect "new process: correct" "check: ok" "$out"

# 2. eight processes warming one directory at once, overlapping signatures
for k in 0 1 2 3 4 5 6 7; do
  awk -v k=$k 'NR % 8 == k || NR % 8 == (k + 1) % 8' "$tmp/spec.txt" > "$tmp/part$k.txt"
  "$ixjit" warm --cache "$tmp/c2" -j 1 "$tmp/part$k.txt" > "$tmp/warm$k.log" 2>&1 &
done
wait
for k in 0 1 2 3 4 5 6 7; do grep -q " 0 failed; 0 bad lines" "$tmp/warm$k.log" && ok || bad "concurrent warm $k: $(cat "$tmp/warm$k.log")"; done
"$ixjit" cache verify --cache "$tmp/c2" > /dev/null && ok || bad "verify after concurrent warming"
out=$("$ixjit" warm --cache "$tmp/c2" "$tmp/spec.txt" 2>/dev/null)
expect "everything present after concurrent warming" ": 0 compiled" "$out"

# 3. writers killed with SIGKILL: never a partial entry (the directory exists
# first: a writer killed before it made it leaves nothing to verify)
mkdir -p "$tmp/c3" && chmod 700 "$tmp/c3"
for delay in 0.05 0.15 0.3 0.5 0.8; do
  "$ixjit" warm --cache "$tmp/c3" -j 2 "$tmp/spec.txt" > /dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  "$ixjit" cache verify --cache "$tmp/c3" > /dev/null && ok || bad "verify after SIGKILL at ${delay}s"
done
out=$("$ixjit" warm --cache "$tmp/c3" "$tmp/spec.txt" 2>/dev/null); rc=$?
[ $rc = 0 ] && ok || bad "warm after kills: $out"

# 4. damaged entries: detected, recompiled, results correct
one() { # dir: run one copy, print the cache line
  IXJIT_CACHE_DIR="$1" "$ixjit" run copy --dst 'iota 30 20' --src 'iota 20 30 | permute 1 0 | slice ::-1' --elem-size 2 --check
}
damage() { # name command...
  d="$tmp/d-$1"; shift
  one "$d" > /dev/null
  f=$(find "$d" -name "*.ixk")
  "$@" "$f"
  "$ixjit" cache verify --cache "$d" > /dev/null && bad "verify missed damage in $d" || ok
  out=$(one "$d")
  expect "damaged entry recompiled ($d)" "cache: miss (compiled" "$out"
  expect "damaged entry: result correct ($d)" "check: ok" "$out"
  out=$(one "$d")
  expect "rewritten entry loads ($d)" "cache: hit (disk" "$out"
}
flip() { printf 'Z' | dd of="$1" bs=1 seek=200 conv=notrunc 2>/dev/null; }
cut_short() { truncate -s 100 "$1"; }
version() { printf '\011' | dd of="$1" bs=1 seek=8 conv=notrunc 2>/dev/null; }
damage flip flip
damage truncated cut_short
damage version version
# another signature's entry renamed into place
d="$tmp/d-renamed"
IXJIT_CACHE_DIR="$d" "$ixjit" run copy --dst 'iota 8 9' --src 'iota 9 8 | permute 1 0' --elem-size 4 > /dev/null
other=$(find "$d" -name "*.ixk")
one "$d" > /dev/null
mine=$(find "$d" -name "*.ixk" | grep -v "$other")
cp "$other" "$mine"
out=$(one "$d")
expect "renamed entry is a miss" "cache: miss (compiled" "$out"
expect "renamed entry: result correct" "check: ok" "$out"

# 5. read-only and missing directories
out=$(IXJIT_CACHE_DIR=/proc "$ixjit" run copy --dst 'iota 7 5' --src 'iota 5 7 | permute 1 0' --elem-size 4 --check 2>&1)
expect "read-only directory: still works" "check: ok" "$out"
expect "read-only directory: one warning" "ixjit: warning: cannot write to the cache /proc" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/not/yet/there" "$ixjit" run copy --dst 'iota 7 5' --src 'iota 5 7 | permute 1 0' --elem-size 4 --check 2>&1)
expect "missing directory: created" "check: ok" "$out"
[ -n "$(ls "$tmp/not/yet/there")" ] && ok || bad "missing directory: no entry written"
out=$(IXJIT_CACHE_DIR=/proc/ixjit/cannot "$ixjit" run copy --dst 'iota 7 5' --src 'iota 5 7 | permute 1 0' --elem-size 4 --check 2>&1)
expect "uncreatable directory: still works" "check: ok" "$out"
out=$(IXJIT_CACHE=off IXJIT_CACHE_DIR="$tmp/off" "$ixjit" run copy --dst 'iota 7 5' --src 'iota 5 7 | permute 1 0' --elem-size 4 2>&1)
[ ! -e "$tmp/off" ] && ok || bad "IXJIT_CACHE=off still wrote $tmp/off"

# 6. bad spec lines: reported with file and line, the rest warmed
printf 'copy\t4\t1\tiota 3 4\tiota 4 3 | permute 1 0\nbogus line\ncopy\t3\t1\tiota 3\tiota 3\n# a comment\nfill\t2\t0\tiota 9 | slice ::2\ncopy\t4\t1\tiota 3\tiota 3 |\n' > "$tmp/badspec.txt"
out=$("$ixjit" warm --cache "$tmp/c6" "$tmp/badspec.txt" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "bad lines: exit $rc"
expect "bad line 2 reported" "badspec.txt:2: error" "$out"
expect "bad line 3 reported" "badspec.txt:3 (cpu): failed: element size 3" "$out"
expect "bad line 6 reported" "badspec.txt:6: error: source 1:" "$out"
expect "good lines warmed" "2 compiled" "$out"

# 7. recording: one line per compiled signature, readable by warm
IXJIT_RECORD="$tmp/rec.txt" IXJIT_CACHE_DIR="$tmp/c7" "$ixjit" run cat --axis 1 --dst 'iota 4 10' --src 'iota 4 3' --src 'iota 7 4 | permute 1 0' --elem-size 8 > /dev/null
IXJIT_RECORD="$tmp/rec.txt" IXJIT_CACHE_DIR="$tmp/c7" "$ixjit" run fill --dst 'iota 100 | slice ::3' --value 0a0b --elem-size 2 > /dev/null
[ "$(wc -l < "$tmp/rec.txt")" = 2 ] && ok || bad "record: $(cat "$tmp/rec.txt")"
out=$("$ixjit" warm --cache "$tmp/c7b" "$tmp/rec.txt" 2>/dev/null)
expect "recorded signatures warm" "2 compiled" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/c7b" "$ixjit" run fill --dst 'iota 100 | slice ::3' --value 0a0b --elem-size 2)
expect "warmed recording hits the disk" "cache: hit (disk" "$out"

# 8. CUDA targets warm without a GPU (when NVRTC is there)
if "$ixjit" emit copy --target ptx:sm_90 --dst 'iota 4' --src 'iota 4 | slice ::-1' --elem-size 4 > /dev/null 2>&1; then
  head -n 30 "$tmp/spec.txt" > "$tmp/spec30.txt"
  out=$("$ixjit" warm --cache "$tmp/c8" --target cuda:sm_90 --target cuda:sm_80 -j 2 "$tmp/spec30.txt" 2>/dev/null); rc=$?
  [ $rc = 0 ] && ok || bad "cuda warm: $out"
  out=$("$ixjit" warm --cache "$tmp/c8" --target cuda:sm_90 "$tmp/spec30.txt" 2>/dev/null)
  expect "cuda warm: a second run compiles nothing" ": 0 compiled" "$out"
  "$ixjit" cache verify --cache "$tmp/c8" > /dev/null && ok || bad "cuda entries verify"
else
  echo "skipped: CUDA warming (no NVRTC)"
fi

# 9. maintenance
out=$("$ixjit" cache stats --cache "$tmp/c1")
expect "stats" "entries" "$out"
out=$(IXJIT_CACHE_MAX_BYTES=1 "$ixjit" cache prune --cache "$tmp/c1")
expect "prune to a tiny limit" "removed" "$out"
out=$("$ixjit" cache stats --cache "$tmp/c1")
expect "pruned" " 0 entries" "$out"
"$ixjit" cache clear --cache "$tmp/c2" > /dev/null && [ -z "$(ls "$tmp/c2")" ] && ok || bad "clear: $(ls "$tmp/c2")"

# 10. stats: hits and misses across processes (8 at once), per target, JSON;
# a directory that does not exist yet is an empty cache
s="$tmp/stats"
out=$("$ixjit" cache stats --cache "$s"); rc=$?
[ $rc = 0 ] && ok || bad "stats of a missing directory: exit $rc"
expect "missing directory: empty" "0 entries" "$out"
expect "missing directory: said so" "no such directory yet" "$out"
sc() { IXJIT_CACHE_DIR="$s" "$ixjit" run copy --dst 'iota 12 10' --src "$1" --elem-size 4 > /dev/null; }
sc 'iota 10 12 | permute 1 0'
sc 'iota 12 10 | slice ::-1'
for k in 0 1 2 3 4 5 6 7; do sc 'iota 10 12 | permute 1 0' & done
wait
out=$("$ixjit" cache stats --cache "$s")
expect "stats: disk hits of 8 processes" "hits           8 (80.0 %)" "$out"
expect "stats: misses" "misses         2 (20.0 %)" "$out"
expect "stats: compiled" "compiled         2" "$out"
expect "stats: per target" "target cpu:" "$out"
expect "stats: human sizes" "KiB of 1.0 GiB" "$out"
out=$("$ixjit" cache stats --cache "$s" --json)
printf '%s' "$out" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
assert d["disk_hits"] == 8 and d["disk_misses"] == 2 and d["entries"] == 2, d
assert sum(t["entries"] for t in d["targets"].values()) == 2, d
' && ok || bad "stats --json: $out"
out=$("$ixjit" cache ls --cache "$s" --json)
printf '%s' "$out" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["list"]) == 2 and all(e["valid"] and "signature" in e for e in d["list"]), d
' && ok || bad "ls --json: $out"
f=$(find "$s" -name '*.ixk' | head -n 1)
printf 'Z' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null
out=$("$ixjit" cache verify --cache "$s" --json); rc=$?
[ $rc = 1 ] && ok || bad "verify --json with a damaged entry: exit $rc"
printf '%s' "$out" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
assert d["bad"] == 1 and d["bad_entries"][0]["problem"] == "checksum mismatch", d
' && ok || bad "verify --json: $out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
