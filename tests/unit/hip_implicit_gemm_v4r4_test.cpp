// ConvHipImplicitGemmV4R4Fwd and ConvHipImplicitGemmV4R4WrW (src/plan/solvers/hip_implicit_gemm/{forward,backward_weights}_v4r4.cpp, v4r4_common.*):
// golden keys from shipped perf-db records, from records a test writes (gfx908, gfx90a) and from
// the heuristic default, 2-D and 3-D; applicability against every find-db line of the MIOpen tree
// that lists them; one planned key per solver and target compiled.
//
// MIOpen 3.3.0 (develop 2d1fd997), same code in rocm-6.2.0:
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4.cpp  :179-226 A copy, :228-335 B copy,
//     :337-361 C copy, :363-409 LDS, :411-475 IsValidValue/IsValid, :477-532 HeuristicInit,
//     :558-576 CalculateGemmSize, :578-617 IsApplicable, :643-781 GetSolution (options :718-774)
//   src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4.cpp  :178-223 A copy, :225-341 B copy,
//     :343-364 C copy, :366-412 LDS, :414-478 IsValidValue/IsValid, :480-535 HeuristicInit,
//     :561-579 CalculateGemmSize, :581-619 IsApplicable, :645-795 GetSolution (options :724-780)
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296 (adjusted strides,
//     dilations and right pads; a backward problem's "in" is the forward output)
//   src/include/miopen/solver/implicitgemm_util.hpp:544-572 the common CK flags (atomic fadd on
//     gfx908 only, buffer addressing off and v_fmac on for gfx103x), :433-447 inline asm (on but for gfx8)
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/util.hpp"
#include "perf_db_fixture.hpp"
#include "hip_implicit_gemm_test_support.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>

using namespace kdbgen;
using namespace kdbgen::test::igemm;

namespace {

constexpr const char* kFwd = "ConvHipImplicitGemmV4R4Fwd";
constexpr const char* kWrw = "ConvHipImplicitGemmV4R4WrW";

struct Planned {
    std::string file, symbol, options;  // options with the -mcpu suffix, as the kdb key has them
    bool had_record = false;
};

// Plans one problem on a target with a perf-db (none, the tree's, or a file) and the data-type
// block once or twice.
Planned plan(const char* name, const std::string& key, const std::string& spec, const PerfDb* perf, int blocks = 1) {
    const auto problem = parse_conv_problem_key(key);
    const ConvView view{problem};
    const Target target = parse_target(spec);
    std::string general = data_type_options(view);
    if (blocks == 2) general += data_type_options(view);
    const SolverContext ctx{target, MiopenVersion{3, 3, 0}, general, perf, nullptr};
    std::string why;
    EXPECT_TRUE(solver(name).applicable(view, ctx, &why)) << name << " " << key << " " << spec << ": " << why;
    const auto kernels = solver(name).kernels(view, ctx);
    EXPECT_EQ(kernels.size(), 1u);
    if (kernels.size() != 1) return {};
    EXPECT_EQ(kernels[0].symbols.size(), 1u);
    Planned out{kernels[0].file, kernels[0].symbols.empty() ? "" : kernels[0].symbols[0],
                kernels[0].options + target.mcpu_suffix()};
    out.had_record = perf && perf->find(problem, name).has_value();
    return out;
}

// The tree's perf-db of a target that ships one.
std::unique_ptr<PerfDb> shipped_perf_db(const std::string& spec) {
    auto perf = tree_perf_db(parse_target(spec));
    EXPECT_TRUE(perf) << "no perf-db for " << spec;
    return perf;
}

// The six tuning values as the options carry them: the perf-db record's form.
std::string tuning(const std::string& o) {
    return fmt::format("{},{},{},{},{},{}", define(o, "CK_PARAM_TUNABLE_BLOCK_SIZE"),
                       define(o, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"),
                       define(o, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), define(o, "CK_PARAM_TUNABLE_GEMM_M_PER_THREAD"),
                       define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_THREAD"));
}

// ---- golden keys: shipped perf-db records ------------------------------------

// ConvHipImplicitGemmV4R4Fwd on gfx900_56 from the shipped record 256,128,64,16,4,2 (BlockSize, GemmMPerBlock,
// GemmNPerBlock, GemmKPerBlock, GemmMPerThread, GemmNPerThread: solvers.hpp:526-535). GEMM M = K = 2048,
// N = 128*7*7 = 6272, K = C*Y*X = 1024 (fwd_v4r4.cpp:558-576); the record passes IsValid (6272/64 = 98).
//  - clusters for block 256: 4,4,4,4 (:137-143); 128/4 = 32 threads of M = 2 clusters of 16, 64/2 = 32 of N too.
//  - A copy (:179-226): read = gcd(4, 16) = 4, 16*128/256 = 8 per thread, gcd(4, 8) = 4 along K, 8/4 = 2
//    along M; write gcd(4, 2) = 2; cluster 16/4 = 4 x 128/2 = 64.
//  - B copy (:228-335): stride 2, so neither the 1x1-unit-stride branch nor the stride-1 one: read 1;
//    16*64/256 = 4 per thread, 1 along N and 4 along K; write gcd(4, 1) = 1; cluster 16/4 = 4 x 64/1 = 64.
//  - C copy (:337-361): gcd(gcd(4, 2), 7*7) = 1. Grid (:87-111): 2048/128 * 6272/64 = 16*98 = 1568.
//  - strides stay 2 (Ho = 7 > 1), dilations 1; right pads: 1 + 0 + 6*2 = 13 <= 0 + 14, so 0
//    (problem_description_interpreter.hpp:184-295). Inline asm on gfx900 for FP32 (implicitgemm_util.hpp:433-447).
// The order (:718-763): problem, tunables, grid, inline asm, common CK flags, the data-type block.
// Without the record HeuristicInit (:483-485) takes its first configuration, 256,128,128,16,4,4
// (6272 = 128*49): the record changes the key.
TEST(HipIgemmV4R4MIOpenTree, FwdGoldenFromPerfDbRecordGfx900) {
    NEEDS_TREE();
    const std::string key = "1024-14-14-1x1-2048-7-7-128-0x0-2x2-1x1-0-NCHW-FP32-F";
    const auto perf = shipped_perf_db("gfx900_56");
    const auto k = plan(kFwd, key, "gfx900_56", perf.get());
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_implicit_gemm_v4r4_nchw_kcyx_nkhw.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_implicit_gemm_v4r4_nchw_kcyx_nkhw");
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=2048 -DCK_PARAM_PROBLEM_C=1024 -DCK_PARAM_PROBLEM_HI=14"
              " -DCK_PARAM_PROBLEM_WI=14 -DCK_PARAM_PROBLEM_HO=7 -DCK_PARAM_PROBLEM_WO=7 -DCK_PARAM_PROBLEM_Y=1"
              " -DCK_PARAM_PROBLEM_X=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=1 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=0 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=64"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=16 -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=2 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=64"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=2"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=64"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=1568"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1" +
                  kCkFlagsGfx9 + kFp32Block + " -mcpu=gfx900");
    const auto d = plan(kFwd, key, "gfx900_56", nullptr);
    EXPECT_EQ(tuning(d.options), "256,128,128,16,4,4");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "784");  // 16 * 6272/128
}

// ConvHipImplicitGemmV4R4WrW on gfx906_60 from the shipped record 256,128,64,4,4,2. The key's "in" is the
// output gradient (K = 256, 13x13), its "out" the input (C = 384, 13x13); batch 4, 3x3 filter, pad 1.
// GEMM (wrw_v4r4.cpp:561-579): M = K = 256, N = C*Y*X = 3456, K = N*Ho*Wo = 4*169 = 676.
//  - clusters for block 256: 4,4,4,4 (:136-142); 128/4 and 64/2 threads make 2 x 2 clusters.
//  - A copy (:178-223): read starts at 1, so 1; 4*128/256 = 2 per thread, all along M; write gcd(4, 2) = 2;
//    cluster 4/1 = 4 x 128/2 = 64.
//  - B copy (:225-341): read starts at gcd(4, 4) = 4; stride 1 but padded, so the third branch:
//    gcd(4, pad 1, Wi 13, right pad 1, dilation 1) = 1; 4*64/256 = 1 per thread; write 1; cluster 4 x 64.
//  - C copy (:343-364): gcd(gcd(4, 2), 3456) = 2. Grid (:86-110): 256/128 * 3456/64 = 2*54 = 108.
//  - right pads: 1 + 2*1 + 12*1 = 15 > 1 + 13, so 1 (problem_description_interpreter.hpp:262-295).
// The order (:724-769): N, C, K, Ho, Wo, Hi, Wi, ..., directions 0,0,1, tunables, grid, inline asm, CK
// flags, data-type block. Without the record: 676 is no multiple of 16 or 8, so HeuristicInit's third,
// 256,128,128,4,4,4 (:486-490).
TEST(HipIgemmV4R4MIOpenTree, WrwGoldenFromPerfDbRecordGfx906) {
    NEEDS_TREE();
    const std::string key = "256-13-13-3x3-384-13-13-4-1x1-1x1-1x1-0-NCHW-FP32-W";
    const auto perf = shipped_perf_db("gfx906_60");
    const auto k = plan(kWrw, key, "gfx906_60", perf.get());
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_nchw_kcyx_nkhw.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_backward_weights_implicit_gemm_v4r4_nchw_kcyx_nkhw");
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_N=4 -DCK_PARAM_PROBLEM_C=384 -DCK_PARAM_PROBLEM_K=256 -DCK_PARAM_PROBLEM_HO=13"
              " -DCK_PARAM_PROBLEM_WO=13 -DCK_PARAM_PROBLEM_HI=13 -DCK_PARAM_PROBLEM_WI=13 -DCK_PARAM_PROBLEM_Y=3"
              " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=0 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=1 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=64"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=2 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=64"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=1"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=2"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=64"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=1"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=2 -DCK_PARAM_DEPENDENT_GRID_SIZE=108"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1" +
                  kCkFlagsGfx9 + kFp32Block + " -mcpu=gfx906");
    const auto d = plan(kWrw, key, "gfx906_60", nullptr);
    EXPECT_EQ(tuning(d.options), "256,128,128,4,4,4");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "54");  // 2 * 3456/128 = 54
}

