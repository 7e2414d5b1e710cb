// Enough of CUDA for the kernels gen/emit_cuda.c writes to compile as host
// C++ (g++ or clang++) and run under the emulator's runner (emu_runtime.c).
// The runner rewrites each `__shared__ T name[..]...;` declaration into a
// reference to the block's shared bytes (ixj_emu_shared_alloc) before the
// compiler sees it; a declaration it could not rewrite fails to compile here.
#ifndef IXJIT_TESTS_CUDA_SHIM_H
#define IXJIT_TESTS_CUDA_SHIM_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "emu_abi.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) alignas(n)
// The runner reads the bound from the source text and checks every launch
// against it.
#define __launch_bounds__(...)
#define __shared__ ixj_emu_unrewritten_shared_declaration

// ---- vector types, with the alignment CUDA's vector_types.h gives them ----
#define IXJ_EMU_VEC1(name, T, al) struct alignas(al) name { T x; };
#define IXJ_EMU_VEC2(name, T, al) struct alignas(al) name { T x, y; };
#define IXJ_EMU_VEC3(name, T, al) struct alignas(al) name { T x, y, z; };
#define IXJ_EMU_VEC4(name, T, al) struct alignas(al) name { T x, y, z, w; };
#define IXJ_EMU_VECS(base, T, a1, a2, a3, a4)                                                                          \
  IXJ_EMU_VEC1(base##1, T, a1) IXJ_EMU_VEC2(base##2, T, a2) IXJ_EMU_VEC3(base##3, T, a3) IXJ_EMU_VEC4(base##4, T, a4)
IXJ_EMU_VECS(char, signed char, 1, 2, 1, 4)
IXJ_EMU_VECS(uchar, unsigned char, 1, 2, 1, 4)
IXJ_EMU_VECS(short, short, 2, 4, 2, 8)
IXJ_EMU_VECS(ushort, unsigned short, 2, 4, 2, 8)
IXJ_EMU_VECS(int, int, 4, 8, 4, 16)
IXJ_EMU_VECS(float, float, 4, 8, 4, 16)
IXJ_EMU_VEC1(uint1, unsigned, 4)
IXJ_EMU_VEC2(uint2, unsigned, 8)
IXJ_EMU_VEC4(uint4, unsigned, 16)
IXJ_EMU_VEC1(longlong1, long long, 8)
IXJ_EMU_VEC2(longlong2, long long, 16)
IXJ_EMU_VEC1(ulonglong1, unsigned long long, 8)
IXJ_EMU_VEC2(ulonglong2, unsigned long long, 16)
IXJ_EMU_VEC1(double1, double, 8)
IXJ_EMU_VEC2(double2, double, 16)
typedef ixj_emu_uint3 uint3; // threadIdx and friends have this layout
static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "uint4");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2");
static_assert(sizeof(uint3) == 12 && alignof(uint3) == 4, "uint3");
static_assert(sizeof(char3) == 3 && alignof(char3) == 1, "char3");
static_assert(sizeof(short4) == 8 && alignof(short4) == 8, "short4");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }

// ---- the built-in variables: read-only views of the running thread ----
#define threadIdx (static_cast<const uint3 &>(ixj_emu_current->thread_idx))
#define blockIdx (static_cast<const uint3 &>(ixj_emu_current->block_idx))
#define blockDim (static_cast<const uint3 &>(ixj_emu_current->block_dim))
#define gridDim (static_cast<const uint3 &>(ixj_emu_current->grid_dim))
#define __syncthreads() ixj_emu_syncthreads(__LINE__)

// ---- intrinsics ----
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }

// A static __shared__ variable after the runner's rewrite.
template <class T> static inline T &ixj_emu_shared_var() {
  return *static_cast<T *>(ixj_emu_shared_alloc(sizeof(T), alignof(T)));
}

#endif
