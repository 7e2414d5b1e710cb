#!/bin/sh
# The GPU checks, in one go, for a machine with an NVIDIA GPU: build (unless a
# build was carried along), run the CUDA tests (NVRTC compiles, static costs,
# the host emulation of the same kernels, every device index per call and
# prepared, again with the devices in reverse order when there are several,
# DLPack's device_id), the JIT corpus and the emulator's
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
# cuda_devices: every device index the driver shows (and the next one refused),
# per call and prepared; unit_dlpack_cuda: DLPack's device_id and streams.
ctest --test-dir build/default -R 'cuda_nvrtc|cuda_emu|cuda_cases_generate|jit_cases_generate|cuda_devices|unit_cuda_device|unit_dlpack_cuda' \
  --output-on-failure --timeout 300 > "$out/gpu-tests.txt" 2>&1
tests=$?
# several GPUs: every device again in reverse order, so that index 0 is another device
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -gt 1 ]; then
  CUDA_VISIBLE_DEVICES=$(seq -s, $((gpus - 1)) -1 0) ./build/default/tests/test_cuda_gpu >> "$out/gpu-tests.txt" 2>&1 || tests=1
fi
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
