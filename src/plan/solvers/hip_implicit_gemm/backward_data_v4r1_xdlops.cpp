// ConvHipImplicitGemmBwdDataV4R1Xdlops: backward-data implicit GEMM on xdlops (gfx908, gfx90a,
// gfx94x), static_kernel_gridwise_convolution_backward_data_implicit_gemm_v4r1_xdlops_nchw_kcyx_nkhw.cpp.
// The problem splits into YTilda*XTilda GEMMs (YTilda = stride_h / gcd(stride_h, dilation_h)), one per
// filter phase, that write disjoint pixels of dx: one kernel launch per GEMM id, each its own code
// object (the id is the define -DCK_PARAM_GEMM_ID=<id>), GEMMs whose K is 0 neither built nor launched.
// So a problem has up to YTilda*XTilda keys; all share one configuration (checked against every GEMM).
// dx is zeroed first (SetTensor) when some pixel is in no GEMM. In MIOpen 3.3 FP32 is off by default
// (WORKAROUND_ISSUE_1206), so is BF16 on gfx90a (WORKAROUND_SWDEV_329642), and FP16 on gfx90a is not
// applicable (FP16-alt): by default it runs on gfx908 for FP16 and BF16. Deprecated (off on gfx94x).
// The heuristic default reads the CU count.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp (develop 2d1fd997;
// rocm-6.2.0 src/solver/conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp, the same code):
//   :33-40    WORKAROUND_ISSUE_1206, WORKAROUND_SWDEV_329642, the environment variables
//   :48-73    CalculateGridSize (GEMM 0)
//   :75-166   CalculateGemmABlockCopyPerformanceParameters
//   :168-281  CalculateGemmBBlockCopyPerformanceParameters
//   :283-341  CalculateLdsNumberOfByte;  :344-417 IsReallyValid;  :419-515 IsFastToBeUsedForTuning
//   :574-583  IsValidValue;  :610-734 HeuristicInit (the walk down from 256,256,8,KPack,128,128,true,true)
//   :736-750  CalculateNumberOfGemm;  :752-811 CalculateGemmSize
//   :813-874  IsApplicable;  :883-890 IsValidPerformanceConfig (IsReallyValid)
//   :900-1068 GetSolution (file :971-975, options :1014-1060; :915-932 MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_
//             V4R1_XDLOPS_PERF_VALS would override the config: unset by default)
//   src/include/miopen/conv/solvers.hpp:748-790 the perf-db record fields (Visit order)
//   src/include/miopen/solver/implicitgemm_util.hpp:338-388 IsApplicableXdlops
//   src/conv/invokers/impl_gemm.cpp:163-198 the invoker: SetTensor on dx, then every GEMM kernel
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "implicitgemm_util.hpp"
#include "../solver_arithmetic.hpp"

