#include "hip_igemm_fwdx_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace kdbgen::fwdx {

namespace {

bool two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }

// amd_buffer_load_max_length (4 for every type), amd_lds_write_max_length (FP32 4, FP16/BF16 8).
constexpr int kBufferLoadMax = 4;
int lds_write_max(const ConvView& p) { return p.IsFp32() ? 4 : 8; }

// MIOpen multiplies the GEMM sizes as int: a product past 2^31 wraps (two's complement on every
// compiler MIOpen is built with).
long int_product(long a, long b) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)));
}

}  // namespace

FwdProblem interpret(const ConvView& p) {
    FwdProblem q{};
    q.g = p.GetGroupCount(), q.n = p.GetBatchSize(), q.k = p.GetOutChannels(), q.c = p.GetInChannels();
    q.hi = p.GetInHeight(), q.wi = p.GetInWidth(), q.ho = p.GetOutHeight(), q.wo = p.GetOutWidth();
    q.y = p.GetWeightsHeight(), q.x = p.GetWeightsWidth();
    q.stride_h = q.ho > 1 ? p.GetKernelStrideH() : 1;
    q.stride_w = q.wo > 1 ? p.GetKernelStrideW() : 1;
    q.dilation_h = q.y > 1 ? p.GetDilationH() : 1;
    q.dilation_w = q.x > 1 ? p.GetDilationW() : 1;
    q.left_pad_h = p.GetPadH(), q.left_pad_w = p.GetPadW();
    const long hi_padded = 1 + (q.y - 1) * q.dilation_h + (q.ho - 1) * q.stride_h;
    const long wi_padded = 1 + (q.x - 1) * q.dilation_w + (q.wo - 1) * q.stride_w;
    q.right_pad_h = hi_padded > q.left_pad_h + q.hi ? hi_padded - (q.left_pad_h + q.hi) : 0;
    q.right_pad_w = wi_padded > q.left_pad_w + q.wi ? wi_padded - (q.left_pad_w + q.wi) : 0;
    return q;
}

GemmSize gemm_size(const FwdProblem& q, int m_factor, int n_factor, int k_factor) {
    const long m = q.k / q.g, n = q.n * q.ho * q.wo, k = q.c / q.g * q.y * q.x;
    const auto extra = [](long v, long factor) { return v % factor == 0 ? 0 : factor - v % factor; };
    GemmSize s{};
    s.g = q.g;
    s.m_extra = extra(m, m_factor), s.n_extra = extra(n, n_factor), s.k_extra = extra(k, k_factor);
    s.m = m + s.m_extra, s.n = n + s.n_extra, s.k_total = k + s.k_extra;
    return s;
}

int XdlopsTile::block_size() const {
    if (GemmMPerWave <= 0 || GemmNPerWave <= 0 || GemmMPerBlock % GemmMPerWave != 0 || GemmNPerBlock % GemmNPerWave != 0)
        return -1;
    return GemmNPerBlock * GemmMPerBlock / (GemmMPerWave * GemmNPerWave) * 64;
}

bool XdlopsTile::valid_value() const {
    return two_power(GemmMPerBlock, 4, 256) && two_power(GemmNPerBlock, 4, 256) && two_power(GemmKPerBlock, 1, 8) &&
           two_power(GemmMPerWave, 4, 128) && two_power(GemmNPerWave, 4, 128) && two_power(GemmKPack, 1, 8);
}

bool XdlopsTile::lds_fits(const ConvView& p) const {
    const std::size_t bytes = static_cast<std::size_t>(GemmKPerBlock) * GemmKPack * (GemmMPerBlock + GemmNPerBlock) *
                              (p.IsFp32() ? 4 : 2);
    return bytes <= 65536;
}

