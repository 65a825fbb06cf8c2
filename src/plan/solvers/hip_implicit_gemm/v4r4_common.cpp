#include "v4r4_common.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <array>
#include <numeric>

namespace kdbgen::hip_implicit_gemm::v4r4 {

namespace {

// MIOpen's variadic gcd folds from the right: gcd(a, b, c) = gcd(a, gcd(b, c)).
long gcd(long a, long b) { return std::gcd(a, b); }
template <typename... Rest>
long gcd(long a, long b, Rest... rest) {
    return std::gcd(a, gcd(b, rest...));
}

// amd_buffer_load_max_length<float>, amd_lds_write_max_length<float>, amd_buffer_store_max_length<float>
// (implicitgemm_util.hpp:470-540): 4 each.
constexpr long kVector = 4;

// The global-memory read vector of the B matrix before the per-thread bound: the GEMM N
// dimension forward (fwd_v4r4.cpp:239-297), GEMM K backward weights (wrw_v4r4.cpp:236-304);
// backward weights also has a branch for unit-stride, unpadded, undilated rows that reads along Wo.
long b_read_vector(const Problem& q, long start) {
    long v = start;
    const bool pointwise = q.z == 1 && q.y == 1 && q.x == 1 && q.stride_d == 1 && q.stride_h == 1 &&
                           q.stride_w == 1 && q.left_pad_d == 0 && q.left_pad_h == 0 && q.left_pad_w == 0 &&
                           q.right_pad_d == 0 && q.right_pad_h == 0 && q.right_pad_w == 0;
    if (pointwise) return gcd(v, q.di * q.hi * q.wi);  // di is 1 for 2-D; z, the D stride and pads too
    if (!q.forward && q.stride_w == 1 && q.left_pad_w == 0 && q.right_pad_w == 0 && q.dilation_w == 1)
        return gcd(v, q.wo);
    if (q.stride_w == 1) return gcd(v, q.left_pad_w, q.wi, q.right_pad_w, q.dilation_w);
    return 1;
}

}  // namespace

Problem interpret(const ConvView& p) {
    Problem q;
    static_cast<Interpreted&>(q) = hip_implicit_gemm::interpret(p);
    q.forward = p.IsDirectionForward();
    return q;
}

Copy Config::a_copy(const Problem& q) const {
    if (BlockSize <= 0 || GemmKPerBlock <= 0) return {};
    // Forward reads the filter along GEMM K in vectors of up to 4; backward weights reads
    // the output gradient one element at a time (SrcDataPerRead_GemmK starts at 1).
    long src = gcd(q.forward ? kVector : 1, GemmKPerBlock);
    const long per_thread = static_cast<long>(GemmKPerBlock) * GemmMPerBlock / BlockSize;
    if (per_thread <= 0) return {};
    src = gcd(src, per_thread);
    const long per_thread_k = src, per_thread_m = per_thread / per_thread_k;
    Copy a;
    a.src_read = static_cast<int>(src);
    a.dst_write = static_cast<int>(gcd(kVector, per_thread_m));
    a.cluster_k = static_cast<int>(GemmKPerBlock / per_thread_k);
    a.cluster_mn = static_cast<int>(GemmMPerBlock / per_thread_m);
    a.valid = a.cluster_k > 0 && a.cluster_mn > 0;
    return a.valid ? a : Copy{};
}

Copy Config::b_copy(const Problem& q) const {
    if (BlockSize <= 0 || GemmKPerBlock <= 0 || GemmNPerBlock <= 0) return {};
    const long per_thread = static_cast<long>(GemmKPerBlock) * GemmNPerBlock / BlockSize;
    Copy b;
    if (q.forward) {
        // Reads along GEMM N (the output pixels), bounded by N per block and the per-thread copy.
        long src = b_read_vector(q, gcd(kVector, GemmNPerBlock));
        if (per_thread <= 0) return {};
        src = gcd(src, per_thread);
        const long per_thread_n = src, per_thread_k = per_thread / per_thread_n;
        if (per_thread_k == 0) return {};
        b.src_read = static_cast<int>(src);
        b.dst_write = static_cast<int>(gcd(kVector, per_thread_n));
        b.cluster_k = static_cast<int>(GemmKPerBlock / per_thread_k);
        b.cluster_mn = static_cast<int>(GemmNPerBlock / per_thread_n);
    } else {
        // Reads along GEMM K (batch and output pixels), bounded by K per block and the per-thread copy.
        long src = b_read_vector(q, gcd(kVector, GemmKPerBlock));
        if (per_thread <= 0) return {};
        src = gcd(src, per_thread);
        const long per_thread_k = src, per_thread_n = per_thread / per_thread_k;
        b.src_read = static_cast<int>(src);
        b.dst_write = static_cast<int>(gcd(kVector, per_thread_n));
        b.cluster_k = static_cast<int>(GemmKPerBlock / per_thread_k);
        b.cluster_mn = per_thread_n > 0 ? static_cast<int>(GemmNPerBlock / per_thread_n) : 0;
    }
    b.valid = b.cluster_k > 0 && b.cluster_mn > 0;
    return b.valid ? b : Copy{};
}

int Config::c_dst_write(const Problem& q) const {
    // Bounded by the threadwise GEMM's N and by the output's contiguous run: the output
    // image forward, the filter (C*Z*Y*X) backward weights.
    const long run = q.forward ? q.do_ * q.ho * q.wo : q.c * q.z * q.y * q.x;
    return static_cast<int>(gcd(gcd(kVector, GemmNPerThread), run));
}

std::optional<std::size_t> Config::lds_bytes(const Problem& q) const {
    const Copy a = a_copy(q), b = b_copy(q);
    if (!a.valid || !b.valid) return std::nullopt;
    return gemm_lds_bytes(*this, a.dst_write, b.dst_write, GemmMPerThread, GemmNPerThread);
}

bool Config::valid(const Problem& q) const {
    if (!valid_value()) return false;
    if (!(q.gemm_m() % GemmMPerBlock == 0 && q.gemm_n() % GemmNPerBlock == 0 && q.gemm_k() % GemmKPerBlock == 0))
        return false;
    if (!(GemmMPerBlock % GemmMPerThread == 0 && GemmNPerBlock % GemmNPerThread == 0)) return false;
    if (!block_gemm().valid || !a_copy(q).valid || !b_copy(q).valid) return false;
    // The C thread copy cannot fail.
    const auto lds = lds_bytes(q);
    return lds && *lds <= kLdsMaxBytes;
}

Config heuristic(const Problem& q) {
    Config c;
    for (const auto& t : kGemmHeuristicOrder) {
        c = t;
        if (c.valid(q)) break;
    }
    return c;
}

Config config(const ConvView& p, const SolverContext& ctx, std::string_view solver, const Problem& q) {
    if (const auto record = perf_db_record(p, ctx, solver))
        if (const auto parsed = checked_perf_record(GemmConfig::parse(*record), ctx.perf_db, p.p, std::string(solver), *record); parsed && parsed->valid_value() && Config(*parsed).valid(q))
            return *parsed;
    return heuristic(q);
}

bool applicable(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why) {
    if (!p.IsLayoutDefault()) return reject(why, "not NCHW / NCDHW");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
    if (!composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
    if (p.p.direction != direction)
        return reject(why, direction == ConvDirection::Forward ? "not forward" : "not backward weights");
    if (!p.Is2d() && !p.Is3d()) return reject(why, "not 2-D or 3-D");
    if (!p.IsFp32()) return reject(why, "not FP32");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (p.GetGroupCount() != 1) return reject(why, "grouped");
    if (!index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
    const auto q = interpret(p);
    return (q.gemm_m() % 32 == 0 && q.gemm_n() % 32 == 0 && q.gemm_k() % 4 == 0) ||
           reject(why, "GEMM M or N not a multiple of 32, or K of 4");
}

std::string tunable_and_tail_options(const ConvView& p, const SolverContext& ctx, const Config& c, const Problem& q) {
    const BlockGemm g = c.block_gemm();
    const Copy a = c.a_copy(q), b = c.b_copy(q);
    const char* inline_asm = use_amd_inline_asm(p, ctx.target) ? "1" : "0";
    std::string o = block_gemm_defines(c, g);
    o += fmt::format(
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K={}"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M={}"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_{}={}"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N={}"
        " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1={}",
        a.cluster_k, a.cluster_mn, a.src_read, a.dst_write, b.cluster_k, b.cluster_mn, q.forward ? "N" : "K",
        b.src_read, b.dst_write, c.c_dst_write(q));
    o += fmt::format(" -DCK_PARAM_DEPENDENT_GRID_SIZE={} -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM={}"
                     " -DCK_USE_AMD_INLINE_ASM={}",
                     c.grid_size(q), inline_asm, inline_asm);
    o += common_compiler_flags(ctx.target) + ctx.general_options;
    if (q.is3d) o += depth_defines(q);
    return o;
}

}  // namespace kdbgen::hip_implicit_gemm::v4r4
