// What the forward xdlops solvers of the HIP static implicit-GEMM family share:
// ConvHipImplicitGemmForwardV4R4Xdlops, ..._Padded_Gemm and ConvHipImplicitGemmForwardV4R5Xdlops.
// Their performance configs have the same nine fields (Padded_Gemm adds three padding factors
// between them, V4R5 a use_spare_set flag that is not serialized), the same odometer walk in
// HeuristicInit, the same CU-dependent IsFastToBeUsedForTuning, and block-copy parameters that
// differ only in a few rules, which the functions below take as arguments.
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp
//     :126-259 HeuristicInit, :261-279 CalculateBlockSize, :309-393 A copy, :396-536 B copy,
//     :538-548 CalculateLdsNumberOfByte, :551-561 IsValidValue, :565-624 IsReallyValid,
//     :629-807 IsFastToBeUsedForTuning, :829-849 CalculateGemmSize
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops_padded_gemm.cpp
//     :140-273 HeuristicInit, :325-426 A copy, :429-569 B copy, :600-660 IsReallyValid,
//     :664-839 IsFastToBeUsedForTuning, :860-890 CalculateGemmSize (padding factors)
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp
//     :50-70 CalculateGemmSize, :160-293 HeuristicInit, :342-426 A copy, :429-578 B copy,
//     :593-604 IsValidValue, :608-676 IsReallyValid, :681-855 IsFastToBeUsedForTuning
//   src/include/miopen/solver/problem_description_interpreter.hpp:185-295 (ProblemInterpreter)
//   src/include/miopen/solver/implicitgemm_util.hpp:471-542 amd_buffer_load_max_length (4 for every
//     type: WORKAROUND_SWDEV_413051 is 1, :54), amd_lds_write_max_length (FP32 4, 16-bit 8),
//     get_lds_max_number_of_byte (65536)
// The MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_FWD_V4R{4,5}_XDLOPS_ADD_VECTOR_LOAD_GEMMN_TUNE_PARAM gates are
// off by default; with them off GemmBThreadDataPerRead_GemmN plays no part in validity or options.
#pragma once

#include "implicitgemm_util.hpp"

#include <optional>
#include <string>

