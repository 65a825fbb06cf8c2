// ConvOclDirectFwd: the universal OpenCL direct convolution, forward and
// backward data (MIOpenConvDirUni.cl). Tunable: its parameters come from the
// perf-db record for the problem, or else MIOpen's default heuristic.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/:
//   conv_ocl_dir2Dfwd.cpp:46-120    IsApplicable
//   conv_ocl_dir2Dfwd.cpp:122-228   IsValidPerformanceConfig
//   conv_ocl_dir2Dfwd.cpp:230-468   BaseGetSolution: the -DMLO_* option string, then
//                                   ctx.general_compile_options, then the group defines
//   conv_ocl_dir2Dfwd.cpp:470-485   GetSolution: + " -DMLO_CONV_BIAS=<bias>"
//   conv_ocl_dir2Dfwd_exhaustive_search.cpp:100-170  GetDefaultPerformanceConfig
//   src/solver.cpp:716-732          deprecated solvers: only gfx803/900/906/908/90a/gfx103x
//   src/include/miopen/find_solution.hpp:80-120  perf-db record first (if valid), else default
//   src/include/miopen/legacy_exhaustive_search.hpp:64-75  record order of the 9 parameters
#include "legacy_config.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kdbgen {

namespace {

using legacy::LegacyConfig;
using legacy::default_config;

// What BaseGetSolution derives from a configuration; nullopt where MIOpen
// reports the configuration invalid.
struct Derived {
    LegacyConfig r;
    int alu_tile0 = 0, alu_tile1 = 0, n_out_tiles_perstack = 0, n_read_procs = 0;
};

std::optional<Derived> derive(const ConvView& p, const LegacyConfig& config) {
    Derived d;
    d.r = config;
    auto& r = d.r;
    const int groups = static_cast<int>(p.GetGroupCount());
    r.n_in_data_tiles = std::min(static_cast<int>(p.GetInChannels()) / groups, config.n_in_data_tiles);
    r.n_out_pix_tiles = std::min(static_cast<int>(p.GetOutChannels()) / groups, config.n_out_pix_tiles);
    r.out_pix_tile1 = (!p.IsDirectionForward() && p.GetKernelStrideH() > 1) ? static_cast<int>(p.GetKernelStrideH())
                                                                            : config.out_pix_tile1;
    r.out_pix_tile0 = (!p.IsDirectionForward() && p.GetKernelStrideW() > 1) ? static_cast<int>(p.GetKernelStrideW())
                                                                            : config.out_pix_tile0;
    if (r.out_pix_tile1 == 0 || r.out_pix_tile0 == 0) return std::nullopt;
    r.grp_tile0 = std::max(8, r.in_tile0 / r.out_pix_tile0);
    r.grp_tile1 = std::max(8, r.in_tile1 / r.out_pix_tile1);
    r.in_tile0 = r.grp_tile0 * r.out_pix_tile0;
    r.in_tile1 = r.grp_tile1 * r.out_pix_tile1;
    d.alu_tile0 = (r.in_tile0 + r.out_pix_tile0 - 1) / r.out_pix_tile0;
    d.alu_tile1 = (r.in_tile1 + r.out_pix_tile1 - 1) / r.out_pix_tile1;
    const int alu_tiles_sz = d.alu_tile0 * d.alu_tile1;
    if (alu_tiles_sz > 256 || alu_tiles_sz == 0) return std::nullopt;
    const int n_alus_total = r.grp_tile0 * r.grp_tile1;
    r.n_stacks = std::min(r.n_stacks, (n_alus_total + alu_tiles_sz - 1) / alu_tiles_sz);
    r.n_stacks = std::min(static_cast<int>(p.GetBatchSize()), r.n_stacks);
    if (r.n_stacks == 0) return std::nullopt;
    const int n_alus_perstack = (n_alus_total + r.n_stacks - 1) / r.n_stacks;
    if (r.grp_tile1 * r.grp_tile0 <= r.in_tile1 * r.in_tile0) {
        d.n_read_procs = r.grp_tile1 * r.grp_tile0;
    } else {
        const float ratio = static_cast<float>(r.in_tile1 * r.in_tile0) / static_cast<float>(r.grp_tile1 * r.grp_tile0);
        d.n_read_procs = ratio <= 0.25f ? (r.grp_tile1 * r.grp_tile0) / 4
                         : ratio <= 0.5f ? (r.grp_tile1 * r.grp_tile0) / 2
                                         : r.grp_tile1 * r.grp_tile0;
    }
    const int n_alu_tiles_perstack = (n_alus_perstack + alu_tiles_sz - 1) / alu_tiles_sz;
    d.n_out_tiles_perstack = std::min(n_alu_tiles_perstack * r.n_out_pix_tiles,
                                      static_cast<int>(p.GetOutChannels()) / groups);
    if (d.n_out_tiles_perstack == 0) return std::nullopt;
    return d;
}

bool valid_config(const ConvView& p, const LegacyConfig& config) {
    const auto d = derive(p, config);
    if (!d) return false;
    const long long fs0 = p.GetWeightsWidth(), fs1 = p.GetWeightsHeight();
    const long long st0 = p.GetKernelStrideW(), st1 = p.GetKernelStrideH();
    long long lcl_w = 0, lcl_h = 0;
    if (p.IsDirectionForward()) {
        lcl_w = (d->r.in_tile0 - 1) * st0 + fs0;
        lcl_h = (d->r.in_tile1 - 1) * st1 + fs1;
    } else {
        lcl_w = (d->r.in_tile0 + fs0 - 1 + st0 - 1) / st0;
        lcl_h = (d->r.in_tile1 + fs1 - 1 + st1 - 1) / st1;
    }
    const long long in_lcl_sz = lcl_w * lcl_h * d->r.n_in_data_tiles * d->r.n_stacks;
    const long long weights_sz = static_cast<long long>(d->n_out_tiles_perstack) * d->r.n_in_data_tiles * fs0 * fs1;
    const long long type_size = p.IsFp32() ? 4 : 2;
    return (in_lcl_sz + weights_sz) * type_size <= 65536;
}

class ConvOclDirectFwd : public DeprecatedSolver {
public:
    std::string_view name() const override { return "ConvOclDirectFwd"; }
    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        if (!legacy::ocl_direct_preconditions(p, ctx, why)) return false;
        if (p.IsDirectionBackwardData() && (p.GetBackwardPadW() < 0 || p.GetBackwardPadH() < 0))
            return reject(why, "negative backward padding");
        if (p.GetGroupCount() == 1) {
            const long fy = p.GetWeightsHeight(), fx = p.GetWeightsWidth();
            const bool supported =
                (fy == fx && (fy == 3 || fy == 5 || fy == 7 || fy == 9 || fy == 11)) ||
                ((fx == 10 || fx == 20) && fy == 5 && p.GetKernelStrideH() == 2 && p.GetKernelStrideW() == 2 &&
                 p.GetPadH() == 0 && p.GetPadW() == 0) ||
                (p.IsFp16() && fy == 4 && fx == 4 && p.GetPadH() == 0 && p.GetPadW() == 0);
            if (!supported) return reject(why, "filter size");
        }
        const bool ok = p.GetKernelStrideW() == p.GetKernelStrideH() && p.GetPadW() == p.GetPadH() &&
                        p.GetDilationW() == 1 && p.GetDilationH() == 1 &&
                        !(p.GetKernelStrideW() > 2 || p.GetKernelStrideH() > 2) &&
                        !(p.GetGroupCount() == 1 && p.GetWeightsHeight() == 1 && p.GetWeightsWidth() == 1) &&
                        !(p.IsDirectionForward() && p.IsFp16() && p.GetKernelStrideW() == 2) &&
                        valid_config(p, default_config(p));
        return ok || reject(why, "stride, padding, dilation or default configuration");
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const LegacyConfig config =
            legacy::config_for(p, ctx, name(), [&](const LegacyConfig& c) { return valid_config(p, c); });
        const auto d = derive(p, config);
        if (!d) return {};
        const auto& r = d->r;
        const long pad_w = p.IsDirectionForward() ? p.GetPadW() : p.GetBackwardPadW();
        const long pad_h = p.IsDirectionForward() ? p.GetPadH() : p.GetBackwardPadH();
        const long in_w = p.GetInWidth(), in_h = p.GetInHeight(), out_w = p.GetOutWidth(), out_h = p.GetOutHeight();
        const long groups = p.GetGroupCount();
        std::string options = fmt::format(
            " -DMLO_HW_WAVE_SZ=64 -DMLO_DIR_FORWARD={} -DMLO_FILTER_SIZE0={} -DMLO_FILTER_SIZE1={} -DMLO_FILTER_PAD0={} "
            "-DMLO_FILTER_PAD1={} -DMLO_FILTER_STRIDE0={} -DMLO_FILTER_STRIDE1={} -DMLO_N_OUTPUTS={} -DMLO_N_INPUTS={} "
            "-DMLO_BATCH_SZ={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_OUT_BATCH_STRIDE={} "
            "-DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_WIDTH={} -DMLO_IN_HEIGHT={} "
            "-DMLO_IN_BATCH_STRIDE={} -DMLO_IN_CHANNEL_STRIDE={} -DMLO_IN_STRIDE={} -DMLO_IN_TILE0={} -DMLO_IN_TILE1={} "
            "-DMLO_GRP_TILE0={} -DMLO_GRP_TILE1={} -DMLO_OUT_TILE0={} -DMLO_OUT_TILE1={} -DMLO_N_STACKS={} "
            "-DMLO_N_OUT_TILES={} -DMLO_N_OUT_TILES_PERSTACK={} -DMLO_N_IN_TILES_PERSTACK={} -DMLO_N_READ_PROCS={} "
            "-DMLO_ALU_VTILE0={} -DMLO_ALU_VTILE1={}",
            p.IsDirectionForward() ? 1 : 0, p.GetWeightsWidth(), p.GetWeightsHeight(), pad_w, pad_h,
            p.GetKernelStrideW(), p.GetKernelStrideH(), p.GetOutChannels(), p.GetInChannels(), p.GetBatchSize(), out_w,
            out_h, p.GetOutChannels() * out_h * out_w, out_h * out_w, out_w, in_w, in_h,
            p.GetInChannels() * in_h * in_w, in_h * in_w, in_w, r.in_tile0, r.in_tile1, r.grp_tile0, r.grp_tile1,
            r.out_pix_tile0, r.out_pix_tile1, r.n_stacks, r.n_out_pix_tiles, d->n_out_tiles_perstack,
            r.n_in_data_tiles, d->n_read_procs, d->alu_tile0, d->alu_tile1);
        options += ctx.general_options;
        if (groups >= 2)
            options += fmt::format(" -DMLO_GROUP_COUNTS={} -DMLO_GROUP_TILES={} -DMLO_STACK_PERGROUP={} -DGRP_MOD_ENABLE",
                                   groups, p.GetOutChannels() / groups,
                                   (p.GetOutChannels() / groups + d->n_out_tiles_perstack - 1) / d->n_out_tiles_perstack);
        options += fmt::format(" -DMLO_CONV_BIAS={}", p.GetBias());
        return {{"MIOpenConvDirUni.cl", {"MIOpenConvUni"}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvOclDirectFwd)

}  // namespace kdbgen
