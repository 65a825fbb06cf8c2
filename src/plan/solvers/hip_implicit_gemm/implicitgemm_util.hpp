// The HIP static implicit-GEMM family (ConvHipImplicitGemm*): MIOpen's
// static composable kernels under src/kernels/static_composable_kernel/,
// which bake every problem size into -DCK_PARAM_* defines, so there is about
// one kernel per problem. What the solvers share lives here: the device and
// problem checks of implicitgemm_util.hpp, the common compiler flags, the
// V4R1 tuning configuration (PerformanceImplicitGemm / ...V4R1), ProblemInterpreter
// and the option blocks written from it, the six-field configuration of the
// non-xdlops V4R4 and backward-data solvers, the GEMM tile, A copy, grid rule,
// odometer walk and applicability checks of the xdlops solvers, the perf-db
// record reader, and the conditions of the backward-data invoker. What only
// one group of solvers shares is in v4r4_common, backward_data_common, forward_xdlops_common and backward_weights_xdlops_common.
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/include/miopen/solver/implicitgemm_util.hpp:60-160    Kernel* getters
//   src/include/miopen/solver/implicitgemm_util.hpp:206-260   IsXdlopsSupport, GetReadWriteVectorSize,
//                                                             GetEPackLength, IsIndexRangeLargeEnough
//   src/include/miopen/solver/implicitgemm_util.hpp:403-470   ComputeLDSRequiredSize, use_amd_inline_asm,
//                                                             is_use_amd_buffer_load_store, is_use_v_fmac_f32,
//                                                             support_amd_buffer_atomic_fadd
//   src/include/miopen/solver/implicitgemm_util.hpp:544-584   get_static_ck_common_compiler_flag,
//                                                             IsComposableKernelSupportedHardware
//   src/solver/conv/conv_hip_implicit_gemm_nonxdlops_common.cpp:41-437  the V4R1 configuration
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296  ProblemInterpreter
//   src/include/miopen/serializable.hpp:41-112                           Deserialize
//   src/conv/invokers/impl_gemm.cpp:13-213                               the backward-data invoker
// (the solver files for the rest, cited where each helper is declared)
#pragma once

#include "kdbgen/solver.hpp"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace kdbgen::hip_implicit_gemm {

// The xdlops heuristics (a walk over thousands of tiles) are planning's hot spot, and the
// planner asks a solver whether it applies and then for its kernels, for one problem on
// one card at a time: a heuristic keeps its last answer per thread (one cache per
// `compute` type, i.e. per call site). Only for answers that depend on nothing but the
// problem, the CU count and `variant`.
template <typename Compute>
std::invoke_result_t<Compute&> last_answer(const ConvProblem& problem, unsigned compute_units, int variant,
                                           Compute&& compute) {
    using Result = std::invoke_result_t<Compute&>;
    struct Last {
        std::optional<ConvProblem> problem;
        unsigned compute_units = 0;
        int variant = 0;
        Result result{};
    };
    thread_local Last last;
    if (last.problem && last.compute_units == compute_units && last.variant == variant && *last.problem == problem)
        return last.result;
    Result result = compute();
    last.problem = problem, last.compute_units = compute_units, last.variant = variant, last.result = result;
    return result;
}

// IsComposableKernelSupportedHardware: gfx803 with 64 CUs, gfx900, gfx906, gfx908, gfx90a, gfx94x, gfx103x.
bool composable_kernel_hardware(const Target& target);
// IsXdlopsSupport (MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_XDLOPS not disabled): gfx908, gfx90a, gfx94x.
bool xdlops_supported(const Target& target);
// GetEPackLength: FP16 packs 2 (4 with xdlops), BF16 2, FP32 1.
int epack_length(const ConvView& p, const Target& target, bool xdlops_invoked);
// GetReadWriteVectorSize: 4, 2 or 1, the largest that divides v.
int read_write_vector_size(long v);
// IsIndexRangeLargeEnough: every tensor below 2 GiB (in bytes).
bool index_range_large_enough(const ConvView& p);
// Bytes of one element of the problem's input type.
int type_size(const ConvView& p);
// use_amd_inline_asm: off on gfx8 and for FP16 outside gfx906/gfx908.
bool use_amd_inline_asm(const ConvView& p, const Target& target);
// get_static_ck_common_compiler_flag: " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=... -DCK_USE_AMD_V_FMAC_F32=...".
std::string common_compiler_flags(const Target& target);

