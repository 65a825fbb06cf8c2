// ConvAsmBwdWrW1x1: the gfx8/gfx9 1x1 weights-gradient assembly kernel
// (conv1x1wrw.s), with a SubSample OpenCL pre-pass for stride 2. Tunable:
// the perf-db record for the problem if valid, else MIOpen's heuristic.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_dir_BwdWrW1x1.cpp
// (same in rocm-6.2.0, src/solver/conv_asm_dir_BwdWrW1x1.cpp):
//   :50-67    UseSubsample, AsmImgHeight/Width (a WrW problem's "in" is dy)
//   :297-369  IsValidValue / IsValid;  :371-455 HeuristicInit (with the conservative re-init)
//   :475-547  IsApplicable
//   :581-628  the SubSample kernel and its options (+ ctx.general_compile_options)
//   :631-776  the -Wa,-defsym options of the main kernel (GenerateClangDefsym,
//             src/ocl/gcn_asm_utils.cpp:305-310); ROCM_METADATA_VERSION 5 (code object v3+)
//   src/include/miopen/conv/solvers.hpp:2337-2346  perf-db record order; :2357-2363 GetHWPerGpr
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

constexpr int kWaveSize = 64;

struct Config {
    int chunk_size = 1, c_per_gpr = 1, c_mult = 1, k_per_gpr = 1, k_mult = 1, n_per_gpr = 1, n_part_cnt = 1,
        read_size = 1, short_store = 0, data_prefetch = 0;
    int hw_per_gpr() const { return kWaveSize / (c_per_gpr * n_per_gpr * chunk_size); }

