// The forward xdlops HIP static implicit-GEMM solvers ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm
// and ConvHipImplicitGemmForwardV4R5Xdlops (src/plan/solvers/hip_implicit_gemm/forward_v4r4_xdlops_padded_gemm.cpp,
// hip_implicit_gemm/forward_v4r5_xdlops.cpp): golden keys from the heuristic default and from a perf-db record,
// applicability against every find-db line of MIOpen 3.3.0 that lists them, and one planned kernel
// per solver and target compiled. The golden tests (HipIgemmFwdx.*) need no MIOpen tree; the find-db and
// compile tests (HipIgemmFwdxMIOpenTree.*) need KDBGEN_MIOPEN_SRC.
//
// Options written down from MIOpen 3.3.0 (develop 2d1fd997):
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r4_xdlops_padded_gemm.cpp:979-1023 (GetSolution)
//   src/solver/conv/conv_hip_implicit_gemm_fwd_v4r5_xdlops.cpp:952-994 (GetSolution)
//   src/include/miopen/solver/implicitgemm_util.hpp:544-584 (get_static_ck_common_compiler_flag)
//   src/include/miopen/datatype.hpp:136-187 (the data-type block, ctx.general_compile_options)
// No perf-db of gfx908 or gfx90a is in the tree (their blobs are too large for the mirror), and the
// shipped gfx900/gfx906/gfx1030/gfx942 perf-dbs hold no record of these solvers: the record path is
// tested with a perf-db written by tests/support/perf_db_fixture.hpp.
#include "kdbgen/error.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "perf_db_fixture.hpp"
#include "hip_implicit_gemm_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

using namespace kdbgen;
using namespace kdbgen::test::igemm;