// The implicit-GEMM view of a problem (Kernel* getters of implicitgemm_util.hpp:60-160):
// backward weights swaps the roles of batch, channels and filter.
struct GemmShape {
    long n, k, c, ho, wo, y, x;
};
GemmShape kernel_shape(const ConvView& p);

// PerformanceImplicitGemm (and ...V4R1, same fields): the sixteen values of a perf-db record
// in Visit order (src/include/miopen/conv/solvers.hpp:430-452).
struct V4R1Config {
    int BPerBlock = 0, KPerBlock = 0, EPerBlock = 0, GemmNRepeat = 0, GemmMPerThreadSubC = 0,
        GemmNPerThreadSubC = 0, GemmMLevel0Cluster = 0, GemmNLevel0Cluster = 0, GemmMLevel1Cluster = 0,
        GemmNLevel1Cluster = 0, InBlockCopyClusterLengths_E = 0, InBlockCopyClusterLengths_N1 = 0,
        InBlockCopyClusterLengths_B = 0, InBlockCopyClusterLengths_N2 = 0, WeiBlockCopyClusterLengths_E = 0,
        WeiBlockCopyClusterLengths_K = 0;

    static std::optional<V4R1Config> parse(const std::string& text);
    std::string text() const;
    // PerformanceImplicitGemm::IsValidValue (nonxdlops_common.cpp:417-437).
    bool valid_value() const;
    // PerformanceImplicitGemm::IsValid (nonxdlops_common.cpp:41-150): what HeuristicInit
    // checks, with WORKAROUND_ISSUE_659 and the backward-weights filter check.
    bool valid_base(const ConvView& p, const Target& target) const;
    // PerformanceImplicitGemmV4R1::IsValid (nonxdlops_common.cpp:152-282): what a perf-db record must pass.
    bool valid_v4r1(const ConvView& p, const Target& target) const;
    int block_size() const { return GemmMLevel0Cluster * GemmNLevel0Cluster * GemmMLevel1Cluster * GemmNLevel1Cluster; }
};

// PerformanceImplicitGemm::HeuristicInit (nonxdlops_common.cpp:284-415): the first of six
// fixed configurations that valid_base accepts, else the last one (MIOpen logs
// "All attempts failed" and goes on with it).
V4R1Config v4r1_heuristic(const ConvView& p, const Target& target);
// The perf-db record when it parses and passes IsValidValue and IsValid
// (ConvTunableSolver: IsValidPerformanceConfig), else the heuristic.
V4R1Config v4r1_config(const ConvView& p, const SolverContext& ctx, std::string_view solver);

// The checks V4R1Fwd and V4R1WrW share before their shape rules
// (conv_hip_implicit_gemm_fwd_v4r1.cpp:45-100, :108-150).
bool v4r1_common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why);

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

// The problem and derived values V4R1's GetSolution writes into -DCK_PARAM_* (both directions).
struct V4R1Kernel {
    long n, k, c, hi, wi, ho, wo, y, x, stride_h, stride_w, dilation_h, dilation_w, left_pad_h, left_pad_w;
    int direction_forward, direction_backward_weight;
    long grid_size;
    int in_src_read_b, wei_src_read_e;
    int in_dst_write_n2, wei_dst_write_k;  // FP32 only
};

// The kernel of ConvHipImplicitGemmV4R1Fwd / WrW: file, symbol and options in MIOpen's
// order, the general options (data-type block) between the common flags and the
// per-type tail (conv_hip_implicit_gemm_fwd_v4r1.cpp:318-362, :477-530, MIOpen 3.3.0).
SolverKernel v4r1_kernel(const ConvView& p, const SolverContext& ctx, const V4R1Config& c, const V4R1Kernel& k);

}  // namespace kdbgen::hip_implicit_gemm

