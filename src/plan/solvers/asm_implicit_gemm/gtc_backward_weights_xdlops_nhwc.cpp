// ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC: backward-weights NHWC implicit
// GEMM in assembly for gfx908/gfx90a/gfx94x (gfx90a FP16: fp16_alt 0 and 1),
// with batched transposes for NCHW problems. Its heuristic splits k over the
// CUs (num_cu * occupancy / grid), so keys depend on the CU count. dw is zeroed
// first; FP16 with tb[3] == 1 or vector_store 1, and BF16, accumulate in FP32
// and cast back.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_gtc_wrw_nhwc.cpp
// (the same in rocm-6.2.0):
//   :60-314    GetWrwXdlopsNHWCConfigList (read from the tree);  :316-334 the largest tiles
//   :336-362   GetImplicitGemmGtcDynamicWrwXdlopsNHWCKernel (the third value is the occupancy)
//   :364-441   ComputeKernelOccupancy;  :443-457 SetParamsForKSplit
//   :459-709   HeuristicInit (tile lists :462-495 read from the tree; num_cu :579; grid 600)
//   :756-841   IsValid;  :873-955 IsApplicable (WORKAROUND_ISSUE_2867 :891-913)
//   :1055-1190 GetSolution: need_cast (gemm_k_global_splits is at least 1 there), the transposes;
//              :1220-1232, :1340-1350 SetTensor on the FP32 buffer or on dw, CastTensor
#include "gtc_common.hpp"

#include <algorithm>

namespace kdbgen {

namespace {

using namespace gtc;

std::size_t occupancy(const Config& c) {
    const std::size_t type_size = c.precision == "fp32" ? 4 : 2;
    const auto block = static_cast<std::size_t>(std::max(1, c.block_size()));
    // A table row with m * n below its block size would divide by zero in MIOpen too.
    const std::size_t acc_usage = std::max<std::size_t>(1, static_cast<std::size_t>(c.m_per_block * c.n_per_block) / block);
    const std::size_t lds_a = type_size * c.m_per_block * c.k_per_block;
    const std::size_t lds_b = type_size * c.n_per_block * c.k_per_block;
    const std::size_t lds_single = lds_a >= lds_b ? lds_a * 2 : lds_b * 2;
    constexpr std::size_t kLds = 64 * 1024, kVgprs = 256, kAcc = 256;
    const std::size_t aux_vgpr = c.nxe == 0 ? 36 : 42;
    const std::size_t a_per_vgpr = type_size == 2 && c.ta_thread[3] > 1 ? 2 : 1;
    const std::size_t b_per_vgpr = type_size == 2 && c.tb_thread[3] > 1 ? 2 : 1;
    const std::size_t per_element = c.precision == "fp16" ? 2 : 1;
    const std::size_t a = static_cast<std::size_t>(c.ta_thread[1]) * c.ta_thread[3];
    const std::size_t b = static_cast<std::size_t>(c.tb_thread[1]) * c.tb_thread[3];
    const std::size_t vgpr = std::max<std::size_t>(1, a / a_per_vgpr + b / b_per_vgpr + a / per_element + b / per_element + aux_vgpr);
    std::size_t lds = lds_single;
    if (type_size == 2 && !(lds_single >= kLds / 2 || (lds_single <= kLds / 4 && lds_single > kLds / 8 &&
                                                       acc_usage < kAcc / 2 && vgpr < kVgprs / 3)))
        lds = lds_single * 2;  // LDS double buffer
    return std::min(kLds / std::max<std::size_t>(1, lds), std::min(kAcc / acc_usage, kVgprs / vgpr));
}

class ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC : public NhwcXdlopsSolver {
public:
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC"; }
    bool uses_compute_units() const override { return true; }

protected:
    std::string source() const override { return "src/solver/conv/conv_asm_implicit_gemm_gtc_wrw_nhwc.cpp"; }
    std::string table_function() const override { return "GetWrwXdlopsNHWCConfigList"; }
    std::string largest_tile_function(Precision precision) const override {
        return precision == Precision::Fp32   ? "GetWrwXdlopsNHWCConfigLargestTileFp32"
               : precision == Precision::Fp16 ? "GetWrwXdlopsNHWCConfigLargestTileFp16"
                                              : "GetWrwXdlopsNHWCConfigLargestTileBf16";
    }
    bool direction_matches(const ConvView& p) const override { return p.IsDirectionBackwardWrW(); }
    int split_batch(const ConvView& p) const override {
        return split_batch_size(p.GetOutHeight(), p.GetOutWidth(), p.GetInHeight(), p.GetInWidth(), p.GetBatchSize(),
                                p.GetInChannels(), p.GetOutChannels(), type_size(p));
    }
    bool workaround_rejects(const ConvView& p, std::string* why) const override {
        // WORKAROUND_ISSUE_2867: three single-channel shapes computed wrongly.
        const long c = p.GetOutChannels(), k = p.GetInChannels(), hi = p.GetOutHeight(), wi = p.GetOutWidth();
        const long y = p.GetWeightsHeight(), x = p.GetWeightsWidth(), ph = p.GetPadH(), pw = p.GetPadW();
        const long sh = p.GetKernelStrideH(), sw = p.GetKernelStrideW();
        const bool single = c == 1 && k == 1 && hi == 1;
        if (single && ((wi == 1 && y == 3 && x == 3 && ph == 2 && pw == 2 && sh == 2 && sw == 2) ||
                       (wi == 5 && y == 3 && x == 6 && ph == 2 && pw == 1 && sh == 2 && sw == 1) ||
                       (wi == 1 && y == 2 && x == 3 && ph == 1 && pw == 2 && sh == 1 && sw == 2)))
            return !reject(why, "WORKAROUND_ISSUE_2867 shape");
        return false;
    }
    Grid grid_of(const ConvView& p, const Config& c) const override {
        const long long group = p.GetGroupCount(), k = p.GetInChannels(), cc = p.GetOutChannels();
        const long long c_vec = c.tb_thread[3];
        const long long c_padded = (cc / group + c_vec - 1) / c_vec * c_vec;
        const long long gemm_n = (c_padded * p.GetWeightsHeight() * p.GetWeightsWidth() + c.n_per_block - 1) /
                                 c.n_per_block * c.n_per_block;
        const long long gemm_m = k / group;
        const auto grid = static_cast<std::size_t>(group * solvers::integer_divide_ceil<long long>(gemm_m, c.m_per_block) *
                                                   solvers::integer_divide_ceil<long long>(gemm_n, c.n_per_block));
        return {static_cast<std::size_t>(c.block_size()), grid, occupancy(c)};
    }

