// ConvHipImplicitGemmBwdDataV1R1Xdlops: backward-data implicit GEMM on xdlops (gfx908, gfx90a,
// gfx94x), static_kernel_gridwise_convolution_backward_data_implicit_gemm_v1r1_xdlops_nchw_kcyx_nkhw.cpp,
// one kernel per problem: GEMM M = C/G*Y*X, N = N*Ho*Wo, K = K/G, the GEMM outputs scattered
// into dx (adding where filter windows overlap). Off by default in MIOpen 3.3: its IsApplicable
// wants MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1_XDLOPS set (WORKAROUND_SWDEV_251757); none of
// the tree's find-dbs lists it. Deprecated (off on gfx94x). The heuristic default reads the CU count.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp (develop 2d1fd997;
// rocm-6.2.0 src/solver/conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp, the same code):
//   :111-238  HeuristicInit (the odometer walk down from 256,256,8,128,128,KPack,false,true)
//   :240-285  CalculateBlockSize, CalculateGridSize
//   :287-366  CalculateGemmABlockCopyPerformanceParameters
//   :368-453  CalculateGemmBBlockCopyPerformanceParameters
//   :455-530  IsValidValue, IsReallyValid;  :532-657 IsFastToBeUsedForTuning
//   :672-678  IsValidPerformanceConfig (IsReallyValid);  :680-701 CalculateGemmSize
//   :710-720  CalculateLdsNumberOfByte;  :722-756 GetWorkspaceSize
//   :758-819  IsApplicable;  :829-941 GetSolution (file :845-849, options :895-936)
//   src/include/miopen/conv/solvers.hpp:1284-1311 the perf-db record fields (Visit order)
//   src/conv/invokers/impl_gemm.cpp:41-128 the invoker: SetTensor on dx, or on an FP32
//     workspace followed by CastTensor into dx
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "implicitgemm_util.hpp"

namespace kdbgen {

namespace {

using BwdDataProblem = hip_implicit_gemm::Interpreted;  // ProblemInterpreter of a backward-data problem

struct GemmSize {
    long g, m, n, k_total;
};

// CalculateGemmSize (:680-701).
GemmSize gemm_size(const BwdDataProblem& q) { return {q.g, q.c / q.g * q.y * q.x, q.n * q.ho * q.wo, q.k / q.g}; }

using Copy = hip_implicit_gemm::XdlopsCopy;

// PerformanceImplicitGemmBwdV1R1Xdlops; a perf-db record lists the fields in this order.
// The six tile fields are the shared GemmTile: CalculateBlockSize (:240-258), IsValidValue (:455-466) and
// CalculateLdsNumberOfByte (:710-720) as the forward and backward-weights xdlops solvers have them.
struct Config : hip_implicit_gemm::GemmTile {
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmKPack = false;

    // Deserialize (serializable.hpp:99-112): eight ','-separated fields, each read as its type.
    static std::optional<Config> parse(const std::string& text) {
        Config c;
        if (!hip_implicit_gemm::read_record(text, {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave,
                                           &c.GemmNPerWave, &c.GemmKPack, &c.GemmAThreadCopyMoreGemmK,
                                           &c.GemmBThreadCopyMoreGemmKPack}))
            return std::nullopt;
        return c;
    }

    // CalculateGridSize (:260-285).
    long grid_size(const BwdDataProblem& q) const {
        const auto s = gemm_size(q);
        if (s.m % GemmMPerBlock != 0 || s.n % GemmNPerBlock != 0) return -1;
        return s.g * (s.m / GemmMPerBlock) * (s.n / GemmNPerBlock);
    }

    // CalculateGemmABlockCopyPerformanceParameters (:287-366): A is [GemmG, GemmK, GemmM, GemmKPack],
    // read along GemmM (amd_buffer_load_max_length: 4 for every type, WORKAROUND_SWDEV_413051),
    // written to LDS along GemmKPack (amd_lds_write_max_length: 4 for FP32, 8 for 16-bit types).
    Copy a_copy(const ConvView& p) const {
        Copy out;
        const int block = block_size();
        if (block <= 0 || (GemmKPerBlock * GemmMPerBlock * GemmKPack) % block != 0) return out;
        const int per_thread = std::max(1, GemmKPerBlock * GemmMPerBlock * GemmKPack / block);
        const int per_m = std::gcd(std::gcd(4, GemmMPerBlock), per_thread);
        const int tmp = per_thread / per_m;
        int per_k = 0, per_kpack = 0;
        if (GemmAThreadCopyMoreGemmK) {
            per_k = std::gcd(GemmKPerBlock, tmp);
            per_kpack = tmp / per_k;
        } else {
            per_kpack = std::gcd(GemmKPack, tmp);
            per_k = tmp / per_kpack;
        }
        const int dst = std::gcd(p.IsFp32() ? 4 : 8, per_kpack);
        if (GemmKPerBlock % per_k != 0 || GemmMPerBlock % per_m != 0 || GemmKPack % per_kpack != 0) return out;
        return {GemmKPerBlock / per_k, GemmMPerBlock / per_m, GemmKPack / per_kpack, per_m, dst, true};
    }