namespace kdbgen {

namespace {

using BwdDataProblem = hip_implicit_gemm::Interpreted;  // ProblemInterpreter of a backward-data problem
using hip_implicit_gemm::two_power;


// The filter phases: YTilda x XTilda GEMMs (CalculateNumberOfGemm, :736-750).
struct Tilda {
    long y, x;
};
Tilda tilda(const BwdDataProblem& q) {
    return {q.stride_h / std::gcd(q.stride_h, q.dilation_h), q.stride_w / std::gcd(q.stride_w, q.dilation_w)};
}
long number_of_gemms(const BwdDataProblem& q) {
    const auto t = tilda(q);
    return t.y * t.x;
}

struct GemmSize {
    long g, m, n, k;
};

// CalculateGemmSize (:752-811): GEMM `id` covers the dx pixels of one filter phase; its K is the
// filter taps of that phase times K/G, 0 when the phase has none.
GemmSize gemm_size(const BwdDataProblem& q, long id) {
    const auto t = tilda(q);
    const long ydot = solvers::integer_divide_ceil<long>(q.y, t.y), xdot = solvers::integer_divide_ceil<long>(q.x, t.x);
    const long htilda = q.ho + solvers::integer_divide_ceil<long>(q.dilation_h * (q.y - 1), q.stride_h);
    const long wtilda = q.wo + solvers::integer_divide_ceil<long>(q.dilation_w * (q.x - 1), q.stride_w);
    const long htilda_left = std::max(0L, q.left_pad_h - q.dilation_h * (t.y - 1)) / q.stride_h;
    const long wtilda_left = std::max(0L, q.left_pad_w - q.dilation_w * (t.x - 1)) / q.stride_w;
    const long htilda_right = std::min(htilda, solvers::integer_divide_ceil<long>(q.left_pad_h + q.hi - 1, q.stride_h) + 1);
    const long wtilda_right = std::min(wtilda, solvers::integer_divide_ceil<long>(q.left_pad_w + q.wi - 1, q.stride_w) + 1);
    const long i_ytilda = id / t.x, i_xtilda = id % t.x;
    const long ydot_slice = (i_ytilda + 1) * ydot <= q.y ? ydot : q.y % ydot;
    const long xdot_slice = (i_xtilda + 1) * xdot <= q.x ? xdot : q.x % xdot;
    return {q.g, q.c / q.g, q.n * (htilda_right - htilda_left) * (wtilda_right - wtilda_left),
            q.k / q.g * ydot_slice * xdot_slice};
}

using Copy = hip_implicit_gemm::XdlopsCopy;

// PerformanceImplicitGemmBwdDataV4R1Xdlops; a perf-db record lists the fields in this order. Not the shared
// hip_implicit_gemm::GemmTile: GemmNPerBlock comes first, KPACK before the waves, IsValidValue wants GemmNPerBlock
// 16..256 and GemmNPerWave 16..128, and CalculateBlockSize does not check that the waves tile the block.
struct Config {
    int GemmNPerBlock = 0, GemmMPerBlock = 0, GemmKPerBlock = 0, GemmKPACKSize = 0, GemmMPerWave = 0, GemmNPerWave = 0;
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmKPack = false;

    // Deserialize (serializable.hpp:99-112): eight ','-separated fields, each read as its type.
    static std::optional<Config> parse(const std::string& text) {
        Config c;
        if (!hip_implicit_gemm::read_record(text, {&c.GemmNPerBlock, &c.GemmMPerBlock, &c.GemmKPerBlock, &c.GemmKPACKSize,
                                           &c.GemmMPerWave, &c.GemmNPerWave, &c.GemmAThreadCopyMoreGemmK,
                                           &c.GemmBThreadCopyMoreGemmKPack}))
            return std::nullopt;
        return c;
    }

    // BlockSize as GetSolution and the copies compute it (0 when the waves outnumber the block's tiles;
    // MIOpen reaches the copies only after IsValidBlockwiseGemmXdlops ruled that out).
    int block_size() const {
        if (GemmMPerWave <= 0 || GemmNPerWave <= 0) return 0;
        return GemmNPerBlock * GemmMPerBlock / (GemmMPerWave * GemmNPerWave) * 64;
    }

    // CalculateGridSize (:48-73): from GEMM 0, for every GEMM.
    long grid_size(const BwdDataProblem& q) const {
        const auto s = gemm_size(q, 0);
        if (s.m % GemmMPerBlock != 0 || s.n % GemmNPerBlock != 0) return -1;
        return s.g * (s.m / GemmMPerBlock) * (s.n / GemmNPerBlock);
    }

    // CalculateGemmABlockCopyPerformanceParameters (:75-166): reads along GemmM only for a 1x1 filter
    // (amd_buffer_load_max_length 4, WORKAROUND_SWDEV_413051), which also caps the LDS write.
    Copy a_copy(const BwdDataProblem& q) const {
        Copy out;
        const int block = block_size();
        if (block <= 0) return out;
        int per_m = std::gcd(4, GemmMPerBlock);
        if (!(q.y == 1 && q.x == 1)) per_m = 1;
        int per_thread = std::max(1, GemmKPerBlock * GemmMPerBlock * GemmKPACKSize / block);
        per_thread = std::lcm(per_thread, per_m);
        const int tmp = per_thread / per_m;
        int per_k = 0, per_kpack = 0;
        if (GemmAThreadCopyMoreGemmK) {
            per_k = std::gcd(GemmKPerBlock, tmp);
            if (per_k <= 0) return out;
            per_kpack = tmp / per_k;
        } else {
            per_kpack = std::gcd(GemmKPACKSize, tmp);
            if (per_kpack <= 0) return out;
            per_k = tmp / per_kpack;
        }
        if (per_k <= 0 || per_kpack <= 0) return out;
        const int dst = std::gcd(std::min(4, per_kpack), per_kpack);
        if (GemmKPerBlock % per_k != 0 || GemmMPerBlock % per_m != 0 || GemmKPACKSize % per_kpack != 0) return out;
        out = {GemmKPerBlock / per_k, GemmMPerBlock / per_m, GemmKPACKSize / per_kpack, per_m, dst, true};
        if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) out.valid = false;
        return out;
    }

