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

#ifndef warpSize
#define warpSize __builtin_amdgcn_wavefrontsize()
#endif

__device__ inline void __syncthreads() {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }

#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, __VA_ARGS__)))

#include "kdbgen_hiprtc_internal.h"

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

#ifndef MIOPEN_DONT_USE_HIP_RUNTIME_HEADERS
// Kernels that do not bring their own fixed-width integers get hiprtc's.
using __hip_internal::int8_t;
using __hip_internal::uint8_t;
using __hip_internal::int16_t;
using __hip_internal::uint16_t;
using __hip_internal::int32_t;
using __hip_internal::uint32_t;
using __hip_internal::int64_t;
using __hip_internal::uint64_t;
#endif
