// ConvHipImplicitGemmV4R4WrW: backward-weights implicit GEMM on the non-xdlops V4R4 static
// composable kernel, FP32, 2-D
// (static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_nchw_kcyx_nkhw.cpp)
// and 3-D (..._ncdhw_kczyx_nkdhw.cpp), every size in -DCK_PARAM_* (one kernel per problem).
// A deprecated solver (ThisSolverIsDeprecatedStatic in IsApplicable). Its heuristic reads no
// CU count. No helper kernels: the invoker runs the one kernel on x, dy, dw (:786-792).
//
// MIOpen 3.3.0 (develop 2d1fd997) src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4.cpp
// (rocm-6.2.0 src/solver/conv_hip_implicit_gemm_wrw_v4r4.cpp, the same code):
//   :581-619  IsApplicable
//   :621-626  GetDefaultPerformanceConfig: HeuristicInit (:480-535)
//   :628-635  IsValidPerformanceConfig: IsValidValue && IsValid (the perf-db record's test)
//   :645-795  GetSolution: kernel file and name (:668-687), options (:724-780):
//     " -DCK_PARAM_PROBLEM_N= _C= _K= _HO= _WO= _HI= _WI= _Y= _X= _CONV_STRIDE_H= _CONV_STRIDE_W=
//      _CONV_DILATION_H= _CONV_DILATION_W= _IN_LEFT_PAD_H= _IN_LEFT_PAD_W= _IN_RIGHT_PAD_H=
//      _IN_RIGHT_PAD_W= -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=0 ..._BACKWARD_DATA=0
//      ..._BACKWARD_WEIGHT=1" (:726-745; C, K and the image sizes as ProblemInterpreter unswaps
//      them: C the input's channels, K the output gradient's), then the tunable block (:746-767,
//      v4r4_common.cpp: ..._B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K), the common CK flags
//     (:768), the general options (:769) and, for 3-D, " -DCK_PARAM_PROBLEM_DI= _DO= _Z=
//      _CONV_STRIDE_D= _CONV_DILATION_D= _IN_LEFT_PAD_D= _IN_RIGHT_PAD_D=" (:771-780).
#include "v4r4_common.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

class ConvHipImplicitGemmV4R4WrW : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmV4R4WrW"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_WRW_V4R4 is on unless disabled (:584); the deprecated-solver
        // rule (:586) is disabled_by_default (DeprecatedSolver); the convolution is not deterministic
        // (:588) and HIP kernels are in use (:590) by default. HasNonPackedTensors (:592): the tensors
        // of a problem key are packed.
        return hip_implicit_gemm::v4r4::applicable(p, ctx, ConvDirection::BackwardWeights, why);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto q = hip_implicit_gemm::v4r4::interpret(p);
        const auto c = hip_implicit_gemm::v4r4::config(p, ctx, name(), q);
        // The problem block in V4R4WrW's own order (N, C, K, Ho, Wo, Hi, Wi: :726-745), not hip_implicit_gemm::problem_defines'.
        std::string o = fmt::format(
            " -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_C={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_HO={}"
            " -DCK_PARAM_PROBLEM_WO={} -DCK_PARAM_PROBLEM_HI={} -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_Y={}"
            " -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={} -DCK_PARAM_PROBLEM_CONV_STRIDE_W={}"
            " -DCK_PARAM_PROBLEM_CONV_DILATION_H={} -DCK_PARAM_PROBLEM_CONV_DILATION_W={}"
            " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={}"
            " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}"
            " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=0 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
            " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=1",
            q.n, q.c, q.k, q.ho, q.wo, q.hi, q.wi, q.y, q.x, q.stride_h, q.stride_w, q.dilation_h, q.dilation_w,
            q.left_pad_h, q.left_pad_w, q.right_pad_h, q.right_pad_w);
        o += hip_implicit_gemm::v4r4::tunable_and_tail_options(p, ctx, c, q);
        const std::string kernel = q.is3d ? "gridwise_convolution_backward_weights_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw"
                                          : "gridwise_convolution_backward_weights_implicit_gemm_v4r4_nchw_kcyx_nkhw";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmV4R4WrW)

}  // namespace kdbgen
