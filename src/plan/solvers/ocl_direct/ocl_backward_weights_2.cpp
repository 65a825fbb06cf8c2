// ConvOclBwdWrW2<N> (N = 1, 2, 4, 8, 16 batch loops) and
// ConvOclBwdWrW2NonTunable: the OpenCL direct weights-gradient convolution
// of MIOpenConvBwdWrWS2.cl (MIOpenGroupConvBwdWrWS2.cl when grouped). The
// tunable ones take every shape but ungrouped 3x3 and 1x1, which are left to
// the non-tunable one with the default configuration.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2D_bwdWrW_2.cpp
// (same option string in rocm-6.2.0, src/solver/conv_ocl_dir2D_bwdWrW_2.cpp):
//   :138-143  IsTunable;  :145-169 ConvOclBwdWrW2NonTunable
//   :224-233  IsValidValue;  :237-241 GetNBatchBlks;  :243-428 IsValid (LDS, workspace <= 6 GiB)
//   :430-449  HeuristicInit (the default configuration)
//   :460-517  IsApplicableBase (issue 1693 workaround, default config must be valid)
//   :553-691  GetSolution: the option string ends with ctx.general_compile_options
//   :693-747  kernel files; MIOpenCvBwdWrW_rdc when the batch is split
//   src/include/miopen/conv/solvers.hpp:2440-2447  perf-db record order
// IsValid's guard against the device's largest allocation
// (GetMaxMemoryAllocSize) is not modelled: the 6 GiB workspace limit it sits
// beside is the one that binds for any shape in a network.
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

struct Config {
    int n_waves = 1, read_size = 6, n_out_channels_per_tile = 1, n_out_channels_tiles = 1, n_out_rows_in_lcl = 2;

    static std::optional<Config> parse(const std::string& text) {
        const auto fields = parse_int_fields<5>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        return Config{v[0], v[1], v[2], v[3], v[4]};
    }
};

bool is_1_to_8(int v) { return v == 1 || v == 2 || v == 3 || v == 4 || v == 8; }
std::size_t ceil_float(double a, double b) { return static_cast<std::size_t>(std::ceil(static_cast<float>(a) / static_cast<float>(b))); }

bool is_tunable(const ConvView& p) {
    const long fx = p.GetWeightsWidth(), fy = p.GetWeightsHeight();
    return !(p.GetGroupCount() == 1 && ((fx == 3 && fy == 3) || (fx == 1 && fy == 1)));
}

Config heuristic(const ConvView& p) {
    Config c;
    const long per_group = p.GetInChannels() / p.GetGroupCount();
    c.n_out_channels_per_tile = per_group % 4 == 0 ? 4 : per_group % 3 == 0 ? 3 : per_group % 2 == 0 ? 2 : 1;
    c.n_out_rows_in_lcl = static_cast<int>(p.GetWeightsHeight());
    return c;
}

std::size_t weights_per_workitem(const ConvView& p) {
    const std::size_t fx = static_cast<std::size_t>(p.GetWeightsWidth());
    return (fx <= 7 || (fx / 2) * 2 != fx) ? fx : fx / 2;
}

struct LdsLayout {
    std::size_t in_lcl_width = 0, in_lcl_sz = 0;
};

LdsLayout lds_layout(const ConvView& p, const Config& c) {
    const std::size_t in_width = static_cast<std::size_t>(p.GetOutWidth());  // out is in, in is out
    const std::size_t out_width = static_cast<std::size_t>(p.GetInWidth());
    const std::size_t pad_w = static_cast<std::size_t>(p.GetPadW());
    const std::size_t in_lcl_height =
        static_cast<std::size_t>(c.n_out_rows_in_lcl - 1) * p.GetKernelStrideH() + p.GetWeightsHeight();
    const std::size_t effective =
        std::max(in_width + 2 * pad_w,
                 std::max(pad_w + ((in_width + c.read_size - 1) / c.read_size) * c.read_size,
                          static_cast<std::size_t>(p.GetWeightsWidth()) + (out_width - 1) * p.GetKernelStrideW()));
    const std::size_t right_buffer =
        static_cast<std::size_t>(std::max(static_cast<int>(effective - (in_width + 2 * pad_w)), 0));
    LdsLayout l;
    l.in_lcl_width = pad_w + in_width + right_buffer;
    if (p.IsFp32()) l.in_lcl_width = (l.in_lcl_width / 2) * 2 + 1;
    l.in_lcl_sz = l.in_lcl_width * in_lcl_height + pad_w + right_buffer;
    return l;
}

