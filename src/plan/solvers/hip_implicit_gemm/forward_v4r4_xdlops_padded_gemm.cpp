// ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm: forward implicit GEMM on xdlops (gfx908, gfx90a;
// on gfx94x a deprecated solver, off unless MIOPEN_DEBUG_ENABLE_DEPRECATED_SOLVERS is set) for problems
// whose GEMM sizes are no multiples of 16 (M), 64 (N) or 4 (K): the kernel pads them.
// static_kernel_gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm.cpp,
// one kernel per problem. The heuristic default reads the CU count (IsFastToBeUsedForTuning).
// No helper kernels (the invoker is MakeImplGemmDataInvokerFactory: the one kernel).
//
// MIOpen 3.3.0 (develop 2d1fd997) src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops_padded_gemm.cpp
// (rocm-6.2.0: src/solver/conv_hip_implicit_gemm_fwd_v4r4_xdlops_padded_gemm.cpp, the same code):
//   :51-57    the default config 4,4,1,4,4,1,16,64,16,false,false,1
//   :140-273  HeuristicInit: the walk from 256,256,8,128,128,KPack,16,64,16,false,true,1; the padding
//             factors stay 16, 64, 16; GemmBThreadDataPerRead_GemmN counts 1..8 for every type
//   :296-322  CalculateGridSize: G * (M/MPerBlock) * (N/NPerBlock) on the padded sizes
//   :325-426  A copy (V4R4's, its KPack read also bounded by C/G*Y*X when GemmK was padded)
//   :429-569  B copy (V4R4's);  :572-660 LDS, IsValidValue, IsReallyValid (padded sizes)
//   :664-839  IsFastToBeUsedForTuning (GemmKPerBlock*GemmKPack < 8 / 16 refused whatever GemmK is)
//   :851-857  IsValidPerformanceConfig: IsReallyValid
//   :860-890  CalculateGemmSize: M, N, K each padded up to a multiple of its factor
//   :902-1029 GetSolution: file, kernel name, options (below)
//   :1031-1104 IsApplicable
//   src/include/miopen/conv/solvers.hpp:1219-1258 the perf-db record: twelve fields in Visit order (:1243-1258)
//   GemmMPerBlock,GemmNPerBlock,GemmKPerBlock,GemmMPerWave,GemmNPerWave,GemmKPack,GemmMFactor,
//   GemmNFactor,GemmKFactor,GemmAThreadCopyMoreGemmK,GemmBThreadCopyMoreGemmKPack,GemmBThreadDataPerRead_GemmN
//
// The options (GetSolution :979-1023), in this order:
//   " -DCK_PARAM_PROBLEM_G= ... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=" (ProblemInterpreter, :980-997),
//   " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK= _N_PER_BLOCK= _K_PER_BLOCK= _M_PER_WAVE= _N_PER_WAVE= _KPACK="
//   " -DCK_PARAM_DEPENDENT_BLOCK_SIZE= -DCK_PARAM_DEPENDENT_GRID_SIZE=" (:998-1005),
//   " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_{CLUSTER_LENGTHS_GEMM_K,CLUSTER_LENGTHS_GEMM_M,
//   CLUSTER_LENGTHS_GEMM_KPACK,SRC_DATA_PER_READ_GEMM_KPACK,DST_DATA_PER_WRITE_GEMM_KPACK}=" and
//   " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_{CLUSTER_LENGTHS_GEMM_K,CLUSTER_LENGTHS_GEMM_N,
//   CLUSTER_LENGTHS_GEMM_KPACK,SRC_DATA_PER_READ_GEMM_N,DST_DATA_PER_WRITE_GEMM_KPACK}=" (:1006-1015),
//   " -DCK_GEMM_M_PAD= -DCK_GEMM_N_PAD= -DCK_GEMM_K_PAD=" with the config's factors (:1016-1018),
//   " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0" (:1019-1021),
//   get_static_ck_common_compiler_flag (:1022), then ctx.general_compile_options (:1023).
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
    int GemmMFactor = 16, GemmNFactor = 64, GemmKFactor = 16;

    // Deserialize (hip_implicit_gemm::read_record).
    static std::optional<Config> parse(const std::string& text) {
        Config c;
        if (!hip_implicit_gemm::read_record(text, {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave,
                                           &c.GemmNPerWave, &c.GemmKPack, &c.GemmMFactor, &c.GemmNFactor,
                                           &c.GemmKFactor, &c.GemmAThreadCopyMoreGemmK, &c.GemmBThreadCopyMoreGemmKPack,
                                           &c.GemmBThreadDataPerRead_GemmN}))
            return std::nullopt;
        return c;
    }

    // A record with a factor of 0 or less would divide by zero in MIOpen's CalculateGemmSize: refused here.
    bool factors_usable() const { return GemmMFactor > 0 && GemmNFactor > 0 && GemmKFactor > 0; }
    forward_xdlops::GemmSize sizes(const FwdProblem& q) const { return forward_xdlops::gemm_size(q, GemmMFactor, GemmNFactor, GemmKFactor); }

    // A copy (:325-426): V4R4's, the KPack read also bounded by the unpadded GemmK when GemmK was padded.
    forward_xdlops::BlockCopy a_copy(const ConvView& p, const FwdProblem& q) const {
        const auto s = sizes(q);
        return forward_xdlops::a_copy(*this, p, s.k_extra != 0 ? s.k_total - s.k_extra : 0, true, false);
    }
    // B copy (:429-569): V4R4's.
    forward_xdlops::BlockCopy b_copy(const ConvView& p, const FwdProblem& q) const { return forward_xdlops::b_copy(*this, p, q, 1, false); }

    // IsReallyValid (:600-660) on the sizes padded by this config's factors.
    bool really_valid(const ConvView& p, const FwdProblem& q) const {
        if (!valid_value()) return false;
        if (!hip_implicit_gemm::valid_blockwise_gemm_xdlops(p, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave,
                                                    GemmNPerWave, GemmKPack))
            return false;
        if (!factors_usable()) return false;
        const auto s = sizes(q);
        if (s.k_total % GemmKPack != 0) return false;
        const long gemm_k = s.k_total / GemmKPack;
        if (!(s.m % GemmMPerBlock == 0 && s.n % GemmNPerBlock == 0 && gemm_k % GemmKPerBlock == 0)) return false;
        if (!a_copy(p, q).valid || !b_copy(p, q).valid) return false;
        return lds_fits(p);
    }
};

