// ConvWinograd3x3MultipassWrW<DataH-FilterH[-DataW-FilterW]>: weights
// gradient as three assembly transforms (xform_data.s, xform_filter.s,
// xform_out.s) around a rocBLAS GEMM. The transforms' options depend only on
// the tile sizes, the stride and the data type. Planned from the find-db only:
// whether MIOpen takes it depends on workspace sizes (WinogradBufferInfo,
// WORKAROUND_SWDEV_203031's 2 GB limit on gfx900/gfx906) that kdbgen does not
// model, so `--solvers applicable` leaves it out.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_multipass_wino3x3WrW.cpp
// (same in rocm-6.2.0, src/solver/conv_multipass_wino3x3WrW.cpp):
//   :140-168  InTransform::GetKernel options;  :247-272 FilterTransform;  :322-348 OutTransform
//   :733-749  GetSolution: data, filter, out
//   src/include/miopen/conv/solvers.hpp:2122-2155  file and kernel names, GetSolverWinoXformHWSize
//   src/include/miopen/conv/solvers.hpp:2169-2181  the instantiations; src/CMakeLists.txt:41 RNE bfloat16 ON
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kdbgen {

namespace {

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

class ConvWinograd3x3MultipassWrW : public Solver {
public:
    ConvWinograd3x3MultipassWrW(int data_h, int filter_h, int data_w, int filter_w)
        : data_h_(data_h), filter_h_(filter_h), data_w_(data_w), filter_w_(filter_w) {
        name_ = data_w == data_h && filter_w == filter_h
                    ? fmt::format("ConvWinograd3x3MultipassWrW<{}-{}>", data_h, filter_h)
                    : fmt::format("ConvWinograd3x3MultipassWrW<{}-{}-{}-{}>", data_h, filter_h, data_w, filter_w);
        suffix_ = fmt::format("_{}_{}_{}_{}", data_h, data_w, filter_h, filter_w);
    }
    std::string_view name() const override { return name_; }
    bool applicability_modelled() const override { return false; }
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        const int data = std::max(data_h_, data_w_), filter = std::max(filter_h_, filter_w_);
        const std::string_view device = ctx.target.name();
        if (p.IsFp16() && (device.starts_with("gfx906") || device.starts_with("gfx908")) && data == 3 && filter >= 4)
            return fmt::format("WORKAROUND_SWDEV_234193: FP16 F3x{} off on gfx906/gfx908 unless "
                               "MIOPEN_DEBUG_AMD_WINOGRAD_MPASS_F3X{}=1 (conv_multipass_wino3x3WrW.cpp:43, :401-418)",
                               filter, filter);
        return std::nullopt;
    }
    bool applicable(const ConvView&, const SolverContext&, std::string* why) const override {
        return reject(why, "planned from the find-db only (workspace-dependent applicability)");
    }
    std::string_view missing_kernels_reason() const override {
        return "not a WrW FP32/FP16/BF16 problem on gfx8/gfx9 (not gfx94x) without xnack (:481-491)";
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!p.IsDirectionBackwardWrW() || !(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return {};
        // The transforms are GCN assembly: inst_wrappers.inc rejects other ISAs.
        const std::string_view name = ctx.target.name();
        if (!(name.starts_with("gfx8") || name.starts_with("gfx9")) || name.starts_with("gfx94") ||
            ctx.target.miopen_xnack().value_or(false))
            return {};
        const long stride_h = p.GetKernelStrideH(), stride_w = p.GetKernelStrideW();
        const long xform_h = data_h_ + (filter_h_ - 1) * (data_h_ == 7 ? 2 : stride_h);
        const long xform_w = data_w_ + (filter_w_ - 1) * (data_w_ == 7 ? 2 : stride_w);
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
