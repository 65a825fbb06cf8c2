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

#include "implicitgemm_util.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kdbgen::hip_implicit_gemm::backward_weights_xdlops {

enum class Variant { Plain, PaddedGemm };

// ProblemInterpreter of a backward-weights problem (hip_implicit_gemm/implicitgemm_util.hpp): the forward convolution's
// sizes (K from the problem's "in" = dy, C and Hi/Wi from its "out" = x).
using Problem = Interpreted;

// PerformanceImplicitGemmWrwV4R4Xdlops (8 fields) and ..._Padded_Gemm (11 fields, the three
// factors between GemmKPack and the flags), in Visit order.
// The six tile fields are the shared GemmTile (block size, IsValidValue, LDS: hip_implicit_gemm/implicitgemm_util.hpp).
struct Config : GemmTile {
    int GemmMFactor = 16, GemmNFactor = 64, GemmKTotalFactor = 16;  // _Padded_Gemm only
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmK = false;
};

// Deserialize (hip_implicit_gemm::record_fields, record_int, record_bool): too few fields fail, extra text is
// ignored. The plain record leaves the factors at the default-constructed config's (plain :46-50,
// padded :46-51).
std::optional<Config> parse_record(Variant v, const std::string& text);

struct GemmSize {
    long g, m, n, k_total, k_block, m_pad, n_pad, k_total_pad;
};

using Copy = XdlopsCopy;

// One problem on one target as both solvers see it.
class WrwXdlops {
public:
    WrwXdlops(Variant variant, const ConvView& p, const Target& target);

    const Problem& problem() const { return q_; }
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

}  // namespace kdbgen::hip_implicit_gemm::backward_weights_xdlops
