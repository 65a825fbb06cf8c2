#include "implicitgemm_util.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <functional>
#include <numeric>

namespace kdbgen::hip_implicit_gemm {

namespace {

bool starts(const Target& t, std::string_view prefix) { return t.name().starts_with(prefix); }

long product(std::span<const long> v) {
    long out = 1;
    for (const long d : v) out *= d;
    return out;
}

}  // namespace

bool composable_kernel_hardware(const Target& t) {
    return (starts(t, "gfx803") && t.compute_units == 64) || starts(t, "gfx900") || starts(t, "gfx906") ||
           starts(t, "gfx908") || starts(t, "gfx90a") || starts(t, "gfx94") || starts(t, "gfx103");
}

bool xdlops_supported(const Target& t) { return starts(t, "gfx908") || starts(t, "gfx90a") || starts(t, "gfx94"); }

int epack_length(const ConvView& p, const Target& target, bool xdlops_invoked) {
    if (p.IsFp16()) return xdlops_supported(target) && xdlops_invoked ? 4 : 2;
    if (p.IsBfp16()) return 2;
    return 1;
}

int read_write_vector_size(long v) { return v % 4 == 0 ? 4 : (v % 2 == 0 ? 2 : 1); }

int type_size(const ConvView& p) { return p.IsFp32() ? 4 : (p.IsFp16() || p.IsBfp16()) ? 2 : p.p.data_types.starts_with("INT8") ? 1 : 4; }

bool index_range_large_enough(const ConvView& p) {
    const long long max_range = 2LL * 1024 * 1024 * 1024;
    const long long bytes = type_size(p);
    const auto& q = p.p;
    const long k = p.IsDirectionForward() ? q.out_channels : q.in_channels;
    const long c = p.IsDirectionForward() ? q.in_channels : q.out_channels;
    const long long in = bytes * q.batch * q.in_channels * product(q.in_spatial);
    const long long out = bytes * q.batch * q.out_channels * product(q.out_spatial);
    const long long wei = bytes * k * (c / std::max(1L, q.groups)) * product(q.weights_spatial);
    return in < max_range && wei < max_range && out < max_range;
}

bool use_amd_inline_asm(const ConvView& p, const Target& target) {
    if (starts(target, "gfx8")) return false;
    if (!(starts(target, "gfx906") || starts(target, "gfx908")) && p.IsFp16()) return false;
    return true;  // MIOPEN_DEBUG_IMPLICIT_GEMM_NON_XDLOPS_INLINE_ASM not disabled
}

std::string common_compiler_flags(const Target& target) {
    // WORKAROUND_SWDEV_229564 and WORKAROUND_SWDEV_231101 are 1 (implicitgemm_util.hpp:39-45);
    // WORKAROUND_MIOPEN_ISSUE_557 is 1 (:47): no buffer addressing on gfx103x.
    return fmt::format(
        " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD={} -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
        " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING={}"
        " -DCK_USE_AMD_V_FMAC_F32={}",
        starts(target, "gfx908") ? 1 : 0, starts(target, "gfx103") ? 0 : 1, starts(target, "gfx103") ? 1 : 0);
}

GemmShape kernel_shape(const ConvView& p) {
    GemmShape s{};
    const bool wrw = p.IsDirectionBackwardWrW();
    s.n = wrw ? p.GetOutChannels() / p.GetGroupCount() : p.GetBatchSize();
    s.k = wrw ? p.GetInChannels() : p.GetOutChannels();
    s.c = wrw ? p.GetBatchSize() : p.GetInChannels() / p.GetGroupCount();
    s.ho = p.IsDirectionForward() ? p.GetOutHeight() : wrw ? p.GetWeightsHeight() : p.GetInHeight();
    s.wo = p.IsDirectionForward() ? p.GetOutWidth() : wrw ? p.GetWeightsWidth() : p.GetInWidth();
    s.y = wrw ? p.GetInHeight() : p.GetWeightsHeight();
    s.x = wrw ? p.GetInWidth() : p.GetWeightsWidth();
    return s;
}

std::optional<V4R1Config> V4R1Config::parse(const std::string& text) {
    V4R1Config c;
    if (!read_record(text, {&c.BPerBlock, &c.KPerBlock, &c.EPerBlock, &c.GemmNRepeat, &c.GemmMPerThreadSubC,
                            &c.GemmNPerThreadSubC, &c.GemmMLevel0Cluster, &c.GemmNLevel0Cluster,
                            &c.GemmMLevel1Cluster, &c.GemmNLevel1Cluster, &c.InBlockCopyClusterLengths_E,
                            &c.InBlockCopyClusterLengths_N1, &c.InBlockCopyClusterLengths_B,
                            &c.InBlockCopyClusterLengths_N2, &c.WeiBlockCopyClusterLengths_E,
                            &c.WeiBlockCopyClusterLengths_K}))
        return std::nullopt;
    return c;
}

std::string V4R1Config::text() const {
    return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", BPerBlock, KPerBlock, EPerBlock, GemmNRepeat,
                       GemmMPerThreadSubC, GemmNPerThreadSubC, GemmMLevel0Cluster, GemmNLevel0Cluster,
                       GemmMLevel1Cluster, GemmNLevel1Cluster, InBlockCopyClusterLengths_E,
                       InBlockCopyClusterLengths_N1, InBlockCopyClusterLengths_B, InBlockCopyClusterLengths_N2,
                       WeiBlockCopyClusterLengths_E, WeiBlockCopyClusterLengths_K);
}

