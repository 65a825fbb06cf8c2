#include "backward_weights_xdlops_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace kdbgen::hip_implicit_gemm::backward_weights_xdlops {

std::optional<Config> parse_record(Variant v, const std::string& text) {
    Config c;  // the default-constructed config: 4,4,1,4,4,1,(16,64,16,)false,false
    const bool ok = v == Variant::PaddedGemm
                        ? read_record(text, {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave,
                                             &c.GemmNPerWave, &c.GemmKPack, &c.GemmMFactor, &c.GemmNFactor,
                                             &c.GemmKTotalFactor, &c.GemmAThreadCopyMoreGemmK, &c.GemmBThreadCopyMoreGemmK})
                        : read_record(text, {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave,
                                             &c.GemmNPerWave, &c.GemmKPack, &c.GemmAThreadCopyMoreGemmK,
                                             &c.GemmBThreadCopyMoreGemmK});
    if (!ok) return std::nullopt;
    return c;
}

WrwXdlops::WrwXdlops(Variant variant, const ConvView& p, const Target& target)
    : variant_(variant), p_(p), target_(target), q_(interpret(p)) {}

std::optional<GemmSize> WrwXdlops::gemm_size(const Config& c) const {
    if (c.GemmMPerBlock <= 0 || c.GemmNPerBlock <= 0 || c.GemmKPerBlock <= 0 || c.GemmKPack <= 0) return std::nullopt;
    const long k_per_group = q_.k / q_.g, c_per_group = q_.c / q_.g;
    const long n_times_hw = q_.n * q_.ho * q_.wo;  // GemmKBlock * GemmKTotal
    const long max_grid = 20L * static_cast<long>(target_.compute_units);
    GemmSize s{};
    if (variant_ == Variant::Plain) {
        // plain :330-368: K split into the most blocks up to 20 per CU that divide N and keep
        // GemmK a multiple of GemmKPerBlock.
        s.m = k_per_group;
        s.n = c_per_group * q_.y * q_.x;
        if (!(s.m % c.GemmMPerBlock == 0 && s.n % c.GemmNPerBlock == 0 &&
              n_times_hw % (static_cast<long>(c.GemmKPerBlock) * c.GemmKPack) == 0))
            return std::nullopt;
        const long grid_unsplit = q_.g * (s.m / c.GemmMPerBlock) * (s.n / c.GemmNPerBlock);
        long kb = std::min(std::max(max_grid / grid_unsplit, 1L), q_.n);
        for (; kb > 1; --kb) {
            if (q_.n % kb != 0) continue;
            if (n_times_hw % (kb * c.GemmKPack) != 0) continue;
            if ((n_times_hw / (kb * c.GemmKPack)) % c.GemmKPerBlock != 0) continue;
            break;
        }
        s.k_block = std::max(1L, kb);
        s.g = q_.g * s.k_block;
        s.k_total = n_times_hw / s.k_block;
        s.m_pad = s.n_pad = s.k_total_pad = 0;
        return s;
    }
    // padded :839-894: M, N and each slice's K rounded up to the factors. A factor of 0 from a
    // record would divide by zero in MIOpen; kdbgen refuses the record instead.
    if (c.GemmMFactor <= 0 || c.GemmNFactor <= 0 || c.GemmKTotalFactor <= 0) return std::nullopt;
    const long m_no_pad = k_per_group, n_no_pad = c_per_group * q_.y * q_.x;
    s.m = ((m_no_pad - 1) / c.GemmMFactor + 1) * c.GemmMFactor;
    s.n = ((n_no_pad - 1) / c.GemmNFactor + 1) * c.GemmNFactor;
    s.m_pad = s.m - m_no_pad;
    s.n_pad = s.n - n_no_pad;
    if (!(s.m % c.GemmMPerBlock == 0 && s.n % c.GemmNPerBlock == 0)) return std::nullopt;
    const long grid_unsplit = q_.g * (s.m / c.GemmMPerBlock) * (s.n / c.GemmNPerBlock);
    const auto padded_k = [&](long kb) {
        const long no_pad = q_.n / kb * q_.ho * q_.wo;
        return std::pair{((no_pad - 1) / c.GemmKTotalFactor + 1) * c.GemmKTotalFactor, no_pad};
    };
    long kb = std::min(std::max(max_grid / grid_unsplit, 1L), q_.n);
    for (; kb > 1; --kb) {
        if (q_.n % kb != 0) continue;
        if (padded_k(kb).first % (static_cast<long>(c.GemmKPerBlock) * c.GemmKPack) != 0) continue;
        break;
    }
    s.k_block = std::max(1L, kb);
    const auto [k_total, no_pad] = padded_k(s.k_block);
    s.k_total = k_total;
    s.k_total_pad = k_total - no_pad;
    s.g = q_.g * s.k_block;
    return s;
}

