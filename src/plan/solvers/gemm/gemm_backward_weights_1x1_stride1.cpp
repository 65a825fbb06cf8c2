// GemmWrw1x1_stride1: backward weights of a 1x1 convolution without stride or
// padding, dw = sum over the batch of dy[i] * transpose(x[i]). The GEMMs
// accumulate, so dw is zeroed first (SetTensor, flattened to one dimension
// for any packed tensor, 3-D included).
//
// MIOpen 3.3.0 src/solver/conv/gemm_wrw.cpp (rocm-6.2.0 src/solver/gemm_wrw.cpp, same lines):
//   :146-167  IsApplicable;  :169-300 GetSolution: SetTensor(dw, 0) (:247-249)
//   src/ocl/tensorocl.cpp:1498-1560  SetTensor (GetFlattenedTensorDescriptor, SubTensorOpWithScalar1d)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmWrw1x1_stride1 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmWrw1x1_stride1"; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::wrw_1x1_stride1_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto dw = gemm::helper_type(types->weights);
        if (!dw) return {};
        return {gemm::zero(gemm::weights_elements(p), *dw)};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmWrw1x1_stride1)

}  // namespace kdbgen
