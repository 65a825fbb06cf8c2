// The HIP static implicit-GEMM solvers (src/plan/solvers/hip_implicit_gemm/):
// golden keys from a perf-db record and from the heuristic default, and a
// sample of planned kernels compiled for every target they run on.
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "perf_db_fixture.hpp"
#include "hip_implicit_gemm_test_support.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

using namespace kdbgen;
using namespace kdbgen::test::igemm;

namespace {

struct Planned {
    std::string options;
    std::string file, symbol;
    bool had_record = false;
};

Planned plan_one(std::string_view solver, const std::string& problem_key, const std::string& target_spec,
                 bool with_perf_db) {
    const Solver* s = find_solver(solver);
    EXPECT_NE(s, nullptr) << solver;
    if (!s) return {};
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    std::unique_ptr<PerfDb> perf;
    Planned out;
    if (with_perf_db) {
        const auto path = tree().perf_db(target);
        EXPECT_TRUE(path) << "no perf-db for " << target_spec;
        if (path) perf = std::make_unique<PerfDb>(*path);
        out.had_record = perf && perf->find(problem, std::string(solver)).has_value();
    }
    const SolverContext ctx = tree_context(target, view, perf.get());
    std::string why;
    EXPECT_TRUE(s->applicable(view, ctx, &why)) << solver << " " << problem_key << ": " << why;
    const auto kernels = s->kernels(view, ctx);
    EXPECT_EQ(kernels.size(), 1u);
    if (kernels.empty()) return out;
    out.options = kernels[0].options + target.mcpu_suffix();
    out.file = kernels[0].file;
    out.symbol = kernels[0].symbols.empty() ? "" : kernels[0].symbols[0];
    return out;
}


// ConvHipImplicitGemmV4R1Fwd on gfx906 from the shipped perf-db record 16,128,8,2,4,2,4,4,4,4,8,1,16,2,2,128
// (GetSolution, conv_hip_implicit_gemm_fwd_v4r1.cpp:200-370, MIOpen 3.3.0): b = 128*13*13/(2*2) = 5408,
// grid = 5408/16 * 512/128 = 1352; WeiBlockCopySubLengths_E = 8/2 -> read 4; SubLengths_K = 128/128 -> write 1;
// InBlockCopySubLengths_N2 = 2/2 -> write 1. The data-type block sits between the common CK flags and the
// FP32 tail.
TEST(HipIgemmMIOpenTree, V4R1FwdGoldenFromPerfDbRecord) {
    NEEDS_TREE();
    const auto k = plan_one("ConvHipImplicitGemmV4R1Fwd", "1000-13-13-1x1-512-13-13-128-0x0-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906_60", true);
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_implicit_gemm_v4r1_nchw_kcyx_nkhw_lds_double_buffer.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_implicit_gemm_v4r1_nchw_kcyx_nkhw_lds_double_buffer");
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=512 -DCK_PARAM_PROBLEM_C=1000 -DCK_PARAM_PROBLEM_HI=13"
              " -DCK_PARAM_PROBLEM_WI=13 -DCK_PARAM_PROBLEM_HO=13 -DCK_PARAM_PROBLEM_WO=13 -DCK_PARAM_PROBLEM_Y=1"
              " -DCK_PARAM_PROBLEM_X=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_LEFT_PAD_W=0 -DCK_PARAM_PROBLEM_RIGHT_PAD_H=0"
              " -DCK_PARAM_PROBLEM_RIGHT_PAD_W=0 -DCK_PARAM_PROBLEM_CONV_GROUP_COUNTS=1"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=1 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=0 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"
              " -DCK_PARAM_TUNABLE_B_PER_BLOCK=16 -DCK_PARAM_TUNABLE_K_PER_BLOCK=128 -DCK_PARAM_TUNABLE_E_PER_BLOCK=8"
              " -DCK_PARAM_DEPENDENT_GRID_SIZE=1352 -DCK_PARAM_GEMM_N_REPEAT=2 -DCK_PARAM_GEMM_M_PER_THREAD_SUB_C=4"
              " -DCK_PARAM_GEMM_N_PER_THREAD_SUB_C=2 -DCK_PARAM_GEMM_M_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_GEMM_N_LEVEL0_CLUSTER=4 -DCK_PARAM_GEMM_M_LEVEL1_CLUSTER=4"
              " -DCK_PARAM_GEMM_N_LEVEL1_CLUSTER=4 -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_E=8"
              " -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N1=1 -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_B=16"
              " -DCK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N2=2 -DCK_PARAM_IN_BLOCK_COPY_SRC_DATA_PER_READ_B=1"
              " -DCK_PARAM_WEI_BLOCK_COPY_CLUSTER_LENGTHS_E=2 -DCK_PARAM_WEI_BLOCK_COPY_CLUSTER_LENGTHS_K=128"
              " -DCK_PARAM_WEI_BLOCK_COPY_SRC_DATA_PER_READ_E=4 -DCK_PARAM_EPACK_LENGTH=1"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1 --std=c++14"
              " -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
              " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
              " -DCK_USE_AMD_V_FMAC_F32=0" + kFp32Block +
                  " -DCK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_N2=1 -DCK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_K=1"
                  " -mcpu=gfx906");
    // Without the perf-db: E = 1000 is no multiple of 2*8 (WORKAROUND_ISSUE_659 in PerformanceImplicitGemm::IsValid,
    // nonxdlops_common.cpp:90-93), so HeuristicInit's three EPerBlock-8 configurations fail and the fourth
    // (nonxdlops_common.cpp:338-352: 16, 32, 4, clusters 1,4,4,4, in 4,1,16,1, wei 4,16) is taken.
    const auto d = plan_one("ConvHipImplicitGemmV4R1Fwd", "1000-13-13-1x1-512-13-13-128-0x0-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906_60", false);
    EXPECT_EQ(define(d.options, "CK_PARAM_GEMM_N_PER_THREAD_SUB_C"), "4");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_E_PER_BLOCK"), "4");
    EXPECT_EQ(define(d.options, "CK_PARAM_GEMM_M_LEVEL0_CLUSTER"), "1");
    EXPECT_EQ(define(d.options, "CK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N1"), "1");
    EXPECT_EQ(define(d.options, "CK_PARAM_WEI_BLOCK_COPY_CLUSTER_LENGTHS_E"), "4");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "2704");  // 128*169/8 = 2704 / 16 * 512/32
}

