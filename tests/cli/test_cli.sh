#!/bin/sh
# CLI contract: output formats and exit statuses (0 ok, 2 bad arguments or
# text, with "ixjit: error: ..." on stderr).
ixjit="$1"
pass=0
fail=0
check() { # name expected-status expected-stdout-or-- command...
  name=$1 want_rc=$2 want_out=$3
  shift 3
  out=$("$@" 2>/tmp/ixjit_cli_err.$$)
  rc=$?
  err=$(cat /tmp/ixjit_cli_err.$$)
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc ($err)"; fail=$((fail + 1)); return
  fi
  if [ "$want_out" != "--" ] && [ "$out" != "$want_out" ]; then
    echo "FAIL $name: output"; echo "  got:  $out"; echo "  want: $want_out"; fail=$((fail + 1)); return
  fi
  if [ "$want_rc" = 2 ] && ! echo "$err" | grep -q '^ixjit: error: '; then
    echo "FAIL $name: stderr lacks 'ixjit: error:' ($err)"; fail=$((fail + 1)); return
  fi
  pass=$((pass + 1))
}
nl='
'
check eval-transpose 0 "shape: 3 2${nl}0 3 1 4 2 5" "$ixjit" eval 'iota 2 3 | permute 1 0'
check eval-joined-args 0 "shape: 3${nl}4 2 0" "$ixjit" eval iota 6 '|' slice 4:+3*-2
check eval-rank0 0 "shape:${nl}7" "$ixjit" eval 'iota offset=7'
check eval-empty 0 "shape: 0 3" "$ixjit" eval 'iota 0 3'
check show 0 '{base: [6]; contiguous: true; LMADs: [{offset: 5; strides: [-1]; rotates: [0]; shape: [6]; permutation: [0]; monotonicity: [Dec]}]}' "$ixjit" show 'iota 6 | slice ::-1'
check magic-mul 0 'd=7 bound=100000000 bits=32 form=mul multiplier=613566757 shift=32' "$ixjit" magic 7 100000000
check magic-fixup 0 'd=7 bound=4294967295 bits=32 form=fixup multiplier=4908534053 shift=35' "$ixjit" magic 7 4294967295
check magic-64 0 'd=7 bound=18446744073709551615 bits=64 form=fixup multiplier=21081993227096630419 shift=67' "$ixjit" magic 7 18446744073709551615 --bits 64
check magic-shift 0 'd=64 bound=1000 bits=32 form=shift multiplier=1 shift=6' "$ixjit" magic 64 1000
check magic-bits-first 0 'd=12 bound=99 bits=64 form=mul multiplier=1537228672809129302 shift=64' "$ixjit" magic --bits 64 12 99
check magic-inc 0 -- "$ixjit" magic 7 4294967294
check bad-ixfun 2 "" "$ixjit" eval 'iota 3 | permute 1'
check bad-show 2 "" "$ixjit" show 'iota 3 | bogus'
check no-ixfun 2 "" "$ixjit" eval
check magic-zero 2 "" "$ixjit" magic 0 10
check magic-big-bound 2 "" "$ixjit" magic 3 4294967296
check magic-bits 2 "" "$ixjit" magic 3 10 --bits 16
check magic-negative 2 "" "$ixjit" magic -3 10
check magic-missing 2 "" "$ixjit" magic 3
check unknown-command 2 -- "$ixjit" frobnicate
check no-command 2 -- "$ixjit"
check help 0 -- "$ixjit" --help
# emit and run (the CPU JIT)
hex() { od -An -tx1 -v "$1" | tr -d ' \n'; }
tmp=$(mktemp -d)
check emit-bad-target 2 "" "$ixjit" emit copy --target metal --dst 'iota 4' --src 'iota 4' --elem-size 4
check emit-bad-arch 2 "" "$ixjit" emit copy --target cuda:gfx90a --dst 'iota 4' --src 'iota 4' --elem-size 4
check emit-cubin-needs-out 2 "" "$ixjit" emit copy --target cubin:sm_90 --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0' --elem-size 4
cu=$("$ixjit" emit copy --target cuda:sm_90 --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0 | rotate 1 1' --elem-size 4)
case "$cu" in *'extern "C" __global__'*__umulhi*) pass=$((pass + 1)) ;; *) echo "FAIL emit cuda: $cu"; fail=$((fail + 1)) ;; esac
if ptx=$("$ixjit" emit copy --target ptx:sm_90 --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0 | rotate 1 1' --elem-size 4 2>&1); then
  case "$ptx" in *".target sm_90"*) case "$ptx" in *div.u*|*div.s*|*rem.*) echo "FAIL ptx has division"; fail=$((fail + 1)) ;; *) pass=$((pass + 1)) ;; esac ;;
    *) echo "FAIL ptx: $ptx"; fail=$((fail + 1)) ;; esac