    // CalculateGemmBBlockCopyPerformanceParameters (:368-453): B is [GemmG, GemmK, GemmN, GemmKPack],
    // read along GemmN (vectors as wide as Ho*Wo, the thread's share and the block allow).
    Copy b_copy(const ConvView& p, const BwdDataProblem& q) const {
        Copy out;
        const int block = block_size();
        if (block <= 0 || (GemmKPerBlock * GemmNPerBlock * GemmKPack) % block != 0) return out;
        const int per_thread = std::max(1, GemmKPerBlock * GemmNPerBlock * GemmKPack / block);
        int per_n = static_cast<int>(std::gcd(4L, q.ho * q.wo));
        per_n = std::gcd(per_n, per_thread);
        per_n = std::gcd(per_n, GemmNPerBlock);
        const int tmp = per_thread / per_n;
        int per_k = 0, per_kpack = 0;
        if (GemmBThreadCopyMoreGemmKPack) {
            per_kpack = std::gcd(GemmKPack, tmp);
            per_k = tmp / per_kpack;
        } else {
            per_k = std::gcd(GemmKPerBlock, tmp);
            per_kpack = tmp / per_k;
        }
        const int dst = std::gcd(p.IsFp32() ? 4 : 8, per_kpack);
        if (GemmKPerBlock % per_k != 0 || GemmNPerBlock % per_n != 0 || GemmKPack % per_kpack != 0) return out;
        return {GemmKPerBlock / per_k, GemmNPerBlock / per_n, GemmKPack / per_kpack, per_n, dst, true};
    }

    // IsReallyValid (:469-530); what IsValidPerformanceConfig asks of a perf-db record (:672-678).
    bool really_valid(const ConvView& p, const BwdDataProblem& q) const {
        if (!valid_value()) return false;
        if (!hip_implicit_gemm::valid_blockwise_gemm_xdlops(p, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave,
                                                    GemmNPerWave, GemmKPack))
            return false;
        const auto s = gemm_size(q);
        if (s.k_total % GemmKPack != 0) return false;
        const long gemm_k = s.k_total / GemmKPack;
        if (!(s.m % GemmMPerBlock == 0 && s.n % GemmNPerBlock == 0 && gemm_k % GemmKPerBlock == 0)) return false;
        if (!a_copy(p).valid || !b_copy(p, q).valid) return false;
        return lds_fits(p);
    }

    // IsFastToBeUsedForTuning (:532-657).
    bool fast(const ConvView& p, const BwdDataProblem& q, unsigned compute_units) const {
        if (GemmMPerWave * GemmNPerWave > 64 * 128) return false;
        const auto s = gemm_size(q);
        if (!hip_implicit_gemm::grid_not_too_large(s.m, s.n, GemmMPerBlock, GemmNPerBlock, compute_units)) return false;
        const int waves = (GemmMPerBlock / GemmMPerWave) * (GemmNPerBlock / GemmNPerWave);
        if (!(waves > 1 && waves <= 4)) return false;
        if (GemmMPerBlock > 2 * GemmNPerBlock && s.n % (2 * GemmNPerBlock) == 0) return false;
        if (GemmNPerBlock > 2 * GemmMPerBlock && s.m % (2 * GemmMPerBlock) == 0) return false;
        if (GemmMPerWave > 2 * GemmNPerWave && GemmNPerBlock % (2 * GemmNPerWave) == 0) return false;
        if (GemmNPerWave > 2 * GemmMPerWave && GemmMPerBlock % (2 * GemmMPerWave) == 0) return false;
        return hip_implicit_gemm::copies_per_thread_fit(p, waves, GemmKPerBlock, GemmMPerBlock, GemmNPerBlock, GemmKPack);
    }
};

// HeuristicInit (:111-238): the walk (KPerBlock, KPack, NPerWave, MPerWave, NPerBlock, MPerBlock; KPack
// over 1..4 for FP32, 4..8 for FP16, 2..8 for BF16) first for a really valid and fast config, then for a
// really valid one. When neither exists MIOpen logs "All attempts unsuccessful" and keeps the last.
Config heuristic(const ConvView& p, const BwdDataProblem& q, unsigned compute_units) {
    const Config start{hip_implicit_gemm::tile_walk_start(p), false, true};
    return hip_implicit_gemm::two_round_walk(
        start, hip_implicit_gemm::tile_walk_digits<Config>(p), [&](const Config& t) { return t.really_valid(p, q); },
        [&](const Config& t) { return t.fast(p, q, compute_units); });
}

class ConvHipImplicitGemmBwdDataV1R1Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmBwdDataV1R1Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }
    std::string_view missing_kernels_reason() const override {
        return "HeuristicInit finds no valid configuration (MIOpen logs \"All attempts unsuccessful\"; GetSolution "
               "asserts) and no valid perf-db record";
    }

