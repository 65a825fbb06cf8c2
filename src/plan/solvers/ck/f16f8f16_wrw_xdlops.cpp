// ConvHipImplicitGemmF16F8F16WrwXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_f16f8f16_wrw_xdlops.cpp:304-332  IsApplicable
//   GetSolution :334-346; FP16 with In cast FP8 and Out cast BF8 (:327-329), NHWC only, so SetTensor(dw) in FP16 and no transposes
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemmF16F8F16WrwXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemmF16F8F16WrwXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemmF16F8F16WrwXdlops", ConvDirection::BackwardWeights, 2, false, true,
                           "src/solver/conv/conv_hip_implicit_gemm_f16f8f16_wrw_xdlops.cpp:304-332"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmF16F8F16WrwXdlops)

}  // namespace kdbgen
