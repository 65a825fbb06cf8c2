// GemmFwd1x1_0_1: a 1x1 forward convolution without stride or padding is one
// (strided-batched) rocBLAS GEMM on the tensors as they are; MIOpen launches
// nothing of its own, so there is nothing for a kdb.
//
// MIOpen 3.3.0 src/solver/conv/gemm.cpp (rocm-6.2.0 src/solver/gemm.cpp, same lines):
//   :638-660  IsApplicable;  :662-819 GetSolution (CallGemmStridedBatched only)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmFwd1x1_0_1 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmFwd1x1_0_1"; }
    bool builds_kernels() const override { return false; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::fwd_1x1_0_1_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView&, const SolverContext&) const override { return {}; }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmFwd1x1_0_1)

}  // namespace kdbgen
