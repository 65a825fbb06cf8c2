// ConvAsm1x1U: the 1x1 assembly convolution of gfx9 (conv1x1u.s), forward and
// backward data, with a SubSample/UpSample OpenCL helper for stride 2.
// Tunable: the perf-db record for the problem if valid, else the default
// (HeuristicInit): on gfx908 with stride 1 MIOpen's kernel-tuning net
// (MIOPEN_ENABLE_AI_KERNEL_TUNING, on by default: CMakeLists.txt:97), whose
// frugally-deep models kdbgen evaluates itself (kdbgen/tuning_model.hpp);
// when the net gives up, or elsewhere (gfx90a too), the static heuristic.
//
// LLVM 15+ misreads conv_common.inc's s_wait macro under .altmacro; the
// compiler driver's assembler compatibility overlay (src/compile/asm_compat.cpp)
// makes conv1x1u.s assemble with Debian's LLVM 19.
//
// MIOpen 3.3.0, src/solver/conv/conv_asm_1x1u.cpp:
//   :56-80    UseSubsample / UseUpsample / AsmImgHeight / AsmImgWidth
//   :250-369  IsValidValueImpl / IsValidImpl(problem, sequence_length): the first n fields checked
//   :372-391  ModelApplyToken: the i-th decoded value sets field i, then IsPartiallyValid(i + 1)
//   :393-409  TransformFeatures: the net's 8x8 input
//   :411-427  RunParameterPredictionModel: ModelSetParams(arch, "ConvAsm1x1U", direction, features, true, ...)
//   :430-474  StaticHeuristic;  :476-486 IsModelApplicable (device name "gfx908", stride H 1)
//   :488-503  HeuristicInit: the net first, the static heuristic when it fails
//   :522-622  IsApplicable
//   :645-912  GetSolution: the SubSample/UpSample kernel (MIOpenUtilKernels3.cl) and the main kernel's -Wa,-defsym
//   options (GenerateClangDefsym, src/ocl/gcn_asm_utils.cpp:305-310)
//   src/include/miopen/conv/solvers.hpp:141-220  perf-db record order, GetNPerGpr = 64 / chunk_size,
//   IsPartiallyValid = IsValidImpl(problem, n)
#include "kdbgen/error.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/tuning_model.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>

