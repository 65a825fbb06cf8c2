// ConvAsmImplicitGemmGTCDynamicFwdXdlops: gfx908's NCHW forward implicit GEMM
// in assembly, FP32 and FP16, one kernel picked by a fixed first-fit over the
// tunables table (no perf-db, no CU count).
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_gtc_fwd.cpp
// (the same in rocm-6.2.0):
//   :44-1325   GetImplicitGemmGtcDynamicFwdXdlopsTunablesList (read from the tree)
//   :1327-1346 mayHaveBiggerN1bClusterSize
//   :1348-1502 FindImplicitGemmGtcDynamicFwdKernel (exact fit, then packed image size)
//   :1504-1562 IsApplicable; WORKAROUND_SWDEV_306318 (:1546-1553) turns off 1x1 with C % 8 != 0
//              unless MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_FWD_GTC_XDLOPS is set
//   :1564-1604 GetSolution: <name>.s, " -Wa,-defsym,ROCM_METADATA_VERSION=5"; the invoker
//              (src/include/miopen/conv/invokers/impl_gemm_dynamic.hpp:186-204) launches nothing else
#include "gtc_common.hpp"

namespace kdbgen {

namespace {

using namespace gtc;

const char* const kSource = "src/solver/conv/conv_asm_implicit_gemm_gtc_fwd.cpp";

bool may_have_bigger_n1b_cluster(long long gemm_m, long long gemm_n, const Tunable& t) {
    const float n_times_m = static_cast<float>(gemm_n) / static_cast<float>(gemm_m);
    if (n_times_m > 100.0f) {
        if (t.k_per_block <= 2 * t.wave_tile_k) return false;
        if ((t.ta_thread[1] > 1 || t.ta_cluster[3] * 2 <= t.m_per_block) && t.tb_cluster[3] * 2 <= t.n_per_block)
            return true;
    }
    return false;
}

std::optional<Tunable> find_kernel(const ConvView& p, const MiopenTree& tree) {
    const auto& tunables = tunable_table(tree, kSource, "GetImplicitGemmGtcDynamicFwdXdlopsTunablesList", "kernel_param_list");
    const long long n = p.GetBatchSize(), c = p.GetInChannels(), k = p.GetOutChannels();
    const long long ho = p.GetOutHeight(), wo = p.GetOutWidth();
    const long long stride_h = p.GetInHeight() > 1 ? p.GetKernelStrideH() : 1;
    const long long stride_w = p.GetInWidth() > 1 ? p.GetKernelStrideW() : 1;
    const long long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
    const long long dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
    const long long pad_h = p.GetPadH(), pad_w = p.GetPadW(), y = p.GetWeightsHeight(), x = p.GetWeightsWidth();
    const long long gemm_m = k, gemm_n = n * ho * wo, gemm_k = c * y * x;
    const Precision precision = p.IsFp16() ? Precision::Fp16 : Precision::Fp32;
    const bool unit = x == 1 && y == 1 && stride_h == 1 && stride_w == 1 && dilation_h == 1 && dilation_w == 1 &&
                      pad_h == 0 && pad_w == 0;
    for (const auto& t : tunables) {
        if (t.precision != precision) continue;
        if (t.nxe == 0 && !unit) continue;
        if (precision == Precision::Fp32) {
            if (gemm_n % t.n_per_block != 0 || gemm_m % t.m_per_block != 0 || gemm_k % t.k_per_block != 0) continue;
        } else {
            if (gemm_n % t.n_per_block != 0 || gemm_m % t.m_per_block != 0) continue;
            if (gemm_k % t.k_per_block != 0 && t.ta_thread[1] > 1) continue;
        }
        if (t.n_per_block % t.nxb != 0) continue;
        if (n % (t.n_per_block / t.nxb) != 0) continue;
        if ((ho * wo) % t.nxb != 0) continue;
        if (t.tb_thread[1] > 1 && (x != 1 || y != 1)) continue;
        if (may_have_bigger_n1b_cluster(gemm_m, gemm_n, t)) continue;
        return t;
    }
    // Second try (:1433-1500): the image padded to nxb; FP16 checks neither gemm_m nor the image.
    for (const auto& t : tunables) {
        const long long b = t.nxe == 0 ? ho * wo : (ho * wo + t.nxb - 1) / t.nxb * t.nxb;
        const long long gemm_n_packed = n * b;
        if (t.precision != precision) continue;
        if (t.nxe == 0 && !unit) continue;
        if (precision == Precision::Fp32) {
            if (gemm_n_packed % t.n_per_block != 0 || gemm_m % t.m_per_block != 0 || gemm_k % t.k_per_block != 0)
                continue;
        } else {
            if (gemm_n_packed % t.n_per_block != 0) continue;
            if (gemm_k % t.k_per_block != 0 && t.ta_thread[1] > 1) continue;
        }
        if (t.n_per_block % t.nxb != 0) continue;
        if (n % (t.n_per_block / t.nxb) != 0) continue;
        if (t.tb_thread[1] > 1 && (x != 1 || y != 1)) continue;
        return t;
    }
    return std::nullopt;
}

bool swdev_306318(const ConvView& p) {
    return p.GetWeightsHeight() == 1 && p.GetWeightsWidth() == 1 && p.GetInChannels() % 8 != 0;
}

class ConvAsmImplicitGemmGTCDynamicFwdXdlops : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1734
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicFwdXdlops"; }
    std::string_view missing_kernels_reason() const override { return kNoKernelsReason; }

    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        if (ctx.target.name() == "gfx908" && p.IsDirectionForward() && swdev_306318(p))
            return "1x1 with C % 8 != 0 needs MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_FWD_GTC_XDLOPS "
                   "(WORKAROUND_SWDEV_306318, conv_asm_implicit_gemm_gtc_fwd.cpp:1546-1553, MIOpen 3.3.0)";
        return std::nullopt;
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!nchw_xdlops_applicable(p, ctx, why)) return false;
        if (!p.IsDirectionForward()) return reject(why, "not forward");
        if (p.GetGroupCount() != 1) return reject(why, "grouped");
        if (swdev_306318(p)) return reject(why, "1x1 with C % 8 != 0 (WORKAROUND_SWDEV_306318)");
        return find_kernel(p, *ctx.tree) || reject(why, "no tunable fits");
    }

    std::vector<SolverKernel> table_kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        return table_asm_kernels(tunable_table(*ctx.tree, kSource, "GetImplicitGemmGtcDynamicFwdXdlopsTunablesList", "kernel_param_list"), p);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        const auto t = find_kernel(p, *ctx.tree);
        if (!t) return {};
        const std::string name = t->kernel_name();
        return {plain_asm_kernel(name)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicFwdXdlops)

}  // namespace kdbgen