// ---- golden keys: the heuristic default ----------------------------------------

// ConvHipImplicitGemmV4R4Fwd on gfx1030_36, no record in its shipped perf-db. GEMM M = 128, N = 32*17*17 =
// 9248 = 32*289 (no multiple of 64), K = 1024*9 = 9216. HeuristicInit (fwd_v4r4.cpp:483-523) passes over
// the nine configurations with GemmNPerBlock 128 or 64 and the three 64,64,64 ones; the 13th,
// 64,64,32,16,4,2, is valid:
//  - clusters for block 64: 4,4,2,2 (:123-129); 64/4 = 16 and 32/2 = 16 threads = 2 clusters of 8 each way.
//  - A copy: read gcd(4, 16) = 4; 16*64/64 = 16 per thread, 4 along K and 4 along M; write 4;
//    cluster 16/4 = 4 x 64/4 = 16.
//  - B copy: stride 1 with pad 1: gcd(4, pad 1, Wi 17, right pad 1, dilation 1) = 1 (:288-292);
//    16*32/64 = 8 per thread, all along K; write 1; cluster 16/8 = 2 x 32/1 = 32.
//  - C copy: gcd(gcd(4, 2), 17*17) = 1. LDS: lcm(4, 1, 4, 2) = 4, 2*(16*64 + 16*32)*4 = 12288 bytes.
//  - grid 128/64 * 9248/32 = 2*289 = 578; right pads 1 + 2 + 16 = 19 > 1 + 17, so 1.
// gfx1030: buffer addressing off (WORKAROUND_MIOPEN_ISSUE_557), v_fmac on (implicitgemm_util.hpp:449-463).
TEST(HipIgemmV4R4MIOpenTree, FwdGoldenDefaultGfx1030) {
    NEEDS_TREE();
    const std::string key = "1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    const auto perf = shipped_perf_db("gfx1030_36");
    const auto k = plan(kFwd, key, "gfx1030_36", perf.get());
    EXPECT_FALSE(k.had_record);
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=128 -DCK_PARAM_PROBLEM_C=1024 -DCK_PARAM_PROBLEM_HI=17"
              " -DCK_PARAM_PROBLEM_WI=17 -DCK_PARAM_PROBLEM_HO=17 -DCK_PARAM_PROBLEM_WO=17 -DCK_PARAM_PROBLEM_Y=3"
              " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=1 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=0 -DCK_PARAM_TUNABLE_BLOCK_SIZE=64"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=64 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=32"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=16 -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=2 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=2"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=2 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=16"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=578"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1" +
                  kCkFlagsGfx1030 + kFp32Block + " -mcpu=gfx1030");
}

