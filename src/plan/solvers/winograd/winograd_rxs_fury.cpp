// ConvBinWinogradRxSf2x3, ConvBinWinogradRxSf3x2, ConvBinWinogradRxSf2x3g1:
// the v21 (gfx900/gfx906) and v30 Winograd assembly kernels.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_winoRxS.cpp:
//   :55, :69, :77    WORKAROUND_ISSUE_1681 0, _2492_GRANULARITY_LOSS 0, _2492_TINY_TENSOR 1
//   :210-214         IsWinogradV21Preferred
//   :216-321         IsShaderConstraintsMet(V21|V30)
//   :657-758         IsApplicableBase;  :761-779 IsApplicable;  :1141-1147 f2x3g1
//   :845-915         GetSolution: options, kernel file and name
// rocm-6.2.0 (MIOpen 3.2.0) src/solver/conv_winoRxS.cpp has the same lines
// for everything this file reproduces.
#include "kdbgen/solver.hpp"

#include <cmath>

namespace kdbgen {

namespace {

bool starts(std::string_view name, std::string_view prefix) { return name.starts_with(prefix); }

class WinogradRxSFury : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1888 (ConvBinWinoRxS<>), :1924 (f2x3g1)
    bool winograd() const override { return true; }
    WinogradRxSFury(int data, int filter, bool g1) : data_(data), filter_(filter), g1_(g1) {}

    bool is2x3() const { return data_ == 2 && filter_ == 3; }
    bool is3x2() const { return data_ == 3 && filter_ == 2; }

    bool v21_preferred(std::string_view asic, const ConvView& p) const {
        return (starts(asic, "gfx900") || starts(asic, "gfx906")) && !(is3x2() && p.GetKernelStrideW() == 2);
    }

    static bool constraints_v21(const ConvView& p, double R, double S, double C, double K, double H, double W,
                                double OH, double OW, double N) {
        const std::uint64_t o_K_stride = static_cast<std::uint64_t>(OH) * static_cast<std::uint64_t>(OW);
        const std::uint64_t o_N_stride = o_K_stride * static_cast<std::uint64_t>(K);
        const std::uint64_t o_N_stride_OHOW = o_N_stride + o_K_stride;
        const std::uint64_t d_C_stride = static_cast<std::uint64_t>(H) * static_cast<std::uint64_t>(W);
        const std::uint64_t d_N_stride = d_C_stride * static_cast<std::uint64_t>(C);
        const std::uint64_t d_N_stride_HW = d_N_stride + d_C_stride;
        const auto ceil = [](double v, double m) { return std::ceil(v / m); };
        const auto num_tiles = static_cast<long>(ceil(OH, 2) * ceil(OW, 2));
        const bool stride_one = p.GetKernelStrideH() == 1 && p.GetKernelStrideW() == 1 && p.GetDilationH() == 1 &&
                                p.GetDilationW() == 1;
        const double l16 = std::pow(2, 16);
        return N < l16 && C < l16 && H < l16 && W < l16 && K < l16 && S < l16 && R < l16 && OH < l16 && OW < l16 &&
               p.GetPadW() < l16 && p.GetPadH() < l16 && C * R * S < std::pow(2, 22) && K * R * S < std::pow(2, 28) &&
               ((o_N_stride_OHOW < std::pow(2, 29) && d_N_stride_HW < std::pow(2, 29)) ||
                (stride_one && o_N_stride < std::pow(2, 30) && d_N_stride < std::pow(2, 30) &&
                 (N == 1 || num_tiles % 16 == 0)));
    }

    static bool constraints_v30(const ConvView& p, double R, double S, double C, double K, double H, double W,
                                double OH, double OW, double N) {
        const double l16 = std::pow(2, 16);
        return N < l16 && C < l16 && H < l16 && W < l16 && K < l16 && S < l16 && R < l16 && OH < l16 && OW < l16 &&
               p.GetPadW() < l16 && p.GetPadH() < l16 && H * W < std::pow(2, 29) && K * R * S < std::pow(2, 28) &&
               (C + 1) * H * W < std::pow(2, 30) && (C + 1) * R * S < std::pow(2, 22) &&
               (K + 1) * OH * OW < std::pow(2, 30);
    }