// gfx1030 (CK_USE_AMD_BUFFER_ADDRESSING=0, v_fmac on: implicitgemm_util.hpp:449-470), BF16, no
// record: HeuristicInit falls to its fourth configuration (K = 192 is no multiple of 128 or 64;
// nonxdlops_common.cpp:338-352): BPerBlock 16, KPerBlock 32, EPerBlock 4, block 64; EPACK 2
// and the BF16 tail.
TEST(HipIgemmMIOpenTree, V4R1FwdGoldenDefaultGfx1030) {
    NEEDS_TREE();
    const auto k = plan_one("ConvHipImplicitGemmV4R1Fwd", "1008-14-14-1x1-192-14-14-128-0x0-1x1-1x1-0-NCHW-BF16-F",
                            "gfx1030_36", true);
    EXPECT_FALSE(k.had_record);
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "64");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_B_PER_BLOCK"), "16");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_K_PER_BLOCK"), "32");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_E_PER_BLOCK"), "4");
    EXPECT_EQ(define(k.options, "CK_PARAM_EPACK_LENGTH"), "2");
    // 128*196/8 = 3136 / 16 = 196 B blocks, 192/32 = 6 K blocks.
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "1176");
    const std::string tail = " -DCK_USE_AMD_BUFFER_ADDRESSING=0 -DCK_USE_AMD_V_FMAC_F32=1" + kBf16Block +
                             " -DCK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK=2"
                             " -DCK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK=2 -mcpu=gfx1030";
    EXPECT_TRUE(k.options.ends_with(tail)) << k.options;
}

