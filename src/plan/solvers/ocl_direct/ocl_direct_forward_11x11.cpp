// ConvOclDirectFwd11x11: the OpenCL forward convolution for 11x11 filters
// with stride 4 (AlexNet's first layer), MIOpenConvFwd_LxL_11.cl, with a
// second pass for the rows left over. Not tunable.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2D11x11.cpp
// (same in rocm-6.2.0, src/solver/conv_ocl_dir2D11x11.cpp):
//   :41-67    IsApplicable (forward only)
//   :69-282   GetSolution: the option string, " -cl-denorms-are-zero  " and ctx.general_compile_options
//   :284-325  MIOpenCvFwd11x11, and MIOpenCvFwd11x11_2 when the last rows need a second pass
//   data_multiplier0 is 2 except on Windows; read_unit is 10 (:95-101, :135-140)
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdbgen {

namespace {

class ConvOclDirectFwd11x11 : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclDirectFwd11x11"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!legacy::ocl_direct_common_checks(p, ctx, why)) return false;
        const bool ok = p.IsDirectionForward() && p.GetGroupCount() == 1 && p.GetDilationH() == 1 &&
                        p.GetDilationW() == 1 && p.GetWeightsHeight() == 11 && p.GetWeightsWidth() == 11 &&
                        p.GetKernelStrideH() == 4 && p.GetKernelStrideW() == 4;
        return ok || reject(why, "not an ungrouped forward 11x11 with stride 4");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const long out_h = p.GetOutHeight(), out_w = p.GetOutWidth(), in_h = p.GetInHeight(), in_w = p.GetInWidth();
        const long K = p.GetOutChannels(), C = p.GetInChannels();
        const int wei_cstride = static_cast<int>(p.GetWeightsWidth() * p.GetWeightsHeight());
        const int splits0 = static_cast<int>((p.GetWeightsWidth() + p.GetKernelStrideW() - 1) / p.GetKernelStrideW());
        const int splits1 = static_cast<int>((p.GetWeightsHeight() + p.GetKernelStrideH() - 1) / p.GetKernelStrideH());
        const int out_pix_tile0 = splits0, out_pix_tile1 = 1;  // forward
        constexpr int grp_sz = 256;                           // 4 waves of 64
        const int processing_width = static_cast<int>((out_w + out_pix_tile0 - 1) / out_pix_tile0);
        const int out_extent1 = std::min(static_cast<int>(out_h), grp_sz / processing_width);
        const int n_out_pix_tiles = static_cast<int>(std::min<long>(6, K));
        int last_out_extent1 = static_cast<int>(out_h - std::max<long>(1, out_h / out_extent1) * out_extent1);
        last_out_extent1 = std::max(last_out_extent1, 0);
        int n_batches_pass2 = 1;
        const bool second_pass = 0 < last_out_extent1 && last_out_extent1 <= out_extent1 / 2;
        if (second_pass) n_batches_pass2 = std::max(1, grp_sz / (processing_width * last_out_extent1));
        const int tiles1 = static_cast<int>((out_h + out_pix_tile1 - 1 + 2 * p.GetPadH()) / out_pix_tile1);
        const int tiles0 = static_cast<int>((out_w + out_pix_tile0 - 1 + 2 * p.GetPadW()) / out_pix_tile0);
        const int rows_pgrp = std::min(tiles1, (grp_sz + tiles0 - 1) / tiles0);
        const int cols_pgrp = std::min(grp_sz, tiles0);
        const int in_data1 = static_cast<int>((rows_pgrp * out_pix_tile1) / p.GetKernelStrideH() - 1) + splits1 + 1;
        const int in_data0 = static_cast<int>((cols_pgrp * out_pix_tile0) / p.GetKernelStrideW() - 1) + splits0;
        const int lcl_bwd_sz = std::max(in_data1 * in_data0, wei_cstride * n_out_pix_tiles);

        std::string o = fmt::format(
            " -DMLO_DIR_FORWARD=1 -DMLO_GRP_SZ=256 -DMLO_GRP_SZ0=256 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1"
            " -DMLO_FILTER_SIZE0={0} -DMLO_FILTER_SIZE1={1} -DMLO_FILTER_PAD0={2} -DMLO_FILTER_PAD1={3}"
            " -DMLO_FILTER_STRIDE0={4} -DMLO_FILTER_STRIDE1={5} -DSTRIDE_W={4} -DSTRIDE_H={5}",
            p.GetWeightsWidth(), p.GetWeightsHeight(), p.GetPadW(), p.GetPadH(), p.GetKernelStrideW(),
            p.GetKernelStrideH());
        o += fmt::format(
            " -DMLO_N_OUTPUTS={} -DMLO_N_INPUTS={} -DMLO_BATCH_SZ={} -DMLO_N_BATCH_LOOPS=1"
            " -DMLO_OUT_BATCH_STRIDE={} -DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={}"
            " -DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_WEI_BATCH_STRIDE={} -DMLO_WEI_CHANNEL_STRIDE={}"
            " -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={}",
            K, C, p.GetBatchSize(), K * out_h * out_w, out_h * out_w, out_w, C * in_h * in_w, in_h * in_w, in_w,
            C * wei_cstride, wei_cstride, in_w, in_h, out_w, out_h);
        o += fmt::format(
            " -DMLO_IN_TILE1=1 -DMLO_IN_TILE0=1 -DMLO_N_LCL_BATCHS=1 -DMLO_N_LCL_OUT_MAPS={} -DMLO_N_LCL_IN_MAPS=1"
            " -DMLO_IN_PIX_TILE1=1 -DMLO_IN_PIX_TILE0=1 -DMLO_OUT_PIX_TILE1={} -DMLO_OUT_PIX_TILE0={}"
            " -DMLO_OUT_STACKS=1 -DMLO_IN_STACKS=1 -DMLO_N_WAVES=4 -DMLO_N_FILTER_SPLITS0={} -DMLO_N_FILTER_SPLITS1={}"
            " -DMLO_PROCESSING_WIDTH={} -DMLO_OUT_EXTENT1={} -DMLO_LAST_OUT_EXTENT1={} -DMLO_N_LCL_BATCHS_PASS2={}"
            " -DMLO_TILE_REPLICATE0=2 -DMLO_TILE_REPLICATE1=1 -DMLO_LCL_BWD_MEM_SZ={} -DMLO_N_IN_BWD_HORIZ_READS={}"
            " -DMLO_N_IN_BWD_VERT_READS={} -DMLO_READ_TYPE=_FLOAT10 -DMLO_READ_UNIT=10 -DMLO_HW_WAVE_SZ=64"
            " -DMLO_LG2_WAVE_SZ=6 -DMLO_N_WAVES_MASK=3 -DMLO_CONV_BIAS={} -cl-denorms-are-zero  ",
            n_out_pix_tiles, out_pix_tile1, out_pix_tile0, splits0, splits1, processing_width, out_extent1,
            last_out_extent1, n_batches_pass2, lcl_bwd_sz, in_data0, in_data1, p.GetBias());
        o += ctx.general_options;
        SolverKernel kernel{"MIOpenConvFwd_LxL_11.cl", {"MIOpenCvFwd11x11"}, o};
        if (second_pass) kernel.symbols.push_back("MIOpenCvFwd11x11_2");
        return {kernel};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclDirectFwd11x11)

}  // namespace kdbgen
