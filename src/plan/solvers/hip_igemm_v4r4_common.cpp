#include "hip_igemm_v4r4_common.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <array>
#include <numeric>

namespace kdbgen::hip_igemm::v4r4 {

namespace {

bool two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }

// MIOpen's variadic gcd and lcm fold from the right: gcd(a, b, c) = gcd(a, gcd(b, c)).
long gcd(long a, long b) { return std::gcd(a, b); }
template <typename... Rest>
long gcd(long a, long b, Rest... rest) {
    return std::gcd(a, gcd(b, rest...));
}
long lcm(long a, long b) { return a == 0 || b == 0 ? 0 : a * b / std::gcd(a, b); }
template <typename... Rest>
long lcm(long a, long b, Rest... rest) {
    return lcm(a, lcm(b, rest...));
}
long least_multiple(long v, long of) { return of * ((v + of - 1) / of); }

// amd_buffer_load_max_length<float>, amd_lds_write_max_length<float>, amd_buffer_store_max_length<float>
// (implicitgemm_util.hpp:470-540): 4 each.
constexpr long kVector = 4;
constexpr std::size_t kLdsBytes = 65536;  // get_lds_max_number_of_byte (:542)

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
    const auto& s = p.p;
    Problem q;
    q.forward = p.IsDirectionForward();
    q.is3d = p.Is3d();
    // GetOutputChannelK, GetInputChannelC and the spatial getters swap "in" and "out" for backward problems.
    const auto& input = q.forward ? s.in_spatial : s.out_spatial;
    const auto& output = q.forward ? s.out_spatial : s.in_spatial;
    q.n = p.GetBatchSize();
    q.k = q.forward ? p.GetOutChannels() : p.GetInChannels();
    q.c = q.forward ? p.GetInChannels() : p.GetOutChannels();
    const std::size_t h = input.size() - 2, w = input.size() - 1;
    q.hi = input[h], q.wi = input[w], q.ho = output[h], q.wo = output[w];
    q.y = p.GetWeightsHeight(), q.x = p.GetWeightsWidth();
    // GetAdjustedConvolutionStride*/Dilation*: 1 where the output or the filter is 1 wide.
    q.stride_h = q.ho > 1 ? p.GetKernelStrideH() : 1;
    q.stride_w = q.wo > 1 ? p.GetKernelStrideW() : 1;
    q.dilation_h = q.y > 1 ? p.GetDilationH() : 1;
    q.dilation_w = q.x > 1 ? p.GetDilationW() : 1;
    q.left_pad_h = p.GetPadH(), q.left_pad_w = p.GetPadW();
    if (q.is3d) {
        q.di = input[0], q.do_ = output[0], q.z = s.weights_spatial[0];
        q.stride_d = q.do_ > 1 ? s.strides[0] : 1;
        q.dilation_d = q.z > 1 ? s.dilations[0] : 1;
        q.left_pad_d = s.pads[0];
    }
    // GetAdjustedInputRightPad*: what the filter's last position needs beyond the left pad and the image.
    const auto right_pad = [](long in, long out, long filter, long stride, long dilation, long left) {
        const long padded = 1 + (filter - 1) * dilation + (out - 1) * stride;
        return padded > left + in ? padded - (left + in) : 0L;
    };
    q.right_pad_h = right_pad(q.hi, q.ho, q.y, q.stride_h, q.dilation_h, q.left_pad_h);
    q.right_pad_w = right_pad(q.wi, q.wo, q.x, q.stride_w, q.dilation_w, q.left_pad_w);
    if (q.is3d) q.right_pad_d = right_pad(q.di, q.do_, q.z, q.stride_d, q.dilation_d, q.left_pad_d);
    return q;
}

std::optional<Config> Config::parse(const std::string& text) {
    const auto f = parse_int_fields<6>(text);
    if (!f) return std::nullopt;
    const auto& v = *f;
    return Config{v[0], v[1], v[2], v[3], v[4], v[5]};
}

std::string Config::text() const {
    return fmt::format("{},{},{},{},{},{}", BlockSize, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerThread,
                       GemmNPerThread);
}

bool Config::valid_value() const {
    return two_power(BlockSize, 64, 256) && two_power(GemmMPerBlock, 32, 128) && two_power(GemmNPerBlock, 32, 128) &&
           two_power(GemmKPerBlock, 4, 16) && two_power(GemmMPerThread, 2, 4) && two_power(GemmNPerThread, 2, 4);
}

