// kdbgen demo kernel: c = alpha0 * a (op) alpha1 * b, element-wise, over a
// work-group tile of MLO_GRP_SZ0 items, in the style of MIOpen's tensor ops.
#include "kdbgen_float_types.h"

#if MIOPEN_USE_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#ifndef MLO_GRP_SZ0
#define MLO_GRP_SZ0 256
#endif
#ifndef KDBGEN_TENSOR_OP
#define KDBGEN_TENSOR_OP 0  // 0 add, 1 mul, 2 max
#endif

#if MIOPEN_USE_BFP16
static float to_accum(ushort v) { return as_float((uint)v << 16); }
static ushort from_accum(float v) { return (ushort)(as_uint(v) >> 16); }
#else
static _FLOAT_ACCUM to_accum(_FLOAT v) { return (_FLOAT_ACCUM)v; }
static _FLOAT from_accum(_FLOAT_ACCUM v) { return (_FLOAT)v; }
#endif

static _FLOAT_ACCUM apply(_FLOAT_ACCUM x, _FLOAT_ACCUM y) {
#if KDBGEN_TENSOR_OP == 0
    return x + y;
#elif KDBGEN_TENSOR_OP == 1
    return x * y;
#else
    return fmax(x, y);
#endif
}

__attribute__((reqd_work_group_size(MLO_GRP_SZ0, 1, 1)))
__kernel void KdbgenTensorOp(const __global _FLOAT* a, const __global _FLOAT* b, __global _FLOAT* c,
                             const float alpha0, const float alpha1, const uint n) {
    const uint i = get_global_id(0);
    if (i < n) c[i] = from_accum(apply(alpha0 * to_accum(a[i]), alpha1 * to_accum(b[i])));
}

__attribute__((reqd_work_group_size(MLO_GRP_SZ0, 1, 1)))
__kernel void KdbgenScaleTensor(__global _FLOAT* c, const float alpha, const uint n) {
    const uint i = get_global_id(0);
    if (i < n) c[i] = from_accum(alpha * to_accum(c[i]));
}
