// ConvAsm5x10u2v2f1: forward FP32 assembly convolution for 10-wide, 5-high
// filters with stride 2 (DeepSpeech's first layer), padding up to 5. The
// image size, channels and padding are assembled in as -defsym values.
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_5x10u2v2f1.cpp (rocm-6.2.0
// src/solver/conv_asm_5x10u2v2f1.cpp, same lines):
//   :43-110   IsApplicable (MIOPEN_DEBUG_CONV_DIRECT_ASM_5X10U2V2 is on unless disabled)
//   :117-158  GetSolution: the defsyms in order (:128-136)
#include "asm_fixed_direct.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

class ConvAsm5x10u2v2f1 : public Solver {
public:
    std::string_view name() const override { return "ConvAsm5x10u2v2f1"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!asm_fixed_direct::common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        // The image plus padding must not be smaller than the filter; the maxima were found by experiment.
        const long min_in_width = p.GetWeightsWidth() - p.GetPadW() * 2;
        const long min_in_height = p.GetWeightsHeight() - p.GetPadH() * 2;
        const bool ok = 0 <= p.GetPadW() && p.GetPadW() <= 5 && 0 <= p.GetPadH() && p.GetPadH() <= 5 &&
                        p.GetKernelStrideW() == 2 && p.GetKernelStrideH() == 2 && p.GetWeightsWidth() == 10 &&
                        p.GetWeightsHeight() == 5 && p.GetDilationW() == 1 && p.GetDilationH() == 1 &&
                        p.GetInChannels() >= 1 && p.GetOutChannels() % 16 == 0 && p.GetOutChannels() >= 1 &&
                        p.GetInWidth() >= min_in_width && p.GetInWidth() <= 8192 - 1 &&
                        p.GetInHeight() >= min_in_height && p.GetInHeight() <= 131077 - 1 && p.IsFp32() &&
                        p.GetGroupCount() == 1 && p.GetInLayout() == "NCHW";
        return ok || reject(why, "not a 5x10 stride-2 FP32 forward within the size limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        return {{"conv5x10u2v2f1.s",
                 {"miopenConv5x10u2v2f1"},
                 fmt::format(" -Wa,-defsym,inp_h={} -Wa,-defsym,inp_w={} -Wa,-defsym,wei_c={} -Wa,-defsym,wei_k={}"
                             " -Wa,-defsym,wei_layout=0 -Wa,-defsym,pad_w={} -Wa,-defsym,pad_h={}"
                             " -Wa,-defsym,ROCM_METADATA_VERSION=5",
                             p.GetInHeight(), p.GetInWidth(), p.GetInChannels(), p.GetOutChannels(), p.GetPadW(),
                             p.GetPadH())}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm5x10u2v2f1)

}  // namespace kdbgen
