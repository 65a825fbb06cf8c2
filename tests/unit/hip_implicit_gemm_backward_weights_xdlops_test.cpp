// ConvHipImplicitGemmWrwV4R4Xdlops and ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm
// (src/plan/solvers/hip_implicit_gemm/backward_weights_v4r4_xdlops*.cpp, backward_weights_xdlops_common.*): golden keys from
// the heuristic default and from perf-db records, where they run, agreement with MIOpen's own
// find-dbs, and a sample of planned kernels compiled.
//
// The options are written down from MIOpen 3.3.0 (develop 2d1fd997; rocm-6.2.0 has the same lines
// under src/solver/): src/solver/conv/conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:940-982 and
// ..._padded_gemm.cpp:1000-1045 (the problem through ProblemInterpreter, the six tunables,
// CK_PARAM_GEMM_K_BLOCK, block and grid size, the A and B copy parameters, the padded solver's
// CK_GEMM_M_PAD / CK_GEMM_N_PAD / CK_GEMM_K_TOTAL_PAD, the xdlops flags, get_static_ck_common_compiler_flag
// (src/include/miopen/solver/implicitgemm_util.hpp:544-584), ctx.general_compile_options); the helpers
// from the invokers (:989-1038, padded :1052-1101) and src/ocl/tensorocl.cpp (SetTensor :1451-1560,
// CastTensor :2006-2131).
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

const char* const kPlain = "ConvHipImplicitGemmWrwV4R4Xdlops";
const char* const kPadded = "ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm";
const char* const kGfx908 = "gfx908:sramecc+:xnack-_120";
const char* const kGfx90a110 = "gfx90a:sramecc+:xnack-_110";
const char* const kGfx90a104 = "gfx90a:sramecc+:xnack-_104";

// SetTensor's MIOpenSubTensorOpWithScalarKernel.cl on an FP32 tensor (dw itself for FP32, the
// workspace for FP16/BF16), without the leading space tensorocl.cpp does not write.
const std::string kSetFloat = "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + kFp32Block;

struct Planned {
    std::vector<SolverKernel> kernels;
    std::string options;  // the main kernel's, with -mcpu as the kdb key has it
    std::string why;
    bool applicable = false;
};

// Plans one problem; perf_db_record non-empty writes a perf-db holding just that record for the
// problem and solver (tests/support/perf_db_fixture.hpp: the tree ships none for gfx908/gfx90a).
Planned plan(const char* solver, const std::string& key, const char* spec, const std::string& perf_db_record = "") {
    const Solver* s = find_solver(solver);
    EXPECT_NE(s, nullptr) << solver;
    Planned out;
    if (!s) return out;
    const auto problem = parse_conv_problem_key(key);
    const ConvView view{problem};
    const Target target = parse_target(spec);
    test::TempDir dir;
    std::unique_ptr<PerfDb> perf;
    if (!perf_db_record.empty())
        perf = std::make_unique<PerfDb>(test::write_perf_db(dir / "perf.db", {{key, solver, perf_db_record}}));
    const SolverContext ctx{target, version(), data_type_options(view), perf.get(), tree_or_null()};
    out.applicable = s->applicable(view, ctx, &out.why);
    if (!out.applicable) return out;
    out.kernels = s->kernels(view, ctx);
    if (!out.kernels.empty()) out.options = out.kernels[0].options + target.mcpu_suffix();
    return out;
}

// --- golden keys ---------------------------------------------------------------------------------

