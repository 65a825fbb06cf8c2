// ConvAsm5x10u2v2b1: the backward-data counterpart of ConvAsm5x10u2v2f1,
// without padding; it is assembled for dx's size (the problem's Out) and the
// channels swapped (dy is In).
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_5x10u2v2b1.cpp (rocm-6.2.0
// src/solver/conv_asm_5x10u2v2b1.cpp, same lines):
//   :43-109   IsApplicable (MIOPEN_DEBUG_CONV_DIRECT_ASM_5X10U2V2 is on unless disabled)
//   :111-141  GetSolution: the defsyms in order (:115-120)
#include "asm_fixed_direct.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

class ConvAsm5x10u2v2b1 : public Solver {
public:
    std::string_view name() const override { return "ConvAsm5x10u2v2b1"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!asm_fixed_direct::common_checks(p, ctx, ConvDirection::BackwardData, why)) return false;
        const bool ok = p.GetPadW() == 0 && p.GetPadH() == 0 && p.GetKernelStrideW() == 2 &&
                        p.GetKernelStrideH() == 2 && p.GetWeightsWidth() == 10 && p.GetWeightsHeight() == 5 &&
                        p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetOutChannels() % 16 == 0 &&
                        p.GetInChannels() >= 16 && p.GetOutWidth() >= 138 && p.GetOutWidth() <= 8192 - 1 &&
                        p.GetOutHeight() >= 16 && p.GetOutHeight() <= 131077 - 1 && p.IsFp32() &&
                        p.GetGroupCount() == 1 && p.p.out_layout == "NCHW";
        return ok || reject(why, "not an unpadded 5x10 stride-2 FP32 backward within the size limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        return {{"conv5x10u2v2b1.s",
                 {"miopenConv5x10u2v2b1"},
                 fmt::format(" -Wa,-defsym,inp_h={} -Wa,-defsym,inp_w={} -Wa,-defsym,wei_c={} -Wa,-defsym,wei_k={}"
                             " -Wa,-defsym,ROCM_METADATA_VERSION=5",
                             p.GetOutHeight(), p.GetOutWidth(), p.GetOutChannels(), p.GetInChannels())}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm5x10u2v2b1)

}  // namespace kdbgen