    // CalculateGemmBBlockCopyPerformanceParameters (:168-281): reads along GemmN only for a 1x1 filter
    // without padding (as wide as Ho*Wo allows); LDS writes up to amd_lds_write_max_length (4 FP32, 8 else).
    Copy b_copy(const ConvView& p, const BwdDataProblem& q) const {
        Copy out;
        const int block = block_size();
        if (block <= 0) return out;
        int per_n = std::gcd(4, GemmNPerBlock);
        if (q.y == 1 && q.x == 1 && q.left_pad_h == 0 && q.left_pad_w == 0 && q.right_pad_h == 0 && q.right_pad_w == 0)
            per_n = static_cast<int>(std::gcd(static_cast<long>(per_n), q.ho * q.wo));
        else
            per_n = 1;
        int per_thread = std::max(1, GemmKPerBlock * GemmNPerBlock * GemmKPACKSize / block);
        per_thread = std::lcm(per_n, per_thread);
        if (block > GemmNPerBlock && GemmKPACKSize > block / GemmNPerBlock) return out;
        if (per_n <= 0) return out;
        const int tmp = per_thread / per_n;
        if (tmp <= 0) return out;
        int per_k = 0, per_kpack = 0;
        if (GemmBThreadCopyMoreGemmKPack) {
            per_kpack = std::gcd(GemmKPACKSize, tmp);
            if (per_kpack <= 0) return out;
            per_k = tmp / per_kpack;
        } else {
            per_k = std::gcd(GemmKPerBlock, tmp);
            if (per_k <= 0) return out;
            per_kpack = tmp / per_k;
        }
        if (per_k <= 0 || per_kpack <= 0) return out;
        const int dst = std::gcd(std::min(p.IsFp32() ? 4 : 8, per_kpack), per_kpack);
        if (GemmKPerBlock % per_k != 0 || GemmNPerBlock % per_n != 0 || GemmKPACKSize % per_kpack != 0) return out;
        out = {GemmKPerBlock / per_k, GemmNPerBlock / per_n, GemmKPACKSize / per_kpack, per_n, dst, true};
        if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) out.valid = false;
        return out;
    }

    // CalculateLdsNumberOfByte (:283-341): both tiles padded to the alignment the copies and the
    // thread GEMM need, times KPack, in the input's type (nullopt when a copy is not valid).
    std::optional<std::size_t> lds_bytes(const ConvView& p, const BwdDataProblem& q) const {
        const auto a = a_copy(q);
        if (!a.valid) return std::nullopt;
        const auto b = b_copy(p, q);
        if (!b.valid || a.cluster_mn == 0 || b.cluster_mn == 0) return std::nullopt;
        const long read_m = GemmMPerBlock / a.cluster_mn, read_n = GemmNPerBlock / b.cluster_mn;
        const long align = std::lcm(static_cast<long>(a.dst_write),
                                    std::lcm(static_cast<long>(b.dst_write), std::lcm(read_m, read_n)));
        const auto least_multiple = [](long v, long m) { return m * solvers::integer_divide_ceil<long>(v, m); };
        const long a_space = GemmKPerBlock * least_multiple(GemmMPerBlock, align);
        const long b_space = GemmKPerBlock * least_multiple(GemmNPerBlock, align);
        return static_cast<std::size_t>((a_space + b_space) * (p.IsFp32() ? 4 : 2) * GemmKPACKSize);
    }

    // IsValidValue (:574-583).
    bool valid_value() const {
        return two_power(GemmNPerBlock, 16, 256) && two_power(GemmMPerBlock, 4, 256) &&
               two_power(GemmKPerBlock, 1, 8) && two_power(GemmKPACKSize, 1, 8) && two_power(GemmMPerWave, 4, 128) &&
               two_power(GemmNPerWave, 16, 128);
    }