namespace kdbgen::hip_implicit_gemm {

// IsValidBlockwiseGemmXdlops (implicitgemm_util.hpp:262-318, WORKAROUND_SWDEV_251757 = 1).
bool valid_blockwise_gemm_xdlops(const ConvView& p, int m_per_block, int n_per_block, int k_per_block, int m_per_wave,
                                 int n_per_wave, int k_pack);
// IsValidGridGemmXdlops (implicitgemm_util.hpp:320-333).
bool valid_grid_gemm_xdlops(long gemm_m, long gemm_n, long gemm_k);
// The xdlops tail of the options: " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0
// -DCK_USE_AMD_XDLOPS_EMULATE=0" (MIOPEN_DEBUG_IMPLICIT_GEMM_XDLOPS_INLINE_ASM and _EMULATE unset).
std::string xdlops_flags(const Target& target);

// IsTwoPower<L, H> (implicitgemm_util.hpp:155-162) with the bounds at run time.
inline bool two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }
// PreviousTwoPower<L, H> (implicitgemm_util.hpp:179-191): halves v, or wraps lo to hi and says so.
// Inline: the heuristic walks call it for each of ~10^4 configurations per problem.
inline bool previous_two_power(int& v, int lo, int hi) {
    if (v == lo) {
        v = hi;
        return true;
    }
    v /= 2;
    return false;
}
template <int L, int H>
bool previous_two_power(int& v) {
    return previous_two_power(v, L, H);
}

}  // namespace kdbgen::hip_implicit_gemm

