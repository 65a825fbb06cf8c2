// The non-xdlops HIP backward-data implicit-GEMM solvers (src/plan/solvers/hip_implicit_gemm/backward_data_v1r1.cpp,
// hip_implicit_gemm/backward_data_v4r1.cpp): golden keys from a perf-db record and from the heuristic default, the
// helper kernels their invoker launches, applicability against MIOpen's own find-dbs, and a sample of
// planned kernels compiled for every target they run on.
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "perf_db_fixture.hpp"
#include "hip_implicit_gemm_test_support.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

using namespace kdbgen;
using namespace kdbgen::test::igemm;

namespace {

constexpr const char* kV1R1 = "ConvHipImplicitGemmBwdDataV1R1";
constexpr const char* kV4R1 = "ConvHipImplicitGemmBwdDataV4R1";

struct Planned {
    std::vector<SolverKernel> kernels;  // options with the -mcpu suffix the planner appends
    bool had_record = false;
    bool applicable = false;
    std::string why;
};

// Plans one solver for one problem key; perf-db: the tree's for the target ("tree"), none (""), or a path.
Planned plan(std::string_view solver, const std::string& problem_key, const std::string& target_spec,
             const std::string& perf_db) {
    const Solver* s = find_solver(solver);
    EXPECT_NE(s, nullptr) << solver;
    if (!s) return {};
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    std::unique_ptr<PerfDb> perf;
    if (perf_db == "tree") {
        const auto path = tree().perf_db(target);
        EXPECT_TRUE(path) << "no perf-db for " << target_spec;
        if (path) perf = std::make_unique<PerfDb>(*path);
    } else if (!perf_db.empty()) {
        perf = std::make_unique<PerfDb>(perf_db);
    }
    Planned out;
    out.had_record = perf && perf->find(problem, std::string(solver)).has_value();
    const SolverContext ctx = tree_context(target, view, perf.get());
    out.applicable = s->applicable(view, ctx, &out.why);
    out.kernels = s->kernels(view, ctx);
    for (auto& k : out.kernels) k.options += target.mcpu_suffix();
    return out;
}


const std::string kV1R1File = "static_kernel_gridwise_convolution_backward_data_implicit_gemm_v1r1_nchw_kcyx_nkhw.cpp";
const std::string kV1R1Symbol = "gridwise_convolution_backward_data_implicit_gemm_v1r1_nchw_kcyx_nkhw";
const std::string kV4R1File = "static_kernel_gridwise_convolution_backward_data_implicit_gemm_v4r1_nchw_kcyx_nkhw.cpp";
const std::string kV4R1Symbol = "gridwise_convolution_backward_data_implicit_gemm_v4r1_nchw_kcyx_nkhw";

// SetTensor(dx, 0) on a tensor of 2^16 elements or more (src/ocl/tensorocl.cpp, MIOpen 3.3.0; the helper
// sub_tensor_op_with_scalar of include/kdbgen/solver.hpp).
const std::string kSetFp32 =
    "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0"
    " -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0"
    " -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 -DMIOPEN_FP8_CLIPPING=1 -DWORK_LENGTH_0=65536";

// ConvHipImplicitGemmBwdDataV1R1 on gfx906 from the shipped perf-db record 128,128,32,4,4,2 (BlockSize,
// GemmM/N/KPerBlock, GemmM/NPerThread: solvers.hpp:650-660), MIOpen 3.3.0 conv_hip_implicit_gemm_bwd_v1r1.cpp:
// the key is dy 1024x13x13, 3x3 filter, dx 512x27x27, N 32, stride 2; ProblemInterpreter (problem_description_
// interpreter.hpp:60-138) gives K 1024, C 512, Hi 27, Ho 13; right pad 1+2+12*2 = 27 - 27 = 0.
// GEMM (:592-611): M = 512*9 = 4608, N = 32*169 = 5408, K = 1024: the record divides (36, 169, 256 tiles).
// Block 128 (:135-141): clusters 4,4,4,2; 128/4 = 32 threads / 16 = 2 and 32/2 = 16 / 8 = 2 (:168-173).
// A copy (:184-247): read gcd(4, 128) = 4, 4*128/128 = 4 per thread, so 1 along K: clusters 4 x 32, write 4.
// B copy (:249-317): read gcd(4, 32, Ho*Wo = 169) = 1, 4*32/128 = 1 per thread: clusters 4 x 32, write 1.
// C copy (:319-395): gcd(4, NPerThread 2) = 2, 3x3 with stride 2 -> 1. LDS (:397-442): align lcm(4,1,4,2) = 4,
// 2*(4*128 + 4*32)*4 = 5120 bytes. Grid (:91-116) = 36*169 = 6084. GetSolution (:801-879): problem, tunables,
// copies, grid, inline asm (gfx906 FP32: 1), common CK flags, data-type block, the FP32 tail. The invoker
// (impl_gemm.cpp:129-162) zeroes dx (3x3, not 1x1 stride 1): 32*512*27*27 elements, 65536 work items.
TEST(HipIgemmBwdnxMIOpenTree, V1R1GoldenFromPerfDbRecordGfx906) {
    NEEDS_TREE();
    const auto k = plan(kV1R1, "1024-13-13-3x3-512-27-27-32-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx906_60", "tree");
    EXPECT_TRUE(k.had_record);
    EXPECT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].file, kV1R1File);
    EXPECT_EQ(k.kernels[0].symbols, std::vector<std::string>{kV1R1Symbol});
    EXPECT_EQ(k.kernels[0].options,
              " -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=1024 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=27"
              " -DCK_PARAM_PROBLEM_WI=27 -DCK_PARAM_PROBLEM_HO=13 -DCK_PARAM_PROBLEM_WO=13 -DCK_PARAM_PROBLEM_Y=3"
              " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_TUNABLE_BLOCK_SIZE=128 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=32 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4 -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=2"
              " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=2"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=6084"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1" +
                  kCkFlagsGfx9 + kFp32Block +
                  " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=4"
                  " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=1 -mcpu=gfx906");
    EXPECT_EQ(k.kernels[1].file, "MIOpenSubTensorOpWithScalarKernel.cl");
    EXPECT_EQ(k.kernels[1].options, kSetFp32 + " -mcpu=gfx906");
    // Without the perf-db: HeuristicInit (:512-568) takes its first candidate 256,128,128,16,4,4 only if N = 5408
    // divides by 128 (it does not: 42.25), nor 128,128,64 (5408 % 64 = 32); 128,64,128 fails on N too, and
    // 64,64,64 (5408 % 64); 64,64,32,16,4,2 is the first that holds: 4608/64 * 5408/32 = 72*169 = 12168 blocks.
    const auto d = plan(kV1R1, "1024-13-13-3x3-512-27-27-32-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx906_60", "");
    ASSERT_FALSE(d.kernels.empty());
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "64");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "64");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "32");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "16");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_N_PER_THREAD"), "2");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "12168");
}

