// ConvHipImplicitGemmBwdDataV4R1: backward-data implicit GEMM without xdlops, FP32, static composable
// kernel static_kernel_gridwise_convolution_backward_data_implicit_gemm_v4r1_nchw_kcyx_nkhw.cpp
// (ncdhw_kczyx_nkdhw for 3-D). The problem splits into [Ztilda*]Ytilda*Xtilda GEMMs, Ytilda = stride /
// gcd(stride, dilation) per dimension, each writing its own phase of dx: GetSolution returns one
// KernelInfo per GEMM with a non-empty K, all from the same file under the same kernel name, their
// options differing only in -DCK_PARAM_GEMM_ID=<id>. Each is built on its own, so MIOpen asks the kdb for
// one key per GEMM id (ids whose GEMM K is 0 are neither built nor asked for). The invoker zeroes dx
// first when the windows leave gaps, then launches the GEMMs in order.
//
// Off by default: WORKAROUND_SWDEV_229277_227616_229195 is 1 (src/include/miopen/solver/implicitgemm_util.hpp:42),
// so IsApplicable wants MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1=1 (none of MIOpen 3.3's find-dbs lists it).
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_bwd_v4r1.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_bwd_v4r1.cpp, the same code):
//   :89-113    CalculateGridSize (of GEMM 0, for every GEMM);  :115-179 CalculateBlockGemmPerformanceParameters
//   :181-247   CalculateGemmABlockCopyPerformanceParameters
//   :249-340   CalculateGemmBBlockCopyPerformanceParameters
//   :342-407   CalculateGemmCThreadCopyPerformanceParameters
//   :409-455   CalculateLdsNumberOfByte;  :457-527 IsValidValue, IsValid;  :529-584 HeuristicInit
//   :610-634   CalculateNumberOfGemm;  :636-728 CalculateGemmSize
//   :730-794   IsApplicable (deprecated solver: ThisSolverIsDeprecatedStatic, src/solver.cpp:716-732)
//   :796-810   GetDefaultPerformanceConfig (HeuristicInit), IsValidPerformanceConfig
//   :820-983   GetSolution: kernel file and name, options, one per GEMM id
//   src/conv/invokers/impl_gemm.cpp:163-198  the helper kernel (SetTensor) and the launch of every GEMM
#include "backward_data_common.hpp"
#include "../solver_arithmetic.hpp"

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


struct Tilda {
    long z, y, x;
};

// Ytilda = stride / gcd(stride, dilation) per dimension (:610-634), of the adjusted strides and dilations.
Tilda tildas(const Interpreted& s) {
    return {s.is3d ? s.stride_d / std::gcd(s.stride_d, s.dilation_d) : 1, s.stride_h / std::gcd(s.stride_h, s.dilation_h),
            s.stride_w / std::gcd(s.stride_w, s.dilation_w)};
}

// CalculateNumberOfGemm (:610-634).
long number_of_gemms(const Interpreted& s) {
    const Tilda t = tildas(s);
    return t.z * t.y * t.x;
}

// CalculateGemmSize (:636-728): M = C, N = N times the dx slice a phase covers, K = K times the
// filter taps of that phase.
Gemm gemm_size(const Interpreted& s, long gemm_id) {
    const Tilda t = tildas(s);
    // One dimension's slice of the phase grid and the phase's filter taps ("dot slice").
    const auto slice = [](long in, long out, long filter, long stride, long dilation, long left_pad, long tilda) {
        const long tilda_size = out + solvers::integer_divide_ceil<long>(dilation * (filter - 1), stride);
        const long left = std::max(0L, left_pad - dilation * (tilda - 1)) / stride;
        const long right = std::min(tilda_size, solvers::integer_divide_ceil<long>(left_pad + in - 1, stride) + 1);
        return right - left;
    };
    const auto taps = [](long filter, long tilda, long i) {
        const long dot = solvers::integer_divide_ceil<long>(filter, tilda);
        return (i + 1) * dot <= filter ? dot : filter % dot;
    };
    const long h_slice = slice(s.hi, s.ho, s.y, s.stride_h, s.dilation_h, s.left_pad_h, t.y);
    const long w_slice = slice(s.wi, s.wo, s.x, s.stride_w, s.dilation_w, s.left_pad_w, t.x);
    const long i_y = (gemm_id % (t.x * t.y)) / t.x;  // gemm_id / Xtilda in 2-D, where Ztilda is 1
    const long i_x = (gemm_id % (t.x * t.y)) % t.x;
    long n = s.n * h_slice * w_slice;
    long k = s.k * taps(s.y, t.y, i_y) * taps(s.x, t.x, i_x);
    if (s.is3d) {
        n *= slice(s.di, s.do_, s.z, s.stride_d, s.dilation_d, s.left_pad_d, t.z);
        k *= taps(s.z, t.z, gemm_id / (t.x * t.y));
    }
    return {s.c, n, k};
}

