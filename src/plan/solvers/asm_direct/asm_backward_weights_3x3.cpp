// ConvAsmBwdWrW3x3: the gfx8/gfx9 3x3, pad 1 weights-gradient assembly
// kernel (conv3x3wrw.s). Tunable: the perf-db record for the problem if
// valid, else MIOpen's heuristic.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_dir_BwdWrW3x3.cpp
// (same in rocm-6.2.0, src/solver/conv_asm_dir_BwdWrW3x3.cpp):
//   :40-42    WORKAROUND_ISSUE_532 (gfx9: stride 1 only), WORKAROUND_SWDEV_330460 (not FP32 on gfx90a)
//   :117-120  IsReverseInOutAllowed;  :124-259 IsValid (VGPR, LDS and code-size budgets)
//   :261-345  HeuristicInit;  :364-485 IsApplicable
//   :487-545  the -Wa,-defsym options (GenerateClangDefsym, src/ocl/gcn_asm_utils.cpp:305-310)
//   src/include/miopen/conv/solvers.hpp:2205-2210  perf-db record order; :2219-2223 GetCPerWave
// A WrW problem's "in" is dy (K channels) and its "out" is x (C channels, the image).
#include "kdbgen/solver.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

struct Config {
    int limit_wave_cnt = 0, reverse_inout = 0, chunk_size = 16, k_per_wave = 1, pipe_lines_depth = 2, n_per_group = 1;
    int c_per_wave() const { return 64 / chunk_size; }

    static std::optional<Config> parse(const std::string& text) {
        const auto fields = parse_int_fields<6>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        if (v[2] == 0) return std::nullopt;  // GetCPerWave divides by it
        return Config{v[0], v[1], v[2], v[3], v[4], v[5]};
    }
};

bool is_1_2_4_8(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }
bool reverse_allowed(const ConvView& p) { return p.GetKernelStrideW() == 1 && p.GetKernelStrideH() == 1; }
int dwords(const ConvView& p) { return p.IsFp16() ? 2 : 1; }

bool valid(const ConvView& p, const SolverContext& ctx, const Config& c) {
    if (!(0 <= c.limit_wave_cnt && c.limit_wave_cnt <= 9 && 0 <= c.reverse_inout && c.reverse_inout <= 1 &&
          (c.chunk_size == 8 || c.chunk_size == 16) && is_1_2_4_8(c.k_per_wave) && 1 <= c.pipe_lines_depth &&
          c.pipe_lines_depth <= 16 && 1 <= c.n_per_group && c.n_per_group <= 8))
        return false;
    const long C = p.GetOutChannels(), K = p.GetInChannels(), groups = p.GetGroupCount();
    const long c_x_groups = static_cast<long>(c.c_per_wave()) * groups, k_x_groups = static_cast<long>(c.k_per_wave) * groups;
    if (c.reverse_inout == 0 ? (C % c_x_groups != 0 || K % k_x_groups != 0) : (C % k_x_groups != 0 || K % c_x_groups != 0))
        return false;
    if (C % (64 / c.chunk_size) != 0 && K % (64 / c.chunk_size) != 0) return false;
    if ((c.reverse_inout != 0 ? K : C) % c.c_per_wave() != 0) return false;
    if (!(c.chunk_size * c.k_per_wave <= 64)) return false;
    if ((c.reverse_inout != 0 ? C : K) % c.k_per_wave != 0) return false;
    if (!(c.n_per_group <= p.GetBatchSize())) return false;
    if (!(c.pipe_lines_depth <= std::min<long>(p.GetOutHeight(), 16))) return false;
    if (c.reverse_inout != 0 && !reverse_allowed(p)) return false;

    const int e = dwords(p);
    const int fx = static_cast<int>(p.GetWeightsWidth()), fy = static_cast<int>(p.GetWeightsHeight());
    const int stride_w = static_cast<int>(p.GetKernelStrideW()), stride_h = static_cast<int>(p.GetKernelStrideH());
    const int accums = (fx * fy * c.c_per_wave() * c.k_per_wave * c.chunk_size) / 64;
    const int out_w_vec = (static_cast<int>(p.GetOutWidth()) + e - 1) / e;
    int gprs_in = (out_w_vec + c.chunk_size - 1) / c.chunk_size;
    if (c.chunk_size != 16) {
        const int pad_w = static_cast<int>(p.GetPadW());
        gprs_in = (out_w_vec + c.chunk_size - pad_w - 1) / (c.chunk_size - pad_w);
    }
    gprs_in += gprs_in % stride_w;
    const int gprs_out = gprs_in > 1 ? gprs_in / stride_w : 1;
    const int vgprs_in = (c.pipe_lines_depth + fy - 1) * e * gprs_in;
    const int vgprs_out = (c.pipe_lines_depth + stride_h - 1) / stride_h * e * gprs_out;
    const int vgprs_division = (vgprs_in >= 4 ? 0 : 4) + (vgprs_out >= 3 ? 0 : 3);
    const long k_group_size = K / (c.reverse_inout != 0 ? c.c_per_wave() : c.k_per_wave) / groups;
    const bool pow2 = (k_group_size & (k_group_size - 1)) == 0;
    const int vgprs = accums + vgprs_in + vgprs_out + (pow2 ? 0 : vgprs_division) + 6 + (e - 1);
    if (!(vgprs <= 256)) return false;
    if (c.n_per_group > 4 && !(vgprs <= 128)) return false;
    if (c.limit_wave_cnt != 0 && c.limit_wave_cnt * 4 < c.n_per_group) return false;
    if (!(static_cast<long>(c.n_per_group - 1) * 64 * 4 * accums <= 65536)) return false;
    const int unroll = c.pipe_lines_depth * (c.pipe_lines_depth + 2);
    const int steps = std::max(0, static_cast<int>(p.GetOutHeight()) - 1 - c.pipe_lines_depth);
    const int loops = c.pipe_lines_depth + unroll + steps % unroll + 1;
    const int m_instr = 3 + (gprs_in + 3) / 4;
    const std::string_view name = ctx.target.name();
    const bool dot2_emulate = !(name == "gfx906" || name == "gfx908") && e == 2;
    const int v_instr = (c.k_per_wave * fy * gprs_out * fx * 4 * (dot2_emulate ? 2 : 1)) / 3 * e;
    const int exch_instr = e == 2 ? 3 * m_instr : 0;
    return loops * (m_instr + v_instr + exch_instr) * e < 32000;
}