// ConvHipImplicitGemmV4R1WrW (GetSolution, conv_hip_implicit_gemm_fwd_v4r1.cpp:372-540): the tensors
// unswapped (K = 1024 input channels of the key, C = 256), the gfx906 record 16,128,8,2,4,4,4,4,4,4,8,2,16,1,2,128;
// grid = 256*7*7/(2*4) = 1568 / 16 = 98 B blocks times 1024/128 = 8; WeiBlockCopySrcDataPerRead_E =
// gcd(8/2, 4, 1*1) = 1.
TEST(HipIgemmMIOpenTree, V4R1WrwGoldenFromPerfDbRecord) {
    NEEDS_TREE();
    const auto k = plan_one("ConvHipImplicitGemmV4R1WrW", "1024-1-1-7x7-256-7-7-400-0x0-1x1-1x1-0-NCHW-FP32-W",
                            "gfx906_60", true);
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_N"), "400");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_K"), "1024");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_C"), "256");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_HI"), "7");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_HO"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_Y"), "7");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "784");
    EXPECT_EQ(define(k.options, "CK_PARAM_IN_BLOCK_COPY_CLUSTER_LENGTHS_N1"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_WEI_BLOCK_COPY_SRC_DATA_PER_READ_E"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_N2"), "4");
    EXPECT_EQ(define(k.options, "CK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_K"), "1");
}

// gfx900, BF16, no record: K = 1024 and N = 1024 fit HeuristicInit's first configuration only if
// E = 800/2 = 400 is a multiple of 2*EPerBlock = 16 (WORKAROUND_ISSUE_659) and of the filter check;
// 400 % 16 = 0 but (X*Y) % (EPerBlock / WeiBlockCopyClusterLengths_E) = 1 % 4 fails for the first
// three, so the fourth (16, 32, 4, block 64) is taken.
TEST(HipIgemmMIOpenTree, V4R1WrwGoldenDefaultGfx900) {
    NEEDS_TREE();
    const auto k = plan_one("ConvHipImplicitGemmV4R1WrW", "1024-1-1-1x1-1024-1-1-800-0x0-1x1-1x1-0-NCHW-BF16-W",
                            "gfx900_56", true);
    EXPECT_FALSE(k.had_record);
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "64");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_K_PER_BLOCK"), "32");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_E_PER_BLOCK"), "4");
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "256");  // 1024/8/16 * 1024/32
    EXPECT_TRUE(k.options.ends_with(kBf16Block + " -DCK_PARAM_IN_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK=2"
                                                 " -DCK_PARAM_WEI_BLOCK_COPY_DST_DATA_PER_WRITE_EPACK=2 -mcpu=gfx900"))
        << k.options;
}