// gfx1030, no record in its perf-db: HeuristicInit's first candidate 256,128,128,16,4,4 holds for dy 1024x12x12,
// 3x3, stride 2, dx 512x25x25, N 32 (right pad 1+2+11*2 = 25 - 25 = 0): M = 512*9 = 4608 = 36*128,
// N = 32*144 = 4608 = 36*128, K = 1024 = 64*16. Block 256: clusters 4,4,4,4 (conv_hip_implicit_gemm_bwd_v1r1.cpp:
// 142-148, MIOpen 3.3.0). A copy: 16*128/256 = 8 per thread, read 4, so 2 along K: clusters 8 x 32, write 4.
// B copy: read gcd(4, 128, 144) = 4, 8 per thread: clusters 8 x 32, write 4. C: stride 2 -> 1. LDS 2*(2048 +
// 2048)*4 = 32768. Grid 36*36 = 1296. gfx1030: no buffer addressing (WORKAROUND_MIOPEN_ISSUE_557), v_fmac on
// (implicitgemm_util.hpp:449-470). dx = 32*512*625 elements: SetTensor with 65536 work items.
TEST(HipIgemmBwdnxMIOpenTree, V1R1GoldenDefaultGfx1030) {
    NEEDS_TREE();
    const auto k = plan(kV1R1, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx1030_36", "tree");
    EXPECT_FALSE(k.had_record);
    EXPECT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].options,
              " -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=1024 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=25"
              " -DCK_PARAM_PROBLEM_WI=25 -DCK_PARAM_PROBLEM_HO=12 -DCK_PARAM_PROBLEM_WO=12 -DCK_PARAM_PROBLEM_Y=3"
              " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_TUNABLE_BLOCK_SIZE=256 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=16"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4 -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=8"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=8"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=4"
              " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=1296"
              " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1 --std=c++14"
              " -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
              " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=0"
              " -DCK_USE_AMD_V_FMAC_F32=1" +
                  kFp32Block +
                  " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=4"
                  " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=4 -mcpu=gfx1030");
    EXPECT_EQ(k.kernels[1].options, kSetFp32 + " -mcpu=gfx1030");
}

