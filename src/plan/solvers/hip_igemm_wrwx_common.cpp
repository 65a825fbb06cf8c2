#include "hip_igemm_wrwx_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <numeric>

namespace kdbgen::hip_igemm::wrwx {

namespace {

bool two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }

// operator>> into a long as libstdc++'s num_get does it: leading blanks skipped, an optional
// sign, decimal digits up to the first other character; nullopt when no digit is read (the
// stream then stores 0), saturated when out of range.
std::optional<long> stream_long(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    long value = 0;
    bool overflow = false;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
        if (value > (LONG_MAX - (s[i] - '0')) / 10) overflow = true;
        else value = value * 10 + (s[i] - '0');
    }
    if (overflow) return negative ? LONG_MIN : LONG_MAX;
    return negative ? -value : value;
}

int stream_int(std::string_view s) {
    const auto v = stream_long(s);
    if (!v) return 0;
    return static_cast<int>(std::clamp<long>(*v, INT_MIN, INT_MAX));
}

// Without boolalpha: 0 is false, 1 true, any other number true (with failbit), no number false.
bool stream_bool(std::string_view s) {
    const auto v = stream_long(s);
    return v && *v != 0;
}

}  // namespace

Problem interpret(const ConvView& p) {
    // Backward weights: the problem's "in" is dy (K channels, Ho x Wo), its "out" is x (C, Hi x Wi).
    Problem q{};
    q.g = p.GetGroupCount(), q.n = p.GetBatchSize(), q.k = p.GetInChannels(), q.c = p.GetOutChannels();
    q.hi = p.GetOutHeight(), q.wi = p.GetOutWidth(), q.ho = p.GetInHeight(), q.wo = p.GetInWidth();
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

std::optional<Config> parse_record(Variant v, const std::string& text) {
    // getline(stream, part, ','): fails only when nothing is left to extract.
    std::size_t at = 0;
    const auto next = [&](std::string_view& part) {
        if (at >= text.size()) return false;
        const auto comma = text.find(',', at);
        const auto end = comma == std::string::npos ? text.size() : comma;
        part = std::string_view(text).substr(at, end - at);
        at = comma == std::string::npos ? text.size() : comma + 1;
        return true;
    };
    Config c;  // the default-constructed config: 4,4,1,4,4,1,(16,64,16,)false,false
    std::string_view part;
    for (int* field : {&c.GemmMPerBlock, &c.GemmNPerBlock, &c.GemmKPerBlock, &c.GemmMPerWave, &c.GemmNPerWave,
                       &c.GemmKPack}) {
        if (!next(part)) return std::nullopt;
        *field = stream_int(part);
    }
    if (v == Variant::PaddedGemm)
        for (int* field : {&c.GemmMFactor, &c.GemmNFactor, &c.GemmKTotalFactor}) {
            if (!next(part)) return std::nullopt;
            *field = stream_int(part);
        }
    for (bool* flag : {&c.GemmAThreadCopyMoreGemmK, &c.GemmBThreadCopyMoreGemmK}) {
        if (!next(part)) return std::nullopt;
        *flag = stream_bool(part);
    }
    return c;
}

WrwXdlops::WrwXdlops(Variant variant, const ConvView& p, const Target& target)
    : variant_(variant), p_(p), target_(target), q_(interpret(p)) {}

int WrwXdlops::block_size(const Config& c) {
    if (c.GemmMPerWave <= 0 || c.GemmNPerWave <= 0 || c.GemmMPerBlock % c.GemmMPerWave != 0 ||
        c.GemmNPerBlock % c.GemmNPerWave != 0)
        return -1;
    return c.GemmNPerBlock * c.GemmMPerBlock / (c.GemmMPerWave * c.GemmNPerWave) * 64;
}

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
    // A is [GemmG, GemmK, GemmM, GemmKPack], read along GemmKPack: amd_buffer_load_max_length is 4 for
    // every type (WORKAROUND_SWDEV_413051), amd_lds_write_max_length 4 for FP32, 8 for 16-bit types
    // (implicitgemm_util.hpp:470-540).
    const int block = block_size(c);
    if (block <= 0) return std::nullopt;
    const int src = static_cast<int>(std::gcd(static_cast<long>(std::gcd(4, c.GemmKPack)), q_.ho * q_.wo));
    if (src <= 0) return std::nullopt;
    const int per_thread = std::lcm(std::max(1, c.GemmKPerBlock * c.GemmMPerBlock * c.GemmKPack / block), src);
    const int tmp = per_thread / src;
    if (tmp == 0) return std::nullopt;
    int per_k = 0, per_m = 0;
    if (c.GemmAThreadCopyMoreGemmK) {
        per_k = std::gcd(c.GemmKPerBlock, tmp);
        per_m = per_k > 0 ? tmp / per_k : 0;
    } else {
        per_m = std::gcd(c.GemmMPerBlock, tmp);
        per_k = per_m > 0 ? tmp / per_m : 0;
    }
    if (per_k <= 0 || per_m <= 0) return std::nullopt;
    const int dst = std::gcd(p_.IsFp32() ? 4 : 8, src);
    if (!(c.GemmKPerBlock % per_k == 0 && c.GemmMPerBlock % per_m == 0 && c.GemmKPack % src == 0)) return std::nullopt;
    const Copy out{c.GemmKPerBlock / per_k, c.GemmMPerBlock / per_m, c.GemmKPack / src, src, dst};
    if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) return std::nullopt;
    return out;
}

