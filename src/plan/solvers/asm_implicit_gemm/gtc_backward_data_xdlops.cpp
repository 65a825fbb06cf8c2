// ConvAsmImplicitGemmGTCDynamicBwdXdlops: gfx908's NCHW backward-data
// implicit GEMM in assembly (FP32 ungrouped, FP16 grouped too), one kernel by
// a first-fit over the tunables table, and the zeroing of dx its invoker
// launches when some of dx is not written (filter smaller than the stride, or
// dilation).
//
// MIOpen 3.3.0 (develop 2d1fd997), the same in rocm-6.2.0:
//   src/solver/conv/conv_asm_implicit_gemm_gtc_bwd.cpp:42-766   the FP32 / FP16 tunables (read from the tree)
//   :768-783   mayHaveBiggerGemmNPerBlock;  :785-977 FindImplicitGemmGtcDynamicBwdKernel
//   :979-1028  IsApplicable;  :1030-1066 GetSolution (" -Wa,-defsym,ROCM_METADATA_VERSION=5")
//   src/conv/invokers/impl_gemm_dynamic.cpp:250-372  the invoker: SetTensor(dx, 0) when
//              y < stride_h || x < stride_w || dilation != 1 (strides/dilations as the solver adjusts them)
#include "gtc_common.hpp"

namespace kdbgen {

namespace {

using namespace gtc;

const char* const kSource = "src/solver/conv/conv_asm_implicit_gemm_gtc_bwd.cpp";

bool gemm_k_fits(const BwdGeometry& g, const Tunable& t) {
    for (long long id = 0; id < g.y_tilda * g.x_tilda; ++id) {
        const long long iy = id / g.x_tilda, ix = id % g.x_tilda;
        const long long y_slice = (iy + 1) * g.y_dot <= g.y ? g.y_dot : g.y % g.y_dot;
        const long long x_slice = (ix + 1) * g.x_dot <= g.x ? g.x_dot : g.x % g.x_dot;
        const long long gemm_k = g.k * y_slice * x_slice;
        if (gemm_k > 0 && gemm_k % t.k_per_block != 0) return false;
    }
    return true;
}

bool k_split_fits(const BwdGeometry& g, const Tunable& t) {
    const bool multi = t.ta_thread[0] != 1 || t.ta_thread[1] != 1 || t.tb_thread[0] != 1 || t.tb_thread[1] != 1;
    return !(multi && g.k % t.k_per_block != 0);
}

std::optional<Tunable> find_kernel(const ConvView& p, const MiopenTree& tree) {
    const auto& tunables = tunable_table(tree, kSource, "GetImplicitGemmGtcDynamicBwdTunablesList",
                                        p.IsFp16() ? "tunables_fp16" : "tunables_fp32");
    // "group" only in the FP16 kernels (:794-795).
    const BwdGeometry g = bwd_geometry(p, p.IsFp16() ? p.GetGroupCount() : 1);
    const long long hw = g.h_tilda_slice * g.w_tilda_slice;
    const long long gemm_m = g.c, gemm_n = g.n * hw;
    // The block checks both passes share; b is the padded gemm_n slice per image.
    const auto blocks_fit = [&](const Tunable& t, long long b, long long gemm_n_packed) {
        if (t.nxe == 0 && !g.unit_conv) return false;
        if (gemm_n_packed % t.n_per_block != 0 || gemm_m % t.m_per_block != 0) return false;
        if (t.n_per_block % t.nxb != 0) return false;
        if (g.n % (t.n_per_block / t.nxb) != 0) return false;
        if (b % t.nxb != 0) return false;
        return k_split_fits(g, t) && gemm_k_fits(g, t);
    };
    for (const auto& t : tunables) {
        const long long b = (t.nxe == 0 || p.IsFp32()) ? hw : (hw + t.nxb - 1) / t.nxb * t.nxb;
        if (!blocks_fit(t, b, p.IsFp16() ? g.n * b : gemm_n)) continue;
        if (p.IsFp16()) {
            if (t.nxe == 0 && t.tb_thread[3] > 1 && (g.ho * g.wo) % t.tb_thread[3] != 0) continue;
            const bool unit_yx = g.y == 1 && g.x == 1;
            if (t.nxe == 1 && t.ta_thread[3] > 1 && !unit_yx) continue;
            // mayHaveBiggerGemmNPerBlock (:768-783)
            const float n_times_m = static_cast<float>(gemm_n) / static_cast<float>(gemm_m);
            if (!unit_yx && n_times_m >= 5.0f && t.m_per_block >= t.n_per_block && t.n_per_block >= 32) continue;
        }
        return t;
    }
    if (p.IsFp32()) {
        for (const auto& t : tunables) {
            const long long b = t.nxe == 0 ? hw : (hw + t.nxb - 1) / t.nxb * t.nxb;
            if (blocks_fit(t, b, g.n * b)) return t;
        }
    }
    return std::nullopt;
}

class ConvAsmImplicitGemmGTCDynamicBwdXdlops : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1750
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicBwdXdlops"; }
    std::string_view missing_kernels_reason() const override { return kNoKernelsReason; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!nchw_xdlops_applicable(p, ctx, why)) return false;
        if (!p.IsDirectionBackwardData()) return reject(why, "not backward data");
        if (p.IsFp32() && p.GetGroupCount() != 1) return reject(why, "grouped FP32");
        return find_kernel(p, *ctx.tree) || reject(why, "no tunable fits");
    }

    std::vector<SolverKernel> table_kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        return table_asm_kernels(tunable_table(*ctx.tree, kSource, "GetImplicitGemmGtcDynamicBwdTunablesList",
                                               p.IsFp16() ? "tunables_fp16" : "tunables_fp32"), p);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        const auto t = find_kernel(p, *ctx.tree);
        if (!t) return {};
        const std::string name = t->kernel_name();
        std::vector<SolverKernel> out{plain_asm_kernel(name)};
        const BwdGeometry g = bwd_geometry(p, 1);
        if (g.y < g.stride_h || g.x < g.stride_w || g.dilation_h != 1 || g.dilation_w != 1)
            out.push_back(sub_tensor_op_with_scalar(
                false, p.GetBatchSize() * p.GetOutChannels() * p.GetOutHeight() * p.GetOutWidth(), data_type(p)));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicBwdXdlops)

}  // namespace kdbgen
