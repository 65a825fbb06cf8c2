// ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC: gfx1030's forward implicit GEMM
// on vectorized NCHWc tensors (FP16 in vectors of 4 or 8), one kernel.
//
// The problem key says "NCHWc" (TensorDescriptor::LayoutEnumToStr, src/tensor.cpp:565-569) but
// not the vector length, which picks the table half (Halfx4 or Halfx8): MIOpen asks for one of
// the two kernels, and a key cannot tell which, so the kdb holds both.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_asm_implicit_gemm_gtc_fwd_nchwc.cpp
// (the same in rocm-6.2.0):
//   :46-256    GetFwdDlopsNCHWCConfigList (read from the tree)
//   :295-435   HeuristicInit: the tile lookup's result is unused; always the least-padding config
//   :472-522   IsValid;  :550-603 IsApplicable;  :605-648 GetSolution (ROCM_METADATA_VERSION=5 only)
//   src/solver/conv/conv_asm_implicit_gemm_gtc_perf_config.cpp:266-360  the vector config
//              (precision Halfx4 / Halfx8), :474-508 ToKernelName (_gtcn2_ on gfx1030)
//   src/include/miopen/conv/solvers.hpp:3902-4060  its fields and perf-db (Visit) order
//   src/conv/invokers/impl_gemm_dynamic.cpp:1044-1180  the invoker: the kernel alone
#include "gtc_common.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <tuple>

namespace kdbgen {

namespace {

using namespace gtc;

const char* const kSource = "src/solver/conv/conv_asm_implicit_gemm_gtc_fwd_nchwc.cpp";

struct VectorConfig {
    std::string direction, layout, precision;
    int nxb = 1, nxe = 1, m_per_block = 1, n_per_block = 1, k_per_block = 1;
    int tile_m = 1, tile_n = 1, wave_m = 1, wave_n = 1, repeat_m = 1, repeat_n = 1, vector_c = 1;
    std::array<int, 4> ta_thread{1, 1, 1, 1}, ta_cluster{1, 1, 1, 1}, tb_thread{1, 1, 1, 1}, tb_cluster{1, 1, 1, 1};
    int index = 0;

