// ConvAsmImplicitGemmGTCDynamicWrwXdlops: gfx908's NCHW backward-weights
// implicit GEMM in assembly. The kernel comes from a search over block sizes
// that looks the candidates up in the tunables table; the invoker zeroes dw
// first (FP32), or, for FP16 with a global k split, zeroes an FP32 workspace
// and casts it to dw.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_wrw_gtc_dynamic_xdlops.cpp
// (the same in rocm-6.2.0):
//   :45-370    GetImplicitGemmWrwGTCDynamicXdlopsKernelList (read from the tree)
//   :372-395   find_tunable;  :397-426 if_gemm_k_global_split (max grid 1200)
//   :478-502   ComputeLog2GemmKGlobalSplits;  :504-791 FindImplicitGemmWrwGTCDynamicXdlopsKernel
//              (num_cu fixed at 120 there: the CU count of the target plays no part)
//   :821-873   IsApplicable;  :875-1010 GetSolution and its invokers (SetTensor, CastTensor)
#include "gtc_common.hpp"

namespace kdbgen {

namespace {

using namespace gtc;

const char* const kSource = "src/solver/conv/conv_asm_implicit_gemm_wrw_gtc_dynamic_xdlops.cpp";

struct Choice {
    Tunable tunable;
    int log2_splits = 0;
};

int log2_splits_of(long long grid, long long max_grid, long long n, long long b, long long k_per_block) {
    int log2 = 0;
    for (int gs = 0; gs < 9; ++gs) {
        if ((grid << gs) > max_grid) break;
        if (n % (1LL << gs) != 0) break;
        if ((n >> gs) * b % k_per_block != 0) break;
        log2 = gs;
    }
    return log2;
}

std::optional<Choice> find_kernel(const ConvView& p, const MiopenTree& tree) {
    const auto& tunables = tunable_table(tree, kSource, "GetImplicitGemmWrwGTCDynamicXdlopsKernelList", "kernel_param_list");
    const long long n = p.GetBatchSize(), k = p.GetInChannels(), c = p.GetOutChannels();
    const long long ho = p.GetInHeight(), wo = p.GetInWidth(), y = p.GetWeightsHeight(), x = p.GetWeightsWidth();
    const long long stride_h = p.GetKernelStrideH(), stride_w = p.GetKernelStrideW();
    const long long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
    const long long dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
    const long long pad_h = p.GetPadH(), pad_w = p.GetPadW();
    const Precision precision = p.IsFp16() ? Precision::Fp16 : Precision::Fp32;
    const long long gemm_n = c * y * x, gemm_m = k;
    constexpr long long kMaxGrid = 1200, kNumCu = 120;

    const auto global_split = [&](long long mpb, long long npb, long long kpb, long long b) {
        const long long grid = (gemm_m / mpb) * (gemm_n / npb);
        return (n % 2 == 0 && (grid << 1) < kMaxGrid && (n >> 1) * b % kpb == 0) ? 1 : 0;
    };
    const auto find_tunable = [&](int mpb, int npb, int kpb, int gks, int nxb, int nxe) -> const Tunable* {
        for (const auto& t : tunables)
            if (t.m_per_block == mpb && t.n_per_block == npb && t.k_per_block == kpb && t.gemm_k_global_split == gks &&
                t.nxb == nxb && t.nxe == nxe && t.precision == precision)
                return &t;
        return nullptr;
    };

    const Tunable* selected = nullptr;
    long long sel_block = 0, sel_grid = 0;
    int sel_log2 = 0;
    for (int pack = 0; pack < 2; ++pack) {
        for (int i = 15; i > 7; --i) {
            int r = (i + 1) >> 1, l = i - r;
            while (l > 1 && r < 9) {
                for (int swap = 0; swap < 2; ++swap) {
                    const int mpb = swap == 0 ? 1 << r : 1 << l;
                    const int npb = swap == 0 ? 1 << l : 1 << r;
                    if (gemm_m % mpb != 0) continue;
                    for (int j = 5; j > 1; --j) {
                        const int kpb = 1 << j;
                        for (const int nxe : {0, 1}) {
                            for (const int nxb : {16, 8, 4, 1}) {
                                if (pack == 0 && nxb != 1) continue;
                                const long long b = pack == 0 ? ho * wo
                                                              : (nxe == 0 ? ho * wo : (ho * wo + nxb - 1) / nxb * nxb);
                                const long long gemm_k = n * b;
                                if (c % (npb / (nxe == 0 ? 1 : nxe)) != 0) continue;
                                if (gemm_k % kpb != 0) continue;
                                if (nxe == 0) {
                                    if (x != 1 || y != 1 || dilation_h != 1 || dilation_w != 1 || pad_h != 0 || pad_w != 0)
                                        continue;
                                    if (stride_h != 1 || stride_w != 1) {
                                        if (nxb != 1) continue;
                                    } else if (ho * wo % nxb != 0) {
                                        continue;
                                    }
                                }
                                const int gks = global_split(mpb, npb, kpb, b);
                                const Tunable* t = find_tunable(mpb, npb, kpb, gks, nxb, nxe);
                                if (!t) continue;
                                long long grid = solvers::integer_divide_ceil<long long>(gemm_m, mpb) * solvers::integer_divide_ceil<long long>(gemm_n, npb);
                                const long long block = t->block_size();
                                int log2 = log2_splits_of(grid, kMaxGrid, n, b, kpb);
                                if (gks == 0) log2 = 0;
                                if (nxe != 0) {
                                    if (wo % t->tb_thread[1] != 0) continue;
                                    if (t->tb_thread[1] > 1 && (pad_h != 0 || pad_w != 0)) continue;
                                }
                                grid <<= log2;
                                if (block >= sel_block && grid > sel_grid) {
                                    sel_block = block;
                                    sel_grid = grid;
                                    selected = t;
                                    sel_log2 = log2;
                                    break;
                                }
                            }
                        }
                        if (sel_grid > kNumCu * 2) break;
                    }
                    if (sel_grid > kNumCu * 2) break;
                }
                if (sel_grid > kNumCu * 2) break;
                ++r;
                --l;
            }
            if (sel_grid > kNumCu) break;
        }
    }
    if (selected) return Choice{*selected, sel_log2};

    // The gemm_m / gemm_n padding kernels (:717-787), FP16 only.
    if (precision == Precision::Fp32) return std::nullopt;
    for (const auto& t : tunables) {
        if (t.precision != precision || t.nxe == 0) continue;
        if (t.tb_thread[1] == 0) return std::nullopt;  // MIOpen throws "invalid config parameter"
        const long long b = (ho * wo + t.nxb - 1) / t.nxb * t.nxb;
        if ((n * b) % t.k_per_block != 0) continue;
        if (t.tb_thread[2] * t.tb_cluster[2] > 1) {
            if (c % t.n_per_block != 0 || gemm_m % t.m_per_block != 0) continue;
        } else if (t.ta_thread[2] * t.ta_thread[3] > 1 && gemm_m % t.m_per_block != 0) {
            continue;
        }
        if (wo % t.tb_thread[1] != 0) continue;
        if (t.tb_thread[1] != 1 && (pad_h != 0 || pad_w != 0)) continue;
        const int gks = global_split(t.m_per_block, t.n_per_block, t.k_per_block, b);
        if (gks != t.gemm_k_global_split) continue;
        const long long grid = solvers::integer_divide_ceil<long long>(gemm_m, t.m_per_block) * solvers::integer_divide_ceil<long long>(gemm_n, t.n_per_block);
        int log2 = log2_splits_of(grid, kMaxGrid, n, b, t.k_per_block);
        if (gks == 0) log2 = 0;
        return Choice{t, log2};
    }
    return std::nullopt;
}

class ConvAsmImplicitGemmGTCDynamicWrwXdlops : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1697
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicWrwXdlops"; }
    std::string_view missing_kernels_reason() const override { return kNoKernelsReason; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!nchw_xdlops_applicable(p, ctx, why)) return false;
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not backward weights");
        if (p.GetGroupCount() != 1) return reject(why, "grouped");
        return find_kernel(p, *ctx.tree) || reject(why, "no tunable fits");
    }

    std::vector<SolverKernel> table_kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        return table_asm_kernels(tunable_table(*ctx.tree, kSource, "GetImplicitGemmWrwGTCDynamicXdlopsKernelList", "kernel_param_list"), p);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        const auto choice = find_kernel(p, *ctx.tree);
        if (!choice) return {};
        const std::string name = choice->tunable.kernel_name();
        std::vector<SolverKernel> out{plain_asm_kernel(name)};
        const long weights = p.GetOutChannels() * p.GetInChannels() * p.GetWeightsHeight() * p.GetWeightsWidth();
        if (p.IsFp32()) {
            out.push_back(sub_tensor_op_with_scalar(false, weights, DataType::Float));
        } else if (choice->log2_splits > 0) {
            // FP16 with atomic adds: an FP32 workspace shaped as dw, zeroed, then cast into dw (:936-994).
            out.push_back(sub_tensor_op_with_scalar(false, weights, DataType::Float));
            out.push_back(cast_tensor(weights, DataType::Float, DataType::Half));
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicWrwXdlops)

}  // namespace kdbgen
