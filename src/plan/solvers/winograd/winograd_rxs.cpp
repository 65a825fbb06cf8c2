// ConvBinWinogradRxS: the older Winograd assembly kernels (gfx803/gfx900/
// gfx906/gfx908), conv_3x3_wheel_alpha_v9_0_15 and the v13/v14/v16 families.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_bin_winoRxS.cpp:
//   :56-160   IsShaderContraintsMet (filter tile 3 for fwd/bwd, 2 for WrW)
//   :166-271  IsApplicable
//   :273-331  GetSolution: ROCM_METADATA_VERSION 5 (code object v3+), kernel file by type/direction/stride
// rocm-6.2.0 (MIOpen 3.2.0) src/solver/conv_bin_winoRxS.cpp: the same lines.
#include "kdbgen/solver.hpp"

#include <cmath>

namespace kdbgen {

namespace {

int ceiling(int v, int m) { return v % m != 0 ? (v / m + 1) * m : v; }
int ceil_div(int x, int y) { return ceiling(x, y) / y; }

bool shader_constraints(const ConvView& p, int R, int S, int R_stride, int S_stride, int C, int K, int H, int W,
                        int OH, int OW, int N, bool fp16, int tile, unsigned n_cu) {
    const int tile_x2 = tile * 2;
    const int padded_S = (S_stride == 1 && S <= tile) ? tile : ceiling(S, tile_x2);
    int padded_R = 0;
    if (R_stride == 1) padded_R = ceiling(R, tile);
    else padded_R = R % tile_x2 == 1 ? ceiling(R, tile) : ceiling(R, tile_x2);
    if (fp16 && C % 2 != 0) return false;
    if (S_stride == 1 && S <= tile && C % (fp16 ? 4 : 2) != 0) return false;
    const bool dilated_stride_2 = p.IsDirectionBackwardData() && S_stride != 1;
    if (fp16) {
        if (dilated_stride_2) {
            if (C % 4 != 0) return false;
            const int k = ceil_div(R, tile_x2) + (R + tile + 1) / tile_x2;
            const int l = ceil_div(S, tile_x2);
            if (C * k * l < 18 * 2) return false;
        }
        if (padded_R * padded_S * C < tile * tile * 18 * 2) return false;
    } else {
        if (dilated_stride_2 && (!(R > 1) || C % 2 != 0)) return false;
        const int k = padded_R / tile;
        const int l = padded_S / (dilated_stride_2 ? tile_x2 : tile);
        if (k * l * C < 18) return false;
    }
    if (p.IsDirectionBackwardData() || p.IsDirectionBackwardWrW()) {
        if (!(0 <= p.GetBackwardPadW() && p.GetBackwardPadW() < std::pow(2, 16))) return false;
        if (!(0 <= p.GetBackwardPadH() && p.GetBackwardPadH() < std::pow(2, 16))) return false;
    }
    if (!p.IsLayoutDefault()) return false;
    const double l16 = std::pow(2, 16);
    return N < l16 && C < l16 && K < l16 && H < l16 && W < l16 && OH < l16 && OW < l16 && p.GetPadW() < l16 &&
           p.GetPadH() < l16 && S < l16 && R < l16 && n_cu < l16 && double(C) * H * W <= std::pow(2, 28) &&
           double(OH) * OW <= std::pow(2, 23) && double(K) * OH * OW <= std::pow(2, 28) &&
           double(K) * R * S <= std::pow(2, 28) && double(C) * R * S <= std::pow(2, 28);
}

class ConvBinWinogradRxS : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1830
    bool winograd() const override { return true; }
    std::string_view name() const override { return "ConvBinWinogradRxS"; }
    bool uses_compute_units() const override { return true; }  // the shader constraints read the CU count

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!(p.IsFp32() || p.IsFp16())) return reject(why, "data type is not FP32 or FP16");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (p.IsDirectionBackwardWrW() && !(p.IsFp32() && p.GetKernelStrideW() == 1 && p.GetKernelStrideH() == 1))
            return reject(why, "WrW is FP32 with stride 1 only");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        if (p.IsFp16()) {
            if (!(name == "gfx906" || name == "gfx908")) return reject(why, "FP16 only on gfx906/gfx908");
        } else if (p.IsDirectionBackwardWrW()) {
            if (!(name == "gfx900" || name == "gfx906" || name == "gfx908")) return reject(why, "WrW only on gfx900/906/908");
        } else if (!(name == "gfx803" || name == "gfx900" || name == "gfx906" || name == "gfx908")) {
            return reject(why, "only on gfx803/900/906/908");
        }
        if (!(p.GetKernelStrideW() <= 2 && p.GetKernelStrideW() == p.GetKernelStrideH() && p.GetDilationW() == 1 &&
              p.GetDilationH() == 1 && p.GetBias() == 0 && p.GetGroupCount() == 1 && p.GetInLayout() == "NCHW"))
            return reject(why, "stride, dilation, bias, groups or layout");
        const auto n_cu = ctx.target.compute_units;
        const bool fp16 = p.IsFp16();
        bool ok = false;
        if (p.IsDirectionBackwardWrW()) {
            ok = shader_constraints(p, p.GetInHeight(), p.GetInWidth(), p.GetDilationH(), p.GetDilationW(),
                                    p.GetBatchSize(), p.GetInChannels(), p.GetOutHeight(), p.GetOutWidth(),
                                    p.GetWeightsHeight(), p.GetWeightsWidth(), p.GetOutChannels(), fp16, 2, n_cu);
        } else {
            ok = shader_constraints(p, p.GetWeightsHeight(), p.GetWeightsWidth(), p.GetKernelStrideH(),
                                    p.GetKernelStrideW(), p.GetInChannels(), p.GetOutChannels(), p.GetInHeight(),
                                    p.GetInWidth(), p.GetOutHeight(), p.GetOutWidth(), p.GetBatchSize(), fp16, 3, n_cu);
        }
        return ok || reject(why, "shader constraints not met");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const std::string options = generate_defines({{"ROCM_METADATA_VERSION", "5"}}, "Wa,-defsym,");
        std::string file, symbol = "miopenSp3AsmConvRxSU";
        if (p.IsFp16()) {
            // MIOPEN_DEBUG_SRAM_EDC_DISABLED unset: v14_3_3.
            file = "Conv_Winograd_v14_3_3_fp16dot_stride";
            if (p.GetKernelStrideW() == 2) file += p.IsDirectionForward() ? "2_dec" : "2_dil";
            else file += "1";
        } else if (p.IsDirectionBackwardWrW()) {
            symbol = "miopenSp3AsmConvRxSf3x2";
            file = "Conv_Winograd_v16_5_0_stride1";
        } else {
            file = "conv_3x3_wheel_alpha_v9_0_15";
            if (p.GetKernelStrideW() == 2) file += p.IsDirectionForward() ? "_stride_2_dec" : "_stride_2_dil";
        }
        return {{file + ".s", {symbol}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvBinWinogradRxS)

}  // namespace kdbgen
