#include "hip_implicit_gemm.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace kdbgen::hip_igemm {

namespace {

bool starts(const Target& t, std::string_view prefix) { return t.name().starts_with(prefix); }

template <int L, int H>
bool two_power(int v) {
    return v > 0 && ((v - 1) & v) == 0 && L <= v && v <= H;
}

long product(const std::vector<long>& v) {
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

int type_size(const ConvView& p) { return p.IsFp32() ? 4 : (p.IsFp16() || p.IsBfp16()) ? 2 : p.IsInt8() ? 1 : 4; }

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
    const auto f = parse_int_fields<16>(text);
    if (!f) return std::nullopt;
    const auto& v = *f;
    return V4R1Config{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]};
}

std::string V4R1Config::text() const {
    return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", BPerBlock, KPerBlock, EPerBlock, GemmNRepeat,
                       GemmMPerThreadSubC, GemmNPerThreadSubC, GemmMLevel0Cluster, GemmNLevel0Cluster,
                       GemmMLevel1Cluster, GemmNLevel1Cluster, InBlockCopyClusterLengths_E,
                       InBlockCopyClusterLengths_N1, InBlockCopyClusterLengths_B, InBlockCopyClusterLengths_N2,
                       WeiBlockCopyClusterLengths_E, WeiBlockCopyClusterLengths_K);
}

bool V4R1Config::valid_value() const {
    return two_power<8, 16>(BPerBlock) && two_power<16, 128>(KPerBlock) && two_power<4, 16>(EPerBlock) &&
           GemmNRepeat == 2 && two_power<2, 4>(GemmMPerThreadSubC) && two_power<2, 4>(GemmNPerThreadSubC) &&
           two_power<1, 4>(GemmMLevel0Cluster) && two_power<1, 4>(GemmNLevel0Cluster) &&
           two_power<1, 4>(GemmMLevel1Cluster) && two_power<1, 4>(GemmNLevel1Cluster) &&
           two_power<4, 16>(InBlockCopyClusterLengths_E) && two_power<8, 16>(InBlockCopyClusterLengths_B) &&
           two_power<1, 2>(InBlockCopyClusterLengths_N1) && two_power<1, 4>(InBlockCopyClusterLengths_N2) &&
           two_power<1, 4>(WeiBlockCopyClusterLengths_E) && two_power<16, 128>(WeiBlockCopyClusterLengths_K);
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
    if (ctx.perf_db)
        if (const auto record = ctx.perf_db->find(p.p, std::string(solver)))
            if (const auto parsed = V4R1Config::parse(*record);
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

}  // namespace kdbgen::hip_igemm

namespace kdbgen::hip_igemm {

SolverKernel v4r1_kernel(const ConvView& p, const SolverContext& ctx, const V4R1Config& c, const V4R1Kernel& k) {
    // Right pads: what the padded input needs beyond the left pad and the image.
    const long hi_padded = 1 + (k.y - 1) * k.dilation_h + (k.ho - 1) * k.stride_h;
    const long wi_padded = 1 + (k.x - 1) * k.dilation_w + (k.wo - 1) * k.stride_w;
    const long right_pad_h = hi_padded > k.left_pad_h + k.hi ? hi_padded - (k.left_pad_h + k.hi) : 0;
    const long right_pad_w = wi_padded > k.left_pad_w + k.wi ? wi_padded - (k.left_pad_w + k.wi) : 0;
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

}  // namespace kdbgen::hip_igemm

namespace kdbgen::hip_igemm {

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

}  // namespace kdbgen::hip_igemm