// 3-D FP32 on gfx90a (the tree ships no gfx90a perf-db, so the record is written by the test). Problem: dy
// 128x16x56x56, 1x1x1, dx 256x16x56x56, N 4: M = 256, N = 4*16*56*56 = 200704, K = 128. Record 128,128,64,8,4,4
// passes IsValid (conv_hip_implicit_gemm_bwd_v1r1.cpp:456-510, MIOpen 3.3.0): 256 % 128, 200704 % 64, 128 % 8;
// block 128 clusters 4,4,4,2 give 128/4/16 = 2 and 64/4/8 = 2; A copy 8*128/128 = 8 per thread, read 4 ->
// clusters 4 x 32, write 4; B copy read gcd(4, 64, Ho*Wo 3136) = 4, 8*64/128 = 4 per thread -> clusters 8 x 16,
// write 4; C copy (1x1x1, stride 1, no pad) gcd(4, 4, Di*Hi*Wi 50176) = 4; LDS 2*(1024 + 512)*4 = 12288.
// Grid 2 * 3136 = 6272 (the default, 256,128,128,16,4,4, would give 1568). After the data-type block the 3-D
// block (:843-860): Di 16, Do 16, Z 1, stride 1, dilation 1 (Z = 1), pads 0. 1x1x1 stride 1, no pad: no SetTensor
// (impl_gemm.cpp:136-157).
TEST(HipIgemmBwdnxMIOpenTree, V1R1Golden3dFromRecordGfx90a) {
    NEEDS_TREE();
    test::TempDir dir;
    const std::string problem = "128-16-56-56-1x1x1-256-16-56-56-4-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-B";
    const auto db = test::write_perf_db(dir / "gfx90a6e.db", {{problem, kV1R1, "128,128,64,8,4,4"}});
    const auto k = plan(kV1R1, problem, "gfx90a:sramecc+:xnack-_110", db.string());
    EXPECT_TRUE(k.had_record);
    EXPECT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 1u);
    EXPECT_EQ(k.kernels[0].file,
              "static_kernel_gridwise_convolution_backward_data_implicit_gemm_v1r1_ncdhw_kczyx_nkdhw.cpp");
    EXPECT_EQ(k.kernels[0].symbols,
              std::vector<std::string>{"gridwise_convolution_backward_data_implicit_gemm_v1r1_ncdhw_kczyx_nkdhw"});
    const std::string& o = k.kernels[0].options;
    EXPECT_TRUE(o.starts_with(" -DCK_PARAM_PROBLEM_N=4 -DCK_PARAM_PROBLEM_K=128 -DCK_PARAM_PROBLEM_C=256"
                              " -DCK_PARAM_PROBLEM_HI=56 -DCK_PARAM_PROBLEM_WI=56 -DCK_PARAM_PROBLEM_HO=56"))
        << o;
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "128");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "8");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER"), "2");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "4");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "8");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "16");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N"), "4");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1"), "4");
    EXPECT_EQ(define(o, "CK_PARAM_DEPENDENT_GRID_SIZE"), "6272");
    EXPECT_TRUE(o.ends_with(kFp32Block +
                            " -DCK_PARAM_PROBLEM_DI=16 -DCK_PARAM_PROBLEM_DO=16 -DCK_PARAM_PROBLEM_Z=1"
                            " -DCK_PARAM_PROBLEM_CONV_STRIDE_D=1 -DCK_PARAM_PROBLEM_CONV_DILATION_D=1"
                            " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_D=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D=0"
                            " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=4"
                            " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=4 -mcpu=gfx90a"))
        << o;
    // A record IsValid refuses (BlockSize 128 with GemmMPerBlock 64: 64/4 = 16 threads make one cluster of 16,
    // not two) is passed over for HeuristicInit's 256,128,128,16,4,4: grid 2 * 200704/128 = 3136.
    const auto bad = test::write_perf_db(dir / "bad.db", {{problem, kV1R1, "128,64,128,8,4,4"}});
    const auto d = plan(kV1R1, problem, "gfx90a:sramecc+:xnack-_110", bad.string());
    EXPECT_TRUE(d.had_record);
    ASSERT_FALSE(d.kernels.empty());
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "256");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "3136");
}

