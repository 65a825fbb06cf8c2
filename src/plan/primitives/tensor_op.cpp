// Tensor ops (OpTensor: C = op(alpha0 * A, alpha1 * B) + beta * C) on 4-D
// tensors: MIOpen's OpTensor4d picks one of six kernels of
// MIOpenTensorKernels.cl from B's broadcast pattern. 3-D and 5-D tensors
// (OpTensor3d, OpTensorOther) are not in kdbgen's catalog yet. SetTensor and
// ScaleTensor (any rank: packed tensors flatten to one dimension) run
// MIOpenSubTensorOpWithScalarKernel.cl; src/ocl/tensorocl.cpp:1498-1720.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/ocl/tensorocl.cpp (same in rocm-6.2.0):
//   :88-107   CreateBitmapAndGrid;  :109-119 IsBitmapLeadingOnes
//   :428-470  the bitmap of B's non-1 dimensions; a single-element B counts as a bias (4)
//   :490-510  packed / packed-and-equal tensors, RD_BLCK and READ_TYPE
//   :748-760  " -DMIOPEN_TYPE=<B type> -DMAX_NUM_WG=4096" + GetDataTypeKernelParams(A type)
//             + " -DMIOPEN_TENSOR_OP=miopen{Add,Mul,Min,Max}"
//   :762-952  the kernel chosen and its one extra define
//   src/include/miopen/datatype.hpp:39-80  GetDataType: float, half, bfloat16, int8_t, int
#include "kdbgen/primitive.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

class OpTensor4d : public PrimitiveSolverFor<TensorOpProblem> {
public:
    std::string_view name() const override { return "OpTensor4d"; }
    std::string_view kind() const override { return "tensorop"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const TensorOpProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.routine != TensorOpProblem::Routine::OpTensor) return reject(why, "SetTensor/ScaleTensor");
        if (p.a.dims.size() != 4 || p.b.dims.size() != 4) return reject(why, "not 4-D (OpTensor3d/OpTensorOther)");
        for (std::size_t i = 0; i < 4; ++i)
            if (p.b.dims[i] != 1 && p.b.dims[i] != p.a.dims[i]) return reject(why, "B does not broadcast to A");
        return true;
    }
    std::vector<SolverKernel> kernels(const TensorOpProblem& p, const PrimitiveContext&) const override {
        const auto& b = p.b.dims;
        // d: one past the last non-1 dimension of B.
        int d = 4;
        while (d > 0 && b[static_cast<std::size_t>(d - 1)] == 1) --d;
        unsigned bitmap = 1u << (4 - d);
        for (int i = d - 2; i >= 0; --i)
            if (b[static_cast<std::size_t>(i)] != 1) bitmap |= 1u << (4 - (i + 1));
        if (p.b.elements() == 1) bitmap = 4;
        bool leading_ones = true;
        for (int i = d - 2; i >= 0; --i) leading_ones = leading_ones && (bitmap & (1u << (4 - 1 - i))) != 0;
        static constexpr const char* kOps[] = {"miopenAdd", "miopenMul", "miopenMin", "miopenMax"};
        std::string o = fmt::format(" -DMIOPEN_TYPE={} -DMAX_NUM_WG=4096 {} -DMIOPEN_TENSOR_OP={}", c_type_name(p.data_type),
                                    data_type_defines(p.data_type), kOps[p.op & 3]);
        std::string symbol;
        if (bitmap == 4) {
            o += " -DUSE_FWD_BIAS";
            symbol = "OpTensorFwdBias";
        } else if (p.b.elements() == p.a.elements()) {
            const long len = p.a.elements();
            const int rd_blck = len % 4 == 0 ? 4 : len % 2 == 0 ? 2 : 1;
            const std::string read_type = std::string(c_type_name(p.data_type)) + (rd_blck == 1 ? "" : std::to_string(rd_blck));
            o += fmt::format(" -DUSE_4D_TENSOR_LITE -DRD_BLCK={} -DREAD_TYPE={}", rd_blck, read_type);
            symbol = "Op4dTensorLite";
        } else if (leading_ones) {
            o += " -DUSE_LEADING_ONES";
            symbol = "OpTensorLeadingOnes";
        } else {
            o += " -DUSE_4D_TENSOR_GENERIC";
            symbol = "Op4dTensorGeneric";
        }
        return {{"MIOpenTensorKernels.cl", {symbol}, o}};
    }
};

template <TensorOpProblem::Routine R>
class TensorWithScalar : public PrimitiveSolverFor<TensorOpProblem> {
public:
    std::string_view name() const override { return R == TensorOpProblem::Routine::SetTensor ? "SetTensor" : "ScaleTensor"; }
    std::string_view kind() const override { return "tensorop"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const TensorOpProblem& p, const PrimitiveContext&, std::string* why) const override {
        return p.routine == R || reject(why, "another tensor routine");
    }
    std::vector<SolverKernel> kernels(const TensorOpProblem& p, const PrimitiveContext&) const override {
        return {sub_tensor_op_with_scalar(R == TensorOpProblem::Routine::ScaleTensor, p.a.elements(), p.data_type)};
    }
};
using SetTensor = TensorWithScalar<TensorOpProblem::Routine::SetTensor>;
using ScaleTensor = TensorWithScalar<TensorOpProblem::Routine::ScaleTensor>;

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(OpTensor4d)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(SetTensor)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(ScaleTensor)

}  // namespace kdbgen