bool V4R1Config::valid_value() const {
    return two_power(BPerBlock, 8, 16) && two_power(KPerBlock, 16, 128) && two_power(EPerBlock, 4, 16) &&
           GemmNRepeat == 2 && two_power(GemmMPerThreadSubC, 2, 4) && two_power(GemmNPerThreadSubC, 2, 4) &&
           two_power(GemmMLevel0Cluster, 1, 4) && two_power(GemmNLevel0Cluster, 1, 4) &&
           two_power(GemmMLevel1Cluster, 1, 4) && two_power(GemmNLevel1Cluster, 1, 4) &&
           two_power(InBlockCopyClusterLengths_E, 4, 16) && two_power(InBlockCopyClusterLengths_B, 8, 16) &&
           two_power(InBlockCopyClusterLengths_N1, 1, 2) && two_power(InBlockCopyClusterLengths_N2, 1, 4) &&
           two_power(WeiBlockCopyClusterLengths_E, 1, 4) && two_power(WeiBlockCopyClusterLengths_K, 16, 128);
}

namespace {

// ComputeLDSRequiredSize (implicitgemm_util.hpp:403-431).
std::size_t lds_required(const ConvView& p, int BPerBlock, int KPerBlock, int EPerBlock, int read_a, int read_b,
                         int in_sub_b, int wei_sub_k, int epack) {
    const std::size_t alignment =
        (p.IsBfp16() || p.IsFp16())
            ? static_cast<std::size_t>(std::max(read_write_vector_size(in_sub_b), epack))
            : static_cast<std::size_t>(std::max({read_write_vector_size(wei_sub_k), read_write_vector_size(in_sub_b),
                                                 read_a, read_b}));
    return (static_cast<std::size_t>(BPerBlock) + KPerBlock) * EPerBlock * epack * type_size(p) * 2 + 2 * alignment;
}

// The body both IsValid share; `base` adds PerformanceImplicitGemm's extra rules.
bool valid(const V4R1Config& c, const ConvView& p, const Target& target, bool base) {
    const auto s = kernel_shape(p);
    const long N1 = c.GemmNRepeat, N2 = c.GemmNPerThreadSubC;
    if (N1 * N2 <= 0 || s.n % (N1 * N2) != 0) return false;
    const long N0 = s.n / (N1 * N2);
    const long B = N0 * s.ho * s.wo;
    const int epack = epack_length(p, target, false);
    const long E = s.c / epack * s.y * s.x;
    if (c.InBlockCopyClusterLengths_E <= 0 || c.WeiBlockCopyClusterLengths_E <= 0 || c.InBlockCopyClusterLengths_B <= 0 ||
        c.WeiBlockCopyClusterLengths_K <= 0 || c.InBlockCopyClusterLengths_N1 <= 0 || c.InBlockCopyClusterLengths_N2 <= 0 ||
        c.KPerBlock <= 0 || c.BPerBlock <= 0 || c.EPerBlock <= 0)
        return false;
    if (!(c.EPerBlock % c.InBlockCopyClusterLengths_E == 0 && c.EPerBlock % c.WeiBlockCopyClusterLengths_E == 0 &&
          c.BPerBlock % c.InBlockCopyClusterLengths_B == 0 && c.KPerBlock % c.WeiBlockCopyClusterLengths_K == 0 &&
          N1 % c.InBlockCopyClusterLengths_N1 == 0 && N2 % c.InBlockCopyClusterLengths_N2 == 0))
        return false;
    if (base && p.IsDirectionBackwardWrW() && (s.x * s.y) % (c.EPerBlock / c.WeiBlockCopyClusterLengths_E) != 0)
        return false;
    if (!(s.k % c.KPerBlock == 0 && B % c.BPerBlock == 0 && E % c.EPerBlock == 0)) return false;
    if (base && E % (2L * c.EPerBlock) != 0) return false;  // WORKAROUND_ISSUE_659
    const long KBlockWork = s.k / c.KPerBlock;
    if (KBlockWork % p.GetGroupCount() != 0) return false;
    const long n_cluster = static_cast<long>(c.GemmNPerThreadSubC) * c.GemmNLevel0Cluster * c.GemmNLevel1Cluster;
    const long m_cluster = static_cast<long>(c.GemmMPerThreadSubC) * c.GemmMLevel0Cluster * c.GemmMLevel1Cluster;
    if (n_cluster <= 0 || m_cluster <= 0) return false;
    if ((N1 * N2 * c.BPerBlock) % n_cluster != 0) return false;
    if ((p.IsFp16() || p.IsBfp16()) && c.GemmNPerThreadSubC != c.GemmMPerThreadSubC) return false;
    if (c.KPerBlock % m_cluster != 0) return false;
    if (c.GemmNRepeat != (N1 * N2 * c.BPerBlock) / n_cluster) return false;
    const int block_size = c.block_size();
    if (block_size < 64 || block_size > 512) return false;
    if (block_size != c.InBlockCopyClusterLengths_E * c.InBlockCopyClusterLengths_N1 * c.InBlockCopyClusterLengths_B *
                          c.InBlockCopyClusterLengths_N2)
        return false;
    if (block_size != c.WeiBlockCopyClusterLengths_K * c.WeiBlockCopyClusterLengths_E) return false;
    const long GemmMRepeat = c.KPerBlock / m_cluster;
    if (!(GemmMRepeat == 2 && c.GemmNRepeat == 2)) return false;
    const int in_sub_e = c.EPerBlock / c.InBlockCopyClusterLengths_E;
    const int in_sub_b = c.BPerBlock / c.InBlockCopyClusterLengths_B;
    const int wei_sub_k = c.KPerBlock / c.WeiBlockCopyClusterLengths_K;
    const auto lds = lds_required(p, c.BPerBlock, c.KPerBlock, c.EPerBlock, c.GemmMPerThreadSubC, c.GemmNPerThreadSubC,
                                  in_sub_b, wei_sub_k, epack);
    if (lds > 64 * 1024) return false;
    return in_sub_e == 1 && in_sub_b == 1;
}

}  // namespace