    bool constraints(const ConvView& p, double R, double S, double C, double K, double H, double W, double OH,
                     double OW, double N, std::string_view asic) const {
        if (p.IsDirectionBackwardData()) {
            if (!(0 <= p.GetBackwardPadW() && p.GetBackwardPadW() < std::pow(2, 16))) return false;
            if (!(0 <= p.GetBackwardPadH() && p.GetBackwardPadH() < std::pow(2, 16))) return false;
        }
        if (!p.IsLayoutDefault()) return false;
        return v21_preferred(asic, p) ? constraints_v21(p, R, S, C, K, H, W, OH, OW, N)
                                      : constraints_v30(p, R, S, C, K, H, W, OH, OW, N);
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // IsApplicable (:764-772): with WORKAROUND_ISSUE_1681 at 0, f2x3 leaves ungrouped
        // forward and backward-data problems to f2x3g1 (:1141-1147), which takes only those.
        if (g1_ && p.GetGroupCount() != 1) return reject(why, "f2x3g1 takes ungrouped convolutions only");
        if (!g1_ && is2x3() && p.GetGroupCount() == 1 && !p.IsDirectionBackwardWrW())
            return reject(why, "ungrouped forward/backward-data is f2x3g1's");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!(p.IsFp32() || p.IsFp16())) return reject(why, "data type is not FP32 or FP16");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        if (!(starts(name, "gfx9") || starts(name, "gfx10") || starts(name, "gfx11"))) return reject(why, "not gfx9/gfx10/gfx11");
        if (p.IsFp16() && !(starts(name, "gfx906") || starts(name, "gfx908") || starts(name, "gfx90a") ||
                            starts(name, "gfx94") || starts(name, "gfx1011") || starts(name, "gfx1012") ||
                            starts(name, "gfx103") || starts(name, "gfx11")))
            return reject(why, "FP16 not on this target");
        if (name == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt required (:687-688)");
        if (!((p.GetKernelStrideW() == 1 || p.GetKernelStrideW() == 2) && p.GetKernelStrideW() == p.GetKernelStrideH() &&
              p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetBias() == 0 && p.GetInLayout() == "NCHW"))
            return reject(why, "stride, dilation, bias or layout");
        // WORKAROUND_ISSUE_2492_TINY_TENSOR (:713-722).
        if (p.GetInHeight() <= 6 && p.GetInWidth() <= 6 && p.GetBatchSize() <= 4 && p.GetInChannels() <= 4)
            return reject(why, "tiny tensor (WORKAROUND_ISSUE_2492)");
        const double in_per_group = static_cast<double>(p.GetInChannels() / p.GetGroupCount());
        const double out_per_group = static_cast<double>(p.GetOutChannels() / p.GetGroupCount());
        bool ok = false;
        if (p.IsDirectionBackwardWrW()) {
            if (p.GetKernelStrideW() == 2) return reject(why, "WrW with stride 2");
            ok = constraints(p, p.GetInHeight(), p.GetInWidth(), p.GetBatchSize(), in_per_group, p.GetOutHeight(),
                             p.GetOutWidth(), p.GetWeightsHeight(), p.GetWeightsWidth(), out_per_group, name);
        } else {
            ok = constraints(p, p.GetWeightsHeight(), p.GetWeightsWidth(), in_per_group, out_per_group, p.GetInHeight(),
                             p.GetInWidth(), p.GetOutHeight(), p.GetOutWidth(), p.GetBatchSize(), name);
        }
        return ok || reject(why, "shader constraints not met");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const std::string_view name = ctx.target.name();
        const bool is_gfx9 = starts(name, "gfx9"), is_gfx10 = starts(name, "gfx10");
        const bool is_v21 = v21_preferred(name, p);
        const bool force_cache_bypass = name == "gfx940" || name == "gfx941";
        const std::string options =
            generate_defines({{"ROCM_METADATA_VERSION", "5"}, {"FORCE_CACHE_BYPASS_ON_STORE", force_cache_bypass ? "1" : "0"}},
                             "Wa,-defsym,") +
            " -mcumode -mwavefrontsize64";
        const std::string version = is_v21 ? "_v21_1_3" : "_v30_3_1";
        std::string kernel_name = "miopenSp3AsmConv" + version + (is_gfx9 ? "_gfx9" : is_gfx10 ? "_gfx10" : "_gfx11");
        std::string kernel_file = "Conv_Winograd" + version;
        if (p.IsFp32()) {
            kernel_name += "_fp32";
            kernel_file += "_fp32";
        } else {
            kernel_name += is_gfx9 ? "_fp16_dot2_edc" : "_fp16_dot2";
            kernel_file += "_fp16_dot2";
        }
        std::string postfix = is2x3() ? "_f2x3" : "_f3x2";
        if (p.GetKernelStrideW() == 1) postfix += "_stride1";
        else if (p.GetKernelStrideW() == 2 && !p.IsDirectionBackwardData()) postfix += "_stride2";
        else postfix += "_dilation2";
        return {{kernel_file + postfix + ".s", {kernel_name + postfix}, options}};
    }

private:
    int data_, filter_;
    bool g1_;
};

class ConvBinWinogradRxSf2x3 : public WinogradRxSFury {
public:
    ConvBinWinogradRxSf2x3() : WinogradRxSFury(2, 3, false) {}
    std::string_view name() const override { return "ConvBinWinogradRxSf2x3"; }
};
class ConvBinWinogradRxSf3x2 : public WinogradRxSFury {
public:
    ConvBinWinogradRxSf3x2() : WinogradRxSFury(3, 2, false) {}
    std::string_view name() const override { return "ConvBinWinogradRxSf3x2"; }
};
class ConvBinWinogradRxSf2x3g1 : public WinogradRxSFury {
public:
    ConvBinWinogradRxSf2x3g1() : WinogradRxSFury(2, 3, true) {}
    std::string_view name() const override { return "ConvBinWinogradRxSf2x3g1"; }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvBinWinogradRxSf2x3)
KDBGEN_REGISTER_SOLVER(ConvBinWinogradRxSf3x2)
KDBGEN_REGISTER_SOLVER(ConvBinWinogradRxSf2x3g1)

}  // namespace kdbgen
