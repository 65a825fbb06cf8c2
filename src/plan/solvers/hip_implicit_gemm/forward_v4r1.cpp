// ConvHipImplicitGemmV4R1Fwd: forward implicit GEMM, static composable kernel
// static_kernel_gridwise_convolution_implicit_gemm_v4r1_{nchw_kcyx_nkhw,gnchw_gkcyx_gnkhw}_lds_double_buffer.cpp
// with every size in -DCK_PARAM_* (one kernel per problem). No helper kernels.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_fwd_v4r1.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_fwd_v4r1.cpp):
//   :45-100   IsApplicable (deprecated solver; MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R1 on unless disabled)
//   :152-157  GetDefaultPerformanceConfig: PerformanceImplicitGemm::HeuristicInit
//   :200-370  GetSolution: kernel name, read/write vector sizes, options
#include "implicitgemm_util.hpp"
#include <algorithm>

namespace kdbgen {

namespace {

class ConvHipImplicitGemmV4R1Fwd : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmV4R1Fwd"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!hip_implicit_gemm::v4r1_common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        const long n = p.GetBatchSize(), k = p.GetOutChannels() / p.GetGroupCount(),
                   c = p.GetInChannels() / p.GetGroupCount(), y = p.GetWeightsHeight(), x = p.GetWeightsWidth(),
                   ho = p.GetOutHeight(), wo = p.GetOutWidth();
        const long e_multiple = (p.IsFp16() || p.IsBfp16()) ? 16 : 8;
        if (c % hip_implicit_gemm::epack_length(p, ctx.target, false) != 0) return reject(why, "C is not a multiple of EPack");
        return (n % 8 == 0 && (n * ho * wo) % 32 == 0 && (n * ho * wo * k) % 1024 == 0 && (c * y * x) % e_multiple == 0 &&
                k % 16 == 0) ||
               reject(why, "sizes are not multiples of the GEMM tiles");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto c = hip_implicit_gemm::v4r1_config(p, ctx, name());
        hip_implicit_gemm::V4R1Kernel k{};
        k.n = p.GetBatchSize(), k.k = p.GetOutChannels(), k.c = p.GetInChannels();
        k.hi = p.GetInHeight(), k.wi = p.GetInWidth(), k.ho = p.GetOutHeight(), k.wo = p.GetOutWidth();
        k.y = p.GetWeightsHeight(), k.x = p.GetWeightsWidth();
        k.stride_h = p.GetKernelStrideH(), k.stride_w = p.GetKernelStrideW();
        k.dilation_h = p.GetDilationH(), k.dilation_w = p.GetDilationW();
        k.left_pad_h = p.GetPadH(), k.left_pad_w = p.GetPadW();
        k.direction_forward = 1, k.direction_backward_weight = 0;
        const long b = k.n * k.ho * k.wo / (static_cast<long>(c.GemmNRepeat) * c.GemmNPerThreadSubC);
        k.grid_size = (b / c.BPerBlock) * (k.k / c.KPerBlock);
        const int wei_sub_e = c.EPerBlock / c.WeiBlockCopyClusterLengths_E;
        const int wei_sub_k = c.KPerBlock / c.WeiBlockCopyClusterLengths_K;
        const long yx = k.y * k.x;
        k.wei_src_read_e = hip_implicit_gemm::read_write_vector_size(p.IsFp32() || yx >= wei_sub_e ? wei_sub_e : yx);
        const int in_sub_b = c.BPerBlock / c.InBlockCopyClusterLengths_B;
        const int in_sub_n2 = c.GemmNPerThreadSubC / c.InBlockCopyClusterLengths_N2;
        k.in_src_read_b = hip_implicit_gemm::read_write_vector_size(in_sub_b);
        if (p.GetWeightsWidth() > 1)
            k.in_src_read_b = std::min(k.in_src_read_b, hip_implicit_gemm::read_write_vector_size(p.GetDilationW()));
        if (p.GetKernelStrideW() > 1) k.in_src_read_b = 1;
        k.wei_dst_write_k = hip_implicit_gemm::read_write_vector_size(wei_sub_k);
        k.in_dst_write_n2 = hip_implicit_gemm::read_write_vector_size(in_sub_n2);
        return {hip_implicit_gemm::v4r1_kernel(p, ctx, c, k)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmV4R1Fwd)

}  // namespace kdbgen
