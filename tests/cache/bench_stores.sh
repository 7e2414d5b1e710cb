#!/bin/sh
# usage: bench_stores.sh IXJIT LABEL [SHARDED]: 20 compiles (ixjit warm -j 1) into an empty
# directory and into one holding 50,000 other entries; best of 3 each.
ixjit=$1 label=$2; [ -n "$3" ] && export SHARDED=1  # SHARDED: the 50,000 files in shards (the layout since the shards)
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
/usr/bin/python3 "$(dirname "$0")/../diff/gen_jit_cases.py" $w/cases.txt --copies 40 --fills 0 --cats 0 --large 0 --seed 5 >/dev/null
awk -F '\t' 'BEGIN{OFS="\t"} {$2=$2 "\t1"; print}' $w/cases.txt > $w/all.txt
# 20 lines that need a kernel: warm each alone once to find them
: > $w/spec.txt
while IFS= read -r line && [ $(wc -l < $w/spec.txt) -lt 20 ]; do
  printf '%s\n' "$line" > $w/one.txt
  rm -rf $w/probe
  "$ixjit" warm --cache $w/probe -j 1 $w/one.txt 2>/dev/null | grep -q ' 1 compiled' && printf '%s\n' "$line" >> $w/spec.txt
done < $w/all.txt
fill() { # dir: 50,000 entries of 100 bytes, named like entries (flat and sharded)
  /usr/bin/python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]; os.makedirs(d, mode=0o700, exist_ok=True)
for k in range(50000):
    name = "%032x.ixk" % (k * 2654435761 + 12345)
    sub = os.path.join(d, name[:2]) if os.environ.get("SHARDED") else d
    os.makedirs(sub, mode=0o700, exist_ok=True)
    with open(os.path.join(sub, name), "wb") as f: f.write(b"x" * 100)
PY
}
for kind in empty full; do
  best=
  for rep in 1 2 3; do
    rm -rf $w/c; mkdir -m 700 $w/c
    [ $kind = full ] && fill $w/c
    s=$(date +%s.%N); "$ixjit" warm --cache $w/c -j 1 $w/spec.txt > $w/out.txt 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc); grep -q ' 20 compiled' $w/out.txt || { echo "bad warm: $(cat $w/out.txt)"; }
    [ -z "$best" ] || [ $(echo "$t < $best" | bc) = 1 ] && best=$t
  done
  echo "$label $kind: $best s (best of 3, 20 compiles, warm -j 1)"
done