// BF16 (WORKAROUND_ISSUE_309: only with MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1=1, conv_hip_implicit_gemm_bwd_v1r1.cpp:
// 35, :668-674, MIOpen 3.3.0): default-off, but the kernels are ported. dy 64x14x14, 3x3 pad 1, dx 64x14x14, N 16:
// EPack 2, M = 576, N = 3136, K = 64/2 = 32. HeuristicInit: 256- and 128-thread candidates fail on 576 % 128 or
// 3136 % 128; 64,64,64,16,4,4 holds (9*49 = 441 blocks). A copy read 4, 16 per thread -> clusters 4 x 16; B copy
// read gcd(4, 64, 196) = 4 -> clusters 4 x 16; both LDS writes EPack-wide (2). C copy: stride 1 -> gcd(4, 4, left
// pad 1, ...) = 1. The BF16 tail (:870-879): KPACK_LENGTH then the two KPACK writes. The invoker (impl_gemm.cpp:
// 44-115): stride 1 < 1*(3-1)+1, windows overlap: SetTensor on an FP32 workspace, the kernel, CastTensor FP32 -> BF16.
TEST(HipIgemmBwdnxMIOpenTree, V1R1Bf16DefaultOffWithWorkspaceHelpers) {
    NEEDS_TREE();
    const std::string problem = "64-14-14-3x3-64-14-14-16-1x1-1x1-1x1-0-NCHW-BF16-B";
    const auto k = plan(kV1R1, problem, "gfx906_60", "tree");
    EXPECT_TRUE(k.applicable) << k.why;
    const auto view_problem = parse_conv_problem_key(problem);
    const Target target = parse_target("gfx906_60");
    const auto off = find_solver(kV1R1)->disabled_by_default(ConvView{view_problem}, SolverContext{target, tree().version(), "", nullptr, nullptr});
    ASSERT_TRUE(off);
    EXPECT_NE(off->find("MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1"), std::string::npos) << *off;
    ASSERT_EQ(k.kernels.size(), 3u);
    const std::string& o = k.kernels[0].options;
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "16");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "4");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M"), "16");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1"), "1");
    EXPECT_EQ(define(o, "CK_PARAM_DEPENDENT_GRID_SIZE"), "441");
    EXPECT_TRUE(o.ends_with(kCkFlagsGfx9 + kBf16Block +
                            " -DCK_PARAM_KPACK_LENGTH=2 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2"
                            " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2 -mcpu=gfx906"))
        << o;
    EXPECT_EQ(k.kernels[1].options, kSetFp32 + " -mcpu=gfx906");
    EXPECT_EQ(k.kernels[2].file, "MIOpenSubTensorOpWithCastTensorKernel.cl");
    EXPECT_EQ(k.kernels[2].options,
              " -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=4 -DWORK_LENGTH_0=65536 -DMIOPEN_USE_RNE_BFLOAT16=1 -mcpu=gfx906");
    // 1x1 with stride 2: no overlap (2 >= 1), but gaps (stride 2 > filter 1): SetTensor on dx in BF16, no cast.
    const auto g = plan(kV1R1, "64-7-7-1x1-64-14-14-32-0x0-2x2-1x1-0-NCHW-BF16-B", "gfx906_60", "");
    EXPECT_TRUE(g.applicable) << g.why;
    ASSERT_EQ(g.kernels.size(), 2u);
    EXPECT_EQ(define(g.kernels[1].options, "MIOPEN_USE_BFP16"), "1");
    EXPECT_TRUE(g.kernels[1].options.starts_with("-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET "))
        << g.kernels[1].options;
    // FP32 is not default-off on gfx906; FP16 is not applicable at all (:659-660).
    const auto fp32 = parse_conv_problem_key("64-14-14-3x3-64-14-14-16-1x1-1x1-1x1-0-NCHW-FP32-B");
    EXPECT_FALSE(find_solver(kV1R1)->disabled_by_default(ConvView{fp32}, SolverContext{target, tree().version(), "", nullptr, nullptr}));
    const auto fp16 = plan(kV1R1, "64-14-14-3x3-64-14-14-16-1x1-1x1-1x1-0-NCHW-FP16-B", "gfx906_60", "");
    EXPECT_FALSE(fp16.applicable);
}