// HeuristicInit (:140-273): the walk keeps the factors 16, 64, 16 of its starting config.
Config heuristic(const ConvView& p, const FwdProblem& q, unsigned compute_units) {
    return hip_implicit_gemm::last_answer(p.p, compute_units, 0, [&] {
        Config c;
        const auto s = c.sizes(q);
        const auto with = [&](const XdlopsTile& t) {
            Config out;
            static_cast<XdlopsTile&>(out) = t;
            return out;
        };
        const XdlopsTile t = forward_xdlops::heuristic(
            p, 8, [&](const XdlopsTile& t) { return with(t).really_valid(p, q); },
            [&](const XdlopsTile& t) {
                return hip_implicit_gemm::xdlops_fast_for_tuning(t, p, s.m, s.n, std::nullopt, compute_units);
            });
        return with(t);
    });
}

class ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // IsApplicable (:1031-1104). MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R4_PADDED_GEMM_XDLOPS is on
        // unless disabled; the deprecated-solver rule is disabled_by_default (DeprecatedSolver); the
        // convolution is not deterministic and HIP kernels are in use by default; find-db keys
        // describe packed tensors (HasNonPackedTensors).
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::Forward, why)) return false;
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        // The GEMM padded to multiples of 16, 64 and 4 (:1088-1095).
        const auto s = forward_xdlops::gemm_size(q, 16, 64, 4);
        if (s.m_extra == 0 && s.n_extra == 0 && s.k_extra == 0) return reject(why, "needs no padding");
        if (!hip_implicit_gemm::valid_grid_gemm_xdlops(s.m, s.n, s.k_total)) return reject(why, "GEMM sizes do not fit xdlops");
        return heuristic(p, q, ctx.target.compute_units).really_valid(p, q) || reject(why, "no valid configuration");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const FwdProblem q = hip_implicit_gemm::interpret(p);
        // A perf-db record when it parses (Deserialize) and IsValidPerformanceConfig accepts it, else the default.
        Config c = heuristic(p, q, ctx.target.compute_units);
        if (const auto record = hip_implicit_gemm::perf_db_record(p, ctx, name()))
            if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && parsed->really_valid(p, q)) c = *parsed;
        const auto s = c.sizes(q);
        const auto a = c.a_copy(p, q);
        const auto b = c.b_copy(p, q);
        const long grid = s.g * (s.m / c.GemmMPerBlock) * (s.n / c.GemmNPerBlock);
        std::string o = hip_implicit_gemm::grouped_problem_defines(q);
        o += hip_implicit_gemm::xdlops_tunable_defines(c, grid);
        o += hip_implicit_gemm::xdlops_a_copy_defines(a);
        o += hip_implicit_gemm::xdlops_b_copy_defines(b);
        o += fmt::format(" -DCK_GEMM_M_PAD={} -DCK_GEMM_N_PAD={} -DCK_GEMM_K_PAD={}", s.m_extra, s.n_extra, s.k_extra);
        o += hip_implicit_gemm::xdlops_flags(ctx.target) + hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
        const std::string kernel = "gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm)

}  // namespace kdbgen
