// ConvOclBwdWrW53: the OpenCL direct weights-gradient convolution for
// stride-1 filters that cover the image (MIOpenConvBwdWrW_LxG_P53.cl and
// its grouped variant). Not tunable: every parameter derives from the problem.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2D_bwdWrW_53.cpp
// (identical option strings in rocm-6.2.0, src/solver/conv_ocl_dir2D_bwdWrW_53.cpp):
//   :47-152   IsApplicable (the SWDEV-168168, issue 1173/1242/1479 and gfx908 workarounds)
//   :166-222  ComputeInputParams (LDS fitting)
//   :233-270  ComputeOutputParams;  :291-323 ComputeNumInputWidthLoops
//   :348-584  GetSolution: the option string, then ctx.general_compile_options
//   :586-592  gfx908: -DMLO_DISABLE_PRAGMA_UNROLL_COMPILER_SWDEV_200074_WORKAROUND=1
//   :607-651  kernel files; MIOpenCvBwdWrW_rdc when the batch is split
//
// MIOpen keeps read_unit and READ_TYPE in function-local statics (:390-396),
// so within one process they are whatever the first problem set. kdbgen
// computes them per problem, which is what a process that meets the problem
// first (e.g. a packager's one-network run) asks for.
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

int ceil_div_float(long a, long b) { return static_cast<int>(std::ceil(static_cast<float>(a) / static_cast<float>(b))); }
int read_unit_for(long width) { return width % 4 == 0 ? 4 : width % 3 == 0 ? 3 : width % 2 == 0 ? 2 : 1; }
std::string read_type(int unit) { return unit == 1 ? "_FLOAT" : "_FLOAT" + std::to_string(unit); }

struct Plan {
    std::string options;
    bool group_kernel = false;
    bool reduce_kernel = false;
};