    static std::optional<Config> parse(const std::string& text) {
        const auto fields = parse_int_fields<10>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        if (v[1] == 0 || v[5] == 0 || v[0] == 0) return std::nullopt;  // GetHWPerGpr would divide by zero
        return Config{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
    }
};

bool use_subsample(const ConvView& p) { return p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1; }
long img_h(const ConvView& p) { return use_subsample(p) ? p.GetInHeight() : p.GetOutHeight(); }
long img_w(const ConvView& p) { return use_subsample(p) ? p.GetInWidth() : p.GetOutWidth(); }
bool is_1_2_4_8_16(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16; }
bool is_1_2_4(int v) { return v == 1 || v == 2 || v == 4; }
bool gfx8_or_gfx9(const Target& t) {
    const std::string_view n = t.name();
    return n.find("gfx8") != std::string_view::npos || n.find("gfx9") != std::string_view::npos;
}

bool valid(const ConvView& p, const SolverContext& ctx, const Config& c) {
    if (!(is_1_2_4_8_16(c.c_per_gpr) && is_1_2_4_8_16(c.c_mult) && is_1_2_4_8_16(c.k_per_gpr) &&
          is_1_2_4_8_16(c.k_mult) && 1 <= c.read_size && c.read_size <= 4 && is_1_2_4(c.n_per_gpr) &&
          1 <= c.n_part_cnt && c.n_part_cnt <= 8 && is_1_2_4(c.hw_per_gpr()) && is_1_2_4_8_16(c.chunk_size) &&
          (c.short_store == 0 || c.short_store == 1) && 0 <= c.data_prefetch && c.data_prefetch <= 4))
        return false;
    if (!(c.chunk_size * c.c_per_gpr >= 16 && (c.chunk_size == 1 || c.c_per_gpr * c.chunk_size <= 16))) return false;
    if (!(c.k_per_gpr <= c.c_per_gpr)) return false;
    if (c.c_per_gpr * c.n_per_gpr * c.hw_per_gpr() * c.chunk_size != kWaveSize) return false;
    if (p.IsFp16() || p.IsBfp16()) {
        if (c.short_store == 0 && (c.c_mult % 2 != 0 || p.GetOutChannels() % 2 != 0)) return false;
    } else if (c.short_store == 1) {
        return false;
    }
    const int acc_gprs = c.c_mult * c.k_mult * c.k_per_gpr;
    const int bfp16_convert = gfx8_or_gfx9(ctx.target) && p.IsBfp16() ? (c.c_mult + c.k_mult) * c.read_size : 0;
    if (!(acc_gprs + 12 + (c.c_mult + c.k_mult) * c.read_size * (c.data_prefetch + 1) + bfp16_convert <=
          (c.n_part_cnt > 4 ? 128 : 256)))
        return false;
    if (c.n_part_cnt > 1 && !((c.n_part_cnt - 1) * kWaveSize * 4 * acc_gprs <= (1 << 16))) return false;
    return true;
}

Config heuristic(const ConvView& p, const SolverContext& ctx) {
    Config c;
    c.short_store = p.IsFp16() || p.IsBfp16() ? 1 : 0;
    c.data_prefetch = 1;
    const long c_k_256 = p.GetOutChannels() * p.GetInChannels() / 256;
    // {c_per_gpr, c_mult, k_per_gpr, k_mult, n_per_gpr, n_part_cnt, read_size} by C*K/256
    if (c_k_256 < 2) c.c_per_gpr = 1, c.c_mult = 1, c.k_per_gpr = 1, c.k_mult = 1, c.n_per_gpr = 1, c.n_part_cnt = 1, c.read_size = 1;
    else if (c_k_256 < 8) c.c_per_gpr = 1, c.c_mult = 2, c.k_per_gpr = 1, c.k_mult = 2, c.n_per_gpr = 1, c.n_part_cnt = 1, c.read_size = 1;
    else if (c_k_256 < 32) c.c_per_gpr = 2, c.c_mult = 2, c.k_per_gpr = 2, c.k_mult = 2, c.n_per_gpr = 2, c.n_part_cnt = 2, c.read_size = 2;
    else if (c_k_256 < 128) c.c_per_gpr = 2, c.c_mult = 4, c.k_per_gpr = 2, c.k_mult = 4, c.n_per_gpr = 2, c.n_part_cnt = 2, c.read_size = 4;
    else c.c_per_gpr = 2, c.c_mult = 4, c.k_per_gpr = 2, c.k_mult = 4, c.n_per_gpr = 4, c.n_part_cnt = 4, c.read_size = 4;
    c.chunk_size = 16 / c.c_per_gpr;
    if (!valid(p, ctx, c)) {
        c.c_per_gpr = 2, c.chunk_size = 8, c.c_mult = 1, c.k_per_gpr = 2, c.k_mult = 1, c.n_per_gpr = 1, c.n_part_cnt = 1,
        c.read_size = 1, c.data_prefetch = 0;
    }
    return c;
}

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

class ConvAsmBwdWrW1x1 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvAsmBwdWrW1x1"; }
    bool uses_general_options() const override { return true; }  // the SubSample helper copies them

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        if (!gfx8_or_gfx9(ctx.target)) return reject(why, "not gfx8/gfx9");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (ctx.target.name() == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt required");
        const bool ok = p.GetPadW() == 0 && p.GetPadH() == 0 && p.GetKernelStrideW() <= 2 &&
                        p.GetKernelStrideH() <= 2 && p.GetKernelStrideW() == p.GetKernelStrideH() &&
                        p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && p.GetDilationW() == 1 &&
                        p.GetDilationH() == 1 && p.GetBias() == 0 && (p.IsFp32() || p.IsFp16() || p.IsBfp16()) &&
                        p.GetInLayout() == "NCHW" && p.GetGroupCount() == 1;
        if (!ok) return reject(why, "not an unpadded ungrouped 1x1 with stride <= 2");
        const double h_w = static_cast<double>(img_h(p)) * static_cast<double>(img_w(p));
        const double C = static_cast<double>(p.GetOutChannels()), K = static_cast<double>(p.GetInChannels());
        const double N = static_cast<double>(p.GetBatchSize());
        const bool fits = N < std::pow(2, 16) && C < std::pow(2, 16) && K < std::pow(2, 16) && C * h_w < std::pow(2, 24) &&
                          K * h_w < std::pow(2, 24) && N * C * h_w < std::pow(2, 29) && N * K * h_w < std::pow(2, 29) &&
                          C * K < std::pow(2, 29);
        return fits || reject(why, "size limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        Config c = heuristic(p, ctx);
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && valid(p, ctx, *parsed)) c = *parsed;

        std::vector<SolverKernel> out;
        const long long data_len = p.IsFp32() ? 4 : 2;
        if (use_subsample(p)) {
            const long dy_w = p.GetInWidth(), dy_h = p.GetInHeight();
            const long in_batch_stride = dy_w * dy_h * p.GetOutChannels();
            const int write_unit = dy_w % 4 == 0 ? 4 : dy_w % 3 == 0 ? 3 : dy_w % 2 == 0 ? 2 : 1;
            const long x_h = p.GetOutHeight(), x_w = p.GetOutWidth();
            out.push_back({"MIOpenUtilKernels3.cl",
                           {"SubSample"},
                           fmt::format(" -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  -DMLO_GRP0_SZ2=1  -DMLO_FILTER0_STRIDE0={} "
                                       "-DMLO_FILTER0_STRIDE1={} -DMLO_WRITE_UNIT={} -DMLO_OUT_CHANNEL_STRIDE={} "
                                       "-DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={} -DMLO_IN0_BATCH_STRIDE={} "
                                       "-DMLO_IN0_CHANNEL_STRIDE={} -DMLO_IN0_STRIDE={}{}",
                                       p.GetKernelStrideW(), p.GetKernelStrideH(), write_unit, dy_h * dy_w, dy_w,
                                       in_batch_stride, p.GetOutChannels() * x_h * x_w, x_h * x_w, x_w,
                                       ctx.general_options)});
        }
        const long long N = p.GetBatchSize(), C = p.GetOutChannels(), K = p.GetInChannels(), H = img_h(p), W = img_w(p);
        std::string o = defsym("stride_h", 1) + defsym("stride_w", 1) + defsym("img_h", H) + defsym("img_w", W) +
                        defsym("out_h", H) + defsym("out_w", W) + defsym("batch_size", N) +
                        defsym("input_channels", C) + defsym("output_channels", K) + defsym("wei_h", 1) +
                        defsym("wei_w", 1) + defsym("pad_h", 0) + defsym("pad_w", 0) + defsym("weights_layout", 0) +
                        defsym("reverse_weights", 0) + defsym("ROCM_METADATA_VERSION", 5) +
                        defsym("do_not_use_default_perf_params", 1) + defsym("acc_type", 1) +
                        defsym("buf_type", p.IsFp16() ? 2 : p.IsFp32() ? 1 : 3);
        // buff_info (:664-706), all NCHW with vec_c 1: input [N][C][H][W], output [N][K][H][W], filter [K][C][1][1].
        o += defsym("input_n_stride", C * H * W * data_len) + defsym("input_c_stride", H * W * data_len) +
             defsym("input_h_stride", W * data_len) + defsym("input_w_stride", data_len) +
             defsym("output_n_stride", K * H * W * data_len) + defsym("output_k_stride", H * W * data_len) +
             defsym("output_h_stride", W * data_len) + defsym("output_w_stride", data_len) +
             defsym("filter_k_stride", C * data_len) + defsym("filter_c_stride", data_len) +
             defsym("filter_h_stride", data_len) + defsym("filter_w_stride", data_len) +
             defsym("input_buffer_size", N * C * H * W * data_len) + defsym("filter_buffer_size", K * C * data_len) +
             defsym("output_buffer_size", N * K * H * W * data_len);
        o += defsym("short_store", c.short_store) + defsym("chunk_size", c.chunk_size) + defsym("c_per_gpr", c.c_per_gpr) +
             defsym("c_mult", c.c_mult) + defsym("k_per_gpr", c.k_per_gpr) + defsym("k_mult", c.k_mult) +
             defsym("n_per_gpr", c.n_per_gpr) + defsym("n_part_cnt", c.n_part_cnt) +
             defsym("hw_per_gpr", c.hw_per_gpr()) + defsym("read_size", c.read_size) +
             defsym("data_prefetch", c.data_prefetch);
        out.push_back({"conv1x1wrw.s", {"miopenGcnAsmConv1x1WrW"}, o});
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmBwdWrW1x1)

}  // namespace kdbgen
