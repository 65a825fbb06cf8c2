// GemmWrwUniversal: every backward-weights convolution GemmWrw1x1_stride1
// leaves. dw is zeroed, then per image x is unfolded by im2col (2-D
// Im2d2Col or 3-D Im3d2Col, in dy's data type) and multiplied with dy.
//
// MIOpen 3.3.0 src/solver/conv/gemm_wrw.cpp (rocm-6.2.0 src/solver/gemm_wrw.cpp, same lines):
//   :302-339  GetWorkspaceSize;  :341-355 IsApplicable
//   :357-522  GetSolution: SetTensor(dw, 0) (:447-449), Im2ColGPU(x, dy's type) per image (:458-470)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmWrwUniversal : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmWrwUniversal"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!gemm::wrw_base_applicable(p, ctx, why)) return false;
        if (gemm::wrw_1x1_stride1_applicable(p, ctx, nullptr)) return reject(why, "GemmWrw1x1_stride1 applies");
        // x is Out (wei_c = its channels per group), dy In.
        const std::uint64_t workspace = gemm::type_size(gemm::tensor_types(p)->in) *
                                        static_cast<std::uint64_t>(p.GetOutChannels() / p.GetGroupCount()) *
                                        gemm::product(p.p.in_spatial) * gemm::product(p.p.weights_spatial) *
                                        p.GetGroupCount();
        return workspace <= gemm::max_mem_alloc(p, false) || reject(why, "workspace above MaxMemAllocSz");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto dw = gemm::helper_type(types->weights), dy = gemm::helper_type(types->in);
        if (!dw || !dy) return {};
        return {gemm::zero(gemm::weights_elements(p), *dw),
                gemm::im2col(p, p.GetOutChannels(), p.p.out_spatial, p.p.in_spatial, *dy)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmWrwUniversal)

}  // namespace kdbgen