// What the V4R4, backward-data and xdlops solvers of the family share beyond implicitgemm_util.hpp.
namespace kdbgen::hip_implicit_gemm {

// ProblemInterpreter (src/include/miopen/solver/problem_description_interpreter.hpp:40-296): the
// convolution as the forward one it computes or undoes. MIOpen's ProblemDescription (and kdbgen's
// key) holds dy in "in" and x (backward weights) or dx (backward data) in "out" when the direction
// is not forward; the interpreter turns them back: C, Di/Hi/Wi are the forward input's, K, Do/Ho/Wo
// the forward output's (GetOutputChannelK :60-66, GetInputChannelC :76-82, Get{Input,Output}* :84-138).
// Strides of a 1-wide output and dilations of a 1-wide filter become 1 (GetAdjustedConvolution*,
// :179-212); the right pads are what the filter needs beyond the left pad and the input
// (GetAdjustedInputRightPad{D,H,W}, :244-295). The depth values are a 3-D problem's, else 1 and 0.
struct Interpreted {
    bool is3d = false;
    long g = 1, n = 0, k = 0, c = 0;
    long di = 1, hi = 0, wi = 0, do_ = 1, ho = 0, wo = 0, z = 1, y = 0, x = 0;
    long stride_d = 1, stride_h = 1, stride_w = 1, dilation_d = 1, dilation_h = 1, dilation_w = 1;
    long left_pad_d = 0, left_pad_h = 0, left_pad_w = 0, right_pad_d = 0, right_pad_h = 0, right_pad_w = 0;
};
Interpreted interpret(const ConvView& p);
// GetAdjustedInputRightPad{D,H,W} (:244-295): how far the last filter window reaches past the left pad
// and the input (0 when it does not).
long right_pad(long in, long out, long filter, long stride, long dilation, long left_pad);

// " -DCK_PARAM_PROBLEM_N=... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=...": the seventeen problem defines in the
// order the V4R4 forward, backward-data and xdlops GetSolutions write them (the xdlops solvers put
// " -DCK_PARAM_PROBLEM_G=" first; V4R4WrW has an order of its own, conv_hip_implicit_gemm_wrw_v4r4.cpp:726-745).
std::string problem_defines(const Interpreted& q);
// " -DCK_PARAM_PROBLEM_G=..." and then problem_defines: the problem block of the forward and
// backward-weights xdlops solvers and of BwdDataV1R1Xdlops (e.g. conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:
// 924-941, conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:941-958, conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:896-913).
std::string grouped_problem_defines(const Interpreted& q);
// " -DCK_PARAM_PROBLEM_DI=... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D=...": what the 3-D V4R4 and backward-data
// solvers append (conv_hip_implicit_gemm_fwd_v4r4.cpp:765-774, conv_hip_implicit_gemm_bwd_v1r1.cpp:843-860).
std::string depth_defines(const Interpreted& q);

// a * b as MIOpen's int GEMM sizes multiply: a product past 2^31 wraps (two's complement on every
// compiler MIOpen is built with).
int int_product(long a, long b);

// The "don't need too many blocks" rule every xdlops IsFastToBeUsedForTuning opens with
// (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:639-688, ..._padded_gemm.cpp:674-724,
// conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:694-742, conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:707-756,
// ..._padded_gemm.cpp:645-701, conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:542-591,
// conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp:432-481):
// the grid of this blockwise GEMM (int arithmetic) against the grid of the largest one, by multiples of the CU count.
bool grid_not_too_large(long gemm_m, long gemm_n, int m_per_block, int n_per_block, unsigned compute_units);
// The "not too much data per thread" rule of the same functions (the forward and backward-weights
// ones through xdlops_fast_for_tuning): each of a block's threads (64 per wave) copies at most 16
// values of A and of B for FP32, 32 for FP16 and BF16.
bool copies_per_thread_fit(const ConvView& p, int waves, int k_per_block, int m_per_block, int n_per_block, int kpack);

// The perf-db record of (problem, solver), when ctx has a perf-db that holds one.
std::optional<std::string> perf_db_record(const ConvView& p, const SolverContext& ctx, std::string_view solver);

// SerDes::Deserialize (src/include/miopen/serializable.hpp:41-112), how every solver of the family reads
// a perf-db record (the configs' parse): one getline(',') per field, too few fields fail, extra text is ignored; each field is
// parsed with `stringstream >> T` whose failure Parse<T> ignores.
//   record_fields: the first n fields, or nullopt when the record has fewer (getline extracts nothing).
//   record_int: leading blanks skipped, an optional sign, the digits as far as they go (0 when none),
//     clamped to the int range as num_get stores it.
//   record_bool: without boolalpha a number: 0 and no number are false, 1 and any other number true
//     (libstdc++'s num_get<bool>, LWG 23).
std::optional<std::vector<std::string>> record_fields(const std::string& text, std::size_t n);
int record_int(std::string_view field);
bool record_bool(std::string_view field);
// Deserialize into the fields a Visit lists, in its order: false (and the fields partly written) when the
// record has fewer fields.
using RecordField = std::variant<int*, bool*>;
bool read_record(const std::string& text, std::initializer_list<RecordField> fields);

// HeuristicInit's odometer walk over PreviousTwoPower digits, least important first (the xdlops
// HeuristicInits, e.g. conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:111-238,
// conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:128-254): each step lowers the first digit, carrying into
// the next when it wraps; the start is tried last, after every digit wrapped. Stops at the first config
// `valid` accepts, or back at the start when every combination was visited.
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

// The six GEMM tile fields the xdlops performance configs open with (Visit order), and what
// ConvHipImplicitGemmForwardV4R4Xdlops, ..._Padded_Gemm, ...ForwardV4R5Xdlops, ...WrwV4R4Xdlops,
// ..._Padded_Gemm and ...BwdDataV1R1Xdlops compute from them alike (BwdDataV4R1Xdlops orders its fields
// and bounds GemmN otherwise: its config stays its own):
//   CalculateBlockSize (e.g. conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:261-279): waves per block times 64,
//     -1 when the waves do not tile the block;
//   IsValidValue (:551-561): GemmM/NPerBlock 4..256, GemmKPerBlock 1..8, GemmM/NPerWave 4..128,
//     GemmKPack 1..8, each a power of two;
//   CalculateLdsNumberOfByte (:538-548) within get_lds_max_number_of_byte (64 KiB).
struct GemmTile {
    int GemmMPerBlock = 0, GemmNPerBlock = 0, GemmKPerBlock = 0, GemmMPerWave = 0, GemmNPerWave = 0, GemmKPack = 0;

