#!/bin/sh
# `ixjit warm --target cpu:NAME[+FEATURES]` (issue 13): kernels compiled for
# another x86-64 CPU go into the cache, and this host never loads them: not
# for a CPU name alone (LLVM's features for it), not for another name, not
# for the host's own name with one feature fewer; it loads exactly the entry
# warmed for its own spec as `ixjit --version` prints it. Unknown names and
# features are refused by name. Skipped (77) on a host that is not x86-64.
# usage: test_warm_cpu.sh IXJIT
ixjit="$1"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE IXJIT_CACHE_MAX_BYTES
case "$(uname -m)" in x86_64) ;; *) echo "skipped: not an x86-64 host"; exit 77 ;; esac
op() { "$ixjit" run copy --dst 'iota 40 24' --src 'iota 24 40 | permute 1 0' --elem-size 4 --check "$@"; }
entries() { find "$1" -name '*.ixk' | wc -l | tr -d ' '; }
# the exact signature this host runs (alignment included), recorded
IXJIT_CACHE=off IXJIT_RECORD="$tmp/sigs.txt" op > /dev/null || bad "recording"
[ -s "$tmp/sigs.txt" ] && ok || bad "nothing recorded"
spec=$("$ixjit" --version | sed -n 's/^host CPU: //p')
case "$spec" in cpu:*+*) ok ;; *) bad "--version has no host CPU spec: $spec" ;; esac
name=${spec%%+*}
features=${spec#*+}
# one feature fewer (never one of the x86-64 baseline, which is always on)
fewer=$(echo "$features" | tr ',' '\n' | grep -v -x -e 64bit -e cmov -e cx8 -e fxsr -e mmx -e sse -e sse2 | sed '$d' |
        tr '\n' ',' | sed 's/,$//')

# foreign targets: compiled, written, never loaded here
n=0
for t in cpu:znver3 "cpu:x86-64-v3+avx2,fma,bmi2" "$name+$fewer"; do
  c="$tmp/c$n"
  out=$("$ixjit" warm --cache "$c" --target "$t" "$tmp/sigs.txt" 2>&1); rc=$?
  [ $rc = 0 ] && ok || bad "warm --target $t: exit $rc: $out"
  expect "warm --target ${t%%+*}...: compiled" ": 1 compiled, 0 already present" "$out"
  case "$t" in
    *+*) case "$out" in *warning*) bad "warm --target $t: a warning: $out" ;; *) ok ;; esac ;;
    *) expect "warm --target $t: no host loads it, said" "no host will load them" "$out" ;;
  esac
  [ "$(entries "$c")" = 1 ] && ok || bad "warm --target $t: $(entries "$c") entries"
  out=$(IXJIT_CACHE_DIR="$c" op 2>&1)
  expect "host after ${t%%+*}...: compiles its own" "cache: miss (compiled in" "$out"
  expect "host after ${t%%+*}...: correct" "check: ok" "$out"
  [ "$(entries "$c")" = 2 ] && ok || bad "after running on the host: $(entries "$c") entries, want 2 (the foreign one kept)"
  out=$("$ixjit" warm --cache "$c" --target "$t" "$tmp/sigs.txt" 2>&1)
  expect "warm --target ${t%%+*}... again: present" ": 0 compiled, 1 already present" "$out"
  n=$((n + 1))
done

# the host's own spec: the very entry the host loads
out=$("$ixjit" warm --cache "$tmp/own" --target "$spec" "$tmp/sigs.txt" 2>&1)
expect "warm for the host's spec" ": 1 compiled" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/own" op 2>&1)
expect "host loads the entry warmed for its spec" "cache: hit (disk, loaded in" "$out"
expect "and it is correct" "check: ok" "$out"
out=$("$ixjit" warm --cache "$tmp/own" --target cpu "$tmp/sigs.txt" 2>&1)
expect "--target cpu names the same entry" ": 0 compiled, 1 already present" "$out"

# refused by name
out=$("$ixjit" warm --cache "$tmp/bad" --target cpu:znver99 "$tmp/sigs.txt" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "unknown CPU: exit $rc"
expect "unknown CPU named" "LLVM knows no x86-64 CPU 'znver99'" "$out"
out=$("$ixjit" warm --cache "$tmp/bad" --target cpu:znver3+avx2,warp9 "$tmp/sigs.txt" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "unknown feature: exit $rc"
expect "unknown feature named" "'warp9' is not an x86-64 feature" "$out"
out=$("$ixjit" warm --cache "$tmp/bad" --target cpu:+avx2 "$tmp/sigs.txt" 2>&1); rc=$?
[ $rc = 2 ] && ok || bad "no CPU name: exit $rc"
[ "$(entries "$tmp/bad" 2>/dev/null || echo 0)" = 0 ] && ok || bad "a refused target wrote entries"

echo "warm_cpu: $pass passed, $fail failed"
[ $fail = 0 ]
