// ConvHipImplicitGemm3DGroupWrwXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_3d_grouped_wrw_xdlops.cpp:515-553  IsApplicable
//   GetSolution :555-612; no IsTensorsCasted check
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemm3DGroupWrwXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemm3DGroupWrwXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemm3DGroupWrwXdlops", ConvDirection::BackwardWeights, 3, false, false,
                           "src/solver/conv/conv_hip_implicit_gemm_3d_grouped_wrw_xdlops.cpp:515-553"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemm3DGroupWrwXdlops)

}  // namespace kdbgen
