// ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC: forward NHWC implicit GEMM in
// assembly for gfx908/gfx90a/gfx94x (gfx90a FP16: two kernels, fp16_alt 0/1),
// NCHW problems transposed in and out by batched_transpose.cpp; with a global
// k split the output is zeroed first (FP16 with vector_store 1 and BF16 through
// an FP32 buffer cast back).
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp
// (the same in rocm-6.2.0):
//   :48-317    GetFwdXdlopsNHWCConfigList (read from the tree);  :319-337 the largest tiles
//   :339-366   GetImplicitGemmGtcDynamicFwdXdlopsNHWCKernel (grid, splits_4G)
//   :368-625   HeuristicInit (tile lists :371-420 read from the tree; FWD_MAX_GEMM_K_SPLITS 8)
//   :672-778   IsValid;  :862-943 IsApplicable (WORKAROUND_ISSUE_1979 :871-874, _2624 :876-883)
//   :945-1070  GetSolution: the options, the alt kernel, the transposes
//   src/conv/invokers/impl_gemm_dynamic.cpp:437-727  need_set_zero = gks > 0; need_cast (FP16:
//              vector_store 1 and gks > 0; BF16: need_set_zero); SetTensor, CastTensor (FP32 -> out type)
#include "gtc_common.hpp"

namespace kdbgen {

namespace {

using namespace gtc;

class ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC : public NhwcXdlopsSolver {
public:
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC"; }

protected:
    std::string source() const override { return "src/solver/conv/conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp"; }
    std::string table_function() const override { return "GetFwdXdlopsNHWCConfigList"; }
    std::string largest_tile_function(Precision precision) const override {
        return precision == Precision::Fp32   ? "GetFwdXdlopsNHWCConfigLargestTileFp32"
               : precision == Precision::Fp16 ? "GetFwdXdlopsNHWCConfigLargestTileFp16"
                                              : "GetFwdXdlopsNHWCConfigLargestTileBf16";
    }
    bool direction_matches(const ConvView& p) const override { return p.IsDirectionForward(); }
    int split_batch(const ConvView& p) const override {
        return split_batch_size(p.GetInHeight(), p.GetInWidth(), p.GetOutHeight(), p.GetOutWidth(), p.GetBatchSize(),
                                p.GetOutChannels(), p.GetInChannels(), type_size(p));
    }
    bool workaround_rejects(const ConvView& p, std::string* why) const override {
        const long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
        if (p.GetInChannels() <= 4 && dilation_h > 1) return !reject(why, "C <= 4 with dilation (WORKAROUND_ISSUE_2624)");
        return false;
    }
    Grid grid_of(const ConvView& p, const Config& c) const override {
        const long long splits = split_batch(p);
        const long long gemm_m = (p.GetBatchSize() / splits) * p.GetOutHeight() * p.GetOutWidth();
        const long long gemm_n = p.GetOutChannels() / p.GetGroupCount();
        const auto grid = static_cast<std::size_t>(p.GetGroupCount() * solvers::integer_divide_ceil<long long>(gemm_m, c.m_per_block) *
                                                   solvers::integer_divide_ceil<long long>(gemm_n, c.n_per_block))
                          << c.gemm_k_global_split;
        return {static_cast<std::size_t>(c.block_size()), grid, static_cast<std::size_t>(splits)};
    }

    bool valid(const ConvView& p, const Config& c) const override {
        const long long cc = p.GetInChannels(), k = p.GetOutChannels(), group = p.GetGroupCount();
        const long long y = p.GetWeightsHeight(), x = p.GetWeightsWidth();
        const int splits = split_batch(p);
        if (p.IsFp16() && c.gemm_k_global_split != 0 && c.vector_store != 1 && splits > 1) return false;
        const Grid g = grid_of(p, c);
        if (g.block * g.grid * g.third > 0xffffffffULL) return false;
        if (c.merge_e != 0) {
            const auto move_y = static_cast<std::uint32_t>((c.k_per_block / (x * (cc / group))) % y);
            const auto move_x = static_cast<std::uint32_t>((c.k_per_block / (cc / group)) % x);
            const auto move_c = static_cast<std::uint32_t>(c.k_per_block % (cc / group));
            if (cc / group >= 0xffffff || y >= 0xffffff || x >= 0xffffff) return false;
            if (move_y >= 256 || move_x >= 256 || move_c >= 256) return false;
        }
        if (!(c.ta_thread[1] == 1 && c.tb_thread[1] == 1)) {
            if ((cc >> c.gemm_k_global_split) == 0 || ((cc >> c.gemm_k_global_split) / group) % c.k_per_block != 0)
                return false;
            const long long vector = gcd(c.n_per_block, c.vector_store == 0 ? 8 : c.vector_store);
            if (p.IsFp16()) {
                if (c.gemm_k_global_split != 0 ? (k / group) % 2 != 0 : (k / group) % vector != 0) return false;
            } else if (p.IsBfp16()) {
                if (c.gemm_k_global_split == 0 && (k / group) % vector != 0) return false;
            }
        }
        return !(c.nxe == 0 && !unit_conv(p));
    }