BlockGemm Config::block_gemm() const {
    BlockGemm g;
    if (BlockSize == 64) g = {4, 4, 2, 2, true};
    else if (BlockSize == 128) g = {4, 4, 4, 2, true};
    else if (BlockSize == 256) g = {4, 4, 4, 4, true};
    else return {};
    if (GemmMPerThread <= 0 || GemmNPerThread <= 0 || GemmMPerBlock % GemmMPerThread != 0 ||
        GemmNPerBlock % GemmNPerThread != 0)
        return {};
    const int per_block_m = GemmMPerBlock / GemmMPerThread, per_block_n = GemmNPerBlock / GemmNPerThread;
    const int per_cluster_m = g.m_level0 * g.m_level1, per_cluster_n = g.n_level0 * g.n_level1;
    // As MIOpen writes it (fwd_v4r4.cpp:159-161): the negation covers the M test only, so this
    // rejects "M does not divide and N does"; the next test catches the rest.
    if (per_block_m % per_cluster_m != 0 && per_block_n % per_cluster_n == 0) return {};
    // The inline-asm blockwise GEMM takes 2 x 2 clusters per block.
    if (!(per_block_m / per_cluster_m == 2 && per_block_n / per_cluster_n == 2)) return {};
    return g;
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
    const long align = lcm(a.dst_write, b.dst_write, GemmMPerThread, GemmNPerThread);
    if (align <= 0) return std::nullopt;
    const long a_space = GemmKPerBlock * least_multiple(GemmMPerBlock, align);
    const long b_space = GemmKPerBlock * least_multiple(GemmNPerBlock, align);
    return 2 * static_cast<std::size_t>(a_space + b_space) * sizeof(float);
}

bool Config::valid(const Problem& q) const {
    if (!valid_value()) return false;
    if (!(q.gemm_m() % GemmMPerBlock == 0 && q.gemm_n() % GemmNPerBlock == 0 && q.gemm_k() % GemmKPerBlock == 0))
        return false;
    if (!(GemmMPerBlock % GemmMPerThread == 0 && GemmNPerBlock % GemmNPerThread == 0)) return false;
    if (!block_gemm().valid || !a_copy(q).valid || !b_copy(q).valid) return false;
    // The C thread copy cannot fail.
    const auto lds = lds_bytes(q);
    return lds && *lds <= kLdsBytes;
}

Config heuristic(const Problem& q) {
    // BlockSize, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerThread, GemmNPerThread
    // (fwd_v4r4.cpp:483-523, wrw_v4r4.cpp:486-526: the same list).
    static constexpr std::array<std::array<int, 6>, 21> tries = {{
        {256, 128, 128, 16, 4, 4}, {256, 128, 128, 8, 4, 4}, {256, 128, 128, 4, 4, 4},
        {128, 128, 64, 16, 4, 4},  {128, 128, 64, 8, 4, 4},  {128, 128, 64, 4, 4, 4},
        {128, 64, 128, 16, 4, 4},  {128, 64, 128, 8, 4, 4},  {128, 64, 128, 4, 4, 4},
        {64, 64, 64, 16, 4, 4},    {64, 64, 64, 8, 4, 4},    {64, 64, 64, 4, 4, 4},
        {64, 64, 32, 16, 4, 2},    {64, 64, 32, 8, 4, 2},    {64, 64, 32, 4, 4, 2},
        {64, 32, 64, 16, 2, 4},    {64, 32, 64, 8, 2, 4},    {64, 32, 64, 4, 2, 4},
        {64, 32, 32, 16, 2, 2},    {64, 32, 32, 8, 2, 2},    {64, 32, 32, 4, 2, 2},
    }};
    Config c;
    for (const auto& t : tries) {
        c = {t[0], t[1], t[2], t[3], t[4], t[5]};
        if (c.valid(q)) break;
    }
    return c;
}

Config config(const ConvView& p, const SolverContext& ctx, std::string_view solver, const Problem& q) {
    if (ctx.perf_db)
        if (const auto record = ctx.perf_db->find(p.p, std::string(solver)))
            if (const auto parsed = Config::parse(*record); parsed && parsed->valid_value() && parsed->valid(q))
                return *parsed;
    return heuristic(q);
}

std::string tunable_and_tail_options(const ConvView& p, const SolverContext& ctx, const Config& c, const Problem& q) {
    const BlockGemm g = c.block_gemm();
    const Copy a = c.a_copy(q), b = c.b_copy(q);
    const char* inline_asm = use_amd_inline_asm(p, ctx.target) ? "1" : "0";
    std::string o = fmt::format(
        " -DCK_PARAM_TUNABLE_BLOCK_SIZE={} -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD={} -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER={} -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER={}"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER={} -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER={}",
        c.BlockSize, c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerThread, c.GemmNPerThread,
        g.m_level0, g.n_level0, g.m_level1, g.n_level1);
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
    if (q.is3d)
        o += fmt::format(" -DCK_PARAM_PROBLEM_DI={} -DCK_PARAM_PROBLEM_DO={} -DCK_PARAM_PROBLEM_Z={}"
                         " -DCK_PARAM_PROBLEM_CONV_STRIDE_D={} -DCK_PARAM_PROBLEM_CONV_DILATION_D={}"
                         " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_D={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D={}",
                         q.di, q.do_, q.z, q.stride_d, q.dilation_d, q.left_pad_d, q.right_pad_d);
    return o;
}

}  // namespace kdbgen::hip_igemm::v4r4
