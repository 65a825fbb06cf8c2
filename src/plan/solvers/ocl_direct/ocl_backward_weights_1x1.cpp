// ConvOclBwdWrW1x1: the OpenCL 1x1 weights-gradient convolution
// (MIOpenConvBwdWrW1x1_PAD_read4.cl), with a SubSample pre-pass
// (MIOpenUtilKernels3.cl) for unpadded strided problems. Not tunable.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2D_bwdWrW_1x1.cpp
// (same in rocm-6.2.0, src/solver/conv_ocl_dir2D_bwdWrW_1x1.cpp):
//   :35-37    TWO_PASSES 1, WORKAROUND_SWDEV_266868 1 (off on gfx10/gfx11 unless asked for)
//   :45-88    IsApplicable (channels multiples of 16)
//   :90-102   GetNPasses
//   :120-385  GetSolution: the option string (its " -DMLO_GRP_SZ1=1 " pieces leave
//             double spaces), then ctx.general_compile_options
//   :387-458  SubSample first when two passes, then MIOpenCvBwdWrW_8x8map / _16x16map
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

int n_passes(const ConvView& p) {
    return ((p.GetBatchSize() >= 16 || 2 * p.GetOutChannels() > p.GetInChannels()) && p.GetPadH() == 0 &&
            p.GetPadW() == 0 && (p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1))
               ? 2
               : 1;
}

int unit_dividing(long n) { return n % 4 == 0 ? 4 : n % 3 == 0 ? 3 : n % 2 == 0 ? 2 : 1; }

