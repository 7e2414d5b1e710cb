// ixjit tiled kernel for CUDA: a transposing copy through a padded
// @@TILE@@ x (@@TILE@@ + 1) shared-memory tile; one block per tile, reads
// coalesced along the source's unit-stride dim, writes along the destination's.
// Tile coordinates are in the index type; element offsets are 32-bit (read as
// int) when the plan's bounds allow, else long long.
// signature: @@SIGNATURE@@
@@PRELUDE@@
extern "C" __global__ void __launch_bounds__(@@TILE@@ * @@TILE_ROWS@@) @@NAME@@(ixj_args a, long long begin, long long end) {
  __shared__ ixj_elem tile[@@TILE@@][@@TILE@@ + 1];
  const long long t = begin + blockIdx.x;
  if (t >= end) return;
  const ixj_index n = (ixj_index)t;
@@SETUP@@
  for (int y = threadIdx.y; y < @@TILE@@; y += @@TILE_ROWS@@) {
    const ixj_index ia = a0 + y, ib = b0 + threadIdx.x;
    if (ia < @@NA@@ && ib < @@NB@@) {
@@LOAD_INDEX@@
      tile[y][threadIdx.x] = src[@@SRC_INDEX@@];
    }
  }
  __syncthreads();
  for (int y = threadIdx.y; y < @@TILE@@; y += @@TILE_ROWS@@) {
    const ixj_index ib = b0 + y, ia = a0 + threadIdx.x;
    if (ia < @@NA@@ && ib < @@NB@@) {
@@STORE_INDEX@@
      dst[@@DST_INDEX@@] = tile[threadIdx.x][y];
    }
  }
}
