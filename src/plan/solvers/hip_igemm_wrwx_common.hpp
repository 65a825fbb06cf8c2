// What ConvHipImplicitGemmWrwV4R4Xdlops and ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm share:
// backward-weights implicit GEMM on xdlops (gfx908, gfx90a; gfx94x only with deprecated solvers
// enabled), GEMM M = K/G, N = C/G*Y*X, K = N*Ho*Wo split into GemmKBlock slices (GEMM-K split)
// whose partial sums the kernel adds atomically into dw. The split depends on the CU count.
// The _Padded_Gemm variant rounds M, N and K up to fixed factors (16, 64, 16 by default, taken
// from a perf-db record when one is used) and applies only when something is padded.
//
// Around the kernel each solution launches (invoker, MIOpen 3.3.0 conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:
// 989-1038, ..._padded_gemm.cpp:1052-1101): FP32 zeroes dw (SetTensor), the kernel adds into it;
// FP16 and BF16 zero an FP32 workspace shaped as dw (SetTensor), the kernel adds into that, and
// CastTensor converts it into dw. Both helpers are OpenCL kernels with keys of their own.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp
// (rocm-6.2.0 has the same lines under src/solver/) and ..._padded_gemm.cpp:
//   plain  :128-254 / padded :125-250    HeuristicInit
//   plain  :256-307 / padded :252-309    CalculateBlockSize, CalculateGridSize
//   plain  :309-376 / padded :815-910    CalculateGemmSizeAndGemmKBlock
//   plain  :378-472 / padded :311-405    CalculateGemmABlockCopyPerformanceParameters
//   plain  :474-599 / padded :407-532    CalculateGemmBBlockCopyPerformanceParameters
//   plain  :601-689 / padded :534-630    CalculateLdsNumberOfByte, IsValidValue, IsReallyValid
//   plain  :691-842 / padded :632-794    IsFastToBeUsedForTuning
//   plain  :855-861 / padded :806-813    IsValidPerformanceConfig (IsReallyValid)
//   plain  :872-1041 / padded :922-1104  GetSolution (options plain :940-982, padded :1000-1045)
//   src/include/miopen/conv/solvers.hpp:2581-2737  the perf-db record fields (Visit order)
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296  ProblemInterpreter
#pragma once

#include "hip_implicit_gemm.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kdbgen::hip_igemm::wrwx {

enum class Variant { Plain, PaddedGemm };

// ProblemInterpreter for backward weights: the forward convolution's sizes (K from the problem's
// "in" = dy, C and Hi/Wi from its "out" = x), strides of a 1-wide output and dilations of a 1-wide
// filter made 1, right pads as the filter needs.
struct Problem {
    long g, n, k, c, hi, wi, ho, wo, y, x, stride_h, stride_w, dilation_h, dilation_w, left_pad_h, left_pad_w,
        right_pad_h, right_pad_w;
};
Problem interpret(const ConvView& p);

// PerformanceImplicitGemmWrwV4R4Xdlops (8 fields) and ..._Padded_Gemm (11 fields, the three
// factors between GemmKPack and the flags), in Visit order.
struct Config {
    int GemmMPerBlock = 4, GemmNPerBlock = 4, GemmKPerBlock = 1, GemmMPerWave = 4, GemmNPerWave = 4, GemmKPack = 1;
    int GemmMFactor = 16, GemmNFactor = 64, GemmKTotalFactor = 16;  // _Padded_Gemm only
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmK = false;
};

// Deserialize (src/include/miopen/serializable.hpp:42-112): one getline(',') per field, each
// parsed with operator>> whose failure is ignored (an int that does not parse is 0, a bool
// other than 0 or 1 is true); too few fields fail, extra text is ignored. Starts from the
// default-constructed config (plain :46-50, padded :46-51).
std::optional<Config> parse_record(Variant v, const std::string& text);

struct GemmSize {
    long g, m, n, k_total, k_block, m_pad, n_pad, k_total_pad;
};

struct Copy {
    int cluster_k, cluster_mn, cluster_kpack, src_read, dst_write;
};

// One problem on one target as both solvers see it.
class WrwXdlops {
public:
    WrwXdlops(Variant variant, const ConvView& p, const Target& target);

    const Problem& problem() const { return q_; }
    // CalculateBlockSize: -1 when a wave tile does not divide the block tile.
    static int block_size(const Config& c);
    // CalculateGemmSizeAndGemmKBlock; nullopt where MIOpen throws (a tile not dividing GEMM M, N, K).
    std::optional<GemmSize> gemm_size(const Config& c) const;
    std::optional<Copy> a_copy(const Config& c) const;
    std::optional<Copy> b_copy(const Config& c) const;
    bool really_valid(const Config& c) const;
    bool fast_for_tuning(const Config& c) const;
    // HeuristicInit: the odometer walk down from 256,256,8,128,128,KPack (first round: really valid
    // and fast; second: really valid); the last value visited when nothing is valid.
    Config heuristic() const;
    // The perf-db record when it deserializes and IsReallyValid accepts it, else the heuristic
    // (FindSolutionImpl, src/include/miopen/find_solution.hpp:88-146).
    Config config(const PerfDb* perf_db, const std::string& solver) const;
    // IsApplicable's tail: the heuristic config really valid, the padded variant padding
    // something, IsValidGridGemmXdlops on the GEMM sizes.
    bool applicable_tail(std::string* why) const;
    // GetSolution's kernel followed by the helpers its invoker launches.
    std::vector<SolverKernel> kernels(const Config& c, const SolverContext& ctx) const;

private:
    Variant variant_;
    const ConvView& p_;
    const Target& target_;
    Problem q_;
};

}  // namespace kdbgen::hip_igemm::wrwx