    int block_size() const;
    bool valid_value() const;
    bool lds_fits(const ConvView& p) const;
};

// The start and digits of HeuristicInit's walk over a GemmTile in the forward, backward-weights and
// BwdDataV1R1Xdlops solvers: from 256,256,8,128,128,KPack (4 for FP32, 8 otherwise) GemmKPerBlock (1..8),
// GemmKPack (FP32 1..4, FP16 4..8, BF16 2..8), GemmNPerWave, GemmMPerWave (4..128), GemmNPerBlock,
// GemmMPerBlock (4..256) (e.g. conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:128-254,
// conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:111-238). The forward solvers walk GemmBThreadDataPerRead_GemmN
// first (hip_implicit_gemm/forward_xdlops_common.hpp).
GemmTile tile_walk_start(const ConvView& p);
template <class Config>
std::vector<Digit<Config>> tile_walk_digits(const ConvView& p) {
    const int kpack_lo = p.IsFp32() ? 1 : p.IsFp16() ? 4 : 2, kpack_hi = p.IsFp32() ? 4 : 8;
    return {{&Config::GemmKPerBlock, 1, 8},  {&Config::GemmKPack, kpack_lo, kpack_hi},
            {&Config::GemmNPerWave, 4, 128}, {&Config::GemmMPerWave, 4, 128},
            {&Config::GemmNPerBlock, 4, 256}, {&Config::GemmMPerBlock, 4, 256}};
}

// An xdlops blockwise copy: thread cluster lengths along GemmK, GemmM or GemmN, and GemmKPack, the vector
// read from global memory and the vector written to LDS.
struct XdlopsCopy {
    int cluster_k = -1, cluster_mn = -1, cluster_kpack = -1, src_read = -1, dst_write = -1;
    bool valid = false;
};

// CalculateGemmABlockCopyPerformanceParameters of the forward and backward-weights xdlops solvers:
// A = [GemmK, GemmM, GemmKPack] read along GemmKPack (amd_buffer_load_max_length 4, WORKAROUND_SWDEV_413051),
// written to LDS as wide as amd_lds_write_max_length (FP32 4, 16-bit 8) allows
// (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:309-393, ..._padded_gemm.cpp:325-426,
// conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:342-426, conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:378-472,
// ..._padded_gemm.cpp:311-405). They differ in three rules, the arguments:
//   read_bound: the KPack read is also bounded by it when positive (Padded_Gemm forward: C/G*Y*X when GemmK
//     was padded; backward weights: Ho*Wo);
//   lcm_with_read: the per-thread copy rounded up to a full vector read (all but V4R5, which has it commented out);
//   exact_cluster: the thread cluster must be the block (V4R5), else at most the block.
XdlopsCopy xdlops_a_copy(const GemmTile& t, bool more_gemm_k, const ConvView& p, long read_bound, bool lcm_with_read,
                         bool exact_cluster);
// The vector the forward and backward-weights xdlops B copies read the input with, before their own bounds,
// as the input tensor's layout allows it: gcd(4, Ho*Wo) for a 1x1, unit-stride, unpadded filter, gcd(4, Wo)
// for a unit W stride without W pads, gcd(4, Wo, W pads, W dilation) for a unit W stride, else 1
// (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:436-453, ..._padded_gemm.cpp:469-486,
// conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:472-489, conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:517-534,
// ..._padded_gemm.cpp:450-467; amd_buffer_load_max_length is 4).
long xdlops_b_read_width(const Interpreted& q);

// " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=... _A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=...":
// the five A-copy defines of those solvers' GetSolutions (e.g. conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:950-954).
std::string xdlops_a_copy_defines(const XdlopsCopy& a);

// HeuristicInit's two rounds (every xdlops HeuristicInit, e.g. conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:
// 111-238): the first config of the walk that is really valid and fast for tuning, else the first that is
// really valid, else the last visited (MIOpen logs "All attempts unsuccessful").
template <class Config, class ReallyValid, class Fast>
Config two_round_walk(const Config& start, const std::vector<Digit<Config>>& digits, ReallyValid really_valid,
                      Fast fast) {
    Config c = odometer_walk(start, digits, [&](const Config& t) { return really_valid(t) && fast(t); });
    if (!really_valid(c)) c = odometer_walk(start, digits, really_valid);
    return c;
}

// IsFastToBeUsedForTuning of the forward and backward-weights xdlops solvers (use_spare_set off: it is in
// HeuristicInit's configs and in records) with the GEMM sizes the solver uses; reads the CU count
// (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:629-807, ..._padded_gemm.cpp:664-839,
// conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:681-855, conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:691-842,
// ..._padded_gemm.cpp:632-794): no 128x128 wave tile, grid_not_too_large, 2 to 4 waves, no skinny blockwise
// or wavewise GEMM where a squarer one fits, not too much data per thread, GemmKPerBlock*GemmKPack not too
// small. The BwdData xdlops solvers lack the last rule (BwdDataV4R1Xdlops the skinny ones too): theirs
// stay their own.
//   k_total_gate: ForwardV4R4Xdlops refuses a small GemmKPerBlock*GemmKPack only when GemmK is a multiple
//   of 8 (FP32) or 16 (16-bit): pass GemmK; the others refuse it always: pass nullopt.
bool xdlops_fast_for_tuning(const GemmTile& t, const ConvView& p, long gemm_m, long gemm_n,
                            std::optional<long> k_total_gate, unsigned compute_units);

// " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=... -DCK_PARAM_DEPENDENT_GRID_SIZE=...": the six tunables, block and
// grid size as ForwardV4R4Xdlops, ..._Padded_Gemm and BwdDataV1R1Xdlops write them
// (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:942-949, conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:914-921).
std::string xdlops_tunable_defines(const GemmTile& t, long grid_size);
// " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=... _DST_DATA_PER_WRITE_GEMM_KPACK=...": the five
// B-copy defines of the same three solvers (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:955-959); V4R5 names
// the cluster along its B dimension GEMM_B (cluster_name "B").
std::string xdlops_b_copy_defines(const XdlopsCopy& b, const char* cluster_name = "N");

// The checks the xdlops solvers' IsApplicable make before their GEMM-size rules (each solver lists them
// in an order of its own; only the first failing reason depends on it): composable-kernel hardware with
// xdlops, FP32/FP16/BF16, sizes that fit int, no casted tensors, the direction, 2-D, no FP16-alt on
// gfx90a, IsIndexRangeLargeEnough, NCHW (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:972-1039,
// ..._padded_gemm.cpp:1031-1104, conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:1002-1076,
// conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:1043-1108, ..._padded_gemm.cpp:1106-1186,
// conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:758-819).
bool xdlops_common_checks(const ConvView& p, const SolverContext& ctx, ConvDirection direction, std::string* why);

}  // namespace kdbgen::hip_implicit_gemm

