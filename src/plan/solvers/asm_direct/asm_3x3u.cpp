// ConvAsm3x3U: the gfx8/gfx90x FP32 3x3, pad 1, stride 1 assembly
// convolution (conv3x3.s), forward and backward data. Tunable: the perf-db
// record for the problem if valid, else MIOpen's heuristic.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_3x3u.cpp
// (same in rocm-6.2.0, src/solver/conv_asm_3x3u.cpp):
//   :54-61    field ranges (limit_wave_cnt 0..9, filters_per_wave 1..8, output_lines_per_wave 1..8)
//   :83-139   IsValid (VGPR budget);  :141-155 HeuristicInit
//   :174-247  IsApplicable
//   :276-301  the options, KernelBuildParameters::GenerateFor(GcnAsm) (src/kernel_build_params.cpp:36-82)
//   src/include/miopen/conv/solvers.hpp:90-110  perf-db record order
#include "kdbgen/solver.hpp"

namespace kdbgen {

namespace {

struct Config {
    int limit_wave_cnt = 0, filters_per_wave = 2, output_lines_per_wave = 2;

    static std::optional<Config> parse(const std::string& text) {
        const auto fields = parse_int_fields<3>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        return Config{v[0], v[1], v[2]};
    }
};

bool k_group_size_is_power_of_two(const ConvView& p) {
    const long k = p.GetOutChannels() / p.GetGroupCount();
    return (k & (k - 1)) == 0;
}

bool valid(const ConvView& p, const Config& c) {
    if (!(0 <= c.limit_wave_cnt && c.limit_wave_cnt <= 9 && 1 <= c.filters_per_wave && c.filters_per_wave <= 8 &&
          1 <= c.output_lines_per_wave && c.output_lines_per_wave <= 8))
        return false;
    const bool uneven_outputs = p.GetOutChannels() % c.filters_per_wave != 0;
    const long num_wavefronts = p.GetOutChannels() / c.filters_per_wave;
    if (p.GetGroupCount() > 1 && (uneven_outputs || num_wavefronts % p.GetGroupCount() != 0)) return false;
    const int width = static_cast<int>(p.GetInWidth()), height = static_cast<int>(p.GetInHeight());
    int n = height != c.output_lines_per_wave ? 1 : 0;
    const int w64_chunks = (width + 63) / 64;
    if (w64_chunks == 0) return false;
    const int active_lanes = (width + w64_chunks - 1) / w64_chunks;
    if (active_lanes == 0) return false;
    if (width % active_lanes != 0) ++n;
    const int gprs_per_input_line = (width + active_lanes - 1) / active_lanes;
    const int input_lines_per_wave = height == c.output_lines_per_wave ? c.output_lines_per_wave : c.output_lines_per_wave + 2;
    const int lines = gprs_per_input_line * input_lines_per_wave;
    const bool pow2 = k_group_size_is_power_of_two(p);
    n += (pow2 || lines >= 4) ? lines : 4;  // linesA
    n += (pow2 || lines >= 3) ? lines : 3;  // linesB
    n += 2;
    n += gprs_per_input_line * c.filters_per_wave * c.output_lines_per_wave;
    return n < 256;
}

class ConvAsm3x3U : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvAsm3x3U"; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!(p.IsDirectionForward() || p.IsDirectionBackwardData())) return reject(why, "WrW");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        const std::string_view name = ctx.target.name();
        if (!(name.starts_with("gfx8") || name.starts_with("gfx90"))) return reject(why, "not gfx8/gfx90x");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        constexpr long long GiB = 1024LL * 1024 * 1024, TiB = GiB * 1024, elem = 4;
        constexpr long long index_max = 0xffffffffLL;
        const long long in_features = p.GetBatchSize() * p.GetInChannels();
        const long long out_features = p.GetBatchSize() * p.GetOutChannels();
        const long long in_img = elem * p.GetInHeight() * p.GetInWidth();
        const long long out_img = elem * p.GetOutHeight() * p.GetOutWidth();
        const long long wei = elem * p.GetInChannels() * p.GetOutChannels() * p.GetWeightsHeight() * p.GetWeightsWidth();
        const bool ok = p.GetPadW() == 1 && p.GetPadH() == 1 && p.GetKernelStrideW() == 1 &&
                        p.GetKernelStrideH() == 1 && p.GetDilationW() == 1 && p.GetDilationH() == 1 &&
                        p.GetWeightsWidth() == 3 && p.GetWeightsHeight() == 3 && p.GetInChannels() > 0 &&
                        (p.GetInChannels() / p.GetGroupCount()) % 4 == 0 && p.GetInWidth() > 3 &&
                        p.GetInWidth() <= 1000 && in_img <= GiB && out_img <= 4 * GiB && in_features - 1 <= index_max &&
                        out_features - 1 <= index_max && in_img * in_features <= 256 * TiB &&
                        out_img * out_features <= 256 * TiB && wei <= 4 * GiB && p.IsFp32() &&
                        p.GetInLayout() == "NCHW";
        return ok || reject(why, "not an FP32 3x3 pad-1 stride-1 problem within the shader's limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        Config c;
        if (p.GetOutChannels() % (static_cast<long>(c.filters_per_wave) * p.GetGroupCount()) != 0) c.filters_per_wave = 1;
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && valid(p, *parsed)) c = *parsed;
        const long w64_chunks = (p.GetInWidth() + 63) / 64;
        const long active_lanes = (p.GetInWidth() + w64_chunks - 1) / w64_chunks;
        const auto s = [](auto v) { return std::to_string(v); };
        const std::string options = generate_defines(
            {{"batch_size", s(p.GetBatchSize())},
             {"img_width", s(p.GetInWidth())},
             {"img_height", s(p.GetInHeight())},
             {"input_channels", s(p.GetInChannels())},
             {"output_channels", s(p.GetOutChannels())},
             {"weights_layout", p.IsDirectionForward() ? "0" : "1"},
             {"reverse_weights", p.IsDirectionForward() ? "0" : "1"},
             {"ROCM_METADATA_VERSION", "5"},
             {"limit_wave_cnt", s(c.limit_wave_cnt)},
             {"filters_per_wave", s(c.filters_per_wave)},
             {"output_lines_per_wave", s(c.output_lines_per_wave)},
             {"group_counts", s(p.GetGroupCount())},
             {"k_group_size_is_power_of_two", k_group_size_is_power_of_two(p) ? "1" : "0"},
             {"workgroup_size_x", s(active_lanes)}},
            "Wa,-defsym,");
        return {{"conv3x3.s", {"miopenGcnAsmConv3x3U"}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm3x3U)

}  // namespace kdbgen
