// ConvAsmImplicitGemmV4R1DynamicFwd: forward FP32 implicit GEMM on gfx900 and
// gfx906, igemm_v4r1_dynamic.s (every variant in one code object; the first
// of seven fixed tunables that fits picks the symbol). No helper kernels.
//
// MIOpen 3.3.0 src/solver/conv/conv_asm_implicit_gemm_v4r1_dynamic.cpp (rocm-6.2.0
// src/solver/conv_asm_implicit_gemm_v4r1_dynamic.cpp, same lines):
//   :283-330  IsApplicable (MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_FWD_V4R1 is on unless disabled)
//   :378-427  GetSolutionBase: kernel file, ROCM_METADATA_VERSION;  :429-445 GetSolution
//   src/conv/invokers/impl_gemm_dynamic.hpp: the forward invoker runs only kernels[0]
#include "v4r1_dynamic_common.hpp"

namespace kdbgen {

namespace {

class ConvAsmImplicitGemmV4R1DynamicFwd : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:1644
    std::string_view name() const override { return "ConvAsmImplicitGemmV4R1DynamicFwd"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!igemm_v4r1::common_checks(p, ctx, ConvDirection::Forward, true, why)) return false;
        return igemm_v4r1::forward_kernel(p, igemm_v4r1::ForwardKernel::General).has_value() ||
               reject(why, "no tunable is valid");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto symbol = igemm_v4r1::forward_kernel(p, igemm_v4r1::ForwardKernel::General);
        if (!symbol) return {};  // MIOpen throws here: "should call IsApplicable() first"
        return {{"igemm_v4r1_dynamic.s", {*symbol}, igemm_v4r1::kOptions}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmV4R1DynamicFwd)

}  // namespace kdbgen
