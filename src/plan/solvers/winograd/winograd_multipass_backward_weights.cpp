// ConvWinograd3x3MultipassWrW<DataH-FilterH[-DataW-FilterW]>: weights
// gradient as three assembly transforms (xform_data.s, xform_filter.s,
// xform_out.s) around a rocBLAS GEMM. The transforms' options depend only on
// the tile sizes, the stride and the data type. A dynamic solver: MIOpen's
// default find builds it for problems without a find-db record.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_multipass_wino3x3WrW.cpp
// (rocm-6.2.0: src/solver/conv_multipass_wino3x3WrW.cpp, the same code one line up from :29):
//   :41-44    WORKAROUND_SWDEV_203031 and _234193 (HIP with rocBLAS, MIOpen's default build)
//   :89-130   InTransform::IsApplicable;     :132-169 GetKernel;  :171-190 GetBufferSize
//   :196-236  FilterTransform::IsApplicable; :238-274 GetKernel;  :276-297 GetBufferSize
//   :302-305  OutTransform::IsApplicable;    :307-350 GetKernel;  :352-370 GetBufferSize
//   :376-556  IsApplicable;  :565-571 GetWorkspaceSize (the three buffers)
//   :575-592  GetSolution: data, filter, out
//   src/include/miopen/conv/solvers.hpp:67  wave_size 64;  :2112 IsDynamic
//   src/include/miopen/conv/solvers.hpp:2122-2155  file and kernel names, GetGroupCountMult 4,
//             GetSolverWinoXformHWSize
//   src/include/miopen/conv/solvers.hpp:2169-2181  the instantiations; src/CMakeLists.txt:41 RNE bfloat16 ON
//   src/include/miopen/buffer_info.hpp:166-309  WinogradBufferInfo (N_1_CThTw_Xh_Xw);
//   src/buffer_info.cpp:102-113  BuffInfo sizes (unsigned int) and total_byte_size
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace kdbgen {

namespace {

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

// WinogradBufferInfo's buffer in the N_1_CThTw_Xh_Xw transform (g = 1): the sizes MIOpen's
// IsApplicable and GetWorkspaceSize read. Arguments in the order MIOpen passes them:
// (N, K, C, out_H, out_W, R, S) of DEFINE_SHADER_ALIASES.
enum class BufferKind { Input, Weight, Output };
struct WinoBuffer {
    std::uint32_t size_c = 0;          // BuffInfo::size.c (unsigned int)
    std::uint64_t total_bytes = 0;     // BuffInfo::total_byte_size
};

class ConvWinograd3x3MultipassWrW : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:2112
    bool winograd() const override { return true; }
    ConvWinograd3x3MultipassWrW(int data_h, int filter_h, int data_w, int filter_w)
        : data_h_(data_h), filter_h_(filter_h), data_w_(data_w), filter_w_(filter_w) {
        name_ = data_w == data_h && filter_w == filter_h
                    ? fmt::format("ConvWinograd3x3MultipassWrW<{}-{}>", data_h, filter_h)
                    : fmt::format("ConvWinograd3x3MultipassWrW<{}-{}-{}-{}>", data_h, filter_h, data_w, filter_w);
        suffix_ = fmt::format("_{}_{}_{}_{}", data_h, data_w, filter_h, filter_w);
    }
    std::string_view name() const override { return name_; }
    // The transforms' work split (chw_step) and the gfx906 workspace limit read the CU count.
    bool uses_compute_units() const override { return true; }
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        const int data = std::max(data_h_, data_w_), filter = std::max(filter_h_, filter_w_);
        const std::string_view device = ctx.target.name();
        if (p.IsFp16() && (device.starts_with("gfx906") || device.starts_with("gfx908")) && data == 3 && filter >= 4)
            return fmt::format("WORKAROUND_SWDEV_234193: FP16 F3x{} off on gfx906/gfx908 unless "
                               "MIOPEN_DEBUG_AMD_WINOGRAD_MPASS_F3X{}=1 (conv_multipass_wino3x3WrW.cpp:43, :402-434)",
                               filter, filter);
        return std::nullopt;
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        const int data = std::max(data_h_, data_w_), filter = std::max(filter_h_, filter_w_);
        // :386-398: F3x2 and F3x3 only for strided problems (their MIOPEN_DEBUG_* switches on by default).
        if (data == 3 && (filter == 2 || filter == 3) && p.GetKernelStrideH() == 1)
            return reject(why, "F3x2/F3x3 need a stride above 1");
        // :401-434 WORKAROUND_SWDEV_234193 (FP16 F3x4..F3x6 on gfx906/gfx908): disabled_by_default().
        if (disabled_by_default(p, ctx)) return reject(why, "WORKAROUND_SWDEV_234193");
        // :461-464 use_asm_kernels and code object v2/v3: true for a HIP build with its assembler.
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return reject(why, "not FP32/FP16/BF16");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        // InTransform and FilterTransform (:115-118, :222-225) refuse gfx8 in MIOpen 3.3.
        if (name.find("gfx8") != std::string_view::npos) return reject(why, "gfx8 (the transforms refuse it)");
        if (!in_transform_applicable(p, ctx)) return reject(why, "the data transform's limits (:89-130)");
        if (!filter_transform_applicable(p, ctx)) return reject(why, "the filter transform's limits (:196-236)");
        if (!(name.starts_with("gfx8") || name.starts_with("gfx9")) || name.starts_with("gfx94"))
            return reject(why, "not gfx8/gfx9 (or gfx94x)");
        if (name == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16 needs the FP16-alt GEMM");
        // :495-516 WORKAROUND_SWDEV_203031: a 2,000,000,000-byte workspace limit on gfx900 and on
        // gfx906 with 60 CUs or fewer (MIOPEN_DEBUG_AMD_WINOGRAD_MPASS_WORKSPACE_MAX unset).
        if (name == "gfx900" || (name == "gfx906" && ctx.target.compute_units <= 60)) {
            const std::uint64_t required = buffer(p, BufferKind::Input).total_bytes +
                                           buffer(p, BufferKind::Output).total_bytes +
                                           buffer(p, BufferKind::Weight).total_bytes;
            if (required > 2000000000ULL) return reject(why, "workspace above 2 GB (WORKAROUND_SWDEV_203031)");
        }
        // :519-524: the workspace offsets are ints.
        const std::uint64_t type_size = p.IsFp32() ? 4 : 2;
        if (buffer(p, BufferKind::Input).total_bytes / type_size + buffer(p, BufferKind::Output).total_bytes / type_size >=
            (1ULL << 31))
            return reject(why, "workspace offsets beyond int");
        // :528-535
        const std::uint64_t input_stack = 4ULL * p.GetInWidth() * p.GetInHeight() * p.GetInChannels();
        if (!(input_stack < (1ULL << 24))) return reject(why, "input stack of 2^24 bytes or more");
        // :537-555
        const long limit = 1L << 24;
        const bool ok = p.GetWeightsWidth() == data_w_ && p.GetWeightsHeight() == data_h_ &&
                        (p.GetKernelStrideW() == 1 ||
                         (p.GetKernelStrideW() == 2 && p.GetWeightsHeight() == 3 && p.GetWeightsWidth() == 3)) &&
                        p.GetKernelStrideH() == p.GetKernelStrideW() && p.GetDilationW() == 1 && p.GetDilationH() == 1 &&
                        p.GetBatchSize() < limit && p.GetInChannels() < limit && p.GetOutChannels() < limit &&
                        p.GetInHeight() < limit && p.GetInWidth() < limit && p.GetBias() == 0 &&
                        p.GetInLayout() == "NCHW" && p.GetGroupCount() == 1;
        return ok || reject(why, "weights not the data tile, or stride, dilation, sizes, bias, groups");
    }
    std::string_view missing_kernels_reason() const override {
        return "not a WrW FP32/FP16/BF16 problem on gfx8/gfx9 (not gfx94x) without xnack (:480-493)";
    }

    // The transforms' options are the instance's sizes, the stride's and buf_type, the data
    // type's (:145-158, :252-264, :327-339): the same problem in each type MIOpen takes gives
    // every key of the instance at that stride.
    std::vector<SolverKernel> table_kernels(const ConvView& p, const SolverContext& ctx) const override {
        std::vector<SolverKernel> out;
        for (const char* type : {"FP32", "FP16", "BF16"}) {
            ConvProblem variant = p.p;
            variant.data_types = type;
            const ConvView view{variant};
            if (!applicable(view, ctx, nullptr)) continue;
            for (auto& kernel : kernels(view, ctx)) out.push_back(std::move(kernel));
        }
        return out;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!p.IsDirectionBackwardWrW() || !(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return {};
        // The transforms are GCN assembly: inst_wrappers.inc rejects other ISAs.
        const std::string_view name = ctx.target.name();
        if (!(name.starts_with("gfx8") || name.starts_with("gfx9")) || name.starts_with("gfx94") ||
            ctx.target.miopen_xnack().value_or(false))
            return {};
        const long stride_h = p.GetKernelStrideH(), stride_w = p.GetKernelStrideW();
        const long xform_h = xform_size_h(p), xform_w = xform_size_w(p);
        const std::string head = defsym("acc_type", 1) + defsym("buf_type", p.IsFp32() ? 1 : p.IsFp16() ? 2 : 3) +
                                 defsym("ROCM_METADATA_VERSION", 5);
        const std::string sizes = defsym("xformx_o_size", data_w_) + defsym("xformy_o_size", data_h_) +
                                  defsym("xformx_d_size", xform_w) + defsym("xformy_d_size", xform_h) +
                                  defsym("xformx_f_size", filter_w_) + defsym("xformy_f_size", filter_h_) +
                                  defsym("fdilation_w", stride_w) + defsym("fdilation_h", stride_h);
        const std::string rne = defsym("MIOPEN_USE_RNE_BFLOAT16", 1);
        return {{"xform_data.s", {"miopenGcnAsmWinogradXformData" + suffix_}, head + sizes + rne},
                {"xform_filter.s", {"miopenGcnAsmWinogradXformFilter" + suffix_}, head + rne + sizes},
                {"xform_out.s", {"miopenGcnAsmWinogradXformOut" + suffix_}, head + rne + sizes}};
    }

private:
    static constexpr long kWaveSize = 64;        // solvers.hpp:67
    static constexpr long kGroupCountMult = 4;   // GetGroupCountMult

    // GetSolverWinoXformHWSize (solvers.hpp:2145-2155).
    long xform_size_h(const ConvView& p) const { return data_h_ + (filter_h_ - 1) * (data_h_ == 7 ? 2 : p.GetKernelStrideH()); }
    long xform_size_w(const ConvView& p) const { return data_w_ + (filter_w_ - 1) * (data_w_ == 7 ? 2 : p.GetKernelStrideW()); }

    // WinogradBufferInfo(N, K, C, out_H, out_W, R, S, ...) with DEFINE_SHADER_ALIASES' names:
    // C batch, N output channels, K input channels, out_H x out_W the weights, R x S the input.
    WinoBuffer buffer(const ConvView& p, BufferKind kind) const {
        const std::uint64_t n = p.GetOutChannels(), k = p.GetInChannels(), c = p.GetBatchSize();
        const std::uint64_t out_hw[2] = {static_cast<std::uint64_t>(p.GetWeightsHeight()),
                                         static_cast<std::uint64_t>(p.GetWeightsWidth())};
        const std::uint64_t wei_hw[2] = {static_cast<std::uint64_t>(p.GetInHeight()),
                                         static_cast<std::uint64_t>(p.GetInWidth())};
        const std::uint64_t data_tile[2] = {static_cast<std::uint64_t>(data_h_), static_cast<std::uint64_t>(data_w_)};
        const std::uint64_t filter_tile[2] = {static_cast<std::uint64_t>(filter_h_), static_cast<std::uint64_t>(filter_w_)};
        const std::uint64_t xtile[2] = {static_cast<std::uint64_t>(xform_size_h(p)),
                                        static_cast<std::uint64_t>(xform_size_w(p))};
        std::uint64_t data_hw[2], filter_tiles[2];
        for (int i = 0; i < 2; ++i) {
            data_hw[i] = xtile[i] * ((out_hw[i] + data_tile[i] - 1) / data_tile[i]);
            filter_tiles[i] = (wei_hw[i] + filter_tile[i] - 1) / filter_tile[i];
        }
        // wino_c is an int there and BuffInfo keeps it as unsigned int.
        const std::uint32_t wino_c = static_cast<std::uint32_t>(c * filter_tiles[0] * filter_tiles[1]);
        const std::uint64_t element = p.IsFp32() ? 4 : 2;  // GetTypeSize(GetInDataType())
        switch (kind) {
            case BufferKind::Input: return {wino_c, n * wino_c * data_hw[0] * data_hw[1] * element};
            case BufferKind::Weight: return {wino_c, k * wino_c * xtile[0] * xtile[1] * element};
            case BufferKind::Output:
                return {static_cast<std::uint32_t>(k), n * k * data_hw[0] * data_hw[1] * element};
        }
        return {};
    }

    // InTransform::IsApplicable (:89-130), past its gfx8 test.
    bool in_transform_applicable(const ConvView& p, const SolverContext& ctx) const {
        const long u16 = 1L << 16;
        const long xh = xform_size_h(p), xw = xform_size_w(p);
        const std::uint64_t tiles_per_wave = kWaveSize / (xh > xw ? xh : xw);
        const std::uint64_t chw_step = tiles_per_wave * ctx.target.compute_units * kGroupCountMult;
        return p.GetOutHeight() < u16 && p.GetOutWidth() < u16 && buffer(p, BufferKind::Input).size_c < (1U << 30) &&
               p.GetOutChannels() < u16 && chw_step < static_cast<std::uint64_t>(u16) && p.GetPadH() <= 3 &&
               p.GetPadW() <= 3;
    }
    // FilterTransform::IsApplicable (:196-236). Its tiles_per_wave reads
    // `wave_size / xh > xw ? xh : xw`: the division binds first, so this is a choice
    // between xh and xw, not a quotient; kept as MIOpen computes it. The buffer it
    // tests is the Input one, as there.
    bool filter_transform_applicable(const ConvView& p, const SolverContext& ctx) const {
        const long u16 = 1L << 16;
        const long xh = xform_size_h(p), xw = xform_size_w(p);
        const std::uint64_t tiles_per_wave = (kWaveSize / xh > xw) ? xh : xw;
        const std::uint64_t chw_step = tiles_per_wave * ctx.target.compute_units * kGroupCountMult;
        return p.GetOutHeight() < u16 && p.GetOutWidth() < u16 && buffer(p, BufferKind::Input).size_c < (1U << 30) &&
               p.GetInChannels() < u16 && chw_step < static_cast<std::uint64_t>(u16) && p.GetPadH() <= 3 &&
               p.GetPadW() <= 3;
    }

    int data_h_, filter_h_, data_w_, filter_w_;
    std::string name_, suffix_;
};

const bool registered = [] {
    const int variants[][4] = {{3, 2, 3, 2}, {3, 3, 3, 3}, {3, 4, 3, 4}, {3, 5, 3, 5}, {3, 6, 3, 6},
                               {7, 2, 7, 2}, {7, 3, 7, 3}, {1, 1, 7, 2}, {1, 1, 7, 3}, {7, 2, 1, 1},
                               {7, 3, 1, 1}, {5, 3, 5, 3}, {5, 4, 5, 4}};
    for (const auto& v : variants) register_solver(std::make_unique<ConvWinograd3x3MultipassWrW>(v[0], v[1], v[2], v[3]));
    return true;
}();

}  // namespace

}  // namespace kdbgen
