// LegacyPerformanceConfig, the nine tuning parameters of MIOpen's OpenCL
// direct convolutions, and their default (shared by ConvOclDirectFwd and
// ConvOclDirectFwd1x1, which both derive from
// ConvOclDirectFwdLegacyExhaustiveSearch).
//   src/include/miopen/legacy_exhaustive_search.hpp:64-75   record order (MIOpen 3.3.0)
//   src/solver/conv/conv_ocl_dir2Dfwd_exhaustive_search.cpp:100-170  GetDefaultPerformanceConfig
#pragma once

#include "kdbgen/solver.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace kdbgen::legacy {

struct LegacyConfig {
    int grp_tile1 = 0, grp_tile0 = 0, in_tile1 = 0, in_tile0 = 0, out_pix_tile1 = 0, out_pix_tile0 = 0,
        n_out_pix_tiles = 0, n_in_data_tiles = 0, n_stacks = 0;

    static std::optional<LegacyConfig> parse(const std::string& text) {
        const auto fields = parse_int_fields<9>(text);
        if (!fields) return std::nullopt;
        const auto& v = *fields;
        return LegacyConfig{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
    }
};


inline LegacyConfig default_config(const ConvView& p) {
    LegacyConfig r;
    r.in_tile0 = p.GetInWidth() <= 8 ? 8 : p.GetInWidth() <= 16 ? 16 : 32;
    r.in_tile1 = p.GetInHeight() <= 8 ? 8 : p.GetInHeight() <= 16 ? 16 : 32;
    r.out_pix_tile0 = static_cast<int>(std::max<long>(p.GetKernelStrideW(), r.in_tile0 == 8 ? 1 : 2));
    r.out_pix_tile1 = static_cast<int>(std::max<long>(p.GetKernelStrideH(), r.in_tile1 == 8 ? 1 : 2));
    r.grp_tile0 = std::max(8, r.in_tile0 / r.out_pix_tile0);
    r.grp_tile1 = std::max(8, r.in_tile1 / r.out_pix_tile1);
    r.in_tile0 = r.grp_tile0 * r.out_pix_tile0;
    r.in_tile1 = r.grp_tile1 * r.out_pix_tile1;
    r.n_out_pix_tiles = 8;
    r.n_in_data_tiles = 2;
    r.n_stacks = 1;
    if (p.GetWeightsWidth() == 1 && p.GetWeightsHeight() == 1 && p.GetGroupCount() == 1) {
        if (p.IsFp32() && p.IsDirectionForward() && p.GetInChannels() % 16 == 0 && p.GetOutChannels() % 16 == 0) {
            r.n_in_data_tiles = 128;
            r.n_out_pix_tiles = 32;
            r.out_pix_tile0 = 0;
            r.out_pix_tile1 = 1;
        } else {
            const long i_sz = p.GetOutHeight() * p.GetOutWidth();
            r.out_pix_tile0 = (i_sz & 1) != 0 ? 1 : 2;
            if (p.GetPadW() > 0 || p.GetKernelStrideW() > 1) {
                if (p.IsDirectionForward()) r.out_pix_tile0 = (p.GetOutWidth() & 1) != 0 ? 1 : 2;
                else r.out_pix_tile0 = ((p.GetOutWidth() & 1) != 0 || (p.GetInWidth() & 1) != 0) ? 1 : 2;
            }
            r.n_out_pix_tiles = 16;
            r.n_in_data_tiles = 4;
            r.grp_tile0 = 64;
            r.out_pix_tile1 = 0;
        }
    }
    return r;
}


// What every OpenCL direct solver checks first (deprecated-solver targets,
// 2-D, int-sized, FP32/FP16/BF16, no casts, NCHW): conv_ocl_dir2Dfwd.cpp:46-81,
// conv_ocl_dir2Dfwd1x1.cpp:58-84, conv_ocl_dir2Dfwdgen.cpp:40-64,
// conv_ocl_dir2D_bwdWrW_2.cpp:460-483, _53.cpp:47-72, _1x1.cpp:56-77 (MIOpen 3.3.0).
inline bool ocl_direct_common_checks(const ConvView& p, const SolverContext& ctx, std::string* why) {
    if (!deprecated_solvers_enabled(ctx.target)) return reject(why, "deprecated solver: not enabled on this target");
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (!(p.IsFp32() || p.IsFp16() || p.IsBfp16())) return reject(why, "data type");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (!p.IsLayoutDefault()) return reject(why, "layout");
    return true;
}

// ConvOclDirectFwd and ConvOclDirectFwd1x1: the common checks, forward or backward data.
inline bool ocl_direct_preconditions(const ConvView& p, const SolverContext& ctx, std::string* why) {
    if (!(p.IsDirectionForward() || p.IsDirectionBackwardData())) return reject(why, "WrW");
    return ocl_direct_common_checks(p, ctx, why);
}

// The perf-db record for the problem when there is one and it is valid, else the default
// (src/include/miopen/find_solution.hpp:80-120).
template <typename Valid>
LegacyConfig config_for(const ConvView& p, const SolverContext& ctx, std::string_view solver, Valid valid) {
    if (ctx.perf_db)
        if (const auto record = ctx.perf_db->find(p.p, std::string(solver)))
            if (const auto parsed = checked_perf_record(LegacyConfig::parse(*record), ctx.perf_db, p.p, std::string(solver), *record); parsed && valid(*parsed)) return *parsed;
    return default_config(p);
}

}  // namespace kdbgen::legacy
