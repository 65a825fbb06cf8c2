#include "hip_igemm_bwdx_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <numeric>

#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

namespace kdbgen::hip_igemm::bwdx {

BwdDataProblem interpret(const ConvView& p) {
    BwdDataProblem q{};
    q.g = p.GetGroupCount();
    q.n = p.GetBatchSize();
    q.k = p.GetInChannels();                          // dy's channels (GetOutputChannelK, :60-66)
    q.c = p.GetOutChannels();                         // dx's channels (GetInputChannelC, :76-82)
    q.hi = p.GetOutHeight(), q.wi = p.GetOutWidth();  // dx (:92-106)
    q.ho = p.GetInHeight(), q.wo = p.GetInWidth();    // dy (:124-138)
    q.y = p.GetWeightsHeight(), q.x = p.GetWeightsWidth();
    q.stride_h = q.ho > 1 ? p.GetKernelStrideH() : 1;  // :185-194
    q.stride_w = q.wo > 1 ? p.GetKernelStrideW() : 1;
    q.dilation_h = q.y > 1 ? p.GetDilationH() : 1;  // :203-212
    q.dilation_w = q.x > 1 ? p.GetDilationW() : 1;
    q.left_pad_h = p.GetPadH(), q.left_pad_w = p.GetPadW();
    const long hi_padded = 1 + (q.y - 1) * q.dilation_h + (q.ho - 1) * q.stride_h;
    const long wi_padded = 1 + (q.x - 1) * q.dilation_w + (q.wo - 1) * q.stride_w;
    q.right_pad_h = hi_padded > q.left_pad_h + q.hi ? hi_padded - (q.left_pad_h + q.hi) : 0;
    q.right_pad_w = wi_padded > q.left_pad_w + q.wi ? wi_padded - (q.left_pad_w + q.wi) : 0;
    return q;
}

std::string problem_defines(const BwdDataProblem& q) {
    return fmt::format(
        " -DCK_PARAM_PROBLEM_N={} -DCK_PARAM_PROBLEM_K={} -DCK_PARAM_PROBLEM_C={} -DCK_PARAM_PROBLEM_HI={}"
        " -DCK_PARAM_PROBLEM_WI={} -DCK_PARAM_PROBLEM_HO={} -DCK_PARAM_PROBLEM_WO={} -DCK_PARAM_PROBLEM_Y={}"
        " -DCK_PARAM_PROBLEM_X={} -DCK_PARAM_PROBLEM_CONV_STRIDE_H={} -DCK_PARAM_PROBLEM_CONV_STRIDE_W={}"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_H={} -DCK_PARAM_PROBLEM_CONV_DILATION_W={}"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H={} -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W={}"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H={} -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W={}",
        q.n, q.k, q.c, q.hi, q.wi, q.ho, q.wo, q.y, q.x, q.stride_h, q.stride_w, q.dilation_h, q.dilation_w,
        q.left_pad_h, q.left_pad_w, q.right_pad_h, q.right_pad_w);
}

int int_product(long a, long b) {
    return static_cast<int>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

bool grid_not_too_large(long gemm_m, long gemm_n, int m_per_block, int n_per_block, unsigned compute_units) {
    const int grid_size = int_product(gemm_m, gemm_n) / (m_per_block * n_per_block);
    const long max_blockwise =
        std::max(std::gcd(256L, gemm_m) * std::gcd(128L, gemm_n), std::gcd(128L, gemm_m) * std::gcd(256L, gemm_n));
    const std::size_t grid_max =
        static_cast<std::size_t>(gemm_m) * static_cast<std::size_t>(gemm_n) / static_cast<std::size_t>(max_blockwise);
    const float ratio = static_cast<float>(grid_size) / static_cast<float>(grid_max);
    const std::size_t cu = compute_units;
    // MIOpen compares the float ratio with double literals.
    if (grid_max > 5 * cu) return !(ratio > 2.81);
    if (grid_max > 4 * cu) return !(ratio > 3.61);
    if (grid_max > 3 * cu) return !(ratio > 4.41);
    if (grid_max > 2 * cu) return !(ratio > 6.41);
    if (grid_max > cu) return !(ratio > 12.41);
    return true;
}

bool previous_two_power(int& v, int lo, int hi) {
    if (v == lo) {
        v = hi;
        return true;
    }
    v /= 2;
    return false;
}

bool two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }

int parse_int_field(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    // Digits as far as they go; past the int range num_get stores the nearest limit.
    constexpr long long limit = INT_MAX + 1LL;
    long long value = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
        value = std::min(limit + 1, value * 10 + (text[i] - '0'));
    if (negative) return value >= limit ? INT_MIN : static_cast<int>(-value);
    return value > INT_MAX ? INT_MAX : static_cast<int>(value);
}

bool parse_bool_field(const std::string& text) {
    // `stream >> bool` (noboolalpha) reads a number: 1 is true, 0 false, anything else false (failbit).
    return parse_int_field(text) == 1;
}

std::optional<std::vector<std::string>> record_fields(const std::string& text, std::size_t n) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (out.size() < n) {
        if (start >= text.size()) return std::nullopt;  // getline extracts nothing: failbit
        const auto comma = text.find(',', start);
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        out.push_back(text.substr(start, end - start));
        start = comma == std::string::npos ? text.size() : comma + 1;
    }
    return out;
}

std::optional<std::string> perf_db_record(const ConvView& p, const SolverContext& ctx, std::string_view solver) {
    if (!ctx.perf_db) return std::nullopt;
    return ctx.perf_db->find(p.p, std::string(solver));
}

DataType data_type_of(const ConvView& p) {
    return p.IsFp16() ? DataType::Half : p.IsBfp16() ? DataType::BFloat16 : DataType::Float;
}

long dx_elements(const ConvView& p) {
    long out = p.GetBatchSize() * p.GetOutChannels();
    for (const long d : p.p.out_spatial) out *= d;
    return out;
}

bool needs_atomic_add(const ConvView& p) {
    for (std::size_t i = 0; i < p.p.strides.size(); ++i)
        if (p.p.strides[i] < p.p.dilations[i] * (p.p.weights_spatial[i] - 1) + 1) return true;
    return false;
}

bool every_pixel_is_written(const ConvView& p) {
    for (std::size_t i = 0; i < p.p.strides.size(); ++i)
        if (!(p.p.dilations[i] == 1 && p.p.strides[i] <= p.p.weights_spatial[i])) return false;
    return true;
}

}  // namespace kdbgen::hip_igemm::bwdx