bool V4R1Config::valid_base(const ConvView& p, const Target& target) const { return valid(*this, p, target, true); }
bool V4R1Config::valid_v4r1(const ConvView& p, const Target& target) const { return valid(*this, p, target, false); }

V4R1Config v4r1_heuristic(const ConvView& p, const Target& target) {
    // Each attempt changes only the fields it names; the rest stay from before.
    V4R1Config c{16, 128, 8, 2, 4, 4, 4, 4, 4, 4, 8, 2, 16, 1, 2, 128};
    const std::array<std::function<void(V4R1Config&)>, 5> attempts = {
        [](V4R1Config& c) {
            c.BPerBlock = 8, c.KPerBlock = 128, c.EPerBlock = 8, c.GemmMLevel0Cluster = 4, c.GemmNLevel0Cluster = 4,
            c.GemmMLevel1Cluster = 4, c.GemmNLevel1Cluster = 2, c.InBlockCopyClusterLengths_E = 8,
            c.InBlockCopyClusterLengths_N1 = 1, c.InBlockCopyClusterLengths_B = 8, c.InBlockCopyClusterLengths_N2 = 2,
            c.WeiBlockCopyClusterLengths_E = 2, c.WeiBlockCopyClusterLengths_K = 64;
        },
        [](V4R1Config& c) {
            c.BPerBlock = 8, c.KPerBlock = 64, c.EPerBlock = 8, c.GemmMLevel0Cluster = 4, c.GemmNLevel0Cluster = 2,
            c.GemmMLevel1Cluster = 2, c.GemmNLevel1Cluster = 4, c.InBlockCopyClusterLengths_E = 8,
            c.InBlockCopyClusterLengths_N1 = 1, c.InBlockCopyClusterLengths_B = 8, c.InBlockCopyClusterLengths_N2 = 1,
            c.WeiBlockCopyClusterLengths_E = 4, c.WeiBlockCopyClusterLengths_K = 16;
        },
        [](V4R1Config& c) {
            c.BPerBlock = 16, c.KPerBlock = 32, c.EPerBlock = 4, c.GemmMLevel0Cluster = 1, c.GemmNLevel0Cluster = 4,
            c.GemmMLevel1Cluster = 4, c.GemmNLevel1Cluster = 4, c.InBlockCopyClusterLengths_E = 4,
            c.InBlockCopyClusterLengths_N1 = 1, c.InBlockCopyClusterLengths_B = 16, c.InBlockCopyClusterLengths_N2 = 1;
        },
        [](V4R1Config& c) {
            c.BPerBlock = 16, c.KPerBlock = 16, c.EPerBlock = 4, c.GemmMPerThreadSubC = 2, c.GemmNPerThreadSubC = 2,
            c.GemmMLevel0Cluster = 2, c.GemmNLevel0Cluster = 4, c.GemmMLevel1Cluster = 2, c.GemmNLevel1Cluster = 4;
        },
        [](V4R1Config& c) {
            c.BPerBlock = 8, c.KPerBlock = 32, c.EPerBlock = 4, c.GemmNRepeat = 2, c.GemmMPerThreadSubC = 2,
            c.GemmNPerThreadSubC = 2, c.GemmMLevel0Cluster = 2, c.GemmNLevel0Cluster = 4, c.GemmMLevel1Cluster = 4,
            c.GemmNLevel1Cluster = 2, c.InBlockCopyClusterLengths_E = 4, c.InBlockCopyClusterLengths_N1 = 2,
            c.InBlockCopyClusterLengths_B = 8, c.InBlockCopyClusterLengths_N2 = 1, c.WeiBlockCopyClusterLengths_E = 4,
            c.WeiBlockCopyClusterLengths_K = 16;
        }};
    for (const auto& attempt : attempts) {
        if (c.valid_base(p, target)) return c;
        attempt(c);
    }
    return c;
}

V4R1Config v4r1_config(const ConvView& p, const SolverContext& ctx, std::string_view solver) {
    if (const auto record = perf_db_record(p, ctx, solver))
        if (const auto parsed = checked_perf_record(V4R1Config::parse(*record), ctx.perf_db, p.p, std::string(solver), *record);
            parsed && parsed->valid_value() && parsed->valid_v4r1(p, ctx.target))
            return *parsed;
    return v4r1_heuristic(p, ctx.target);
}