// ConvHipImplicitGemmWrwV4R4Xdlops on gfx90a with 110 CUs, FP32, the heuristic default (no perf-db:
// the tree ships none for gfx90a). ProblemInterpreter (problem_description_interpreter.hpp:40-296):
// K = 256 (dy), C = 256, Hi = Wi = Ho = Wo = 14, 3x3, pad 1; right pad 1 + 2 + 13 - (1 + 14) = 1.
// GEMM (conv_hip_implicit_gemm_wrw_v4r4_xdlops.cpp:309-376): M = K = 256, N = C*Y*X = 2304,
// N*Ho*Wo = 25088. HeuristicInit (:128-254) walks down from 256,256,8,128,128,4: no 256x256 block
// has at most 4 waves with a valid wave tile (IsValidBlockwiseGemmXdlops, implicitgemm_util.hpp:263-318);
// 256,128,8,128,64,4 is really valid but not fast (:804-821: A copy 8*256*4/256 = 32 > 16 per
// thread for FP32); 256,128,4,128,64,4 is both. GEMM-K split: 20*110 = 2200 / (1*18 blocks) = 122,
// capped by N = 128; the largest divisor of 128 below that with 25088 % (kb*4) == 0 and
// (25088/(kb*4)) % 4 == 0 is 32 (64 leaves 98), so GemmKBlock 32, GemmG 32, grid 32*1*18 = 576.
// A copy (:378-472): read gcd(4, 4, 196) = 4, 4*256*4/256 = 16 per thread -> 4 along M, clusters
// 4 x 64 x 1, LDS write gcd(4, 4) = 4. B copy (:474-599): pad 1 -> read gcd(4, 14, 1, 1, 1) = 1,
// 4*128*4/256 = 8 per thread, GemmBThreadCopyMoreGemmK -> 4 along K, 2 along N: clusters 1 x 64 x 4.
// Atomic add off (gfx908 only, implicitgemm_util.hpp:465-468). Then SetTensor zeroes dw in place
// (256*256*9 = 589824 values -> 65536 work items).
TEST(HipIgemmWrwxMIOpenTree, PlainGoldenDefaultGfx90a) {
    NEEDS_TREE();
    const std::string problem = "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NCHW-FP32-W";
    const auto k = plan(kPlain, problem, kGfx90a110);
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].file, "static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw.cpp");
    EXPECT_EQ(k.kernels[0].symbols,
              std::vector<std::string>{"gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw"});
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=256 -DCK_PARAM_PROBLEM_C=256"
              " -DCK_PARAM_PROBLEM_HI=14 -DCK_PARAM_PROBLEM_WI=14 -DCK_PARAM_PROBLEM_HO=14 -DCK_PARAM_PROBLEM_WO=14"
              " -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_W=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=256"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64"
              " -DCK_PARAM_TUNABLE_GEMM_KPACK=4 -DCK_PARAM_GEMM_K_BLOCK=32 -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256"
              " -DCK_PARAM_DEPENDENT_GRID_SIZE=576 -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=64"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=64"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1 -DCK_USE_AMD_XDLOPS=1"
              " -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0 --std=c++14"
              " -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
              " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
              " -DCK_USE_AMD_V_FMAC_F32=0" + kFp32Block + " -mcpu=gfx90a");
    EXPECT_EQ(k.kernels[1].file, "MIOpenSubTensorOpWithScalarKernel.cl");
    EXPECT_EQ(k.kernels[1].symbols, std::vector<std::string>{"SubTensorOpWithScalar1d"});
    EXPECT_EQ(k.kernels[1].options, kSetFloat + " -DWORK_LENGTH_0=65536");
}

