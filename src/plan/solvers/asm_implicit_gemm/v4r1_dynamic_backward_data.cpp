// ConvAsmImplicitGemmV4R1DynamicBwd: backward-data FP32 implicit GEMM on gfx900
// and gfx906, igemm_bwd_gtc_dynamic.s. The kernel runs once per non-empty
// sub-GEMM of the stride/dilation tiling; when the tiles do not cover dx
// (filter smaller than the stride, or dilation) the invoker zeroes dx first
// with SetTensor, a kernel the kdb must hold as well.
//
// MIOpen 3.3.0 (rocm-6.2.0: the same code at the same lines under src/solver/):
//   src/solver/conv/conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp:42-131  FindImplicitGemmDynamicKernelBwd
//   :133-181  IsApplicable (MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_BWD_V4R1 is on unless disabled)
//   :183-221  GetSolution
//   src/conv/invokers/impl_gemm_dynamic.cpp:115-184  need_set_zero; :190-196 SetTensor(dx, 0)
//   src/ocl/tensorocl.cpp:1498-1560  SetTensor (flattened to one dimension)
#include "v4r1_dynamic_common.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

namespace kdbgen {

namespace {

// The problem as the kernel sees it: bwd reverses most dimensions (dy is In).
struct BwdShape {
    long hi, wi, n, k, c, ho, wo, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, y, x;
};

BwdShape shape(const ConvView& p) {
    return {p.GetOutHeight(),
            p.GetOutWidth(),
            p.GetBatchSize(),
            p.GetInChannels(),
            p.GetOutChannels(),
            p.GetInHeight(),
            p.GetInWidth(),
            p.GetInHeight() > 1 ? p.GetKernelStrideH() : 1,
            p.GetInWidth() > 1 ? p.GetKernelStrideW() : 1,
            p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1,
            p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1,
            p.GetPadH(),
            p.GetPadW(),
            p.GetWeightsHeight(),
            p.GetWeightsWidth()};
}

// FindImplicitGemmDynamicKernelBwd (:42-131): the symbol, or nullopt.
std::optional<std::string> find_kernel(const ConvView& p) {
    const BwdShape s = shape(p);
    const long y_tilda = s.stride_h / std::gcd(s.stride_h, s.dilation_h);
    const long x_tilda = s.stride_w / std::gcd(s.stride_w, s.dilation_w);
    const long h_tilda = s.ho + (s.dilation_h * (s.y - 1) + s.stride_h - 1) / s.stride_h;
    const long w_tilda = s.wo + (s.dilation_w * (s.x - 1) + s.stride_w - 1) / s.stride_w;
    const long h_tilda_left = std::max(0L, s.pad_h - s.dilation_h * (y_tilda - 1)) / s.stride_h;
    const long w_tilda_left = std::max(0L, s.pad_w - s.dilation_w * (x_tilda - 1)) / s.stride_w;
    const long h_tilda_right = std::min(h_tilda, (s.pad_h + s.hi - 1 + s.stride_h - 1) / s.stride_h + 1);
    const long w_tilda_right = std::min(w_tilda, (s.pad_w + s.wi - 1 + s.stride_w - 1) / s.stride_w + 1);
    const long gemm_m = s.c;
    const long gemm_n = s.n * (h_tilda_right - h_tilda_left) * (w_tilda_right - w_tilda_left);
    const bool plain_1x1 = s.y == 1 && s.x == 1 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
                           s.dilation_w == 1 && s.pad_h == 0 && s.pad_w == 0;
    if (gemm_m % 128 == 0 && gemm_n % 128 == 0 && s.k % 16 == 0) {
        if (plain_1x1 && s.n % 128 == 0)
            return "igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_16x1x1x16x1_tb1x1x1x2x4x1x1_"
                   "16x1x1x16x1x1x1";
        return "igemm_bwd_gtc";
    }
    if (plain_1x1) {
        if (gemm_m % 128 == 0 && gemm_n % 128 == 0 && s.k % 8 == 0 && (s.ho * s.wo) % 16 == 0)
            return "igemm_bwd_gtc_bt128x128x8_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x1x4_8x1x1x32x1_tb1x1x1x1x4x1x1_"
                   "8x1x1x2x1x1x16";
        if (gemm_m % 64 == 0 && gemm_n % 64 == 0 && s.k % 8 == 0 && s.n % 64 == 0)
            return "igemm_bwd_gtc_bt64x64x8_tt8x8_gm2x4x2_gn2x4x2_ta1x2x1x1x4_4x1x1x16x1_tb1x2x1x1x4x1x1_"
                   "4x1x1x16x1x1x1";
    }
    return std::nullopt;
}

class ConvAsmImplicitGemmV4R1DynamicBwd : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1718
    std::string_view name() const override { return "ConvAsmImplicitGemmV4R1DynamicBwd"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!igemm_v4r1::common_checks(p, ctx, ConvDirection::BackwardData, true, why)) return false;
        return find_kernel(p).has_value() || reject(why, "no kernel for this GEMM shape");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto symbol = find_kernel(p);
        if (!symbol) return {};  // MIOpen throws here: "should not happen!"
        std::vector<SolverKernel> out{{"igemm_bwd_gtc_dynamic.s", {*symbol}, igemm_v4r1::kOptions}};
        const BwdShape s = shape(p);
        if (s.y < s.stride_h || s.x < s.stride_w || s.dilation_h != 1 || s.dilation_w != 1)
            out.push_back(sub_tensor_op_with_scalar(false, p.GetBatchSize() * p.GetOutChannels() * s.hi * s.wi,
                                                    DataType::Float));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmV4R1DynamicBwd)

}  // namespace kdbgen
