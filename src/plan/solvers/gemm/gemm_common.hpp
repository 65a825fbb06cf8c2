// The GEMM solvers' family. The convolution itself runs as rocBLAS GEMMs,
// which are not MIOpen kernels and never go into a kdb; around them MIOpen
// launches its own helper kernels (im2col, col2im, zeroing, transposes,
// INT8 casts), compiled through Handle::AddKernel and so looked up in the
// kdb like any other kernel. This header holds what the solvers share: the
// IsApplicable rules of the three direction bases, the 1x1 rules the
// "rest-of" solvers exclude, the workspace limit, and the helper kernels.
//
// MIOpen 3.3.0 (develop 2d1fd997); the same code at the same lines in
// rocm-6.2.0 (3.2.0) under src/solver/ instead of src/solver/conv/:
//   src/solver/conv/gemm.cpp:49-109       GemmFwdBase::IsApplicable
//   src/solver/conv/gemm_bwd.cpp:49-102   GemmBwdBase::IsApplicable
//   src/solver/conv/gemm_wrw.cpp:44-97    GemmWrwBase::IsApplicable
//   src/solver/conv/gemm_common.cpp:38-68 MaxMemAllocSz (WORKAROUND_MLOPEN_ISSUE_1430)
//   src/ocl/utilocl.cpp                   the helpers (identical in both versions)
#pragma once

#include "kdbgen/solver.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kdbgen::gemm {

// A tensor type as problem keys name it (GetDataTypeName): FP32, FP16, BF16,
// INT8, INT32, FP8, BF8, FP64.
struct TensorTypes {
    std::string_view in, weights, out;  // static names
};
// EncodeDataTypesForKey (src/conv/problem_description.cpp:40-45, MIOpen
// 3.3.0) read back: one name when all three agree, else in + weights + out.
// nullopt when the key's types are none of those names.
std::optional<TensorTypes> tensor_types(const ConvView& p);
// The helper kernels' data-type block needs a type kdbgen can spell;
// nullopt for FP8, BF8 and FP64 (GetDataTypeKBP defines extra macros for them).
std::optional<DataType> helper_type(std::string_view name);
std::size_t type_size(std::string_view name);

// The problem's tensors as the GEMM solvers name them: forward In = x,
// Out = y; backward data In = dy, Out = dx; backward weights In = dy, Out = x
// (src/ocl/convolutionocl.cpp:257, :882, :1090).
long product(std::span<const long> values);
long weights_elements(const ConvView& p);
bool weights_all_ones(const ConvView& p);
bool pads_all_zero(const ConvView& p);
bool strides_all(const ConvView& p, long value);

// The direction bases: default layout, the direction, INT8 with a 32-bit
// output, casts and FP8 only on gfx94 (rocBLAS), FP16/BF16 with rocBLAS
// (gemm_common.hpp:46-47: MIOpen's default build has MIOPEN_USE_ROCBLAS).
bool fwd_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool bwd_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool wrw_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);

// MaxMemAllocSz: min(0.85 x device memory, 7287183769), twice the cap for
// FP32 when double_limit_for_fp32. kdbgen has no device; every GPU of the
// architectures MIOpen's GEMM path runs on has 8 GiB or more, where 0.85 x
// memory exceeds the cap, so the cap alone decides.
std::uint64_t max_mem_alloc(const ConvView& p, bool double_limit_for_fp32);

// The rules the "rest-of" solvers exclude (GemmFwdRest :862-883, GemmBwdRest
// gemm_bwd.cpp:585-600, GemmWrwUniversal gemm_wrw.cpp:341-355).
bool fwd_1x1_0_1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool fwd_1x1_0_1_int8_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool fwd_1x1_0_2_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool bwd_1x1_stride1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool bwd_1x1_stride2_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
bool wrw_1x1_stride1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);

// The helper kernels, each as MIOpen's utilocl.cpp / tensorocl.cpp builds it.
// Im2ColGPU (utilocl.cpp:620-687): Im2d2ColGPU (:43-280) for 2-D, Im3d2ColGPU
// (:282-401) for 3-D; `image` is the tensor unfolded (C channels, spatial
// in_spatial), `out_spatial` the convolution's other side.
SolverKernel im2col(const ConvView& p, long channels, std::span<const long> in_spatial,
                    std::span<const long> out_spatial, DataType type);
// Col2ImGPU (:689-758) into dx: Col2Im2dGPU (:403-500), Col2Im3dGPU (:502-618).
SolverKernel col2im(const ConvView& p, DataType type);
// transpose_NCHW2CNHW / transpose_CNHW2NCHW (:760-1027): the kernel name; the
// file is MIOpenUtilKernels4.cl with the tensor's data-type block.
std::string transpose_nchw2cnhw_name(long c, long h_in, long w_in, long h_stride, long w_stride, DataType type);
std::string transpose_cnhw2nchw_name(long c, long h_out, long w_out, long h_stride, long w_stride, DataType type);
constexpr const char* kTransposePackedMn2Nm = "transpose_packed_MN2NM_off64";  // :1151-1200, INT8 only
SolverKernel util_kernels4(std::vector<std::string> symbols, DataType type);
// SetTensor(desc, 0) on a packed tensor (tensorocl.cpp:1498-1560).
SolverKernel zero(long elements, DataType type);
// The INT8 result's cast: rocBLAS writes INT32, a float y is cast from it
// (gemm.cpp:425-432, :1039-1047); nothing when y is INT32.
std::vector<SolverKernel> int8_output_cast(const ConvView& p, const TensorTypes& types);

// Kernels of one code object (same file and options) merged into one entry,
// in first-seen order: MIOpen keys a program, not a kernel.
std::vector<SolverKernel> merge_programs(std::vector<SolverKernel> kernels);

class GemmSolver : public Solver {
public:
    // IsDynamic of GemmFwdBase, GemmBwdBase, GemmWrwBase (src/include/miopen/conv/solvers.hpp:2889, :2974, :3040).
    bool dynamic() const override { return true; }
    std::string_view missing_kernels_reason() const override {
        return "helper kernels of a data type kdbgen cannot spell (FP8, BF8, FP64)";
    }
};

}  // namespace kdbgen::gemm
