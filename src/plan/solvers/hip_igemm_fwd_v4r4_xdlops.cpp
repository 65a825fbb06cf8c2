// ConvHipImplicitGemmForwardV4R4Xdlops: forward implicit GEMM on xdlops (gfx908,
// gfx90a, gfx94x), static_kernel_gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw.cpp,
// one kernel per problem. Its heuristic default reads the CU count (IsFastToBeUsedForTuning
// compares the grid with multiples of it). No helper kernels.
//
// MIOpen 3.3.0 src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp (rocm-6.2.0
// src/solver/conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp):
//   :121-235  HeuristicInit (the odometer walk down from 256,256,8,128,128,KPack,false,true,1)
//   :237-270  CalculateBlockSize, CalculateGridSize
//   :272-348  CalculateGemmABlockCopyPerformanceParameters
//   :350-460  CalculateGemmBBlockCopyPerformanceParameters
//   :462-520  CalculateLdsNumberOfByte, IsValidValue, IsReallyValid
//   :522-672  IsFastToBeUsedForTuning;  :684-707 IsValidPerformanceConfig (IsReallyValid), CalculateGemmSize
//   :718-880  GetSolution;  :882-947 IsApplicable (deprecated solver)
//   src/include/miopen/conv/solvers.hpp:1099-1140 the perf-db record fields
#include "hip_implicit_gemm.hpp"

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kdbgen {

namespace {

struct Problem {
    long g, n, k, c, hi, wi, ho, wo, y, x, stride_h, stride_w, dilation_h, dilation_w, left_pad_h, left_pad_w,
        right_pad_h, right_pad_w;
    long gemm_m() const { return k / g; }
    long gemm_n() const { return n * ho * wo; }
    long gemm_k_total() const { return c / g * y * x; }
};

// ProblemInterpreter for the forward direction (src/include/miopen/solver/problem_description_interpreter.hpp:
// 185-295): strides of a 1-wide output and dilations of a 1-wide filter become 1; right pads as the filter needs.
Problem interpret(const ConvView& p) {
    Problem q{};
    q.g = p.GetGroupCount(), q.n = p.GetBatchSize(), q.k = p.GetOutChannels(), q.c = p.GetInChannels();
    q.hi = p.GetInHeight(), q.wi = p.GetInWidth(), q.ho = p.GetOutHeight(), q.wo = p.GetOutWidth();
    q.y = p.GetWeightsHeight(), q.x = p.GetWeightsWidth();
    q.stride_h = q.ho > 1 ? p.GetKernelStrideH() : 1;
    q.stride_w = q.wo > 1 ? p.GetKernelStrideW() : 1;
    q.dilation_h = q.y > 1 ? p.GetDilationH() : 1;
    q.dilation_w = q.x > 1 ? p.GetDilationW() : 1;
    q.left_pad_h = p.GetPadH(), q.left_pad_w = p.GetPadW();
    const long hi_padded = 1 + (q.y - 1) * q.dilation_h + (q.ho - 1) * q.stride_h;
    const long wi_padded = 1 + (q.x - 1) * q.dilation_w + (q.wo - 1) * q.stride_w;
    q.right_pad_h = hi_padded > q.left_pad_h + q.hi ? hi_padded - (q.left_pad_h + q.hi) : 0;
    q.right_pad_w = wi_padded > q.left_pad_w + q.wi ? wi_padded - (q.left_pad_w + q.wi) : 0;
    return q;
}

struct Copy {
    int cluster_k = -1, cluster_mn = -1, cluster_kpack = -1, src_read = -1, dst_write = -1;
    bool valid = false;
};

struct Config {
    int GemmMPerBlock = 0, GemmNPerBlock = 0, GemmKPerBlock = 0, GemmMPerWave = 0, GemmNPerWave = 0, GemmKPack = 0;
    bool GemmAThreadCopyMoreGemmK = false, GemmBThreadCopyMoreGemmKPack = false;
    int GemmBThreadDataPerRead_GemmN = 0;

    static std::optional<Config> parse(const std::string& text) {
        const auto f = parse_int_fields<9>(text);
        if (!f) return std::nullopt;
        const auto& v = *f;
        return Config{v[0], v[1], v[2], v[3], v[4], v[5], v[6] != 0, v[7] != 0, v[8]};
    }

    int block_size() const {
        if (GemmMPerWave <= 0 || GemmNPerWave <= 0 || GemmMPerBlock % GemmMPerWave != 0 || GemmNPerBlock % GemmNPerWave != 0)
            return -1;
        return GemmNPerBlock * GemmMPerBlock / (GemmMPerWave * GemmNPerWave) * 64;
    }

    // amd_buffer_load_max_length is 4 for every type (WORKAROUND_SWDEV_413051), amd_lds_write_max_length
    // 4 for FP32 and 8 for 16-bit types (implicitgemm_util.hpp:472-530).
    Copy a_copy(const ConvView& p) const {
        Copy out;
        const int block = block_size();
        if (block <= 0) return out;
        const int src = std::gcd(4, GemmKPack);
        int per_thread = std::max(1, GemmKPerBlock * GemmMPerBlock * GemmKPack / block);
        per_thread = std::lcm(per_thread, src);
        const int tmp = per_thread / src;
        if (tmp == 0) return out;
        int per_k = 0, per_m = 0;
        if (GemmAThreadCopyMoreGemmK) {
            per_k = std::gcd(GemmKPerBlock, tmp);
            per_m = tmp / per_k;
        } else {
            per_m = std::gcd(GemmMPerBlock, tmp);
            per_k = tmp / per_m;
        }
        const int dst = std::gcd(p.IsFp32() ? 4 : 8, src);
        if (per_k <= 0 || per_m <= 0 || GemmKPerBlock % per_k != 0 || GemmMPerBlock % per_m != 0 || GemmKPack % src != 0)
            return out;
        out = {GemmKPerBlock / per_k, GemmMPerBlock / per_m, GemmKPack / src, src, dst, true};
        if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) out.valid = false;
        return out;
    }

    Copy b_copy(const ConvView& p, const Problem& q) const {
        Copy out;
        const int block = block_size();
        if (block <= 0) return out;
        long src = 4;
        if (q.y == 1 && q.x == 1 && q.stride_h == 1 && q.stride_w == 1 && q.left_pad_h == 0 && q.left_pad_w == 0 &&
            q.right_pad_h == 0 && q.right_pad_w == 0)
            src = std::gcd(src, q.ho * q.wo);
        else if (q.stride_w == 1 && q.left_pad_w == 0 && q.right_pad_w == 0)
            src = std::gcd(src, q.wo);
        else if (q.stride_w == 1)
            src = std::gcd(std::gcd(std::gcd(std::gcd(src, q.wo), q.left_pad_w), q.right_pad_w), q.dilation_w);
        else
            src = 1;
        src = std::gcd(src, static_cast<long>(GemmNPerBlock));
        const int per_n = static_cast<int>(src);
        // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_FWD_V4R4_XDLOPS_ADD_VECTOR_LOAD_GEMMN_TUNE_PARAM is off.
        int per_thread = std::max(1, GemmKPerBlock * GemmNPerBlock * GemmKPack / block);
        per_thread = std::lcm(per_thread, per_n);
        const int tmp = per_thread / per_n;
        int per_kpack = 0, per_k = 0;
        if (GemmBThreadCopyMoreGemmKPack) {
            per_kpack = std::gcd(GemmKPack, tmp);
            per_k = per_kpack > 0 ? tmp / per_kpack : 0;
        } else {
            per_k = std::gcd(GemmKPerBlock, tmp);
            per_kpack = per_k > 0 ? tmp / per_k : 0;
        }
        if (!(per_kpack > 0 && per_k > 0 && per_n > 0)) return out;
        const int dst = std::gcd(p.IsFp32() ? 4 : 8, per_kpack);
        if (GemmKPerBlock % per_k != 0 || GemmNPerBlock % per_n != 0 || GemmKPack % per_kpack != 0) return out;
        out = {GemmKPerBlock / per_k, GemmNPerBlock / per_n, GemmKPack / per_kpack, per_n, dst, true};
        if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) out.valid = false;
        return out;
    }

    bool valid_value() const {
        const auto two = [](int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; };
        return two(GemmMPerBlock, 4, 256) && two(GemmNPerBlock, 4, 256) && two(GemmKPerBlock, 1, 8) &&
               two(GemmMPerWave, 4, 128) && two(GemmNPerWave, 4, 128) && two(GemmKPack, 1, 8);
    }

    bool really_valid(const ConvView& p, const Problem& q) const {
        if (!valid_value()) return false;
        if (!hip_igemm::valid_blockwise_gemm_xdlops(p, GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave,
                                                    GemmNPerWave, GemmKPack))
            return false;
        if (q.gemm_k_total() % GemmKPack != 0) return false;
        const long gemm_k = q.gemm_k_total() / GemmKPack;
        if (!(q.gemm_m() % GemmMPerBlock == 0 && q.gemm_n() % GemmNPerBlock == 0 && gemm_k % GemmKPerBlock == 0))
            return false;
        if (!a_copy(p).valid || !b_copy(p, q).valid) return false;
        const std::size_t lds = static_cast<std::size_t>(GemmKPerBlock) * GemmKPack * (GemmMPerBlock + GemmNPerBlock) *
                                (p.IsFp32() ? 4 : 2);
        return lds <= 65536;
    }

    bool fast_for_tuning(const ConvView& p, const Problem& q, unsigned compute_units) const {
        if (GemmMPerWave * GemmNPerWave > 64 * 128) return false;
        const long gemm_m = q.gemm_m(), gemm_n = q.gemm_n();
        {
            // int arithmetic as MIOpen does it (gemm sizes are ints there).
            const long grid_size = (gemm_m * gemm_n) / (static_cast<long>(GemmMPerBlock) * GemmNPerBlock);
            const long max_blockwise = std::max(std::gcd(256L, gemm_m) * std::gcd(128L, gemm_n),
                                                std::gcd(128L, gemm_m) * std::gcd(256L, gemm_n));
            const std::size_t grid_max = static_cast<std::size_t>(gemm_m) * gemm_n / max_blockwise;
            const float ratio = static_cast<float>(grid_size) / static_cast<float>(grid_max);
            const std::size_t cu = compute_units;
            if (grid_max > 5 * cu) {
                if (ratio > 2.81f) return false;
            } else if (grid_max > 4 * cu) {
                if (ratio > 3.61f) return false;
            } else if (grid_max > 3 * cu) {
                if (ratio > 4.41f) return false;
            } else if (grid_max > 2 * cu) {
                if (ratio > 6.41f) return false;
            } else if (grid_max > cu) {
                if (ratio > 12.41f) return false;
            }
        }
        const int waves = (GemmMPerBlock / GemmMPerWave) * (GemmNPerBlock / GemmNPerWave);
        if (!(waves > 1 && waves <= 4)) return false;
        if (GemmMPerBlock > 2 * GemmNPerBlock && gemm_n % (2 * GemmNPerBlock) == 0) return false;
        if (GemmNPerBlock > 2 * GemmMPerBlock && gemm_m % (2 * GemmMPerBlock) == 0) return false;
        if (GemmMPerWave > 2 * GemmNPerWave && GemmNPerBlock % (2 * GemmNPerWave) == 0) return false;
        if (GemmNPerWave > 2 * GemmMPerWave && GemmMPerBlock % (2 * GemmMPerWave) == 0) return false;
        const int block = waves * 64;
        const int a_per_thread = GemmKPerBlock * GemmMPerBlock * GemmKPack / block;
        const int b_per_thread = GemmKPerBlock * GemmNPerBlock * GemmKPack / block;
        if (p.IsFp32() && (a_per_thread > 16 || b_per_thread > 16)) return false;
        if ((p.IsFp16() || p.IsBfp16()) && (a_per_thread > 32 || b_per_thread > 32)) return false;
        const long k_total = q.gemm_k_total();
        if (p.IsFp32()) {
            if (GemmKPack > 4) return false;
            if (GemmKPerBlock * GemmKPack < 8 && k_total % 8 == 0) return false;
        } else if (GemmKPerBlock * GemmKPack < 16 && k_total % 16 == 0) {
            return false;
        }
        return true;
    }
};

