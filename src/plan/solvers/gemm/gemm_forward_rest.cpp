// GemmFwdRest: every forward convolution the 1x1 GEMM solvers leave. Each
// image is unfolded by im2col into the workspace (2-D: Im2d2Col with options
// sized by the problem; 3-D: Im3d2Col with only the data-type block), then
// multiplied by w. INT8 transposes the columns for rocBLAS and casts the
// INT32 result to a float y.
//
// MIOpen 3.3.0 src/solver/conv/gemm.cpp (rocm-6.2.0 src/solver/gemm.cpp, same lines):
//   :821-860  GetWorkspaceSize (MaxMemAllocSz with the FP32 limit doubled);  :862-883 IsApplicable
//   :885-1063 GetSolution: Im2ColGPU(x) per image (:966-978), INT8 transpose_packed_MN2NM
//             (:981-996), INT8 CastTensor(INT32 -> y) (:1039-1047)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmFwdRest : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmFwdRest"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!gemm::fwd_base_applicable(p, ctx, why)) return false;
        if (gemm::fwd_1x1_0_1_applicable(p, ctx, nullptr) || gemm::fwd_1x1_0_1_int8_applicable(p, ctx, nullptr) ||
            gemm::fwd_1x1_0_2_applicable(p, ctx, nullptr))
            return reject(why, "a 1x1 GEMM solver applies");
        const auto types = *gemm::tensor_types(p);
        const std::uint64_t columns = static_cast<std::uint64_t>(p.GetInChannels() / p.GetGroupCount()) *
                                      gemm::product(p.p.weights_spatial) * gemm::product(p.p.out_spatial) *
                                      gemm::type_size(types.weights) * p.GetGroupCount();
        const std::uint64_t workspace = types.weights == "INT8" ? 2 * columns : columns;
        return workspace <= gemm::max_mem_alloc(p, true) || reject(why, "workspace above MaxMemAllocSz");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto x = gemm::helper_type(types->in);
        if (!x) return {};
        std::vector<SolverKernel> out{gemm::im2col(p, p.GetInChannels(), p.p.in_spatial, p.p.out_spatial, *x)};
        if (types->weights == "INT8") out.push_back(gemm::util_kernels4({gemm::kTransposePackedMn2Nm}, *x));
        for (auto& cast : gemm::int8_output_cast(p, *types)) out.push_back(std::move(cast));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmFwdRest)

}  // namespace kdbgen
