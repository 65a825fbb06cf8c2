// The HIP static implicit-GEMM family (ConvHipImplicitGemm*): MIOpen's
// static composable kernels under src/kernels/static_composable_kernel/,
// which bake every problem size into -DCK_PARAM_* defines, so there is about
// one kernel per problem. What the solvers share lives here: the device and
// problem checks of implicitgemm_util.hpp, the common compiler flags, and the
// V4R1 tuning configuration (PerformanceImplicitGemm / ...V4R1).
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/include/miopen/solver/implicitgemm_util.hpp:60-160    Kernel* getters
//   src/include/miopen/solver/implicitgemm_util.hpp:206-260   IsXdlopsSupport, GetReadWriteVectorSize,
//                                                             GetEPackLength, IsIndexRangeLargeEnough
//   src/include/miopen/solver/implicitgemm_util.hpp:403-470   ComputeLDSRequiredSize, use_amd_inline_asm,
//                                                             is_use_amd_buffer_load_store, is_use_v_fmac_f32,
//                                                             support_amd_buffer_atomic_fadd
//   src/include/miopen/solver/implicitgemm_util.hpp:544-584   get_static_ck_common_compiler_flag,
//                                                             IsComposableKernelSupportedHardware
//   src/solver/conv/conv_hip_implicit_gemm_nonxdlops_common.cpp:41-437  the V4R1 configuration
#pragma once

#include "kdbgen/solver.hpp"

#include <array>
#include <optional>
#include <string>

namespace kdbgen::hip_igemm {

// IsComposableKernelSupportedHardware: gfx803 with 64 CUs, gfx900, gfx906, gfx908, gfx90a, gfx94x, gfx103x.
bool composable_kernel_hardware(const Target& target);
// IsXdlopsSupport (MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_XDLOPS not disabled): gfx908, gfx90a, gfx94x.
bool xdlops_supported(const Target& target);
// GetEPackLength: FP16 packs 2 (4 with xdlops), BF16 2, FP32 1.
int epack_length(const ConvView& p, const Target& target, bool xdlops_invoked);
// GetReadWriteVectorSize: 4, 2 or 1, the largest that divides v.
int read_write_vector_size(long v);
// IsIndexRangeLargeEnough: every tensor below 2 GiB (in bytes).
bool index_range_large_enough(const ConvView& p);
// Bytes of one element of the problem's input type.
int type_size(const ConvView& p);
// use_amd_inline_asm: off on gfx8 and for FP16 outside gfx906/gfx908.
bool use_amd_inline_asm(const ConvView& p, const Target& target);
// get_static_ck_common_compiler_flag: " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=... -DCK_USE_AMD_V_FMAC_F32=...".
std::string common_compiler_flags(const Target& target);

// The implicit-GEMM view of a problem (Kernel* getters of implicitgemm_util.hpp:60-160):
// backward weights swaps the roles of batch, channels and filter.
struct GemmShape {
    long n, k, c, ho, wo, y, x;
};
GemmShape kernel_shape(const ConvView& p);

// PerformanceImplicitGemm (and ...V4R1, same fields): the sixteen values of a perf-db record
// in Visit order (src/include/miopen/conv/solvers.hpp:430-452).
struct V4R1Config {
    int BPerBlock = 0, KPerBlock = 0, EPerBlock = 0, GemmNRepeat = 0, GemmMPerThreadSubC = 0,
        GemmNPerThreadSubC = 0, GemmMLevel0Cluster = 0, GemmNLevel0Cluster = 0, GemmMLevel1Cluster = 0,
        GemmNLevel1Cluster = 0, InBlockCopyClusterLengths_E = 0, InBlockCopyClusterLengths_N1 = 0,
        InBlockCopyClusterLengths_B = 0, InBlockCopyClusterLengths_N2 = 0, WeiBlockCopyClusterLengths_E = 0,
        WeiBlockCopyClusterLengths_K = 0;