bool is_valid(const ConvView& p, const Config& c, int n_batch_loops) {
    if (!(is_1_to_8(c.n_waves) && 6 <= c.read_size && c.read_size <= 12 && is_1_to_8(c.n_out_channels_per_tile) &&
          is_1_to_8(c.n_out_channels_tiles) && 2 <= c.n_out_rows_in_lcl && c.n_out_rows_in_lcl <= 11))
        return false;
    const std::size_t wei_cstride = static_cast<std::size_t>(p.GetWeightsHeight() * p.GetWeightsWidth());
    const std::size_t wei_bstride = static_cast<std::size_t>(p.GetOutChannels() / p.GetGroupCount()) * wei_cstride;
    const std::size_t n_batch_blks = ceil_float(static_cast<double>(p.GetBatchSize()), n_batch_loops);
    if (n_batch_blks < 1) return false;
    if (p.GetInWidth() < c.read_size) return false;
    const std::size_t aligned_out_scan_lane = ceil_float(static_cast<double>(p.GetInWidth()), c.read_size);
    const std::size_t per_group = static_cast<std::size_t>(p.GetInChannels() / p.GetGroupCount());
    if (p.GetGroupCount() > 1 && (c.n_out_channels_tiles != 1 || static_cast<std::size_t>(c.n_out_channels_per_tile) > per_group))
        return false;
    if (static_cast<std::size_t>(c.n_out_channels_tiles) * c.n_out_channels_per_tile > per_group) return false;
    if (c.n_out_rows_in_lcl < p.GetWeightsHeight()) return false;
    const std::size_t in_lcl_sz = lds_layout(p, c).in_lcl_sz;
    const std::size_t wei_per_wkitem = weights_per_workitem(p);
    const std::size_t total_in_lcl_sz = in_lcl_sz;  // one stack, one input map
    const std::size_t out_width = static_cast<std::size_t>(p.GetInWidth());
    const std::size_t workgroup_size = 64 * static_cast<std::size_t>(c.n_waves);
    if (wei_per_wkitem == 0) return false;
    const std::size_t wei_blk_sz = static_cast<std::size_t>(p.GetWeightsHeight()) *
                                   ceil_float(static_cast<double>(p.GetWeightsWidth()), static_cast<double>(wei_per_wkitem));
    if (wei_blk_sz == 0) return false;
    const std::size_t n_wei_blk = workgroup_size / wei_blk_sz;
    if (n_wei_blk == 0) return false;
    const std::size_t out_wei_scan_loop = ceil_float(static_cast<double>(out_width), static_cast<double>(n_wei_blk));
    if (out_wei_scan_loop == 0) return false;
    const std::size_t max_wei_blk =
        std::min(n_wei_blk, ceil_float(static_cast<double>(out_width), static_cast<double>(out_wei_scan_loop)));
    const std::size_t total_wei_lcl_sz = wei_blk_sz * wei_per_wkitem * max_wei_blk * c.n_out_channels_tiles;
    const std::size_t out_horiz_pix_ext_sz =
        std::max(out_wei_scan_loop * max_wei_blk, aligned_out_scan_lane * c.read_size);
    const std::size_t total_out_lcl_sz = c.n_out_rows_in_lcl * out_horiz_pix_ext_sz * c.n_out_channels_tiles;
    const std::size_t type_size = p.IsFp32() ? 4 : 2;
    if (std::max(total_in_lcl_sz + total_out_lcl_sz, total_wei_lcl_sz) * type_size > 64 * 1024) return false;
    if (n_batch_blks > 1 && wei_bstride * p.GetInChannels() * n_batch_blks * type_size > 6ULL * 1024 * 1024 * 1024)
        return false;
    return true;
}

