// ConvHipImplicitGemmBwdDataV1R1: backward-data implicit GEMM without xdlops, static composable
// kernel static_kernel_gridwise_convolution_backward_data_implicit_gemm_v1r1_nchw_kcyx_nkhw.cpp
// (ncdhw_kczyx_nkdhw for 3-D FP32), every size in -DCK_PARAM_* (one kernel per problem). One GEMM of
// M = C*[Z*]Y*X, N = N*[Do*]Ho*Wo, K = K/EPack whose threads add into dx with atomics, so the
// invoker zeroes dx first unless the problem is 1x1, stride 1, no padding; for BF16 it accumulates
// into an FP32 workspace (zeroed) and casts it into dx when the windows overlap.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_bwd_v1r1.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_bwd_v1r1.cpp, the same code):
//   :35, :668-674   WORKAROUND_ISSUE_309: BF16 only with MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1=1
//   :91-116         CalculateGridSize;  :118-182 CalculateBlockGemmPerformanceParameters
//   :184-247        CalculateGemmABlockCopyPerformanceParameters
//   :249-317        CalculateGemmBBlockCopyPerformanceParameters
//   :319-395        CalculateGemmCThreadCopyPerformanceParameters
//   :397-442        CalculateLdsNumberOfByte;  :444-510 IsValidValue, IsValid;  :512-568 HeuristicInit
//   :592-611        CalculateGemmSize;  :613-633 GetWorkspaceSize (BF16: dx in FP32)
//   :635-687        IsApplicable (deprecated solver: ThisSolverIsDeprecatedStatic, src/solver.cpp:716-732)
//   :689-703        GetDefaultPerformanceConfig (HeuristicInit), IsValidPerformanceConfig
//   :713-884        GetSolution: kernel file and name, options
//   src/conv/invokers/impl_gemm.cpp:44-115, :129-162  the helper kernels (SetTensor, CastTensor)
#include "backward_data_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kdbgen {

