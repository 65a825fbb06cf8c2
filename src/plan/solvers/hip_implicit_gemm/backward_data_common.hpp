// What the non-xdlops HIP backward-data implicit-GEMM solvers share
// (ConvHipImplicitGemmBwdDataV1R1, ConvHipImplicitGemmBwdDataV4R1) beyond the family header
// (hip_implicit_gemm.hpp: ProblemInterpreter, the six-field tuning configuration with its block-GEMM
// clusters, LDS rule and HeuristicInit order, the problem, tunable and depth defines, the invoker's
// conditions): the derived values each GetSolution reads off one configuration.
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/solver/conv/conv_hip_implicit_gemm_bwd_v1r1.cpp, conv_hip_implicit_gemm_bwd_v4r1.cpp
//   src/include/miopen/solver/implicitgemm_util.hpp:471-542  buffer/LDS vector lengths (4 for float), 64 KiB LDS
//   src/conv/invokers/impl_gemm.cpp:13-213  the backward-data invoker: SetTensor / CastTensor around the kernel
#pragma once

#include "implicitgemm_util.hpp"

namespace kdbgen::hip_implicit_gemm::backward_data {

// Everything GetSolution derives from a configuration, with IsValid's verdict.
struct Derived {
    BlockGemm block;
    Copy a, b;
    int c_dst_write = -1;
    long grid_size = -1;
    bool valid = false;
};

// The perf-db record when it parses (Visit order) and IsValidPerformanceConfig (IsValidValue and IsValid,
// `derive`) accepts it, else HeuristicInit: the first valid candidate, or the last one when none is.
template <class Derive>
GemmConfig config(const ConvView& p, const SolverContext& ctx, std::string_view solver, Derive derive) {
    if (const auto record = perf_db_record(p, ctx, solver))
        if (const auto parsed = checked_perf_record(GemmConfig::parse(*record), ctx.perf_db, p.p, std::string(solver), *record); parsed && derive(*parsed).valid) return *parsed;
    for (const auto& candidate : kGemmHeuristicOrder)
        if (derive(candidate).valid) return candidate;
    return kGemmHeuristicOrder.back();
}

}  // namespace kdbgen::hip_implicit_gemm::backward_data