std::optional<Copy> WrwXdlops::a_copy(const Config& c) const {
    // A is [GemmG, GemmK, GemmM, GemmKPack], read along GemmKPack as the forward xdlops solvers read
    // theirs, the read also bounded by Ho*Wo (plain :378-472, padded :311-405).
    const Copy a = xdlops_a_copy(c, c.GemmAThreadCopyMoreGemmK, p_, q_.ho * q_.wo, true, false);
    if (!a.valid) return std::nullopt;
    return a;
}

std::optional<Copy> WrwXdlops::b_copy(const Config& c) const {
    // B is [GemmG, GemmK, GemmN, GemmKPack]; the read width along GemmKPack follows the input layout.
    const int block = c.block_size();
    if (block <= 0) return std::nullopt;
    const int read = static_cast<int>(std::gcd(xdlops_b_read_width(q_), static_cast<long>(c.GemmKPack)));
    if (read <= 0) return std::nullopt;
    const int per_thread = std::lcm(std::max(1, c.GemmKPerBlock * c.GemmNPerBlock * c.GemmKPack / block), read);
    const int tmp = per_thread / read;
    int per_k = 0, per_n = 0;
    if (variant_ == Variant::Plain) {
        // plain :552-562
        if (c.GemmBThreadCopyMoreGemmK) {
            per_k = std::gcd(c.GemmKPerBlock, tmp);
            per_n = per_k > 0 ? tmp / per_k : 0;
        } else {
            per_n = std::gcd(c.GemmNPerBlock, tmp);
            per_k = per_n > 0 ? tmp / per_n : 0;
        }
    } else {
        // padded :486-495 bounds the GemmK share by GemmNPerBlock and the GemmN share by GemmKPerBlock
        // (the other way round from the plain solver); kept as MIOpen has it.
        if (c.GemmBThreadCopyMoreGemmK) {
            per_k = std::gcd(c.GemmNPerBlock, tmp);
            per_n = per_k > 0 ? tmp / per_k : 0;
        } else {
            per_n = std::gcd(c.GemmKPerBlock, tmp);
            per_k = per_n > 0 ? tmp / per_n : 0;
        }
    }
    if (per_k <= 0 || per_n <= 0) return std::nullopt;
    const int dst = std::gcd(p_.IsFp32() ? 4 : 8, read);
    if (!(c.GemmKPerBlock % per_k == 0 && c.GemmNPerBlock % per_n == 0 && c.GemmKPack % read == 0)) return std::nullopt;
    const Copy out{c.GemmKPerBlock / per_k, c.GemmNPerBlock / per_n, c.GemmKPack / read, read, dst, true};
    if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) return std::nullopt;
    return out;
}

bool WrwXdlops::really_valid(const Config& c) const {
    if (!c.valid_value()) return false;
    if (!valid_blockwise_gemm_xdlops(p_, c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave,
                                     c.GemmNPerWave, c.GemmKPack))
        return false;
    const auto s = gemm_size(c);
    if (!s) return false;
    if (s->k_total % c.GemmKPack != 0) return false;
    const long gemm_k = s->k_total / c.GemmKPack;
    if (!(s->m % c.GemmMPerBlock == 0 && s->n % c.GemmNPerBlock == 0 && gemm_k % c.GemmKPerBlock == 0)) return false;
    if (!a_copy(c) || !b_copy(c)) return false;
    return c.lds_fits(p_);
}

bool WrwXdlops::fast_for_tuning(const Config& c) const {
    // plain :691-842, padded :632-794 (GemmKPerBlock*GemmKPack < 8 / 16 refused whatever GemmK is).
    const auto s = gemm_size(c);
    if (!s) return false;  // not reached: IsReallyValid held first
    return xdlops_fast_for_tuning(c, p_, s->m, s->n, std::nullopt, target_.compute_units);
}

