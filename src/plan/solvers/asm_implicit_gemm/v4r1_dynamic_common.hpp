// The dynamic V4R1 implicit-GEMM assembly solvers of gfx900/gfx906
// (ConvAsmImplicitGemmV4R1Dynamic{Fwd,Fwd_1x1,Bwd,Wrw}). Each direction is
// one fixed .s file under src/kernels/dynamic_igemm/ holding every kernel
// variant; the problem only picks which symbol runs, so the kdb key is the
// file with " -Wa,-defsym,ROCM_METADATA_VERSION=5": one key per direction
// and target. The helpers around them (the backward pass's zeroing of dx,
// the backward-weights reduction) are planned by the solvers that launch them.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/; rocm-6.2.0 has the same
// code at the same lines under src/solver/:
//   conv_asm_implicit_gemm_v4r1_dynamic.cpp:42-281   the forward tunables and IsValid
//   conv_asm_implicit_gemm_v4r1_dynamic.cpp:93-122   the kernel name
//   src/include/miopen/solver/implicitgemm_util.hpp:94-154, :221-252, :403-431
//                                                    KernelBatchN..., GetEPackLength, ComputeLDSRequiredSize
#pragma once

#include "kdbgen/solver.hpp"

#include <optional>
#include <string>

namespace kdbgen::igemm_v4r1 {

// GenerateClangDefsym(ROCM_METADATA_VERSION, rmv.UseV3() ? 5 : 4)
// (src/ocl/gcn_asm_utils.cpp:305-310: " -Wa,-defsym,<name>=<value>"): code object v3+.
inline constexpr const char* kOptions = " -Wa,-defsym,ROCM_METADATA_VERSION=5";

// The checks all four IsApplicable share: device gfx900 or gfx906,
// ctx.use_asm_kernels (on by default), the direction, 2-D, sizes fit int,
// FP32, no casts (all but Fwd_1x1, which does not ask), code object v3
// (rmv.IsV3), ungrouped, default layout, XNACK off. Keys describe packed
// tensors, so HasNonPackedTensors never rejects.
bool common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, bool check_casts,
                   std::string* why);

enum class ForwardKernel { General, OneByOne };
// The first of the seven forward tunables that IsValid accepts, as its kernel
// name ("igemm_v4r1_dynamic_128x128x16_..." or "igemm_v4r1_1x1_dynamic_..."),
// or nullopt when none does.
std::optional<std::string> forward_kernel(const ConvView& p, ForwardKernel kind);

}  // namespace kdbgen::igemm_v4r1