// ConvHipImplicitGemmV4R4WrW on gfx1030_36, no record. K = 128 (the key's "in"), C = 32, batch 1, 14x14,
// 3x3 pad 1. GEMM M = 128, N = 32*9 = 288 (no multiple of 64), K = 1*196 = 196 (no multiple of 8 or 16).
// HeuristicInit (wrw_v4r4.cpp:486-526): the 15th configuration, 64,64,32,4,4,2, is the first valid one.
//  - clusters 4,4,2,2; 64/4 = 16 and 32/2 = 16 threads: 2 x 2 clusters.
//  - A copy: read 1; 4*64/64 = 4 per thread along M; write gcd(4, 4) = 4; cluster 4/1 = 4 x 64/4 = 16.
//  - B copy: read gcd(4, 4) = 4, padded so gcd(4, 1, 14, 1, 1) = 1 (:295-299); 4*32/64 = 2 per thread,
//    1 along K, 2 along N; write gcd(4, 2) = 2; cluster 4/1 = 4 x 32/2 = 16.
//  - C copy: gcd(gcd(4, 2), 288) = 2. Grid 128/64 * 288/32 = 18. Right pads 1 + 2 + 13 = 16 > 15: 1.
TEST(HipIgemmV4R4MIOpenTree, WrwGoldenDefaultGfx1030) {
    NEEDS_TREE();
    const std::string key = "128-14-14-3x3-32-14-14-1-1x1-1x1-1x1-0-NCHW-FP32-W";
    const auto perf = shipped_perf_db("gfx1030_36");
    const auto k = plan(kWrw, key, "gfx1030_36", perf.get());
    EXPECT_FALSE(k.had_record);
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_N=1 -DCK_PARAM_PROBLEM_C=32 -DCK_PARAM_PROBLEM_K=128 -DCK_PARAM_PROBLEM_HO=14"
              " -DCK_PARAM_PROBLEM_WO=14 -DCK_PARAM_PROBLEM_HI=14 -DCK_PARAM_PROBLEM_WI=14 -DCK_PARAM_PROBLEM_Y=3"
              " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=0 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
              " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=1 -DCK_PARAM_TUNABLE_BLOCK_SIZE=64"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=64 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=32"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=2 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=2"
              " -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=2 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=16"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=1"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=16"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K=1"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=2"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=2 -DCK_PARAM_DEPENDENT_GRID_SIZE=18"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1" +
                  kCkFlagsGfx1030 + kFp32Block + " -mcpu=gfx1030");
}