else
  echo "skipped: PTX checks ($ptx)"
fi
check emit-missing-size 2 "" "$ixjit" emit copy --dst 'iota 4' --src 'iota 4'
check emit-bad-ixfun 2 "" "$ixjit" emit copy --dst 'iota 4 |' --src 'iota 4' --elem-size 4
check run-fill-no-value 2 "" "$ixjit" run fill --dst 'iota 4' --elem-size 4
check run-copy-two-src 2 "" "$ixjit" run copy --dst 'iota 4' --src 'iota 4' --src 'iota 4' --elem-size 4
check run-fill-out 0 -- "$ixjit" run fill --dst 'iota 4' --value 0a0b0c0d --elem-size 4 --out "$tmp/fill.bin" --check
check run-fill-bytes 0 "0a0b0c0d0a0b0c0d0a0b0c0d0a0b0c0d" hex "$tmp/fill.bin"
printf '\001\002\003\004\005\006' > "$tmp/src.bin"
check run-copy-file 0 -- "$ixjit" run copy --dst 'iota 6' --src 'iota 6 | slice ::-1' --src-file "$tmp/src.bin" --elem-size 1 --out "$tmp/rev.bin"
check run-copy-reversed 0 "060504030201" hex "$tmp/rev.bin"
check run-too-small 1 -- "$ixjit" run copy --dst 'iota 8' --src 'iota 8' --src-file "$tmp/src.bin" --elem-size 1
out=$(IXJIT_CACHE=off "$ixjit" run copy --dst 'iota 64 48' --src 'iota 48 64 | permute 1 0' --elem-size 8 --check)
case "$out" in *"cache: miss (compiled in"*"check: ok"*) pass=$((pass + 1)) ;; *) echo "FAIL run-check: $out"; fail=$((fail + 1)) ;; esac
out=$("$ixjit" run cat --axis 0 --dst 'iota 5 3' --src 'iota 2 3' --src 'iota 3 3 | rotate 1 1' --elem-size 2 --check)
case "$out" in *"check: ok"*) pass=$((pass + 1)) ;; *) echo "FAIL run-cat: $out"; fail=$((fail + 1)) ;; esac
ir=$("$ixjit" emit copy --target llvm --dst 'iota 6 5' --src 'iota 5 6 | permute 1 0 | reshape 30 | rotate 7 | reshape 6 5' --elem-size 4)
case "$ir" in *"define void @ixj_"*) case "$ir" in *udiv*|*urem*|*sdiv*|*srem*) echo "FAIL emit: division in IR"; fail=$((fail + 1)) ;; *) pass=$((pass + 1)) ;; esac ;;
  *) echo "FAIL emit: no kernel"; fail=$((fail + 1)) ;; esac
# without a GPU, --target cuda is a clean error (exit 1), the CPU keeps working
if ! "$ixjit" run copy --target cuda --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0' --elem-size 4 > /dev/null 2>&1; then
  err=$("$ixjit" run copy --target cuda --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0' --elem-size 4 2>&1)
  case "$err" in *"CUDA unavailable:"*) pass=$((pass + 1)) ;; *) echo "FAIL run --target cuda: $err"; fail=$((fail + 1)) ;; esac
  stubs=/usr/local/cuda/lib64/stubs/libcuda.so
  if [ -f "$stubs" ]; then # the toolkit's stub driver in place of a driver
    mkdir -p "$tmp/stub" && ln -sf "$stubs" "$tmp/stub/libcuda.so.1"
    err=$(LD_LIBRARY_PATH="$tmp/stub" "$ixjit" run copy --target cuda --dst 'iota 4' --src 'iota 4 | slice ::-1' --elem-size 4 2>&1)
    case "$err" in *"CUDA unavailable: libcuda.so.1 is the toolkit's stub"*) pass=$((pass + 1)) ;; *) echo "FAIL stub driver: $err"; fail=$((fail + 1)) ;; esac
  fi
  check run-cpu-still-works 0 -- "$ixjit" run copy --dst 'iota 4 5' --src 'iota 5 4 | permute 1 0' --elem-size 4 --check
fi
rm -rf "$tmp"

out=$("$ixjit" magic 7 4294967294)
case "$out" in *form=mul_inc*) pass=$((pass + 1)) ;; *) echo "FAIL magic-inc form: $out"; fail=$((fail + 1)) ;; esac
rm -f /tmp/ixjit_cli_err.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