class ConvOclBwdWrW1x1 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclBwdWrW1x1"; }
    bool uses_general_options() const override { return true; }
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        if (ctx.target.name().starts_with("gfx10") || ctx.target.name().starts_with("gfx11"))
            return "WORKAROUND_SWDEV_266868: off on gfx10/gfx11 unless MIOPEN_DEBUG_CONV_DIRECT_OCL_WRW1X1=1 "
                   "(conv_ocl_dir2D_bwdWrW_1x1.cpp:37, :48-54)";
        return DeprecatedSolver::disabled_by_default(p, ctx);
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (ctx.target.name().starts_with("gfx10") || ctx.target.name().starts_with("gfx11"))
            return reject(why, "off on gfx10/gfx11 (WORKAROUND_SWDEV_266868)");
        if (!legacy::ocl_direct_common_checks(p, ctx, why)) return false;
        if (!p.IsDirectionBackwardWrW()) return reject(why, "not WrW");
        if (!(p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && p.GetDilationW() == 1 &&
              p.GetDilationH() == 1 && p.GetGroupCount() == 1))
            return reject(why, "not an ungrouped, undilated 1x1");
        if ((p.GetInChannels() & 0xF) > 0 || (p.GetOutChannels() & 0xF) > 0)
            return reject(why, "channels not multiples of 16");
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const int passes = n_passes(p);
        const long stride_w = p.GetKernelStrideW(), stride_h = p.GetKernelStrideH();
        const long pad_w = p.GetPadW(), pad_h = p.GetPadH();
        const bool subsample = passes > 1 && pad_h == 0 && pad_w == 0 && (stride_w > 1 || stride_h > 1);
        const int n_lcl_maps =
            4 * ((p.GetOutChannels() + 15) / 16) * ((p.GetInChannels() + 15) / 16) >= 512 ? 16 : 8;
        const long n_out_blocks = (p.GetInChannels() + n_lcl_maps - 1) / n_lcl_maps;
        const long n_in_blocks = (p.GetOutChannels() + n_lcl_maps - 1) / n_lcl_maps;
        const int n_grp_size0 = n_in_blocks * n_out_blocks < 512 ? 256 : 64;
        const int n_load_dwords_per_map_once = n_lcl_maps == 16 ? 16 : 64;

        // A WrW problem's "in" is dy and its "out" is x; the kernel's MLO_IN_* describe x.
        const long out_w = p.GetOutWidth(), out_h = p.GetOutHeight(), dy_w = p.GetInWidth(), dy_h = p.GetInHeight();
        const long in_width = passes > 1 ? dy_w : out_w;
        const long in_height = passes > 1 ? dy_h : out_h;
        const long in_stride = passes > 1 ? dy_w : out_w;
        const long in_channel_stride = passes > 1 ? in_stride * in_height : out_h * out_w;
        const long in_batch_stride = passes > 1 ? in_channel_stride * p.GetOutChannels() : p.GetOutChannels() * out_h * out_w;
        const long out_batch_stride = p.GetInChannels() * dy_h * dy_w, out_channel_stride = dy_h * dy_w, out_stride = dy_w;
        const long wei_batch_stride = p.GetInChannels() * p.GetOutChannels();
        const long wei_channel_stride = p.GetOutChannels();
        int read_unit = 4;
        long max_loads = (out_channel_stride / read_unit) * p.GetBatchSize();

        long out_pad_min_x = 0, out_pad_min_y = 0, out_pad_width = dy_w, out_pad_height = dy_h;
        long in_pad_min_x = 0, in_pad_min_y = 0;
        if (pad_w > 0) {
            in_pad_min_x = (stride_w - pad_w % stride_w) % stride_w;
            out_pad_min_x = (pad_w + stride_w - 1) / stride_w;
            out_pad_width = (out_w - in_pad_min_x + stride_w - 1) / stride_w;
        }
        if (pad_h > 0) {
            in_pad_min_y = (stride_h - pad_h % stride_h) % stride_h;
            out_pad_min_y = (pad_h + stride_h - 1) / stride_h;
            out_pad_height = (out_h - in_pad_min_y + stride_h - 1) / stride_h;
        }
        if (pad_w > 0 || pad_h > 0 || (passes == 1 && (stride_w > 1 || stride_h > 1))) {
            read_unit = unit_dividing(out_pad_width);
            max_loads = (out_pad_width / read_unit) * out_pad_height * p.GetBatchSize();
        }
        const long kernel_stride_w = subsample ? 1 : stride_w, kernel_stride_h = subsample ? 1 : stride_h;

        std::string options = fmt::format(
            " -DMLO_GRP_SZ0={} -DMLO_GRP_SZ1=1  -DMLO_GRP_SZ2=1  -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  -DMLO_GRP0_SZ2=1 "
            " -DMLO_FILTER_SIZE0=1 -DMLO_FILTER_SIZE1=1 -DMLO_FILTER_PAD0={} -DMLO_FILTER_PAD1={}"
            " -DMLO_FILTER_STRIDE0={} -DMLO_FILTER_STRIDE1={} -DMLO_FILTER0_STRIDE0={} -DMLO_FILTER0_STRIDE1={}"
            " -DMLO_N_OUTPUTS={} -DMLO_N_INPUTS={} -DMLO_BATCH_SZ={} -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={}"
            " -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_N_LOAD_DWORDS_PER_MAP_ONCE={} -DMLO_N_LCL_IN_MAPS={}"
            " -DMLO_N_LCL_OUT_MAPS={} -DMLO_READ_UNIT={} -DMLO_WRITE_UNIT={}",
            n_grp_size0, pad_w, pad_h, kernel_stride_w, kernel_stride_h, stride_w, stride_h, p.GetInChannels(),
            p.GetOutChannels(), p.GetBatchSize(), in_width, in_height, dy_w, dy_h, n_load_dwords_per_map_once, n_lcl_maps,
            n_lcl_maps, read_unit, unit_dividing(out_pad_width));
        options += fmt::format(
            " -DMLO_OUT_BATCH_STRIDE={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={}"
            " -DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_IN0_BATCH_STRIDE={} -DMLO_IN0_CHANNEL_STRIDE={}"
            " -DMLO_IN0_STRIDE={} -DMLO_WEI_BATCH_STRIDE={} -DMLO_WEI_CHANNEL_STRIDE={} -DMLO_MAX_LOADS={}"
            " -DMLO_ACCUM_SZ=64 -DMLO_OUT_READ_SZ={} -DMLO_IN_READ_SZ={} -DMLO_OUT_CHANNEL_READ_SZ={}"
            " -DMLO_N_IN_TILE_BLOCK=8 -DMLO_N_LCL_OUT_MAPS_ONCE=8 -DMLO_N_LCL_IN_MAPS_ONCE=8"
            " -DMLO_IN_PAD_MIN_X={} -DMLO_IN_PAD_MIN_Y={} -DMLO_OUT_PAD_MIN_X={} -DMLO_OUT_PAD_MIN_Y={}"
            " -DMLO_OUT_PAD_WIDTH={} -DMLO_OUT_PAD_HEIGHT={} -DMLO_TWO_PASSES={}",
            out_batch_stride, out_channel_stride, out_stride, in_batch_stride, in_channel_stride, in_stride,
            p.GetOutChannels() * out_h * out_w, out_h * out_w, out_w, wei_batch_stride, wei_channel_stride, max_loads,
            n_lcl_maps * read_unit, n_lcl_maps * read_unit, out_channel_stride / read_unit, in_pad_min_x, in_pad_min_y,
            out_pad_min_x, out_pad_min_y, out_pad_width, out_pad_height, passes == 1 ? 0 : 1);
        options += ctx.general_options;

        std::vector<SolverKernel> out;
        if (subsample) out.push_back({"MIOpenUtilKernels3.cl", {"SubSample"}, options});
        out.push_back({"MIOpenConvBwdWrW1x1_PAD_read4.cl",
                       {n_lcl_maps == 16 ? "MIOpenCvBwdWrW_16x16map" : "MIOpenCvBwdWrW_8x8map"},
                       options});
        return out;
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclBwdWrW1x1)

}  // namespace kdbgen
