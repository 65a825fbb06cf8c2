// kdbgen: bfloat16 storage type for HIP kernels built without a HIP runtime.
#pragma once
#include "kdbgen_hiprtc_builtins.h"

struct hip_bfloat16 {
    uint16_t data;
    __device__ hip_bfloat16() = default;
    __device__ explicit hip_bfloat16(float f) {
        const uint32_t bits = __builtin_bit_cast(uint32_t, f);
        data = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);  // round to nearest even
    }
    __device__ operator float() const { return __builtin_bit_cast(float, static_cast<uint32_t>(data) << 16); }
};