    Config heuristic(const ConvView& p, const SolverContext& ctx) const override {
        const auto& list = table(ctx);
        const long long n = p.GetBatchSize(), c = p.GetInChannels(), k = p.GetOutChannels(), group = p.GetGroupCount();
        const auto gemm_m = static_cast<std::size_t>(n * p.GetOutHeight() * p.GetOutWidth());
        const auto gemm_n = static_cast<std::size_t>(k / group);
        const auto gemm_k = static_cast<std::size_t>(c / group * p.GetWeightsHeight() * p.GetWeightsWidth());
        const bool unit = unit_conv(p);
        const bool no_vector_store = (p.IsFp16() || p.IsBfp16()) && (k / group) % 2 != 0;
        const auto tile = macro_tile_no_pad_gemm_k(
            gemm_m, gemm_n, gemm_k,
            tiles(ctx, p.IsFp32() ? "tile_list_fp32" : p.IsFp16() ? "tile_list_fp16" : "tile_list_bfp16"));
        if (tile == std::array<int, 3>{0, 0, 0} || no_vector_store) return least_padding(p, list, gemm_m, gemm_n, gemm_k);
        for (const auto& config : list) {
            if (config.precision != precision_name(precision_of(p))) continue;
            if (tile != std::array<int, 3>{config.m_per_block, config.n_per_block, config.k_per_block}) continue;
            bool need_k_split = p.IsFp16() && k % 8 != 0 && k % 2 == 0;
            const std::size_t gks = log2_gemm_k_global_splits_2d_merge(grid_of(p, config).grid, 1200,
                                                                       static_cast<std::size_t>(c / group), 1,
                                                                       static_cast<std::size_t>(config.k_per_block), 8);
            need_k_split |= gks != 0;
            if (!((unit && config.nxe == 0) || (!unit && config.nxe != 0))) continue;
            if (!is_valid(p, config)) continue;
            Config chosen = config;
            // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_PK_ATOMIC_ADD_FP16 is not set: vector_store stays.
            if (need_k_split && gks > 0) chosen.gemm_k_global_split = static_cast<int>(gks);
            return chosen;
        }
        return least_padding(p, list, gemm_m, gemm_n, gemm_k);
    }

    void add_helpers(std::vector<SolverKernel>& out, const ConvView& p, const Config& c) const override {
        const bool set_zero = c.gemm_k_global_split > 0;
        const bool cast = p.IsFp16() ? (c.vector_store == 1 && c.gemm_k_global_split > 0) : p.IsBfp16() && set_zero;
        const long output = p.GetBatchSize() * p.GetOutChannels() * p.GetOutHeight() * p.GetOutWidth();
        if (set_zero) out.push_back(sub_tensor_op_with_scalar(false, output, cast ? DataType::Float : data_type(p)));
        if (cast) out.push_back(cast_tensor(output, DataType::Float, data_type(p)));
    }

    std::vector<TransposeNeed> transposes(const ConvView& p) const override {
        const DataType t = data_type(p);
        return {{Transpose::Default2Nhwc, t, p.GetBatchSize(), p.GetInChannels(), p.GetInHeight(), p.GetInWidth()},
                {Transpose::Default2Nhwc, t, p.GetOutChannels(), p.GetInChannels() / p.GetGroupCount(),
                 p.GetWeightsHeight(), p.GetWeightsWidth()},
                {Transpose::Nhwc2Default, t, p.GetBatchSize(), p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()}};
    }

private:
    static bool unit_conv(const ConvView& p) {
        const long stride_h = p.GetInHeight() > 1 ? p.GetKernelStrideH() : 1;
        const long stride_w = p.GetInWidth() > 1 ? p.GetKernelStrideW() : 1;
        const long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
        const long dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
        return p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && stride_h == 1 && stride_w == 1 &&
               dilation_h == 1 && dilation_w == 1 && p.GetPadH() == 0 && p.GetPadW() == 0;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC)

}  // namespace kdbgen