// CalculateGemmABlockCopyPerformanceParameters (:181-247): vector reads along GemmM only for a 1x1[x1] filter.
Copy a_copy(const GemmConfig& c, const Interpreted& s) {
    Copy out;
    int src = std::gcd(4, c.GemmMPerBlock);
    if (!(s.z == 1 && s.y == 1 && s.x == 1)) src = 1;
    const int per_thread = c.GemmKPerBlock * c.GemmMPerBlock / c.BlockSize;
    if (!(per_thread > 0)) return out;
    src = std::gcd(src, per_thread);
    const int per_m = src, per_k = per_thread / per_m;
    out.cluster_k = c.GemmKPerBlock / per_k;
    out.cluster_mn = c.GemmMPerBlock / per_m;
    if (!(out.cluster_k > 0 && out.cluster_mn > 0)) return {};
    out.src_read = src;
    out.dst_write = std::gcd(4, per_m);
    out.valid = true;
    return out;
}

// CalculateGemmBBlockCopyPerformanceParameters (:249-340): vector reads along GemmN only for a 1x1[x1]
// filter without padding, bounded by [Do*]Ho*Wo.
Copy b_copy(const GemmConfig& c, const Interpreted& s) {
    Copy out;
    long src = std::gcd(4, c.GemmNPerBlock);
    const bool unit = s.z == 1 && s.y == 1 && s.x == 1 && s.left_pad_d == 0 && s.left_pad_h == 0 &&
                      s.left_pad_w == 0 && s.right_pad_d == 0 && s.right_pad_h == 0 && s.right_pad_w == 0;
    src = unit ? std::gcd(src, s.do_ * s.ho * s.wo) : 1;
    const int per_thread = c.GemmKPerBlock * c.GemmNPerBlock / c.BlockSize;
    if (!(per_thread > 0)) return out;
    src = std::gcd(src, static_cast<long>(per_thread));
    const int per_n = static_cast<int>(src), per_k = per_thread / per_n;
    out.cluster_k = c.GemmKPerBlock / per_k;
    out.cluster_mn = c.GemmNPerBlock / per_n;
    if (!(out.cluster_k > 0 && out.cluster_mn > 0)) return {};
    out.src_read = per_n;
    out.dst_write = std::gcd(4, per_n);
    out.valid = true;
    return out;
}

// CalculateGemmCThreadCopyPerformanceParameters (:342-407): vector writes into dx only for a 1x1[x1]
// filter, stride 1, no padding.
int c_copy(const GemmConfig& c, const Interpreted& s) {
    const bool unit = s.z == 1 && s.y == 1 && s.x == 1 && s.stride_d == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                      s.left_pad_d == 0 && s.left_pad_h == 0 && s.left_pad_w == 0 && s.right_pad_d == 0 &&
                      s.right_pad_h == 0 && s.right_pad_w == 0;
    return unit ? static_cast<int>(std::gcd(static_cast<long>(std::gcd(4, c.GemmNPerThread)), s.di * s.hi * s.wi)) : 1;
}

// IsValid (:469-527): every GEMM's sizes divide by the block's tiles.
Derived derive(const GemmConfig& c, const Interpreted& s) {
    Derived d;
    if (!c.valid_value()) return d;
    for (long id = 0; id < number_of_gemms(s); ++id) {
        const Gemm g = gemm_size(s, id);
        if (!(g.m % c.GemmMPerBlock == 0 && g.n % c.GemmNPerBlock == 0 && g.k % c.GemmKPerBlock == 0)) return d;
    }
    if (!(c.GemmMPerBlock % c.GemmMPerThread == 0 && c.GemmNPerBlock % c.GemmNPerThread == 0)) return d;
    d.block = c.block_gemm();
    if (!d.block.valid) return d;
    d.a = a_copy(c, s);
    if (!d.a.valid) return d;
    d.b = b_copy(c, s);
    if (!d.b.valid) return d;
    d.c_dst_write = c_copy(c, s);
    const auto lds = hip_implicit_gemm::gemm_lds_bytes(c, d.a.dst_write, d.b.dst_write, c.GemmMPerThread, c.GemmNPerThread);
    if (!lds || *lds > hip_implicit_gemm::kLdsMaxBytes) return d;
    const Gemm g0 = gemm_size(s, 0);
    d.grid_size = (g0.m / c.GemmMPerBlock) * (g0.n / c.GemmNPerBlock);  // CalculateGridSize (:89-113)
    d.valid = true;
    return d;
}

