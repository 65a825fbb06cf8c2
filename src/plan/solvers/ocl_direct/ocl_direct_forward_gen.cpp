// ConvOclDirectFwdGen: the generic OpenCL forward convolution for large
// filters and strided non-1x1 filters (MIOpenConvDirGenFwd.cl). Not tunable.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_ocl_dir2Dfwdgen.cpp
// (same in rocm-6.2.0, src/solver/conv_ocl_dir2Dfwdgen.cpp):
//   :40-75    IsApplicable
//   :77-277   GetSolution: the option string (no leading space), then ctx.general_compile_options
//   :279-280  MIOpenCDFGen, or MIOpenCDFGen4 with more than one processing tile
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

int ceil_log2(int n) { return static_cast<int>(std::ceil(std::log(n) / std::log(2))); }

class ConvOclDirectFwdGen : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclDirectFwdGen"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!legacy::ocl_direct_common_checks(p, ctx, why)) return false;
        if (p.GetGroupCount() > 1) return reject(why, "grouped");
        if (!p.IsDirectionForward()) return reject(why, "not forward");
        const long fx = p.GetWeightsWidth(), fy = p.GetWeightsHeight();
        const bool ok = p.GetKernelStrideW() == p.GetKernelStrideH() && p.GetPadW() == p.GetPadH() &&
                        p.GetDilationW() == 1 && p.GetDilationH() == 1 &&
                        (fx > 11 || fy > 11 ||
                         (!(fx == 1 && fy == 1) && (p.GetKernelStrideW() > 1 || p.GetKernelStrideH() > 1)));
        return ok || reject(why, "neither a filter over 11 nor a strided non-1x1 filter");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const long N = p.GetBatchSize(), fx = p.GetWeightsWidth(), fy = p.GetWeightsHeight();
        const long stride_w = p.GetKernelStrideW(), stride_h = p.GetKernelStrideH();
        int n_in_stacks = (fy == 3 && fx == 3) ? ((N / 4) * 4 == N ? 4 : (N / 2) * 2 == N ? 2 : 1)
                                               : ((N / 2) * 2 == N ? 2 : 1);
        const int n_proc_supertiles = n_in_stacks;
        const int lg2n_proc_supertiles = ceil_log2(n_proc_supertiles);
        int n_out_stacks = 1;
        const int n_proc_supertile0 = static_cast<int>((n_in_stacks > 1 ? 32 : 16) / stride_w);
        const int n_proc_supertile1 = ((n_in_stacks > 1 && (fy >= 11 || fx >= 11)) ? 32 : 16) / n_in_stacks;
        const int lg2n_proc_supertile1 = ceil_log2(n_proc_supertile1);
        const int group0 = n_proc_supertile0, group1 = n_proc_supertile1 * n_proc_supertiles;
        const bool wide_filter_stride = fx >= 11 && stride_w >= 4;
        int n_outs = (p.GetInWidth() >= 384 || wide_filter_stride) ? 16 : 32;
        const int n_out_pix_horiz = (p.GetInWidth() < 320 || wide_filter_stride) ? 1 : 2;
        const int n_out_pix_vert = 1;
        const long n_v_proc0 = (p.GetOutWidth() + n_out_pix_horiz - 1) / n_out_pix_horiz;
        const long n_v_proc1 = (p.GetOutHeight() + n_out_pix_vert - 1) / n_out_pix_vert;
        const int n_procs0 = n_proc_supertile0, n_procs1 = n_proc_supertile1;
        const long in_sz0 = (n_procs0 * n_out_pix_horiz - 1) * stride_w + 1;
        const long in_sz1 = (n_procs1 * n_out_pix_vert - 1) * stride_h + 1;
        n_outs = std::min(n_outs, static_cast<int>(p.GetOutChannels()));
        const int n_ins = std::min(1, static_cast<int>(N));
        n_out_stacks = static_cast<long>(n_outs) * n_out_stacks <= p.GetOutChannels() ? n_out_stacks : 1;
        n_in_stacks = static_cast<long>(n_ins) * n_in_stacks <= N ? n_in_stacks : 1;
        const int total_ins = n_ins * n_in_stacks, total_outs = n_outs * n_out_stacks;
        // n_out_blocks (:154) only sizes the launch grid (gbl2, :175), which is not in the key.
        const long n_stack_blocks = (N + total_ins - 1) / total_ins;
        const int batch_aligned = (N / n_stack_blocks) * n_stack_blocks == N ? 1 : 0;
        const int out_aligned = (p.GetOutChannels() / total_outs) * total_outs == p.GetOutChannels() ? 1 : 0;
        const long gbl0 = ((n_v_proc0 + n_procs0 - 1) / n_procs0) * n_procs0;
        const long gbl1 = ((n_v_proc1 + n_procs1 - 1) / n_procs1) * n_procs1 * n_proc_supertiles;
        const int aligned_out = (gbl0 != n_v_proc0 || gbl1 != n_v_proc1) ? 0 : 1;
        const long in_h = p.GetInHeight(), in_w = p.GetInWidth(), out_h = p.GetOutHeight(), out_w = p.GetOutWidth();

        std::string options = fmt::format(
            "-DMLO_GRP_SZ={} -DMLO_GRP_SZ0={} -DMLO_GRP_SZ1={} -DMLO_GRP_SZ2=1 -DMLO_LCL_N_IN_CHNLS={} "
            "-DMLO_LCL_N_OUT_CHNLS={} -DMLO_OUT_STACKS={} -DMLO_IN_STACKS={} -DMLO_BATCH_SZ={} -DMLO_FLTR_SZ0={} "
            "-DMLO_FLTR_PAD_SZ0={} -DMLO_FLTR_STRIDE0={} -DMLO_FLTR_SZ1={} -DMLO_FLTR_PAD_SZ1={} "
            "-DMLO_FLTR_STRIDE1={} -DMLO_N_OUT_CHNLS={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_OUT_STRIDE={} "
            "-DMLO_OUT_CHNL_STRIDE={} -DMLO_OUT_BATCH_STRIDE={} -DMLO_N_OUT_PIX_SZ0={} -DMLO_N_OUT_PIX_SZ1={}",
            static_cast<long long>(group0) * group1, group0, group1, n_ins, n_outs, n_out_stacks, n_in_stacks, N, fx,
            p.GetPadW(), stride_w, fy, p.GetPadH(), stride_h, p.GetOutChannels(), out_w, out_h, out_w, out_h * out_w,
            p.GetOutChannels() * out_h * out_w, n_out_pix_horiz, n_out_pix_vert);
        options += fmt::format(
            " -DMLO_N_IN_CHNLS={} -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} -DMLO_IN_STRIDE={} -DMLO_IN_CHNL_STRIDE={} "
            "-DMLO_IN_BATCH_STRIDE={} -DMLO_N_IN_PIX_SZ0={} -DMLO_N_IN_PIX_SZ1={} -DMLO_WEI_SZ={} "
            "-DMLO_WEIGHTS_STRIDE={} -DMLO_N_STACKS={} -DMLO_N_PROCS0={} -DMLO_N_PROCS1={} -DMLO_ALIGNED={} "
            "-DMLO_BATCH_ALIGNED={} -DMLO_OUT_ALINED={} -DMLO_IN_SZ0={} -DMLO_IN_SZ1={} -DMLO_LG2N_PROC_TILES={} "
            "-DMLO_LG2N_PROC_TILE1={} -DMLO_BIG=1 -DMLO_CONV_BIAS={}",
            p.GetInChannels(), in_w, in_h, in_w, in_h * in_w, p.GetInChannels() * in_h * in_w, n_out_pix_horiz,
            n_out_pix_vert, p.GetOutChannels() * p.GetInChannels() * fx * fy, p.GetInChannels() * fx * fy,
            n_stack_blocks, n_procs0, n_procs1, aligned_out, batch_aligned, out_aligned, in_sz0, in_sz1,
            lg2n_proc_supertiles, lg2n_proc_supertile1, p.GetBias());
        options += ctx.general_options;
        return {{"MIOpenConvDirGenFwd.cl", {n_proc_supertiles == 1 ? "MIOpenCDFGen" : "MIOpenCDFGen4"}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclDirectFwdGen)

}  // namespace kdbgen
