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

#include "implicitgemm_util.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kdbgen::hip_implicit_gemm::v4r4 {

// ProblemInterpreter's view of a forward or backward-weights problem (hip_implicit_gemm/implicitgemm_util.hpp), and
// CalculateGemmSize: forward M = K, N = N*Do*Ho*Wo, K = C*Z*Y*X; backward weights M = K, N = C*Z*Y*X,
// K = N*Do*Ho*Wo.
struct Problem : Interpreted {
    bool forward = true;
    long gemm_m() const { return k; }
    long gemm_n() const { return forward ? n * do_ * ho * wo : c * z * y * x; }
    long gemm_k() const { return forward ? c * z * y * x : n * do_ * ho * wo; }
};
Problem interpret(const ConvView& p);

// PerformanceImplicitGemmV4R4Fwd / ...WrW: the six shared fields (hip_implicit_gemm/implicitgemm_util.hpp) with the
// rules that read the problem.
struct Config : GemmConfig {
    Config() = default;
    Config(const GemmConfig& c) : GemmConfig(c) {}

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

// IsApplicable of both past the environment switch, the deprecated-solver rule (disabled_by_default),
// determinism and use_hip_kernels (fwd_v4r4.cpp:578-617, wrw_v4r4.cpp:581-619; each lists the checks in
// an order of its own, only the first failing reason depends on it): NCHW/NCDHW, sizes that fit int
// (HasNonPackedTensors: the tensors of a key are packed), composable-kernel hardware, the direction,
// 2-D or 3-D, FP32, no casted tensors, one group, IsIndexRangeLargeEnough, GEMM M and N multiples of 32
// and K of 4.
bool applicable(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why);

// The options from -DCK_PARAM_TUNABLE_BLOCK_SIZE through the general options, then the 3-D
// tail: both solvers write them alike, but for the name of the B copy's read vector
// (GEMM_N forward, GEMM_K backward weights).
std::string tunable_and_tail_options(const ConvView& p, const SolverContext& ctx, const Config& c, const Problem& q);

}  // namespace kdbgen::hip_implicit_gemm::v4r4