// GetSolution; nullopt where MIOpen returns miopenStatusNotInitialized.
std::optional<Plan> solve(const ConvView& p, const SolverContext& ctx) {
    constexpr int hw_wave_sz = 64;
    const long fx = p.GetWeightsWidth(), fy = p.GetWeightsHeight();
    const long groups = p.GetGroupCount();
    const int wei_cstride = static_cast<int>(fx * fy);
    const int wei_bstride = static_cast<int>(p.GetOutChannels() / groups) * wei_cstride;
    const long n_stacks = std::min<long>(p.GetBatchSize(), 1);
    const long n_batch_loops = p.GetInChannels() * p.GetOutChannels() <= 8L * 1024 ? 1
                               : (p.GetBatchSize() <= 16 || p.GetInWidth() <= 32) ? p.GetBatchSize() / n_stacks
                                                                                   : 4;
    const long n_batch_blks = (p.GetBatchSize() + n_batch_loops * n_stacks - 1) / (n_batch_loops * n_stacks);
    const int out_tile0 = static_cast<int>(fx), out_tile1 = static_cast<int>(fy);
    const int n_waves = (out_tile0 * out_tile1 <= 16 && p.GetInWidth() > 8) ? 4 : p.GetInWidth() <= 16 ? 1 : 2;
    const int grp_sz = hw_wave_sz * n_waves;
    int n_in_data_tiles = (p.GetInWidth() <= 32 && out_tile0 * out_tile1 <= 16) ? 4 : 1;
    n_in_data_tiles = std::min(n_in_data_tiles, static_cast<int>(p.GetOutChannels() / groups));
    const int read_unit = read_unit_for(p.GetOutWidth());
    const int out_lcl_width =
        static_cast<int>((p.GetOutWidth() + read_unit - 1) / read_unit) * read_unit + 2 * static_cast<int>(p.GetPadW());
    int out_n_vert_reads = (p.GetOutHeight() > 32 && p.GetOutWidth() <= 64 && out_tile0 * out_tile1 <= 16)
                               ? static_cast<int>((p.GetOutHeight() + 1) / 2)
                               : static_cast<int>(p.GetOutHeight());

    // ComputeInputParams: shrink channels, then rows, then row chunks until the LDS fits.
    int out_n_horizon_reads = out_lcl_width;
    {
        const long filter_adjustment = fx - 1;
        const int max_lds_elements = 64 * 1024 / (2 * (p.IsFp32() ? 4 : 2));
        while (n_in_data_tiles * out_n_vert_reads * (out_n_horizon_reads + filter_adjustment) > max_lds_elements) {
            if (out_n_vert_reads < 2 && n_in_data_tiles >= 2) {
                out_n_vert_reads = static_cast<int>(p.GetInHeight());
                n_in_data_tiles = ceil_div_float(n_in_data_tiles, 2);
            } else if (out_n_vert_reads >= fy * 2) {
                out_n_vert_reads = ceil_div_float(out_n_vert_reads, 2);
            } else if (out_n_vert_reads >= fy && out_n_horizon_reads > 2) {
                out_n_horizon_reads = ceil_div_float(out_n_horizon_reads, 2);
            } else {
                return std::nullopt;
            }
        }
        if (static_cast<long>(grp_sz) * fx > max_lds_elements) return std::nullopt;
    }
    if (out_n_vert_reads <= 0) return std::nullopt;
    const int out_n_vert_read_loops = ceil_div_float(p.GetOutHeight(), out_n_vert_reads);
    out_n_horizon_reads = out_n_horizon_reads == out_lcl_width ? out_lcl_width
                                                               : out_n_horizon_reads + static_cast<int>(fx) - 1;

    int horizon_loops = 1, last_chunk_valid_pixels = 0;
    if (out_lcl_width != out_n_horizon_reads) {
        const int unpadded_width = out_lcl_width - 2 * static_cast<int>(p.GetPadW());
        const int fresh = out_n_horizon_reads - static_cast<int>(fx) + 1;
        if (fresh <= 0) return std::nullopt;  // MIOpen throws here
        horizon_loops = ceil_div_float(unpadded_width - out_n_horizon_reads, fresh) + 1;
        last_chunk_valid_pixels = (unpadded_width - out_n_horizon_reads) % fresh + (static_cast<int>(fx) - 1);
    }
    if (horizon_loops > 2 && p.GetPadW() != 0) return std::nullopt;
    if (horizon_loops > 1 && groups > 1) return std::nullopt;
    const int last_chunk_valid_read_units = ceil_div_float(last_chunk_valid_pixels, read_unit);
    const int last_read_unit_pixels =
        last_chunk_valid_pixels % read_unit != 0 ? last_chunk_valid_pixels % read_unit : read_unit;

    const int in_width_chunk = horizon_loops == 1
                                   ? static_cast<int>(p.GetInWidth())
                                   : out_n_horizon_reads + static_cast<int>(p.GetPadW()) - static_cast<int>(fx) + 1;
    const int in_width_last_chunk_valid_pixels = horizon_loops == 1 ? 0 : static_cast<int>(p.GetInWidth()) % in_width_chunk;

    // ComputeOutputParams
    int in_tile0 = 0, n_out_stacks = 1;
    {
        const int by_mod = in_width_chunk % 4 == 0 ? 4 : in_width_chunk % 3 == 0 ? 3 : in_width_chunk % 2 == 0 ? 2 : 1;
        const int by_wkgrp = ceil_div_float(in_width_chunk, grp_sz);
        in_tile0 = std::max(by_wkgrp, by_mod);
        if (p.GetInWidth() == in_width_chunk) {
            const int n_spans = ceil_div_float(in_width_chunk, in_tile0);
            n_out_stacks = groups == 1 ? std::min(static_cast<int>(p.GetInChannels()), std::max(1, grp_sz / n_spans)) : 1;
        }
    }
    const int last_chunk_valid_spans = ceil_div_float(in_width_last_chunk_valid_pixels, in_tile0);
    const int last_span_pixels = in_width_last_chunk_valid_pixels % in_tile0 != 0
                                     ? in_width_last_chunk_valid_pixels % in_tile0
                                     : in_tile0;
    const int ut_read_unit = (wei_cstride / 4) * 4 == wei_cstride ? 4 : (wei_cstride / 2) * 2 == wei_cstride ? 2 : 1;

    const long in_h = p.GetInHeight(), in_w = p.GetInWidth(), out_h = p.GetOutHeight(), out_w = p.GetOutWidth();
    Plan plan;
    plan.options = fmt::format(
        " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ={0} -DMLO_GRP_SZ0={0} -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1"
        " -DMLO_FILTER_SIZE0={1} -DMLO_FILTER_SIZE1={2} -DMLO_FILTER_PAD0={3} -DMLO_FILTER_PAD1={4}"
        " -DMLO_FILTER_STRIDE0={5} -DMLO_FILTER_STRIDE1={6} -DSTRIDE_W={5} -DSTRIDE_H={6}"
        " -DMLO_N_OUTPUTS={7} -DMLO_N_INPUTS={8} -DMLO_GROUP_COUNTS={9} -DMLO_N_INPUTS_PER_GROUP={10}"
        " -DMLO_N_OUTPUTS_PER_GROUP={11} -DMLO_BATCH_SZ={12} -DMLO_N_BATCH_LOOPS={13}",
        grp_sz, fx, fy, p.GetPadW(), p.GetPadH(), p.GetKernelStrideW(), p.GetKernelStrideH(), p.GetInChannels(),
        p.GetOutChannels(), groups, p.GetOutChannels() / groups, p.GetInChannels() / groups, p.GetBatchSize(),
        n_batch_loops);
    plan.options += fmt::format(
        " -DMLO_OUT_BATCH_STRIDE={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={}"
        " -DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_WEI_BATCH_STRIDE={} -DMLO_WEI_CHANNEL_STRIDE={}"
        " -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_IN_TILE1=1"
        " -DMLO_IN_TILE0={} -DMLO_N_LCL_BATCHS={} -DMLO_N_LCL_OUT_MAPS=1 -DMLO_N_LCL_IN_MAPS={}"
        " -DMLO_OUT_TILE0={} -DMLO_OUT_TILE1={} -DMLO_OUT_STACKS={} -DMLO_N_WAVES={}",
        p.GetInChannels() * in_h * in_w, in_h * in_w, in_w, p.GetOutChannels() * out_h * out_w, out_h * out_w, out_w,
        wei_bstride, wei_cstride, out_w, out_h, in_w, in_h, in_tile0, n_stacks, n_in_data_tiles, out_tile0, out_tile1,
        n_out_stacks, n_waves);
    plan.options += fmt::format(
        " -DMLO_READ_TYPE={} -DMLO_READ_UNIT={} -DMLO_HW_WAVE_SZ=64 -DMLO_LG2_PHYS_WAVE_SZ=6"
        " -DMLO_IN_EXTENT1={} -DMLO_IN_N_VERT_LOOPS={} -DMLO_IN_WIDTH_CHUNK={} -DMLO_IN_WIDTH_N_LOOPS={}"
        " -DMLO_IN_WIDTH_LAST_CHUNK_VALID_READ_UNITS={} -DMLO_IN_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_READ_UNIT={}"
        " -DMLO_OUT_WIDTH_CHUNK={} -DMLO_OUT_WIDTH_N_LOOPS={} -DMLO_OUT_WIDTH_LAST_CHUNK_VALID_SPANS={}"
        " -DMLO_OUT_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_SPAN={} -DMLO_CONV_BIAS={} -DMLO_UT_READ_TYPE={}"
        " -DMLO_UT_READ_UNIT={} -DMLO_UT_GRP_SZ0=256",
        read_type(read_unit), read_unit, out_n_vert_reads, out_n_vert_read_loops,
        horizon_loops == 1 ? static_cast<int>(out_w) : out_n_horizon_reads, horizon_loops, last_chunk_valid_read_units,
        last_read_unit_pixels, in_width_chunk, horizon_loops, last_chunk_valid_spans, last_span_pixels, p.GetBias(),
        read_type(ut_read_unit), ut_read_unit);
    plan.options += ctx.general_options;
    if (ctx.target.name().starts_with("gfx908"))
        plan.options += " -DMLO_DISABLE_PRAGMA_UNROLL_COMPILER_SWDEV_200074_WORKAROUND=1";
    plan.group_kernel = groups > 1;
    plan.reduce_kernel = n_batch_blks > 1;
    return plan;
}