// HeuristicInit: walk the odometer down until `valid` holds or every value was visited.
template <typename Valid>
Config walk(const ConvView& p, Valid valid) {
    using hip_igemm::previous_two_power;
    Config c = {256, 256, 8, 128, 128, p.IsFp32() ? 4 : 8, false, true, 1};
    bool all_visited = false;
    do {
        do {
            if (p.IsFp32() ? !previous_two_power<1, 4>(c.GemmBThreadDataPerRead_GemmN)
                           : !previous_two_power<1, 8>(c.GemmBThreadDataPerRead_GemmN))
                break;
            if (!previous_two_power<1, 8>(c.GemmKPerBlock)) break;
            if (p.IsFp32() ? !previous_two_power<1, 4>(c.GemmKPack)
                : p.IsFp16() ? !previous_two_power<4, 8>(c.GemmKPack)
                             : !previous_two_power<2, 8>(c.GemmKPack))
                break;
            if (!previous_two_power<4, 128>(c.GemmNPerWave)) break;
            if (!previous_two_power<4, 128>(c.GemmMPerWave)) break;
            if (!previous_two_power<4, 256>(c.GemmNPerBlock)) break;
            if (!previous_two_power<4, 256>(c.GemmMPerBlock)) break;
            all_visited = true;
        } while (false);
        if (valid(c)) break;
    } while (!all_visited);
    return c;
}