Config heuristic(const ConvView& p, const SolverContext& ctx) {
    const long C = p.GetOutChannels(), K = p.GetInChannels();
    Config c;
    c.chunk_size = p.GetOutWidth() < 48 ? 8 : 16;
    if (C % (64 / c.chunk_size) != 0 && K % (64 / c.chunk_size) != 0) c.chunk_size = 16;
    c.reverse_inout = reverse_allowed(p) && (C % 4 != 0 || p.GetOutWidth() < 8) ? 1 : 0;
    const long c_k = C * K / p.GetGroupCount();
    c.k_per_wave = c_k < 256 ? 1 : c_k < 16384 ? 2 : (c.chunk_size == 8 ? 2 : 4);
    while ((c.reverse_inout != 0 ? C : K) % c.k_per_wave != 0) c.k_per_wave /= 2;
    c.n_per_group = c_k <= 512 ? 8 : c_k <= 4096 ? 4 : c_k <= 8192 ? 2 : 1;
    if (c.n_per_group > p.GetBatchSize()) c.n_per_group = static_cast<int>(p.GetBatchSize());
    if (p.GetOutWidth() >= 256 && c.n_per_group > 4) c.n_per_group = 4;
    c.pipe_lines_depth = p.GetOutHeight() <= 1 ? 1 : 2;
    if (p.GetOutHeight() < 8 && p.GetOutWidth() < 64) c.pipe_lines_depth = static_cast<int>(p.GetOutHeight());
    if (!valid(p, ctx, c)) {
        c = Config{};
        if (C % (4 * p.GetGroupCount()) != 0) c.reverse_inout = 1;
        if (!valid(p, ctx, c)) c.pipe_lines_depth = 1;
    }
    return c;
}

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