// ---- 3-D ---------------------------------------------------------------------

// ConvHipImplicitGemmV4R4Fwd, 3-D on gfx1030_36 from the shipped record 128,128,64,16,4,4: C = 1024, 4x14x14,
// 1x1x1 filter, K = 256, batch 4. GEMM N = 4*4*14*14 = 3136 = 64*49. Block 128: clusters 4,4,4,2
// (fwd_v4r4.cpp:130-136); 128/4 = 32 = 2*16, 64/4 = 16 = 2*8. A: 16*128/128 = 16 per thread, read 4,
// 4 along M, write 4, cluster 4 x 32. B: the 1x1x1 unit-stride unpadded branch (:262-269) reads
// gcd(gcd(4, 64), 4*14*14) = 4; 16*64/128 = 8 per thread: 4 along N, 2 along K; write 4; cluster 8 x 16.
// C: gcd(gcd(4, 4), 4*196) = 4. Grid 256/128 * 3136/64 = 98. The file and kernel are the NCDHW ones
// (:666-673), and the depth defines follow the data-type block (:765-774); doubled, the block is doubled
// where it stands.
TEST(HipIgemmV4R4MIOpenTree, Fwd3dGoldenFromPerfDbRecordGfx1030) {
    NEEDS_TREE();
    const std::string key = "1024-4-14-14-1x1x1-256-4-14-14-4-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-F";
    const auto perf = shipped_perf_db("gfx1030_36");
    const std::string depth =
        " -DCK_PARAM_PROBLEM_DI=4 -DCK_PARAM_PROBLEM_DO=4 -DCK_PARAM_PROBLEM_Z=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_D=1"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_D=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_D=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D=0"
        " -mcpu=gfx1030";
    for (int blocks : {1, 2}) {
        const auto k = plan(kFwd, key, "gfx1030_36", perf.get(), blocks);
        EXPECT_TRUE(k.had_record);
        EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw.cpp");
        EXPECT_EQ(k.symbol, "gridwise_convolution_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw");
        EXPECT_EQ(tuning(k.options), "128,128,64,16,4,4");
        EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_HI"), "14");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER"), "4");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER"), "2");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M"), "32");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "8");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "16");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N"), "4");
        EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1"), "4");
        EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "98");
        const std::string tail = kCkFlagsGfx1030 + kFp32Block + (blocks == 2 ? kFp32Block : "") + depth;
        EXPECT_TRUE(k.options.ends_with(tail)) << k.options;
    }
}

// ConvHipImplicitGemmV4R4WrW, 3-D on gfx1030_36 from the shipped record 256,64,64,4,2,2, stride 2: the key's
// "in" is the gradient (K = 1024, 4x14x14), its "out" the input (C = 512, 7x27x27), batch 4. GEMM M = 1024,
// N = 512, K = 4*4*14*14 = 3136. Strides stay 2 (Do, Ho, Wo > 1); right pads 1 + 3*2 = 7 <= 7 and
// 1 + 13*2 = 27 <= 27: 0. B copy: stride 2 takes the last branch (wrw_v4r4.cpp:277-280), read 1;
// 4*64/256 = 1 per thread; cluster 4 x 64. A: 4*64/256 = 1, write 1, cluster 4 x 64.
// C: gcd(gcd(4, 2), 512) = 2. Grid 1024/64 * 512/64 = 128.
TEST(HipIgemmV4R4MIOpenTree, Wrw3dGoldenFromPerfDbRecordGfx1030) {
    NEEDS_TREE();
    const std::string key = "1024-4-14-14-1x1x1-512-7-27-27-4-0x0x0-2x2x2-1x1x1-0-NCDHW-FP32-W";
    const auto perf = shipped_perf_db("gfx1030_36");
    const auto k = plan(kWrw, key, "gfx1030_36", perf.get());
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(k.file,
              "static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_backward_weights_implicit_gemm_v4r4_ncdhw_kczyx_nkdhw");
    EXPECT_TRUE(k.options.starts_with(
        " -DCK_PARAM_PROBLEM_N=4 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_K=1024 -DCK_PARAM_PROBLEM_HO=14"
        " -DCK_PARAM_PROBLEM_WO=14 -DCK_PARAM_PROBLEM_HI=27 -DCK_PARAM_PROBLEM_WI=27 -DCK_PARAM_PROBLEM_Y=1"
        " -DCK_PARAM_PROBLEM_X=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_FORWARD=0 -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_DATA=0"
        " -DCK_PARAM_PROBLEM_CONV_DIRECTION_BACKWARD_WEIGHT=1 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"))
        << k.options;
    EXPECT_EQ(tuning(k.options), "256,64,64,4,2,2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M"), "64");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_K"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "64");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "128");
    EXPECT_TRUE(k.options.ends_with(
        kFp32Block +
        " -DCK_PARAM_PROBLEM_DI=7 -DCK_PARAM_PROBLEM_DO=4 -DCK_PARAM_PROBLEM_Z=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_D=2"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_D=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_D=0"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D=0 -mcpu=gfx1030"))
        << k.options;
}

