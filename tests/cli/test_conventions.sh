#!/bin/sh
# The CLI's conventions (issue 13): every command has --help (exit 0, usage
# on stdout) and `ixjit help CMD`; options take --opt=VALUE and --opt VALUE;
# unknown options and bad values exit 2 with "ixjit: error:"; --version names
# ixjit, LLVM, NVRTC and the host target; --json on run and warm is JSON (read
# back by Python's json); run tells a plain memory copy and an empty copy
# apart from kernels and prints short times in µs or ns; `eval -` reports bad
# lines on stderr with exit 2; numbers go through the library's one parser.
# usage: test_conventions.sh IXJIT PYTHON3
ixjit="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
py="$2"
. "$(dirname "$0")/../check.sh"
unset IXJIT_RECORD IXJIT_CACHE IXJIT_CACHE_MAX_BYTES IXJIT_NUM_THREADS
export IXJIT_CACHE_DIR="$tmp/cache"
status() { "$@" > "$tmp/out" 2> "$tmp/err"; echo $?; }
usage2() { # name command...: exit 2 and "ixjit: error:" on stderr
  name=$1; shift
  rc=$(status "$@")
  [ "$rc" = 2 ] && ok || bad "$name: exit $rc, want 2"
  expect "$name: error on stderr" "ixjit: error: " "$(cat "$tmp/err")"
}

# --help everywhere
for cmd in eval show magic emit run warm demo bench cache; do
  rc=$(status "$ixjit" $cmd --help)
  [ "$rc" = 0 ] && ok || bad "$cmd --help: exit $rc: $(cat "$tmp/err")"
  expect "$cmd --help: usage on stdout" "usage: ixjit $cmd" "$(cat "$tmp/out")"
  rc=$(status "$ixjit" $cmd -h)
  [ "$rc" = 0 ] && ok || bad "$cmd -h: exit $rc: $(cat "$tmp/err")"
  rc=$(status "$ixjit" help $cmd)
  [ "$rc" = 0 ] && ok || bad "help $cmd: exit $rc"
  expect "help $cmd" "usage: ixjit $cmd" "$(cat "$tmp/out")"
done
rc=$(status "$ixjit" run copy --help)
[ "$rc" = 0 ] && ok || bad "run copy --help: exit $rc"
expect "run --help lists --json" "--json" "$(cat "$tmp/out")"
expect "run --help lists the targets" "cpu (the default; also llvm) or cuda" "$(cat "$tmp/out")"
expect "emit --help lists the targets" "cubin:sm_XY" "$("$ixjit" emit --help)"
expect "warm --help lists cpu:NAME" "cpu:NAME?+F,F,...?     another x86-64 CPU" "$("$ixjit" warm --help)"
expect "warm help (no such file) is the usage" "usage: ixjit warm" "$(cd "$tmp" && "$ixjit" warm help)"
expect "eval --help" "usage: ixjit eval" "$("$ixjit" eval --help)"
expect "top-level usage names every target" "--target cpu|cpu:NAME?+F,...?|cuda:sm_XY" "$("$ixjit" --help)"

# --version
out=$("$ixjit" --version)
expect "version: ixjit" "ixjit $(sed -n 's/^project(ixjit VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")" "$out"
expect "version: LLVM" "LLVM 19." "$out"
expect "version: NVRTC" "NVRTC" "$out"
expect "version: host target" "host target: cpu:" "$out"
expect "version: host CPU spec" "host CPU: cpu:" "$out"

# getopt_long spellings give the same result; bad options and values exit 2
a=$("$ixjit" run copy --dst 'iota 6 5' --src 'iota 5 6 | permute 1 0' --elem-size 4 --check | grep -v '^kernel\|^cache')
b=$("$ixjit" run copy --dst='iota 6 5' --src='iota 5 6 | permute 1 0' --elem-size=4 --check | grep -v '^kernel\|^cache')
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "--opt=VALUE differs from --opt VALUE: '$a' / '$b'"
expect "magic --bits=64" "bits=64" "$("$ixjit" magic --bits=64 12 99)"
usage2 "run unknown option" "$ixjit" run copy --frobnicate --dst 'iota 4' --src 'iota 4' --elem-size 4
usage2 "run missing value" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size
usage2 "run elem-size 3" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size 3
usage2 "run elem-size 4k" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size 4k
usage2 "run axis on a copy" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size 4 --axis 1
usage2 "run value on a copy" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --elem-size 4 --value 00
usage2 "emit --check is run's" "$ixjit" emit copy --dst 'iota 4' --src 'iota 4' --elem-size 4 --check
usage2 "run fill --value with a space" "$ixjit" run fill --dst 'iota 4' --value ' a0b' --elem-size 2
usage2 "run fill --value not hex" "$ixjit" run fill --dst 'iota 4' --value 0g0b --elem-size 2
usage2 "emit --target cuda:sm_90x" "$ixjit" emit copy --target cuda:sm_90x --dst 'iota 4' --src 'iota 4' --elem-size 4
usage2 "demo with an argument" "$ixjit" demo now
usage2 "magic 2^64" "$ixjit" magic 3 18446744073709551616
usage2 "magic --bits 48" "$ixjit" magic 3 10 --bits 48
for j in 0 abc 1k 257 -1 ''; do usage2 "warm -j '$j'" "$ixjit" warm -j "$j" /dev/null; done
usage2 "warm --jobs=x" "$ixjit" warm --jobs=x /dev/null
usage2 "warm bad target" "$ixjit" warm --target gpu /dev/null
usage2 "warm no file" "$ixjit" warm
usage2 "bench --reps 0" "$ixjit" bench --reps 0
usage2 "bench --reps 5x" "$ixjit" bench --reps 5x
usage2 "bench --threads 1,,2" "$ixjit" bench --threads 1,,2
expect "warm -j=2 in the long spelling" "warm: 0 signatures" "$("$ixjit" warm --jobs=2 /dev/null 2>&1)"

