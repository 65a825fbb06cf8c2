// GemmFwd1x1_0_2: a 2-D 1x1 forward convolution with stride 2 and no padding.
// x is transposed to CNHW, taking every second pixel, one GEMM runs on that,
// and the result is transposed back into y. INT8 transposes the packed
// image once more for rocBLAS and casts the INT32 result to a float y.
//
// MIOpen 3.3.0 src/solver/conv/gemm.cpp (rocm-6.2.0 src/solver/gemm.cpp, same lines):
//   :186-223  GetWorkspaceSize;  :225-248 IsApplicable
//   :250-448  GetSolution: transpose_NCHW2CNHW(x, conv strides) (:320-333),
//             INT8 transpose_packed_MN2NM (:340-356), transpose_CNHW2NCHW(y) (:408-421),
//             INT8 CastTensor(INT32 -> y) (:425-432)
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmFwd1x1_0_2 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmFwd1x1_0_2"; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::fwd_1x1_0_2_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        if (!p.Is2d()) return {};  // MIOpen's transposes are 2-D; IsApplicable asks for 2-D
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto x = gemm::helper_type(types->in), y = gemm::helper_type(types->out);
        if (!x || !y) return {};
        std::vector<SolverKernel> out{gemm::util_kernels4(
            {gemm::transpose_nchw2cnhw_name(p.GetInChannels(), p.GetInHeight(), p.GetInWidth(), p.GetKernelStrideH(),
                                            p.GetKernelStrideW(), *x)},
            *x)};
        if (types->weights == "INT8") out.push_back(gemm::util_kernels4({gemm::kTransposePackedMn2Nm}, *x));
        out.push_back(gemm::util_kernels4(
            {gemm::transpose_cnhw2nchw_name(p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth(), 1, 1, *y)}, *y));
        for (auto& cast : gemm::int8_output_cast(p, *types)) out.push_back(std::move(cast));
        return gemm::merge_programs(std::move(out));
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmFwd1x1_0_2)

}  // namespace kdbgen
