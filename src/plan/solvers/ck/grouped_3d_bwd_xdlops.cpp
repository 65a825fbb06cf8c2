// ConvHipImplicitGemm3DGroupBwdXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_3d_grouped_bwd_xdlops.cpp:506-546  IsApplicable
//   GetSolution :548-605
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemm3DGroupBwdXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemm3DGroupBwdXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemm3DGroupBwdXdlops", ConvDirection::BackwardData, 3, true, false,
                           "src/solver/conv/conv_hip_implicit_gemm_3d_grouped_bwd_xdlops.cpp:506-546"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemm3DGroupBwdXdlops)

}  // namespace kdbgen