bool applicable_base(const ConvView& p, const SolverContext& ctx, int n_batch_loops, std::string* why) {
    if (!legacy::ocl_direct_common_checks(p, ctx, why)) return false;
    if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
    if (!(p.GetDilationW() == 1 && p.GetDilationH() == 1)) return reject(why, "dilation");
    if (p.GetWeightsHeight() - p.GetKernelStrideH() < p.GetPadH()) return reject(why, "padding exceeds filter - stride");
    if (p.GetBatchSize() < n_batch_loops) return reject(why, "batch smaller than the batch loops");
    const long fx = p.GetWeightsWidth();
    const bool issue_1693_allowed = p.GetKernelStrideH() == 2 && p.GetKernelStrideW() == 2 && p.GetWeightsHeight() == 5 &&
                                    (fx == 10 || fx == 20) &&
                                    ((p.GetOutHeight() == 79 && p.GetOutWidth() == 341) ||
                                     (p.GetOutHeight() == 161 && p.GetOutWidth() == 700));
    if (fx >= 8 && fx % 2 == 0 && !issue_1693_allowed) return reject(why, "even filter width >= 8 (issue 1693)");
    if (!is_valid(p, heuristic(p), n_batch_loops)) return reject(why, "default configuration exceeds LDS");
    return true;
}

std::vector<SolverKernel> solution(const ConvView& p, const SolverContext& ctx, const Config& c, int n_batch_loops) {
    const int workgroup_size = 64 * c.n_waves;
    const long groups = p.GetGroupCount();
    const long in_per_group = p.GetOutChannels() / groups, out_per_group = p.GetInChannels() / groups;
    const long wei_cstride = p.GetWeightsWidth() * p.GetWeightsHeight();
    const long wei_bstride = in_per_group * wei_cstride;
    const std::size_t n_batch_blks = ceil_float(static_cast<double>(p.GetBatchSize()), n_batch_loops);
    const std::size_t aligned_out_scan_lane = ceil_float(static_cast<double>(p.GetInWidth()), c.read_size);
    const std::size_t n_out_blk = ceil_float(static_cast<double>(p.GetInHeight()), c.n_out_rows_in_lcl);
    const LdsLayout lds = lds_layout(p, c);
    const long out_n_pixels_off = p.GetInWidth() - (p.GetInWidth() / c.read_size) * c.read_size;
    const int ut_read_unit = (wei_cstride / 4) * 4 == wei_cstride ? 4 : (wei_cstride / 2) * 2 == wei_cstride ? 2 : 1;
    const auto read_type = [](int unit) { return unit == 1 ? std::string("_FLOAT") : "_FLOAT" + std::to_string(unit); };
    const long in_h = p.GetInHeight(), in_w = p.GetInWidth(), out_h = p.GetOutHeight(), out_w = p.GetOutWidth();

    std::string options = fmt::format(
        " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ={0} -DMLO_GRP_SZ0={0} -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1"
        " -DMLO_FILTER_SIZE0={1} -DMLO_FILTER_SIZE1={2} -DMLO_FILTER_PAD0={3} -DMLO_FILTER_PAD1={4}"
        " -DMLO_FILTER_STRIDE0={5} -DMLO_FILTER_STRIDE1={6} -DMLO_N_OUTPUTS={7} -DMLO_N_INPUTS={8}"
        " -DMLO_BATCH_SZ={9} -DMLO_N_BATCH_LOOPS={10} -DMLO_N_BATCH_BLKS={11}",
        workgroup_size, p.GetWeightsWidth(), p.GetWeightsHeight(), p.GetPadW(), p.GetPadH(), p.GetKernelStrideW(),
        p.GetKernelStrideH(), p.GetInChannels(), p.GetOutChannels(), p.GetBatchSize(), n_batch_loops, n_batch_blks);
    options += fmt::format(
        " -DMLO_OUT_BATCH_STRIDE={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={}"
        " -DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_WEI_BATCH_STRIDE={} -DMLO_WEI_CHANNEL_STRIDE={}"
        " -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={}",
        p.GetInChannels() * in_h * in_w, in_h * in_w, in_w, p.GetOutChannels() * out_h * out_w, out_h * out_w, out_w,
        wei_bstride, wei_cstride, out_w, out_h, in_w, in_h);
    options += fmt::format(
        " -DMLO_N_LCL_OUT_MAPS={} -DMLO_N_LCL_IN_MAPS=1 -DMLO_N_WAVES={} -DMLO_READ_TYPE={} -DMLO_READ_UNIT={}"
        " -DMLO_ALIGNED_OUT_SCAN_LN={} -DMLO_N_ALIGNED_OUT_SCAN_BLK={} -DMLO_WEI_WKITEM={} -DMLO_N_OUT_BLK_GRP={}"
        " -DMLO_N_OUT_BLK={} -DMLO_HW_WAVE_SZ=64 -DMLO_OUT_N_PIXS_OFF={} -DMLO_IN_LCL_WIDTH={} -DMLO_IN_LCL_SZ={}"
        " -DMLO_CONV_BIAS={} -DMLO_UT_READ_TYPE={} -DMLO_UT_READ_UNIT={} -DMLO_UT_GRP_SZ0=256"
        " -DMLO_GROUP_COUNTS={} -DMLO_N_INPUTS_PER_GROUP={} -DMLO_N_OUTPUTS_PER_GROUP={}",
        c.n_out_channels_tiles, c.n_waves, read_type(c.read_size), c.read_size, aligned_out_scan_lane,
        c.n_out_rows_in_lcl, weights_per_workitem(p), c.n_out_channels_per_tile, n_out_blk, out_n_pixels_off,
        lds.in_lcl_width, lds.in_lcl_sz, p.GetBias(), read_type(ut_read_unit), ut_read_unit, groups, in_per_group,
        out_per_group);
    options += ctx.general_options;

    std::vector<SolverKernel> out;
    if (groups > 1) {
        out.push_back({"MIOpenGroupConvBwdWrWS2.cl", {"MIOpenCvBwdWrW"}, options});
        if (n_batch_blks > 1) out.push_back({"MIOpenConvBwdWrWS2.cl", {"MIOpenCvBwdWrW_rdc"}, options});
    } else {
        out.push_back({"MIOpenConvBwdWrWS2.cl", {"MIOpenCvBwdWrW"}, options});
        if (n_batch_blks > 1) out.back().symbols.push_back("MIOpenCvBwdWrW_rdc");
    }
    return out;
}

