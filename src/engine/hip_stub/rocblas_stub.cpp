// The rocBLAS half of kdbgen-hip-stub. libMIOpen links librocblas for its GEMM
// solvers, which call it at run time only: no rocBLAS call changes a kernel key,
// and no rocBLAS kernel lands in a kdb. A real rocBLAS would need the card's
// Tensile library (3.9 GB in Debian's package) and aborts on processors it has
// none for, so this stand-in answers every call MIOpen makes with success.
// MIOpen 3.4.0 and 3.5.1 (Debian 6.4.3, 7.2.4) import exactly these.
#include <cstdint>

#define KDBGEN_STUB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
constexpr int kSuccess = 0;  // rocblas_status_success
}

KDBGEN_STUB_EXPORT int rocblas_create_handle(void** handle) {
    static int handles;
    if (handle) *handle = &handles;
    return kSuccess;
}
KDBGEN_STUB_EXPORT int rocblas_destroy_handle(void*) { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_set_stream(void*, void*) { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_get_atomics_mode(void*, int* mode) { if (mode) *mode = 1; return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_set_atomics_mode(void*, int) { return kSuccess; }
// The GEMM entry points take up to 34 arguments; none is read, and the SysV ABI
// lets a callee that reads no arguments ignore them.
KDBGEN_STUB_EXPORT int rocblas_gemm_ex() { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_gemm_ex3() { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_gemm_strided_batched_ex() { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_gemm_strided_batched_ex3() { return kSuccess; }
KDBGEN_STUB_EXPORT int rocblas_sgemv() { return kSuccess; }