// ConvHipImplicitGemmBwdDataV4R1 (off by default: WORKAROUND_SWDEV_229277_227616_229195, implicitgemm_util.hpp:42,
// conv_hip_implicit_gemm_bwd_v4r1.cpp:733-736, MIOpen 3.3.0) on gfx900, no record (the shipped perf-dbs hold none
// for it). dy 1024x13x13, 3x3, stride 2, dx 512x27x27, N 128. CalculateNumberOfGemm (:610-634): Ytilda = Xtilda =
// 2/gcd(2,1) = 2, four GEMMs. CalculateGemmSize (:636-728): Ydot = ceil(3/2) = 2, Htilda = 13 + ceil(2/2) = 14,
// slice 0..min(14, ceil(26/2)+1) = 14, so N = 128*14*14 = 25088 for all; K = 1024 * (2 or 3 % 2 = 1) per
// dimension: 4096, 2048, 2048, 1024 for ids 0..3; M = 512. HeuristicInit (:529-584): 256,128,128,16,4,4 divides
// them all. A copy (:181-247): 3x3 filter -> read 1, 16*128/256 = 8 per thread along K: clusters 2 x 128, write 1;
// B copy (:249-340) likewise 2 x 128, read 1, write 1; C copy (:342-407) 1. LDS 2*(2048+2048)*4 = 32768.
// Grid of GEMM 0 (:89-113) = 4 * 196 = 784, the same in every kernel. GetSolution (:912-975): one option string
// per GEMM id, -DCK_PARAM_GEMM_ID after the inline-asm flags. Stride 2 <= 3, dilation 1: no SetTensor
// (impl_gemm.cpp:170-190).
TEST(HipIgemmBwdnxMIOpenTree, V4R1GoldenDefaultGfx900) {
    NEEDS_TREE();
    const std::string problem = "1024-13-13-3x3-512-27-27-128-0x0-2x2-1x1-0-NCHW-FP32-B";
    const auto k = plan(kV4R1, problem, "gfx900_56", "tree");
    EXPECT_FALSE(k.had_record);
    EXPECT_TRUE(k.applicable) << k.why;
    const auto off =
        find_solver(kV4R1)->disabled_by_default(ConvView{parse_conv_problem_key(problem)},
                                                SolverContext{parse_target("gfx900_56"), tree().version(), "", nullptr, nullptr});
    ASSERT_TRUE(off);
    EXPECT_NE(off->find("MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1"), std::string::npos) << *off;
    ASSERT_EQ(k.kernels.size(), 4u);
    const std::string head =
        " -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=1024 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=27"
        " -DCK_PARAM_PROBLEM_WI=27 -DCK_PARAM_PROBLEM_HO=13 -DCK_PARAM_PROBLEM_WO=13 -DCK_PARAM_PROBLEM_Y=3"
        " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
        " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
        " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
        " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
        " -DCK_PARAM_TUNABLE_BLOCK_SIZE=256 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128"
        " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=16"
        " -DCK_PARAM_TUNABLE_GEMM_M_PER_THREAD=4 -DCK_PARAM_TUNABLE_GEMM_N_PER_THREAD=4"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL0_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL0_CLUSTER=4"
        " -DCK_PARAM_TUNABLE_GEMM_M_LEVEL1_CLUSTER=4 -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=4"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=128"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=1"
        " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_M=1"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=128"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1"
        " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_N=1"
        " -DCK_PARAM_TUNABLE_GEMM_C_THREAD_COPY_DST_DATA_PER_WRITE_GEMM_N1=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=784"
        " -DCK_THREADWISE_GEMM_USE_AMD_INLINE_ASM=1 -DCK_USE_AMD_INLINE_ASM=1";
    for (int id = 0; id < 4; ++id) {
        EXPECT_EQ(k.kernels[id].file, kV4R1File);
        EXPECT_EQ(k.kernels[id].symbols, std::vector<std::string>{kV4R1Symbol});
        EXPECT_EQ(k.kernels[id].options, head + fmt::format(" -DCK_PARAM_GEMM_ID={}", id) + kCkFlagsGfx9 + kFp32Block +
                                             " -mcpu=gfx900")
            << id;
    }
}