namespace {

const char* const kPadded = "ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm";
const char* const kV4R5 = "ConvHipImplicitGemmForwardV4R5Xdlops";

struct Planned {
    std::string file, symbol, options;  // options with the planner's " -mcpu=<gfx>"
};

// The kernel a solver plans for a problem key on a target, with an optional perf-db.
Planned plan_one(const char* name, const std::string& problem_key, const std::string& target_spec,
                 const PerfDb* perf = nullptr, std::string general_options = "-") {
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    if (general_options == "-") general_options = data_type_options(view);
    const SolverContext ctx{target, version(), general_options, perf, tree_or_null()};
    std::string why;
    EXPECT_TRUE(solver(name).applicable(view, ctx, &why)) << name << " " << problem_key << ": " << why;
    const auto kernels = solver(name).kernels(view, ctx);
    EXPECT_EQ(kernels.size(), 1u);
    if (kernels.empty()) return {};
    return {kernels[0].file, kernels[0].symbols.empty() ? "" : kernels[0].symbols[0],
            kernels[0].options + target.mcpu_suffix()};
}

// The problem block both solvers write first (ProblemInterpreter, GetSolution :980-997 / :953-970).
const std::string kProblem16 =
    " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=16 -DCK_PARAM_PROBLEM_K=32 -DCK_PARAM_PROBLEM_C=1"
    " -DCK_PARAM_PROBLEM_HI=157 -DCK_PARAM_PROBLEM_WI=681 -DCK_PARAM_PROBLEM_HO=153 -DCK_PARAM_PROBLEM_WO=662"
    " -DCK_PARAM_PROBLEM_Y=5 -DCK_PARAM_PROBLEM_X=20 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1"
    " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
    " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0"
    " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0";

// A find-db problem of gfx90878 and gfx90a6e that lists both solvers: N 16, C 1, 157x681 -> 153x662 with a
// 5x20 filter, K 32, FP32. GEMM M = 32, N = 16*153*662 = 1620576 = 32*50643, K = 1*5*20 = 100.
const std::string kProblemA = "1-157-681-5x20-32-153-662-16-0x0-1x1-1x1-0-NCHW-FP32-F";

// ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm, gfx908 with 120 CUs, no perf-db: the default.
// IsApplicable (padded_gemm.cpp:1088-1095): padded to 16/64/4 the GEMM is 32 x 1620608 x 100 (N needs 32
// more), so the solver applies. HeuristicInit (:140-273) keeps the factors 16, 64, 16: M 32, N 1620608 =
// 128*12661, K 112 (extras 0, 32, 12). Walking down from 256,256,8,128,128,4: MPerBlock must divide 32;
// NPerBlock 256 does not divide N; at 32 x 128 the first xdlops wave shape is 32 x 64 (2 waves, block 128);
// KPack 4 with KPerBlock 8 copies 32 B values per thread (> 16, IsFastToBeUsedForTuning :773-790), KPerBlock 4
// copies 16: taken (112/4 = 28 is a multiple of 4; grid 12661 is the largest-blockwise grid, ratio 1).
// A copy (:325-426): the KPack read gcd(4, 4) is bounded by the unpadded K, gcd(4, 100) = 4; 4*32*4/128 = 4
// values per thread, one along M: clusters 4 x 32 x 1, write 4. B copy (:429-569): Wo = 662 allows 2-wide
// reads; 4*128*4/128 = 16 values, 8 per read split KPack-first: 4 along KPack, 2 along K: clusters 2 x 64 x 1,
// LDS write gcd(4, 4) = 4. Grid = 32/32 * 1620608/128 = 12661. Pads (:1016-1018): 0, 32, 12.
// The xdlops heuristics keep their last answer per thread (hip_implicit_gemm::last_answer):
// problems and cards interleaved on one thread must plan what a fresh thread (no kept
// answer) plans for each. (A kept answer that ignored the problem fails here; these
// problems' configurations happen not to change with the CU count, from 4 to 240.)
TEST(HipIgemmFwdx, KeptHeuristicAnswersFollowTheProblemAndTheCard) {
    const std::string batch4 = "4-157-681-5x20-32-153-662-16-0x0-1x1-1x1-0-NCHW-FP32-F";
    const std::vector<std::pair<std::string, std::string>> sequence{
        {kProblemA, "gfx908:sramecc+:xnack-_120"}, {kProblemA, "gfx908:sramecc+:xnack-_60"},
        {batch4, "gfx908:sramecc+:xnack-_60"},     {kProblemA, "gfx908:sramecc+:xnack-_120"},
        {batch4, "gfx90a:sramecc+:xnack-_110"},    {kProblemA, "gfx908:sramecc+:xnack-_60"}};
    for (const char* name : {kPadded, kV4R5, "ConvHipImplicitGemmForwardV4R4Xdlops"}) {
        std::vector<std::string> interleaved;
        for (const auto& [problem, target] : sequence) interleaved.push_back(plan_one(name, problem, target).options);
        for (std::size_t i = 0; i < sequence.size(); ++i) {
            std::string fresh;
            std::thread([&] { fresh = plan_one(name, sequence[i].first, sequence[i].second).options; }).join();
            EXPECT_EQ(interleaved[i], fresh) << name << " " << sequence[i].first << " on " << sequence[i].second;
        }
    }
}

TEST(HipIgemmFwdx, PaddedGemmGoldenDefaultGfx908) {
    const auto k = plan_one(kPadded, kProblemA, "gfx908:sramecc+:xnack-_120");
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_forward_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm");
    EXPECT_EQ(k.options,
              kProblem16 +
                  " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=32 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128"
                  " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=32"
                  " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64 -DCK_PARAM_TUNABLE_GEMM_KPACK=4"
                  " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=128 -DCK_PARAM_DEPENDENT_GRID_SIZE=12661"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=4"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=64"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
                  " -DCK_GEMM_M_PAD=0 -DCK_GEMM_N_PAD=32 -DCK_GEMM_K_PAD=12" +
                  kXdlopsFlags + kCkFlagsGfx908 + kFp32Block + " -mcpu=gfx908");
    // The data-type block is ctx.general_compile_options, the last item (:1023): MIOpen asks for it once
    // and doubled, and the planner passes both.
    EXPECT_TRUE(solver(kPadded).uses_general_options());
    const auto doubled = plan_one(kPadded, kProblemA, "gfx908:sramecc+:xnack-_120", nullptr, kFp32Block + kFp32Block);
    EXPECT_TRUE(doubled.options.ends_with(kCkFlagsGfx908 + kFp32Block + kFp32Block + " -mcpu=gfx908")) << doubled.options;
    // gfx90a with 110 CUs: the same configuration (the largest-blockwise grid 12661 is past 5 x 110 there
    // too), the atomic-add flag off.
    const auto g90a = plan_one(kPadded, kProblemA, "gfx90a:sramecc+:xnack-_110");
    EXPECT_EQ(define(g90a.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "12661");
    EXPECT_EQ(define(g90a.options, "CK_USE_AMD_BUFFER_ATOMIC_FADD"), "0");
    EXPECT_TRUE(g90a.options.ends_with(kFp32Block + " -mcpu=gfx90a"));
}

// gfx90a with 110 CUs, FP16, a perf-db record (the fixture: MIOpen's gfx90a perf-dbs are not in the tree).
// Problem: N 26, C 1, 1003x80 -> 501x39 with a 3x3 filter, stride 2, K 256: GEMM M = 256, N = 26*501*39 =
// 508014, K = 9; padded to 16/64/4 for IsApplicable N and K need padding.
// The record 128,128,4,64,64,8,32,128,32,0,1,1 (Visit order, solvers.hpp:1243-1258) passes IsReallyValid
// (:600-660): its own factors pad to M 256 (+0), N 508032 = 128*3969 (+18), K 32 (+23); two-power values,
// wave shape 64 x 64 (block 256), 32/8 = 4 a multiple of KPerBlock 4, M and N multiples of 128; A copy:
// K was padded so the KPack read is gcd(4, 8, 9) = 1, 4*128*8/256 = 16 values per thread, gcd(128, 16) = 16
// along M: clusters 4 x 8 x 8 = 256 threads, write gcd(8, 1) = 1; B copy: stride 2 forces 1-wide reads,
// 4*128*8/256 = 16 values split KPack-first gcd(8, 16) = 8, then 2 along K: clusters 2 x 128 x 1 = 256,
// write gcd(8, 8) = 8; LDS 4*8*256*2 = 16 KiB. Grid = 256/128 * 508032/128 = 7938.
// The default differs (256 x 128 tiles, pads 0, 18, 7), so the options show the record was used.
TEST(HipIgemmFwdx, PaddedGemmGoldenFromPerfDbRecordGfx90a) {
    const std::string problem = "1-1003-80-3x3-256-501-39-26-0x0-2x2-1x1-0-NCHW-FP16-F";
    test::TempDir dir;
    const PerfDb perf(test::write_perf_db(dir / "gfx90a6e.db", {{problem, kPadded, "128,128,4,64,64,8,32,128,32,0,1,1"}}));
    const auto k = plan_one(kPadded, problem, "gfx90a:sramecc+:xnack-_110", &perf);
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=26 -DCK_PARAM_PROBLEM_K=256 -DCK_PARAM_PROBLEM_C=1"
              " -DCK_PARAM_PROBLEM_HI=1003 -DCK_PARAM_PROBLEM_WI=80 -DCK_PARAM_PROBLEM_HO=501 -DCK_PARAM_PROBLEM_WO=39"
              " -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_W=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=64"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64 -DCK_PARAM_TUNABLE_GEMM_KPACK=8"
              " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256 -DCK_PARAM_DEPENDENT_GRID_SIZE=7938"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=8"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=8"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=128"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=8"
              " -DCK_GEMM_M_PAD=0 -DCK_GEMM_N_PAD=18 -DCK_GEMM_K_PAD=23" +
                  kXdlopsFlags +
                  " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
                  " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1"
                  " -DCK_USE_AMD_BUFFER_ADDRESSING=1 -DCK_USE_AMD_V_FMAC_F32=0" +
                  kFp16Block + " -mcpu=gfx90a");
    // Without the record: the heuristic default (256 x 128, factors 16/64/16: pads 0, 18, 7); the K
    // padding bounds the A read to gcd(4, 9) = 1.
    const auto d = plan_one(kPadded, problem, "gfx90a:sramecc+:xnack-_110");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "256");
    EXPECT_EQ(define(d.options, "CK_GEMM_K_PAD"), "7");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK"), "1");
    // A record IsReallyValid refuses falls back to the default: a padding factor of 0 (MIOpen would
    // divide by it), and a KPerBlock that does not divide the padded K (32/8 = 4 is no multiple of 8).
    int n = 0;
    for (const char* bad : {"128,128,4,64,64,8,0,128,32,0,1,1", "128,128,8,64,64,8,32,128,32,0,1,1"}) {
        const PerfDb other(test::write_perf_db(dir / ("bad" + std::to_string(++n) + ".db"), {{problem, kPadded, bad}}));
        EXPECT_EQ(plan_one(kPadded, problem, "gfx90a:sramecc+:xnack-_110", &other).options, d.options) << bad;
    }
    // A record that does not even parse (three fields of twelve) is damage, not a tuning: MIOpen would
    // take the default, kdbgen stops and names the row (issue #25).
    const PerfDb short_record(test::write_perf_db(dir / "bad3.db", {{problem, kPadded, "1,2,3"}}));
    try {
        plan_one(kPadded, problem, "gfx90a:sramecc+:xnack-_110", &short_record);
        ADD_FAILURE() << "a params string of 3 fields was taken";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bad3.db: perf_db row 1: params '1,2,3'"), std::string::npos) << e.what();
    }
}