// gfx908 (120 CUs), FP16, on a perf-db record written by the fixture (the tree lacks gfx90878.db):
// 128,128,4,64,64,8,1,0 (GemmMPerBlock, GemmNPerBlock, GemmKPerBlock, GemmMPerWave, GemmNPerWave,
// GemmKPack, GemmAThreadCopyMoreGemmK, GemmBThreadCopyMoreGemmK: Visit order, solvers.hpp:2602-2613).
// It passes IsReallyValid (:626-689): two-power ranges, KPack 8 % 4 == 0 for FP16, wave tile 64x64,
// 4 waves; M 256 % 128, N 2304 % 128, 25088 % 32; LDS 4*8*256*2 = 16384 bytes. GEMM-K split:
// 2400 / (2*18) = 66; 64 leaves GemmK 25088/(64*8) = 49, 32 leaves 98, 16 leaves 196 = 49*4: GemmKBlock
// 16, grid 16*2*18 = 576. A copy: read gcd(4, 8, 196) = 4, 4*128*8/256 = 16 per thread, more along
// K: gcd(4, 4) = 4 along K, 1 along M: clusters 1 x 128 x 2, LDS write gcd(8, 4) = 4. B copy: read 1
// (pad 1), 16 per thread, more along N: gcd(128, 16) = 16: clusters 4 x 8 x 8, LDS write 1.
// FP16 adds through an FP32 workspace: SetTensor on it, CastTensor FP32 (3) -> FP16 (2).
TEST(HipIgemmWrwxMIOpenTree, PlainGoldenFromPerfDbRecordGfx908) {
    NEEDS_TREE();
    const std::string problem = "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NCHW-FP16-W";
    const auto k = plan(kPlain, problem, kGfx908, "128,128,4,64,64,8,1,0");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 3u);
    const std::string fp16_block =
        " -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0"
        " -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0"
        " -DMIOPEN_FP8_CLIPPING=1";
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=256 -DCK_PARAM_PROBLEM_C=256"
              " -DCK_PARAM_PROBLEM_HI=14 -DCK_PARAM_PROBLEM_WI=14 -DCK_PARAM_PROBLEM_HO=14 -DCK_PARAM_PROBLEM_WO=14"
              " -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_W=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=64 -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64"
              " -DCK_PARAM_TUNABLE_GEMM_KPACK=8 -DCK_PARAM_GEMM_K_BLOCK=16 -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256"
              " -DCK_PARAM_DEPENDENT_GRID_SIZE=576 -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=128"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=8"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=8"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1 -DCK_USE_AMD_XDLOPS=1"
              " -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0 --std=c++14"
              " -DCK_USE_AMD_BUFFER_ATOMIC_FADD=1 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
              " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
              " -DCK_USE_AMD_V_FMAC_F32=0" + fp16_block + " -mcpu=gfx908");
    EXPECT_EQ(k.kernels[1].file, "MIOpenSubTensorOpWithScalarKernel.cl");
    EXPECT_EQ(k.kernels[1].options, kSetFloat + " -DWORK_LENGTH_0=65536");
    EXPECT_EQ(k.kernels[2].file, "MIOpenSubTensorOpWithCastTensorKernel.cl");
    EXPECT_EQ(k.kernels[2].symbols, std::vector<std::string>{"SubTensorOpWithCastTensor1d"});
    EXPECT_EQ(k.kernels[2].options, " -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=2 -DWORK_LENGTH_0=65536");

    // Without the record: HeuristicInit (FP16 walk from 256,256,8,128,128,8) rejects 256,128,8,128,64,8
    // as slow (A copy 8*256*8/256 = 64 > 32 per thread) and takes 256,128,4,128,64,8; GEMM-K split 16
    // (64 and 32 leave 49 and 98, no multiples of 4): grid 16*1*18 = 288.
    const auto d = plan(kPlain, problem, kGfx908);
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "256");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "4");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_GEMM_M_PER_WAVE"), "128");
    EXPECT_EQ(define(d.options, "CK_PARAM_GEMM_K_BLOCK"), "16");
    EXPECT_EQ(define(d.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "288");

    // Deserialize (src/include/miopen/serializable.hpp:42-112): a record with a ninth field is read
    // (the rest ignored); a seven-field record fails and FindSolutionImpl (find_solution.hpp:88-146)
    // takes the default; so does a record IsValidPerformanceConfig refuses (KPack 2 is no multiple
    // of 4 for FP16: IsValidBlockwiseGemmXdlops).
    EXPECT_EQ(plan(kPlain, problem, kGfx908, "128,128,4,64,64,8,1,0,99").options, k.options);
    // The seven-field record does not parse: kdbgen names the row instead (issue #25).
    EXPECT_NE(test::input_error_of([&] { plan(kPlain, problem, kGfx908, "128,128,4,64,64,8,1"); })
                  .find("perf_db row 1: params '128,128,4,64,64,8,1'"),
              std::string::npos);
    EXPECT_EQ(plan(kPlain, problem, kGfx908, "128,128,4,64,64,2,1,0").options, d.options);
}

