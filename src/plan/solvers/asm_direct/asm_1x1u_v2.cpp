// ConvAsm1x1UV2: the gfx8/gfx9 FP32 1x1 stride-2 assembly convolution
// (conv1x1u_stride2.s), forward and backward data. Tunable: the perf-db
// record for the problem if valid, else MIOpen's heuristic.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_1x1u_stride2.cpp
// (same in rocm-6.2.0, src/solver/conv_asm_1x1u_stride2.cpp):
//   :95-125   config_helper (backward: stride 1, dilation = the conv stride; gid_hw_size as written)
//   :127-175  buff_info;  :330-403 IsValid;  :405-445 HeuristicInit
//   :460-580  IsApplicable (stride 2 only, FP32)
//   :582-742  the -Wa,-defsym options (GenerateClangDefsym, src/ocl/gcn_asm_utils.cpp:305-310)
//   src/include/miopen/conv/solvers.hpp:279-288  perf-db record order; :301-305 GetNPerGpr
#include "kdbgen/solver.hpp"
#include "../solver_arithmetic.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

struct Config {
    int chunk_size = 16, dwords_per_ld = 1, k_mult = 1, c_mult = 1, n_mult = 1, w_mult = 1, h_mult = 1,
        h_per_chunk = 4, waves_k_in_group = 1, waves_c_in_group = 1;
    int n_per_gpr() const { return 64 / chunk_size; }