// The tuning configuration the non-xdlops V4R4 (Fwd, WrW) and backward-data (V1R1, V4R1) solvers share:
// PerformanceImplicitGemmV4R4Fwd, ...V4R4WrW, ...BwdDataV1R1 and ...BwdDataV4R1 are four classes in
// MIOpen with the same six fields (src/include/miopen/conv/solvers.hpp:498-558, :560-620, :650-660,
// :713-723), the same IsValidValue, CalculateBlockGemmPerformanceParameters, CalculateLdsNumberOfByte rule
// and HeuristicInit list, written out in each solver (MIOpen 3.3.0 src/solver/conv/):
//   conv_hip_implicit_gemm_fwd_v4r4.cpp  :113-177 block GEMM  :363-409 LDS  :411-421 IsValidValue  :477-532 HeuristicInit
//   conv_hip_implicit_gemm_wrw_v4r4.cpp  :112-176             :366-412      :414-424               :480-535
//   conv_hip_implicit_gemm_bwd_v1r1.cpp  :118-182             :397-442      :444-454               :512-568
//   conv_hip_implicit_gemm_bwd_v4r1.cpp  :115-179             :409-455      :457-467               :529-584
// Their copy parameters, GEMM sizes and options differ; they stay with the solvers.
namespace kdbgen::hip_implicit_gemm {

// CalculateBlockGemmPerformanceParameters: the level-0/1 thread clusters of BlockSize 64, 128 or 256,
// valid when the per-thread tiles make exactly 2 x 2 clusters per block.
struct BlockGemm {
    int m_level0 = -1, n_level0 = -1, m_level1 = -1, n_level1 = -1;
    bool valid = false;
};

// A blockwise copy of these solvers: thread cluster lengths along GEMM K and along M (A) or N (B),
// the vector read from global memory and the vector written to LDS.
struct Copy {
    int cluster_k = -1, cluster_mn = -1, src_read = -1, dst_write = -1;
    bool valid = false;
};

// The six fields, a perf-db record's order.
struct GemmConfig {
    int BlockSize = -1, GemmMPerBlock = -1, GemmNPerBlock = -1, GemmKPerBlock = -1, GemmMPerThread = -1,
        GemmNPerThread = -1;