// ConvHipImplicitGemmForwardV4R5Xdlops, gfx908 with 120 CUs, no perf-db: the default, on kProblemA.
// HeuristicInit (v4r5_xdlops.cpp:160-293), first round (really valid and fast): MPerBlock 32; N = 1620576 =
// 32*50643 admits NPerBlock 32 at most; 32 x 32 waves are one wave per block (IsFastToBeUsedForTuning wants
// 2-4, :744-752), 16 x 16 waves need KPerBlock % 4 == 0, which K = 100 allows only with KPack 1 and then
// KPerBlock*KPack = 4 < 8 (:808-824): no fast configuration. Second round (really valid): 32,32,_,32,32 with
// KPack 4 leaves K 25 (no even KPerBlock for the 32 x 32 wave shape), KPack 2 leaves 50: KPerBlock 8, 4 do not
// divide it, 2 does. NWaves = 32/32 = 1, BPerBlock 32, block 64. A copy (:342-426, no rounding up): read
// gcd(4, 2) = 2, 2*32*2/64 = 2 values = one read per thread: clusters 2 x 32 x 1 = 64 (the whole block), write 2.
// B copy (:429-578): Wo 662 gives 2-wide reads along B; 2*1*32*2/64 = 2 values, one read: KPack gcd(2, 1) = 1,
// K 1: clusters 2 x 16 x 2 = 64, write gcd(4, 1) = 1. Grid = 32/32 * 1620576/32 = 50643.
TEST(HipIgemmFwdx, V4R5GoldenDefaultGfx908) {
    const auto k = plan_one(kV4R5, kProblemA, "gfx908:sramecc+:xnack-_120");
    EXPECT_EQ(k.file, "static_kernel_gridwise_convolution_forward_implicit_gemm_v4r5_xdlops_nchw_kcyx_nkhw.cpp");
    EXPECT_EQ(k.symbol, "gridwise_convolution_forward_implicit_gemm_v4r5_xdlops_nchw_kcyx_nkhw");
    EXPECT_EQ(k.options,
              kProblem16 +
                  " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=32 -DCK_PARAM_TUNABLE_GEMM_B_PER_BLOCK=32"
                  " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=2 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=32"
                  " -DCK_PARAM_TUNABLE_GEMM_B_PER_WAVE=32 -DCK_PARAM_TUNABLE_NWAVES=1 -DCK_PARAM_TUNABLE_GEMM_KPACK=2"
                  " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=64 -DCK_PARAM_DEPENDENT_GRID_SIZE=50643"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_B=16"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=2"
                  " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1" +
                  kXdlopsFlags + kCkFlagsGfx908 + kFp32Block + " -mcpu=gfx908");
    EXPECT_TRUE(solver(kV4R5).uses_general_options());
    // 1x1 filters are refused (:1038-1040), though the GEMM would fit.
    const auto one = parse_conv_problem_key("64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F");
    std::string why;
    EXPECT_FALSE(solver(kV4R5).applicable(ConvView{one}, {parse_target("gfx908_120"), version(), "", nullptr, tree_or_null()},
                                          &why));
    EXPECT_EQ(why, "1x1 filter");
}