// A 1x1 filter with stride 2 (dy 64x7x7, dx 64x14x14, N 32): four GEMM ids, but Ydot = ceil(1/2) = 1 leaves ids
// 1..3 with 1 % 1 = 0 taps, K = 0: GetSolution builds GEMM 0 only (conv_hip_implicit_gemm_bwd_v4r1.cpp:840-841).
// M = 64, N = 32*7*7 = 1568 (Htilda 7, slice 0..min(7, ceil(13/2)+1)): HeuristicInit passes over every candidate
// with 64 or 128 along N (1568 % 64 = 32) down to 64,64,32,16,4,2. A copy (1x1) reads 4; B copy (1x1, no pad)
// gcd(4, 32, Ho*Wo 49) = 1. Stride 2 > filter 1 leaves gaps: SetTensor(dx) of 32*64*196 elements.
TEST(HipIgemmBwdnxMIOpenTree, V4R1SkipsEmptyGemmsAndZeroesDx) {
    NEEDS_TREE();
    const auto k = plan(kV4R1, "64-7-7-1x1-64-14-14-32-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx906_60", "");
    EXPECT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 2u);
    const std::string& o = k.kernels[0].options;
    EXPECT_EQ(define(o, "CK_PARAM_GEMM_ID"), "0");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "32");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_THREAD"), "2");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M"), "4");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N"), "1");
    EXPECT_EQ(define(o, "CK_PARAM_DEPENDENT_GRID_SIZE"), "49");
    EXPECT_EQ(k.kernels[1].options, kSetFp32 + " -mcpu=gfx906");
    // BF16 and grouped problems are not for V4R1 (:757-770).
    EXPECT_FALSE(plan(kV4R1, "64-7-7-1x1-64-14-14-32-0x0-2x2-1x1-0-NCHW-BF16-B", "gfx906_60", "").applicable);
    EXPECT_FALSE(plan(kV4R1, "64-7-7-1x1-64-14-14-32-0x0-2x2-1x1-0-NCHW-FP32-B_g2", "gfx906_60", "").applicable);
}

// V4R1 from a perf-db record on gfx908 (written by the test: the tree has no gfx908 perf-db). Record
// 128,128,64,8,4,4 passes IsValid (conv_hip_implicit_gemm_bwd_v4r1.cpp:469-527, MIOpen 3.3.0) for the four GEMMs of
// V4R1GoldenDefaultGfx900's problem (M 512, N 25088 = 392*64, K 4096/2048/2048/1024 % 8): block 128 clusters
// 4,4,4,2 (128/4/16 = 2, 64/4/8 = 2); A copy 8*128/128 = 8 per thread, read 1 (3x3): clusters 1 x 128; B copy
// 8*64/128 = 4: clusters 2 x 64. Grid 4 * 392 = 1568. gfx908 turns the buffer atomic add on (implicitgemm_util.hpp:
// 465-468).
TEST(HipIgemmBwdnxMIOpenTree, V4R1GoldenFromRecordGfx908) {
    NEEDS_TREE();
    test::TempDir dir;
    const std::string problem = "1024-13-13-3x3-512-27-27-128-0x0-2x2-1x1-0-NCHW-FP32-B";
    const auto db = test::write_perf_db(dir / "gfx90878.db", {{problem, kV4R1, "128,128,64,8,4,4"}});
    const auto k = plan(kV4R1, problem, "gfx908:sramecc+:xnack-_120", db.string());
    EXPECT_TRUE(k.had_record);
    ASSERT_EQ(k.kernels.size(), 4u);
    for (int id = 0; id < 4; ++id) {
        const std::string& o = k.kernels[id].options;
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_BLOCK_SIZE"), "128");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "64");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "8");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER"), "2");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "1");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "2");
        EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N"), "64");
        EXPECT_EQ(define(o, "CK_PARAM_DEPENDENT_GRID_SIZE"), "1568");
        EXPECT_EQ(define(o, "CK_PARAM_GEMM_ID"), std::to_string(id));
        EXPECT_EQ(define(o, "CK_USE_AMD_BUFFER_ATOMIC_FADD"), "1");
        EXPECT_TRUE(o.ends_with(kFp32Block + " -mcpu=gfx908")) << o;
    }
}

