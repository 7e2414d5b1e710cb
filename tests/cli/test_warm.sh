#!/bin/sh
# `ixjit warm` reading its files: identical lines (across files, and with
# "\r\n" endings) warm once, through growth of the line set; blank lines,
# whitespace and comments carry nothing; a bad line is reported every time
# it appears; a failure names the first occurrence; '-' is standard input.
# Copies of a contiguous array need no kernel, so nothing here compiles.
# usage: test_warm.sh IXJIT
ixjit="$1"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE
tab=$(printf '\t')
cr=$(printf '\r')

# 2000 distinct lines, then the same lines again backwards, then with "\r\n"
# (from iota 2: a single element is a rank-0 kernel, not a memcpy)
n=2000
k=2
: > "$tmp/a.txt"
while [ $k -le $((n + 1)) ]; do echo "copy${tab}4${tab}1${tab}iota $k${tab}iota $k" >> "$tmp/a.txt"; k=$((k + 1)); done
sed '1!G;h;$!d' "$tmp/a.txt" > "$tmp/b.txt"
sed "s/\$/$cr/" "$tmp/a.txt" > "$tmp/c.txt"
out=$("$ixjit" warm --cache "$tmp/cache" -j 2 "$tmp/a.txt" "$tmp/b.txt" "$tmp/c.txt" 2>/dev/null); rc=$?
[ $rc = 0 ] && ok || bad "distinct lines: exit $rc: $out"
expect "each line once" "warm: $n signatures x 1 target" "$out"
expect "nothing to compile" ": 0 compiled, $n already present (or need no kernel), 0 failed; 0 bad lines" "$out"

# blank, whitespace-only and comment lines; a bad line twice; a warm failure twice
{
  echo "copy${tab}3${tab}1${tab}iota 5${tab}iota 5"
  echo ""
  echo "   ${tab} "
  echo "  # an indented comment"
  echo "bogus"
  echo "copy${tab}4${tab}1${tab}iota 6${tab}iota 6"
  echo "bogus"
  echo "copy${tab}3${tab}1${tab}iota 5${tab}iota 5"
} > "$tmp/mixed.txt"
out=$("$ixjit" warm --cache "$tmp/cache" "$tmp/mixed.txt" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "mixed: exit $rc, want 1"
expect "bad line 5 reported" "mixed.txt:5: error: " "$out"
expect "bad line 7 reported" "mixed.txt:7: error: " "$out"
expect "two specs, two bad lines" "warm: 2 signatures x 1 target" "$out"
expect "counts" "1 failed; 2 bad lines" "$out"
expect "failure at the first occurrence" "mixed.txt:1 (cpu): failed: element size 3" "$out"
case "$out" in *"mixed.txt:8 "*) bad "the repeated line 8 was warmed again: $out" ;; *) ok ;; esac
case "$out" in *"mixed.txt:2"* | *"mixed.txt:3"* | *"mixed.txt:4"*) bad "a blank or comment line reported: $out" ;; *) ok ;; esac

# standard input, and a missing file beside it
out=$(head -n 10 "$tmp/a.txt" | "$ixjit" warm --cache "$tmp/cache" - "$tmp/missing.txt" 2>&1); rc=$?
[ $rc = 1 ] && ok || bad "stdin + missing: exit $rc, want 1"
expect "missing file" "ixjit: error: cannot open $tmp/missing.txt" "$out"
expect "stdin read" "warm: 10 signatures" "$out"

echo "warm: $pass passed, $fail failed"
[ $fail = 0 ]