std::optional<Copy> WrwXdlops::b_copy(const Config& c) const {
    // B is [GemmG, GemmK, GemmN, GemmKPack]; the read width along GemmKPack follows the input layout.
    const int block = block_size(c);
    if (block <= 0) return std::nullopt;
    long src = 4;
    if (q_.y == 1 && q_.x == 1 && q_.stride_h == 1 && q_.stride_w == 1 && q_.left_pad_h == 0 && q_.left_pad_w == 0 &&
        q_.right_pad_h == 0 && q_.right_pad_w == 0)
        src = std::gcd(src, q_.ho * q_.wo);
    else if (q_.stride_w == 1 && q_.left_pad_w == 0 && q_.right_pad_w == 0)
        src = std::gcd(src, q_.wo);
    else if (q_.stride_w == 1)
        src = std::gcd(src, std::gcd(q_.wo, std::gcd(q_.left_pad_w, std::gcd(q_.right_pad_w, q_.dilation_w))));
    else
        src = 1;
    const int read = static_cast<int>(std::gcd(src, static_cast<long>(c.GemmKPack)));
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
    const Copy out{c.GemmKPerBlock / per_k, c.GemmNPerBlock / per_n, c.GemmKPack / read, read, dst};
    if (block < out.cluster_k * out.cluster_mn * out.cluster_kpack) return std::nullopt;
    return out;
}

bool WrwXdlops::really_valid(const Config& c) const {
    if (!(two_power(c.GemmMPerBlock, 4, 256) && two_power(c.GemmNPerBlock, 4, 256) && two_power(c.GemmKPerBlock, 1, 8) &&
          two_power(c.GemmMPerWave, 4, 128) && two_power(c.GemmNPerWave, 4, 128) && two_power(c.GemmKPack, 1, 8)))
        return false;
    if (!valid_blockwise_gemm_xdlops(p_, c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave,
                                     c.GemmNPerWave, c.GemmKPack))
        return false;
    const auto s = gemm_size(c);
    if (!s) return false;
    if (s->k_total % c.GemmKPack != 0) return false;
    const long gemm_k = s->k_total / c.GemmKPack;
    if (!(s->m % c.GemmMPerBlock == 0 && s->n % c.GemmNPerBlock == 0 && gemm_k % c.GemmKPerBlock == 0)) return false;
    if (!a_copy(c) || !b_copy(c)) return false;
    const std::size_t lds = static_cast<std::size_t>(c.GemmKPerBlock) * c.GemmKPack *
                            (c.GemmMPerBlock + c.GemmNPerBlock) * (p_.IsFp32() ? 4 : 2);
    return lds <= 65536;  // get_lds_max_number_of_byte (implicitgemm_util.hpp:542)
}

bool WrwXdlops::fast_for_tuning(const Config& c) const {
    // use_spare_set (plain :698-699) is false in HeuristicInit's configs and in records.
    if (c.GemmMPerWave * c.GemmNPerWave > 64 * 128) return false;
    const auto s = gemm_size(c);
    if (!s) return false;  // not reached: IsReallyValid held first
    {
        // MIOpen's int arithmetic; the ratio is a float compared with double constants.
        const long grid = (s->m * s->n) / (static_cast<long>(c.GemmMPerBlock) * c.GemmNPerBlock);
        const long max_blockwise =
            std::max(std::gcd(256L, s->m) * std::gcd(128L, s->n), std::gcd(128L, s->m) * std::gcd(256L, s->n));
        const std::size_t grid_max = static_cast<std::size_t>(s->m) * s->n / max_blockwise;
        const float ratio = static_cast<float>(grid) / static_cast<float>(grid_max);
        const std::size_t cu = target_.compute_units;
        if (grid_max > 5 * cu) {
            if (ratio > 2.81) return false;
        } else if (grid_max > 4 * cu) {
            if (ratio > 3.61) return false;
        } else if (grid_max > 3 * cu) {
            if (ratio > 4.41) return false;
        } else if (grid_max > 2 * cu) {
            if (ratio > 6.41) return false;
        } else if (grid_max > cu) {
            if (ratio > 12.41) return false;
        }
    }
    const int waves = (c.GemmMPerBlock / c.GemmMPerWave) * (c.GemmNPerBlock / c.GemmNPerWave);
    if (!(waves > 1 && waves <= 4)) return false;
    if (c.GemmMPerBlock > 2 * c.GemmNPerBlock && s->n % (2 * c.GemmNPerBlock) == 0) return false;
    if (c.GemmNPerBlock > 2 * c.GemmMPerBlock && s->m % (2 * c.GemmMPerBlock) == 0) return false;
    if (c.GemmMPerWave > 2 * c.GemmNPerWave && c.GemmNPerBlock % (2 * c.GemmNPerWave) == 0) return false;
    if (c.GemmNPerWave > 2 * c.GemmMPerWave && c.GemmMPerBlock % (2 * c.GemmMPerWave) == 0) return false;
    const int block = waves * 64;
    const int a_per_thread = c.GemmKPerBlock * c.GemmMPerBlock * c.GemmKPack / block;
    const int b_per_thread = c.GemmKPerBlock * c.GemmNPerBlock * c.GemmKPack / block;
    if (p_.IsFp32() && (a_per_thread > 16 || b_per_thread > 16)) return false;
    if ((p_.IsFp16() || p_.IsBfp16()) && (a_per_thread > 32 || b_per_thread > 32)) return false;
    if (p_.IsFp32()) {
        if (c.GemmKPack > 4) return false;
        if (c.GemmKPerBlock * c.GemmKPack < 8) return false;
    } else if (p_.IsFp16() || p_.IsBfp16()) {
        if (c.GemmKPerBlock * c.GemmKPack < 16) return false;
    }
    return true;
}