    static std::optional<V4R1Config> parse(const std::string& text);
    std::string text() const;
    // PerformanceImplicitGemm::IsValidValue (nonxdlops_common.cpp:417-437).
    bool valid_value() const;
    // PerformanceImplicitGemm::IsValid (nonxdlops_common.cpp:41-150): what HeuristicInit
    // checks, with WORKAROUND_ISSUE_659 and the backward-weights filter check.
    bool valid_base(const ConvView& p, const Target& target) const;
    // PerformanceImplicitGemmV4R1::IsValid (nonxdlops_common.cpp:152-282): what a perf-db record must pass.
    bool valid_v4r1(const ConvView& p, const Target& target) const;
    int block_size() const { return GemmMLevel0Cluster * GemmNLevel0Cluster * GemmMLevel1Cluster * GemmNLevel1Cluster; }
};

// PerformanceImplicitGemm::HeuristicInit (nonxdlops_common.cpp:284-415): the first of six
// fixed configurations that valid_base accepts, else the last one (MIOpen logs
// "All attempts failed" and goes on with it).
V4R1Config v4r1_heuristic(const ConvView& p, const Target& target);
// The perf-db record when it parses and passes IsValidValue and IsValid
// (ConvTunableSolver: IsValidPerformanceConfig), else the heuristic.
V4R1Config v4r1_config(const ConvView& p, const SolverContext& ctx, std::string_view solver);

// The checks V4R1Fwd and V4R1WrW share before their shape rules
// (conv_hip_implicit_gemm_fwd_v4r1.cpp:45-100, :108-150).
bool v4r1_common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why);

}  // namespace kdbgen::hip_igemm

namespace kdbgen::hip_igemm {

// The problem and derived values V4R1's GetSolution writes into -DCK_PARAM_* (both directions).
struct V4R1Kernel {
    long n, k, c, hi, wi, ho, wo, y, x, stride_h, stride_w, dilation_h, dilation_w, left_pad_h, left_pad_w;
    int direction_forward, direction_backward_weight;
    long grid_size;
    int in_src_read_b, wei_src_read_e;
    int in_dst_write_n2, wei_dst_write_k;  // FP32 only
};

// The kernel of ConvHipImplicitGemmV4R1Fwd / WrW: file, symbol and options in MIOpen's
// order, the general options (data-type block) between the common flags and the
// per-type tail (conv_hip_implicit_gemm_fwd_v4r1.cpp:318-362, :477-530, MIOpen 3.3.0).
SolverKernel v4r1_kernel(const ConvView& p, const SolverContext& ctx, const V4R1Config& c, const V4R1Kernel& k);

}  // namespace kdbgen::hip_igemm

namespace kdbgen::hip_igemm {

// IsValidBlockwiseGemmXdlops (implicitgemm_util.hpp:262-318, WORKAROUND_SWDEV_251757 = 1).
bool valid_blockwise_gemm_xdlops(const ConvView& p, int m_per_block, int n_per_block, int k_per_block, int m_per_wave,
                                 int n_per_wave, int k_pack);
// IsValidGridGemmXdlops (implicitgemm_util.hpp:320-333).
bool valid_grid_gemm_xdlops(long gemm_m, long gemm_n, long gemm_k);
// The xdlops tail of the options: " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0
// -DCK_USE_AMD_XDLOPS_EMULATE=0" (MIOPEN_DEBUG_IMPLICIT_GEMM_XDLOPS_INLINE_ASM and _EMULATE unset).
std::string xdlops_flags(const Target& target);

// PreviousTwoPower<L, H> (implicitgemm_util.hpp:183-196): halves v, or wraps L to H and says so.
template <int L, int H>
bool previous_two_power(int& v) {
    if (v == L) {
        v = H;
        return true;
    }
    v /= 2;
    return false;
}

}  // namespace kdbgen::hip_igemm
