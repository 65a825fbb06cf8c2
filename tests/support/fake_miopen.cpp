// A library that stands for a MIOpen built against a newer HIP than the stub
// knows: it imports a HIP function kdbgen-hip-stub does not provide, so
// loading it must fail with the symbol named (tests/unit/miopen_engine_test.cpp).
extern "C" int hipFunctionTheStubLacks(int);
extern "C" int miopenCreate(void** handle) { return hipFunctionTheStubLacks(handle != nullptr); }