Config WrwXdlops::heuristic() const {
    const auto walk = [&](auto valid) {
        // Starts at 256,256,8,128,128,KPack (4 for FP32, 8 otherwise), GemmA...MoreGemmK false,
        // GemmB...MoreGemmK true; each step lowers GemmKPerBlock, then (when it wraps to 8)
        // GemmKPack (FP32 1..4, FP16 4..8, BF16 2..8), GemmNPerWave, GemmMPerWave, GemmNPerBlock,
        // GemmMPerBlock; the start itself is tested last, after every value wrapped.
        Config c;
        c.GemmMPerBlock = 256, c.GemmNPerBlock = 256, c.GemmKPerBlock = 8, c.GemmMPerWave = 128,
        c.GemmNPerWave = 128, c.GemmKPack = p_.IsFp32() ? 4 : 8;
        c.GemmAThreadCopyMoreGemmK = false, c.GemmBThreadCopyMoreGemmK = true;
        bool all_visited = false;
        do {
            do {
                if (!previous_two_power<1, 8>(c.GemmKPerBlock)) break;
                if (p_.IsFp32() ? !previous_two_power<1, 4>(c.GemmKPack)
                    : p_.IsFp16() ? !previous_two_power<4, 8>(c.GemmKPack)
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
    };
    Config c = walk([&](const Config& t) { return really_valid(t) && fast_for_tuning(t); });
    if (!really_valid(c)) c = walk([&](const Config& t) { return really_valid(t); });
    return c;
}

Config WrwXdlops::config(const PerfDb* perf_db, const std::string& solver) const {
    if (perf_db)
        if (const auto record = perf_db->find(p_.p, solver))
            if (const auto parsed = parse_record(variant_, *record); parsed && really_valid(*parsed)) return *parsed;
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
    std::string o = fmt::format(
        " -DCK_PARAM_PROBLEM_G={} -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={}"
        " -DCK_PARAM_PROBLEM_HI={} -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={}"
        " -DCK_PARAM_PROBLEM_Y={} -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={}"
        " -DCK_PARAM_PROBLEM_CONV_STRIDE_W={} -DCK_PARAM_PROBLEM_CONV_DILATION_H={}"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_W={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={}"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={}"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}",
        q_.g, q_.n, q_.k, q_.c, q_.hi, q_.wi, q_.ho, q_.wo, q_.y, q_.x, q_.stride_h, q_.stride_w, q_.dilation_h,
        q_.dilation_w, q_.left_pad_h, q_.left_pad_w, q_.right_pad_h, q_.right_pad_w);
    o += fmt::format(
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK={}"
        " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK={} -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE={}"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE={} -DCK_PARAM_TUNABLE_GEMM_KPACK={} -DCK_PARAM_GEMM_K_BLOCK={}"
        " -DCK_PARAM_DEPENDENT_BLOCK_SIZE={} -DCK_PARAM_DEPENDENT_GRID_SIZE={}",
        c.GemmMPerBlock, c.GemmNPerBlock, c.GemmKPerBlock, c.GemmMPerWave, c.GemmNPerWave, c.GemmKPack, s->k_block,
        block_size(c), grid);
    o += fmt::format(
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK={}"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK={}",
        a->cluster_k, a->cluster_mn, a->cluster_kpack, a->src_read, a->dst_write, b->cluster_k, b->cluster_mn,
        b->cluster_kpack, b->src_read, b->dst_write);
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

}  // namespace kdbgen::hip_igemm::wrwx
