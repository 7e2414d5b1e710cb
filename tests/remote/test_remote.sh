#!/bin/sh
# The remote tier (docs/remote-cache.md) against a real Redis server that this
# test starts on a unix socket in its scratch directory (and one case on a
# loopback TCP port): a process with an empty disk cache gets every kernel
# from the store; a store that is down, killed mid-request or slowed (DEBUG
# SLEEP) costs a compile, never the call; forged, truncated and other keys'
# values are refused; 8 processes warming and reading at once leave only
# valid entries; no key, no remote tier; IXJIT_COMPILE=cache-only gets a
# kernel from the store, and compiles nothing when no tier has it. Exit 77
# (skipped) without redis-server or in a build without hiredis or libsodium.
# usage: test_remote.sh IXJIT PYTHON GEN_JIT_CASES
ixjit="$1" python="$2" gen="$3"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE IXJIT_CACHE_MAX_BYTES IXJIT_REMOTE_PREFIX IXJIT_REMOTE_TTL IXJIT_REMOTE_MAX_ENTRY
command -v redis-server > /dev/null && command -v redis-cli > /dev/null || { echo "skipped: no redis-server"; exit 77; }
t="timeout 120"
sock="$tmp/redis.sock"
start() { # a fresh server on the socket (DEBUG allowed: the slow-store case uses it)
  redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --daemonize yes --pidfile "$tmp/redis.pid" \
    --dir "$tmp" --save '' --appendonly no --enable-debug-command yes --maxmemory-policy allkeys-lru > /dev/null
  for k in 1 2 3 4 5 6 7 8 9 10; do redis-cli -s "$sock" ping > /dev/null 2>&1 && return 0; sleep 0.2; done
  echo "redis-server did not start"; exit 1
}
stop() { [ -f "$tmp/redis.pid" ] && kill -9 "$(cat "$tmp/redis.pid")" 2>/dev/null; rm -f "$tmp/redis.pid" "$sock"; sleep 0.2; }
trap 'stop; rm -rf "$tmp"' EXIT
rcli() { redis-cli -s "$sock" "$@"; }
start

head -c 32 /dev/urandom > "$tmp/key" && chmod 600 "$tmp/key"
head -c 32 /dev/urandom > "$tmp/other-key" && chmod 600 "$tmp/other-key"
export IXJIT_CACHE_KEY_FILE="$tmp/key" IXJIT_REMOTE_CACHE="unix://$sock"
# generous timeouts where a case needs every kernel from the store (a busy
# machine must not turn a hit into a compile); the failure cases set short ones
export IXJIT_REMOTE_TIMEOUT_MS=5000 IXJIT_REMOTE_CONNECT_TIMEOUT_MS=5000
one() { # DIR [SRC]: one copy through the tiers with DIR as the disk cache
  IXJIT_CACHE_DIR="$1" $t "$ixjit" run copy --dst 'iota 30 20' --src "${2:-iota 20 30 | permute 1 0}" --elem-size 4 --check 2>&1
}

out=$(one "$tmp/probe")
case "$out" in *"without hiredis"*|*"without libsodium"*) echo "skipped: $out"; exit 77 ;; esac