// ---- the record path where the tree ships no perf-db (gfx908, gfx90a) ----------------

// MIOpen 3.3 ships gfx90878.db.bz2 and gfx90a*.db.bz2; the tree at hand lacks them, so the record path is
// checked with records written here. ConvHipImplicitGemmV4R4Fwd on gfx908 (120 CUs), the problem of
// FwdGoldenDefaultGfx1030 (default 64,64,32,16,4,2). The record 64,32,32,16,2,2 passes IsValidValue and
// IsValid (fwd_v4r4.cpp:411-475): 128 % 32, 9248 % 32, 9216 % 16 are 0; block 64 clusters 4,4,2,2 and
// 32/2 = 16 threads each way make 2 x 2 clusters of 8; A: 16*32/64 = 8 per thread, read 4, 2 along M,
// write 2, cluster 4 x 16; B: read 1 (padded), 8 per thread along K, cluster 2 x 32; LDS 2*(512+512)*4.
// Grid 128/32 * 9248/32 = 4*289 = 1156. gfx908 turns the buffer atomic add on (implicitgemm_util.hpp:465-468).
// A record IsValid refuses (256,128,128,16,4,4: 9248 is no multiple of 128) and one that does not parse
// (five values; Deserialize wants the six of Visit) leave the default.
TEST(HipIgemmV4R4, FwdRecordPathGfx908) {
    test::TempDir dir;
    const std::string key = "1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    const std::string spec = "gfx908:sramecc+:xnack-_120";
    const PerfDb good(test::write_perf_db(dir / "good.db", {{key, kFwd, "64,32,32,16,2,2"}}));
    const auto k = plan(kFwd, key, spec, &good);
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(tuning(k.options), "64,32,32,16,2,2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "4");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M"), "16");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "32");
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "1156");
    EXPECT_TRUE(k.options.ends_with(kCkFlagsGfx908 + kFp32Block + " -mcpu=gfx908")) << k.options;
    const PerfDb invalid(test::write_perf_db(dir / "invalid.db", {{key, kFwd, "256,128,128,16,4,4"}}));
    const PerfDb malformed(test::write_perf_db(dir / "malformed.db", {{key, kFwd, "64,32,32,16,2"}}));
    const auto d = plan(kFwd, key, spec, &invalid);
    EXPECT_TRUE(d.had_record);
    EXPECT_EQ(tuning(d.options), "64,64,32,16,4,2");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "578");
    // Five fields of six do not parse: MIOpen would take the default, kdbgen names the row (issue #25).
    EXPECT_NE(test::input_error_of([&] { plan(kFwd, key, spec, &malformed); }).find("malformed.db: perf_db row 1"),
              std::string::npos);
}

// ConvHipImplicitGemmV4R4WrW on gfx90a (110 CUs), the problem of WrwGoldenDefaultGfx1030 (default
// 64,64,32,4,4,2). The record 64,32,32,4,2,2 passes IsValid (wrw_v4r4.cpp:414-478): 128 % 32, 288 % 32,
// 196 % 4 are 0; 32/2 = 16 threads each way, 2 x 2 clusters of 8; A: 4*32/64 = 2 per thread along M,
// read 1, write 2, cluster 4 x 16; B: read 1 (padded), 2 per thread along N, write 2, cluster 4 x 16;
// C: gcd(2, 288) = 2. Grid 128/32 * 288/32 = 36. One from another solver's name is not used.
TEST(HipIgemmV4R4, WrwRecordPathGfx90a) {
    test::TempDir dir;
    const std::string key = "128-14-14-3x3-32-14-14-1-1x1-1x1-1x1-0-NCHW-FP32-W";
    const std::string spec = "gfx90a:sramecc+:xnack-_110";
    const PerfDb good(test::write_perf_db(dir / "good.db", {{key, kWrw, "64,32,32,4,2,2"}}));
    const auto k = plan(kWrw, key, spec, &good);
    EXPECT_TRUE(k.had_record);
    EXPECT_EQ(tuning(k.options), "64,32,32,4,2,2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M"), "16");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "16");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1"), "2");
    EXPECT_EQ(define(k.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "36");
    EXPECT_TRUE(k.options.ends_with(kCkFlagsGfx9 + kFp32Block + " -mcpu=gfx90a")) << k.options;
    const PerfDb other(test::write_perf_db(dir / "other.db", {{key, kFwd, "64,32,32,4,2,2"}}));
    const auto d = plan(kWrw, key, spec, &other);
    EXPECT_FALSE(d.had_record);
    EXPECT_EQ(tuning(d.options), "64,64,32,4,4,2");
}

// ---- applicability ---------------------------------------------------------------

bool applicable(const char* name, const ConvProblem& problem, const std::string& spec, std::string* why = nullptr) {
    const ConvView view{problem};
    const Target target = parse_target(spec);
    const SolverContext ctx{target, MiopenVersion{3, 3, 0}, data_type_options(view), nullptr, nullptr};
    return solver(name).applicable(view, ctx, why);
}

