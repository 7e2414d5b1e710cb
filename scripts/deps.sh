#!/bin/sh
# Installs the Debian packages ixjit's build and tests need, when missing.
#   cmake, gcc, make   the build          clang, libclang-rt-14-dev   sanitizer and fuzz presets
#   libcmocka-dev      unit tests         python3-numpy               the differential tests' oracle
#   llvm-19-dev        the CPU JIT        libxxhash-dev      signature hashing (DLPack 1.x is vendored: third_party/dlpack)
#   python3-dev, python3-venv, python3-pytest   the Python package (pip install ., docs/python.md) and its tests
#   libcjson-dev       ixjit bench's JSON libdnnl-dev     ixjit bench's oneDNN peer (optional: built only when found)
#   libsodium-dev      authenticated cache entries (optional: without it a cache key is unavailable)
#   libhiredis-dev     the remote cache tier (optional: without it the remote tier is unavailable)
#   redis-server       the remote tier's tests (skipped without it)
#   pkg-config         the consumer_install test's pkg-config consumer (ixjit.pc)
set -eu
packages="cmake gcc make clang libclang-rt-14-dev libcmocka-dev python3 python3-numpy llvm-19-dev libxxhash-dev python3-dev python3-venv python3-pytest libcjson-dev libdnnl-dev libsodium-dev libhiredis-dev redis-server pkg-config"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
