#!/bin/sh
# The disk cache's trust boundary through the CLI: a FIFO named like an entry
# blocks no command (run, cache verify, stats, prune: each would hang in
# fopen before; the harness's timeout, and `timeout` here, end them);
# another user's entry (as root) and a world-writable directory are never
# used, and verify names each and why.
# usage: test_trust.sh IXJIT
ixjit="$1"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE IXJIT_CACHE_MAX_BYTES
t="timeout 60"
run_copy() { # DIR: one copy through the cache in DIR, stdout and stderr
  IXJIT_CACHE_DIR="$1" $t "$ixjit" run copy --dst 'iota 24 40' --src 'iota 40 24 | permute 1 0' --elem-size 4 --check 2>&1
}

# the directory ixjit makes: 0700, its entry 0600, even under umask 0
c="$tmp/c1"
out=$(umask 0 && run_copy "$c")
expect "first run compiles" "cache: miss (compiled" "$out"
[ "$(stat -c %a "$c")" = 700 ] && ok || bad "directory mode $(stat -c %a "$c")"
entry=$(find "$c" -name "*.ixk" | head -n 1)
[ "$(stat -c %a "$entry")" = 600 ] && ok || bad "entry mode $(stat -c %a "$entry")"
out=$(run_copy "$c")
expect "second run loads" "cache: hit (disk" "$out"

# a FIFO in the entry's place: every command goes on
rm -f "$entry" && mkfifo "$entry"
out=$(run_copy "$c"); rc=$?
[ $rc = 0 ] && ok || bad "run with a FIFO entry: exit $rc: $out"
expect "run with a FIFO: compiled" "cache: miss (compiled" "$out"
expect "run with a FIFO: correct" "check: ok" "$out"
expect "run with a FIFO: one warning" "not trusted (a FIFO, not a regular file)" "$out"
[ -f "$entry" ] && ok || bad "the run's store did not replace the FIFO"
rm -f "$entry" && mkfifo "$entry"
out=$($t "$ixjit" cache verify --cache "$c"); rc=$?
[ $rc = 1 ] && ok || bad "verify with a FIFO: exit $rc: $out"
expect "verify names the FIFO" "bad: ${entry#"$c"/}: a FIFO, not a regular file" "$out"
out=$($t "$ixjit" cache stats --cache "$c"); rc=$?
[ $rc = 0 ] && ok || bad "stats with a FIFO: exit $rc"
expect "stats counts it bad" "1 bad" "$out"
out=$($t "$ixjit" cache prune --cache "$c"); rc=$?
[ $rc = 0 ] && ok || bad "prune with a FIFO: exit $rc: $out"
[ -e "$entry" ] && bad "prune left the FIFO" || ok
$t "$ixjit" cache verify --cache "$c" > /dev/null && ok || bad "verify after prune"

# another user's entry, whole and with a right checksum: verified bad, compiled over
if [ "$(id -u)" = 0 ]; then
  out=$(run_copy "$c")
  entry=$(find "$c" -name "*.ixk" | head -n 1)
  chown 12345:12345 "$entry"
  out=$($t "$ixjit" cache verify --cache "$c"); rc=$?
  [ $rc = 1 ] && ok || bad "verify with another user's entry: exit $rc"
  expect "verify names the owner" "owned by uid 12345" "$out"
  out=$(run_copy "$c")
  expect "another user's entry: compiled, not loaded" "cache: miss (compiled" "$out"
  expect "another user's entry: a warning" "owned by uid 12345" "$out"
fi

# a world-writable directory: not used (one warning), results still right; verify says why
w="$tmp/shared"
mkdir "$w" && run_copy "$w" > /dev/null && chmod 1777 "$w"
out=$(run_copy "$w"); rc=$?
[ $rc = 0 ] && ok || bad "run over a world-writable directory: exit $rc: $out"
expect "world-writable: a warning" "writable by group or others" "$out"
expect "world-writable: compiled, not loaded" "cache: miss (compiled" "$out"
expect "world-writable: correct" "check: ok" "$out"
out=$($t "$ixjit" cache verify --cache "$w"); rc=$?
[ $rc = 1 ] && ok || bad "verify of a world-writable directory: exit $rc"
expect "verify says why" "not trusted: writable by group or others" "$out"
out=$($t "$ixjit" cache prune --cache "$w" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "prune of a world-writable directory: exit $rc"

# authenticated entries: with IXJIT_CACHE_KEY_FILE an entry written without
# the key (or with another) is compiled over, never loaded; verify says why
k="$tmp/key" && head -c 32 /dev/urandom > "$k" && chmod 600 "$k"
k2="$tmp/key2" && head -c 40 /dev/urandom > "$k2" && chmod 600 "$k2"
a="$tmp/auth"
run_copy "$a" > /dev/null
out=$(IXJIT_CACHE_KEY_FILE="$k" run_copy "$a")
case "$out" in
*"without libsodium"*) echo "skipped: authenticated entries (built without libsodium)" ;;
*)
  expect "keyed: an unauthenticated entry is compiled over" "cache: miss (compiled" "$out"
  expect "keyed: one warning" "not authenticated (no HMAC)" "$out"
  expect "keyed: correct" "check: ok" "$out"
  out=$(IXJIT_CACHE_KEY_FILE="$k" run_copy "$a")
  expect "keyed: the authenticated entry loads" "cache: hit (disk" "$out"
  out=$(IXJIT_CACHE_KEY_FILE="$k2" $t "$ixjit" cache verify --cache "$a"); rc=$?
  [ $rc = 1 ] && ok || bad "verify with another key: exit $rc: $out"
  expect "verify names the failed HMAC" "authentication failed" "$out"
  out=$(IXJIT_CACHE_KEY_FILE="$k2" run_copy "$a")
  expect "another key: compiled, not loaded" "cache: miss (compiled" "$out"
  out=$(IXJIT_CACHE_KEY_FILE="$k2" $t "$ixjit" cache verify --cache "$a"); rc=$?
  [ $rc = 0 ] && ok || bad "verify after the rewrite: exit $rc: $out"
  chmod 644 "$k"
  out=$(IXJIT_CACHE_KEY_FILE="$k" run_copy "$a")
  expect "a key others can read: the disk cache is off" "the disk cache is off" "$out"
  expect "a key others can read: still correct" "check: ok" "$out"
  out=$(IXJIT_CACHE_KEY_FILE="$k" $t "$ixjit" cache verify --cache "$a" 2>&1); rc=$?
  [ $rc = 1 ] && ok || bad "verify with a key others can read: exit $rc"
  chmod 600 "$k"
  # a shared (world-writable, sticky) directory: only with the opt-in and a key
  sh="$tmp/team" && mkdir "$sh" && chmod 1777 "$sh"
  out=$(IXJIT_CACHE_SHARED=1 run_copy "$sh")
  expect "shared without a key: refused" "needs authenticated entries" "$out"
  out=$(IXJIT_CACHE_SHARED=1 IXJIT_CACHE_KEY_FILE="$k" run_copy "$sh")
  expect "shared with a key: compiled" "cache: miss (compiled" "$out"
  out=$(IXJIT_CACHE_SHARED=1 IXJIT_CACHE_KEY_FILE="$k" run_copy "$sh")
  expect "shared with a key: loads" "cache: hit (disk" "$out"
  IXJIT_CACHE_SHARED=1 IXJIT_CACHE_KEY_FILE="$k" $t "$ixjit" cache verify --cache "$sh" > /dev/null && ok || bad "verify shared"
  ;;
esac

echo "test_trust: $pass passed, $fail failed"
[ $fail = 0 ]
