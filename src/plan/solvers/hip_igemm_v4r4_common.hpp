// What ConvHipImplicitGemmV4R4Fwd and ConvHipImplicitGemmV4R4WrW share: the
// non-xdlops V4R4 static composable kernels (FP32 only, 2-D and 3-D, one
// kernel per problem with every size in -DCK_PARAM_*). Their tuning
// configurations (PerformanceImplicitGemmV4R4Fwd / ...WrW) have the same six
// fields, value ranges, blockwise-GEMM clusters, LDS rule and heuristic list;
// they differ in the GEMM view of the problem and in the copy parameters.
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4.cpp
//     :87-111 CalculateGridSize        :113-177 CalculateBlockGemmPerformanceParameters
//     :179-226 GemmA block copy        :228-335 GemmB block copy   :337-361 GemmC thread copy
//     :363-409 CalculateLdsNumberOfByte :411-421 IsValidValue      :423-475 IsValid
//     :477-532 HeuristicInit           :558-576 CalculateGemmSize  :626-633 IsValidPerformanceConfig
//     :718-774 the options
//   src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4.cpp
//     :86-110 CalculateGridSize        :112-176 CalculateBlockGemmPerformanceParameters
//     :178-223 GemmA block copy        :225-341 GemmB block copy   :343-364 GemmC thread copy
//     :366-412 CalculateLdsNumberOfByte :414-424 IsValidValue      :426-478 IsValid
//     :480-535 HeuristicInit           :561-579 CalculateGemmSize  :628-635 IsValidPerformanceConfig
//     :724-780 the options
//   src/include/miopen/conv/solvers.hpp:498-558, :560-620  the perf-db fields (Visit order)
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296  ProblemInterpreter
//   src/include/miopen/solver/implicitgemm_util.hpp:470-542  amd_*_max_length<float> (4), LDS 64 KiB;
//                                                   :586-640 gcd, lcm, integer_least_multiple
#pragma once

#include "hip_implicit_gemm.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kdbgen::hip_igemm::v4r4 {

// ProblemInterpreter's view of a forward or backward-weights problem: the convolution's
// own input, output and filter (a backward problem's "in" tensor is the forward output),
// strides of a 1-wide output and dilations of a 1-wide filter set to 1, right pads as far
// as the filter reaches. Depth values are those of a 3-D problem (1 and 0 otherwise).
struct Problem {
    bool forward = true, is3d = false;
    long n = 0, k = 0, c = 0;
    long di = 1, hi = 0, wi = 0, do_ = 1, ho = 0, wo = 0, z = 1, y = 0, x = 0;
    long stride_d = 1, stride_h = 1, stride_w = 1, dilation_d = 1, dilation_h = 1, dilation_w = 1;
    long left_pad_d = 0, left_pad_h = 0, left_pad_w = 0, right_pad_d = 0, right_pad_h = 0, right_pad_w = 0;
    // CalculateGemmSize: forward M = K, N = N*Do*Ho*Wo, K = C*Z*Y*X;
    // backward weights M = K, N = C*Z*Y*X, K = N*Do*Ho*Wo.
    long gemm_m() const { return k; }
    long gemm_n() const { return forward ? n * do_ * ho * wo : c * z * y * x; }
    long gemm_k() const { return forward ? c * z * y * x : n * do_ * ho * wo; }
};
Problem interpret(const ConvView& p);

// The blockwise GEMM's thread clusters (Level0/Level1, M and N) for a block size.
struct BlockGemm {
    int m_level0 = -1, n_level0 = -1, m_level1 = -1, n_level1 = -1;
    bool valid = false;
};

// A blockwise copy: thread cluster lengths along GEMM K and along M (A) or N (B),
// the vector read from global memory and the vector written to LDS.
struct Copy {
    int cluster_k = -1, cluster_mn = -1, src_read = -1, dst_write = -1;
    bool valid = false;
};

// PerformanceImplicitGemmV4R4Fwd / ...WrW: a perf-db record is these six values in this order.
struct Config {
    int BlockSize = -1, GemmMPerBlock = -1, GemmNPerBlock = -1, GemmKPerBlock = -1, GemmMPerThread = -1,
        GemmNPerThread = -1;

    static std::optional<Config> parse(const std::string& text);
    std::string text() const;
    bool valid_value() const;
    BlockGemm block_gemm() const;
    Copy a_copy(const Problem& q) const;
    Copy b_copy(const Problem& q) const;
    int c_dst_write(const Problem& q) const;
    // CalculateLdsNumberOfByte; nullopt where a copy is invalid.
    std::optional<std::size_t> lds_bytes(const Problem& q) const;
    // IsValid (IsValidPerformanceConfig is IsValidValue && IsValid).
    bool valid(const Problem& q) const;
    long grid_size(const Problem& q) const { return (q.gemm_m() / GemmMPerBlock) * (q.gemm_n() / GemmNPerBlock); }
};

// HeuristicInit: the first of 21 fixed configurations that IsValid accepts, else the last
// (MIOpen logs "All attempts failed" and keeps it).
Config heuristic(const Problem& q);
// The perf-db record when it parses and IsValidPerformanceConfig accepts it, else the heuristic.
Config config(const ConvView& p, const SolverContext& ctx, std::string_view solver, const Problem& q);

// The options from -DCK_PARAM_TUNABLE_BLOCK_SIZE through the general options, then the 3-D
// tail: both solvers write them alike, but for the name of the B copy's read vector
// (GEMM_N forward, GEMM_K backward weights).
std::string tunable_and_tail_options(const ConvView& p, const SolverContext& ctx, const Config& c, const Problem& q);

}  // namespace kdbgen::hip_igemm::v4r4