    // IsReallyValid (:344-417): every GEMM's sizes divide into blocks; what IsValidPerformanceConfig
    // asks of a perf-db record (:883-890).
    bool really_valid(const ConvView& p, const BwdDataProblem& q) const {
        if (!valid_value()) return false;
        if (p.IsFp16() && GemmKPACKSize % 4 != 0) return false;
        if (p.IsBfp16() && GemmKPACKSize % 2 != 0) return false;
        for (long id = 0; id < number_of_gemms(q); ++id) {
            const auto s = gemm_size(q, id);
            if (s.k % GemmKPACKSize != 0) return false;
            const long gemm_k = s.k / GemmKPACKSize;
            if (!(s.m % GemmMPerBlock == 0 && s.n % GemmNPerBlock == 0 && gemm_k % GemmKPerBlock == 0)) return false;
        }
        if (GemmMPerBlock % GemmMPerWave != 0 || GemmNPerBlock % GemmNPerWave != 0) return false;
        if (!hip_implicit_gemm::valid_blockwise_gemm_xdlops(p, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave,
                                                    GemmNPerWave, GemmKPACKSize))
            return false;
        if (!a_copy(q).valid || !b_copy(p, q).valid) return false;
        const auto lds = lds_bytes(p, q);
        return lds && *lds <= 64 * 1024;
    }

    // IsFastToBeUsedForTuning (:419-515), use_spare_set off (HeuristicInit's configs).
    bool fast(const ConvView& p, const BwdDataProblem& q, unsigned compute_units) const {
        if (GemmMPerWave * GemmNPerWave > 64 * 128) return false;
        const auto s = gemm_size(q, 0);
        if (!hip_implicit_gemm::grid_not_too_large(s.m, s.n, GemmMPerBlock, GemmNPerBlock, compute_units)) return false;
        const int waves = (GemmMPerBlock / GemmMPerWave) * (GemmNPerBlock / GemmNPerWave);
        if (!(waves > 1 && waves <= 4)) return false;
        return hip_implicit_gemm::copies_per_thread_fit(p, waves, GemmKPerBlock, GemmMPerBlock, GemmNPerBlock,
                                                        GemmKPACKSize);
    }
};

// HeuristicInit (:610-734): the walk (KPerBlock, KPACKSize, NPerWave, MPerWave, NPerBlock, MPerBlock;
// KPACKSize over 1..4 for FP32, 4..8 for FP16, 2..8 for BF16) first for a really valid and fast config,
// then for a really valid one; when neither exists MIOpen logs "All attempts unsuccessful" and keeps the last.
Config heuristic(const ConvView& p, const BwdDataProblem& q, unsigned compute_units) {
    const int kpack_lo = p.IsFp32() ? 1 : p.IsFp16() ? 4 : 2;
    const int kpack_hi = p.IsFp32() ? 4 : 8;
    const std::vector<hip_implicit_gemm::Digit<Config>> digits = {
        {&Config::GemmKPerBlock, 1, 8},    {&Config::GemmKPACKSize, kpack_lo, kpack_hi},
        {&Config::GemmNPerWave, 16, 128},  {&Config::GemmMPerWave, 4, 128},
        {&Config::GemmNPerBlock, 16, 256}, {&Config::GemmMPerBlock, 4, 256}};
    const Config start{256, 256, 8, kpack_hi, 128, 128, true, true};
    return hip_implicit_gemm::two_round_walk(
        start, digits, [&](const Config& t) { return t.really_valid(p, q); },
        [&](const Config& t) { return t.fast(p, q, compute_units); });
}

// IsApplicableXdlops (implicitgemm_util.hpp:338-388) for backward data: K/G in whole EPACKs
// (4 for FP16 on xdlops, 2 for BF16), and the whole problem as one GEMM fits xdlops.
// (Its xdlops check is in xdlops_common_checks.)
bool applicable_xdlops(const ConvView& p, const SolverContext& ctx, std::string* why) {
    const long k = p.GetInChannels() / p.GetGroupCount();
    const long c = p.GetOutChannels() / p.GetGroupCount();
    const int epack = hip_implicit_gemm::epack_length(p, ctx.target, true);
    if (k % epack != 0) return reject(why, "K per group is no multiple of EPACK");
    const long gemm_m = c * p.GetWeightsHeight() * p.GetWeightsWidth();
    const long gemm_n = p.GetBatchSize() * p.GetInHeight() * p.GetInWidth();
    if (!hip_implicit_gemm::valid_grid_gemm_xdlops(gemm_m, gemm_n, k / epack))
        return reject(why, "GEMM sizes do not fit xdlops (IsApplicableXdlops)");
    return true;
}