namespace kdbgen {

namespace {

struct Config {
    int read_size = 1, k_mult = 1, chunks_per_wave = 1, chunk_size = 1, n_mult = 1, c_mult = 1, waves_c_in_group = 1,
        waves_k_in_group = 1;
    int n_per_gpr() const { return 64 / chunk_size; }
};

bool is_linear(int v, int lo, int hi) { return lo <= v && v <= hi; }
bool is_two_power(int v, int lo, int hi) { return v > 0 && ((v - 1) & v) == 0 && lo <= v && v <= hi; }
bool is_1_4_8_12_to_32(int v) { return v == 1 || (v % 4 == 0 && is_linear(v / 4, 1, 8)); }

bool use_subsample(const ConvView& p) {
    return (p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1) && p.IsDirectionForward();
}
bool use_upsample(const ConvView& p) {
    return (p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1) && p.IsDirectionBackwardData();
}
long img_h(const ConvView& p) { return use_subsample(p) ? p.GetOutHeight() : p.GetInHeight(); }
long img_w(const ConvView& p) { return use_subsample(p) ? p.GetOutWidth() : p.GetInWidth(); }
int type_size(const ConvView& p) { return p.IsFp32() ? 4 : 2; }

// IsValidImpl(problem, n) (:295-369): only the first n fields (in record order) are checked, so
// that the tuning net can validate each value as it decodes it.
bool valid(const ConvView& p, const Config& c, int n = 8) {
    const int elements_in_dword = 4 / type_size(p);
    const unsigned img_hw = static_cast<unsigned>(p.GetOutHeight() * p.GetOutWidth());
    const bool value_ok[8] = {is_linear(c.read_size, 1, 4),         is_1_4_8_12_to_32(c.k_mult),
                              is_linear(c.chunks_per_wave, 1, 16),  is_two_power(c.chunk_size, 1, 64),
                              is_linear(c.n_mult, 1, 8),            is_two_power(c.c_mult, 1, 32),
                              is_linear(c.waves_c_in_group, 1, 8),  is_two_power(c.waves_k_in_group, 1, 8)};
    for (int i = 0; i < n; ++i)
        if (!value_ok[i]) return false;  // IsValidValueImpl (:250-293)
    if (n > 1) {
        if (c.k_mult % elements_in_dword != 0) return false;
        if (p.IsDirectionBackwardData() && p.GetOutChannels() % c.k_mult != 0) return false;
    }
    if (n > 2) {
        if (!(c.read_size * elements_in_dword <= c.chunks_per_wave)) return false;
        if (c.chunks_per_wave % elements_in_dword != 0) return false;
    }
    if (n > 3) {
        const int total_chunks = static_cast<int>((img_hw + c.chunk_size - 1) / c.chunk_size);
        if (!(c.chunks_per_wave <= total_chunks)) return false;
    }
    if (n > 4) {
        const long total_n_blocks = (p.GetBatchSize() + c.n_per_gpr() - 1) / c.n_per_gpr();
        if (!(c.n_mult <= total_n_blocks)) return false;
    }
    const int in_gprs = (c.chunks_per_wave * c.n_mult * c.c_mult + elements_in_dword - 1) / elements_in_dword;
    const int acc_gprs = c.chunks_per_wave * c.n_mult * c.k_mult;
    const int vgprs = 4 + 2 * in_gprs + acc_gprs + (img_hw % elements_in_dword != 0 ? 1 : 0) + 1;
    if (n > 5) {
        if (c.c_mult % elements_in_dword != 0) return false;
        if (!(vgprs < 256)) return false;
        if (!(25 + 2 * c.k_mult * c.c_mult < 102)) return false;
    }
    if (n > 6) {
        if (!(c.waves_c_in_group <= p.GetInChannels())) return false;
        const long c_per_wave = (p.GetInChannels() + c.waves_c_in_group - 1) / c.waves_c_in_group;
        // MIOpen computes this in size_t; for the power-of-two c_mult the remainder test agrees.
        const long c_per_last_wave = p.GetInChannels() - c_per_wave * (c.waves_c_in_group - 1);
        if (c_per_wave % c.c_mult != 0 || c_per_last_wave % c.c_mult != 0) return false;
    }
    if (n > 7) {
        if (!(static_cast<long>(c.k_mult) * c.waves_k_in_group <= p.GetOutChannels())) return false;
        if (!(c.waves_c_in_group * c.waves_k_in_group <= 16)) return false;
        const int max_waves_per_cu = (256 / vgprs) * 4;
        if (!(max_waves_per_cu >= c.waves_c_in_group * c.waves_k_in_group)) return false;
    }
    return true;
}

std::optional<Config> static_heuristic(const ConvView& p) {
    const int e = 4 / type_size(p);
    Config c{4, 16, 4 * e, 16, 2, e, 1, 1};
    if (!valid(p, c)) c.read_size = 1, c.k_mult = 4, c.chunk_size = 1, c.n_mult = 1;
    if (!valid(p, c)) c.k_mult = e == 1 ? 1 : 4, c.c_mult = 2;
    if (!valid(p, c)) c.chunks_per_wave = 2, c.c_mult = e;
    if (!valid(p, c)) c.chunks_per_wave = e;
    if (!valid(p, c)) return std::nullopt;  // MIOpen: "All attempts failed"
    return c;
}

// TransformFeatures (:393-409): an 8x8 matrix, row-major: [0][0] the precision (FP32 2, FP16 1),
// a one-hot direction at [1][1] (forward) or [2][2], then C, K, H, W and N on the diagonal, with
// C and K swapped for backward data (the channels the convolution reads come first).
std::vector<float> transform_features(const ConvView& p) {
    constexpr std::size_t n = 8;
    std::vector<float> f(n * n, 0.0f);
    f[0] = p.IsFp32() ? 2.0f : 1.0f;
    const std::size_t offset = (p.IsDirectionForward() ? 0 : 1) + 1;
    f[offset * n + offset] = 1.0f;
    f[3 * n + 3] = static_cast<float>(p.IsDirectionForward() ? p.GetInChannels() : p.GetOutChannels());
    f[4 * n + 4] = static_cast<float>(p.IsDirectionForward() ? p.GetOutChannels() : p.GetInChannels());
    f[5 * n + 5] = static_cast<float>(p.GetInHeight());
    f[6 * n + 6] = static_cast<float>(p.GetInWidth());
    f[7 * n + 7] = static_cast<float>(p.GetBatchSize());
    return f;
}

// RunParameterPredictionModel (:411-427) with ModelApplyToken (:372-391) as the validator: the
// value sets field i (in record order) and the config must stay valid over fields 0..i. nullopt
// when the net ends the decoding early (HeuristicInit then takes the static heuristic).
std::optional<Config> model_config(const ConvView& p, const nn::KernelTuningNet& net) {
    Config c;
    std::array<int*, 8> fields{&c.read_size, &c.k_mult,  &c.chunks_per_wave,  &c.chunk_size,
                               &c.n_mult,    &c.c_mult,  &c.waves_c_in_group, &c.waves_k_in_group};
    const auto apply_token = [&](std::size_t index, const std::string& value) {
        if (index >= fields.size()) return false;  // ModelApplyToken's default: case
        int v = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (error != std::errc() || end != value.data() + value.size())
            throw InputError(fmt::format("ConvAsm1x1U tuning net: decoded value '{}' is not an integer", value));
        *fields[index] = v;
        return valid(p, c, static_cast<int>(index) + 1);
    };
    const bool set = net.set_params(p.IsDirectionForward() ? "fwd" : "bwd", transform_features(p), true, apply_token);
    if (!set) return std::nullopt;
    return c;
}

// The net's pick per problem key: the plan asks for the same problem more than once.
std::optional<Config> cached_model_config(const ConvView& p, const nn::KernelTuningNet& net) {
    static std::mutex mutex;
    static std::map<std::pair<const void*, std::string>, std::optional<Config>> cache;
    const auto key = std::make_pair(static_cast<const void*>(&net), p.p.serialize());
    {
        std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    const auto config = model_config(p, net);
    std::lock_guard lock(mutex);
    cache.emplace(key, config);
    return config;
}

std::optional<Config> parse(const std::string& text) {
    const auto fields = parse_int_fields<8>(text);
    if (!fields) return std::nullopt;
    const auto& v = *fields;
    return Config{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
}

std::string defsym(std::string_view name, long long value) { return fmt::format(" -Wa,-defsym,{}={}", name, value); }

class ConvAsm1x1U : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvAsm1x1U"; }
    bool uses_general_options() const override { return true; }  // the stride-2 helper copies them

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!(p.IsDirectionForward() || p.IsDirectionBackwardData())) return reject(why, "WrW");
        if (!(p.IsFp32() || p.IsFp16())) return reject(why, "data type");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        if (!ctx.target.name().starts_with("gfx9")) return reject(why, "not gfx9");
        if (!p.IsLayoutDefault()) return reject(why, "layout");
        if (ctx.target.name() == "gfx90a" && p.IsGfx90aFp16altRequired())
            return reject(why, "gfx90a FP16-alt required (:561-562)");
        const int e = 4 / type_size(p);
        const long img_hw = p.GetOutHeight() * p.GetOutWidth();
        bool ok = p.GetPadW() == 0 && p.GetPadH() == 0 && p.GetKernelStrideW() <= 2 &&
                  p.GetKernelStrideW() == p.GetKernelStrideH() && p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 &&
                  p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetBias() == 0 && p.GetInChannels() % e == 0 &&
                  p.GetOutChannels() % e == 0 && p.GetInLayout() == "NCHW" && p.GetGroupCount() == 1 && img_hw >= e &&
                  (e == 1 || p.GetOutChannels() >= 4);
        if (p.IsDirectionBackwardData() && e != 1) ok = ok && p.GetOutChannels() % 4 == 0;
        if (!ok) return reject(why, "not an unpadded ungrouped 1x1 with stride <= 2");
        const std::uint64_t in_stack = std::uint64_t(4) * p.GetInWidth() * p.GetInHeight() * p.GetInChannels();
        const std::uint64_t out_stack = std::uint64_t(4) * p.GetOutWidth() * p.GetOutHeight() * p.GetOutChannels();
        if (!(in_stack < (1u << 24)) || !(out_stack < (1u << 24))) return reject(why, "stack too large");
        const double h_w = static_cast<double>(img_h(p) * img_w(p));
        const double C = static_cast<double>(p.GetInChannels()), K = static_cast<double>(p.GetOutChannels());
        const double N = static_cast<double>(p.GetBatchSize());
        ok = N < std::pow(2, 16) && C < std::pow(2, 16) && K < std::pow(2, 16) && C * h_w < std::pow(2, 24) &&
             K * h_w < std::pow(2, 24) && N * C * h_w < std::pow(2, 29) && N * K * h_w < std::pow(2, 29) &&
             C * K < std::pow(2, 29);
        return ok || reject(why, "size limits");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        std::optional<Config> config;
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
                if (const auto parsed = checked_perf_record(parse(*record), ctx.perf_db, p.p, std::string(name()), *record); parsed && valid(p, *parsed)) config = parsed;
        if (!config) {
            // HeuristicInit (:488-503): IsModelApplicable (:476-486) compares the device name, so
            // gfx90a and every other gfx9 takes the static heuristic.
            if (ctx.target.name() == "gfx908" && p.GetKernelStrideH() == 1) {
                const auto net =
                    ctx.tree ? nn::KernelTuningNet::load(ctx.tree->kernels_dir(), "gfx908", "ConvAsm1x1U") : nullptr;
                if (!net) return {};  // no model files to evaluate: not reproducible
                config = cached_model_config(p, *net);
            }
            if (!config) config = static_heuristic(p);
        }
        if (!config) return {};
        const Config& c = *config;
        const long long data_len = type_size(p);
        const long long N = p.GetBatchSize(), C = p.GetInChannels(), K = p.GetOutChannels();
        const long long H = img_h(p), W = img_w(p);
        std::string o;
        o += defsym("stride_h", 1) + defsym("stride_w", 1) + defsym("img_h", H) + defsym("img_w", W) +
             defsym("batch_size", N) + defsym("input_channels", C) + defsym("output_channels", K) +
             defsym("wei_h", p.GetWeightsHeight()) + defsym("wei_w", p.GetWeightsWidth()) + defsym("pad_h", p.GetPadH()) +
             defsym("pad_w", p.GetPadW()) + defsym("weights_layout", p.IsDirectionForward() ? 0 : 1) +
             defsym("vec_c_in", 1) + defsym("vec_k_out", 1) + defsym("vec_c_filter", 1) + defsym("acc_type", 1) +
             defsym("buf_type", data_len == 2 ? 2 : 1);
        // buff_info (:652-700): NCHW image buffers; filters NCHW forward, CNHW backward.
        const long long in_n = W * H * C, in_c = W * H, out_n = W * H * K, out_c = W * H;
        long long f_k = C, f_c = 1;  // NCHW filter [K][C][1][1]
        if (!p.IsDirectionForward()) f_k = 1, f_c = K;  // CNHW
        o += defsym("input_n_stride", in_n * data_len) + defsym("input_c_stride", in_c * data_len) +
             defsym("input_h_stride", W * data_len) + defsym("input_w_stride", data_len) +
             defsym("output_n_stride", out_n * data_len) + defsym("output_k_stride", out_c * data_len) +
             defsym("output_h_stride", W * data_len) + defsym("output_w_stride", data_len) +
             defsym("filter_k_stride", f_k * data_len) + defsym("filter_c_stride", f_c * data_len) +
             defsym("filter_h_stride", data_len) + defsym("filter_w_stride", data_len) +
             defsym("input_buffer_size", N * C * H * W * data_len) + defsym("filter_buffer_size", K * C * data_len) +
             defsym("output_buffer_size", N * K * H * W * data_len) + defsym("ROCM_METADATA_VERSION", 5) +
             defsym("read_size", c.read_size) + defsym("k_mult", c.k_mult) +
             defsym("chunks_per_wave", c.chunks_per_wave) + defsym("chunk_size", c.chunk_size) +
             defsym("n_mult", c.n_mult) + defsym("c_mult", c.c_mult) + defsym("waves_c_in_group", c.waves_c_in_group) +
             defsym("waves_k_in_group", c.waves_k_in_group);
        std::vector<SolverKernel> out{{"conv1x1u.s", {"miopenGcnAsmConv1x1U"}, o}};
        if (use_subsample(p) || use_upsample(p)) {
            const long long in_batch_stride = W * H * (use_subsample(p) ? C : K);
            const int write_unit = W % 4 == 0 ? 4 : W % 3 == 0 ? 3 : W % 2 == 0 ? 2 : 1;
            const long long in0_batch = p.IsDirectionForward() ? C * p.GetInHeight() * p.GetInWidth()
                                                               : K * p.GetOutHeight() * p.GetOutWidth();
            const std::string helper = fmt::format(
                " -DDATA_TYPE={} -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  -DMLO_GRP0_SZ2=1  -DMLO_FILTER0_STRIDE0={} "
                "-DMLO_FILTER0_STRIDE1={} -DMLO_WRITE_UNIT={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} "
                "-DMLO_IN_BATCH_STRIDE={} -DMLO_IN0_BATCH_STRIDE={} -DMLO_IN0_CHANNEL_STRIDE={} -DMLO_IN0_STRIDE={}{}",
                p.IsFp16() ? "ushort" : "float", p.GetKernelStrideW(), p.GetKernelStrideH(), write_unit,
                p.GetOutHeight() * p.GetOutWidth(), p.GetOutWidth(), in_batch_stride, in0_batch,
                p.GetInHeight() * p.GetInWidth(), p.GetInWidth(), ctx.general_options);
            out.push_back({"MIOpenUtilKernels3.cl", {use_subsample(p) ? "SubSample" : "UpSample"}, helper});
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsm1x1U)

}  // namespace kdbgen