# run tells the truth
out=$("$ixjit" run copy --dst 'iota 4096' --src 'iota 4096' --elem-size 4)
expect "memcpy: strategy" "strategy: memcpy" "$out"
expect "memcpy: no cache entry" "cache: none (a plain memory copy needs no kernel)" "$out"
case "$out" in *"hit (memory)"*) bad "a memcpy plan said 'hit (memory)': $out" ;; *) ok ;; esac
out=$("$ixjit" run copy --dst 'iota 0 3' --src 'iota 3 0 | permute 1 0' --elem-size 4)
expect "empty: strategy" "strategy: empty" "$out"
expect "empty: nothing to move" "nothing to move" "$out"
case "$out" in *"compiled in"*) bad "an empty copy said 'compiled in': $out" ;; *) ok ;; esac
out=$(IXJIT_CACHE=off "$ixjit" run copy --dst 'iota 6 5' --src 'iota 5 6 | permute 1 0' --elem-size 4)
expect "miss: compiled" "cache: miss (compiled in " "$out"
line=$(echo "$out" | grep '^kernel: ')
case "$line" in "kernel: "[0-9]*" ns, "* | "kernel: "[0-9]*" µs, "* | "kernel: "[0-9]*" ms, "*) ok ;; *) bad "kernel time: $line" ;; esac
case "$line" in "kernel: 0.000 ms"*) bad "sub-µs time as 0.000 ms: $line" ;; *) ok ;; esac

# --json (cJSON), read back by Python
"$ixjit" run copy --dst 'iota 6 5' --src 'iota 5 6 | permute 1 0' --elem-size 4 --check --json > "$tmp/run.json"
out=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["operation"], d["strategy"], d["kernel"] in ("compiled","disk","memory"), d["check"], d["bytes"])' "$tmp/run.json" 2>&1)
expect "run --json" "copy" "$out"
expect "run --json fields" "True True 240" "$out"
"$ixjit" run copy --dst 'iota 64' --src 'iota 64' --elem-size 8 --json > "$tmp/memcpy.json"
out=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["kernel"], "compile_ms" in d)' "$tmp/memcpy.json" 2>&1)
expect "run --json memcpy: no kernel, no compile time" "none False" "$out"
printf 'copy\t4\t0\tiota 6 5\tiota 5 6 | permute 1 0\nbogus\n' > "$tmp/sigs.txt"
"$ixjit" warm --json --cache "$tmp/wcache" "$tmp/sigs.txt" > "$tmp/warm.json" 2> /dev/null
rc=$?
[ $rc = 1 ] && ok || bad "warm --json with a bad line: exit $rc"
out=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["signatures"], d["compiled"], d["bad_lines"], ",".join(d["targets"]), d["failed"])' "$tmp/warm.json" 2>&1)
expect "warm --json" "1 1 1 cpu 0" "$out"

# eval - and show -: bad lines on stderr, exit 2; --inline-errors keeps the pairing
rc=$(printf 'iota 3\nbogus\niota 2\n' | status "$ixjit" eval -)
[ "$rc" = 2 ] && ok || bad "eval - with a bad line: exit $rc"
expect "eval -: the error on stderr" "ixjit: error: line 2: " "$(cat "$tmp/err")"
expect "eval -: the good lines go on" "0 1" "$(cat "$tmp/out")"
case "$(cat "$tmp/out")" in *error*) bad "eval -: an error on stdout" ;; *) ok ;; esac
rc=$(printf 'iota 3\nbogus\n' | status "$ixjit" show -)
[ "$rc" = 2 ] && ok || bad "show - with a bad line: exit $rc"
rc=$(printf 'iota 3\nbogus\n' | status "$ixjit" eval --inline-errors -)
[ "$rc" = 0 ] && ok || bad "eval --inline-errors -: exit $rc"
expect "eval --inline-errors: in place" "error: column 1" "$(cat "$tmp/out")"
rc=$(printf 'iota 3\n' | status "$ixjit" eval -)
[ "$rc" = 0 ] && ok || bad "eval - with good lines: exit $rc"
expect "eval: a negative number is IXFUN text, not an option" "4 0 1 2 3" "$("$ixjit" eval iota 5 '|' rotate -1)"

# a cache limit below any entry: warm says so (not "cannot be written")
printf 'copy\t4\t0\tiota 7 5\tiota 5 7 | permute 1 0\n' > "$tmp/one.txt"
out=$(IXJIT_CACHE_MAX_BYTES=1 "$ixjit" warm --cache "$tmp/tiny" "$tmp/one.txt" 2>&1)
expect "1-byte limit: eviction named" "evicted at once: the cache size limit (IXJIT_CACHE_MAX_BYTES) is smaller" "$out"
case "$out" in *"cannot be written"*) bad "1-byte limit reported as unwritable: $out" ;; *) ok ;; esac

echo "conventions: $pass passed, $fail failed"
[ $fail = 0 ]
