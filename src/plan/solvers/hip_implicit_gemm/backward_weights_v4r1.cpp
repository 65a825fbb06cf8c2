// ConvHipImplicitGemmV4R1WrW: backward-weights implicit GEMM on the V4R1
// forward kernel with the roles of the tensors swapped (the "unswap" of
// MIOpen's comments): batch as C, output channels as N, the filter as the
// output image. One kernel per problem, no helper kernels.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_fwd_v4r1.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_fwd_v4r1.cpp):
//   :102-150  IsApplicable (deprecated solver; MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_WRW_V4R1 on unless disabled)
//   :159-164  GetDefaultPerformanceConfig: PerformanceImplicitGemm::HeuristicInit
//   :372-540  GetSolution
#include "implicitgemm_util.hpp"

#include <algorithm>
#include <numeric>

namespace kdbgen {

namespace {

class ConvHipImplicitGemmV4R1WrW : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmV4R1WrW"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!hip_implicit_gemm::v4r1_common_checks(p, ctx, ConvDirection::BackwardWeights, why)) return false;
        const long n = p.GetBatchSize(), k = p.GetInChannels() / p.GetGroupCount(),
                   c = p.GetOutChannels() / p.GetGroupCount(), y = p.GetWeightsHeight(), x = p.GetWeightsWidth(),
                   ho = p.GetInHeight(), wo = p.GetInWidth();
        // The GEMM's view: N = c, K = k, C = n, filter = the image, image = the filter.
        const long n_eqv = c, k_eqv = k, c_eqv = n, y_eqv = ho, x_eqv = wo, ho_eqv = y, wo_eqv = x;
        const long e_multiple = (p.IsFp16() || p.IsBfp16()) ? 16 : 8;
        if (c_eqv % hip_implicit_gemm::epack_length(p, ctx.target, false) != 0) return reject(why, "N is not a multiple of EPack");
        return (n_eqv % 8 == 0 && (n_eqv * ho_eqv * wo_eqv) % 64 == 0 && (c_eqv * y_eqv * x_eqv) % e_multiple == 0 &&
                k_eqv % 16 == 0 && (n_eqv * ho_eqv * wo_eqv * k_eqv) % 1024 == 0) ||
               reject(why, "sizes are not multiples of the GEMM tiles");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto c = hip_implicit_gemm::v4r1_config(p, ctx, name());
        hip_implicit_gemm::V4R1Kernel k{};
        k.n = p.GetBatchSize(), k.k = p.GetInChannels(), k.c = p.GetOutChannels();
        k.hi = p.GetOutHeight(), k.wi = p.GetOutWidth(), k.ho = p.GetInHeight(), k.wo = p.GetInWidth();
        k.y = p.GetWeightsHeight(), k.x = p.GetWeightsWidth();
        k.stride_h = p.GetKernelStrideH(), k.stride_w = p.GetKernelStrideW();
        k.dilation_h = p.GetDilationH(), k.dilation_w = p.GetDilationW();
        k.left_pad_h = p.GetPadH(), k.left_pad_w = p.GetPadW();
        k.direction_forward = 0, k.direction_backward_weight = 1;
        const long n_eqv = k.c / p.GetGroupCount();
        const long b = n_eqv * k.y * k.x / (static_cast<long>(c.GemmNRepeat) * c.GemmNPerThreadSubC);
        k.grid_size = (b / c.BPerBlock) * (k.k / c.KPerBlock);
        const long wei_sub_e = c.EPerBlock / c.WeiBlockCopyClusterLengths_E;
        const int wei_sub_k = c.KPerBlock / c.WeiBlockCopyClusterLengths_K;
        k.wei_src_read_e = static_cast<int>(std::gcd(std::gcd(wei_sub_e, 4L), k.ho * k.wo));
        const int in_sub_b = c.BPerBlock / c.InBlockCopyClusterLengths_B;
        const int in_sub_n2 = c.GemmNPerThreadSubC / c.InBlockCopyClusterLengths_N2;
        k.in_src_read_b = hip_implicit_gemm::read_write_vector_size(in_sub_b);
        k.wei_dst_write_k = hip_implicit_gemm::read_write_vector_size(wei_sub_k);
        k.in_dst_write_n2 = hip_implicit_gemm::read_write_vector_size(in_sub_n2);
        if (p.GetWeightsWidth() > 1)
            k.in_src_read_b = std::min(k.in_src_read_b, hip_implicit_gemm::read_write_vector_size(p.GetDilationW()));
        if (p.GetKernelStrideW() > 1) k.in_src_read_b = 1;
        return {hip_implicit_gemm::v4r1_kernel(p, ctx, c, k)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmV4R1WrW)

}  // namespace kdbgen
