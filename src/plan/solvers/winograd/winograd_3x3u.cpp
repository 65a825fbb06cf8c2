// ConvBinWinograd3x3U: the 3x3 stride-1 FP32 Winograd assembly kernel of gfx8/gfx9.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_bin_wino3x3U.cpp:
//   :45-103   IsApplicable
//   :105-135  GetSolution: ROCM_METADATA_VERSION 5 (code object v3+),
//             conv_3x3_wheel_alpha_v3_0b.s (gfx8) or conv_3x3_wheel_alpha_v7_0_3b.s (gfx9)
// rocm-6.2.0 (MIOpen 3.2.0) src/solver/conv_bin_wino3x3U.cpp: the same lines.
#include "kdbgen/solver.hpp"

#include <cmath>

namespace kdbgen {

namespace {

class ConvBinWinograd3x3U : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1817
    bool winograd() const override { return true; }
    std::string_view name() const override { return "ConvBinWinograd3x3U"; }
    bool uses_compute_units() const override { return true; }  // applicability reads the CU count

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!(p.IsDirectionForward() || p.IsDirectionBackwardData())) return reject(why, "WrW");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        if (!(name == "gfx803" || name == "gfx900" || name == "gfx906" || name == "gfx908"))
            return reject(why, "only on gfx803/900/906/908");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        const double l16 = std::pow(2, 16), l28 = std::pow(2, 28);
        const double C = static_cast<double>(p.GetInChannels()), K = static_cast<double>(p.GetOutChannels());
        const double H = static_cast<double>(p.GetInHeight()), W = static_cast<double>(p.GetInWidth());
        const bool ok = p.GetPadW() == 1 && p.GetPadH() == 1 && p.GetWeightsWidth() == 3 && p.GetWeightsHeight() == 3 &&
                        p.GetKernelStrideW() == 1 && p.GetKernelStrideH() == 1 && p.GetDilationW() == 1 &&
                        p.GetDilationH() == 1 && p.GetBatchSize() < l16 && C < l16 && K < l16 && H < l16 && W < l16 &&
                        ctx.target.compute_units < l16 && C * H * W <= l28 && K * H * W <= l28 && C * 9 <= l28 &&
                        K * 9 <= l28 && p.GetInChannels() % 2 == 0 &&
                        p.GetInChannels() >= (name.starts_with("gfx8") ? 16 : 18) && p.IsFp32() &&
                        p.GetGroupCount() == 1 && p.GetInLayout() == "NCHW";
        return ok || reject(why, "not a 3x3 stride-1 pad-1 FP32 problem in the kernel's limits");
    }

    std::vector<SolverKernel> kernels(const ConvView&, const SolverContext& ctx) const override {
        const bool gfx8 = ctx.target.name().starts_with("gfx8");
        return {{gfx8 ? "conv_3x3_wheel_alpha_v3_0b.s" : "conv_3x3_wheel_alpha_v7_0_3b.s", {"miopenSp3AsmConv3x3F"},
                 generate_defines({{"ROCM_METADATA_VERSION", "5"}}, "Wa,-defsym,")}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvBinWinograd3x3U)

}  // namespace kdbgen
