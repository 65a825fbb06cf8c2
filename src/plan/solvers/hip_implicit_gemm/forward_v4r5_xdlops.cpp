// ConvHipImplicitGemmForwardV4R5Xdlops: forward implicit GEMM on xdlops (gfx908, gfx90a; on gfx94x a
// deprecated solver, off unless MIOPEN_DEBUG_ENABLE_DEPRECATED_SOLVERS is set) that splits GemmN into
// NWaves x B for a tensor contraction; not for 1x1 filters.
// static_kernel_gridwise_convolution_forward_implicit_gemm_v4r5_xdlops_nchw_kcyx_nkhw.cpp, one kernel
// per problem. The heuristic default reads the CU count (IsFastToBeUsedForTuning). No helper kernels
// (the invoker is MakeImplGemmDataInvokerFactory: the one kernel).
//
// MIOpen 3.3.0 (develop 2d1fd997) src/solver/conv/conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp
// (rocm-6.2.0: src/solver/conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp, the same code):
//   :50-70    CalculateGemmSize: M = K/G, N = N*Ho*Wo, K = C/G*Y*X (no padding)
//   :160-293  HeuristicInit: the walk from 256,256,8,128,128,KPack,false,true,1 (use_spare_set false);
//             GemmBThreadDataPerRead_GemmN counts 1..8 for every type
//   :316-339  CalculateGridSize: G * (M/MPerBlock) * (N/NPerBlock)
//   :342-426  A copy: no rounding up to a full vector read (the lcm is commented out, :376), and the
//             thread cluster must be the whole block (:412)
//   :429-578  B copy: NWaves = NPerBlock/NPerWave, BPerBlock = NPerBlock/NWaves; reads along B, the
//             per-thread copy a multiple of read*NWaves (:525-527), the cluster the whole block (:564)
//   :593-604  IsValidValue (also GemmBThreadDataPerRead_GemmN in 1..8)
//   :608-676  IsReallyValid (also N a multiple of NWaves, :626-633)
//   :681-855  IsFastToBeUsedForTuning (use_spare_set: always fast; it is false in HeuristicInit and
//             not part of a perf-db record)
//   :868-874  IsValidPerformanceConfig: IsReallyValid
//   :886-1000 GetSolution: file, kernel name, options (below)
//   :1002-1076 IsApplicable
//   src/include/miopen/conv/solvers.hpp:1155-1193 the perf-db record: nine fields in Visit order (:1181-1193)
//   GemmMPerBlock,GemmNPerBlock,GemmKPerBlock,GemmMPerWave,GemmNPerWave,GemmKPack,
//   GemmAThreadCopyMoreGemmK,GemmBThreadCopyMoreGemmKPack,GemmBThreadDataPerRead_GemmN
//
// The options (GetSolution :952-994), in this order:
//   " -DCK_PARAM_PROBLEM_G= ... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=" (ProblemInterpreter, :953-970),
//   " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK= -DCK_PARAM_TUNABLE_GEMM_B_PER_BLOCK=<NPerBlock/NWaves>"
//   " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK= -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE="
//   " -DCK_PARAM_TUNABLE_GEMM_B_PER_WAVE=<NPerWave> -DCK_PARAM_TUNABLE_NWAVES= -DCK_PARAM_TUNABLE_GEMM_KPACK="
//   " -DCK_PARAM_DEPENDENT_BLOCK_SIZE= -DCK_PARAM_DEPENDENT_GRID_SIZE=" (:971-979),
//   " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_{CLUSTER_LENGTHS_GEMM_K,CLUSTER_LENGTHS_GEMM_M,
//   CLUSTER_LENGTHS_GEMM_KPACK,SRC_DATA_PER_READ_GEMM_KPACK,DST_DATA_PER_WRITE_GEMM_KPACK}=" (:980-984),
//   " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_{CLUSTER_LENGTHS_GEMM_K,CLUSTER_LENGTHS_GEMM_B,
//   CLUSTER_LENGTHS_GEMM_KPACK,SRC_DATA_PER_READ_GEMM_N,DST_DATA_PER_WRITE_GEMM_KPACK}=" (:985-989),
//   " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0" (:990-992),
//   get_static_ck_common_compiler_flag (:993), then ctx.general_compile_options (:994).
#include "forward_xdlops_common.hpp"
#include "implicitgemm_util.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

using forward_xdlops::FwdProblem;
using forward_xdlops::XdlopsTile;

struct Config : XdlopsTile {
    static std::optional<Config> parse(const std::string& text) { return forward_xdlops::parse_nine<Config>(text); }

    int nwaves() const { return GemmNPerWave > 0 ? GemmNPerBlock / GemmNPerWave : 0; }
    int b_per_block() const { return nwaves() > 0 ? GemmNPerBlock / nwaves() : 0; }

