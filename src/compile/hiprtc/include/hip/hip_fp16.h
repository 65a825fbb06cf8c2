// kdbgen: half precision for HIP kernels built without a HIP runtime.
// __half (Clang's _Float16) comes with kdbgen_hiprtc_builtins.h.
#pragma once
#include "kdbgen_hiprtc_builtins.h"

struct __half2 { _Float16 x, y; };
__device__ inline __half __float2half(float f) { return static_cast<_Float16>(f); }
__device__ inline float __half2float(__half h) { return static_cast<float>(h); }
__device__ inline __half __hadd(__half a, __half b) { return a + b; }
__device__ inline __half __hmul(__half a, __half b) { return a * b; }
