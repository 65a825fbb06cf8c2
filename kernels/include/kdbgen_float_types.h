// Data-type selection in MIOpen's convention: exactly one of the
// MIOPEN_USE_<TYPE> defines is 1, and _FLOAT names the element type.
#ifndef KDBGEN_FLOAT_TYPES_H
#define KDBGEN_FLOAT_TYPES_H

#ifndef MIOPEN_USE_FP16
#define MIOPEN_USE_FP16 0
#endif
#ifndef MIOPEN_USE_FP32
#define MIOPEN_USE_FP32 0
#endif
#ifndef MIOPEN_USE_BFP16
#define MIOPEN_USE_BFP16 0
#endif

#if MIOPEN_USE_FP16 + MIOPEN_USE_FP32 + MIOPEN_USE_BFP16 != 1
#error "define exactly one of MIOPEN_USE_FP16, MIOPEN_USE_FP32, MIOPEN_USE_BFP16 to 1"
#endif

#if MIOPEN_USE_FP16
#define _FLOAT half
#define _FLOAT_ACCUM float
#define LOAD_FLOAT(p) vload_half(0, (p))
#elif MIOPEN_USE_BFP16
#define _FLOAT ushort
#define _FLOAT_ACCUM float
#endif

#if MIOPEN_USE_FP32
#define _FLOAT float
#define _FLOAT_ACCUM float
#endif

#endif