namespace kdbgen::forward_xdlops {

// ProblemInterpreter of a forward problem (hip_implicit_gemm/implicitgemm_util.hpp).
using FwdProblem = hip_implicit_gemm::Interpreted;

// CalculateGemmSize: M = K/G, N = N*Ho*Wo, K = C/G*Y*X, each padded up to a multiple of its
// factor (Padded_Gemm; 1 for the others); the extras are what the padding added.
struct GemmSize {
    long g, m, n, k_total, m_extra, n_extra, k_extra;
};
GemmSize gemm_size(const FwdProblem& q, int m_factor = 1, int n_factor = 1, int k_factor = 1);

// The nine fields in Visit order (src/include/miopen/conv/solvers.hpp:1099-1140, :1181-1193): the six of
// the shared GemmTile (block size, IsValidValue of V4R4 and Padded_Gemm, LDS: hip_implicit_gemm/implicitgemm_util.hpp; V4R5
// adds GemmBThreadDataPerRead_GemmN in [1, 8] to IsValidValue), then three of their own.
struct XdlopsTile : hip_implicit_gemm::GemmTile {
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmKPack = false;
    int GemmBThreadDataPerRead_GemmN = 0;
};

// Deserialize of the nine-field record of V4R4 and V4R5 (hip_implicit_gemm::read_record), into a Config that is
// an XdlopsTile with no fields of its own.
template <class Config>
std::optional<Config> parse_nine(const std::string& text) {
    Config c;
    if (!hip_implicit_gemm::read_record(text, {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave,
                                       &c.GemmNPerWave, &c.GemmKPack, &c.GemmAThreadCopyMoreGemmK,
                                       &c.GemmBThreadCopyMoreGemmKPack, &c.GemmBThreadDataPerRead_GemmN}))
        return std::nullopt;
    return c;
}

using BlockCopy = hip_implicit_gemm::XdlopsCopy;

// CalculateGemmABlockCopyPerformanceParameters, A = [GemmK, GemmM, GemmKPack] (hip_implicit_gemm::xdlops_a_copy):
//   k_unpadded: Padded_Gemm bounds the KPack read by C/G*Y*X when GemmK was padded (0: no such bound);
//   lcm_with_read: V4R4 and Padded_Gemm round the per-thread copy up to a full vector read (V4R5 has it
//   commented out); exact_cluster: V4R5 wants the thread cluster to be the block, the others at most the block.
inline BlockCopy a_copy(const XdlopsTile& t, const ConvView& p, long k_unpadded, bool lcm_with_read,
                        bool exact_cluster) {
    return hip_implicit_gemm::xdlops_a_copy(t, t.GemmAThreadCopyMoreGemmK, p, k_unpadded, lcm_with_read, exact_cluster);
}

// CalculateGemmBBlockCopyPerformanceParameters, B = [GemmK, GemmN, GemmKPack] read along GemmN.
//   nwaves: V4R5 splits GemmN into NWaves x BPerBlock and copies along B (1 for the others: B is GemmN);
//   exact_cluster as for a_copy.
BlockCopy b_copy(const XdlopsTile& t, const ConvView& p, const FwdProblem& q, int nwaves, bool exact_cluster);

// IsFastToBeUsedForTuning: hip_implicit_gemm::xdlops_fast_for_tuning.

// HeuristicInit's walk: from 256,256,8,128,128,KPack(4 FP32, else 8),false,true,1 the odometer counts
// down GemmBThreadDataPerRead_GemmN (1..read_high), GemmKPerBlock (1..8), GemmKPack (FP32 1..4,
// FP16 4..8, BF16 2..8), GemmNPerWave, GemmMPerWave (4..128), GemmNPerBlock, GemmMPerBlock (4..256)
// until `valid` holds or every value was visited (then the last one visited is returned).
// With the ADD_VECTOR_LOAD gates off no check reads GemmBThreadDataPerRead_GemmN (V4R5's IsValidValue
// wants it in 1..8, which every walked value is), so a tile is judged once, not once per read width:
// `valid` must not depend on that field.
template <typename Valid>
XdlopsTile walk(const ConvView& p, int read_high, Valid valid) {
    using hip_implicit_gemm::previous_two_power;
    XdlopsTile t;
    t.GemmMPerBlock = 256, t.GemmNPerBlock = 256, t.GemmKPerBlock = 8, t.GemmMPerWave = 128, t.GemmNPerWave = 128;
    t.GemmKPack = p.IsFp32() ? 4 : 8;
    t.GemmAThreadCopyMoreGemmK = false, t.GemmBThreadCopyMoreGemmKPack = true, t.GemmBThreadDataPerRead_GemmN = 1;
    const auto step_read = [&] {
        return read_high == 4 ? previous_two_power<1, 4>(t.GemmBThreadDataPerRead_GemmN)
                              : previous_two_power<1, 8>(t.GemmBThreadDataPerRead_GemmN);
    };
    const auto step_kpack = [&] {
        return p.IsFp32()   ? previous_two_power<1, 4>(t.GemmKPack)
               : p.IsFp16() ? previous_two_power<4, 8>(t.GemmKPack)
                            : previous_two_power<2, 8>(t.GemmKPack);
    };
    bool all_visited = false;
    bool judged = false, last = false;  // the verdict on the tile, kept while only the read width steps
    do {
        // Each step that wraps around carries into the next field, as the do { ... } while (false) does.
        const bool read_wrapped = step_read();
        all_visited = read_wrapped && previous_two_power<1, 8>(t.GemmKPerBlock) && step_kpack() &&
                      previous_two_power<4, 128>(t.GemmNPerWave) && previous_two_power<4, 128>(t.GemmMPerWave) &&
                      previous_two_power<4, 256>(t.GemmNPerBlock) && previous_two_power<4, 256>(t.GemmMPerBlock);
        if (read_wrapped || !judged) last = valid(t), judged = true;
        if (last) break;
    } while (!all_visited);
    return t;
}

// HeuristicInit's two rounds: the first tile that is really valid and fast, else the first that is
// really valid, else the last visited ("All attempts unsuccessful").
template <typename ReallyValid, typename Fast>
XdlopsTile heuristic(const ConvView& p, int read_high, ReallyValid really_valid, Fast fast) {
    XdlopsTile t = walk(p, read_high, [&](const XdlopsTile& c) { return really_valid(c) && fast(c); });
    if (!really_valid(t)) t = walk(p, read_high, really_valid);
    return t;
}

}  // namespace kdbgen::forward_xdlops