Config heuristic(const ConvView& p, const Problem& q, unsigned compute_units) {
    Config c = walk(p, [&](const Config& t) { return t.really_valid(p, q) && t.fast_for_tuning(p, q, compute_units); });
    if (!c.really_valid(p, q)) c = walk(p, [&](const Config& t) { return t.really_valid(p, q); });
    return c;
}

class ConvHipImplicitGemmForwardV4R4Xdlops : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvHipImplicitGemmForwardV4R4Xdlops"; }
    bool uses_general_options() const override { return true; }
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_FWD_V4R4_XDLOPS on unless disabled; not deterministic.
        if (!hip_igemm::composable_kernel_hardware(ctx.target)) return reject(why, "not composable-kernel hardware");
        if (!hip_igemm::xdlops_supported(ctx.target)) return reject(why, "no xdlops");
        if (!(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return reject(why, "not FP32, FP16 or BF16");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "sizes do not fit int");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (!p.IsDirectionForward()) return reject(why, "not forward");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (ctx.target.name() == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt");
        if (!hip_igemm::index_range_large_enough(p)) return reject(why, "a tensor of 2 GiB or more");
        if (!p.IsLayoutDefault()) return reject(why, "not NCHW");
        const Problem q = interpret(p);
        if (!hip_igemm::valid_grid_gemm_xdlops(q.gemm_m(), q.gemm_n(), q.gemm_k_total()))
            return reject(why, "GEMM sizes do not fit xdlops");
        return heuristic(p, q, ctx.target.compute_units).really_valid(p, q) || reject(why, "no valid configuration");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const Problem q = interpret(p);
        Config c = heuristic(p, q, ctx.target.compute_units);
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = Config::parse(*record); parsed && parsed->really_valid(p, q)) c = *parsed;
        const auto a = c.a_copy(p);
        const auto b = c.b_copy(p, q);
        const long grid = q.g * (q.gemm_m() / c.GemmMPerBlock) * (q.gemm_n() / c.GemmNPerBlock);
        std::string o = fmt::format(
            " -DCK_PARAM_PROBLEM_G={} -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={}"
            " -DCK_PARAM_PROBLEM_HI={} -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={}"
            " -DCK_PARAM_PROBLEM_Y={} -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={}"
            " -DCK_PARAM_PROBLEM_CONV_STRIDE_W={} -DCK_PARAM_PROBLEM_CONV_DILATION_H={}"
            " -DCK_PARAM_PROBLEM_CONV_DILATION_W={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={}"
            " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={}"
            " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}",
            q.g, q.n, q.k, q.c, q.hi, q.wi, q.ho, q.wo, q.y, q.x, q.stride_h, q.stride_w, q.dilation_h, q.dilation_w,
            q.left_pad_h, q.left_pad_w, q.right_pad_h, q.right_pad_w);
        o += fmt::format(
            " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={}"
            " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE={}"
            " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE={} -DCK_PARAM_TUNABLE_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_BLOCK_SIZE={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
            c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave, c.GemmNPerWave, c.GemmKPack,
            c.block_size(), grid);
        o += fmt::format(
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
            " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
            " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
            " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N={}"
            " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
            a.cluster_k, a.cluster_mn, a.cluster_kpack, a.src_read, a.dst_write, b.cluster_k, b.cluster_mn,
            b.cluster_kpack, b.src_read, b.dst_write);
        o += hip_igemm::xdlops_flags(ctx.target) + hip_igemm::common_compiler_flags(ctx.target) + ctx.general_options;
        const std::string kernel = "gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw";
        return {{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvHipImplicitGemmForwardV4R4Xdlops)

}  // namespace kdbgen