class ConvHipImplicitGemmBwdDataV4R1Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmBwdDataV4R1Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }
    std::string_view missing_kernels_reason() const override {
        return "HeuristicInit finds no valid configuration (MIOpen logs \"All attempts unsuccessful\"; GetSolution "
               "asserts) and no valid perf-db record";
    }

    // IsApplicable's environment gates (:816-831), then ThisSolverIsDeprecatedStatic (:832-833).
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        if (p.IsFp32())
            return std::string(
                "FP32 needs MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1_XDLOPS set (WORKAROUND_ISSUE_1206, "
                "conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp:33-35, :816-822)");
        if (p.IsBfp16() && ctx.target.name() == "gfx90a")
            return std::string(
                "BF16 on gfx90a needs MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1_XDLOPS set "
                "(WORKAROUND_SWDEV_329642, conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp:37, :823-829)");
        return deprecated_solver_off(ctx.target);
    }

    // IsApplicable (:813-874) past the gates above; not deterministic, HIP kernels allowed, packed tensors.
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!hip_implicit_gemm::xdlops_common_checks(p, ctx, ConvDirection::BackwardData, why)) return false;
        if (!applicable_xdlops(p, ctx, why)) return false;
        const BwdDataProblem q = hip_implicit_gemm::interpret(p);
        for (long id = 0; id < number_of_gemms(q); ++id) {
            const auto s = gemm_size(q, id);
            if (!hip_implicit_gemm::valid_grid_gemm_xdlops(s.m, s.n, s.k))
                return reject(why, "a GEMM's sizes do not fit xdlops");
        }
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
        const auto a = c.a_copy(q);
        const auto b = c.b_copy(p, q);
        const std::string kernel = "gridwise_convolution_backward_data_implicit_gemm_v4r1_xdlops_nchw_kcyx_nkhw";
        std::vector<SolverKernel> out;
        // GetSolution (:934-1065): one kernel per GEMM id with a K; the options of :1014-1060 in order,
        // the data-type block between the common CK flags and the KPACK tail.
        for (long id = 0; id < number_of_gemms(q); ++id) {
            if (gemm_size(q, id).k <= 0) continue;
            std::string o = hip_implicit_gemm::problem_defines(q);
            o += fmt::format(
                " -DCK_PARAM_PROBLEM_CONV_GROUP_COUNTS={} -DCK_PARAM_TUNABLE_BLOCK_SIZE={}"
                " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={}"
                " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_GEMM_M_PER_WAVE={} -DCK_PARAM_GEMM_N_PER_WAVE={}",
                p.GetGroupCount(), c.block_size(), c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave,
                c.GemmNPerWave);
            o += fmt::format(
                " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
                " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
                " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
                " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
                " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
                a.cluster_k, a.cluster_mn, a.cluster_kpack, a.src_read, b.cluster_k, b.cluster_mn, b.cluster_kpack,
                b.src_read, c.grid_size(q));
            o += hip_implicit_gemm::xdlops_flags(ctx.target) + fmt::format(" -DCK_PARAM_GEMM_ID={}", id) +
                 hip_implicit_gemm::common_compiler_flags(ctx.target) + ctx.general_options;
            o += fmt::format(
                " -DCK_PARAM_KPACK_LENGTH={} -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}"
                " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
                c.GemmKPACKSize, a.dst_write, b.dst_write);
            out.push_back({"static_kernel_" + kernel + ".cpp", {kernel}, o});
        }
        // The invoker (impl_gemm.cpp:163-190) zeroes dx first when a dilation or a stride past the
        // filter leaves pixels that no GEMM writes.
        if (!hip_implicit_gemm::every_pixel_is_written(p))
            out.push_back(
                sub_tensor_op_with_scalar(false, hip_implicit_gemm::dx_elements(p), hip_implicit_gemm::data_type_of(p)));
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmBwdDataV4R1Xdlops)

}  // namespace kdbgen
