// Exercises kdbgen's hiprtc stand-in the way MIOpen's HIP kernels use hiprtc:
// built with -DMIOPEN_DONT_USE_HIP_RUNTIME_HEADERS, so nothing is included.
extern "C" __global__ void __launch_bounds__(256) UsesVectorsAndAtomics(const float4* in, float4* out,
                                                                         unsigned int* counter, float* sum,
                                                                         unsigned int n) {
    const uint i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = in[i];
    float& first = v.x;  // HIP's vector members bind to references
    first += 1.0f;
    out[i] = v + make_float4(0.5f, 0.5f, 0.5f, 0.5f);
    ushort2 pair = make_ushort2(1, static_cast<ushort>(i));
    atomicAdd(counter, static_cast<unsigned int>(pair.y) + __umulhi(i, 3u));
    atomicAdd(sum, __uint_as_float(__float_as_uint(v.w)));
    if (i == 0) printf("n=%u\n", n);
}

extern "C" __global__ void __launch_bounds__(128, 2) UsesShuffles(float* data) {
    float value = data[threadIdx.x];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) value += __shfl_down(value, offset);
    value = __shfl_xor(value, 1) + static_cast<float>(__shfl(static_cast<int>(value), 0));
    __syncthreads();
    const __half h = __float2half(value);
    data[threadIdx.x] = __half2float(__hadd(h, h));
}
