// ConvHipImplicitGemmGroupBwdXdlops: the MIOpen kernels its CK invoker runs (ck_grouped.hpp).
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.3 branch 219c1776 the same):
//   src/solver/conv/conv_hip_implicit_gemm_grouped_bwd_xdlops.cpp:471-511  IsApplicable
//   GetSolution :513-540; its switch MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_GROUP_BWD_XDLOPS turns it off when set (:476)
#include "ck_grouped.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemmGroupBwdXdlops : public ck::CkGroupedSolver {
public:
    ConvHipImplicitGemmGroupBwdXdlops()
        : CkGroupedSolver({"ConvHipImplicitGemmGroupBwdXdlops", ConvDirection::BackwardData, 2, true, false,
                           "src/solver/conv/conv_hip_implicit_gemm_grouped_bwd_xdlops.cpp:471-511"}) {}
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmGroupBwdXdlops)

}  // namespace kdbgen