namespace {

using hip_implicit_gemm::Copy;
using hip_implicit_gemm::GemmConfig;
using hip_implicit_gemm::Interpreted;
using hip_implicit_gemm::backward_data::Derived;

struct Gemm {
    long m, n, k;
};

// CalculateGemmSize (:592-611).
Gemm gemm_size(const Interpreted& s, int epack) {
    return {s.c * s.z * s.y * s.x, s.n * s.do_ * s.ho * s.wo, s.k / epack};
}

// CalculateGemmABlockCopyPerformanceParameters (:184-247): reads along GemmM, as wide as the block's
// M tile and each thread's share allow; FP32 writes as wide as that read, BF16 EPack-wide.
Copy a_copy(const GemmConfig& c, const ConvView& p, int epack) {
    Copy out;
    int src = std::gcd(4, c.GemmMPerBlock);
    const int per_thread = c.GemmKPerBlock * c.GemmMPerBlock / c.BlockSize;
    if (!(per_thread > 0)) return out;
    src = std::gcd(src, per_thread);
    const int per_m = src, per_k = per_thread / per_m;
    out.cluster_k = c.GemmKPerBlock / per_k;
    out.cluster_mn = c.GemmMPerBlock / per_m;
    if (!(out.cluster_k > 0 && out.cluster_mn > 0)) return {};
    out.src_read = src;
    out.dst_write = p.IsFp32() ? std::gcd(4, per_m) : epack;
    out.valid = true;
    return out;
}

// CalculateGemmBBlockCopyPerformanceParameters (:249-317): reads along GemmN bounded by Ho*Wo.
Copy b_copy(const GemmConfig& c, const ConvView& p, const Interpreted& s, int epack) {
    Copy out;
    long src = std::gcd(4, c.GemmNPerBlock);
    src = std::gcd(src, s.ho * s.wo);
    const int per_thread = c.GemmKPerBlock * c.GemmNPerBlock / c.BlockSize;
    if (!(per_thread > 0)) return out;
    src = std::gcd(src, static_cast<long>(per_thread));
    const int per_n = static_cast<int>(src), per_k = per_thread / per_n;
    out.cluster_k = c.GemmKPerBlock / per_k;
    out.cluster_mn = c.GemmNPerBlock / per_n;
    if (!(out.cluster_k > 0 && out.cluster_mn > 0)) return {};
    out.src_read = per_n;
    out.dst_write = p.IsFp32() ? std::gcd(4, per_n) : epack;
    out.valid = true;
    return out;
}

// CalculateGemmCThreadCopyPerformanceParameters (:319-395): dx writes along GemmN1.
int c_copy(const GemmConfig& c, const Interpreted& s) {
    long dst = std::gcd(4, c.GemmNPerThread);
    const bool unit = s.z == 1 && s.y == 1 && s.x == 1 && s.stride_d == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                      s.left_pad_d == 0 && s.left_pad_h == 0 && s.left_pad_w == 0 && s.right_pad_d == 0 &&
                      s.right_pad_h == 0 && s.right_pad_w == 0;
    if (unit)
        dst = std::gcd(dst, s.di * s.hi * s.wi);  // Di is 1 in 2-D
    else if (s.stride_w == 1)
        dst = std::gcd(std::gcd(std::gcd(std::gcd(dst, s.left_pad_w), s.wi), s.right_pad_w), s.dilation_w);
    else
        dst = 1;
    return static_cast<int>(dst);
}

// IsValid (:456-510) and what GetSolution reads off the same calculations.
Derived derive(const GemmConfig& c, const ConvView& p, const Interpreted& s, int epack) {
    Derived d;
    if (!c.valid_value()) return d;
    const Gemm g = gemm_size(s, epack);
    if (!(g.m % c.GemmMPerBlock == 0 && g.n % c.GemmNPerBlock == 0 && g.k % c.GemmKPerBlock == 0)) return d;
    if (!(c.GemmMPerBlock % c.GemmMPerThread == 0 && c.GemmNPerBlock % c.GemmNPerThread == 0)) return d;
    d.block = c.block_gemm();
    if (!d.block.valid) return d;
    d.a = a_copy(c, p, epack);
    if (!d.a.valid) return d;
    d.b = b_copy(c, p, s, epack);
    if (!d.b.valid) return d;
    d.c_dst_write = c_copy(c, s);
    const int read_m = p.IsFp32() ? c.GemmMPerThread : epack;
    const int read_n = p.IsFp32() ? c.GemmNPerThread : epack;
    const auto lds = hip_implicit_gemm::gemm_lds_bytes(c, d.a.dst_write, d.b.dst_write, read_m, read_n);
    if (!lds || *lds > hip_implicit_gemm::kLdsMaxBytes) return d;
    d.grid_size = (g.m / c.GemmMPerBlock) * (g.n / c.GemmNPerBlock);  // CalculateGridSize (:91-116)
    d.valid = true;
    return d;
}

class ConvHipImplicitGemmBwdDataV1R1 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmBwdDataV1R1"; }
    bool uses_general_options() const override { return true; }

    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        if (auto off = DeprecatedSolver::disabled_by_default(p, ctx)) return off;
        if (p.IsBfp16())
            return "WORKAROUND_ISSUE_309: BF16 only with MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1=1 "
                   "(conv_hip_implicit_gemm_bwd_v1r1.cpp:35, :668-674, MIOpen 3.3.0)";
        return std::nullopt;
    }

    // IsApplicable (:635-687) but for the default-off switches of disabled_by_default():
    // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1 is on unless disabled; the convolution is not
    // deterministic by default; use_hip_kernels holds (MIOPEN_DEBUG_HIP_KERNELS unset); a key
    // describes packed tensors (HasNonPackedTensors is false).
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
        if (!p.IsLayoutDefault()) return reject(why, "not NCHW / NCDHW");
        if (!hip_implicit_gemm::composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
        if (!p.IsDirectionBackwardData()) return reject(why, "not backward data");
        if (!p.Is2d() && !(p.Is3d() && p.IsFp32())) return reject(why, "not 2-D (nor 3-D FP32)");
        if (!(p.IsFp32() || p.IsBfp16())) return reject(why, "not FP32 or BF16");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (p.GetGroupCount() != 1) return reject(why, "grouped");
        if (!hip_implicit_gemm::index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
        const int epack = hip_implicit_gemm::epack_length(p, ctx.target, false);
        const Interpreted s = hip_implicit_gemm::interpret(p);
        if (s.k % epack != 0) return reject(why, "K is not a multiple of EPack");
        const Gemm g = gemm_size(s, epack);
        return (g.m % 32 == 0 && g.n % 32 == 0 && g.k % 4 == 0) ||
               reject(why, "GEMM sizes are not multiples of 32, 32, 4");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const int epack = hip_implicit_gemm::epack_length(p, ctx.target, false);
        const Interpreted s = hip_implicit_gemm::interpret(p);
        // The perf-db record when it parses (Visit order: solvers.hpp:650-660) and IsValidPerformanceConfig
        // (:696-703: IsValidValue and IsValid) accepts it, else HeuristicInit (:512-568): the first valid
        // candidate, or the last one when none is.
        const GemmConfig c = hip_implicit_gemm::backward_data::config(
            p, ctx, name(), [&](const GemmConfig& candidate) { return derive(candidate, p, s, epack); });
        const Derived d = derive(c, p, s, epack);
        if (!d.valid) return {};  // MIOpen asserts (HeuristicInit: "All attempts failed")

        // GetSolution (:801-879, MIOpen 3.3.0): problem, tunables, copies, grid, inline asm, the common
        // CK flags, the general options (data-type block), the 3-D block, then the per-type tail.
        const char* inline_asm = hip_implicit_gemm::use_amd_inline_asm(p, ctx.target) ? "1" : "0";
        std::string o = hip_implicit_gemm::problem_defines(s) + hip_implicit_gemm::block_gemm_defines(c, d.block);
        o += fmt::format(
            " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
            " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
            " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M={}"
            " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
            " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
            " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N={}"
            " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1={}"
            " -DCK_PARAM_DEPENDENT_GRID_SIZE={} -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM={} -DCK_USE_AMD_INLINE_ASM={}",
            d.a.cluster_k, d.a.cluster_mn, d.a.src_read, d.b.cluster_k, d.b.cluster_mn, d.b.src_read, d.c_dst_write,
            d.grid_size, inline_asm, inline_asm);
        o += hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
        if (s.is3d) o += hip_implicit_gemm::depth_defines(s);
        if (p.IsFp32())
            o += fmt::format(
                " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N={}",
                d.a.dst_write, d.b.dst_write);
        else
            o += fmt::format(
                " -DCK_PARAM_KPACK_LENGTH={} -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
                epack, d.a.dst_write, d.b.dst_write);
        const std::string kernel = s.is3d ? "gridwise_convolution_backward_data_implicit_gemm_v1r1_ncdhw_kczyx_nkdhw"
                                          : "gridwise_convolution_backward_data_implicit_gemm_v1r1_nchw_kcyx_nkhw";
        std::vector<SolverKernel> out{{"static_kernel_" + kernel + ".cpp", {kernel}, o}};

        // The invoker (impl_gemm.cpp, MIOpen 3.3.0). The kernel adds into its output.
        const long dx = hip_implicit_gemm::dx_elements(p);
        if (p.IsFp32()) {
            // :129-162: SetTensor(dx, 0) unless every pad is 0, every stride 1 and the filter 1x1[x1].
            const auto all_are = [](std::span<const long> v, long value) {
                return std::all_of(v.begin(), v.end(), [&](long e) { return e == value; });
            };
            const bool is_1x1_s1 = all_are(p.p.pads, 0) && all_are(p.p.strides, 1) && all_are(p.p.weights_spatial, 1);
            if (!is_1x1_s1) out.push_back(sub_tensor_op_with_scalar(false, dx, DataType::Float));
        } else if (hip_implicit_gemm::needs_atomic_add(p)) {
            // :89-114: windows overlap: SetTensor on an FP32 workspace shaped as dx, the kernel into it,
            // CastTensor FP32 -> BF16 into dx.
            out.push_back(sub_tensor_op_with_scalar(false, dx, DataType::Float));
            out.push_back(cast_tensor(dx, DataType::Float, DataType::BFloat16));
        } else if (!hip_implicit_gemm::every_pixel_is_written(p)) {
            // :72-82: gaps between the windows: SetTensor(dx, 0) in BF16.
            out.push_back(sub_tensor_op_with_scalar(false, dx, DataType::BFloat16));
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmBwdDataV1R1)

}  // namespace kdbgen
