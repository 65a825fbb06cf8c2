// ConvHipImplicitGemmGroupFwdXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_grouped_fwd_xdlops.cpp:491-533  IsApplicable
//   GetSolution :535-561; IsApplicable rejects casted tensors (:500)
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemmGroupFwdXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemmGroupFwdXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemmGroupFwdXdlops", ConvDirection::Forward, 2, true, false,
                           "src/solver/conv/conv_hip_implicit_gemm_grouped_fwd_xdlops.cpp:491-533"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmGroupFwdXdlops)

}  // namespace kdbgen
