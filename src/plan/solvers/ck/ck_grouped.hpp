// The composable-kernel (CK) convolution solvers whose invokers run MIOpen's
// own kernels around the CK instance (implicitgemm_ck_util.hpp, MIOpen 3.3.0
// develop 2d1fd997; the rocm-6.3 branch 219c1776 is the same there):
//
// - NCHW/NCDHW problems: InitInvokerFactoryNCHW (:637-794) puts four batched
//   transposes into the solution's construction_params (:481-501), every one
//   whatever its shape (no IsSkippable, unlike the GTC solvers), compiled when
//   the solution is prepared (src/conv/solver_finders.cpp:257-260; in Find by
//   PrecompileSolutions, :348-358): all in batched_transpose.cpp, no options, so
//   one kdb key per target.
// - NHWC/NDHWC backward weights: the invoker zeroes dw with SetTensor when
//   alpha is 1 and beta 0 (:868-873; Find and frameworks pass those,
//   convolutionocl.cpp:1090), MIOpenSubTensorOpWithScalarKernel.cl.
// - NHWC/NDHWC forward and backward data: the CK instance alone (:890-909):
//   nothing for a kdb.
//
// Applicability: MIOpen asks CK (IsCKApplicable, :158-168: any instance whose
// IsSupportedArgument takes the problem) last, after problem- and device-level
// checks kdbgen can decide. The instance tables are in the CK library, not in
// the tree, so applicable() is those checks and applicability_modelled() is
// false: a find-db line naming the solver stands in for CK's part, and a
// problem without a record is planned where the checks hold (at most one
// transpose key and a SetTensor key too many where CK would say no).
#pragma once

#include "kdbgen/solver.hpp"

#include <string_view>

namespace kdbgen::ck {

struct CkSolverSpec {
    std::string_view name;         // SolverDbId (src/include/miopen/conv/solvers.hpp)
    ConvDirection direction;
    unsigned spatial_dims = 2;     // Is2d / Is3d
    bool rejects_casted = false;   // IsTensorsCasted in IsApplicable
    bool needs_fp8_casts = false;  // the F16F8F16 solvers: FP16 with FP8/BF8 casts, NHWC only
    std::string_view is_applicable;  // MIOpen file:lines of IsApplicable
};

class CkGroupedSolver : public Solver {
public:
    explicit CkGroupedSolver(CkSolverSpec spec) : spec_(spec) {}
    std::string_view name() const override { return spec_.name; }
    bool dynamic() const override { return true; }  // IsDynamic: solvers.hpp:4310-5117
    bool composable_kernel() const override { return true; }
    bool applicability_modelled() const override { return false; }
    std::string_view missing_kernels_reason() const override {
        return "the batched-transpose tile lists are read from the MIOpen tree, and none is given";
    }
    std::optional<std::string> kernels_in_library(const ConvView& p) const override;
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override;
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override;

private:
    CkSolverSpec spec_;
};

// ck_utility::is_ck_whitelist (src/include/miopen/solver/ck_utility_common.hpp:72-77): gfx908,
// gfx90a, gfx940, gfx941, gfx942.
bool ck_whitelisted(const Target& target);

}  // namespace kdbgen::ck