// Both solvers copy the general options once (the data-type block between the CK flags and the tail):
// the planner asks for both the single and the doubled form.
TEST(HipIgemmBwdnx, GeneralOptionsAndComputeUnits) {
    for (const char* name : {kV1R1, kV4R1}) {
        const Solver* s = find_solver(name);
        ASSERT_NE(s, nullptr) << name;
        EXPECT_TRUE(s->uses_general_options()) << name;
        EXPECT_FALSE(s->uses_compute_units()) << name;  // neither heuristic reads the CU count
        EXPECT_FALSE(s->dynamic()) << name;
    }
    // Deprecated solvers: off on gfx942 (ThisSolverIsDeprecatedStatic, src/solver.cpp:716-732).
    const auto problem = parse_conv_problem_key("1024-13-13-3x3-512-27-27-32-0x0-2x2-1x1-0-NCHW-FP32-B");
    const Target gfx942 = parse_target("gfx942_304");
    EXPECT_TRUE(find_solver(kV1R1)->disabled_by_default(ConvView{problem}, SolverContext{gfx942, MiopenVersion{}, "", nullptr, nullptr}));
    const Target gfx906 = parse_target("gfx906_60");
    EXPECT_FALSE(find_solver(kV1R1)->disabled_by_default(ConvView{problem}, SolverContext{gfx906, MiopenVersion{}, "", nullptr, nullptr}));
}

// Every find-db line of the tree that lists ConvHipImplicitGemmBwdDataV1R1 was found applicable by the MIOpen
// that wrote it: how many of those problems applicable() accepts and kernels() plans, per find-db, and why the
// others are refused. Lines: where V1R1 is the fastest item (what find-db mode builds when it is enabled and
// applicable). None of the find-dbs lists ConvHipImplicitGemmBwdDataV4R1 (off by default since
// WORKAROUND_SWDEV_229277_227616_229195). The reader skips the 3-D keys older MIOpens wrote with a 2-D layout
// name and padding (11 V1R1 lines each in gfx803_36, gfx803_64, gfx900_64, gfx906_64): 3.3 never forms them.
// Measured (MIOpen 3.3.0 tree): listed / accepted: gfx1030_36 6279/6099, gfx803_36 3499/0, gfx803_64 3499/3476,
// gfx900_56 3529/3485, gfx900_64 3499/3476, gfx906_60 2843/2827, gfx906_64 3690/3633, gfx908_120 11128/11128,
// gfx90a_104 10907/10907, gfx90a_110 10562/10562.
TEST(HipIgemmBwdnxMIOpenTree, FindDbAgreement) {
    NEEDS_TREE();
    struct Count {
        int listed = 0, accepted = 0, planned = 0, default_off = 0, wins = 0, wins_planned = 0, v4r1_listed = 0;
        std::map<std::string, int> refused;  // reason -> entries
        std::string first;
    };
    std::map<std::string, Count> counts;
    const Solver* v1r1 = find_solver(kV1R1);
    ASSERT_NE(v1r1, nullptr);
    const std::vector<std::string> specs = {"gfx1030_36", "gfx803_36",  "gfx803_64",  "gfx900_56", "gfx900_64",
                                            "gfx906_60",  "gfx906_64",  "gfx908_120", "gfx90a_104", "gfx90a_110"};
    for (const auto& spec : specs) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        const auto perf = tree_perf_db(target);
        auto& count = counts[spec];
        UnreadableFindDbLines skipped;
        for (const auto& entry : read_find_db(*fdb, &skipped)) {
            const FindDbSolver* fastest = nullptr;
            bool listed = false;
            for (const auto& item : entry.solvers) {
                if (!fastest || item.time < fastest->time) fastest = &item;
                if (item.solver == kV4R1) ++count.v4r1_listed;
                listed = listed || item.solver == kV1R1;
            }
            if (!listed) continue;
            ++count.listed;
            const bool wins = fastest->solver == kV1R1;
            count.wins += wins ? 1 : 0;
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view, perf.get());
            if (v1r1->disabled_by_default(view, ctx)) ++count.default_off;
            std::string why;
            if (!v1r1->applicable(view, ctx, &why)) {
                ++count.refused[why];
                if (count.first.empty()) count.first = entry.key + ": " + why;
                continue;
            }
            ++count.accepted;
            if (v1r1->kernels(view, ctx).empty()) continue;
            ++count.planned;
            count.wins_planned += wins ? 1 : 0;
        }
    }
    for (const auto& spec : specs) {
        const auto& c = counts[spec];
        std::cout << spec << ": V1R1 listed " << c.listed << ", accepted " << c.accepted << ", planned " << c.planned
                  << ", default-off " << c.default_off << "; fastest on " << c.wins << " lines, planned on "
                  << c.wins_planned << "; V4R1 listed " << c.v4r1_listed << "\n";
        for (const auto& [why, n] : c.refused) std::cout << "    refused " << n << ": " << why << "\n";
        EXPECT_EQ(c.v4r1_listed, 0) << spec;
        EXPECT_GT(c.listed, 0) << spec;
        EXPECT_EQ(c.planned, c.accepted) << spec;  // every accepted problem has a valid configuration
        EXPECT_EQ(c.default_off, 0) << spec;       // all FP32, all on targets where deprecated solvers run
        if (spec == "gfx803_36") {
            // IsComposableKernelSupportedHardware takes gfx803 with 64 CUs only (implicitgemm_util.hpp:574-584):
            // this find-db (the same V1R1 lines as gfx803_64's) is one MIOpen 3.3 cannot agree with.
            EXPECT_EQ(c.refused.size(), 1u) << spec;
            EXPECT_EQ(c.refused.count("not composable-kernel hardware"), 1u) << spec;
            EXPECT_EQ(c.accepted, 0) << spec;
        } else {
            // The only refusals: problems with a tensor of 2 GiB or more (IsIndexRangeLargeEnough,
            // implicitgemm_util.hpp:254-261, checked at conv_hip_implicit_gemm_bwd_v1r1.cpp:666-667 since
            // MIOpen PR #2005 of March 2023, rocm-5.6.0): these lines are older than the check.
            for (const auto& [why, n] : c.refused) EXPECT_EQ(why, "a tensor of 2 GiB or more") << spec << ": " << n;
            const std::map<std::string, int> expected = {{"gfx1030_36", 180}, {"gfx803_64", 23}, {"gfx900_56", 44},
                                                         {"gfx900_64", 23},   {"gfx906_60", 16}, {"gfx906_64", 57},
                                                         {"gfx908_120", 0},   {"gfx90a_104", 0}, {"gfx90a_110", 0}};
            EXPECT_EQ(c.listed - c.accepted, expected.at(spec)) << spec;
        }
    }
}

