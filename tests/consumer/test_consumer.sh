#!/bin/sh
# ixjit as another project sees it: installed into a temporary prefix, then
# three small external builds of consumer.c against that prefix, each run:
#   find_package(ixjit) with ixjit::ixjit (shared) and with ixjit::ixjit_static;
#   pkg-config --cflags --libs ixjit (shared, with an RPATH to the prefix).
# The consumers build with ixjit's own compiler and flags (a sanitizer build
# installs instrumented libraries).
# usage: test_consumer.sh BUILD_DIR SOURCE_DIR CC CFLAGS LDFLAGS
build="$1"
src="$2"
cc="$3"
cflags="$4"
ldflags="$5"
. "$src/tests/check.sh"
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 && ok || { bad "install: $(cat "$tmp/install.log")"; }
for f in lib/cmake/ixjit/ixjitConfig.cmake lib/cmake/ixjit/ixjitConfigVersion.cmake lib/pkgconfig/ixjit.pc \
         include/ixjit/ixjit.h include/ixjit/version.h include/ixjit/third_party/dlpack/dlpack.h lib/libixjit.a; do
  [ -f "$prefix/$f" ] && ok || bad "not installed: $f"
done

# find_package: shared, then static
for target in ixjit::ixjit ixjit::ixjit_static; do
  b="$tmp/cmake-$(echo "$target" | tr ':' '_')"
  if cmake -S "$src/tests/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DIXJIT_TARGET="$target" \
       -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$ldflags" > "$b.log" 2>&1 && cmake --build "$b" >> "$b.log" 2>&1; then
    ok
    out=$("$b/consumer" 2>&1)
    expect "find_package $target runs" "consumer ok" "$out"
  else
    bad "find_package $target: $(tail -n 20 "$b.log")"
  fi
done
# a version the package is not compatible with is refused by its version file
cat > "$tmp/v.cmake" <<EOS
set(PACKAGE_FIND_VERSION 99.0)
include("$prefix/lib/cmake/ixjit/ixjitConfigVersion.cmake")
message("compatible=\${PACKAGE_VERSION_COMPATIBLE}")
EOS
out=$(cmake -P "$tmp/v.cmake" 2>&1)
expect "version 99 refused" "compatible=FALSE" "$out"

# pkg-config
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
if flags=$(pkg-config --cflags --libs ixjit 2>&1); then
  ok
  # shell word splitting of the flags is meant
  if "$cc" -std=c11 $cflags -o "$tmp/pc-consumer" "$src/tests/consumer/consumer.c" $flags $ldflags \
       -Wl,-rpath,"$prefix/lib" > "$tmp/pc.log" 2>&1; then
    ok
    out=$("$tmp/pc-consumer" 2>&1)
    expect "pkg-config consumer runs" "consumer ok" "$out"
  else
    bad "pkg-config build: $flags: $(cat "$tmp/pc.log")"
  fi
  version=$(pkg-config --modversion ixjit)
  expect "pkg-config version" "$(sed -n 's/^#define IXJIT_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/ixjit/version.h")" "$version"
  static=$(pkg-config --static --libs ixjit)
  expect "Libs.private: LLVM" "-lLLVM-19" "$static"
  expect "Libs.private: xxHash" "-lxxhash" "$static"
else
  bad "pkg-config: $flags"
fi

echo "consumer: $pass passed, $fail failed"
[ $fail = 0 ]
