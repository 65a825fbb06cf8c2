// ConvAsmImplicitGemmV4R1DynamicWrw: backward-weights FP32 implicit GEMM on
// gfx900 and gfx906, igemm_v4r1_wrw_dynamic.s. When the GEMM's K dimension
// (batch x output pixels) splits into 2^g groups, each group writes its own
// copy of dw into the workspace and the HIP kernel wrw_reduction_hip sums them.
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_implicit_gemm_wrw_v4r1_dynamic.cpp (rocm-6.2.0
// src/solver/conv_asm_implicit_gemm_wrw_v4r1_dynamic.cpp, same lines):
//   :48-72    GetImplicitGemmWrwV4R1DynamicGemmkGroups;  :283-296 GetGemmkGroups
//   :164-249  FindImplicitGemmWrwV4R1DynamicKernel
//   :298-352  IsApplicable (MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_WRW_V4R1 is on unless disabled;
//             the reduction needs ctx.use_hip_kernels, on by default)
//   :354-445  GetSolution: the .s kernel, and wrw_reduction_hip.cpp with
//             "-Wno-old-style-cast -Wno-cast-align" when the groups are more than one (:395-420)
#include "v4r1_dynamic_common.hpp"

#include <optional>

namespace kdbgen {

namespace {

// log2 of the number of GEMM-K groups (:48-72).
int gemmk_groups(const ConvView& p, long gemm_k_per_block) {
    const long n = p.GetBatchSize(), gemmk = n * p.GetInHeight() * p.GetInWidth();
    int groups = 0;
    for (int i = 0; i < 6; ++i) {
        if (n % (1L << i) != 0) break;
        if (gemmk % ((n >> i) * gemm_k_per_block) != 0) break;
        groups = i;
    }
    return groups;
}

// GetGemmkGroups (:283-296): K per block 16 when both GEMM sides are multiples of 128.
int reduction_groups(const ConvView& p) {
    const long k = p.GetInChannels(), gemm_n = p.GetOutChannels() * p.GetWeightsHeight() * p.GetWeightsWidth();
    return gemmk_groups(p, k % 128 == 0 && gemm_n % 128 == 0 ? 16 : 4);
}

// FindImplicitGemmWrwV4R1DynamicKernel (:164-249): dy is In (k channels), x Out (c channels).
std::optional<std::string> find_kernel(const ConvView& p) {
    const long n = p.GetBatchSize(), k = p.GetInChannels(), c = p.GetOutChannels();
    const long ho = p.GetInHeight(), wo = p.GetInWidth();
    const long gemm_n = c * p.GetWeightsHeight() * p.GetWeightsWidth(), gemm_m = k, gemm_k = n * ho * wo;
    const auto fits = [&](long n_repeat, long n_per_thread, long n0yx_per_block, long m_per_block, long k_per_block) {
        if (c % (n_repeat * n_per_thread) != 0) return false;
        if (gemm_n % (n_repeat * n_per_thread * n0yx_per_block) != 0) return false;
        if (gemm_m % m_per_block != 0) return false;
        return gemm_k % ((1L << gemmk_groups(p, k_per_block)) * k_per_block) == 0;
    };
    if (gemm_m % 128 == 0 && gemm_n % 128 == 0) {
        if (!fits(2, 4, 16, 128, 16)) return std::nullopt;
        return (ho * wo) % 16 == 0 ? "igemm_v4r1_dynamic_wrw_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_4x64"
                                   : "igemm_v4r1_dynamic_wrw_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_16x16";
    }
    if (gemm_m % 32 == 0 && gemm_n % 32 == 0) {
        if (!fits(2, 2, 8, 32, 4)) return std::nullopt;
        return "igemm_v4r1_dynamic_wrw_32x32x4_4x4_2x2x4x2x4x2_4x2x8x1_4x16";
    }
    return std::nullopt;
}

class ConvAsmImplicitGemmV4R1DynamicWrw : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1676
    std::string_view name() const override { return "ConvAsmImplicitGemmV4R1DynamicWrw"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!igemm_v4r1::common_checks(p, ctx, ConvDirection::BackwardWeights, true, why)) return false;
        return find_kernel(p).has_value() || reject(why, "no kernel for this GEMM shape");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto symbol = find_kernel(p);
        if (!symbol) return {};  // MIOpen throws here
        std::vector<SolverKernel> out{{"igemm_v4r1_wrw_dynamic.s", {*symbol}, igemm_v4r1::kOptions}};
        if (reduction_groups(p) > 0)
            out.push_back({"wrw_reduction_hip.cpp", {"wrw_reduction_hip"}, "-Wno-old-style-cast -Wno-cast-align"});
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmV4R1DynamicWrw)

}  // namespace kdbgen
