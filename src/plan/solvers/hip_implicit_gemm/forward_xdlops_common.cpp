#include "forward_xdlops_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace kdbgen::forward_xdlops {

GemmSize gemm_size(const FwdProblem& q, int m_factor, int n_factor, int k_factor) {
    const long m = q.k / q.g, n = q.n * q.ho * q.wo, k = q.c / q.g * q.y * q.x;
    const auto extra = [](long v, long factor) { return v % factor == 0 ? 0 : factor - v % factor; };
    GemmSize s{};
    s.g = q.g;
    s.m_extra = extra(m, m_factor), s.n_extra = extra(n, n_factor), s.k_extra = extra(k, k_factor);
    s.m = m + s.m_extra, s.n = n + s.n_extra, s.k_total = k + s.k_extra;
    return s;
}

BlockCopy b_copy(const XdlopsTile& t, const ConvView& p, const FwdProblem& q, int nwaves, bool exact_cluster) {
    BlockCopy out;
    const int block = t.block_size();
    if (block <= 0 || nwaves <= 0) return out;
    const int per_block = t.GemmNPerBlock / nwaves;  // V4R5's BPerBlock; GemmNPerBlock for the others
    // The vector length along GemmN as the input tensor's layout allows it, bounded by the block.
    const long src = std::gcd(hip_implicit_gemm::xdlops_b_read_width(q), static_cast<long>(per_block));
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
    const int dst = std::gcd(p.IsFp32() ? 4 : 8, per_kpack);  // amd_lds_write_max_length
    if (t.GemmKPerBlock % per_k != 0 || per_block % per_n != 0 || t.GemmKPack % per_kpack != 0) return out;
    out = {t.GemmKPerBlock / per_k, per_block / per_n, t.GemmKPack / per_kpack, per_n, dst, true};
    const int cluster = out.cluster_k * out.cluster_mn * out.cluster_kpack;
    if (exact_cluster ? block != cluster : block < cluster) out.valid = false;
    return out;
}

}  // namespace kdbgen::forward_xdlops