template <int NBatchLoops>
class ConvOclBwdWrW2 : public DeprecatedSolver {
public:
    std::string_view name() const override { return name_; }
    bool uses_general_options() const override { return true; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!applicable_base(p, ctx, NBatchLoops, why)) return false;
        return is_tunable(p) || reject(why, "ungrouped 3x3 or 1x1: ConvOclBwdWrW2NonTunable's");
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        Config config = heuristic(p);
        if (ctx.perf_db)
            if (const auto record = ctx.perf_db->find(p.p, name_))
                if (const auto parsed = checked_perf_record(Config::parse(*record), ctx.perf_db, p.p, name_, *record); parsed && is_valid(p, *parsed, NBatchLoops))
                    config = *parsed;
        return solution(p, ctx, config, NBatchLoops);
    }

private:
    std::string name_ = "ConvOclBwdWrW2<" + std::to_string(NBatchLoops) + ">";
};

class ConvOclBwdWrW2NonTunable : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclBwdWrW2NonTunable"; }
    bool uses_general_options() const override { return true; }
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!applicable_base(p, ctx, 1, why)) return false;
        return !is_tunable(p) || reject(why, "not an ungrouped 3x3 or 1x1: ConvOclBwdWrW2<N>'s");
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        return solution(p, ctx, heuristic(p), 1);
    }
};

using ConvOclBwdWrW2_1 = ConvOclBwdWrW2<1>;
using ConvOclBwdWrW2_2 = ConvOclBwdWrW2<2>;
using ConvOclBwdWrW2_4 = ConvOclBwdWrW2<4>;
using ConvOclBwdWrW2_8 = ConvOclBwdWrW2<8>;
using ConvOclBwdWrW2_16 = ConvOclBwdWrW2<16>;

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2_1)
KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2_2)
KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2_4)
KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2_8)
KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2_16)
KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW2NonTunable)

}  // namespace kdbgen