// gfx90a with 110 CUs, FP16, groups 32, a perf-db record (the fixture). Problem: N 128, C 1024, K 1024, 14x14,
// 3x3 filter, pad 1, G 32: GEMM M = 1024/32 = 32, N = 128*14*14 = 25088 = 128*196, K = 32*9 = 288.
// The record 32,128,4,32,64,8,0,1,1 (Visit order, solvers.hpp:1181-1193) passes IsReallyValid (:608-676):
// wave shape 32 x 64 (block 128), NWaves = 128/64 = 2 divides N 128, 288/8 = 36 a multiple of 4; A copy
// (:342-426): read gcd(4, 8) = 4, 4*32*8/128 = 8 values, 2 reads: gcd(32, 2) = 2 along M: clusters
// 4 x 16 x 2 = 128 (the whole block), write gcd(8, 4) = 4; B copy (:429-578): pad 1 (left 1, right 1) gives
// reads gcd(4, 14, 1, 1, 1) = 1, BPerBlock 64, 4*2*64*8/128 = 32 values, 32/(1*2) = 16 split KPack-first
// gcd(8, 16) = 8, then 2 along K: clusters 2 x 64 x 1 = 128, write gcd(8, 8) = 8; LDS 4*8*160*2 = 10 KiB.
// Grid = 32 * 32/32 * 25088/128 = 6272. The default takes NPerBlock 256 (4 waves along N), so the options
// show the record was used.
TEST(HipIgemmFwdx, V4R5GoldenFromPerfDbRecordGfx90a) {
    const std::string problem = "1024-14-14-3x3-1024-14-14-128-1x1-1x1-1x1-0-NCHW-FP16-F_g32";
    test::TempDir dir;
    const PerfDb perf(test::write_perf_db(dir / "gfx90a6e.db", {{problem, kV4R5, "32,128,4,32,64,8,0,1,1"}}));
    const auto k = plan_one(kV4R5, problem, "gfx90a:sramecc+:xnack-_110", &perf);
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=32 -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=1024"
              " -DCK_PARAM_PROBLEM_C=1024 -DCK_PARAM_PROBLEM_HI=14 -DCK_PARAM_PROBLEM_WI=14"
              " -DCK_PARAM_PROBLEM_HO=14 -DCK_PARAM_PROBLEM_WO=14 -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=32 -DCK_PARAM_TUNABLE_GEMM_B_PER_BLOCK=64"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=32"
              " -DCK_PARAM_TUNABLE_GEMM_B_PER_WAVE=64 -DCK_PARAM_TUNABLE_NWAVES=2 -DCK_PARAM_TUNABLE_GEMM_KPACK=8"
              " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=128 -DCK_PARAM_DEPENDENT_GRID_SIZE=6272"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=16"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_B=64"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=8" +
                  kXdlopsFlags +
                  " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
                  " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1"
                  " -DCK_USE_AMD_BUFFER_ADDRESSING=1 -DCK_USE_AMD_V_FMAC_F32=0" +
                  kFp16Block + " -mcpu=gfx90a");
    const auto d = plan_one(kV4R5, problem, "gfx90a:sramecc+:xnack-_110");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_NWAVES"), "4");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "3136");  // 32 * 25088/256
    // Records IsReallyValid refuses fall back to the default: GemmBThreadDataPerRead_GemmN 16 (IsValidValue,
    // :593-604, wants 1..8), and KPerBlock 1, where A copies 1*32*8/128 = 2 values per thread, less than one
    // 4-wide read: V4R5 does not round up to a full read as V4R4 does (:374-382).
    int n = 0;
    for (const char* bad : {"32,128,4,32,64,8,0,1,16", "32,128,1,32,64,8,0,1,1"}) {
        const PerfDb other(test::write_perf_db(dir / ("bad" + std::to_string(++n) + ".db"), {{problem, kV4R5, bad}}));
        EXPECT_EQ(plan_one(kV4R5, problem, "gfx90a:sramecc+:xnack-_110", &other).options, d.options) << bad;
    }
}