// ConvHipImplicitGemmWrwV4R4Xdlops_Padded_Gemm on gfx908 (120 CUs), FP32, the heuristic default.
// K = 1, C = 2, 3x3 filter, dy 1x1, x 3x3 (stride 1, no pads; right pads 1 + 2 + 0 - 3 = 0).
// GEMM (_padded_gemm.cpp:815-910): M = 1 -> 16 (GemmMFactor 16), pad 15; N = 2*9 = 18 -> 64
// (GemmNFactor 64), pad 46. HeuristicInit (:125-250): every GemmMPerBlock above 16 and GemmNPerBlock
// above 64 fails the M/N divisibility; at 16,64 the wave tiles 16x64 (one wave: not fast) and
// 16x32 (no xdlops shape) come before 16x16 (4 waves, KPerBlock % 4 == 0), first tried at KPerBlock 8,
// KPack 4: 16,64,8,16,16,4. GEMM-K split: one unsplit block, 2400 capped at N = 128; each slice's
// K = 128/kb (Ho*Wo = 1) padded to 16 must be a multiple of 8*4 = 32: kb 128..8 give 16, kb 4
// gives 32, pad 0: GemmKBlock 4, grid 4. A copy: read gcd(4, 4, 1) = 1, 8*16*4/256 = 2 per thread,
// along M: clusters 8 x 8 x 4. B copy: read gcd(4, Wo = 1) = 1, 8 per thread; GemmBThreadCopyMoreGemmK
// with the padded solver's bounds (:486-495: gcd(GemmNPerBlock, 8) = 8 along K): clusters 1 x 64 x 4.
// gfx908: atomic add on. dw is 1*2*9 = 18 values: SetTensor over 32 work items.
TEST(HipIgemmWrwxMIOpenTree, PaddedGoldenDefaultGfx908) {
    NEEDS_TREE();
    const auto k = plan(kPadded, "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP32-W", kGfx908);
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].file,
              "static_kernel_gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm.cpp");
    EXPECT_EQ(k.kernels[0].symbols,
              std::vector<std::string>{"gridwise_convolution_backward_weights_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw_padded_gemm"});
    EXPECT_EQ(k.options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=1 -DCK_PARAM_PROBLEM_C=2"
              " -DCK_PARAM_PROBLEM_HI=3 -DCK_PARAM_PROBLEM_WI=3 -DCK_PARAM_PROBLEM_HO=1 -DCK_PARAM_PROBLEM_WO=1"
              " -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_W=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=16"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=64 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=8"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=16 -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=16"
              " -DCK_PARAM_TUNABLE_GEMM_KPACK=4 -DCK_PARAM_GEMM_K_BLOCK=4 -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256"
              " -DCK_PARAM_DEPENDENT_GRID_SIZE=4 -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=8"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=8"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=64"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1 -DCK_GEMM_M_PAD=15"
              " -DCK_GEMM_N_PAD=46 -DCK_GEMM_K_TOTAL_PAD=0 -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0"
              " -DCK_USE_AMD_XDLOPS_EMULATE=0 --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=1"
              " -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1 -DCK_WORKAROUND_SWDEV_229564=1"
              " -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1 -DCK_USE_AMD_V_FMAC_F32=0" +
                  kFp32Block + " -mcpu=gfx908");
    EXPECT_EQ(k.kernels[1].options, kSetFloat + " -DWORK_LENGTH_0=32");
}

