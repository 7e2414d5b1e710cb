// ixjit tiled kernel for CUDA: a transposing copy through a padded
// @@TILE@@ x (@@TILE@@ + 1) shared-memory tile; one block per tile, reads
// coalesced along the source's unit-stride dim, writes along the destination's.
// The block is @@TILE@@ x @@TILE_ROWS@@ threads (the runtime launches it so): each
// thread moves @@TILE@@ / @@TILE_ROWS@@ elements each way, in a loop unrolled whole.
// Tile coordinates are in the index type. When the plan's bounds allow,
// element offsets are ints and each thread forms one pointer per phase,
// stepping by constants; else every element's offset is long long.
// signature: @@SIGNATURE@@
@@PRELUDE@@
extern "C" __global__ void __launch_bounds__(@@TILE@@ * @@TILE_ROWS@@) @@NAME@@(ixj_args a, long long begin, long long end) {
  __shared__ ixj_elem tile[@@TILE@@][@@TILE@@ + 1];
  const long long t = begin + blockIdx.x;
  if (t >= end) return;
  const ixj_index n = (ixj_index)t;
@@SETUP@@
  // the element this thread reads first (row k * @@TILE_ROWS@@ further for step k),
  // and the one it writes first; its cells of the tile likewise
  const ixj_index load_a = a0 + threadIdx.y, load_b = b0 + threadIdx.x;
  const ixj_index store_a = a0 + threadIdx.x, store_b = b0 + threadIdx.y;
@@LOAD_SETUP@@
  ixj_elem *const cell_in = &tile[threadIdx.y][threadIdx.x];
#pragma unroll
  for (int k = 0; k < @@TILE@@ / @@TILE_ROWS@@; k++) {
    if (load_a + k * @@TILE_ROWS@@ < @@NA@@ && load_b < @@NB@@) {
@@LOAD_INDEX@@
      cell_in[k * @@TILE_ROWS@@ * (@@TILE@@ + 1)] = @@LOAD@@;
    }
  }
  __syncthreads();
@@STORE_SETUP@@
  const ixj_elem *const cell_out = &tile[threadIdx.x][threadIdx.y];
#pragma unroll
  for (int k = 0; k < @@TILE@@ / @@TILE_ROWS@@; k++) {
    if (store_a < @@NA@@ && store_b + k * @@TILE_ROWS@@ < @@NB@@) {
@@STORE_INDEX@@
      @@STORE@@ = cell_out[k * @@TILE_ROWS@@];
    }
  }
}