    auto parameters() const {
        return std::tie(direction, layout, precision, nxb, nxe, m_per_block, n_per_block, k_per_block, tile_m, tile_n,
                        wave_m, wave_n, repeat_m, repeat_n, vector_c, ta_thread, ta_cluster, tb_thread, tb_cluster);
    }
    bool is_default_constructed() const {
        const std::array<int, 4> ones{1, 1, 1, 1};
        return direction == "fwd" && layout == "nchwc" && precision == "Halfx4" && nxb == 1 && nxe == 1 &&
               m_per_block == 1 && n_per_block == 1 && k_per_block == 1 && tile_m == 1 && tile_n == 1 && wave_m == 1 &&
               wave_n == 1 && repeat_m == 1 && repeat_n == 1 && vector_c == 1 && ta_thread == ones &&
               ta_cluster == ones && tb_thread == ones && tb_cluster == ones && index == 0;
    }
    std::string kernel_name(const Target& target) const {
        const auto quad = [](const std::array<int, 4>& q) { return fmt::format("{}x{}x{}x{}", q[0], q[1], q[2], q[3]); };
        return fmt::format("igemm_{}{}{}_{}_bx{}_ex{}_bt{}x{}x{}_lt{}x{}_lw{}x{}_lr{}x{}_ta{}_{}_tb{}_{}", direction,
                           target.name() == "gfx1030" ? "_gtcn2_" : "_gtcn_", layout,
                           precision == "Halfx4" ? "fp16x4" : "fp16x8", nxb, nxe, m_per_block, n_per_block, k_per_block,
                           tile_m, tile_n, wave_m, wave_n, repeat_m, repeat_n, quad(ta_thread), quad(ta_cluster),
                           quad(tb_thread), quad(tb_cluster));
    }
};

std::vector<VectorConfig> config_list(const MiopenTree& tree) {
    std::vector<VectorConfig> out;
    for (const auto& row : source_table(tree, kSource, "GetFwdDlopsNCHWCConfigList", "kernel_param_list")) {
        row.expect_size(19, "NCHWc performance config");
        VectorConfig c;
        c.direction = row.string_at(0);
        c.layout = row.string_at(1);
        if (row.name_at(2) != "miopenHalf")
            throw InputError(located(row.file, row.line, "field 3: an NCHWc config that is not miopenHalf"));
        int* fields[] = {&c.nxb, &c.nxe, &c.m_per_block, &c.n_per_block, &c.k_per_block, &c.tile_m, &c.tile_n,
                         &c.wave_m, &c.wave_n, &c.repeat_m, &c.repeat_n, &c.vector_c};
        for (std::size_t i = 0; i < std::size(fields); ++i) *fields[i] = row.int_at(3 + i);
        c.precision = c.vector_c == 4 ? "Halfx4" : "Halfx8";
        c.ta_thread = row.quad_at(15);
        c.ta_cluster = row.quad_at(16);
        c.tb_thread = row.quad_at(17);
        c.tb_cluster = row.quad_at(18);
        if (c.m_per_block <= 0 || c.n_per_block <= 0 || c.k_per_block <= 0)
            throw InputError(located(row.file, row.line, "an NCHWc config with a zero block size"));
        out.push_back(std::move(c));
    }
    return out;
}

// 32 fields in Visit order, each read by `ss >> x` (src/include/miopen/serializable.hpp:41-112).
std::optional<VectorConfig> parse_record(const std::string& record) {
    const auto parts = split(record, ',');
    if (parts.size() < 32) return std::nullopt;
    const auto word = [](std::string_view s) {
        const auto t = trim(s);
        return std::string(t.substr(0, t.find_first_of(" \t")));
    };
    const auto number = [](std::string_view s) {
        const auto t = trim(s);
        std::size_t end = t.starts_with('-') ? 1 : 0;
        while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
        return static_cast<int>(parse_int(t.substr(0, end)).value_or(0));
    };
    VectorConfig c;
    c.direction = word(parts[0]);
    c.layout = word(parts[1]);
    c.precision = word(parts[2]);
    int* fields[] = {&c.nxb, &c.nxe, &c.m_per_block, &c.n_per_block, &c.k_per_block, &c.tile_m, &c.tile_n,
                     &c.wave_m, &c.wave_n, &c.repeat_m, &c.repeat_n, &c.vector_c};
    std::size_t i = 3;
    for (int* f : fields) *f = number(parts[i++]);
    for (auto* quad : {&c.ta_thread, &c.ta_cluster, &c.tb_thread, &c.tb_cluster})
        for (int& v : *quad) v = number(parts[i++]);
    c.index = number(parts[i]);
    return c;
}

bool nchwc_nchwc(const ConvView& p) {
    return p.p.in_layout == "NCHWc" && p.p.weights_layout == "NCHWc" && p.p.out_layout == "NCHWc";
}
bool nchwc_chwnc(const ConvView& p) {
    return p.p.in_layout == "NCHWc" && p.p.weights_layout == "CHWNc" && p.p.out_layout == "NCHWc";
}

// IsValid (:472-522) for one vector length.
bool valid(const ConvView& p, int vector_length, const VectorConfig& c) {
    if (c.is_default_constructed()) return false;
    if (c.precision != (vector_length == 4 ? "Halfx4" : "Halfx8")) return false;
    if (!((nchwc_nchwc(p) && c.layout == "nchwc_kcyxc") || (nchwc_chwnc(p) && c.layout == "nchwc_cyxkc"))) return false;
    if (p.GetInChannels() % p.GetGroupCount() != 0 || p.GetOutChannels() % p.GetGroupCount() != 0) return false;
    const long stride_h = p.GetOutHeight() > 1 ? p.GetKernelStrideH() : 1;
    const long stride_w = p.GetOutWidth() > 1 ? p.GetKernelStrideW() : 1;
    const long dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
    const long dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
    const bool unit = p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && stride_h == 1 && stride_w == 1 &&
                      dilation_h == 1 && dilation_w == 1 && p.GetPadH() == 0 && p.GetPadW() == 0;
    return !(c.nxe == 0 && !unit);
}

VectorConfig heuristic(const ConvView& p, int vector_length, const std::vector<VectorConfig>& list) {
    const long long group = p.GetGroupCount();
    const auto gemm_m = static_cast<std::size_t>(p.GetBatchSize() * p.GetOutHeight() * p.GetOutWidth());
    const auto gemm_n = static_cast<std::size_t>(p.GetOutChannels() / group);
    const auto gemm_k = static_cast<std::size_t>(p.GetInChannels() / group * p.GetWeightsHeight() * p.GetWeightsWidth());
    std::size_t min_pad = std::numeric_limits<std::size_t>::max(), selected = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const VectorConfig& c = list[i];
        if (c.precision != (vector_length == 4 ? "Halfx4" : "Halfx8")) continue;
        if (!((nchwc_nchwc(p) && c.layout == "nchwc_kcyxc") || (nchwc_chwnc(p) && c.layout == "nchwc_cyxkc"))) continue;
        if (!(c.ta_thread[1] == 1 && c.tb_thread[1] == 1)) continue;
        const auto m = static_cast<std::size_t>(c.m_per_block), n = static_cast<std::size_t>(c.n_per_block),
                   k = static_cast<std::size_t>(c.k_per_block);
        const std::size_t pad =
            matrix_pad_size(gemm_m, m, gemm_k, k) + matrix_pad_size(gemm_n, n, gemm_k, k) + matrix_pad_size(gemm_m, m, gemm_n, n);
        if (pad < min_pad) {
            min_pad = pad;
            selected = i;
        }
    }
    return list[selected];
}

class ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:4247
    std::string_view name() const override { return "ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC"; }
    std::string_view missing_kernels_reason() const override { return kNoKernelsReason; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (ctx.target.name() != "gfx1030") return reject(why, "gfx1030 only");
        if (!p.IsDirectionForward()) return reject(why, "not forward");
        if (!p.Is2d()) return reject(why, "not 2-D");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
        if (!(nchwc_nchwc(p) || nchwc_chwnc(p))) return reject(why, "layout is not NCHWc");
        if (!p.IsFp16()) return reject(why, "FP16 only");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors");
        if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
        if (split_batch_size(p.GetInHeight(), p.GetInWidth(), p.GetOutHeight(), p.GetOutWidth(), p.GetBatchSize(),
                             p.GetOutChannels(), p.GetInChannels(), 2) == 0)
            return reject(why, "one image exceeds 4 GB");
        return !tree_missing(ctx, why);
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        if (!ctx.tree) return {};
        const auto list = config_list(*ctx.tree);
        std::optional<VectorConfig> record;
        if (ctx.perf_db)
            if (const auto text = ctx.perf_db->find(p.p, std::string(name()))) record = checked_perf_record(parse_record(*text), ctx.perf_db, p.p, std::string(name()), *text);
        std::vector<SolverKernel> out;
        for (const int vector_length : {4, 8}) {
            const bool record_ok =
                record && (record->is_default_constructed() ||
                           std::any_of(list.begin(), list.end(),
                                       [&](const VectorConfig& c) { return c.parameters() == record->parameters(); })) &&
                valid(p, vector_length, *record);
            const VectorConfig c = record_ok ? *record : heuristic(p, vector_length, list);
            const std::string kernel = c.kernel_name(ctx.target);
            out.push_back(plain_asm_kernel(kernel));
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC)

}  // namespace kdbgen