    static std::optional<GemmConfig> parse(const std::string& text);
    std::string text() const;
    // IsValidValue: BlockSize 64..256, GemmM/NPerBlock 32..128, GemmKPerBlock 4..16, GemmM/NPerThread 2..4,
    // each a power of two.
    bool valid_value() const;
    BlockGemm block_gemm() const;
    bool operator==(const GemmConfig&) const = default;
};

// HeuristicInit's candidates in order; MIOpen keeps the last one when none is valid ("All attempts failed").
extern const std::array<GemmConfig, 21> kGemmHeuristicOrder;

// CalculateLdsNumberOfByte: double-buffered A and B tiles of floats, each row padded to the least common
// multiple of the copies' LDS writes and the threadwise GEMM's reads; nullopt when that is not positive.
std::optional<std::size_t> gemm_lds_bytes(const GemmConfig& c, int a_dst_write, int b_dst_write, int thread_read_m,
                                          int thread_read_n);
constexpr std::size_t kLdsMaxBytes = 65536;  // get_lds_max_number_of_byte (implicitgemm_util.hpp:542)

// " -DCK_PARAM_TUNABLE_BLOCK_SIZE=... -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=...": the ten tunables the
// four GetSolutions write after the problem (conv_hip_implicit_gemm_fwd_v4r4.cpp:740-749,
// conv_hip_implicit_gemm_bwd_v1r1.cpp:820-829, conv_hip_implicit_gemm_bwd_v4r1.cpp:931-940).
std::string block_gemm_defines(const GemmConfig& c, const BlockGemm& g);

}  // namespace kdbgen::hip_implicit_gemm

// The backward-data invoker (src/conv/invokers/impl_gemm.cpp:13-213), shared by the V1R1, V4R1, V1R1Xdlops
// and V4R1Xdlops solutions: it launches SetTensor / CastTensor around the GEMM kernels on conditions read
// from the convolution's own strides and dilations (not the interpreter's adjusted ones) and the filter.
namespace kdbgen::hip_implicit_gemm {

// The problem's data type (FP32, FP16 or BF16 here).
DataType data_type_of(const ConvView& p);
// Elements of dx (the tensor the kernels write), packed: N * C * [Di *] Hi * Wi.
long dx_elements(const ConvView& p);
// impl_gemm.cpp:61-62: windows overlap somewhere (stride < dilation * (filter - 1) + 1): the GEMM outputs
// add atomically.
bool needs_atomic_add(const ConvView& p);
// impl_gemm.cpp:55-67, :172-181: a filter step that leaves no gap between the windows (dilation 1 and
// stride <= filter size, every spatial dimension).
bool every_pixel_is_written(const ConvView& p);

}  // namespace kdbgen::hip_implicit_gemm
