// ConvHipImplicitGemmV4R4Fwd: forward implicit GEMM on the non-xdlops V4R4 static
// composable kernel, FP32, 2-D (static_kernel_gridwise_convolution_implicit_gemm_v4r4_nchw_kcyx_nkhw.cpp)
// and 3-D (..._ncdhw_kczyx_nkdhw.cpp), every size in -DCK_PARAM_* (one kernel per problem).
// A deprecated solver (ThisSolverIsDeprecatedStatic in IsApplicable). Its heuristic reads no
// CU count. No helper kernels: the invoker runs the one kernel (MakeImplGemmDataInvokerFactory,
// src/conv/invokers/impl_gemm.cpp:15-24).
//
// MIOpen 3.3.0 (develop 2d1fd997) src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4.cpp
// (rocm-6.2.0 src/solver/conv_hip_implicit_gemm_fwd_v4r4.cpp, the same code):
//   :578-617  IsApplicable
//   :619-624  GetDefaultPerformanceConfig: HeuristicInit (:477-532)
//   :626-633  IsValidPerformanceConfig: IsValidValue && IsValid (the perf-db record's test)
//   :643-781  GetSolution: kernel file and name (:666-681), options (:718-774):
//     " -DCK_PARAM_PROBLEM_N= _K= _C= _HI= _WI= _HO= _WO= _Y= _X= _CONV_STRIDE_H= _CONV_STRIDE_W=
//      _CONV_DILATION_H= _CONV_DILATION_W= _IN_LEFT_PAD_H= _IN_LEFT_PAD_W= _IN_RIGHT_PAD_H=
//      _IN_RIGHT_PAD_W= -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=1 ..._BACKWARD_DATA=0
//      ..._BACKWARD_WEIGHT=0" (:720-739), then the tunable block (:740-761, v4r4_common.cpp:
//      ..._B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N), the common CK flags (:762), the general
//     options (:763) and, for 3-D, " -DCK_PARAM_PROBLEM_DI= _DO= _Z= _CONV_STRIDE_D=
//      _CONV_DILATION_D= _IN_LEFT_PAD_D= _IN_RIGHT_PAD_D=" (:765-774).
#include "v4r4_common.hpp"

namespace kdbgen {

namespace {

class ConvHipImplicitGemmV4R4Fwd : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmV4R4Fwd"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R4 is on unless disabled (:581); the deprecated-solver
        // rule (:583) is disabled_by_default (DeprecatedSolver); the convolution is not deterministic
        // (:585) and HIP kernels are in use (:587) by default; HasNonPackedTensors (:591).
        return hip_implicit_gemm::v4r4::applicable(p, ctx, ConvDirection::Forward, why);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto q = hip_implicit_gemm::v4r4::interpret(p);
        const auto c = hip_implicit_gemm::v4r4::config(p, ctx, name(), q);
        std::string o = hip_implicit_gemm::problem_defines(q) +
                        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=1 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
                        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=0";
        o += hip_implicit_gemm::v4r4::tunable_and_tail_options(p, ctx, c, q);
        const std::string kernel = q.is3d ? "gridwise_convolution_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw"
                                          : "gridwise_convolution_implicit_gemm_v4r4_nchw_kcyx_nkhw";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmV4R4Fwd)

}  // namespace kdbgen