// A sample of the planned keys compiles for every target the pair runs on: per target and solver, the first
// applicable find-db problem listing V1R1 (V4R1, listed nowhere, takes the first such problem with more than one
// GEMM and compiles its last GEMM id). gfx908 and gfx90a plan without a shipped perf-db.
TEST(HipIgemmBwdnxMIOpenTree, PlannedKernelsCompile) {
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
        UnreadableFindDbLines skipped;
        for (const auto& entry : read_find_db(*fdb, &skipped)) {
            if (builds.size() == 2) break;
            if (std::none_of(entry.solvers.begin(), entry.solvers.end(),
                             [](const auto& item) { return item.solver == kV1R1; }))
                continue;
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view, perf.get());
            for (const char* name : {kV1R1, kV4R1}) {
                if (builds.count(name)) continue;
                const Solver* s = find_solver(name);
                if (!s->applicable(view, ctx, nullptr)) continue;
                const auto kernels = s->kernels(view, ctx);
                std::vector<SolverKernel> gemms;
                for (const auto& k : kernels)
                    if (k.file.starts_with("static_kernel_")) gemms.push_back(k);
                if (gemms.empty() || (name == std::string(kV4R1) && gemms.size() < 2)) continue;
                auto build = miopen_kernel_build(gemms.back(), target, tree());
                ASSERT_TRUE(build) << gemms.back().file << " is not in the tree (" << entry.key << ")";
                builds.emplace(name, std::pair{entry.key, std::move(*build)});
            }
        }
        EXPECT_EQ(builds.size(), 2u) << spec;
        compile_samples(compiler, spec, builds, count);
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
    EXPECT_EQ(count.failed, 0u);
}


}  // namespace
