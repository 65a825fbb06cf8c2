// The dynamic V4R1 implicit-GEMM family's shared rules (see asm_implicit_gemm/v4r1_dynamic_common.hpp).
#include "v4r1_dynamic_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace kdbgen::igemm_v4r1 {

namespace {

struct Tunable {
    int b_per_block, k_per_block, e_per_block, gemm_n_repeat, gemm_m_per_thread_sub_c, gemm_n_per_thread_sub_c,
        gemm_m_level0_cluster, gemm_n_level0_cluster, gemm_m_level1_cluster, gemm_n_level1_cluster, in_copy_e,
        in_copy_n1, in_copy_b, in_copy_n2, wei_copy_e, wei_copy_k;
};

// GetImplicitGemmV4R1DynamicTunables (conv_asm_implicit_gemm_v4r1_dynamic.cpp:71-86), in its order.
constexpr std::array<Tunable, 7> kTunables = {{
    {16, 128, 16, 2, 4, 4, 4, 4, 4, 4, 16, 1, 16, 1, 4, 64},
    {16, 128, 8, 2, 4, 4, 4, 4, 4, 4, 8, 2, 16, 1, 2, 128},
    {8, 128, 8, 2, 4, 4, 4, 4, 4, 2, 8, 1, 8, 2, 2, 64},
    {8, 64, 8, 2, 4, 4, 4, 2, 2, 4, 8, 1, 8, 1, 4, 16},
    {16, 32, 4, 2, 4, 4, 1, 4, 4, 4, 4, 1, 16, 1, 4, 16},
    {16, 16, 4, 2, 2, 2, 2, 4, 2, 4, 4, 1, 16, 1, 4, 16},
    {8, 32, 4, 2, 2, 2, 2, 4, 4, 2, 4, 2, 8, 1, 4, 16},
}};

std::size_t read_write_vector_size(int v) { return v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1; }

// TunableImplicitGemmV4R1Dynamic::IsValid (:183-281) for a forward FP32
// problem: EPACK is 1 and the type size 4 (implicitgemm_util.hpp:227-252).
bool is_valid(const Tunable& t, const ConvView& p) {
    const std::size_t n = p.GetBatchSize(), k = p.GetOutChannels(), c = p.GetInChannels() / p.GetGroupCount();
    const std::size_t ho = p.GetOutHeight(), wo = p.GetOutWidth(), y = p.GetWeightsHeight(), x = p.GetWeightsWidth();
    const int n1 = t.gemm_n_repeat, n2 = t.gemm_n_per_thread_sub_c;
    if (n % static_cast<std::size_t>(n1 * n2) != 0) return false;
    const std::size_t b = n / static_cast<std::size_t>(n1 * n2) * ho * wo;
    const std::size_t e = c * y * x;
    if (!(t.e_per_block % t.in_copy_e == 0 && t.e_per_block % t.wei_copy_e == 0 && t.b_per_block % t.in_copy_b == 0 &&
          t.k_per_block % t.wei_copy_k == 0 && n1 % t.in_copy_n1 == 0 && n2 % t.in_copy_n2 == 0))
        return false;
    if (!(k % t.k_per_block == 0 && b % t.b_per_block == 0 && e % t.e_per_block == 0)) return false;
    if ((k / t.k_per_block) % p.GetGroupCount() != 0) return false;
    const int n_cluster = t.gemm_n_per_thread_sub_c * t.gemm_n_level0_cluster * t.gemm_n_level1_cluster;
    if ((n1 * n2 * t.b_per_block) % n_cluster != 0) return false;
    const int m_cluster = t.gemm_m_per_thread_sub_c * t.gemm_m_level0_cluster * t.gemm_m_level1_cluster;
    if (t.k_per_block % m_cluster != 0) return false;
    if (t.gemm_n_repeat != (n1 * n2 * t.b_per_block) / n_cluster) return false;
    const int block_size =
        t.gemm_m_level0_cluster * t.gemm_n_level0_cluster * t.gemm_m_level1_cluster * t.gemm_n_level1_cluster;
    if (block_size < 64 || block_size > 512) return false;
    if (block_size != t.in_copy_e * t.in_copy_n1 * t.in_copy_b * t.in_copy_n2) return false;
    if (block_size != t.wei_copy_k * t.wei_copy_e) return false;
    if (!(t.k_per_block / m_cluster == 2 && t.gemm_n_repeat == 2)) return false;
    const int in_sub_e = t.e_per_block / t.in_copy_e, in_sub_b = t.b_per_block / t.in_copy_b;
    const int wei_sub_k = t.k_per_block / t.wei_copy_k;
    // ComputeLDSRequiredSize (implicitgemm_util.hpp:403-431), FP32.
    const std::size_t alignment = std::max({read_write_vector_size(wei_sub_k), read_write_vector_size(in_sub_b),
                                            static_cast<std::size_t>(t.gemm_m_per_thread_sub_c),
                                            static_cast<std::size_t>(t.gemm_n_per_thread_sub_c)});
    const std::size_t lds = static_cast<std::size_t>(t.b_per_block + t.k_per_block) * t.e_per_block * 1 * 4 * 2 +
                            2 * alignment;
    if (lds > 64 * 1024) return false;
    return in_sub_e == 1 && in_sub_b == 1;
}

// GetKernelNameImplicitGemmV4R1Dynamic (:93-122).
std::string kernel_name(const Tunable& t, ForwardKernel kind) {
    const int m_repeat = t.k_per_block / (t.gemm_m_per_thread_sub_c * t.gemm_m_level0_cluster * t.gemm_m_level1_cluster);
    return fmt::format("{}{}x{}x{}_{}x{}_{}x{}x{}x{}x{}x{}_{}x{}x{}x{}_{}x{}",
                       kind == ForwardKernel::General ? "igemm_v4r1_dynamic_" : "igemm_v4r1_1x1_dynamic_",
                       t.k_per_block, t.b_per_block * t.gemm_n_repeat * t.gemm_n_per_thread_sub_c, t.e_per_block,
                       m_repeat * t.gemm_m_per_thread_sub_c, t.gemm_n_repeat * t.gemm_n_per_thread_sub_c,
                       t.gemm_m_per_thread_sub_c, t.gemm_m_level0_cluster, t.gemm_m_level1_cluster,
                       t.gemm_n_per_thread_sub_c, t.gemm_n_level0_cluster, t.gemm_n_level1_cluster, t.in_copy_e,
                       t.in_copy_n1, t.in_copy_b, t.in_copy_n2, t.wei_copy_e, t.wei_copy_k);
}

bool direction_is(const ConvView& p, ConvDirection direction) { return p.p.direction == direction; }

}  // namespace

bool common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, bool check_casts,
                   std::string* why) {
    const std::string_view device = ctx.target.name();
    if (!(device.starts_with("gfx900") || device.starts_with("gfx906"))) return reject(why, "not gfx900/gfx906");
    if (!direction_is(p, direction)) return reject(why, "direction");
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (!p.IsFp32()) return reject(why, "not FP32");
    if (check_casts && p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (p.GetGroupCount() != 1) return reject(why, "grouped");
    if (!p.IsLayoutDefault()) return reject(why, "layout");
    if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
    return true;
}

std::optional<std::string> forward_kernel(const ConvView& p, ForwardKernel kind) {
    for (const auto& t : kTunables)
        if (is_valid(t, p)) return kernel_name(t, kind);
    return std::nullopt;
}

}  // namespace kdbgen::igemm_v4r1
