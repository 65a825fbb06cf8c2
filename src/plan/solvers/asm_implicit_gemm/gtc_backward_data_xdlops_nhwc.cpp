// ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC: backward-data NHWC implicit
// GEMM in assembly for gfx908/gfx90a/gfx94x (gfx90a FP16: fp16_alt 0 and 1),
// with batched transposes for NCHW problems; dx is zeroed first when not all
// of it is written or k is split (through an FP32 buffer cast back for FP16
// with vector_store 1 and a split, and for BF16).
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp
// (the same in rocm-6.2.0):
//   :48-387    GetBwdXdlopsNHWCConfigList (read from the tree);  :389-407 the largest tiles
//   :409-467   GetImplicitGemmGtcDynamicBwdXdlopsNHWCKernel (multihead: one grid per sub-GEMM)
//   :469-750   HeuristicInit (tile lists :472-525 read from the tree; BWD_MAX_GEMM_K_SPLITS 8)
//   :802-900   IsValid;  :928-998 IsApplicable;  :1054-1179 GetSolution
//   src/conv/invokers/impl_gemm_dynamic.cpp:729-1042  need_set_zero (y < stride_h, x < stride_w,
//              dilation, or gks > 0), need_cast, SetTensor, CastTensor
#include "gtc_common.hpp"

namespace kdbgen {

namespace {

using namespace gtc;

class ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC : public NhwcXdlopsSolver {
public:
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC"; }

protected:
    std::string source() const override { return "src/solver/conv/conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp"; }
    std::string table_function() const override { return "GetBwdXdlopsNHWCConfigList"; }
    std::string largest_tile_function(Precision precision) const override {
        return precision == Precision::Fp32   ? "GetBwdXdlopsNHWCConfigLargestTileFp32"
               : precision == Precision::Fp16 ? "GetBwdXdlopsNHWCConfigLargestTileFp16"
                                              : "GetBwdXdlopsNHWCConfigLargestTileBf16";
    }
    bool direction_matches(const ConvView& p) const override { return p.IsDirectionBackwardData(); }
    int split_batch(const ConvView& p) const override {
        return split_batch_size(p.GetOutHeight(), p.GetOutWidth(), p.GetInHeight(), p.GetInWidth(), p.GetBatchSize(),
                                p.GetInChannels(), p.GetOutChannels(), type_size(p));
    }
    bool workaround_rejects(const ConvView&, std::string*) const override { return false; }
    Grid grid_of(const ConvView& p, const Config& c) const override {
        const BwdGeometry g = bwd_geometry(p, 1);
        const long long splits = split_batch(p);
        const long long gemm_m = (g.n / splits) * g.h_tilda_slice * g.w_tilda_slice;
        const long long gemm_n = g.c / p.GetGroupCount();
        std::size_t grid = static_cast<std::size_t>(p.GetGroupCount() * solvers::integer_divide_ceil<long long>(gemm_m, c.m_per_block) *
                                                    solvers::integer_divide_ceil<long long>(gemm_n, c.n_per_block))
                           << c.gemm_k_global_split;
        if (c.multihead != 0) grid *= static_cast<std::size_t>(g.y_tilda * g.x_tilda);
        return {static_cast<std::size_t>(c.block_size()), grid, static_cast<std::size_t>(splits)};
    }

    bool valid(const ConvView& p, const Config& c) const override {
        const long long group = p.GetGroupCount(), k = p.GetInChannels(), cc = p.GetOutChannels();
        const BwdGeometry g = bwd_geometry(p, 1);
        if (p.IsFp16() && c.gemm_k_global_split != 0 && c.vector_store != 1 && split_batch(p) > 1) return false;
        const Grid grid = grid_of(p, c);
        if (grid.block * grid.grid * grid.third > 0xffffffffULL) return false;
        if (!(c.ta_thread[1] == 1 && c.merge_e == 1)) {
            if (c.gemm_k_global_split != 0 && (static_cast<long long>(c.k_per_block) << c.gemm_k_global_split) > k / group)
                return false;
            if (((k >> c.gemm_k_global_split) / group) % c.k_per_block != 0) return false;
        }
        const bool plain = c.ta_thread[1] == 1 && c.tb_thread[3] == 1 && c.merge_e == 1 && c.gemm_k_global_split == 0;
        const long long vector = gcd(c.n_per_block, c.vector_store == 0 ? 8 : c.vector_store);
        if (p.IsFp16() && !plain) {
            if (c.gemm_k_global_split != 0 ? (cc / group) % 2 != 0 : (cc / group) % vector != 0) return false;
        }
        if (p.IsBfp16() && !plain && c.gemm_k_global_split == 0 && (cc / group) % vector != 0) return false;
        return !(c.nxe == 0 && !g.unit_conv);
    }