BlockCopy a_copy(const XdlopsTile& t, const ConvView& p, long k_unpadded, bool lcm_with_read, bool exact_cluster) {
    BlockCopy out;
    const int block = t.block_size();
    if (block <= 0) return out;
    int src = std::gcd(kBufferLoadMax, t.GemmKPack);
    if (k_unpadded > 0) src = static_cast<int>(std::gcd(static_cast<long>(src), k_unpadded));
    int per_thread = std::max(1, t.GemmKPerBlock * t.GemmMPerBlock * t.GemmKPack / block);
    if (lcm_with_read) per_thread = std::lcm(per_thread, src);
    const int tmp = per_thread / src;
    if (tmp == 0) return out;
    int per_k = 0, per_m = 0;
    if (t.GemmAThreadCopyMoreGemmK) {
        per_k = std::gcd(t.GemmKPerBlock, tmp);
        per_m = tmp / per_k;
    } else {
        per_m = std::gcd(t.GemmMPerBlock, tmp);
        per_k = tmp / per_m;
    }
    const int dst = std::gcd(lds_write_max(p), src);
    if (per_k <= 0 || per_m <= 0 || t.GemmKPerBlock % per_k != 0 || t.GemmMPerBlock % per_m != 0 ||
        t.GemmKPack % src != 0)
        return out;
    out = {t.GemmKPerBlock / per_k, t.GemmMPerBlock / per_m, t.GemmKPack / src, src, dst, true};
    const int cluster = out.cluster_k * out.cluster_mn * out.cluster_kpack;
    if (exact_cluster ? block != cluster : block < cluster) out.valid = false;
    return out;
}

BlockCopy b_copy(const XdlopsTile& t, const ConvView& p, const FwdProblem& q, int nwaves, bool exact_cluster) {
    BlockCopy out;
    const int block = t.block_size();
    if (block <= 0 || nwaves <= 0) return out;
    const int per_block = t.GemmNPerBlock / nwaves;  // V4R5's BPerBlock; GemmNPerBlock for the others
    // The vector length along GemmN as the input tensor's layout allows it.
    long src = kBufferLoadMax;
    if (q.y == 1 && q.x == 1 && q.stride_h == 1 && q.stride_w == 1 && q.left_pad_h == 0 && q.left_pad_w == 0 &&
        q.right_pad_h == 0 && q.right_pad_w == 0)
        src = std::gcd(src, q.ho * q.wo);
    else if (q.stride_w == 1 && q.left_pad_w == 0 && q.right_pad_w == 0)
        src = std::gcd(src, q.wo);
    else if (q.stride_w == 1)
        src = std::gcd(std::gcd(std::gcd(std::gcd(src, q.wo), q.left_pad_w), q.right_pad_w), q.dilation_w);
    else
        src = 1;
    src = std::gcd(src, static_cast<long>(per_block));
    const int per_n = static_cast<int>(src);
    int per_thread = std::max(1, t.GemmKPerBlock * nwaves * per_block * t.GemmKPack / block);
    if (per_n == 0) return out;
    per_thread = std::lcm(per_thread, per_n);
    if (per_thread % (per_n * nwaves) != 0) return out;
    const int tmp = per_thread / (per_n * nwaves);
    int per_kpack = 0, per_k = 0;
    if (t.GemmBThreadCopyMoreGemmKPack) {
        per_kpack = std::gcd(t.GemmKPack, tmp);
        per_k = per_kpack > 0 ? tmp / per_kpack : 0;
    } else {
        per_k = std::gcd(t.GemmKPerBlock, tmp);
        per_kpack = per_k > 0 ? tmp / per_k : 0;
    }
    if (!(per_kpack > 0 && per_k > 0 && per_n > 0)) return out;
    const int dst = std::gcd(lds_write_max(p), per_kpack);
    if (t.GemmKPerBlock % per_k != 0 || per_block % per_n != 0 || t.GemmKPack % per_kpack != 0) return out;
    out = {t.GemmKPerBlock / per_k, per_block / per_n, t.GemmKPack / per_kpack, per_n, dst, true};
    const int cluster = out.cluster_k * out.cluster_mn * out.cluster_kpack;
    if (exact_cluster ? block != cluster : block < cluster) out.valid = false;
    return out;
}