// ConvHipImplicitGemmForwardV4R4Xdlops on gfx90a with 110 CUs, FP32, no perf-db (the tree ships none for
// gfx908/gfx90a, and deprecated solvers are off on gfx94x where one is shipped). GEMM M = 32, N = 128*153*662,
// K = 5*20 = 100. HeuristicInit (conv_hip_implicit_gemm_fwd_v4r4_xdlops.cpp:121-235) walks down from
// 256,256,8,128,128,4: MPerBlock must divide 32, MPerWave too; (32, 128) is no xdlops wave shape, (32, 64) is;
// KPack 4 leaves K = 25, so KPerBlock 1. Four waves, block 256; grid = 32/32 * N/256 = 50643, which is also
// the grid of the largest blockwise GEMM (ratio 1). A copy (:272-348): 4-wide KPack reads, 32 threads along M;
// B copy (:350-460): Wo = 662 allows 2-wide reads, KPack split 2 x 2. The data-type block ends the options.
TEST(HipIgemmMIOpenTree, ForwardV4R4XdlopsGoldenDefaultGfx90a) {
    NEEDS_TREE();
    const std::string problem = "1-157-681-5x20-32-153-662-128-0x0-1x1-1x1-0-NCHW-FP32-F";
    const auto k = plan_one("ConvHipImplicitGemmForwardV4R4Xdlops", problem, "gfx90a:sramecc+:xnack-_110", false);
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw");
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=32 -DCK_PARAM_PROBLEM_C=1"
              " -DCK_PARAM_PROBLEM_HI=157 -DCK_PARAM_PROBLEM_WI=681 -DCK_PARAM_PROBLEM_HO=153"
              " -DCK_PARAM_PROBLEM_WO=662 -DCK_PARAM_PROBLEM_Y=5 -DCK_PARAM_PROBLEM_X=20"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=32 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=256"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=1 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=32"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64 -DCK_PARAM_TUNABLE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256 -DCK_PARAM_DEPENDENT_GRID_SIZE=50643"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=128"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=2"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2 -DCK_USE_AMD_XDLOPS=1"
              " -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0 --std=c++14"
              " -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
              " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
              " -DCK_USE_AMD_V_FMAC_F32=0 -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0"
              " -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0"
              " -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 -DMIOPEN_FP8_CLIPPING=1"
              " -mcpu=gfx90a");
    // gfx908 with 120 CUs: the same configuration; the atomic-add flag is on there (implicitgemm_util.hpp:465-468).
    const auto g908 = plan_one("ConvHipImplicitGemmForwardV4R4Xdlops", problem, "gfx908:sramecc+:xnack-_120", false);
    EXPECT_EQ(define(g908.options, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "256");
    EXPECT_EQ(define(g908.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "50643");
    EXPECT_EQ(define(g908.options, "CK_USE_AMD_BUFFER_ATOMIC_FADD"), "1");
    // Not on gfx906 (no xdlops) nor on gfx1030.
    const auto forward = parse_conv_problem_key(problem);
    const auto* s = find_solver("ConvHipImplicitGemmForwardV4R4Xdlops");
    for (const char* spec : {"gfx906_60", "gfx1030_36"}) {
        const Target t = parse_target(spec);
        const ConvView view{forward};
        EXPECT_FALSE(s->applicable(view, SolverContext{t, tree().version(), "", nullptr, &tree()}, nullptr)) << spec;
    }
}

// The perf-db a test writes (tests/support/perf_db_fixture.hpp) reads back through PerfDb as MIOpen's own do:
// the record is found for its problem and solver only, 2-D and 3-D keys alike.
TEST(HipIgemm, PerfDbFixtureRecordsReadBack) {
    test::TempDir dir;
    const std::string key2d = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    const std::string key3d = "16-4-8-8-3x3x3-32-4-8-8-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16-W";
    const auto path = test::write_perf_db(dir / "fixture.db", {{key2d, "ConvHipImplicitGemmForwardV4R4Xdlops", "128,128,4,64,64,4,0,1,1"},
                                                                {key3d, "ConvDirectNaiveConvWrw", "x"}});
    const PerfDb perf(path);
    EXPECT_EQ(perf.size(), 2u);
    EXPECT_EQ(perf.find(parse_conv_problem_key(key2d), "ConvHipImplicitGemmForwardV4R4Xdlops"),
              std::optional<std::string>("128,128,4,64,64,4,0,1,1"));
    EXPECT_EQ(perf.find(parse_conv_problem_key(key2d), "ConvHipImplicitGemmV4R4Fwd"), std::nullopt);
    EXPECT_EQ(perf.find(parse_conv_problem_key(key3d), "ConvDirectNaiveConvWrw"), std::optional<std::string>("x"));
    EXPECT_EQ(perf.find(parse_conv_problem_key("64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-FP32-F"),
                        "ConvHipImplicitGemmForwardV4R4Xdlops"),
              std::nullopt);
}

// A sample of the planned keys compiles for every target the family runs on: per target and
// solver, the first applicable find-db problem (gfx908 and gfx90a plan from
// their find-dbs without a shipped perf-db). Clang 19 needs the buffer overlay on all but gfx1030.
TEST(HipIgemmMIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    CompileCount count;
    for (const char* spec : {"gfx900_56", "gfx906_60", "gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_110",
                             "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        const auto perf = tree_perf_db(target);
        Samples builds;  // solver -> (problem, build)
        for (const auto& entry : read_find_db(*fdb)) {
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view, perf.get());
            for (const auto& item : entry.solvers) {
                if (!item.solver.starts_with("ConvHipImplicitGemmV4R1") && item.solver != "ConvHipImplicitGemmForwardV4R4Xdlops")
                    continue;
                const std::string sample(item.solver);  // one key per solver and target: ~20 s each under load
                if (builds.count(sample)) continue;
                const Solver* s = find_solver(item.solver);
                ASSERT_NE(s, nullptr) << item.solver;
                if (!s->applicable(view, ctx, nullptr)) continue;
                for (const auto& kernel : s->kernels(view, ctx)) {
                    auto build = miopen_kernel_build(kernel, target, tree());
                    ASSERT_TRUE(build) << kernel.file << " is not in the tree (" << entry.key << ")";
                    builds.emplace(sample, std::pair{entry.key, std::move(*build)});
                }
            }
        }
        compile_samples(compiler, spec, builds, count);
        EXPECT_FALSE(builds.empty()) << spec;
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
}


}  // namespace