// IsApplicable (fwd_v4r4.cpp:578-617, wrw_v4r4.cpp:581-619): FP32, ungrouped, NCHW/NCDHW, composable-kernel
// hardware (gfx803 only with 64 CUs: implicitgemm_util.hpp:574-584), the direction, GEMM M and N multiples
// of 32 and K of 4; a deprecated solver (off on gfx942: src/solver.cpp:716-732). Both copy the data-type
// block into the options (uses_general_options: MIOpen asks for the single and the doubled form).
TEST(HipIgemmV4R4, Applicability) {
    const auto fwd = parse_conv_problem_key("1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F");
    const auto wrw = parse_conv_problem_key("128-14-14-3x3-32-14-14-1-1x1-1x1-1x1-0-NCHW-FP32-W");
    std::string why;
    for (const char* spec : {"gfx803_64", "gfx900_56", "gfx906_60", "gfx908_120", "gfx90a_110", "gfx1030_36"}) {
        EXPECT_TRUE(applicable(kFwd, fwd, spec, &why)) << spec << ": " << why;
        EXPECT_TRUE(applicable(kWrw, wrw, spec, &why)) << spec << ": " << why;
    }
    EXPECT_FALSE(applicable(kFwd, fwd, "gfx803_36", &why));
    EXPECT_EQ(why, "not composable-kernel hardware");
    EXPECT_FALSE(applicable(kWrw, wrw, "gfx1100_48"));
    EXPECT_FALSE(applicable(kFwd, wrw, "gfx900_56", &why));
    EXPECT_EQ(why, "not forward");
    EXPECT_FALSE(applicable(kWrw, fwd, "gfx900_56", &why));
    EXPECT_EQ(why, "not backward weights");
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-B"),
                            "gfx900_56"));
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP16-F"),
                            "gfx900_56", &why));
    EXPECT_EQ(why, "not FP32");
    EXPECT_FALSE(applicable(kWrw, parse_conv_problem_key("128-14-14-3x3-32-14-14-1-1x1-1x1-1x1-0-NCHW-BF16-W"),
                            "gfx900_56", &why));
    EXPECT_EQ(why, "not FP32");
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2"),
                            "gfx900_56", &why));
    EXPECT_EQ(why, "grouped");
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-F"),
                            "gfx900_56", &why));
    EXPECT_EQ(why, "not NCHW / NCDHW");
    // Forward GEMM M = K: 48 is no multiple of 32. N = batch*Ho*Wo: 1*17*17 = 289 is not either.
    // K = C*Y*X: 2*1*1 is no multiple of 4. Backward weights: M = K, N = C*Y*X, K = batch*Ho*Wo.
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-48-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F"),
                            "gfx900_56", &why));
    EXPECT_EQ(why, "GEMM M or N not a multiple of 32, or K of 4");
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("1024-17-17-3x3-128-17-17-1-1x1-1x1-1x1-0-NCHW-FP32-F"),
                            "gfx900_56"));
    EXPECT_FALSE(applicable(kFwd, parse_conv_problem_key("2-16-16-1x1-128-16-16-32-0x0-1x1-1x1-0-NCHW-FP32-F"),
                            "gfx900_56"));
    EXPECT_TRUE(applicable(kFwd, parse_conv_problem_key("4-16-16-1x1-128-16-16-32-0x0-1x1-1x1-0-NCHW-FP32-F"),
                           "gfx900_56"));
    EXPECT_FALSE(applicable(kWrw, parse_conv_problem_key("128-14-14-3x3-31-14-14-1-1x1-1x1-1x1-0-NCHW-FP32-W"),
                            "gfx900_56"));  // N = 31*9 = 279
    EXPECT_FALSE(applicable(kWrw, parse_conv_problem_key("128-15-15-3x3-32-15-15-1-1x1-1x1-1x1-0-NCHW-FP32-W"),
                            "gfx900_56"));  // K = 1*15*15 = 225
    // gfx803 (64 CUs) plans without inline asm (use_amd_inline_asm, implicitgemm_util.hpp:433-447).
    const auto fiji = plan(kFwd, "1024-17-17-3x3-128-17-17-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx803_64", nullptr);
    EXPECT_EQ(define(fiji.options, "CK_THREADWISE_GEMM_USE_AMD_INLINE_ASM"), "0");
    EXPECT_EQ(define(fiji.options, "CK_USE_AMD_INLINE_ASM"), "0");
    EXPECT_TRUE(fiji.options.ends_with(kCkFlagsGfx9 + kFp32Block + " -mcpu=gfx803")) << fiji.options;
    for (const char* name : {kFwd, kWrw}) {
        const ConvView view{fwd};
        EXPECT_TRUE(solver(name).uses_general_options()) << name;
        EXPECT_FALSE(solver(name).uses_compute_units()) << name;
        const Target gfx942 = parse_target("gfx942_304");
        EXPECT_TRUE(solver(name).disabled_by_default(view, SolverContext{gfx942, {3, 3, 0}, "", nullptr}));
        const Target gfx90a = parse_target("gfx90a_110");
        EXPECT_FALSE(solver(name).disabled_by_default(view, SolverContext{gfx90a, {3, 3, 0}, "", nullptr}));
    }
}