class ConvAsmBwdWrW3x3 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvAsmBwdWrW3x3"; }
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        if (ctx.target.name() == "gfx90a" && p.IsFp32())
            return "WORKAROUND_SWDEV_330460: FP32 off on gfx90a unless MIOPEN_DEBUG_CONV_DIRECT_ASM_WRW3X3=1 "
                   "(conv_asm_dir_BwdWrW3x3.cpp:42, :432-435)";
        return DeprecatedSolver::disabled_by_default(p, ctx);
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        const std::string_view name = ctx.target.name();
        if (!(name.starts_with("gfx8") || name.starts_with("gfx9"))) return reject(why, "not gfx8/gfx9");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (name.starts_with("gfx9") && (p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1))
            return reject(why, "stride 2 on gfx9 (WORKAROUND_ISSUE_532)");
        if (name == "gfx90a" && p.IsGfx90aFp16altRequired()) return reject(why, "gfx90a FP16-alt required");
        if (name == "gfx90a" && p.IsFp32()) return reject(why, "FP32 on gfx90a (WORKAROUND_SWDEV_330460)");
        const bool shape = p.GetPadW() == 1 && p.GetPadH() == 1 && p.GetKernelStrideW() <= 2 &&
                           p.GetKernelStrideH() <= 2 && p.GetWeightsWidth() == 3 && p.GetWeightsHeight() == 3 &&
                           p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetBias() == 0 &&
                           (p.IsFp32() || p.IsFp16()) && p.GetInLayout() == "NCHW";
        if (!shape) return reject(why, "not a 3x3 pad-1 FP32/FP16 problem");
        if (p.IsFp16() && (name.starts_with("gfx8") || p.GetBatchSize() % 2 != 0))
            return reject(why, "FP16 needs gfx9 and an even batch");
        const double C = static_cast<double>(p.GetOutChannels()), K = static_cast<double>(p.GetInChannels());
        const double N = static_cast<double>(p.GetBatchSize());
        const double h_w = static_cast<double>(p.GetOutHeight() * p.GetOutWidth()), r_s = 9;
        const long groups4 = 4 * p.GetGroupCount();
        const bool channels = reverse_allowed(p) ? (p.GetOutChannels() % groups4 == 0 || p.GetInChannels() % groups4 == 0)
                                                 : p.GetOutChannels() % groups4 == 0;
        const bool limits = p.GetOutWidth() > 0 && p.GetOutWidth() <= 512 && channels &&
                            p.GetOutHeight() < std::pow(2, 16) && N < std::pow(2, 16) && C < std::pow(2, 16) &&
                            K < std::pow(2, 16) && C * h_w < std::pow(2, 22) && K * h_w < std::pow(2, 22) &&
                            C * r_s < std::pow(2, 22) && K * r_s < std::pow(2, 22) && N * C * h_w < std::pow(2, 29) &&
                            N * K * h_w < std::pow(2, 29) && C * K * r_s < std::pow(2, 29);
        return limits || reject(why, "size limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        Config c = heuristic(p, ctx);
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && valid(p, ctx, *parsed)) c = *parsed;
        const long k_group_size =
            p.GetInChannels() / (c.reverse_inout != 0 ? c.c_per_wave() : c.k_per_wave) / p.GetGroupCount();
        const std::string o =
            defsym("elements_in_dword", dwords(p)) + defsym("batch_size", p.GetBatchSize()) +
            defsym("img_h", p.GetOutHeight()) + defsym("img_w", p.GetOutWidth()) +
            defsym("input_channels", p.GetOutChannels()) + defsym("output_channels", p.GetInChannels()) +
            defsym("wei_h", p.GetWeightsHeight()) + defsym("wei_w", p.GetWeightsWidth()) + defsym("pad_h", p.GetPadH()) +
            defsym("pad_w", p.GetPadW()) + defsym("stride_h", p.GetKernelStrideH()) +
            defsym("stride_w", p.GetKernelStrideW()) + defsym("weights_layout", 0) + defsym("reverse_weights", 0) +
            defsym("ROCM_METADATA_VERSION", 5) + defsym("limit_wave_cnt", c.limit_wave_cnt) +
            defsym("chunk_size", c.chunk_size) + defsym("c_per_wave", c.c_per_wave()) +
            defsym("k_per_wave", c.k_per_wave) + defsym("n_per_group", c.n_per_group) +
            defsym("pipe_lines_depth", c.pipe_lines_depth) + defsym("reverse_inout", c.reverse_inout) +
            defsym("enable_debug_output", 0) + defsym("group_counts", p.GetGroupCount()) +
            defsym("k_group_size_is_power_of_two", (k_group_size & (k_group_size - 1)) == 0 ? 1 : 0);
        return {{"conv3x3wrw.s", {"miopenGcnAsmConv3x3WrW"}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmBwdWrW3x3)

}  // namespace kdbgen
