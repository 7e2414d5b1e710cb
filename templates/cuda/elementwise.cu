// ixjit @@STRATEGY@@ kernel for CUDA (elementwise: copy, fill, cat)
// signature: @@SIGNATURE@@
//
// Each thread moves @@PER_THREAD@@ consecutive units of [begin, end) in
// row-major order of the iteration space: the first one is decomposed with
// bound-aware multiply-high sequences, the next ones advance with odometer
// carries. Shapes and strides are literal constants.
@@PRELUDE@@
extern "C" __global__ void __launch_bounds__(@@THREADS@@) @@NAME@@(ixj_args a, long long begin, long long end) {
  const long long first = begin + ((long long)blockIdx.x * blockDim.x + threadIdx.x) * (@@PER_THREAD@@ * @@STEP@@);
  if (first >= end) return;
  const ixj_index n = (ixj_index)first;
@@SETUP@@
  for (int k = 0; k < @@PER_THREAD@@; k++) {
    if (first + (long long)k * @@STEP@@ >= end) return;
@@BODY@@
@@CARRY@@
  }
}