    forward_xdlops::BlockCopy a_copy(const ConvView& p) const { return forward_xdlops::a_copy(*this, p, 0, false, true); }
    forward_xdlops::BlockCopy b_copy(const ConvView& p, const FwdProblem& q) const {
        return forward_xdlops::b_copy(*this, p, q, nwaves(), true);
    }

    // IsValidValue (:593-604).
    bool valid_value_v4r5() const {
        const int r = GemmBThreadDataPerRead_GemmN;
        return valid_value() && r >= 1 && r <= 8 && (r & (r - 1)) == 0;
    }

    // IsReallyValid (:608-676).
    bool really_valid(const ConvView& p, const FwdProblem& q) const {
        if (!valid_value_v4r5()) return false;
        if (!hip_implicit_gemm::valid_blockwise_gemm_xdlops(p, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave,
                                                    GemmNPerWave, GemmKPack))
            return false;
        // N is unmerged into N1 x NWaves for the tensor contraction.
        if (nwaves() <= 0 || q.n % nwaves() != 0) return false;
        const auto s = forward_xdlops::gemm_size(q);
        if (s.k_total % GemmKPack != 0) return false;
        const long gemm_k = s.k_total / GemmKPack;
        if (!(s.m % GemmMPerBlock == 0 && s.n % GemmNPerBlock == 0 && gemm_k % GemmKPerBlock == 0)) return false;
        if (!a_copy(p).valid || !b_copy(p, q).valid) return false;
        return lds_fits(p);
    }
};

Config with(const XdlopsTile& t) {
    Config c;
    static_cast<XdlopsTile&>(c) = t;
    return c;
}

// HeuristicInit (:160-293).
Config heuristic(const ConvView& p, const FwdProblem& q, unsigned compute_units) {
    return hip_implicit_gemm::last_answer(p.p, compute_units, 0, [&] {
        const auto s = forward_xdlops::gemm_size(q);
        return with(forward_xdlops::heuristic(
            p, 8, [&](const XdlopsTile& t) { return with(t).really_valid(p, q); },
            [&](const XdlopsTile& t) { return hip_implicit_gemm::xdlops_fast_for_tuning(t, p, s.m, s.n, std::nullopt, compute_units); }));
    });
}

class ConvHipImplicitGemmForwardV4R5Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmForwardV4R5Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // IsApplicable (:1002-1076). MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R5_XDLOPS is on unless
        // disabled; the deprecated-solver rule is disabled_by_default (DeprecatedSolver); the convolution
        // is not deterministic and HIP kernels are in use by default; find-db keys describe packed
        // tensors (HasNonPackedTensors).
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        // Off for 1x1 filters (a performance regression, :1038-1040).
        if (p.GetWeightsHeight() == 1 && p.GetWeightsWidth() == 1) return reject(why, "1x1 filter");
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        const auto s = forward_xdlops::gemm_size(q);
        if (!hip_implicit_gemm::valid_grid_gemm_xdlops(s.m, s.n, s.k_total)) return reject(why, "GEMM sizes do not fit xdlops");
        return heuristic(p, q, ctx.target.compute_units).really_valid(p, q) || reject(why, "no valid configuration");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        const auto s = forward_xdlops::gemm_size(q);
        // A perf-db record when it parses (Deserialize) and IsValidPerformanceConfig accepts it, else the default.
        Config c = heuristic(p, q, ctx.target.compute_units);
        if (const auto record = hip_implicit_gemm::perf_db_record(p, ctx, name()))
            if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && parsed->really_valid(p, q)) c = *parsed;
        const auto a = c.a_copy(p);
        const auto b = c.b_copy(p, q);
        const long grid = s.g * (s.m / c.GemmMPerBlock) * (s.n / c.GemmNPerBlock);
        std::string o = hip_implicit_gemm::grouped_problem_defines(q);
        o += fmt::format(
            " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_B_PER_BLOCK={}"
            " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE={}"
            " -DCK_PARAM_TUNABLE_GEMM_B_PER_WAVE={} -DCK_PARAM_TUNABLE_NWAVES={} -DCK_PARAM_TUNABLE_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_BLOCK_SIZE={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
            c.GemmMPerBlock, c.b_per_block(), c.GemmKPerBlock, c.GemmMPerWave, c.GemmNPerWave, c.nwaves(), c.GemmKPack,
            c.block_size(), grid);
        o += hip_implicit_gemm::xdlops_a_copy_defines(a);
        o += hip_implicit_gemm::xdlops_b_copy_defines(b, "B");
        o += hip_implicit_gemm::xdlops_flags(ctx.target) + hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
        const std::string kernel = "gridwise_convolution_forward_implicit_gemm_v4r5_xdlops_nchw_kcyx_nkhw";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmForwardV4R5Xdlops)

}  // namespace kdbgen
