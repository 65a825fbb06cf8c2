// GemmBwd1x1_stride1: backward data of a 1x1 convolution without stride or
// padding, dx = transpose(w) * dy, rocBLAS GEMMs only: nothing for a kdb.
//
// MIOpen 3.3.0 src/solver/conv/gemm_bwd.cpp (rocm-6.2.0 src/solver/gemm_bwd.cpp, same lines):
//   :399-420  IsApplicable;  :422-541 GetSolution (CallGemm / CallGemmStridedBatched only)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmBwd1x1_stride1 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmBwd1x1_stride1"; }
    bool builds_kernels() const override { return false; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::bwd_1x1_stride1_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView&, const SolverContext&) const override { return {}; }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmBwd1x1_stride1)

}  // namespace kdbgen
