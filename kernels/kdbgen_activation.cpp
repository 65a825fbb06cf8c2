// kdbgen demo kernel: activation forward (ReLU, leaky ReLU, tanh), HIP, in
// the style of MIOpen's HIP kernels built through hiprtc.
#ifndef MIOPEN_DONT_USE_HIP_RUNTIME_HEADERS
#include <hip/hip_runtime.h>
#endif
#include <hip/hip_fp16.h>

#ifndef MIOPEN_USE_FP16
#define MIOPEN_USE_FP16 0
#endif
#if MIOPEN_USE_FP16
typedef __half data_t;
#else
typedef float data_t;
#endif

#ifndef KDBGEN_ACTIVATION
#define KDBGEN_ACTIVATION 0  // 0 relu, 1 leaky relu, 2 tanh
#endif

__device__ inline float activate(float x, float alpha) {
#if KDBGEN_ACTIVATION == 0
    return x > 0.0f ? x : 0.0f;
#elif KDBGEN_ACTIVATION == 1
    return x > 0.0f ? x : alpha * x;
#else
    (void)alpha;
    return tanhf(x);
#endif
}

extern "C" __global__ void KdbgenActivationFwd(const data_t* __restrict__ x, data_t* __restrict__ y, float alpha,
                                               unsigned int n) {
    const unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = static_cast<data_t>(activate(static_cast<float>(x[i]), alpha));
}
