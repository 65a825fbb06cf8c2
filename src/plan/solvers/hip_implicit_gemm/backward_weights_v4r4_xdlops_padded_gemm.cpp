// ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm: ConvHipImplicitGemmWrwV4R4Xdlops with GEMM M, N
// and each GEMM-K slice rounded up (GemmMFactor 16, GemmNFactor 64, GemmKTotalFactor 16 by default,
// a perf-db record's own otherwise); applicable only when something is padded. Kernel
// static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm.cpp,
// the same helpers as the plain solver (hip_implicit_gemm/backward_weights_xdlops_common.hpp).
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4_xdlops_padded_gemm.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_wrw_v4r4_xdlops_padded_gemm.cpp, same lines):
//   :38        MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_WRW_V4R4_PADDED_GEMM_XDLOPS (env::disabled: on unless 0)
//   :912-920   GetDefaultPerformanceConfig: HeuristicInit (:125-250)
//   :922-1104  GetSolution: the options (:1000-1045) are the plain solver's (its :940-982) with
//              " -DCK_GEMM_M_PAD=<m pad> -DCK_GEMM_N_PAD=<n pad> -DCK_GEMM_K_TOTAL_PAD=<k pad>"
//              between the B-copy parameters and " -DCK_USE_AMD_XDLOPS=1"
//   :1106-1187 IsApplicable;  :1198-1214 GetWorkspaceSize (4*K*C*Y*X bytes for FP16/BF16)
#include "backward_weights_xdlops_common.hpp"

namespace kdbgen {

namespace {

using hip_implicit_gemm::backward_weights_xdlops::Variant;
using hip_implicit_gemm::backward_weights_xdlops::WrwXdlops;

class ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // :1109-1113: the env switch (on), ThisSolverIsDeprecatedStatic (disabled_by_default); :1118: a
        // deterministic convolution (the attribute is off by default); :1124: use_hip_kernels (on);
        // HasNonPackedTensors: keys describe packed tensors.
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::BackwardWeights, why)) return false;
        return WrwXdlops(Variant::PaddedGemm, p, ctx.target).applicable_tail(why);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const WrwXdlops s(Variant::PaddedGemm, p, ctx.target);
        return s.kernels(s.config(ctx.perf_db, std::string(name())), ctx);
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm)

}  // namespace kdbgen
