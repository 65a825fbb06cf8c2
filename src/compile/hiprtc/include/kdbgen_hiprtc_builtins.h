// kdbgen's stand-in for what hiprtc declares before compiling a kernel, so
// HIP kernels build with plain Clang and no HIP runtime. MIOpen's kernels
// are compiled with -DMIOPEN_DONT_USE_HIP_RUNTIME_HEADERS and rely only on
// this much: launch coordinates, barriers, and the fixed-width integers.
// Written for kdbgen; the work-item queries are the ROCm device library's
// (ockl) functions, which every HIP runtime uses underneath.
#pragma once

#if !defined(__HIP__)
#error "kdbgen_hiprtc_builtins.h is for HIP device compilation"
#endif

extern "C" {
__device__ __attribute__((const)) __SIZE_TYPE__ __ockl_get_local_id(unsigned int);
__device__ __attribute__((const)) __SIZE_TYPE__ __ockl_get_group_id(unsigned int);
__device__ __attribute__((const)) __SIZE_TYPE__ __ockl_get_local_size(unsigned int);
__device__ __attribute__((const)) __SIZE_TYPE__ __ockl_get_num_groups(unsigned int);
}

// threadIdx.x and friends: each coordinate converts to unsigned int on use.
#define KDBGEN_HIP_COORDINATE(TypeName, query)                                                  \
    struct TypeName {                                                                           \
        struct X { __device__ operator unsigned int() const { return static_cast<unsigned int>(query(0)); } } x; \
        struct Y { __device__ operator unsigned int() const { return static_cast<unsigned int>(query(1)); } } y; \
        struct Z { __device__ operator unsigned int() const { return static_cast<unsigned int>(query(2)); } } z; \
    };
KDBGEN_HIP_COORDINATE(__kdbgen_thread_idx, __ockl_get_local_id)
KDBGEN_HIP_COORDINATE(__kdbgen_block_idx, __ockl_get_group_id)
KDBGEN_HIP_COORDINATE(__kdbgen_block_dim, __ockl_get_local_size)
KDBGEN_HIP_COORDINATE(__kdbgen_grid_dim, __ockl_get_num_groups)
#undef KDBGEN_HIP_COORDINATE

static constexpr __device__ __kdbgen_thread_idx threadIdx{};
static constexpr __device__ __kdbgen_block_idx blockIdx{};
static constexpr __device__ __kdbgen_block_dim blockDim{};
static constexpr __device__ __kdbgen_grid_dim gridDim{};

// A constant expression, as in HIP 6.x (kernels size arrays and template arguments with it).
#ifndef warpSize
#define warpSize __AMDGCN_WAVEFRONT_SIZE
#endif

__device__ inline void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }

#define __forceinline__ inline __attribute__((always_inline))
// __launch_bounds__(max threads[, min blocks per CU]), as HIP expands it.
#define KDBGEN_LAUNCH_BOUNDS_1(max_threads) __attribute__((amdgpu_flat_work_group_size(1, max_threads)))
#define KDBGEN_LAUNCH_BOUNDS_2(max_threads, min_blocks) \
    __attribute__((amdgpu_flat_work_group_size(1, max_threads), amdgpu_waves_per_eu(min_blocks)))
#define KDBGEN_LAUNCH_BOUNDS_PICK(_1, _2, name, ...) name
#define __launch_bounds__(...) \
    KDBGEN_LAUNCH_BOUNDS_PICK(__VA_ARGS__, KDBGEN_LAUNCH_BOUNDS_2, KDBGEN_LAUNCH_BOUNDS_1, unused)(__VA_ARGS__)

#include "kdbgen_hiprtc_internal.h"
#include "kdbgen_hiprtc_vector_types.h"

// Device printf: Clang lowers calls to it for AMDGPU (hostcall or buffered).
extern "C" __device__ int printf(const char*, ...);

// Half-precision conversions and arithmetic hiprtc predefines.
__device__ __host__ inline __half __float2half(float f) { return static_cast<_Float16>(f); }
__device__ __host__ inline float __half2float(__half h) { return static_cast<float>(h); }
__device__ inline __half __hadd(__half a, __half b) { return a + b; }
__device__ inline __half __hsub(__half a, __half b) { return a - b; }
__device__ inline __half __hmul(__half a, __half b) { return a * b; }
__device__ inline __half __hneg(__half a) { return -a; }
struct __half2 { __half x, y; };