// Where the solvers run: xdlops targets (IsXdlopsSupport, implicitgemm_util.hpp:206-214): gfx908 and gfx90a.
// gfx94x has xdlops, but the solvers are deprecated (ThisSolverIsDeprecatedStatic, src/solver.cpp:716-732)
// and off there by default; gfx900, gfx906 and gfx1030 have no xdlops. The default reads the CU count.
TEST(HipIgemmFwdx, TargetsAndComputeUnits) {
    const auto problem = parse_conv_problem_key(kProblemA);
    const ConvView view{problem};
    for (const char* name : {kPadded, kV4R5}) {
        const Solver& s = solver(name);
        EXPECT_TRUE(s.uses_compute_units()) << name;
        for (const char* spec : {"gfx900_56", "gfx906_60", "gfx1030_36"}) {
            std::string why;
            EXPECT_FALSE(s.applicable(view, {parse_target(spec), version(), "", nullptr, tree_or_null()}, &why)) << spec;
            EXPECT_EQ(why, "no xdlops") << name << " " << spec;
        }
        const SolverContext g942{parse_target("gfx942_304"), version(), "", nullptr, tree_or_null()};
        EXPECT_TRUE(s.applicable(view, g942, nullptr)) << name;
        const auto off = s.disabled_by_default(view, g942);
        ASSERT_TRUE(off.has_value()) << name;
        EXPECT_NE(off->find("MIOPEN_DEBUG_ENABLE_DEPRECATED_SOLVERS"), std::string::npos);
        for (const char* spec : {"gfx908_120", "gfx90a_110"})
            EXPECT_FALSE(s.disabled_by_default(view, {parse_target(spec), version(), "", nullptr, tree_or_null()}))
                << spec;
    }
    // The CU count in IsFastToBeUsedForTuning (v4r5_xdlops.cpp:694-742): N 1, C 16, 24x240, 3x3, pad 1, K 32,
    // FP32 (a gfx90a6e line): GEMM 32 x 5760 x 144; the largest blockwise GEMM (32 x 128) needs a grid of
    // 32*5760/4096 = 45. N = 1 forces NWaves 1. The tiles with NPerBlock >= 32 fail for reasons the CU count
    // does not touch; at 110 CUs (45 <= 110: no limit on the grid ratio) 32 x 16 with two 16x16 waves is fast:
    // grid 360, ratio 8. With 20 CUs, 45 > 2*20 caps the ratio at 6.41: no tile is fast, and the second round
    // takes the first really valid one, 32 x 64 with one 32x64 wave: grid 90. The key differs by CU count.
    const std::string small = "16-24-240-3x3-32-24-240-1-1x1-1x1-1x1-0-NCHW-FP32-F";
    const auto at110 = plan_one(kV4R5, small, "gfx90a:sramecc+:xnack-_110");
    const auto at20 = plan_one(kV4R5, small, "gfx90a_20");
    EXPECT_EQ(define(at110.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "360");
    EXPECT_EQ(define(at110.options, "CK_PARAM_TUNABLE_GEMM_M_PER_WAVE"), "16");
    EXPECT_EQ(define(at20.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "90");
    EXPECT_EQ(define(at20.options, "CK_PARAM_TUNABLE_GEMM_B_PER_WAVE"), "64");
    // 104 (gfx90a68) and 120 (gfx908) CUs leave the grid unlimited too: the 110-CU key.
    EXPECT_EQ(plan_one(kV4R5, small, "gfx90a:sramecc+:xnack-_104").options, at110.options);
}

// MIOpen wrote a solver into a find-db line only after its IsApplicable accepted the problem on that GPU.
// Every line of the tree's HIP find-dbs (MIOpen 3.3.0) that lists one of the two solvers must be applicable
// in the port, with one kernel. Measured: Padded_Gemm listed on 15998 lines of gfx90878 (gfx908, 120 CUs),
// 18412 of gfx90a68 (104 CUs) and 20033 of gfx90a6e (110 CUs); V4R5 on 5800, 6999 and 7258: all applicable,
// 0 disagreements. The other find-dbs (gfx803, gfx900, gfx906, gfx1030, gfx942) list neither: no xdlops,
// and on gfx942 deprecated solvers are off.
TEST(HipIgemmFwdxMIOpenTree, ApplicableWhereverTheFindDbsListThem) {
    NEEDS_TREE();
    struct Count {
        int listed = 0, applicable = 0, with_kernel = 0;
        std::string first;
    };
    std::map<std::string, Count> counts;  // solver + " " + target
    for (const char* spec : {"gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_104", "gfx90a:sramecc+:xnack-_110"}) {
        const Target target = parse_target(spec);
        const auto path = tree().find_db(target);
        ASSERT_TRUE(path) << spec;
        for (const auto& entry : read_find_db(*path)) {
            const ConvView view{entry.problem};
            const SolverContext ctx{target, version(), data_type_options(view), nullptr, tree_or_null()};
            for (const auto& item : entry.solvers) {
                if (item.solver != kPadded && item.solver != kV4R5) continue;
                auto& c = counts[std::string(item.solver) + " " + std::string(spec)];
                ++c.listed;
                const Solver& s = solver(item.solver == kPadded ? kPadded : kV4R5);
                std::string why;
                if (!s.applicable(view, ctx, &why)) {
                    if (c.first.empty()) c.first = entry.key + ": " + why;
                    continue;
                }
                ++c.applicable;
                if (s.kernels(view, ctx).size() == 1) ++c.with_kernel;
            }
        }
    }
    for (const auto& [key, c] : counts) {
        std::cout << key << ": listed " << c.listed << ", applicable " << c.applicable << ", with a kernel "
                  << c.with_kernel << (c.first.empty() ? "" : "; first refused: " + c.first) << "\n";
        EXPECT_EQ(c.applicable, c.listed) << key << ": " << c.first;
        EXPECT_EQ(c.with_kernel, c.listed) << key;
    }
    const auto listed = [&](const char* name, const char* spec) { return counts[std::string(name) + " " + spec].listed; };
    EXPECT_EQ(listed(kPadded, "gfx908:sramecc+:xnack-_120"), 15998);
    EXPECT_EQ(listed(kPadded, "gfx90a:sramecc+:xnack-_104"), 18412);
    EXPECT_EQ(listed(kPadded, "gfx90a:sramecc+:xnack-_110"), 20033);
    EXPECT_EQ(listed(kV4R5, "gfx908:sramecc+:xnack-_120"), 5800);
    EXPECT_EQ(listed(kV4R5, "gfx90a:sramecc+:xnack-_104"), 6999);
    EXPECT_EQ(listed(kV4R5, "gfx90a:sramecc+:xnack-_110"), 7258);
}

// One planned key per solver and target, from the target's find-db, compiles with clang 19: gfx908 and
// gfx90a (the solvers do not apply on gfx900, gfx906 and gfx1030: TargetsAndComputeUnits).
TEST(HipIgemmFwdxMIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    CompileCount count;
    for (const char* spec : {"gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_110"}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        Samples builds;  // solver -> (problem, build)
        for (const auto& entry : read_find_db(*fdb)) {
            if (builds.size() == 2) break;
            const ConvView view{entry.problem};
            const SolverContext ctx{target, version(), data_type_options(view), nullptr, tree_or_null()};
            for (const auto& item : entry.solvers) {
                if ((item.solver != kPadded && item.solver != kV4R5) || builds.count(std::string(item.solver))) continue;
                const Solver& s = solver(item.solver == kPadded ? kPadded : kV4R5);
                if (!s.applicable(view, ctx, nullptr)) continue;
                for (const auto& kernel : s.kernels(view, ctx)) {
                    auto build = miopen_kernel_build(kernel, target, tree());
                    ASSERT_TRUE(build) << kernel.file << " is not in the tree (" << entry.key << ")";
                    builds.emplace(item.solver, std::pair{entry.key, std::move(*build)});
                }
            }
        }
        EXPECT_EQ(builds.size(), 2u) << spec;
        compile_samples(compiler, spec, builds, count);
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
    EXPECT_EQ(count.built, 4u);
    EXPECT_EQ(count.failed, 0u);
}

}  // namespace

namespace {


}  // namespace

namespace {


}  // namespace
