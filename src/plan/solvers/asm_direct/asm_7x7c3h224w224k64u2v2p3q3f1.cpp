// ConvAsm7x7c3h224w224k64u2v2p3q3f1: the hand-written assembly for exactly
// one layer, ResNet/VGG's first (3 -> 64 channels, 224x224, 7x7, stride 2,
// padding 3), forward FP32. Its only option is the metadata version.
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_7x7c3h224w224k64u2v2p3q3f1.cpp (rocm-6.2.0
// src/solver/conv_asm_7x7c3h224w224k64u2v2p3q3f1.cpp, same lines):
//   :44-101   IsApplicable (MIOPEN_DEBUG_CONV_DIRECT_ASM_7X7C3H224W224 is on unless disabled)
//   :103-135  GetSolution: GenerateClangDefsym(ROCM_METADATA_VERSION, 5) (:114-117)
#include "asm_fixed_direct.hpp"

namespace kdbgen {

namespace {

class ConvAsm7x7c3h224w224k64u2v2p3q3f1 : public Solver {
public:
    std::string_view name() const override { return "ConvAsm7x7c3h224w224k64u2v2p3q3f1"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!asm_fixed_direct::common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        const bool ok = p.GetPadW() == 3 && p.GetPadH() == 3 && p.GetKernelStrideW() == 2 &&
                        p.GetKernelStrideH() == 2 && p.GetWeightsWidth() == 7 && p.GetWeightsHeight() == 7 &&
                        p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetInChannels() == 3 &&
                        p.GetOutChannels() == 64 && p.GetInWidth() == 224 && p.GetInHeight() == 224 && p.IsFp32() &&
                        p.GetGroupCount() == 1 && p.GetInLayout() == "NCHW";
        return ok || reject(why, "not the 3x224x224 -> 64, 7x7 stride 2 pad 3 FP32 layer");
    }

    std::vector<SolverKernel> kernels(const ConvView&, const SolverContext&) const override {
        return {{"conv7x7c3h224w224k64u2v2p3q3f1.s",
                 {"miopenGcnAsmConv7x7c3h224w224k64u2v2p3q3f1"},
                 " -Wa,-defsym,ROCM_METADATA_VERSION=5"}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm7x7c3h224w224k64u2v2p3q3f1)

}  // namespace kdbgen