Config WrwXdlops::heuristic() const {
    // The tile walk (plain :128-254, padded :125-250) from GemmA...MoreGemmK false, GemmB...MoreGemmK
    // true; the padding factors stay the default 16, 64, 16.
    return last_answer(p_.p, target_.compute_units, static_cast<int>(variant_), [&] {
        Config start;
        static_cast<GemmTile&>(start) = tile_walk_start(p_);
        start.GemmAThreadCopyMoreGemmK = false, start.GemmBThreadCopyMoreGemmK = true;
        return two_round_walk(
            start, tile_walk_digits<Config>(p_), [&](const Config& t) { return really_valid(t); },
            [&](const Config& t) { return fast_for_tuning(t); });
    });
}

Config WrwXdlops::config(const PerfDb* perf_db, const std::string& solver) const {
    if (perf_db)
        if (const auto record = perf_db->find(p_.p, solver))
            if (const auto parsed = checked_perf_record(parse_record(variant_, *record), perf_db, p_.p, solver, *record); parsed && really_valid(*parsed)) return *parsed;
    return heuristic();
}

bool WrwXdlops::applicable_tail(std::string* why) const {
    // plain :1091-1107, padded :1154-1186
    const Config c = heuristic();
    if (!really_valid(c)) return reject(why, "HeuristicInit finds no valid configuration");
    const auto s = gemm_size(c);
    if (variant_ == Variant::PaddedGemm && s->m_pad == 0 && s->n_pad == 0 && s->k_total_pad == 0)
        return reject(why, "nothing to pad (left to ConvHipImplicitGemmWrwV4R4Xdlops)");
    return valid_grid_gemm_xdlops(s->m, s->n, s->k_total) || reject(why, "GEMM sizes do not fit xdlops");
}

std::vector<SolverKernel> WrwXdlops::kernels(const Config& c, const SolverContext& ctx) const {
    // GetSolution (plain :940-982, padded :1000-1045, MIOpen 3.3.0): the problem through
    // ProblemInterpreter, the tunables, GEMM-K blocks, block and grid size, the A and B copy
    // parameters, (padded: CK_GEMM_M_PAD, CK_GEMM_N_PAD, CK_GEMM_K_TOTAL_PAD), the xdlops flags,
    // get_static_ck_common_compiler_flag, then ctx.general_compile_options.
    const auto s = gemm_size(c);
    const auto a = a_copy(c);
    const auto b = b_copy(c);
    // A config that is not really valid never gets here (the record is checked, and applicable()
    // needs a valid heuristic); MIOpen would go on with -1s after an assert.
    if (!s || !a || !b) return {};
    const long grid = s->g * (s->m / c.GemmMPerBlock) * (s->n / c.GemmNPerBlock);
    std::string o = grouped_problem_defines(q_);
    o += fmt::format(
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE={}"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE={} -DCK_PARAM_TUNABLE_GEMM_KPACK={} -DCK_PARAM_GEMM_K_BLOCK={}"
        " -DCK_PARAM_DEPENDENT_BLOCK_SIZE={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
        c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave, c.GemmNPerWave, c.GemmKPack, s->k_block,
        c.block_size(), grid);
    o += xdlops_a_copy_defines(*a);
    o += fmt::format(
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
        b->cluster_k, b->cluster_mn, b->cluster_kpack, b->src_read, b->dst_write);
    if (variant_ == Variant::PaddedGemm)
        o += fmt::format(" -DCK_GEMM_M_PAD={} -DCK_GEMM_N_PAD={} -DCK_GEMM_K_TOTAL_PAD={}", s->m_pad, s->n_pad,
                         s->k_total_pad);
    o += xdlops_flags(ctx.target) + common_compiler_flags(ctx.target) + ctx.general_options;
    const std::string kernel = std::string("gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw") +
                               (variant_ == Variant::PaddedGemm ? "_padded_gemm" : "");
    std::vector<SolverKernel> out{{"static_kernel_" + kernel + ".cpp", {kernel}, o}};
    // The invoker's helpers on dw (K x C/G x Y x X, packed): FP32 zeroes dw itself; FP16 and BF16
    // zero an FP32 workspace of dw's lengths and strides, then cast it into dw (CastTensor with
    // clamping off, src/ocl/tensorocl.cpp:2006-2131).
    const long dw = q_.k * (q_.c / q_.g) * q_.y * q_.x;
    out.push_back(sub_tensor_op_with_scalar(false, dw, DataType::Float));
    if (p_.IsFp16()) out.push_back(cast_tensor(dw, DataType::Float, DataType::Half));
    if (p_.IsBfp16()) out.push_back(cast_tensor(dw, DataType::Float, DataType::BFloat16));
    return out;
}

}  // namespace kdbgen::hip_implicit_gemm::backward_weights_xdlops