// The padded solver on gfx90a with 104 CUs, BF16 (stride 2, made 1 for the 1x1 output), on a
// fixture record with factors of its own: 32,64,4,16,64,4,32,64,32,1,0 (Visit order,
// solvers.hpp:2695-2709: ..., GemmKPack, GemmMFactor, GemmNFactor, GemmKTotalFactor, the two flags).
// IsReallyValid (:560-630): values in range (the factors are not checked), BF16 KPack 4 % 2 == 0,
// wave 16x64, block 32*64/(16*64)*64 = 128; M = 1 -> 32 (pad 31), N = 18 -> 64 (pad 46); GEMM-K split
// starts at min(2080/1, 128) = 128: one image per slice, K 1 -> 32 (pad 31), 32 % (4*4) == 0, so
// GemmKBlock 128, grid 128. A copy: read gcd(4, 4, 1) = 1, 4*32*4/128 = 4 per thread, more along K
// (gcd(4, 4) = 4): clusters 1 x 32 x 4. B copy: 4*64*4/128 = 8 per thread; not more along K, and the
// padded solver bounds the GemmN share by GemmKPerBlock (:491-495: gcd(4, 8) = 4 along N, 2 along K;
// the plain solver's rule would give 8 along N): clusters 2 x 16 x 4. LDS writes gcd(8, 1) = 1.
// BF16: SetTensor on the FP32 workspace, CastTensor FP32 (3) -> BF16 (4) with RNE.
TEST(HipIgemmWrwxMIOpenTree, PaddedGoldenFromPerfDbRecordGfx90a) {
    NEEDS_TREE();
    const std::string problem = "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-W";
    const auto k = plan(kPadded, problem, kGfx90a104, "32,64,4,16,64,4,32,64,32,1,0");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 3u);
    const std::string tunables =
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=32"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=64 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4"
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=16 -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64"
        " -DCK_PARAM_TUNABLE_GEMM_KPACK=4 -DCK_PARAM_GEMM_K_BLOCK=128 -DCK_PARAM_DEPENDENT_BLOCK_SIZE=128"
        " -DCK_PARAM_DEPENDENT_GRID_SIZE=128 -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=4"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
        " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=16"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=4"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_KPACK=1"
        " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1 -DCK_GEMM_M_PAD=31"
        " -DCK_GEMM_N_PAD=46 -DCK_GEMM_K_TOTAL_PAD=31 -DCK_USE_AMD_XDLOPS=1";
    EXPECT_NE(k.options.find(tunables), std::string::npos) << k.options;
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_CONV_STRIDE_H"), "1");
    EXPECT_EQ(define(k.options, "CK_PARAM_PROBLEM_CONV_STRIDE_W"), "1");
    EXPECT_TRUE(k.options.ends_with(" -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
                                    " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1"
                                    " -DCK_USE_AMD_BUFFER_ADDRESSING=1 -DCK_USE_AMD_V_FMAC_F32=0" +
                                    kBf16Block + " -mcpu=gfx90a"))
        << k.options;
    EXPECT_EQ(k.kernels[1].options, kSetFloat + " -DWORK_LENGTH_0=32");
    EXPECT_EQ(k.kernels[2].options, " -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=4 -DWORK_LENGTH_0=32 -DMIOPEN_USE_RNE_BFLOAT16=1");
    // The default has the default factors: M padded to 16 only.
    const auto d = plan(kPadded, problem, kGfx90a104);
    EXPECT_EQ(define(d.options, "CK_GEMM_M_PAD"), "15");
    EXPECT_EQ(define(d.options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "16");
}

