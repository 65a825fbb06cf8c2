// ConvHipImplicitGemmWrwV4R4Xdlops: backward-weights implicit GEMM on xdlops (gfx908, gfx90a;
// gfx94x runs no deprecated solver by default), static_kernel_gridwise_convolution_backward_weights_
// implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw.cpp, one kernel per problem, GEMM K split over up to
// 20 blocks per CU (the CU count reaches the options). Helpers: SetTensor on dw (FP32), or on an
// FP32 workspace followed by CastTensor into dw (FP16, BF16); see hip_implicit_gemm/backward_weights_xdlops_common.hpp.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp, same lines):
//   :38        MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_WRW_V4R4_XDLOPS (env::disabled: on unless set to 0)
//   :863-870   GetDefaultPerformanceConfig: HeuristicInit (:128-254)
//   :872-1041  GetSolution: the options (:940-982) in this order:
//              " -DCK_PARAM_PROBLEM_G=.. _N _K _C _HI _WI _HO _WO _Y _X _CONV_STRIDE_H _CONV_STRIDE_W
//              _CONV_DILATION_H _CONV_DILATION_W _IN_LEFT_PAD_H _IN_LEFT_PAD_W _IN_RIGHT_PAD_H _IN_RIGHT_PAD_W"
//              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK= _N_PER_BLOCK _K_PER_BLOCK _M_PER_WAVE _N_PER_WAVE _KPACK"
//              " -DCK_PARAM_GEMM_K_BLOCK= -DCK_PARAM_DEPENDENT_BLOCK_SIZE= -DCK_PARAM_DEPENDENT_GRID_SIZE="
//              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_{CLUSTER_LENGTHS_GEMM_K,_GEMM_M,_GEMM_KPACK,
//              SRC_DATA_PER_READ_GEMM_KPACK,DST_DATA_PER_WRITE_GEMM_KPACK}=", the same five for B with GEMM_N,
//              " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0",
//              get_static_ck_common_compiler_flag, ctx.general_compile_options (the data-type block)
//   :1043-1108 IsApplicable;  :1119-1136 GetWorkspaceSize (4*K*C*Y*X bytes for FP16/BF16)
#include "backward_weights_xdlops_common.hpp"

namespace kdbgen {

namespace {

using hip_implicit_gemm::backward_weights_xdlops::Variant;
using hip_implicit_gemm::backward_weights_xdlops::WrwXdlops;

class ConvHipImplicitGemmWrwV4R4Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmWrwV4R4Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // :1046-1056: the env switch (on), ThisSolverIsDeprecatedStatic (disabled_by_default), a
        // deterministic convolution (the attribute is off by default), use_hip_kernels (on);
        // HasNonPackedTensors: keys describe packed tensors.
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::BackwardWeights, why)) return false;
        return WrwXdlops(Variant::Plain, p, ctx.target).applicable_tail(why);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const WrwXdlops s(Variant::Plain, p, ctx.target);
        return s.kernels(s.config(ctx.perf_db, std::string(name())), ctx);
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmWrwV4R4Xdlops)

}  // namespace kdbgen