class ConvHipImplicitGemmBwdDataV4R1 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmBwdDataV4R1"; }
    bool uses_general_options() const override { return true; }

    std::optional<std::string> disabled_by_default(const ConvView&, const SolverContext&) const override {
        // Checked before the deprecated-solver rule (:733-738).
        return "WORKAROUND_SWDEV_229277_227616_229195: off unless MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1=1 "
               "(implicitgemm_util.hpp:42, conv_hip_implicit_gemm_bwd_v4r1.cpp:733-736, MIOpen 3.3.0)";
    }

    // IsApplicable (:730-794) but for the default-off switches of disabled_by_default(): the
    // convolution is not deterministic by default; use_hip_kernels holds (MIOPEN_DEBUG_HIP_KERNELS
    // unset); a key describes packed tensors (HasNonPackedTensors is false).
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!hip_implicit_gemm::composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
        if (!p.IsDirectionBackwardData()) return reject(why, "not backward data");
        if (!p.Is2d() && !p.Is3d()) return reject(why, "not 2-D or 3-D");
        if (!p.IsFp32()) return reject(why, "not FP32");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (p.GetGroupCount() != 1) return reject(why, "grouped");
        if (!p.IsLayoutDefault()) return reject(why, "not NCHW / NCDHW");
        if (!hip_implicit_gemm::index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
        const Interpreted s = hip_implicit_gemm::interpret(p);
        for (long id = 0; id < number_of_gemms(s); ++id)
            if (gemm_size(s, id).k % 4 != 0) return reject(why, "a GEMM's K is not a multiple of 4");
        const Gemm g = gemm_size(s, 0);
        return (g.m % 32 == 0 && g.n % 32 == 0) || reject(why, "GEMM M or N is not a multiple of 32");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const Interpreted s = hip_implicit_gemm::interpret(p);
        // The perf-db record when it parses (Visit order: solvers.hpp:713-723) and IsValidPerformanceConfig
        // (:803-810: IsValidValue and IsValid) accepts it, else HeuristicInit (:529-584): the first valid
        // candidate, or the last one when none is.
        const GemmConfig c =
            hip_implicit_gemm::backward_data::config(p, ctx, name(), [&](const GemmConfig& candidate) { return derive(candidate, s); });
        const Derived d = derive(c, s);
        if (!d.valid) return {};  // MIOpen asserts (HeuristicInit: "All attempts failed")

        // GetSolution (:912-975, MIOpen 3.3.0): problem, tunables, copies, grid, inline asm, the GEMM id,
        // the common CK flags, the general options (data-type block), then the 3-D block.
        const char* inline_asm = hip_implicit_gemm::use_amd_inline_asm(p, ctx.target) ? "1" : "0";
        const std::string head = hip_implicit_gemm::problem_defines(s) + hip_implicit_gemm::block_gemm_defines(c, d.block) +
                                 fmt::format(
                                     " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N={}"
                                     " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1={}"
                                     " -DCK_PARAM_DEPENDENT_GRID_SIZE={} -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM={}"
                                     " -DCK_USE_AMD_INLINE_ASM={}",
                                     d.a.cluster_k, d.a.cluster_mn, d.a.src_read, d.a.dst_write, d.b.cluster_k,
                                     d.b.cluster_mn, d.b.src_read, d.b.dst_write, d.c_dst_write, d.grid_size,
                                     inline_asm, inline_asm);
        const std::string tail = hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options +
                                 (s.is3d ? hip_implicit_gemm::depth_defines(s) : std::string());
        const std::string kernel = s.is3d ? "gridwise_convolution_backward_data_implicit_gemm_v4r1_ncdhw_kczyx_nkdhw"
                                          : "gridwise_convolution_backward_data_implicit_gemm_v4r1_nchw_kcyx_nkhw";
        std::vector<SolverKernel> out;
        for (long id = 0; id < number_of_gemms(s); ++id)
            if (gemm_size(s, id).k > 0)  // :840-841: an empty GEMM is neither compiled nor launched
                out.push_back({"static_kernel_" + kernel + ".cpp", {kernel},
                               head + fmt::format(" -DCK_PARAM_GEMM_ID={}", id) + tail});
        // impl_gemm.cpp:170-190: SetTensor(dx, 0) when the windows leave gaps.
        if (!hip_implicit_gemm::every_pixel_is_written(p))
            out.push_back(sub_tensor_op_with_scalar(false, hip_implicit_gemm::dx_elements(p), DataType::Float));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmBwdDataV4R1)

}  // namespace kdbgen