bool v4r1_common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why) {
    // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_{FWD,WRW}_V4R1 are on unless disabled; the
    // deprecated-solver rule is disabled_by_default (DeprecatedSolver).
    if (!composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
    if (p.p.direction != direction) return reject(why, "another direction");
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
    if (!p.IsFp32() && !p.IsFp16() && !p.IsBfp16()) return reject(why, "not FP32, FP16 or BF16");
    if (!index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
    if (!p.IsLayoutDefault()) return reject(why, "not NCHW");
    if (ctx.target.name() == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    return true;
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

SolverKernel v4r1_kernel(const ConvView& p, const SolverContext& ctx, const V4R1Config& c, const V4R1Kernel& k) {
    // Right pads: what the padded input needs beyond the left pad and the image, GetAdjustedInputRightPad's
    // rule on the problem's own (unadjusted) strides and dilations (conv_hip_implicit_gemm_fwd_v4r1.cpp:227-235).
    const long right_pad_h = right_pad(k.hi, k.ho, k.y, k.stride_h, k.dilation_h, k.left_pad_h);
    const long right_pad_w = right_pad(k.wi, k.wo, k.x, k.stride_w, k.dilation_w, k.left_pad_w);
    const char* inline_asm = use_amd_inline_asm(p, ctx.target) ? "1" : "0";
    std::string o = fmt::format(
        " -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={} -DCK_PARAM_PROBLEM_HI={}"
        " -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={} -DCK_PARAM_PROBLEM_Y={}"
        " -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={} -DCK_PARAM_PROBLEM_CONV_STRIDE_W={}"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_H={} -DCK_PARAM_PROBLEM_CONV_DILATION_W={}"
        " -DCK_PARAM_PROBLEM_LEFT_PAD_H={} -DCK_PARAM_PROBLEM_LEFT_PAD_W={} -DCK_PARAM_PROBLEM_RIGHT_PAD_H={}"
        " -DCK_PARAM_PROBLEM_RIGHT_PAD_W={} -DCK_PARAM_PROBLEM_CONV_GROUP_COUNTS={}"
        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD={} -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT={}",
        k.n, k.k, k.c, k.hi, k.wi, k.ho, k.wo, k.y, k.x, k.stride_h, k.stride_w, k.dilation_h, k.dilation_w,
        k.left_pad_h, k.left_pad_w, right_pad_h, right_pad_w, p.GetGroupCount(), k.direction_forward,
        k.direction_backward_weight);
    o += fmt::format(
        " -DCK_PARAM_TUNABLE_BLOCK_SIZE={} -DCK_PARAM_TUNABLE_B_PER_BLOCK={} -DCK_PARAM_TUNABLE_K_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_E_PER_BLOCK={} -DCK_PARAM_DEPENDENT_GRID_SIZE={} -DCK_PARAM_GEMM_N_REPEAT={}"
        " -DCK_PARAM_GEMM_M_PER_THREAD_SUB_C={} -DCK_PARAM_GEMM_N_PER_THREAD_SUB_C={}"
        " -DCK_PARAM_GEMM_M_LEVEL0_CLUSTER={} -DCK_PARAM_GEMM_N_LEVEL0_CLUSTER={}"
        " -DCK_PARAM_GEMM_M_LEVEL1_CLUSTER={} -DCK_PARAM_GEMM_N_LEVEL1_CLUSTER={}"
        " -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_E={} -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N1={}"
        " -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_B={} -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N2={}"
        " -DCK_PARAM_IN_BLOCK_COPY_SRC_DATA_PER_READ_B={} -DCK_PARAM_WEI_BLOCK_COPY_CLUSTER_LENGTHS_E={}"
        " -DCK_PARAM_WEI_BLOCK_COPY_CLUSTER_LENGTHS_K={} -DCK_PARAM_WEI_BLOCK_COPY_SRC_DATA_PER_READ_E={}"
        " -DCK_PARAM_EPACK_LENGTH={} -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM={} -DCK_USE_AMD_INLINE_ASM={}",
        c.block_size(), c.BPerBlock, c.KPerBlock, c.EPerBlock, k.grid_size, c.GemmNRepeat, c.GemmMPerThreadSubC,
        c.GemmNPerThreadSubC, c.GemmMLevel0Cluster, c.GemmNLevel0Cluster, c.GemmMLevel1Cluster, c.GemmNLevel1Cluster,
        c.InBlockCopyClusterLengths_E, c.InBlockCopyClusterLengths_N1, c.InBlockCopyClusterLengths_B,
        c.InBlockCopyClusterLengths_N2, k.in_src_read_b, c.WeiBlockCopyClusterLengths_E, c.WeiBlockCopyClusterLengths_K,
        k.wei_src_read_e, epack_length(p, ctx.target, false), inline_asm, inline_asm);
    o += common_compiler_flags(ctx.target) + ctx.general_options;
    if (p.IsFp32())
        o += fmt::format(" -DCK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_N2={} -DCK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_K={}",
                         k.in_dst_write_n2, k.wei_dst_write_k);
    else
        o += fmt::format(" -DCK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK={0} -DCK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK={0}",
                         epack_length(p, ctx.target, false));
    const std::string layout = p.GetGroupCount() > 1 ? "gnchw_gkcyx_gnkhw" : "nchw_kcyx_nkhw";
    const std::string kernel = "gridwise_convolution_implicit_gemm_v4r1_" + layout + "_lds_double_buffer";
    return {"static_kernel_" + kernel + ".cpp", {kernel}, o};
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

bool valid_blockwise_gemm_xdlops(const ConvView& p, int m_per_block, int n_per_block, int k_per_block, int m_per_wave,
                                 int n_per_wave, int k_pack) {
    if (p.IsFp32() && k_per_block == 1 && k_pack == 8) return false;  // WORKAROUND_SWDEV_251757
    if (p.IsFp16() && k_pack % 4 != 0) return false;
    if (p.IsBfp16() && k_pack % 2 != 0) return false;
    static constexpr std::array<std::array<int, 3>, 11> wave_gemm = {{{128, 64, 1}, {64, 128, 1}, {64, 64, 1},
                                                                      {64, 32, 1}, {64, 16, 1}, {32, 64, 1},
                                                                      {32, 32, 2}, {16, 64, 1}, {16, 16, 4},
                                                                      {8, 64, 1}, {4, 64, 1}}};
    if (std::none_of(wave_gemm.begin(), wave_gemm.end(), [&](const auto& w) {
            return m_per_wave == w[0] && n_per_wave == w[1] && k_per_block % w[2] == 0;
        }))
        return false;
    const long block_size = static_cast<long>(n_per_block) * m_per_block / (m_per_wave * n_per_wave) * 64;
    if (block_size < 64 || block_size > 256) return false;
    return m_per_block % m_per_wave == 0 && n_per_block % n_per_wave == 0;
}

bool valid_grid_gemm_xdlops(long gemm_m, long gemm_n, long gemm_k) {
    if (gemm_m % 16 != 0 && gemm_n % 64 != 0) return false;
    return (gemm_m * gemm_n) % 256 == 0 && (gemm_k * gemm_m) % 64 == 0 && (gemm_k * gemm_n) % 64 == 0 &&
           gemm_n % 16 == 0 && gemm_m % 4 == 0 && gemm_k % 4 == 0;
}

std::string xdlops_flags(const Target& target) {
    return fmt::format(" -DCK_USE_AMD_XDLOPS={} -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0",
                       xdlops_supported(target) ? 1 : 0);
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

long right_pad(long in, long out, long filter, long stride, long dilation, long left_pad) {
    const long padded = 1 + (filter - 1) * dilation + (out - 1) * stride;
    return padded > left_pad + in ? padded - (left_pad + in) : 0;
}

Interpreted interpret(const ConvView& p) {
    const auto& s = p.p;
    Interpreted q;
    const bool forward = p.IsDirectionForward();
    q.is3d = p.Is3d();
    const auto& input = forward ? s.in_spatial : s.out_spatial;
    const auto& output = forward ? s.out_spatial : s.in_spatial;
    q.g = p.GetGroupCount();
    q.n = p.GetBatchSize();
    q.k = forward ? p.GetOutChannels() : p.GetInChannels();
    q.c = forward ? p.GetInChannels() : p.GetOutChannels();
    const std::size_t h = input.size() - 2, w = input.size() - 1;
    q.hi = input[h], q.wi = input[w], q.ho = output[h], q.wo = output[w];
    q.y = p.GetWeightsHeight(), q.x = p.GetWeightsWidth();
    q.stride_h = q.ho > 1 ? p.GetKernelStrideH() : 1;
    q.stride_w = q.wo > 1 ? p.GetKernelStrideW() : 1;
    q.dilation_h = q.y > 1 ? p.GetDilationH() : 1;
    q.dilation_w = q.x > 1 ? p.GetDilationW() : 1;
    q.left_pad_h = p.GetPadH(), q.left_pad_w = p.GetPadW();
    q.right_pad_h = right_pad(q.hi, q.ho, q.y, q.stride_h, q.dilation_h, q.left_pad_h);
    q.right_pad_w = right_pad(q.wi, q.wo, q.x, q.stride_w, q.dilation_w, q.left_pad_w);
    if (q.is3d) {
        q.di = input[0], q.do_ = output[0], q.z = s.weights_spatial[0];
        q.stride_d = q.do_ > 1 ? s.strides[0] : 1;
        q.dilation_d = q.z > 1 ? s.dilations[0] : 1;
        q.left_pad_d = s.pads[0];
        q.right_pad_d = right_pad(q.di, q.do_, q.z, q.stride_d, q.dilation_d, q.left_pad_d);
    }
    return q;
}

std::string problem_defines(const Interpreted& q) {
    return fmt::format(
        " -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={} -DCK_PARAM_PROBLEM_HI={}"
        " -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={} -DCK_PARAM_PROBLEM_Y={}"
        " -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={} -DCK_PARAM_PROBLEM_CONV_STRIDE_W={}"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_H={} -DCK_PARAM_PROBLEM_CONV_DILATION_W={}"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={}"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}",
        q.n, q.k, q.c, q.hi, q.wi, q.ho, q.wo, q.y, q.x, q.stride_h, q.stride_w, q.dilation_h, q.dilation_w,
        q.left_pad_h, q.left_pad_w, q.right_pad_h, q.right_pad_w);
}

std::string depth_defines(const Interpreted& q) {
    return fmt::format(
        " -DCK_PARAM_PROBLEM_DI={} -DCK_PARAM_PROBLEM_DO={} -DCK_PARAM_PROBLEM_Z={}"
        " -DCK_PARAM_PROBLEM_CONV_STRIDE_D={} -DCK_PARAM_PROBLEM_CONV_DILATION_D={}"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_D={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D={}",
        q.di, q.do_, q.z, q.stride_d, q.dilation_d, q.left_pad_d, q.right_pad_d);
}

int int_product(long a, long b) {
    return static_cast<int>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

bool grid_not_too_large(long gemm_m, long gemm_n, int m_per_block, int n_per_block, unsigned compute_units) {
    const int grid_size = int_product(gemm_m, gemm_n) / (m_per_block * n_per_block);
    const long max_blockwise =
        std::max(std::gcd(256L, gemm_m) * std::gcd(128L, gemm_n), std::gcd(128L, gemm_m) * std::gcd(256L, gemm_n));
    const std::size_t grid_max =
        static_cast<std::size_t>(gemm_m) * static_cast<std::size_t>(gemm_n) / static_cast<std::size_t>(max_blockwise);
    const float ratio = static_cast<float>(grid_size) / static_cast<float>(grid_max);
    const std::size_t cu = compute_units;
    // MIOpen compares the float ratio with double literals.
    if (grid_max > 5 * cu) return !(ratio > 2.81);
    if (grid_max > 4 * cu) return !(ratio > 3.61);
    if (grid_max > 3 * cu) return !(ratio > 4.41);
    if (grid_max > 2 * cu) return !(ratio > 6.41);
    if (grid_max > cu) return !(ratio > 12.41);
    return true;
}

std::optional<std::string> perf_db_record(const ConvView& p, const SolverContext& ctx, std::string_view solver) {
    if (!ctx.perf_db) return std::nullopt;
    return ctx.perf_db->find(p.p, std::string(solver));
}

std::optional<std::vector<std::string>> record_fields(const std::string& text, std::size_t n) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (out.size() < n) {
        if (start >= text.size()) return std::nullopt;  // getline extracts nothing: failbit
        const auto comma = text.find(',', start);
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        out.push_back(text.substr(start, end - start));
        start = comma == std::string::npos ? text.size() : comma + 1;
    }
    return out;
}

namespace {

// `stream >> long` as libstdc++'s num_get reads it: nullopt when no digit is read, else the value,
// saturated at the long range.
std::optional<long> stream_long(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    long value = 0;
    bool overflow = false;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
        if (value > (LONG_MAX - (s[i] - '0')) / 10) overflow = true;
        else value = value * 10 + (s[i] - '0');
    }
    if (overflow) return negative ? LONG_MIN : LONG_MAX;
    return negative ? -value : value;
}

}  // namespace

int record_int(std::string_view field) {
    const auto v = stream_long(field);
    if (!v) return 0;
    return static_cast<int>(std::clamp<long>(*v, INT_MIN, INT_MAX));
}

bool record_bool(std::string_view field) {
    const auto v = stream_long(field);
    return v && *v != 0;
}

bool read_record(const std::string& text, std::initializer_list<RecordField> fields) {
    const auto parts = record_fields(text, fields.size());
    if (!parts) return false;
    std::size_t i = 0;
    for (const auto& field : fields) {
        if (const auto* v = std::get_if<int*>(&field)) **v = record_int((*parts)[i]);
        else **std::get_if<bool*>(&field) = record_bool((*parts)[i]);
        ++i;
    }
    return true;
}

bool xdlops_common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why) {
    if (!composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
    if (!xdlops_supported(ctx.target)) return reject(why, "no xdlops");
    if (!(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return reject(why, "not FP32, FP16 or BF16");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (p.p.direction != direction) {
        switch (direction) {
            case ConvDirection::Forward: return reject(why, "not forward");
            case ConvDirection::BackwardData: return reject(why, "not backward data");
            default: return reject(why, "not backward weights");
        }
    }
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (ctx.target.name() == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt");
    if (!index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
    if (!p.IsLayoutDefault()) return reject(why, "not NCHW");
    return true;
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

std::optional<GemmConfig> GemmConfig::parse(const std::string& text) {
    GemmConfig c;
    if (!read_record(text, {&c.BlockSize, &c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerThread,
                            &c.GemmNPerThread}))
        return std::nullopt;
    return c;
}

std::string GemmConfig::text() const {
    return fmt::format("{},{},{},{},{},{}", BlockSize, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerThread,
                       GemmNPerThread);
}

bool GemmConfig::valid_value() const {
    return two_power(BlockSize, 64, 256) && two_power(GemmMPerBlock, 32, 128) && two_power(GemmNPerBlock, 32, 128) &&
           two_power(GemmKPerBlock, 4, 16) && two_power(GemmMPerThread, 2, 4) && two_power(GemmNPerThread, 2, 4);
}

BlockGemm GemmConfig::block_gemm() const {
    BlockGemm g;
    switch (BlockSize) {
        case 64: g = {4, 4, 2, 2, true}; break;
        case 128: g = {4, 4, 4, 2, true}; break;
        case 256: g = {4, 4, 4, 4, true}; break;
        default: return {};
    }
    if (GemmMPerThread <= 0 || GemmNPerThread <= 0 || GemmMPerBlock % GemmMPerThread != 0 ||
        GemmNPerBlock % GemmNPerThread != 0)
        return {};
    const int threads_m = GemmMPerBlock / GemmMPerThread, threads_n = GemmNPerBlock / GemmNPerThread;
    const int cluster_m = g.m_level0 * g.m_level1, cluster_n = g.n_level0 * g.n_level1;
    // As MIOpen writes it (fwd_v4r4.cpp:159-161, bwd_v1r1.cpp:164-166): `!(m % cm == 0) && (n % cn == 0)`
    // refuses only an M that does not divide with an N that does; the 2 x 2 rule below does the rest.
    if (threads_m % cluster_m != 0 && threads_n % cluster_n == 0) return {};
    // The inline-asm blockwise GEMM takes 2 x 2 clusters per block.
    if (!(threads_m / cluster_m == 2 && threads_n / cluster_n == 2)) return {};
    return g;
}

// BlockSize, GemmM/N/KPerBlock, GemmM/NPerThread (fwd_v4r4.cpp:483-523, wrw_v4r4.cpp:486-526,
// bwd_v1r1.cpp:516-556, bwd_v4r1.cpp:535-575: the same list).
const std::array<GemmConfig, 21> kGemmHeuristicOrder = {{
    {256, 128, 128, 16, 4, 4}, {256, 128, 128, 8, 4, 4}, {256, 128, 128, 4, 4, 4},
    {128, 128, 64, 16, 4, 4},  {128, 128, 64, 8, 4, 4},  {128, 128, 64, 4, 4, 4},
    {128, 64, 128, 16, 4, 4},  {128, 64, 128, 8, 4, 4},  {128, 64, 128, 4, 4, 4},
    {64, 64, 64, 16, 4, 4},    {64, 64, 64, 8, 4, 4},    {64, 64, 64, 4, 4, 4},
    {64, 64, 32, 16, 4, 2},    {64, 64, 32, 8, 4, 2},    {64, 64, 32, 4, 4, 2},
    {64, 32, 64, 16, 2, 4},    {64, 32, 64, 8, 2, 4},    {64, 32, 64, 4, 2, 4},
    {64, 32, 32, 16, 2, 2},    {64, 32, 32, 8, 2, 2},    {64, 32, 32, 4, 2, 2},
}};

std::optional<std::size_t> gemm_lds_bytes(const GemmConfig& c, int a_dst_write, int b_dst_write, int thread_read_m,
                                          int thread_read_n) {
    const long align = std::lcm(std::lcm(static_cast<long>(a_dst_write), static_cast<long>(b_dst_write)),
                                std::lcm(static_cast<long>(thread_read_m), static_cast<long>(thread_read_n)));
    if (align <= 0) return std::nullopt;
    const auto least_multiple = [](long v, long of) { return of * ((v + of - 1) / of); };
    const long a_space = static_cast<long>(c.GemmKPerBlock) * least_multiple(c.GemmMPerBlock, align);
    const long b_space = static_cast<long>(c.GemmKPerBlock) * least_multiple(c.GemmNPerBlock, align);
    return 2 * static_cast<std::size_t>(a_space + b_space) * sizeof(float);
}

std::string block_gemm_defines(const GemmConfig& c, const BlockGemm& g) {
    return fmt::format(
        " -DCK_PARAM_TUNABLE_BLOCK_SIZE={} -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD={} -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER={} -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER={} -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER={}",
        c.BlockSize, c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerThread, c.GemmNPerThread,
        g.m_level0, g.n_level0, g.m_level1, g.n_level1);
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

DataType data_type_of(const ConvView& p) {
    return p.IsFp16() ? DataType::Half : p.IsBfp16() ? DataType::BFloat16 : DataType::Float;
}

long dx_elements(const ConvView& p) {
    long out = p.GetBatchSize() * p.GetOutChannels();
    for (const long d : p.p.out_spatial) out *= d;
    return out;
}

bool needs_atomic_add(const ConvView& p) {
    for (std::size_t i = 0; i < p.p.weights_spatial.size(); ++i)
        if (p.p.strides[i] < p.p.dilations[i] * (p.p.weights_spatial[i] - 1) + 1) return true;
    return false;
}

bool every_pixel_is_written(const ConvView& p) {
    for (std::size_t i = 0; i < p.p.weights_spatial.size(); ++i)
        if (!(p.p.dilations[i] == 1 && p.p.strides[i] <= p.p.weights_spatial[i])) return false;
    return true;
}

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

std::string grouped_problem_defines(const Interpreted& q) {
    return fmt::format(" -DCK_PARAM_PROBLEM_G={}", q.g) + problem_defines(q);
}

int GemmTile::block_size() const {
    if (GemmMPerWave <= 0 || GemmNPerWave <= 0 || GemmMPerBlock % GemmMPerWave != 0 || GemmNPerBlock % GemmNPerWave != 0)
        return -1;
    return GemmNPerBlock * GemmMPerBlock / (GemmMPerWave * GemmNPerWave) * 64;
}

bool GemmTile::valid_value() const {
    return two_power(GemmMPerBlock, 4, 256) && two_power(GemmNPerBlock, 4, 256) && two_power(GemmKPerBlock, 1, 8) &&
           two_power(GemmMPerWave, 4, 128) && two_power(GemmNPerWave, 4, 128) && two_power(GemmKPack, 1, 8);
}

bool GemmTile::lds_fits(const ConvView& p) const {
    const std::size_t bytes = static_cast<std::size_t>(GemmKPerBlock) * GemmKPack * (GemmMPerBlock + GemmNPerBlock) *
                              (p.IsFp32() ? 4 : 2);
    return bytes <= 65536;
}

GemmTile tile_walk_start(const ConvView& p) { return {256, 256, 8, 128, 128, p.IsFp32() ? 4 : 8}; }

XdlopsCopy xdlops_a_copy(const GemmTile& t, bool more_gemm_k, const ConvView& p, long read_bound, bool lcm_with_read,
                         bool exact_cluster) {
    XdlopsCopy out;
    const int block = t.block_size();
    if (block <= 0) return out;
    int src = std::gcd(4, t.GemmKPack);
    if (read_bound > 0) src = static_cast<int>(std::gcd(static_cast<long>(src), read_bound));
    if (src <= 0) return out;
    int per_thread = std::max(1, t.GemmKPerBlock * t.GemmMPerBlock * t.GemmKPack / block);
    if (lcm_with_read) per_thread = std::lcm(per_thread, src);
    const int tmp = per_thread / src;
    if (tmp == 0) return out;
    int per_k = 0, per_m = 0;
    if (more_gemm_k) {
        per_k = std::gcd(t.GemmKPerBlock, tmp);
        per_m = per_k > 0 ? tmp / per_k : 0;
    } else {
        per_m = std::gcd(t.GemmMPerBlock, tmp);
        per_k = per_m > 0 ? tmp / per_m : 0;
    }
    const int dst = std::gcd(p.IsFp32() ? 4 : 8, src);
    if (per_k <= 0 || per_m <= 0 || t.GemmKPerBlock % per_k != 0 || t.GemmMPerBlock % per_m != 0 ||
        t.GemmKPack % src != 0)
        return out;
    out = {t.GemmKPerBlock / per_k, t.GemmMPerBlock / per_m, t.GemmKPack / src, src, dst, true};
    const int cluster = out.cluster_k * out.cluster_mn * out.cluster_kpack;
    if (exact_cluster ? block != cluster : block < cluster) out.valid = false;
    return out;
}

bool copies_per_thread_fit(const ConvView& p, int waves, int k_per_block, int m_per_block, int n_per_block, int kpack) {
    const int block = waves * 64;
    const int a_per_thread = k_per_block * m_per_block * kpack / block;
    const int b_per_thread = k_per_block * n_per_block * kpack / block;
    if (p.IsFp32() && (a_per_thread > 16 || b_per_thread > 16)) return false;
    if ((p.IsFp16() || p.IsBfp16()) && (a_per_thread > 32 || b_per_thread > 32)) return false;
    return true;
}

bool xdlops_fast_for_tuning(const GemmTile& t, const ConvView& p, long gemm_m, long gemm_n,
                            std::optional<long> k_total_gate, unsigned compute_units) {
    // 128x128 wave-wise GEMMs spill registers.
    if (t.GemmMPerWave * t.GemmNPerWave > 64 * 128) return false;
    if (!grid_not_too_large(gemm_m, gemm_n, t.GemmMPerBlock, t.GemmNPerBlock, compute_units)) return false;
    const int waves = (t.GemmMPerBlock / t.GemmMPerWave) * (t.GemmNPerBlock / t.GemmNPerWave);
    if (!(waves > 1 && waves <= 4)) return false;
    // No skinny blockwise or wavewise GEMM where a squarer one fits.
    if (t.GemmMPerBlock > 2 * t.GemmNPerBlock && gemm_n % (2 * t.GemmNPerBlock) == 0) return false;
    if (t.GemmNPerBlock > 2 * t.GemmMPerBlock && gemm_m % (2 * t.GemmMPerBlock) == 0) return false;
    if (t.GemmMPerWave > 2 * t.GemmNPerWave && t.GemmNPerBlock % (2 * t.GemmNPerWave) == 0) return false;
    if (t.GemmNPerWave > 2 * t.GemmMPerWave && t.GemmMPerBlock % (2 * t.GemmMPerWave) == 0) return false;
    if (!copies_per_thread_fit(p, waves, t.GemmKPerBlock, t.GemmMPerBlock, t.GemmNPerBlock, t.GemmKPack)) return false;
    // GemmKPerBlock * GemmKPack not too small.
    const int kk = t.GemmKPerBlock * t.GemmKPack;
    if (p.IsFp32()) {
        if (t.GemmKPack > 4) return false;
        if (kk < 8 && (!k_total_gate || *k_total_gate % 8 == 0)) return false;
    } else if (p.IsFp16() || p.IsBfp16()) {
        if (kk < 16 && (!k_total_gate || *k_total_gate % 16 == 0)) return false;
    }
    return true;
}

std::string xdlops_tunable_defines(const GemmTile& t, long grid_size) {
    return fmt::format(
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE={}"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE={} -DCK_PARAM_TUNABLE_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_BLOCK_SIZE={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
        t.GemmMPerBlock, t.GemmNPerBlock, t.GemmKPerBlock, t.GemmMPerWave, t.GemmNPerWave, t.GemmKPack, t.block_size(),
        grid_size);
}

std::string xdlops_b_copy_defines(const XdlopsCopy& b, const char* cluster_name) {
    return fmt::format(
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_{}={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
        b.cluster_k, cluster_name, b.cluster_mn, b.cluster_kpack, b.src_read, b.dst_write);
}

long xdlops_b_read_width(const Interpreted& q) {
    const long src = 4;
    if (q.y == 1 && q.x == 1 && q.stride_h == 1 && q.stride_w == 1 && q.left_pad_h == 0 && q.left_pad_w == 0 &&
        q.right_pad_h == 0 && q.right_pad_w == 0)
        return std::gcd(src, q.ho * q.wo);
    if (q.stride_w == 1 && q.left_pad_w == 0 && q.right_pad_w == 0) return std::gcd(src, q.wo);
    if (q.stride_w == 1) return std::gcd(std::gcd(std::gcd(std::gcd(src, q.wo), q.left_pad_w), q.right_pad_w), q.dilation_w);
    return 1;
}

std::string xdlops_a_copy_defines(const XdlopsCopy& a) {
    return fmt::format(
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
        a.cluster_k, a.cluster_mn, a.cluster_kpack, a.src_read, a.dst_write);
}

}  // namespace kdbgen::hip_implicit_gemm
