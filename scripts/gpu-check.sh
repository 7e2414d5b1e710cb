#!/bin/sh
# The GPU checks, in one go, for a machine with an NVIDIA GPU: build (unless a
# build was carried along), run the CUDA tests (NVRTC compiles, static costs,
# the host emulation of the same kernels), the JIT corpus and the emulator's
# tiled and uint4 cases on the device, and the GPU benchmark (every demo case
# at 1 GiB: specialized kernel, cuMemcpyDtoD, runtime-magic kernel). Results
# go to the directory given as the argument; the status is non-zero when any
# part failed. Meant to finish within 8 minutes.
#   usage: scripts/gpu-check.sh OUT-DIR
set -u
out="${1:?usage: scripts/gpu-check.sh OUT-DIR}"
mkdir -p "$out"
cd "$(dirname "$0")/.."
{
  date
  nvidia-smi -L 2>&1 || echo "nvidia-smi: not available"
} > "$out/machine.txt"
if [ ! -x build/default/bench_gpu ]; then
  (sh scripts/deps.sh && cmake --preset default && cmake --build --preset default -j"$(nproc)") > "$out/build.txt" 2>&1 ||
    { echo "build failed: see $out/build.txt"; exit 1; }
fi
ctest --test-dir build/default -R 'cuda_nvrtc|cuda_emu|cuda_cases_generate|jit_cases_generate' --output-on-failure --timeout 300 > "$out/gpu-tests.txt" 2>&1
tests=$?
{
  ./build/default/tests/test_jit_diff --cuda build/default/tests/jit_cases.txt &&
    ./build/default/tests/test_jit_diff --cuda build/default/tests/emu_gpu_cases.txt
} > "$out/gpu-diff.txt" 2>&1
diff=$?
timeout 300 ./build/default/bench_gpu > "$out/gpu-bench.txt" 2>&1
bench=$?
tail -n 3 "$out/gpu-tests.txt" "$out/gpu-diff.txt"
cat "$out/gpu-bench.txt"
[ $tests = 0 ] && [ $diff = 0 ] && [ $bench = 0 ]