    bool valid(const ConvView& p, const Config& c) const override {
        const long long group = p.GetGroupCount(), k = p.GetInChannels(), cc = p.GetOutChannels();
        if (c.nxe == 0 && !unit_conv(p)) return false;
        if (!p.IsFp32()) {
            if ((cc / group) % c.tb_thread[3] != 0) return false;
            if ((k / group) % c.ta_thread[3] != 0) return false;
        }
        const Grid g = grid_of(p, c);
        return g.block * g.grid * g.third <= 0xffffffffULL;
    }

    Config heuristic(const ConvView& p, const SolverContext& ctx) const override {
        const auto& list = table(ctx);
        const long long group = p.GetGroupCount(), k = p.GetInChannels(), c = p.GetOutChannels();
        const long long y = p.GetWeightsHeight(), x = p.GetWeightsWidth();
        const std::size_t num_cu = ctx.target.compute_units;
        constexpr std::size_t kNonSplitGrid = 600;
        const auto gemm_m = static_cast<std::size_t>(k / group);
        std::size_t gemm_n = static_cast<std::size_t>(c / group * y * x);
        const bool unit = unit_conv(p);
        const bool no_vector_store = (p.IsFp16() || p.IsBfp16()) && (c / group) % 2 != 0;
        const auto tile = macro_tile_no_pad_gemm_k(
            gemm_m, gemm_n, 0, tiles(ctx, p.IsFp32() ? "tile_list_fp32" : p.IsFp16() ? "tile_list_fp16" : "tile_list_bfp16"));

        // SetParamsForKSplit with MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_PK_ATOMIC_ADD_FP16 unset.
        const auto with_split = [&](Config config) {
            const Grid g = grid_of(p, config);
            const bool need_k_split = g.grid <= kNonSplitGrid || num_cu * g.third / g.grid != 0;
            if (need_k_split) {
                if ((p.IsFp16() || p.IsBfp16()) && config.tb_thread[3] == 1) config.vector_store = 1;
                config.gemm_k_global_split = static_cast<int>(g.third);
            }
            return config;
        };
        const auto with_gemm_k_pad = [&]() {
            std::size_t min_pad = std::numeric_limits<std::size_t>::max(), selected = 0;
            for (std::size_t i = 0; i < list.size(); ++i) {
                const Config& config = list[i];
                if (config.precision != precision_name(precision_of(p))) continue;
                if (!p.IsFp32() && ((c / group) % config.tb_thread[3] != 0 || (k / group) % config.ta_thread[3] != 0))
                    continue;
                if (p.IsFp32()) {
                    const long long c_vec = config.tb_thread[3];
                    const long long c_padded = (c / group + c_vec - 1) / c_vec * c_vec;
                    gemm_n = static_cast<std::size_t>((c_padded * y * x + config.n_per_block - 1) / config.n_per_block *
                                                      config.n_per_block);
                }
                const auto m = static_cast<std::size_t>(config.m_per_block), n = static_cast<std::size_t>(config.n_per_block),
                           kk = static_cast<std::size_t>(config.k_per_block);
                const std::size_t pad = matrix_pad_size(gemm_m, m, 0, kk) + matrix_pad_size(gemm_n, n, 0, kk) +
                                        matrix_pad_size(gemm_m, m, gemm_n, n);
                if (pad < min_pad) {
                    min_pad = pad;
                    selected = i;
                }
            }
            return with_split(list[selected]);
        };
        if (tile == std::array<int, 3>{0, 0, 0} || no_vector_store) return with_gemm_k_pad();
        for (const auto& config : list) {
            if (config.precision != precision_name(precision_of(p))) continue;
            if (tile != std::array<int, 3>{config.m_per_block, config.n_per_block, config.k_per_block}) continue;
            if (!((unit && config.nxe == 0) || (!unit && config.nxe != 0))) continue;
            if (!is_valid(p, config)) continue;
            return with_split(config);
        }
        return with_gemm_k_pad();
    }

