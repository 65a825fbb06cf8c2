// GemmFwd1x1_0_1_int8: the INT8 form of GemmFwd1x1_0_1. rocBLAS's INT8 GEMM
// wants the image transposed, so each image goes through
// transpose_packed_MN2NM first, and the INT32 result is cast to a float y.
//
// MIOpen 3.3.0 src/solver/conv/gemm.cpp (rocm-6.2.0 src/solver/gemm.cpp, same lines):
//   :450-487  GetWorkspaceSize;  :489-514 IsApplicable
//   :516-631  GetSolution: transpose_packed_MN2NM(x) per image (:598-599), CastTensor(INT32 -> y) (:613-614)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmFwd1x1_0_1_int8 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmFwd1x1_0_1_int8"; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::fwd_1x1_0_1_int8_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto x = gemm::helper_type(types->in);
        if (!x) return {};
        std::vector<SolverKernel> out{gemm::util_kernels4({gemm::kTransposePackedMn2Nm}, *x)};
        for (auto& cast : gemm::int8_output_cast(p, *types)) out.push_back(std::move(cast));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmFwd1x1_0_1_int8)

}  // namespace kdbgen
