// ConvHipImplicitGemmForwardV4R4Xdlops: forward implicit GEMM on xdlops (gfx908,
// gfx90a, gfx94x), static_kernel_gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw.cpp,
// one kernel per problem. Its heuristic default reads the CU count (IsFastToBeUsedForTuning
// compares the grid with multiples of it). No helper kernels.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp):
//   :126-259  HeuristicInit (the odometer walk down from 256,256,8,128,128,KPack,false,true,1)
//   :261-306  CalculateBlockSize, CalculateGridSize
//   :309-393  CalculateGemmABlockCopyPerformanceParameters
//   :396-536  CalculateGemmBBlockCopyPerformanceParameters
//   :538-624  CalculateLdsNumberOfByte, IsValidValue, IsReallyValid
//   :629-807  IsFastToBeUsedForTuning;  :820-849 IsValidPerformanceConfig (IsReallyValid), CalculateGemmSize
//   :861-970  GetSolution;  :972-1039 IsApplicable (deprecated solver)
// What it shares with ..._Padded_Gemm and V4R5 (the walk, the block copies, IsFastToBeUsedForTuning)
// is in forward_xdlops_common.{hpp,cpp}.
//   src/include/miopen/conv/solvers.hpp:1099-1140 the perf-db record fields
#include "forward_xdlops_common.hpp"
#include "implicitgemm_util.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kdbgen {

namespace {

using forward_xdlops::FwdProblem;
using forward_xdlops::XdlopsTile;

// PerformanceImplicitGemmForwardV4R4Xdlops: the nine shared fields (hip_implicit_gemm/forward_xdlops_common.hpp).
struct Config : XdlopsTile {
    static std::optional<Config> parse(const std::string& text) { return forward_xdlops::parse_nine<Config>(text); }
};

// A copy (:272-348): vector reads along KPack rounded up to a full read, at most the block's threads.
forward_xdlops::BlockCopy a_copy(const XdlopsTile& t, const ConvView& p) { return forward_xdlops::a_copy(t, p, 0, true, false); }
// B copy (:350-460): reads along GemmN, at most the block's threads.
forward_xdlops::BlockCopy b_copy(const XdlopsTile& t, const ConvView& p, const FwdProblem& q) {
    return forward_xdlops::b_copy(t, p, q, 1, false);
}

// IsReallyValid (:565-624).
bool really_valid(const XdlopsTile& t, const ConvView& p, const FwdProblem& q) {
    if (!t.valid_value()) return false;
    if (!hip_implicit_gemm::valid_blockwise_gemm_xdlops(p, t.GemmMPerBlock, t.GemmNPerBlock, t.GemmKPerBlock, t.GemmMPerWave,
                                                t.GemmNPerWave, t.GemmKPack))
        return false;
    const auto s = forward_xdlops::gemm_size(q);
    if (s.k_total % t.GemmKPack != 0) return false;
    const long gemm_k = s.k_total / t.GemmKPack;
    if (!(s.m % t.GemmMPerBlock == 0 && s.n % t.GemmNPerBlock == 0 && gemm_k % t.GemmKPerBlock == 0)) return false;
    if (!a_copy(t, p).valid || !b_copy(t, p, q).valid) return false;
    return t.lds_fits(p);
}

Config heuristic(const ConvView& p, const FwdProblem& q, unsigned compute_units) {
    return hip_implicit_gemm::last_answer(p.p, compute_units, 0, [&] {
        const auto s = forward_xdlops::gemm_size(q);
        // GemmBThreadDataPerRead_GemmN counts 1..4 for FP32, 1..8 for FP16 and BF16 (:121-235).
        const XdlopsTile t = forward_xdlops::heuristic(
            p, p.IsFp32() ? 4 : 8, [&](const XdlopsTile& c) { return really_valid(c, p, q); },
            [&](const XdlopsTile& c) {
                return hip_implicit_gemm::xdlops_fast_for_tuning(c, p, s.m, s.n, s.k_total, compute_units);
            });
        Config c;
        static_cast<XdlopsTile&>(c) = t;
        return c;
    });
}

class ConvHipImplicitGemmForwardV4R4Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmForwardV4R4Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R4_XDLOPS on unless disabled; not deterministic.
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        const auto s = forward_xdlops::gemm_size(q);
        if (!hip_implicit_gemm::valid_grid_gemm_xdlops(s.m, s.n, s.k_total)) return reject(why, "GEMM sizes do not fit xdlops");
        return really_valid(heuristic(p, q, ctx.target.compute_units), p, q) || reject(why, "no valid configuration");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        const auto s = forward_xdlops::gemm_size(q);
        Config c = heuristic(p, q, ctx.target.compute_units);
        if (const auto record = hip_implicit_gemm::perf_db_record(p, ctx, name()))
            if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && really_valid(*parsed, p, q)) c = *parsed;
        const auto a = a_copy(c, p);
        const auto b = b_copy(c, p, q);
        const long grid = q.g * (s.m / c.GemmMPerBlock) * (s.n / c.GemmNPerBlock);
        std::string o = hip_implicit_gemm::grouped_problem_defines(q);
        o += hip_implicit_gemm::xdlops_tunable_defines(c, grid);
        o += hip_implicit_gemm::xdlops_a_copy_defines(a);
        o += hip_implicit_gemm::xdlops_b_copy_defines(b);
        o += hip_implicit_gemm::xdlops_flags(ctx.target) + hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
        const std::string kernel = "gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmForwardV4R4Xdlops)

}  // namespace kdbgen