    void add_helpers(std::vector<SolverKernel>& out, const ConvView& p, const Config& c) const override {
        const bool cast = p.IsBfp16() || (p.IsFp16() && (c.tb_thread[3] == 1 || c.vector_store == 1));
        const long weights = p.GetInChannels() * (p.GetOutChannels() / p.GetGroupCount()) * p.GetWeightsHeight() *
                             p.GetWeightsWidth();
        out.push_back(sub_tensor_op_with_scalar(false, weights, cast ? DataType::Float : data_type(p)));
        if (cast) out.push_back(cast_tensor(weights, DataType::Float, data_type(p)));
    }

    std::vector<TransposeNeed> transposes(const ConvView& p) const override {
        const DataType t = data_type(p);
        // x (the problem's out) and dy (its in) to NHWC, dw back to NCHW.
        return {{Transpose::Default2Nhwc, t, p.GetBatchSize(), p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()},
                {Transpose::Nhwc2Default, t, p.GetInChannels(), p.GetOutChannels() / p.GetGroupCount(),
                 p.GetWeightsHeight(), p.GetWeightsWidth()},
                {Transpose::Default2Nhwc, t, p.GetBatchSize(), p.GetInChannels(), p.GetInHeight(), p.GetInWidth()}};
    }

private:
    static bool unit_conv(const ConvView& p) {
        const long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
        const long dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
        return p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && p.GetKernelStrideH() == 1 &&
               p.GetKernelStrideW() == 1 && dilation_h == 1 && dilation_w == 1 && p.GetPadH() == 0 && p.GetPadW() == 0;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC)

}  // namespace kdbgen
