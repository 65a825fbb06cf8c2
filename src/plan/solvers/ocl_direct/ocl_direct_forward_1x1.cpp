// ConvOclDirectFwd1x1: OpenCL 1x1 convolutions, forward and backward data.
// Tunable with the legacy parameters (perf-db record, else the default).
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2Dfwd1x1.cpp:
//   :37, :48-96      WORKAROUND_SWDEV_271887 (off on gfx10/gfx11) and IsApplicable
//   :98-245          GetSolution, FP32 forward with C, K multiples of 16: MIOpenConv1x1J1[_stride].cl
//   :247-420         GetSolution otherwise: MIOpenConv1x1S.cl
//   src/include/miopen/conv/solvers.hpp:1792-1806  every configuration is valid
//   src/solver.cpp:716-732  deprecated solvers: only gfx803/900/906/908/90a/gfx103x
#include "legacy_config.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdbgen {

namespace {

using legacy::LegacyConfig;

class ConvOclDirectFwd1x1 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclDirectFwd1x1"; }
    bool uses_general_options() const override { return true; }
    std::optional<std::string> disabled_by_default(const ConvView& p, const SolverContext& ctx) const override {
        const std::string_view device = ctx.target.name();
        if (device.starts_with("gfx10") || device.starts_with("gfx11"))
            return "WORKAROUND_SWDEV_271887: off on gfx10/gfx11 unless MIOPEN_DEBUG_CONV_DIRECT_OCL_FWD1X1=1 "
                   "(conv_ocl_dir2Dfwd1x1.cpp:34, :60-68)";
        return DeprecatedSolver::disabled_by_default(p, ctx);
    }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        const std::string_view device = ctx.target.name();
        if (device.starts_with("gfx10") || device.starts_with("gfx11")) return reject(why, "off on gfx10/gfx11 (SWDEV-271887)");
        if (!legacy::ocl_direct_preconditions(p, ctx, why)) return false;
        const bool ok = p.GetDilationW() == 1 && p.GetDilationH() == 1 && p.GetWeightsWidth() == 1 &&
                        p.GetWeightsHeight() == 1 && p.GetGroupCount() == 1 && p.GetPadW() == 0 && p.GetPadH() == 0;
        return ok || reject(why, "not an ungrouped, unpadded, undilated 1x1");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        LegacyConfig r = legacy::config_for(p, ctx, name(), [](const LegacyConfig&) { return true; });
        const int C = static_cast<int>(p.GetInChannels()), K = static_cast<int>(p.GetOutChannels());
        if (p.IsDirectionForward() && C % 16 == 0 && K % 16 == 0 && p.IsFp32()) {
            int n_lcl_in_maps = std::min(r.n_in_data_tiles, C);
            int n_lcl_out_maps = std::min(r.n_out_pix_tiles, K);
            while (K % n_lcl_out_maps != 0 && n_lcl_out_maps > 16) n_lcl_out_maps /= 2;
            if (!(n_lcl_in_maps < C && n_lcl_in_maps > 0 && n_lcl_in_maps % 8 == 0)) n_lcl_in_maps = C;
            const int n_in_groups = (C + n_lcl_in_maps - 1) / n_lcl_in_maps;
            const bool strided = p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1;
            const int once = strided ? 4 : 8;
            const int cloop0 = n_lcl_in_maps / once;
            const int cloop2 = (C - n_lcl_in_maps * (n_in_groups - 1)) / once;
            const std::string options = fmt::format(
                " -DMLO_FILTER_STRIDE0={} -DMLO_FILTER_STRIDE1={} -DMLO_N_LCL_IN_MAPS_ONCE={} -DBATCHSIZE={} -DH={} "
                "-DW={} -DC={} -DK={} -DMLO_N_LCL_IN_MAPS={} -DMLO_N_INPUTS={} -DMLO_N_OUTPUTS={} -DH_out={} -DW_out={} "
                "-DMLO_N_IN_GROUPS={} -DMLO_CLOOP0={} -DMLO_CLOOP2={} -DMLO_N_LCL_OUT_MAPS={} "
                "-DMLO_CHEAT_SHADER_COMPILER={} -DMLopen_RUNNING=1{}",
                p.GetKernelStrideW(), p.GetKernelStrideH(), once, p.GetBatchSize(), p.GetInHeight(), p.GetInWidth(), C,
                K, n_lcl_in_maps, C, K, p.GetOutHeight(), p.GetOutWidth(), n_in_groups, cloop0, cloop2, n_lcl_out_maps,
                r.out_pix_tile0, ctx.general_options);
            return {{strided ? "MIOpenConv1x1J1_stride.cl" : "MIOpenConv1x1J1.cl", {"MIOpenConv1x1"}, options}};
        }
        const bool forward = p.IsDirectionForward();
        const long out_w = p.GetOutWidth(), out_h = p.GetOutHeight(), in_w = p.GetInWidth(), in_h = p.GetInHeight();
        r.out_pix_tile0 = static_cast<int>(std::min<long>(out_w, r.out_pix_tile0));
        r.out_pix_tile1 = static_cast<int>(std::min<long>(out_h, r.out_pix_tile1));
        if (!forward)
            while (r.out_pix_tile0 > 1 && out_w % r.out_pix_tile0 != 0) r.out_pix_tile0 /= 2;
        int read_unit = r.out_pix_tile0;
        while (read_unit > 1 && in_w % read_unit != 0) read_unit /= 2;
        if (read_unit <= 0) return {};  // MIOpen divides by it: no valid kernel
        const long wei_cstride = p.GetWeightsWidth() * p.GetWeightsHeight();
        const long wei_bstride = (forward ? p.GetInChannels() : p.GetOutChannels()) * wei_cstride;
        long out_width4 = out_w;
        long map_sz4 = (out_width4 * out_h + read_unit - 1) / read_unit;
        if (p.GetPadW() > 0 || p.GetKernelStrideW() > 1 || p.GetPadH() > 0 || p.GetKernelStrideH() > 1) {
            const long step = forward ? read_unit : read_unit * p.GetKernelStrideW();
            out_width4 = (out_w + step - 1) / step;
            const long out_height4 = forward ? out_h : (out_h + p.GetKernelStrideH() - 1) / p.GetKernelStrideH();
            map_sz4 = out_width4 * out_height4;
        }
        int vert_aligned = 1, horiz_aligned = 1;
        if (!forward) {
            vert_aligned = out_h / p.GetKernelStrideH() == in_h ? 1 : 0;
            horiz_aligned = out_w / p.GetKernelStrideW() == in_w ? 1 : 0;
        }
        r.n_in_data_tiles = std::min(C, r.n_in_data_tiles);
        while (r.n_in_data_tiles > 1 && C % r.n_in_data_tiles != 0) r.n_in_data_tiles /= 2;
        if (r.n_in_data_tiles <= 0) return {};
        const int cloop0 = (C + r.n_in_data_tiles - 1) / r.n_in_data_tiles;
        r.n_out_pix_tiles = std::min(K, r.n_out_pix_tiles);
        while (r.n_out_pix_tiles > 1 && K % r.n_out_pix_tiles != 0) r.n_out_pix_tiles /= 2;
        const std::string options = fmt::format(
            " -DMLO_DIR_FORWARD={} -DMLO_FILTER_SIZE0={} -DMLO_FILTER_SIZE1={} -DMLO_FILTER_STRIDE0={} "
            "-DMLO_FILTER_STRIDE1={} -DMLO_FILTER_PAD0={} -DMLO_FILTER_PAD1={} -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} "
            "-DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_N_OUTPUTS={} -DMLO_N_INPUTS={} -DMLO_BATCH_SZ={} "
            "-DMLO_OUT_BATCH_STRIDE={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={} "
            "-DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_WEI_BSTRIDE={} -DMLO_WEI_CHANNEL_STRIDE={} "
            "-DMLO_GRP_SZ0={} -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 -DMLO_MAP_SZ4={} -DMLO_OUT_WIDTH4={} "
            "-DMLO_VERT_ALIGNED={} -DMLO_HORIZ_ALIGNED={} -DMLO_N_LCL_BATCHS={} -DMLO_N_LCL_OUT_MAPS={} "
            "-DMLO_N_LCL_IN_MAPS={} -DMLO_CONV_BIAS={} -DMLO_READ_UNIT={} -DMLO_CLOOP0={}{}",
            forward ? 1 : 0, p.GetWeightsWidth(), p.GetWeightsHeight(), p.GetKernelStrideW(), p.GetKernelStrideH(),
            p.GetPadW(), p.GetPadH(), in_w, in_h, out_w, out_h, K, C, p.GetBatchSize(), K * out_h * out_w,
            out_h * out_w, out_w, C * in_h * in_w, in_h * in_w, in_w, wei_bstride, wei_cstride, r.grp_tile0, map_sz4,
            out_width4, vert_aligned, horiz_aligned, r.n_stacks, r.n_out_pix_tiles, r.n_in_data_tiles, p.GetBias(),
            read_unit, cloop0, ctx.general_options);
        const bool unit_stride = p.GetKernelStrideW() == 1 && p.GetKernelStrideH() == 1;
        return {{"MIOpenConv1x1S.cl", {unit_stride ? "MIOpenConv1x1" : "MIOpenConv1x1pquv"}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclDirectFwd1x1)

}  // namespace kdbgen
