// What the backward-data xdlops HIP implicit-GEMM solvers share
// (ConvHipImplicitGemmBwdDataV1R1Xdlops, ConvHipImplicitGemmBwdDataV4R1Xdlops):
// the backward-data view of a problem, the CU-dependent "too many blocks" rule of
// their IsFastToBeUsedForTuning, HeuristicInit's odometer walk, the perf-db record
// reader, and the helper kernels their invoker launches around them.
//
// MIOpen 3.3.0 (develop 2d1fd997; rocm-6.2.0 has the same code under src/solver/):
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296  ProblemInterpreter
//   src/include/miopen/solver/implicitgemm_util.hpp:178-191               PreviousTwoPower
//   src/include/miopen/solver/implicitgemm_util.hpp:586-656               gcd, lcm, integer_divide_ceil
//   src/include/miopen/serializable.hpp:41-112                            Deserialize (Parse<T>, getline on ',')
//   src/conv/invokers/impl_gemm.cpp:33-198                                the backward-data invoker
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hip_implicit_gemm.hpp"

namespace kdbgen::hip_igemm::bwdx {

// ProblemInterpreter for backward data: the convolution as the forward one it undoes.
// MIOpen's ProblemDescription (and kdbgen's key) holds dy in "in" and dx in "out";
// the interpreter swaps them back: C and Hi/Wi are dx's, K and Ho/Wo dy's. Strides of
// a 1-wide dy and dilations of a 1-wide filter become 1; the right pads are what the
// filter needs beyond the left pad and dx (GetAdjustedInputRightPadH/W, :262-295).
struct BwdDataProblem {
    long g, n, k, c, hi, wi, ho, wo, y, x, stride_h, stride_w, dilation_h, dilation_w, left_pad_h, left_pad_w,
        right_pad_h, right_pad_w;
};
BwdDataProblem interpret(const ConvView& p);

// " -DCK_PARAM_PROBLEM_N=<n> ... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=<r>": the eighteen problem
// defines both solvers write in this order (V1R1Xdlops after its G, V4R1Xdlops first).
std::string problem_defines(const BwdDataProblem& q);

// a * b as a 32-bit int product wraps (the gemm sizes are ints in MIOpen; c*y*x * n*ho*wo
// can pass 2^31 in IsFastToBeUsedForTuning's grid size).
int int_product(long a, long b);

// The "don't need too many blocks" rule both IsFastToBeUsedForTuning share
// (conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:542-591, conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp:432-481):
// the grid of this blockwise GEMM against the grid of the largest one, by multiples of the CU count.
bool grid_not_too_large(long gemm_m, long gemm_n, int m_per_block, int n_per_block, unsigned compute_units);

// PreviousTwoPower<lo, hi> at run time: halves v, or wraps lo to hi and says so.
bool previous_two_power(int& v, int lo, int hi);

// IsTwoPower<lo, hi>.
bool two_power(int v, int lo, int hi);

// HeuristicInit's walk: the digits in the order MIOpen lists them (least important first).
// Each step lowers the first digit, carrying into the next when it wraps; the starting value
// is never tried first. Stops at the first config `valid` accepts, or back at the start when
// every combination was visited.
template <class Config>
struct Digit {
    int Config::*field;
    int lo, hi;
};

template <class Config, class Valid>
Config odometer_walk(Config c, const std::vector<Digit<Config>>& digits, Valid valid) {
    bool all_visited = false;
    do {
        all_visited = true;
        for (const auto& d : digits) {
            if (!previous_two_power(c.*d.field, d.lo, d.hi)) {
                all_visited = false;
                break;
            }
        }
        if (valid(c)) break;
    } while (!all_visited);
    return c;
}

// One field of a perf-db record as Parse<T>::apply reads it (`stringstream >> T`): leading
// blanks skipped, an int's digits as far as they go (0 when none), a bool from 0 or 1 (false otherwise).
int parse_int_field(const std::string& text);
bool parse_bool_field(const std::string& text);

// Deserialize's split: the first n fields of a ','-separated record, or nullopt when it has
// fewer (getline fails); fields past n are ignored, as MIOpen ignores them.
std::optional<std::vector<std::string>> record_fields(const std::string& text, std::size_t n);

// The perf-db record of (problem, solver), when ctx has a perf-db that holds one.
std::optional<std::string> perf_db_record(const ConvView& p, const SolverContext& ctx, std::string_view solver);

// The problem's data type (FP32, FP16 or BF16 here) and dx's element count.
DataType data_type_of(const ConvView& p);
long dx_elements(const ConvView& p);

// The conditions of the backward-data invoker (impl_gemm.cpp:52-69, :170-181), from the
// convolution's own strides and dilations (not the interpreter's adjusted ones) and the
// filter size: a stride below the filter's dilated extent makes GEMM outputs overlap
// (atomic add); a dilation or a stride past the filter leaves pixels no GEMM writes.
bool needs_atomic_add(const ConvView& p);
bool every_pixel_is_written(const ConvView& p);

}  // namespace kdbgen::hip_igemm::bwdx