// ---- agreement with MIOpen's own find-dbs ----------------------------------------------

// MIOpen wrote a solver into a find-db line only after its IsApplicable accepted the problem on that
// GPU (with the MIOpen of the day), so every (line, V4R4 solver) item of the tree's HIP find-dbs should be
// applicable here and plan one kernel. Measured on the 11 HIP find-dbs of MIOpen 3.3.0's tree (items
// listed / planned; the rest refused for the reason named):
//   find-db      V4R4Fwd                          V4R4WrW
//   gfx1030_36   5835 / 5712, 123 of >= 2 GiB      10226 / 10029, 197 of >= 2 GiB
//   gfx900_56    2499 / 2462, 37 of >= 2 GiB       1453 / 1452, 1 of >= 2 GiB
//   gfx906_60    580 / 580                         593 / 593
//   gfx908_120   6825 / 6825                       5788 / 5788
//   gfx90a_104   7244 / 7244                       6098 / 6098
//   gfx90a_110   7031 / 7031                       5827 / 5827
//   gfx906_64    783 / 750, 33 of >= 2 GiB         1406 / 1406
//   gfx803_64    443 / 442, 1 of >= 2 GiB          1343 / 1340, 3 of >= 2 GiB   (gfx900_64: the same file)
//   gfx803_36    443 / 0, all not CK hardware      1343 / 0, all not CK hardware
//   gfx942_304   none listed (and deprecated solvers are off there)
// The two classes of disagreement, both ones MIOpen 3.3 itself passes over (it falls through to the
// line's next item):
//  - a tensor of 2 GiB or more (IsIndexRangeLargeEnough, implicitgemm_util.hpp:254-261: every refused
//    problem has a tensor of at least 2^31 bytes): the check came into these solvers with MIOpen PR #2005
//    (2023-03-02), after those lines were measured.
//  - gfx803 with 36 CUs: IsComposableKernelSupportedHardware takes gfx803 only with 64 CUs
//    (implicitgemm_util.hpp:574-584); the gfx803_36 find-db carries what look like gfx803_64's V4R4
//    lines (1697 of the 1811 lines of each have the same key), not ones a 36-CU card could have produced.
// Besides, the older find-dbs (gfx803_*, gfx900_64, gfx906_64) have 11 lines naming V4R4Fwd and 14
// naming V4R4WrW whose keys no MIOpen 3.3 forms (3-D problems in the old H-W-D order with 2-D pads
// and an NCHW layout): kdbgen's reader skips them, and MIOpen never looks them up.
TEST(HipIgemmV4R4MIOpenTree, FindDbAgreement) {
    NEEDS_TREE();
    struct Count {
        int listed = 0, planned = 0, off = 0, large = 0, hardware = 0, other = 0, unreadable = 0;
        std::string first_other;
    };
    std::map<std::pair<std::string, std::string>, Count> counts;
    std::set<std::string> files;
    for (const char* spec : {"gfx803_36", "gfx803_64", "gfx900_56", "gfx900_64", "gfx906_60", "gfx906_64",
                             "gfx908_120", "gfx90a_104", "gfx90a_110", "gfx1030_36", "gfx942_304"}) {
        const Target target = parse_target(spec);
        const auto path = tree().find_db(target);
        ASSERT_TRUE(path) << spec;
        const auto perf_path = tree().perf_db(target);
        std::unique_ptr<PerfDb> perf;
        if (perf_path) perf = std::make_unique<PerfDb>(*perf_path);
        // Line by line: older find-dbs hold keys kdbgen's reader refuses on lines that do not list these.
        const Bytes text = bz2_decompress_stream(read_file(*path));
        std::string_view rest(text.data(), text.size());
        while (!rest.empty()) {
            const auto end = rest.find('\n');
            const std::string_view line = rest.substr(0, end);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
            if (line.find("ConvHipImplicitGemmV4R4Fwd") == std::string_view::npos &&
                line.find("ConvHipImplicitGemmV4R4WrW") == std::string_view::npos)
                continue;
            UnreadableFindDbLines unreadable;
            const auto entries = parse_find_db(line, path->string(), &unreadable);
            for (const char* name : {kFwd, kWrw})
                if (unreadable.count && line.find(name) != std::string_view::npos) ++counts[{spec, name}].unreadable;
            for (const auto& entry : entries) {
                const ConvView view{entry.problem};
                const SolverContext ctx = tree_context(target, view, perf.get());
                for (const auto& item : entry.solvers) {
                    if (item.solver != kFwd && item.solver != kWrw) continue;
                    const Solver& s = solver(std::string(item.solver).c_str());
                    auto& c = counts[{spec, std::string(item.solver)}];
                    ++c.listed;
                    if (s.disabled_by_default(view, ctx)) {
                        ++c.off;
                        continue;
                    }
                    std::string why;
                    if (!s.applicable(view, ctx, &why)) {
                        if (why == "a tensor of 2 GiB or more") ++c.large;
                        else if (why == "not composable-kernel hardware") ++c.hardware;
                        else if (++c.other == 1) c.first_other = entry.key + ": " + why;
                        continue;
                    }
                    const auto kernels = s.kernels(view, ctx);
                    if (kernels.size() != 1 || kernels[0].options.empty()) {
                        if (++c.other == 1) c.first_other = entry.key + ": no kernel";
                        continue;
                    }
                    if (files.insert(std::string(spec) + " " + kernels[0].file).second) {
                        EXPECT_TRUE(miopen_kernel_build(kernels[0], target, tree())) << kernels[0].file;
                    }
                    ++c.planned;
                }
            }
        }
    }
    // (find-db, solver) -> items listed, planned, refused for a tensor of 2 GiB or more, refused as not CK hardware.
    const std::map<std::pair<std::string, std::string>, std::array<int, 4>> expected = {
        {{"gfx1030_36", kFwd}, {5835, 5712, 123, 0}},  {{"gfx1030_36", kWrw}, {10226, 10029, 197, 0}},
        {{"gfx900_56", kFwd}, {2499, 2462, 37, 0}},    {{"gfx900_56", kWrw}, {1453, 1452, 1, 0}},
        {{"gfx906_60", kFwd}, {580, 580, 0, 0}},       {{"gfx906_60", kWrw}, {593, 593, 0, 0}},
        {{"gfx908_120", kFwd}, {6825, 6825, 0, 0}},    {{"gfx908_120", kWrw}, {5788, 5788, 0, 0}},
        {{"gfx90a_104", kFwd}, {7244, 7244, 0, 0}},    {{"gfx90a_104", kWrw}, {6098, 6098, 0, 0}},
        {{"gfx90a_110", kFwd}, {7031, 7031, 0, 0}},    {{"gfx90a_110", kWrw}, {5827, 5827, 0, 0}},
        {{"gfx906_64", kFwd}, {783, 750, 33, 0}},      {{"gfx906_64", kWrw}, {1406, 1406, 0, 0}},
        {{"gfx803_64", kFwd}, {443, 442, 1, 0}},       {{"gfx803_64", kWrw}, {1343, 1340, 3, 0}},
        {{"gfx900_64", kFwd}, {443, 442, 1, 0}},       {{"gfx900_64", kWrw}, {1343, 1340, 3, 0}},
        {{"gfx803_36", kFwd}, {443, 0, 0, 443}},       {{"gfx803_36", kWrw}, {1343, 0, 0, 1343}},
    };
    for (const auto& [at, c] : counts) {
        std::cout << at.first << " " << at.second << ": " << c.listed << " listed, " << c.planned << " planned, "
                  << c.large << " refused for a tensor of 2 GiB or more, " << c.hardware
                  << " refused as not composable-kernel hardware, " << c.off << " off by default, " << c.other
                  << " other" << (c.first_other.empty() ? "" : " (first: " + c.first_other + ")") << ", "
                  << c.unreadable << " unreadable lines\n";
        EXPECT_EQ(c.other, 0) << at.first << " " << at.second << ": " << c.first_other;
        EXPECT_EQ(c.off, 0) << at.first << " " << at.second;
        const auto e = expected.find(at);
        ASSERT_NE(e, expected.end()) << at.first << " " << at.second << " lists the solver";
        EXPECT_EQ((std::array<int, 4>{c.listed, c.planned, c.large, c.hardware}), e->second)
            << at.first << " " << at.second;
    }
    EXPECT_EQ(counts.size(), expected.size());
}

