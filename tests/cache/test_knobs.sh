#!/bin/sh
# Size and count knobs through the CLI (include/ixjit/number.h): a bad
# IXJIT_CACHE_MAX_BYTES is an error (exit 2) that removes nothing, never a
# tiny limit read from part of it; suffixes mean what docs/cache.md says.
# usage: test_knobs.sh IXJIT
ixjit="$1"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE IXJIT_CACHE_MAX_BYTES
c="$tmp/c"
IXJIT_CACHE_DIR="$c" "$ixjit" run copy --dst 'iota 24 40' --src 'iota 40 24 | permute 1 0' --elem-size 4 > /dev/null
IXJIT_CACHE_DIR="$c" "$ixjit" run fill --dst 'iota 100 | slice ::3' --value 0a0b --elem-size 2 > /dev/null
count() { find "$c" -name '*.ixk' | wc -l | tr -d ' '; }
[ "$(count)" = 2 ] && ok || bad "setup: $(count) entries"

for v in "-1" " 100" "100 " "10kB" "1.5G" "abc" "0" "18446744073709551616" "1Gi "; do
  out=$(IXJIT_CACHE_MAX_BYTES="$v" "$ixjit" cache prune --cache "$c" 2>&1); rc=$?
  [ $rc = 2 ] && ok || bad "prune with IXJIT_CACHE_MAX_BYTES='$v': exit $rc: $out"
  expect "'$v' named in the error" "IXJIT_CACHE_MAX_BYTES" "$out"
  [ "$(count)" = 2 ] && ok || bad "prune with IXJIT_CACHE_MAX_BYTES='$v' removed entries"
done
out=$(IXJIT_CACHE_MAX_BYTES="1Gi" "$ixjit" cache stats --cache "$c")
expect "1Gi is 2^30" "(limit 1073741824)" "$out"
out=$(IXJIT_CACHE_MAX_BYTES="10k" "$ixjit" cache stats --cache "$c")
expect "10k is 10000" "(limit 10000)" "$out"
out=$(IXJIT_CACHE_MAX_BYTES="500M" "$ixjit" cache prune --cache "$c"); rc=$?
[ $rc = 0 ] && [ "$(count)" = 2 ] && ok || bad "prune with 500M: exit $rc, $(count) entries"
out=$(IXJIT_CACHE_MAX_BYTES="1" "$ixjit" cache prune --cache "$c"); rc=$?
[ $rc = 0 ] && [ "$(count)" = 0 ] && ok || bad "prune with 1 byte: exit $rc, $(count) entries"

# the library: a bad value is one warning and the default, the run goes on
out=$(IXJIT_CACHE_DIR="$c" IXJIT_CACHE_MAX_BYTES="-1" "$ixjit" run copy --dst 'iota 24 40' --src 'iota 40 24 | permute 1 0' --elem-size 4 --check 2>&1); rc=$?
[ $rc = 0 ] && ok || bad "run with a bad IXJIT_CACHE_MAX_BYTES: exit $rc"
expect "run: a warning" "warning: IXJIT_CACHE_MAX_BYTES" "$out"
expect "run: correct" "check: ok" "$out"
[ "$(count)" = 1 ] && ok || bad "run with the default limit kept $(count) entries"
out=$(IXJIT_NUM_THREADS="4x" "$ixjit" run copy --dst 'iota 24 40' --src 'iota 40 24 | permute 1 0' --elem-size 4 --check 2>&1)
expect "IXJIT_NUM_THREADS: a warning" "warning: IXJIT_NUM_THREADS" "$out"
expect "IXJIT_NUM_THREADS: correct" "check: ok" "$out"

# CLI options read by the same parser
out=$("$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size ' 4' 2>&1); rc=$?
[ $rc = 2 ] && ok || bad "--elem-size ' 4': exit $rc"
out=$("$ixjit" run cat --axis 1x --dst 'iota 4 10' --src 'iota 4 10' --elem-size 4 2>&1); rc=$?
[ $rc = 2 ] && ok || bad "--axis 1x: exit $rc"

echo "test_knobs: $pass passed, $fail failed"
[ $fail = 0 ]