bool fast_for_tuning(const XdlopsTile& t, const ConvView& p, long gemm_m, long gemm_n, std::optional<long> k_total_gate,
                     unsigned compute_units) {
    // 128x128 wave-wise GEMMs spill registers.
    if (t.GemmMPerWave * t.GemmNPerWave > 64 * 128) return false;
    {
        // Not too many blocks compared with the largest blockwise GEMM the sizes allow.
        const long grid_size = int_product(gemm_m, gemm_n) / (static_cast<long>(t.GemmMPerBlock) * t.GemmNPerBlock);
        const long max_blockwise = std::max(std::gcd(256L, gemm_m) * std::gcd(128L, gemm_n),
                                            std::gcd(128L, gemm_m) * std::gcd(256L, gemm_n));
        const std::size_t grid_max = static_cast<std::size_t>(gemm_m) * static_cast<std::size_t>(gemm_n) /
                                     static_cast<std::size_t>(max_blockwise);
        const float ratio = static_cast<float>(grid_size) / static_cast<float>(grid_max);
        const std::size_t cu = compute_units;
        if (grid_max > 5 * cu) {
            if (ratio > 2.81) return false;
        } else if (grid_max > 4 * cu) {
            if (ratio > 3.61) return false;
        } else if (grid_max > 3 * cu) {
            if (ratio > 4.41) return false;
        } else if (grid_max > 2 * cu) {
            if (ratio > 6.41) return false;
        } else if (grid_max > cu) {
            if (ratio > 12.41) return false;
        }
    }
    const int waves = (t.GemmMPerBlock / t.GemmMPerWave) * (t.GemmNPerBlock / t.GemmNPerWave);
    if (!(waves > 1 && waves <= 4)) return false;
    // No skinny blockwise or wavewise GEMM where a squarer one fits.
    if (t.GemmMPerBlock > 2 * t.GemmNPerBlock && gemm_n % (2 * t.GemmNPerBlock) == 0) return false;
    if (t.GemmNPerBlock > 2 * t.GemmMPerBlock && gemm_m % (2 * t.GemmMPerBlock) == 0) return false;
    if (t.GemmMPerWave > 2 * t.GemmNPerWave && t.GemmNPerBlock % (2 * t.GemmNPerWave) == 0) return false;
    if (t.GemmNPerWave > 2 * t.GemmMPerWave && t.GemmMPerBlock % (2 * t.GemmMPerWave) == 0) return false;
    // Not too much data per thread.
    const int block = waves * 64;
    const int a_per_thread = t.GemmKPerBlock * t.GemmMPerBlock * t.GemmKPack / block;
    const int b_per_thread = t.GemmKPerBlock * t.GemmNPerBlock * t.GemmKPack / block;
    if (p.IsFp32() && (a_per_thread > 16 || b_per_thread > 16)) return false;
    if ((p.IsFp16() || p.IsBfp16()) && (a_per_thread > 32 || b_per_thread > 32)) return false;
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

std::string problem_defines(const FwdProblem& q) {
    return fmt::format(
        " -DCK_PARAM_PROBLEM_G={} -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={}"
        " -DCK_PARAM_PROBLEM_HI={} -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={}"
        " -DCK_PARAM_PROBLEM_Y={} -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={}"
        " -DCK_PARAM_PROBLEM_CONV_STRIDE_W={} -DCK_PARAM_PROBLEM_CONV_DILATION_H={}"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_W={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={}"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={}"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}",
        q.g, q.n, q.k, q.c, q.hi, q.wi, q.ho, q.wo, q.y, q.x, q.stride_h, q.stride_w, q.dilation_h, q.dilation_w,
        q.left_pad_h, q.left_pad_w, q.right_pad_h, q.right_pad_w);
}

std::string a_copy_defines(const BlockCopy& a) {
    return fmt::format(
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
        a.cluster_k, a.cluster_mn, a.cluster_kpack, a.src_read, a.dst_write);
}

}  // namespace kdbgen::fwdx