# no key: the remote tier refuses to start, the run still works
rcli flushall > /dev/null
out=$(IXJIT_CACHE_KEY_FILE= one "$tmp/nokey")
expect "no key: refused" "refuses to start without authenticated entries" "$out"
expect "no key: still correct" "check: ok" "$out"
[ "$(rcli dbsize)" = 0 ] && ok || bad "no key: something was pushed"
out=$(IXJIT_REMOTE_CACHE=redis://localhost:notaport one "$tmp/badurl")
expect "bad URL: refused" "the remote cache is off" "$out"

# 1. A warms the store; B, with an empty disk cache of its own, compiles nothing
rcli flushall > /dev/null
"$python" "$gen" "$tmp/cases.txt" --copies 60 --fills 10 --cats 10 --large 0 --seed 21
awk -F '\t' 'BEGIN { OFS = "\t" } { $2 = $2 "\t" (NR % 2); print }' "$tmp/cases.txt" > "$tmp/spec.txt"
out=$($t "$ixjit" warm --remote --cache "$tmp/A" -j 2 "$tmp/spec.txt" 2>&1); rc=$?
[ $rc = 0 ] && ok || bad "A: warm --remote exit $rc: $out"
compiled=$(printf '%s\n' "$out" | sed -n 's/.*: \([0-9]*\) compiled.*/\1/p')
entries=$(rcli --scan --pattern 'ixjit:????????????????????????????????' | wc -l)
[ "$entries" -gt 0 ] && [ "$entries" = "$compiled" ] && ok || bad "store holds $entries entries for $compiled compiled: $out"
out=$($t "$ixjit" warm --cache "$tmp/B" -j 2 "$tmp/spec.txt" 2>&1); rc=$?
[ $rc = 0 ] && ok || bad "B: warm exit $rc: $out"
expect "B: zero compiles, every kernel from the store" ": 0 compiled" "$out"
"$ixjit" cache verify --cache "$tmp/B" > /dev/null && ok || bad "B: the entries written from the store verify"
out=$("$ixjit" cache stats --cache "$tmp/B")
expect "B: remote hits counted" "remote hits      $compiled " "$out"
one "$tmp/A2" > /dev/null # compiles and pushes (the writer is joined before the process exits)
out=$(one "$tmp/C")
expect "C: a run's kernel from the store" "cache: hit (remote, " "$out"
expect "C: correct" "check: ok" "$out"
out=$(one "$tmp/C")
expect "C again: from its disk now, no network" "cache: hit (disk, " "$out"
# cache-only reads the tiers a sync load reads, disk then store, and never compiles
out=$(IXJIT_COMPILE=cache-only one "$tmp/co")
expect "cache-only: the kernel from the store" "cache: hit (remote, " "$out"
expect "cache-only: correct" "check: ok" "$out"
out=$(IXJIT_COMPILE=cache-only one "$tmp/co")
expect "cache-only again: from its disk (the store's entry written there)" "cache: hit (disk, " "$out"
n=$(rcli dbsize)
out=$(IXJIT_COMPILE=cache-only one "$tmp/co2" 'iota 20 30 | rotate 7 0 | permute 1 0')
expect "cache-only, in no tier: correct (the generic kernel)" "check: ok" "$out"
[ "$(rcli dbsize)" = "$n" ] && ok || bad "cache-only pushed an entry: it compiled"
out=$("$ixjit" cache stats --cache "$tmp/co2")
expect "cache-only, in no tier: nothing written" ": 0 entries" "$out"
expect "cache-only, in no tier: the store was asked" "remote hits      0 (misses 1)" "$out"
out=$(IXJIT_CACHE_DIR="$tmp/C" $t "$ixjit" run cat --axis 1 --dst 'iota 4 10' --src 'iota 4 3' --src 'iota 7 4 | permute 1 0' --elem-size 8 --check 2>&1)
expect "cat: correct" "check: ok" "$out"
out=$("$ixjit" cache stats --remote)
expect "stats --remote: entries" "entries" "$out"
expect "stats --remote: hits" "hits" "$out"
# warm --remote of a disk that already has everything fills an empty store
rcli flushall > /dev/null
out=$($t "$ixjit" warm --remote --cache "$tmp/A" -j 2 "$tmp/spec.txt" 2>&1)
expect "A again: nothing compiled" ": 0 compiled" "$out"
entries=$(rcli --scan --pattern 'ixjit:????????????????????????????????' | wc -l)
[ "$entries" = "$compiled" ] && ok || bad "warm --remote of present kernels pushed $entries of $compiled"

# 2. refused values: another key's HMAC, truncated, another entry's value; each
# a compile with a right result (and the compile's push repairs the store)
src1='iota 20 30 | permute 1 0 | slice ::-1'
rcli flushall > /dev/null
one "$tmp/w1" "$src1" > /dev/null
name=$(rcli --scan --pattern 'ixjit:????????????????????????????????' | head -n 1)
IXJIT_CACHE_KEY_FILE="$tmp/other-key" one "$tmp/forger" "$src1" > /dev/null # pushes its own (wrong-key) entry
out=$(one "$tmp/r1" "$src1")
expect "another key's entry: refused" "authentication failed" "$out"
expect "another key's entry: compiled" "cache: miss (compiled" "$out"
expect "another key's entry: correct" "check: ok" "$out"
for n in $(rcli --scan --pattern 'ixjit:????????????????????????????????'); do
  rcli --raw get "$n" | head -c 100 | rcli -x set "$n" > /dev/null
done
out=$(one "$tmp/r2" "$src1")
expect "truncated value: refused" "refused (truncated" "$out"
expect "truncated value: correct" "check: ok" "$out"
one "$tmp/w3" 'iota 20 30 | rotate 1 0 | permute 1 0' > /dev/null
for n in $(rcli --scan --pattern 'ixjit:????????????????????????????????'); do
  [ "$n" = "$name" ] || rcli copy "$n" "$name" replace > /dev/null
done
out=$(one "$tmp/r3" "$src1")
expect "another entry's value: refused" "key mismatch" "$out"
expect "another entry's value: correct" "check: ok" "$out"

# 3. a slowed store (DEBUG SLEEP): a timeout, a compile, the call succeeds
rcli debug sleep 3 > /dev/null &
sleeper=$!
sleep 0.3
out=$(IXJIT_REMOTE_TIMEOUT_MS=50 one "$tmp/slow" 'iota 20 30 | rotate 2 0 | permute 1 0')
expect "slow store: timed out" "GET: timed out" "$out"
expect "slow store: compiled" "cache: miss (compiled" "$out"
expect "slow store: correct" "check: ok" "$out"
wait $sleeper

# 4. the store killed mid-request: the client waits on a sleeping server, which dies
rcli debug sleep 5 > /dev/null 2>&1 &
sleeper=$!
sleep 0.3
IXJIT_REMOTE_TIMEOUT_MS=3000 one "$tmp/killed" 'iota 20 30 | rotate 3 0 | permute 1 0' > "$tmp/killed.out" &
client=$!
sleep 0.5
stop
wait $client; rc=$?
wait $sleeper 2>/dev/null
out=$(cat "$tmp/killed.out")
[ $rc = 0 ] && ok || bad "killed store: exit $rc: $out"
expect "killed store: compiled" "cache: miss (compiled" "$out"
expect "killed store: correct" "check: ok" "$out"

# 5. the store down: a compile and one warning per failure; the breaker then stops asking
# (3 failures and the breaker's own line; it asks again after its 10 s pause, BREAKER_MS in
# runtime/remote_cache.c, and one more failure reopens it: 2 lines more each pause, which a slow
# run under the sanitizers can reach)
began=$(date +%s)
out=$(IXJIT_REMOTE_TIMEOUT_MS=50 IXJIT_REMOTE_CONNECT_TIMEOUT_MS=50 IXJIT_CACHE_DIR="$tmp/down" $t "$ixjit" warm -j 1 "$tmp/spec.txt" 2>&1); rc=$?
pauses=$((($(date +%s) - began) / 10))
[ $rc = 0 ] && ok || bad "store down: warm exit $rc: $out"
expect "store down: the breaker opens" "failures in a row: not asked again" "$out"
warnings=$(printf '%s\n' "$out" | grep -c "warning: remote cache")
[ "$warnings" -le $((4 + 2 * pauses)) ] && ok || bad "store down: $warnings warnings in $pauses pauses (the breaker should stop them)"
out=$(IXJIT_REMOTE_TIMEOUT_MS=50 one "$tmp/down2" 'iota 20 30 | rotate 4 0 | permute 1 0')
expect "store down: correct" "check: ok" "$out"
out=$($t "$ixjit" warm --remote --cache "$tmp/down3" "$tmp/spec.txt" 2>&1); rc=$?
[ $rc = 0 ] && ok || bad "warm --remote with the store down still warms the disk: exit $rc"

# 6. eight processes warming and reading one store at once: every entry valid
start
for k in 0 1 2 3 4 5 6 7; do
  awk -v k=$k 'NR % 4 == k % 4 || NR % 4 == (k + 1) % 4' "$tmp/spec.txt" > "$tmp/part$k.txt"
  IXJIT_CACHE_DIR="$tmp/p$k" $t "$ixjit" warm --remote -j 1 --cache "$tmp/p$k" "$tmp/part$k.txt" > "$tmp/p$k.log" 2>&1 &
done
wait
for k in 0 1 2 3 4 5 6 7; do
  grep -q " 0 failed; 0 bad lines" "$tmp/p$k.log" && ok || bad "concurrent warm $k: $(cat "$tmp/p$k.log")"
  "$ixjit" cache verify --cache "$tmp/p$k" > /dev/null && ok || bad "concurrent warm $k: disk entries verify"
done
out=$($t "$ixjit" warm --cache "$tmp/after8" -j 2 "$tmp/spec.txt" 2>&1)
expect "after 8 writers: everything from the store" ": 0 compiled" "$out"
"$ixjit" cache verify --cache "$tmp/after8" > /dev/null && ok || bad "after 8 writers: the store's entries verify"

# 7. TTL, the size limit of a push, a key prefix
rcli flushall > /dev/null
IXJIT_REMOTE_TTL=1000 one "$tmp/ttl" > /dev/null
n=$(rcli --scan --pattern 'ixjit:????????????????????????????????' | head -n 1)
ttl=$(rcli ttl "$n")
[ "$ttl" -gt 0 ] && [ "$ttl" -le 1000 ] && ok || bad "TTL: $ttl"
rcli flushall > /dev/null
IXJIT_REMOTE_MAX_ENTRY=100 one "$tmp/big" > /dev/null
[ "$(rcli --scan --pattern 'ixjit:????????????????????????????????' | wc -l)" = 0 ] && ok || bad "an entry above the limit was pushed"
IXJIT_REMOTE_PREFIX=team: one "$tmp/prefixed" > /dev/null
[ "$(rcli --scan --pattern 'team:????????????????????????????????' | wc -l)" = 1 ] && ok || bad "prefix: $(rcli keys '*')"

# 8. a loopback TCP port (redis://127.0.0.1:PORT/DB)
port=$((20000 + $$ % 20000))
if redis-server --port $port --bind 127.0.0.1 --daemonize yes --pidfile "$tmp/tcp.pid" --dir "$tmp" --save '' > /dev/null 2>&1 &&
   sleep 0.5 && redis-cli -p $port ping > /dev/null 2>&1; then
  IXJIT_REMOTE_CACHE="redis://127.0.0.1:$port/3" one "$tmp/tcp1" > /dev/null
  out=$(IXJIT_REMOTE_CACHE="redis://127.0.0.1:$port/3" one "$tmp/tcp2")
  expect "TCP, db 3: from the store" "cache: hit (remote, " "$out"
  [ "$(redis-cli -p $port -n 3 dbsize)" -ge 1 ] && ok || bad "TCP: nothing in db 3"
  kill -9 "$(cat "$tmp/tcp.pid")" 2>/dev/null
else
  echo "skipped: TCP case (port $port unavailable)"
fi

echo "test_remote: $pass passed, $fail failed"
[ $fail = 0 ]