    static std::optional<Config> parse(const std::string& text) {
        const auto fields = parse_int_fields<10>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        if (v[0] == 0 || v[7] == 0) return std::nullopt;  // divisors below
        return Config{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
    }
};

bool pow2_to_64(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32 || v == 64; }

struct Geometry {
    long stride_w, stride_h, dilation_w, dilation_h, in_strided_w, in_strided_h, w_per_wave, h_per_wave, gid_hw_size;
    Geometry(const ConvView& p, const Config& c) {
        const bool fwd = p.IsDirectionForward();
        stride_w = fwd ? p.GetKernelStrideW() : 1, stride_h = fwd ? p.GetKernelStrideH() : 1;
        dilation_w = fwd ? 1 : p.GetKernelStrideW(), dilation_h = fwd ? 1 : p.GetKernelStrideH();
        in_strided_w = solvers::integer_divide_ceil<long>(p.GetInWidth(), stride_w), in_strided_h = solvers::integer_divide_ceil<long>(p.GetInHeight(), stride_h);
        w_per_wave = solvers::integer_divide_ceil<long>(c.dwords_per_ld, stride_w) * c.w_mult * (c.chunk_size / c.h_per_chunk);
        h_per_wave = static_cast<long>(c.h_per_chunk) * c.h_mult;
        gid_hw_size = solvers::integer_divide_ceil<long>(in_strided_w, h_per_wave) * solvers::integer_divide_ceil<long>(in_strided_h, w_per_wave);
    }
};

// buff_info's byte stride of one image (NCHW, vec_c 1).
long long image_bytes(long c, long h, long w) { return 4LL * c * h * w; }

bool valid(const ConvView& p, const Config& c) {
    constexpr int elements_in_dword = 1;  // FP32 only
    if (!(pow2_to_64(c.chunk_size) && 1 <= c.dwords_per_ld && c.dwords_per_ld <= 4 && 1 <= c.c_mult &&
          c.c_mult <= 32 && 1 <= c.k_mult && c.k_mult <= 32 && 1 <= c.n_mult && c.n_mult <= 32 && 1 <= c.w_mult &&
          c.w_mult <= 32 && 1 <= c.h_mult && c.h_mult <= 32 && pow2_to_64(c.h_per_chunk) && 1 <= c.waves_k_in_group &&
          c.waves_k_in_group <= 8 && 1 <= c.waves_c_in_group && c.waves_c_in_group <= 8))
        return false;
    if (!(c.waves_c_in_group * c.waves_k_in_group <= 16)) return false;
    if (!(c.waves_c_in_group <= p.GetInChannels())) return false;
    if (!(c.h_per_chunk <= c.chunk_size)) return false;
    if (!(static_cast<long>(c.k_mult) * c.waves_k_in_group <= p.GetOutChannels())) return false;
    const Geometry g(p, c);
    const int active_elements = static_cast<int>(solvers::integer_divide_ceil<long>(c.dwords_per_ld * elements_in_dword, g.stride_w));
    const int in_gprs = c.dwords_per_ld * c.w_mult * c.h_mult * c.c_mult * c.n_mult * 2;
    const int acc_gprs = active_elements * c.w_mult * c.h_mult * c.k_mult * c.n_mult;
    int vgpr_ex = 0;
    constexpr long fp32_divider_limit = 1 << 16;
    if (g.gid_hw_size >= fp32_divider_limit) vgpr_ex++;
    if (g.dilation_w > 1) {
        const int store_buffer_size = c.dwords_per_ld == 1 ? 2 : 4;
        if (in_gprs - 1 < store_buffer_size) vgpr_ex += store_buffer_size - (in_gprs - 1);
    } else if (g.gid_hw_size >= fp32_divider_limit && in_gprs < 2) {
        vgpr_ex++;
    }
    const int vgprs = 5 + in_gprs + acc_gprs + vgpr_ex + 1;
    if (!(vgprs < 256)) return false;
    if (!((256 / vgprs) * 4 >= c.waves_c_in_group * c.waves_k_in_group)) return false;
    if (!(25 + 2 * c.k_mult * c.c_mult < 102)) return false;
    if (!(c.n_mult <= (p.GetBatchSize() + c.n_per_gpr() - 1) / c.n_per_gpr())) return false;
    const long c_per_wave = (p.GetInChannels() + c.waves_c_in_group - 1) / c.waves_c_in_group;
    const long c_per_last_wave = p.GetInChannels() - c_per_wave * (c.waves_c_in_group - 1);
    if (p.IsDirectionBackwardData() && p.GetOutChannels() % c.k_mult != 0) return false;
    const long n_miss = static_cast<long>(c.n_mult) * c.n_per_gpr() - 1;
    if ((p.GetInChannels() + n_miss) * image_bytes(p.GetInChannels(), p.GetInHeight(), p.GetInWidth()) >= (1LL << 31) ||
        (p.GetOutChannels() + n_miss) * image_bytes(p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()) >= (1LL << 31))
        return false;
    return c_per_wave % c.c_mult == 0 && c_per_last_wave % c.c_mult == 0;
}

Config heuristic(const ConvView& p) {
    const long c_check = p.IsDirectionForward() ? p.GetInChannels() : 0;
    const long k_check = p.IsDirectionForward() ? 0 : p.GetInChannels();
    Config c;
    c.c_mult = c_check % 2 == 0 ? 2 : c_check % 3 == 0 ? 3 : 1;
    c.k_mult = k_check % 8 == 0 ? 8 : k_check % 4 == 0 ? 4 : k_check % 3 == 0 ? 3 : 1;
    if (!valid(p, c)) c.h_per_chunk = c.chunk_size;
    if (!valid(p, c)) c.c_mult = 1, c.k_mult = 1;
    if (!valid(p, c)) c.h_per_chunk = 1;
    return c;
}

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

class ConvAsm1x1UV2 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvAsm1x1UV2"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!(p.IsDirectionForward() || p.IsDirectionBackwardData())) return reject(why, "WrW");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!p.IsFp32() || p.IsTensorsCasted()) return reject(why, "FP32 only");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        if (name.find("gfx8") == std::string_view::npos && name.find("gfx9") == std::string_view::npos)
            return reject(why, "not gfx8/gfx9");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        const bool shape = p.GetPadW() == 0 && p.GetPadH() == 0 && p.GetWeightsWidth() == 1 &&
                           p.GetWeightsHeight() == 1 && p.GetKernelStrideW() == 2 &&
                           p.GetKernelStrideW() == p.GetKernelStrideH() && p.GetDilationW() == 1 &&
                           p.GetDilationH() == 1 && p.GetBias() == 0 && p.GetInLayout() == "NCHW" &&
                           p.GetGroupCount() == 1 && p.GetOutHeight() * p.GetOutWidth() >= 1;
        if (!shape) return reject(why, "not an unpadded ungrouped 1x1 with stride 2");
        const double h_w = static_cast<double>(p.GetInHeight() * p.GetInWidth());
        const double C = static_cast<double>(p.GetInChannels()), K = static_cast<double>(p.GetOutChannels());
        const double N = static_cast<double>(p.GetBatchSize());
        if (!(N < std::pow(2, 16) && C < std::pow(2, 16) && K < std::pow(2, 16) && C * h_w < std::pow(2, 24) &&
              K * h_w < std::pow(2, 24) && N * C * h_w < std::pow(2, 29) && N * K * h_w < std::pow(2, 29) &&
              C * K < std::pow(2, 29)))
            return reject(why, "size limits");
        const long n_miss = 1 * (64 / 16) - 1;
        if ((p.GetInChannels() + n_miss) * image_bytes(p.GetInChannels(), p.GetInHeight(), p.GetInWidth()) >= (1LL << 31) ||
            (p.GetOutChannels() + n_miss) * image_bytes(p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()) >=
                (1LL << 31))
            return reject(why, "buffer offsets exceed 2 GiB");
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        Config c = heuristic(p);
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && valid(p, *parsed)) c = *parsed;
        const Geometry g(p, c);
        constexpr long long data_len = 4;
        const long long N = p.GetBatchSize(), C = p.GetInChannels(), K = p.GetOutChannels();
        const long long in_h = p.GetInHeight(), in_w = p.GetInWidth(), out_h = p.GetOutHeight(), out_w = p.GetOutWidth();
        // buff_info: NCHW images; the filter NCHW forward ([K][C]), CNHW backward.
        const long long f_k = p.IsDirectionForward() ? C : 1, f_c = p.IsDirectionForward() ? 1 : K;
        std::string o = defsym("stride_h", g.stride_h) + defsym("stride_w", g.stride_w) +
                        defsym("idilation_h", g.dilation_h) + defsym("idilation_w", g.dilation_w) +
                        defsym("img_h", in_h) + defsym("img_w", in_w) + defsym("out_h", out_h) + defsym("out_w", out_w) +
                        defsym("batch_size", N) + defsym("input_channels", C) + defsym("output_channels", K) +
                        defsym("wei_h", 1) + defsym("wei_w", 1) + defsym("pad_h", 0) + defsym("pad_w", 0) +
                        defsym("weights_layout", p.IsDirectionForward() ? 0 : 1) + defsym("vec_c_in", 1) +
                        defsym("vec_k_out", 1) + defsym("vec_c_filter", 1) + defsym("acc_type", 1) +
                        defsym("buf_type", 1);
        o += defsym("input_n_stride", C * in_h * in_w * data_len) + defsym("input_c_stride", in_h * in_w * data_len) +
             defsym("input_h_stride", in_w * data_len) + defsym("input_w_stride", data_len) +
             defsym("output_n_stride", K * out_h * out_w * data_len) +
             defsym("output_k_stride", out_h * out_w * data_len) + defsym("output_h_stride", out_w * data_len) +
             defsym("output_w_stride", data_len) + defsym("filter_k_stride", f_k * data_len) +
             defsym("filter_c_stride", f_c * data_len) + defsym("filter_h_stride", data_len) +
             defsym("filter_w_stride", data_len) + defsym("input_buffer_size", N * C * in_h * in_w * data_len) +
             defsym("filter_buffer_size", K * C * data_len) +
             defsym("output_buffer_size", N * K * out_h * out_w * data_len) + defsym("ROCM_METADATA_VERSION", 5);
        o += defsym("chunk_size", c.chunk_size) + defsym("dwords_per_ld", c.dwords_per_ld) + defsym("k_mult", c.k_mult) +
             defsym("c_mult", c.c_mult) + defsym("n_mult", c.n_mult) + defsym("w_mult", c.w_mult) +
             defsym("h_mult", c.h_mult) + defsym("h_per_chunk", c.h_per_chunk) +
             defsym("waves_k_in_group", c.waves_k_in_group) + defsym("waves_c_in_group", c.waves_c_in_group);
        return {{"conv1x1u_stride2.s", {"miopenGcnAsmConv1x1U_stride2"}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm1x1UV2)

}  // namespace kdbgen