    Config heuristic(const ConvView& p, const SolverContext& ctx) const override {
        const auto& list = table(ctx);
        const long long group = p.GetGroupCount(), k = p.GetInChannels(), c = p.GetOutChannels();
        const BwdGeometry g = bwd_geometry(p, 1);
        const auto gemm_m = static_cast<std::size_t>(g.n * g.h_tilda_slice * g.w_tilda_slice);
        const auto gemm_n = static_cast<std::size_t>(c / group);
        const auto gemm_k_even = static_cast<std::size_t>(k / group);
        const bool no_vector_store = (p.IsFp16() || p.IsBfp16()) && (c / group) % 2 != 0;
        const auto tile = macro_tile_no_pad_gemm_k(
            gemm_m, gemm_n, gemm_k_even,
            tiles(ctx, p.IsFp32() ? "tile_list_fp32" : p.IsFp16() ? "tile_list_fp16" : "tile_list_bfp16"));
        if (tile == std::array<int, 3>{0, 0, 0} || no_vector_store)
            return least_padding(p, list, gemm_m, gemm_n, gemm_k_even);
        for (const auto& config : list) {
            if (config.precision != precision_name(precision_of(p))) continue;
            if (tile != std::array<int, 3>{config.m_per_block, config.n_per_block, config.k_per_block}) continue;
            bool need_k_split = p.IsFp16() && c % 8 != 0 && c % 2 == 0;
            const std::size_t gks = log2_gemm_k_global_splits_2d_merge(grid_of(p, config).grid, 1200,
                                                                       static_cast<std::size_t>(k / group), 1,
                                                                       static_cast<std::size_t>(config.k_per_block), 8);
            need_k_split |= gks != 0;
            if (!((g.unit_conv && config.nxe == 0) || (!g.unit_conv && config.nxe != 0))) continue;
            if (!is_valid(p, config)) continue;
            Config chosen = config;
            if (need_k_split && gks > 0) chosen.gemm_k_global_split = static_cast<int>(gks);
            return chosen;
        }
        return least_padding(p, list, gemm_m, gemm_n, gemm_k_even);
    }

    void add_helpers(std::vector<SolverKernel>& out, const ConvView& p, const Config& c) const override {
        const BwdGeometry g = bwd_geometry(p, 1);
        const bool set_zero = g.y < g.stride_h || g.x < g.stride_w || g.dilation_h != 1 || g.dilation_w != 1 ||
                              c.gemm_k_global_split > 0;
        const bool cast = p.IsFp16() ? (c.vector_store == 1 && c.gemm_k_global_split > 0) : p.IsBfp16() && set_zero;
        const long dx = p.GetBatchSize() * p.GetOutChannels() * p.GetOutHeight() * p.GetOutWidth();
        if (set_zero) out.push_back(sub_tensor_op_with_scalar(false, dx, cast ? DataType::Float : data_type(p)));
        if (cast) out.push_back(cast_tensor(dx, DataType::Float, data_type(p)));
    }

    std::vector<TransposeNeed> transposes(const ConvView& p) const override {
        const DataType t = data_type(p);
        // dx (the problem's out) back to NCHW, the weights and dy (its in) to NHWC.
        return {{Transpose::Nhwc2Default, t, p.GetBatchSize(), p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()},
                {Transpose::Default2Nhwc, t, p.GetInChannels(), p.GetOutChannels() / p.GetGroupCount(),
                 p.GetWeightsHeight(), p.GetWeightsWidth()},
                {Transpose::Default2Nhwc, t, p.GetBatchSize(), p.GetInChannels(), p.GetInHeight(), p.GetInWidth()}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC)

}  // namespace kdbgen