// The GEMM-K split reads the CU count (CalculateGemmSizeAndGemmKBlock, :342-347: up to 20 blocks per
// CU). M = 1056 and N = 2112 (1x1) are 33 * 32 and 33 * 64, so the default tile is 32 x 64 (waves
// 32x32, block 128) and the unsplit grid 33*33 = 1089: 2200/1089 = 2 on 110 CUs (128 images split
// in 2; 128*196/(2*4) = 3136 = 392 * 8), 2080/1089 = 1 on 104 CUs.
TEST(HipIgemmWrwxMIOpenTree, GemmKSplitFollowsTheComputeUnits) {
    NEEDS_TREE();
    const std::string problem = "1056-14-14-1x1-2112-14-14-128-0x0-1x1-1x1-0-NCHW-FP32-W";
    const auto k110 = plan(kPlain, problem, kGfx90a110);
    const auto k104 = plan(kPlain, problem, kGfx90a104);
    EXPECT_EQ(define(k110.options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "32");
    EXPECT_EQ(define(k110.options, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "64");
    EXPECT_EQ(define(k110.options, "CK_PARAM_DEPENDENT_BLOCK_SIZE"), "128");
    EXPECT_EQ(define(k110.options, "CK_PARAM_GEMM_K_BLOCK"), "2");
    EXPECT_EQ(define(k110.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "2178");
    EXPECT_EQ(define(k104.options, "CK_PARAM_GEMM_K_BLOCK"), "1");
    EXPECT_EQ(define(k104.options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "1089");
    EXPECT_TRUE(find_solver(kPlain)->uses_compute_units());
    EXPECT_TRUE(find_solver(kPadded)->uses_compute_units());
    EXPECT_TRUE(find_solver(kPlain)->uses_general_options());
    EXPECT_TRUE(find_solver(kPadded)->uses_general_options());
}

// Where they run (IsApplicable, :1043-1108 and padded :1106-1187): xdlops targets only; FP16 not
// on gfx90a (IsGfx90aFp16altRequired for backward weights); gfx94x has xdlops but runs no deprecated
// solver (ThisSolverIsDeprecatedStatic, src/solver.cpp:716-732): disabled_by_default. The padded
// solver steps aside when nothing is padded (:1181-1184); the plain one needs GEMM M to fit a tile.
TEST(HipIgemmWrwxMIOpenTree, WhereTheyApply) {
    NEEDS_TREE();
    const std::string fp32 = "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NCHW-FP32-W";
    for (const char* spec : {"gfx900_56", "gfx906_60", "gfx1030_36"})
        for (const char* solver : {kPlain, kPadded}) {
            const auto k = plan(solver, fp32, spec);
            EXPECT_FALSE(k.applicable) << solver << " " << spec;
        }
    const auto fp16 = plan(kPlain, "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NCHW-FP16-W", kGfx90a110);
    EXPECT_FALSE(fp16.applicable);
    EXPECT_EQ(fp16.why, "gfx90a FP16-alt");
    EXPECT_FALSE(plan(kPadded, "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP16-W", kGfx90a110).applicable);
    EXPECT_TRUE(plan(kPadded, "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP16-W", kGfx908).applicable);
    // M = 256 and N = 256 (1x1) need no padding, and every slice of the images is a multiple of
    // Ho*Wo = 256: nothing to pad, the plain solver takes it.
    const std::string unpadded = "256-16-16-1x1-256-16-16-64-0x0-1x1-1x1-0-NCHW-FP32-W";
    const auto padded = plan(kPadded, unpadded, kGfx908);
    EXPECT_FALSE(padded.applicable);
    EXPECT_EQ(padded.why, "nothing to pad (left to ConvHipImplicitGemmWrwV4R4Xdlops)");
    EXPECT_TRUE(plan(kPlain, unpadded, kGfx908).applicable);
    // The 3x3 problem above is padded after all: the padded solver's split leaves 2 images of 14x14
    // per slice, 392 -> 400 (:863-879).
    EXPECT_TRUE(plan(kPadded, fp32, kGfx908).applicable);
    // GEMM M = 1: no GemmMPerBlock (4..256) divides it.
    EXPECT_FALSE(plan(kPlain, "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP32-W", kGfx908).applicable);
    // Not forward, not 3-D, not NHWC.
    EXPECT_FALSE(plan(kPlain, "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NCHW-FP32-F", kGfx908).applicable);
    EXPECT_FALSE(plan(kPlain, "256-14-14-3x3-256-14-14-128-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-W", kGfx908).applicable);
    const auto gfx942 = parse_conv_problem_key(fp32);
    const ConvView view{gfx942};
    for (const char* solver : {kPlain, kPadded}) {
        const Solver* s = find_solver(solver);
        const Target t942 = parse_target("gfx942_304");
        EXPECT_TRUE(s->applicable(view, SolverContext{t942, tree().version(), "", nullptr, &tree()}, nullptr));
        EXPECT_TRUE(s->disabled_by_default(view, SolverContext{t942, tree().version(), "", nullptr, &tree()}));
        const Target t908 = parse_target(kGfx908);
        EXPECT_FALSE(s->disabled_by_default(view, SolverContext{t908, tree().version(), "", nullptr, &tree()}));
    }
}

// --- agreement with MIOpen's find-dbs ----------------------------------------------------------------

// MIOpen wrote a solver into a find-db line only after IsApplicable said yes on that card, so
// every (line, solver) pair the tree's find-dbs list must be applicable here and plan its kernel.
// Conversely, lines with fewer than four items list every solver MIOpen timed (lines keep the
// fastest four): there, a solver of ours that the line leaves out must not be applicable.
// Measured (MIOpen 3.3.0 tree; the three find-dbs that list these solvers):
//   gfx90878 (120 CUs): plain 20669 listed, 20669 planned; padded 20393, 20393
//   gfx90a68 (104 CUs): plain 11269, 11269; padded 10383, 10383
//   gfx90a6e (110 CUs): plain 14214, 14214; padded 13351, 13351
//   short lines leaving a solver out: applicable on none of them.
TEST(HipIgemmWrwxMIOpenTree, AgreesWithTheFindDbs) {
    NEEDS_TREE();
    struct Count {
        long listed = 0, applicable = 0, planned = 0, unlisted_short = 0, unlisted_applicable = 0;
        std::string first;
    };
    std::map<std::string, Count> counts;
    for (const char* spec : {kGfx908, kGfx90a104, kGfx90a110}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        UnreadableFindDbLines skipped;
        for (const auto& entry : read_find_db(*fdb, &skipped)) {
            if (entry.problem.direction != ConvDirection::BackwardWeights) continue;
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view);
            for (const char* name : {kPlain, kPadded}) {
                const Solver* s = find_solver(name);
                auto& c = counts[fmt::format("{} {}", fdb->filename().string(), name)];
                bool listed = false;
                for (const auto& item : entry.solvers) listed = listed || item.solver == name;
                std::string why;
                const bool ok = s->applicable(view, ctx, &why);
                if (!listed) {
                    if (entry.solvers.size() >= 4) continue;
                    ++c.unlisted_short;
                    if (ok) {
                        ++c.unlisted_applicable;
                        if (c.first.empty()) c.first = entry.key + " applicable but not listed";
                    }
                    continue;
                }
                ++c.listed;
                if (!ok) {
                    if (c.first.empty()) c.first = entry.key + ": " + why;
                    continue;
                }
                ++c.applicable;
                const auto kernels = s->kernels(view, ctx);
                if (!kernels.empty() && kernels[0].file.starts_with("static_kernel_gridwise_convolution_backward_weights") &&
                    kernels.size() == (entry.problem.data_types == "FP32" ? 2u : 3u))
                    ++c.planned;
            }
        }
    }
    for (const auto& [name, c] : counts) {
        std::cout << name << ": " << c.listed << " listed, " << c.applicable << " applicable, " << c.planned
                  << " planned; " << c.unlisted_short << " short lines without it, " << c.unlisted_applicable
                  << " of them applicable" << (c.first.empty() ? "" : "; first: " + c.first) << "\n";
        EXPECT_EQ(c.applicable, c.listed) << name << ": " << c.first;
        EXPECT_EQ(c.planned, c.listed) << name;
        EXPECT_EQ(c.unlisted_applicable, 0) << name << ": " << c.first;
        EXPECT_GT(c.unlisted_short, 1000) << name;
    }
    // The find-dbs list the solvers at all (a test that finds nothing must not pass).
    EXPECT_EQ(counts[std::string("gfx90878.HIP.fdb.txt.bz2 ") + kPlain].listed, 20669);
    EXPECT_EQ(counts[std::string("gfx90878.HIP.fdb.txt.bz2 ") + kPadded].listed, 20393);
    EXPECT_EQ(counts[std::string("gfx90a68.HIP.fdb.txt.bz2 ") + kPlain].listed, 11269);
    EXPECT_EQ(counts[std::string("gfx90a68.HIP.fdb.txt.bz2 ") + kPadded].listed, 10383);
    EXPECT_EQ(counts[std::string("gfx90a6e.HIP.fdb.txt.bz2 ") + kPlain].listed, 14214);
    EXPECT_EQ(counts[std::string("gfx90a6e.HIP.fdb.txt.bz2 ") + kPadded].listed, 13351);
}

// --- compile ---------------------------------------------------------------------------------------

// Per solver and target the first applicable find-db problem of each data type FP16/BF16 (those
// plan the cast helper too; FP16 only on gfx908) compiles with clang-19: the static CK kernel through
// the buffer-intrinsic overlay (src/compile/hip_compat.cpp) and its OpenCL helpers. gfx900, gfx906 and
// gfx1030 have no xdlops: neither solver applies to any line of their find-dbs.
TEST(HipIgemmWrwxMIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    CompileCount count;
    for (const char* spec : {"gfx900_56", "gfx906_60", kGfx908, kGfx90a110, "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        const bool xdlops = target.name() == "gfx908" || target.name() == "gfx90a";
        Samples builds;  // solver + kernel file -> (problem, build)
        long applicable_elsewhere = 0;
        UnreadableFindDbLines skipped;
        for (const auto& entry : read_find_db(*fdb, &skipped)) {
            if (entry.problem.direction != ConvDirection::BackwardWeights) continue;
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view);
            for (const char* name : {kPlain, kPadded}) {
                const Solver* s = find_solver(name);
                if (!xdlops) {
                    applicable_elsewhere += s->applicable(view, ctx, nullptr) ? 1 : 0;
                    continue;
                }
                // One main kernel per solver (FP16 on gfx908, BF16 on gfx90a: they launch both helpers).
                const std::string wanted = target.name() == "gfx908" ? "FP16" : "BF16";
                if (entry.problem.data_types != wanted || builds.count(std::string(name) + " main")) continue;
                bool listed = false;
                for (const auto& item : entry.solvers) listed = listed || item.solver == name;
                if (!listed || !s->applicable(view, ctx, nullptr)) continue;
                const auto kernels = s->kernels(view, ctx);
                ASSERT_EQ(kernels.size(), 3u) << name << " " << entry.key;
                for (std::size_t i = 0; i < kernels.size(); ++i) {
                    auto build = miopen_kernel_build(kernels[i], target, tree());
                    ASSERT_TRUE(build) << kernels[i].file << " is not in the tree (" << entry.key << ")";
                    builds.emplace(std::string(name) + (i == 0 ? " main" : " " + kernels[i].file),
                                   std::pair{entry.key, std::move(*build)});
                }
            }
        }
        EXPECT_EQ(applicable_elsewhere, 0) << spec;
        compile_samples(compiler, spec, builds, count);
        if (xdlops) {
            EXPECT_EQ(builds.size(), 6u) << spec;
        }
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
    EXPECT_EQ(count.failed, 0u);
}

}  // namespace
