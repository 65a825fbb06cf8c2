// ConvHipImplicitGemm3DGroupFwdXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_3d_grouped_fwd_xdlops.cpp:502-541  IsApplicable
//   GetSolution :543-600 (the Bilinear, Scale or default CK op by alpha and beta: the same helpers); no IsTensorsCasted check
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemm3DGroupFwdXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemm3DGroupFwdXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemm3DGroupFwdXdlops", ConvDirection::Forward, 3, false, false,
                           "src/solver/conv/conv_hip_implicit_gemm_3d_grouped_fwd_xdlops.cpp:502-541"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemm3DGroupFwdXdlops)

}  // namespace kdbgen
