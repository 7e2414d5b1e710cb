#!/bin/sh
# The oneDNN peer runner's line protocol (tools/bench_peers.c), no timing
# assertion: a prepared case runs at several thread counts, going back to one
# it ran at before (each count gets its own primitive, made with that count
# set), says so when it runs out of primitives, and refuses a run before any
# case and a case oneDNN cannot express.
# usage: test_onednn_runner.sh RUNNER
set -u
runner=$1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$({
  echo "run 1 1"
  echo "case copy 4 0 1"
  echo "operand 4096 0 2 32 32 32 1"
  echo "operand 4096 0 2 32 32 1 32"
  echo "go"
  for t in 1 2 1 2 3 4 5 6 7 8 9; do echo "run $t 2"; done
  echo "end"
  echo "case copy 4 0 1"
  echo "operand 4096 0 2 32 32 32 1"
  echo "operand 4096 992 2 32 32 -32 1"
  echo "go"
  echo "quit"
} | "$runner")
echo "$out" | head -1 | grep -q "^ready " || bad "no ready line: $out"
echo "$out" | sed -n 2p | grep -q "^error no case is prepared" || bad "a run before any case: $(echo "$out" | sed -n 2p)"
echo "$out" | sed -n 3p | grep -q "^ok" || bad "the case was not prepared: $(echo "$out" | sed -n 3p)"
# thread counts 1 2 1 2 3 4 5 6 7: timed (the first primitive, OpenMP's default,
# and seven more fill the eight); 8 and 9 have no room left.
times=$(echo "$out" | sed -n 4,12p | grep -c "^time [0-9.]*$")
[ "$times" -eq 9 ] || bad "runs at 1 2 1 2 3..7 threads: $times timed of 9: $out"
echo "$out" | sed -n 13,14p | grep -c "^error more thread counts" | grep -q 2 || bad "counts past the limit: $out"
echo "$out" | sed -n 15p | grep -q "^ok" || bad "end: $(echo "$out" | sed -n 15p)"
echo "$out" | sed -n 16p | grep -q "^cannot oneDNN strides must be positive" || bad "a reversed source: $(echo "$out" | sed -n 16p)"
[ "$fails" -eq 0 ] && echo "onednn runner: all passed"
exit "$fails"
