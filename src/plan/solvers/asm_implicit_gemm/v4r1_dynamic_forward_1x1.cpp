// ConvAsmImplicitGemmV4R1DynamicFwd_1x1: the 1x1-filter kernels of
// igemm_v4r1_dynamic.s (the same file and key as
// ConvAsmImplicitGemmV4R1DynamicFwd; the symbols are the igemm_v4r1_1x1_dynamic_* ones).
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_implicit_gemm_v4r1_dynamic.cpp (rocm-6.2.0
// src/solver/conv_asm_implicit_gemm_v4r1_dynamic.cpp, same lines):
//   :332-376  IsApplicable (no cast or packing check; 1x1 filter;
//             MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_FWD_V4R1_1X1 is on unless disabled)
//   :378-427  GetSolutionBase;  :447-464 GetSolution
#include "v4r1_dynamic_common.hpp"

namespace kdbgen {

namespace {

class ConvAsmImplicitGemmV4R1DynamicFwd_1x1 : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1660
    std::string_view name() const override { return "ConvAsmImplicitGemmV4R1DynamicFwd_1x1"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!igemm_v4r1::common_checks(p, ctx, ConvDirection::Forward, false, why)) return false;
        if (p.GetWeightsHeight() != 1 || p.GetWeightsWidth() != 1) return reject(why, "not a 1x1 filter");
        return igemm_v4r1::forward_kernel(p, igemm_v4r1::ForwardKernel::OneByOne).has_value() ||
               reject(why, "no tunable is valid");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto symbol = igemm_v4r1::forward_kernel(p, igemm_v4r1::ForwardKernel::OneByOne);
        if (!symbol) return {};
        return {{"igemm_v4r1_dynamic.s", {*symbol}, igemm_v4r1::kOptions}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmV4R1DynamicFwd_1x1)

}  // namespace kdbgen