// ---- the planned kernels compile -------------------------------------------------

// Per solver and target, the first applicable find-db problem (gfx908 and gfx90a plan from their
// find-dbs without a shipped perf-db); on gfx908 and gfx1030 the first 3-D one too (the NCDHW files).
TEST(HipIgemmV4R4MIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    CompileCount count;
    for (const char* spec : {"gfx900_56", "gfx906_60", "gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_110",
                             "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const bool with_3d = target.name() == "gfx908" || target.name() == "gfx1030";
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        const auto perf = tree_perf_db(target);
        Samples builds;  // sample -> (problem, build)
        for (const auto& entry : read_find_db(*fdb)) {
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view, perf.get());
            for (const auto& item : entry.solvers) {
                if (item.solver != kFwd && item.solver != kWrw) continue;
                if (view.Is3d() && !with_3d) continue;
                const std::string sample = std::string(item.solver) + (view.Is3d() ? " 3-D" : " 2-D");
                if (builds.count(sample)) continue;
                const Solver& s = solver(std::string(item.solver).c_str());
                if (!s.applicable(view, ctx, nullptr)) continue;
                for (const auto& kernel : s.kernels(view, ctx)) {
                    auto build = miopen_kernel_build(kernel, target, tree());
                    ASSERT_TRUE(build) << kernel.file << " is not in the tree (" << entry.key << ")";
                    builds.emplace(sample, std::pair{entry.key, std::move(*build)});
                }
            }
        }
        EXPECT_EQ(builds.size(), with_3d ? 4u : 2u) << spec;
        compile_samples(compiler, spec, builds, count);
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
    EXPECT_EQ(count.built, 14u);
    EXPECT_EQ(count.failed, 0u);
}


}  // namespace
