#!/bin/sh
# The layering rule: gen/ (the pure stages) never includes a header from
# runtime/, nor the runtime's dependencies (LLVM, xxHash, pthreads, DLPack);
# data flows gen/ -> runtime/ only. The build enforces most of it (gen/ sees
# only include/ and gen/); this also catches "../runtime/x.h" and system
# copies of the dependencies' headers.
# Usage: layering.sh SOURCE_DIR   (exit 0 clean, 1 a violation, 2 cannot check)
src="$1"
if [ ! -d "$src/gen" ] || [ ! -d "$src/runtime" ]; then
  echo "layering: no gen/ and runtime/ under '$src'"; exit 2
fi
bad=0
for f in "$src"/gen/*.c "$src"/gen/*.h; do
  [ -f "$f" ] || continue
  # Every included name, quoted or angled, one per line.
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$f"); do
    base=${inc##*/}
    why=""
    case "$inc" in
      *runtime/*) why="a runtime/ header" ;;
      llvm-c/* | llvm/*) why="LLVM" ;;
      xxhash.h | pthread.h | dlpack/*) why="a runtime dependency" ;;
      ixjit/*) ;;
      *)
        # A bare name that only runtime/ has (found through some other
        # include path) is a runtime header too.
        if [ -f "$src/runtime/$base" ] && [ ! -f "$src/gen/$base" ]; then
          why="a runtime/ header"
        fi ;;
    esac
    if [ -n "$why" ]; then
      echo "layering: ${f#"$src"/} includes $inc ($why)"
      bad=1
    fi
  done
done
if [ "$bad" = 0 ]; then
  echo "layering: gen/ includes nothing from runtime/"
fi
exit $bad