    // WORKAROUND_SWDEV_251757 is 1 (implicitgemm_util.hpp:49): IsApplicable returns false unless the
    // variable is set (:761-764), before it asks ThisSolverIsDeprecatedStatic (:768-769).
    std::optional<std::string> disabled_by_default(const ConvView&, const SolverContext&) const override {
        return std::string(
            "MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1_XDLOPS not set (WORKAROUND_SWDEV_251757, "
            "conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp:761-764)");
    }

    // IsApplicable (:758-819) past the environment gates (disabled_by_default) and the deprecation
    // (DeprecatedSolver); not deterministic, HIP kernels allowed, packed tensors (kdbgen's keys).
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::BackwardData, why)) return false;
        const auto s = gemm_size(hip_implicit_gemm::interpret(p));
        if (!hip_implicit_gemm::valid_grid_gemm_xdlops(s.m, s.n, s.k_total)) return reject(why, "GEMM sizes do not fit xdlops");
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const BwdDataProblem q = hip_implicit_gemm::interpret(p);
        std::optional<Config> chosen;
        if (const auto record = hip_implicit_gemm::perf_db_record(p, ctx, name()))
            if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && parsed->really_valid(p, q)) chosen = parsed;
        if (!chosen) chosen = heuristic(p, q, ctx.target.compute_units);
        const Config& c = *chosen;
        if (!c.really_valid(p, q)) return {};
        const auto a = c.a_copy(p);
        const auto b = c.b_copy(p, q);
        // GetSolution's options (:895-936), in order.
        std::string o = hip_implicit_gemm::grouped_problem_defines(q);
        o += hip_implicit_gemm::xdlops_tunable_defines(c, c.grid_size(q));
        o += fmt::format(
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
            a.cluster_k, a.cluster_mn, a.cluster_kpack, a.src_read, a.dst_write);
        o += hip_implicit_gemm::xdlops_b_copy_defines(b);
        o += hip_implicit_gemm::xdlops_flags(ctx.target) + hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
        const std::string kernel = "gridwise_convolution_backward_data_implicit_gemm_v1r1_xdlops_nchw_kcyx_nkhw";
        std::vector<SolverKernel> out{{"static_kernel_" + kernel + ".cpp", {kernel}, o}};

        // The invoker (impl_gemm.cpp:45-128): FP16 and BF16 zero dx when windows overlap or leave
        // pixels out; with overlaps the kernel adds into an FP32 workspace of dx's shape
        // (GetWorkspaceSize, :722-756) that is zeroed and then cast into dx. FP32 always zeroes dx.
        const auto type = hip_implicit_gemm::data_type_of(p);
        const long dx = hip_implicit_gemm::dx_elements(p);
        if (p.IsFp32()) {
            out.push_back(sub_tensor_op_with_scalar(false, dx, type));
        } else {
            const bool cast = hip_implicit_gemm::needs_atomic_add(p);
            const bool set_zero = cast || !hip_implicit_gemm::every_pixel_is_written(p);
            if (set_zero) out.push_back(sub_tensor_op_with_scalar(false, dx, cast ? DataType::Float : type));
            if (cast) out.push_back(cast_tensor(dx, DataType::Float, type));
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmBwdDataV1R1Xdlops)

}  // namespace kdbgen
