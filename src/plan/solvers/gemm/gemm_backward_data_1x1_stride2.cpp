// GemmBwd1x1_stride2: backward data of a 2-D 1x1 convolution with stride 2
// and no padding. dx is zeroed (the stride leaves pixels no GEMM writes), dy
// is transposed to CNHW, one GEMM runs, and the result is transposed back
// into every second pixel of dx.
//
// MIOpen 3.3.0 src/solver/conv/gemm_bwd.cpp (rocm-6.2.0 src/solver/gemm_bwd.cpp, same lines):
//   :158-196  GetWorkspaceSize;  :198-221 IsApplicable
//   :223-391  GetSolution: SetTensor(dx, 0) (:294-296), transpose_NCHW2CNHW(dy) (:303-316),
//             transpose_CNHW2NCHW(into dx, conv strides) (:361-374), both in dy's type
#include "gemm_common.hpp"

namespace kdbgen {

namespace {

class GemmBwd1x1_stride2 : public gemm::GemmSolver {
public:
    std::string_view name() const override { return "GemmBwd1x1_stride2"; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        return gemm::bwd_1x1_stride2_applicable(p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        if (!p.Is2d()) return {};
        const auto types = gemm::tensor_types(p);
        if (!types) return {};
        const auto dy = gemm::helper_type(types->in), dx = gemm::helper_type(types->out);
        if (!dy || !dx) return {};
        // dy is In (K channels, the small image), dx Out (C channels).
        const long dx_elements = p.GetBatchSize() * p.GetOutChannels() * gemm::product(p.p.out_spatial);
        return gemm::merge_programs(
            {gemm::zero(dx_elements, *dx),
             gemm::util_kernels4({gemm::transpose_nchw2cnhw_name(p.GetInChannels(), p.GetInHeight(), p.GetInWidth(), 1,
                                                                 1, *dy),
                                  gemm::transpose_cnhw2nchw_name(p.GetOutChannels(), p.GetInHeight(), p.GetInWidth(),
                                                                 p.GetKernelStrideH(), p.GetKernelStrideW(), *dy)},
                                 *dy)});
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(GemmBwd1x1_stride2)

}  // namespace kdbgen