class ConvOclBwdWrW53 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclBwdWrW53"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!legacy::ocl_direct_common_checks(p, ctx, why)) return false;
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
        const long fx = p.GetWeightsWidth(), fy = p.GetWeightsHeight(), pad_w = p.GetPadW();
        const bool fp16_compiler_crash =
            p.IsFp16() && ((fx == 7 && fy == 7 && (pad_w == 3 || pad_w == 2)) ||
                           (fx == 11 && fy == 11 && (pad_w == 5 || pad_w == 2 || pad_w == 1)));
        const bool fp32_wrong_result = p.IsFp32() && fx == 7 && fy == 7 && (pad_w == 3 || pad_w == 1) &&
                                       (p.GetOutHeight() % 112 == 0 || p.GetOutWidth() % 112 == 0);
        const bool width_1024 = p.IsFp32() && fx == 3 && fy == 3 && p.GetPadH() == 2 && pad_w == 2 &&
                                p.GetOutWidth() == 1024;
        const bool gfx908_nan = p.IsFp16() && ctx.target.name() == "gfx908" && fx == 7 && fy == 7 && pad_w == 1;
        if (fp16_compiler_crash || fp32_wrong_result || width_1024 || gfx908_nan)
            return reject(why, "MIOpen's compiler workarounds exclude this shape");
        if (!(p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetKernelStrideW() == 1 && p.GetKernelStrideH() == 1))
            return reject(why, "stride or dilation");
        if (!(fy >= p.GetPadH() + p.GetKernelStrideH() && fy <= p.GetOutHeight() + 2 * p.GetPadH()))
            return reject(why, "filter height against padding");
        if (p.GetInHeight() != p.GetOutHeight() + 2 * p.GetPadH() - fy + 1 ||
            p.GetInWidth() != p.GetOutWidth() + 2 * pad_w - fx + 1)
            return reject(why, "filter does not span the padded image");
        if (!solve(p, ctx)) return reject(why, "does not fit into LDS");
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto plan = solve(p, ctx);
        if (!plan) return {};
        std::vector<SolverKernel> out;
        if (plan->group_kernel) {
            out.push_back({"MIOpenGroupConvBwdWrW_LxG_P53.cl", {"MIOpenCvBwdWrW"}, plan->options});
            if (plan->reduce_kernel) out.push_back({"MIOpenConvBwdWrW_LxG_P53.cl", {"MIOpenCvBwdWrW_rdc"}, plan->options});
        } else {
            SolverKernel main{"MIOpenConvBwdWrW_LxG_P53.cl", {"MIOpenCvBwdWrW"}, plan->options};
            if (plan->reduce_kernel) main.symbols.push_back("MIOpenCvBwdWrW_rdc");
            out.push_back(std::move(main));
        }
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW53)

}  // namespace kdbgen