// bfloat16 storage with round-to-nearest-even conversion from float.
struct hip_bfloat16 {
    __UINT16_TYPE__ data;
    __device__ hip_bfloat16() = default;
    __device__ explicit hip_bfloat16(float f) {
        const __UINT32_TYPE__ bits = __builtin_bit_cast(__UINT32_TYPE__, f);
        data = static_cast<__UINT16_TYPE__>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);  // round to nearest even
    }
    __device__ operator float() const { return __builtin_bit_cast(float, static_cast<__UINT32_TYPE__>(data) << 16); }
};

// hiprtc declares the fixed-width integers globally too; MIOpen's
// miopen_cstdint.hpp repeats some of them with the same types, which C++ allows.
using __hip_internal::int8_t;
using __hip_internal::uint8_t;
using __hip_internal::int16_t;
using __hip_internal::uint16_t;
using __hip_internal::int32_t;
using __hip_internal::uint32_t;
using __hip_internal::int64_t;
using __hip_internal::uint64_t;

// Integer intrinsics.
__device__ inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
__device__ inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
__device__ inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
__device__ inline float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__device__ inline float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__device__ inline unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__device__ inline int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__device__ inline double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__device__ inline long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__device__ inline int __popc(unsigned int x) { return __builtin_popcount(x); }
__device__ inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }

// Cross-lane moves within a wavefront, through ds_bpermute as HIP does.
__device__ inline int __kdbgen_lane_id() {
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
__device__ inline int __shfl(int var, int src_lane, int width = warpSize) {
    const int self = __kdbgen_lane_id();
    const int index = src_lane + (self & ~(width - 1));
    return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_down(int var, unsigned int delta, int width = warpSize) {
    const int self = __kdbgen_lane_id();
    int index = self + static_cast<int>(delta);
    index = static_cast<int>(static_cast<unsigned int>(self & (width - 1)) + delta) >= width ? self : index;
    return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_up(int var, unsigned int delta, int width = warpSize) {
    const int self = __kdbgen_lane_id();
    int index = self - static_cast<int>(delta);
    index = index < (self & ~(width - 1)) ? self : index;
    return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_xor(int var, int lane_mask, int width = warpSize) {
    const int self = __kdbgen_lane_id();
    int index = self ^ lane_mask;
    index = index >= ((self + width) & ~(width - 1)) ? self : index;
    return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
#define KDBGEN_HIP_SHFL_FLOAT(name, Arg)                                                   \
    __device__ inline float name(float var, Arg arg, int width = warpSize) {               \
        return __builtin_bit_cast(float, name(__builtin_bit_cast(int, var), arg, width));  \
    }
KDBGEN_HIP_SHFL_FLOAT(__shfl, int)
KDBGEN_HIP_SHFL_FLOAT(__shfl_down, unsigned int)
KDBGEN_HIP_SHFL_FLOAT(__shfl_up, unsigned int)
KDBGEN_HIP_SHFL_FLOAT(__shfl_xor, int)
#undef KDBGEN_HIP_SHFL_FLOAT

// ds_swizzle with a compile-time pattern (HIP's __hip_ds_swizzle_N / __hip_ds_swizzlef_N).
template <int pattern>
__device__ inline int __hip_ds_swizzle_N(int src) { return __builtin_amdgcn_ds_swizzle(src, pattern); }
template <int pattern>
__device__ inline float __hip_ds_swizzlef_N(float src) {
    return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, src), pattern));
}

// Device-wide atomics, relaxed, as HIP's atomicX functions are.
#define KDBGEN_HIP_ATOMIC(name, builtin, T)                                                  \
    __device__ inline T name(T* address, T value) {                                          \
        return builtin(address, value, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);         \
    }
#define KDBGEN_HIP_ATOMICS(T)                                          \
    KDBGEN_HIP_ATOMIC(atomicAdd, __hip_atomic_fetch_add, T)            \
    KDBGEN_HIP_ATOMIC(atomicMax, __hip_atomic_fetch_max, T)            \
    KDBGEN_HIP_ATOMIC(atomicMin, __hip_atomic_fetch_min, T)            \
    KDBGEN_HIP_ATOMIC(atomicExch, __hip_atomic_exchange, T)
KDBGEN_HIP_ATOMICS(int)
KDBGEN_HIP_ATOMICS(unsigned int)
KDBGEN_HIP_ATOMICS(unsigned long long)
KDBGEN_HIP_ATOMICS(float)
KDBGEN_HIP_ATOMICS(double)
#undef KDBGEN_HIP_ATOMICS
#undef KDBGEN_HIP_ATOMIC
template <class T>
__device__ inline T atomicCAS(T* address, T compare, T value) {
    __hip_atomic_compare_exchange_strong(address, &compare, value, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_AGENT);
    return compare;
}
