// GemmBwdRest: every backward-data convolution the 1x1 GEMM solvers leave.
// Per image, one GEMM writes columns into the workspace and col2im folds
// them into dx: Col2Im2d (2-D) or Col2Im3d (3-D), each with the data-type
// block of dy and whether indices need 64 bits.
//
// MIOpen 3.3.0 src/solver/conv/gemm_bwd.cpp (rocm-6.2.0 src/solver/gemm_bwd.cpp, same lines):
//   :543-583  GetWorkspaceSize (MaxMemAllocSz with the FP32 limit doubled);  :585-600 IsApplicable
//   :602-759  GetSolution: Col2ImGPU(into dx, dy's type) per image (:730-743)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmBwdRest : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmBwdRest"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!gemm::bwd_base_applicable(p, ctx, why)) return false;
        if (gemm::bwd_1x1_stride2_applicable(p, ctx, nullptr) || gemm::bwd_1x1_stride1_applicable(p, ctx, nullptr))
            return reject(why, "a 1x1 GEMM solver applies");
        // wei_c = dx's channels per group; the columns span dy's (In's) spatial size.
        const std::uint64_t workspace = static_cast<std::uint64_t>(p.GetOutChannels() / p.GetGroupCount()) *
                                        gemm::product(p.p.weights_spatial) * gemm::product(p.p.in_spatial) *
                                        gemm::type_size(gemm::tensor_types(p)->in) * p.GetGroupCount();
        return workspace <= gemm::max_mem_alloc(p, true) || reject(why, "workspace above MaxMemAllocSz");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto dy = gemm::helper_type(types->in);
        if (!dy) return {};
        return {gemm::col2im(p, *dy)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmBwdRest)

}  // namespace kdbgen
