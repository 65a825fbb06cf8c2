// fft: the FFT convolution of MIOpenConvFFT.cl for 5x5 filters with padding 2
// over 28x28, 27x27, 14x14 and 7x7 images, forward and backward data, FP32.
// Its seven kernels (five for 7x7, which skips the front transposes) are
// built from one program with one option string: MIOpen compiles and keys
// the program, so the kdb holds one record for all of them
// (Handle::AddKernel -> LoadProgram(program, params): src/hip/handlehip.cpp:536-548).
//
// MIOpen 3.3.0 src/solver/conv/fft.cpp (rocm-6.2.0 src/solver/fft.cpp, same lines):
//   :113-163  IsApplicable (target-independent; MIOPEN_DEBUG_CONV_FFT is checked by the
//             finder, src/conv/solver_finders.cpp:118-125, and is on unless disabled)
//   :165-203  GetWorkspaceSize (-DCFF_HALFW is workspace / 16)
//   :205-436  GetSolution: the option string (:264-388), the kernels (:396-436)
//   src/include/miopen/convolution_fft.hpp:33-57  TileSize, TransposePadding 64, NumKernels 7
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kdbgen {

namespace {

int tile_size(long in_h, long in_w) {
    const int n = in_h == 7 && in_w == 7 ? 12 : in_h == 14 && in_w == 14 ? 18 : 32;
    return n * (1 + n / 2);
}
constexpr long kTransposePadding = 64;

class Fft : public Solver {
public:
    std::string_view name() const override { return "fft"; }

    bool applicable(const ConvView& p, const SolverContext&, std::string* why) const override {
        if (p.IsDirectionBackwardWrW() || !p.IsFp32()) return reject(why, "backward weights or not FP32");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!p.Is2d() || p.GetGroupCount() != 1 || p.GetDilationH() != 1 || p.GetDilationW() != 1)
            return reject(why, "not 2-D, grouped or dilated");
        // x is In forward and Out backward; w is K x C.
        const bool fwd = p.IsDirectionForward();
        const long x_n = p.GetBatchSize(), x_c = fwd ? p.GetInChannels() : p.GetOutChannels();
        const long y_c = fwd ? p.GetOutChannels() : p.GetInChannels();
        const long x_h = fwd ? p.GetInHeight() : p.GetOutHeight(), x_w = fwd ? p.GetInWidth() : p.GetOutWidth();
        const long wei_k = y_c, wei_c = x_c;
        if (x_n < 1 || x_n > 512 || wei_k < 1 || wei_k > 512 || (x_c * x_n) % 16 != 0 || (wei_c * wei_k) % 16 != 0 ||
            (y_c * x_n) % 16 != 0)
            return reject(why, "sizes");
        const bool image = (x_h == 28 && x_w == 28) || (x_h == 27 && x_w == 27) || (x_h == 14 && x_w == 14) ||
                           (x_h == 7 && x_w == 7);
        if (!image) return reject(why, "image not 28x28, 27x27, 14x14 or 7x7");
        const bool ok = p.GetWeightsHeight() == 5 && p.GetWeightsWidth() == 5 && p.GetPadH() == 2 && p.GetPadW() == 2 &&
                        p.GetKernelStrideH() == 1 && p.GetKernelStrideW() == 1;
        return ok || reject(why, "not a 5x5 filter with padding 2 and stride 1");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        if (!p.Is2d()) return {};
        // GetSolution reads the problem's In side whatever the direction (:209-214).
        const long in_n = p.GetBatchSize(), in_c = p.GetInChannels(), in_h = p.GetInHeight(), in_w = p.GetInWidth();
        const long out_n = in_n, out_c = p.GetOutChannels();
        const bool i7 = in_h == 7 && in_w == 7, i14 = in_h == 14 && in_w == 14, i28 = in_h == 28 && in_w == 28,
                   i27 = in_h == 27 && in_w == 27;
        // The transposes' block width (:264-317): only the general image sizes choose.
        bool in_transpose = false, wt_transpose = false, ot_transpose = false;
        if (!i7 && !i14) {
            in_transpose = in_n * in_c >= 64 && (in_n * in_c) % 32 == 0;
            wt_transpose = out_c * in_c >= 64 && (out_c * in_c) % 32 == 0;
            ot_transpose = out_n * out_c >= 64 && (out_n * out_c) % 32 == 0;
        }
        int cgemm_choice = i28 || i14 || i7 ? 2 : i27 ? 1 : 0;  // :319-333
        if (in_n < 16 || in_c < 16 || out_c < 16) cgemm_choice = 0;
        std::string o;
        if (!in_transpose) o += " -DCFF_TRANSP_IN_MOD16=1";
        if (!wt_transpose) o += " -DCFF_TRANSP_WT_MOD16=1";
        if (!ot_transpose) o += " -DCFF_TRANSP_OT_MOD16=1";
        o += fmt::format(" -DCFF_CGEMM_CHOICE_{}=1", cgemm_choice);
        if (i28) o += " -DCFF_IMG_SZ_28_28";
        else if (i27) o += " -DCFF_IMG_SZ_27_27";
        else if (i14) o += " -DCFF_IMG_SZ_14_14";
        else if (i7) o += " -DCFF_IMG_SZ_7_7";
        o += fmt::format(" -DCFF_IMG_H={} -DCFF_IMG_W={} -DCFF_BATCH={} -DCFF_NFILTER={} -DCFF_CHANNELS={} -DCFF_HALFW={}",
                         in_h, in_w, in_n, out_c, in_c, halfw(p));
        if (!p.IsDirectionForward()) o += " -DCFF_BACKWARD";
        std::vector<std::string> symbols{"MIOpenConvFFT_fwd_in", "MIOpenConvFFT_fwd_we"};
        if (!i7) symbols.insert(symbols.end(), {"MIOpenConvFFT_transpose_in", "MIOpenConvFFT_transpose_we"});
        symbols.insert(symbols.end(), {"MIOpenConvFFT_cgemm", "MIOpenConvFFT_transpose_out", "MIOpenConvFFT_inv_out"});
        return {{"MIOpenConvFFT.cl", std::move(symbols), o}};
    }

private:
    // GetWorkspaceSize / (sizeof(float) * 2 * 2) (:165-203, :383): the tile
    // size times the larger of the two staging areas; x is In forward, Out backward.
    static long halfw(const ConvView& p) {
        const bool fwd = p.IsDirectionForward();
        const long x_n = p.GetBatchSize(), x_c = fwd ? p.GetInChannels() : p.GetOutChannels();
        const long x_h = fwd ? p.GetInHeight() : p.GetOutHeight(), x_w = fwd ? p.GetInWidth() : p.GetOutWidth();
        const long y_c = fwd ? p.GetOutChannels() : p.GetInChannels();
        const long wei = y_c * x_c + kTransposePadding;
        const long temp = fwd ? std::max(x_c * x_n + kTransposePadding + wei, x_n * y_c + kTransposePadding)
                              : std::max(x_n * y_c + kTransposePadding + wei, x_c * x_n + kTransposePadding);
        return tile_size(x_h, x_w) * temp;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(Fft)

}  // namespace kdbgen
