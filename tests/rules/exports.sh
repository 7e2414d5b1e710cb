#!/bin/sh
# The shared library exports only the public API: every dynamic symbol it
# defines starts with "ixj_" but not "ixj__" (the internal prefix, hidden by
# -fvisibility=hidden because internal declarations lack IXJ_API). A host
# that defines its own plan_build or cache_create must never be called by,
# or collide with, the library.
# Usage: exports.sh LIBRARY.so   (exit 0 clean, 1 a leak, 2 cannot check)
lib="$1"
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
  echo "exports: no library '$lib'"; exit 2
fi
syms=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//') || {
  echo "exports: nm -D failed on $lib"; exit 2
}
public=0
leaks=""
for s in $syms; do
  case "$s" in
    ixj__*) leaks="$leaks $s" ;;
    ixj_*) public=$((public + 1)) ;;
    # Made by the linker, not by ixjit's sources: the image's ends, and the
    # bounds of named sections (the fuzz preset's __start___sancov_pcs).
    _edata | _end | __bss_start | _init | _fini | __start_* | __stop_*) ;;
    *) leaks="$leaks $s" ;;
  esac
done
# No public symbol at all means nm read nothing useful: not a pass.
if [ "$public" = 0 ]; then
  echo "exports: no ixj_ symbol exported by $lib"; exit 2
fi
if [ -n "$leaks" ]; then
  for s in $leaks; do echo "exported outside ixj_: $s"; done
  exit 1
fi
echo "exports: $public public ixj_ symbols, nothing else"
