// ConvHipImplicitGemmGroupWrwXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_grouped_wrw_xdlops.cpp:565-603  IsApplicable
//   GetSolution :605-632; no IsTensorsCasted check
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemmGroupWrwXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemmGroupWrwXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemmGroupWrwXdlops", ConvDirection::BackwardWeights, 2, false, false,
                           "src/solver/conv/conv_hip_implicit_gemm_grouped_wrw_xdlops.cpp:565-603"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmGroupWrwXdlops)

}  // namespace kdbgen
