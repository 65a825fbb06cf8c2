// The backward-data xdlops HIP implicit-GEMM solvers (src/plan/solvers/hip_implicit_gemm/backward_data_v1r1_xdlops.cpp,
// hip_implicit_gemm/backward_data_v4r1_xdlops.cpp): golden keys from perf-db records (written with
// tests/support/perf_db_fixture.hpp: the tree lacks the gfx908/gfx90a perf-dbs) and from the heuristic
// defaults, every GEMM id of V4R1Xdlops, the helper kernels their invoker launches, both key forms of
// the data-type block, applicability against the tree's find-dbs, and compiles.
//
// Facts from MIOpen 3.3.0 (develop 2d1fd997):
//   src/solver/conv/conv_hip_implicit_gemm_bwd_v4r1_xdlops.cpp  (V4R1X below)
//   src/solver/conv/conv_hip_implicit_gemm_bwd_v1r1_xdlops.cpp  (V1R1X below)
//   src/include/miopen/solver/implicitgemm_util.hpp             (implicitgemm_util below)
//   src/conv/invokers/impl_gemm.cpp                             (the invoker)
#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/util.hpp"
#include "perf_db_fixture.hpp"
#include "hip_implicit_gemm_test_support.hpp"
#include "test_support.hpp"

using namespace kdbgen;
using namespace kdbgen::test::igemm;

namespace {

constexpr const char* kV4R1X = "ConvHipImplicitGemmBwdDataV4R1Xdlops";
constexpr const char* kV1R1X = "ConvHipImplicitGemmBwdDataV1R1Xdlops";

struct Planned {
    bool applicable = false;
    std::string why;
    std::optional<std::string> off;
    std::vector<SolverKernel> kernels;  // options with the planner's " -mcpu=<gfx>"
};

// Plans one solver for a problem on a target, with a perf-db holding `record` when one is given,
// and the data-type block once (or twice: the doubled key form).
Planned plan(const char* solver, const std::string& key, const std::string& target_spec,
             const std::optional<std::string>& record = std::nullopt, bool doubled = false) {
    const Solver* s = find_solver(solver);
    EXPECT_NE(s, nullptr) << solver;
    if (!s) return {};
    const auto problem = parse_conv_problem_key(key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    test::TempDir dir;
    std::unique_ptr<PerfDb> perf;
    if (record) perf = std::make_unique<PerfDb>(test::write_perf_db(dir / "perf.db", {{key, solver, *record}}));
    const std::string general = data_type_options(view);
    const SolverContext ctx{target, tree().version(), doubled ? general + general : general, perf.get(), &tree()};
    Planned out;
    out.applicable = s->applicable(view, ctx, &out.why);
    out.off = s->disabled_by_default(view, ctx);
    if (!out.applicable) return out;
    out.kernels = s->kernels(view, ctx);
    for (auto& k : out.kernels) k.options += target.mcpu_suffix();
    return out;
}

// get_static_ck_common_compiler_flag (implicitgemm_util.hpp:544-572) after the xdlops flags
// (V4R1X:1050-1052, V1R1X:932-934): atomic fadd on gfx908 only (:465-468).
std::string ck_flags(bool gfx908, const std::string& after_xdlops = "") {
    return kXdlopsFlags + after_xdlops + (gfx908 ? kCkFlagsGfx908 : kCkFlagsGfx9);
}

const std::string kV4R1XFile =
    "static_kernel_gridwise_convolution_backward_data_implicit_gemm_v4r1_xdlops_nchw_kcyx_nkhw.cpp";
const std::string kV4R1XSymbol = "gridwise_convolution_backward_data_implicit_gemm_v4r1_xdlops_nchw_kcyx_nkhw";
const std::string kV1R1XFile =
    "static_kernel_gridwise_convolution_backward_data_implicit_gemm_v1r1_xdlops_nchw_kcyx_nkhw.cpp";
const std::string kV1R1XSymbol = "gridwise_convolution_backward_data_implicit_gemm_v1r1_xdlops_nchw_kcyx_nkhw";

// SetTensor on a packed tensor (src/ocl/tensorocl.cpp:1651-1720 through :1451-1495, MIOpen 3.3.0):
// MIOpenSubTensorOpWithScalarKernel.cl, one dimension of min(2^ceil(log2 n), 65536) work items.
std::string set_tensor_options(const std::string& type_block, long work) {
    return "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + type_block +
           fmt::format(" -DWORK_LENGTH_0={}", work);
}

// ConvHipImplicitGemmBwdDataV4R1Xdlops on gfx908 (120 CUs), FP16, no perf-db record.
// dy 32x1024x12x12, 3x3 filter, stride 2, dx 32x512x25x25. The interpreter (problem_description_interpreter.hpp:
// 40-296): K = 1024 (dy's channels), C = 512, Hi = Wi = 25, Ho = Wo = 12, right pads 1+2+11*2 - 25 = 0.
// CalculateNumberOfGemm (V4R1X:736-750): YTilda = XTilda = 2/gcd(2,1) = 2, four GEMMs. CalculateGemmSize
// (:752-811): YDot = ceil(3/2) = 2, HTilda = 12 + ceil(2/2) = 13, slices 0..min(13, ceil(24/2)+1) = 13 wide;
// M = 512, N = 32*13*13 = 5408, K = 1024 * {2*2, 2*1, 1*2, 1*1} = 4096, 2048, 2048, 1024: all launched.
// HeuristicInit (:610-734) walks down from N 256, M 256, K 8, KPACK 8, MW 128, NW 128: N must divide
// 5408 = 2^5*169, so N <= 32, NW 32 (16..128 and dividing N); (MW, NW) = (64, 32) is the first xdlops wave
// shape (implicitgemm_util.hpp:283-301), block 256/64 * 32/32 * 64 = 256. K 8 (with KPACK 8) fails
// IsFastToBeUsedForTuning's FP16 limit: A per thread 8*256*8/256 = 64 > 32 (:493-510); K 4 passes (32),
// and the grid 512/256 * 5408/32 = 338 is the largest blockwise GEMM's too (ratio 1, :432-481).
// A copy (:75-166): 3x3 filter -> read 1 along M; per thread max(1, 4*256*8/256) = 32 = gcd(4, 32) 4 along
// K times 8 along KPACK -> clusters 1, 256, 1; LDS write min(4, 8) = 4. B copy (:168-281): not 1x1 -> read
// 1 along N; per thread 4*32*8/256 = 4, gcd(KPACK 8, 4) = 4 along KPACK, 1 along K -> clusters 4, 32, 2;
// write gcd(min(8, 4), 4) = 4. Options in GetSolution's order (:1014-1060), the data-type block between the
// common CK flags and the KPACK tail; stride 2 <= filter 3 and dilation 1 write every pixel: no SetTensor
// (impl_gemm.cpp:170-190).
TEST(HipIgemmBwdxMIOpenTree, V4R1XdlopsGoldenDefaultGfx908) {
    NEEDS_TREE();
    const std::string key = "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP16-B";
    const auto k = plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120");
    ASSERT_TRUE(k.applicable) << k.why;
    EXPECT_FALSE(k.off);
    ASSERT_EQ(k.kernels.size(), 4u);
    const auto expected = [&](int id) {
        return " -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=1024 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=25"
               " -DCK_PARAM_PROBLEM_WI=25 -DCK_PARAM_PROBLEM_HO=12 -DCK_PARAM_PROBLEM_WO=12 -DCK_PARAM_PROBLEM_Y=3"
               " -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=2 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=2"
               " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
               " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
               " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
               " -DCK_PARAM_PROBLEM_CONV_GROUP_COUNTS=1 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"
               " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=256 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=32"
               " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_GEMM_M_PER_WAVE=64 -DCK_PARAM_GEMM_N_PER_WAVE=32"
               " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
               " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=256"
               " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
               " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=1"
               " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
               " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
               " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
               " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=338" +
               ck_flags(true, fmt::format(" -DCK_PARAM_GEMM_ID={}", id)) + kFp16Block +
               " -DCK_PARAM_KPACK_LENGTH=8 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
               " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4 -mcpu=gfx908";
    };
    // One code object per GEMM id (GetSolution :934-1065), the same file and symbol (:971-975).
    for (int id = 0; id < 4; ++id) {
        EXPECT_EQ(k.kernels[id].file, kV4R1XFile);
        EXPECT_EQ(k.kernels[id].symbols, std::vector<std::string>{kV4R1XSymbol});
        EXPECT_EQ(k.kernels[id].options, expected(id)) << id;
    }
    // The doubled key form: the data-type block twice, still before the KPACK tail.
    const auto d = plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120", std::nullopt, true);
    ASSERT_EQ(d.kernels.size(), 4u);
    std::string doubled = expected(0);
    doubled.insert(doubled.find(kFp16Block), kFp16Block);
    EXPECT_EQ(d.kernels[0].options, doubled);
}

// ConvHipImplicitGemmBwdDataV4R1Xdlops on gfx908, BF16, dy 128x1000x13x13, 1x1 filter, dx 128x512x13x13, from a
// perf-db record (the fixture: gfx90878.db is not in the mirror; real MIOpen 3.3 ships it). The record
// N 128, M 128, K 4, KPACK 2, MW 64, NW 64, A and B "more" flags 1 (Visit order, solvers.hpp:780-790) passes
// IsReallyValid (V4R1X:344-417): one GEMM (stride 1) M = 512, N = 128*169 = 21632 = 169*128, K = 1000 = 500*2,
// 500 % 4 = 0; (64, 64) is an xdlops wave shape, block 128*128/(64*64)*64 = 256; BF16 wants KPACK % 2 = 0.
// A copy (:75-166): 1x1 -> read gcd(4, 128) = 4 along M; per thread 4*128*2/256 = 4 -> tmp 1 -> 1 along K and
// KPACK: clusters 4, 32, 2, write min(4, 1) = 1. B copy (:168-281): 1x1 without pads -> gcd(4, 13*13) = 1;
// per thread 4; block 256 > N 128 and KPACK 2 > 256/128 = 2 fails not; KPACK gcd(2, 4) = 2, K 4/2 = 2 ->
// clusters 2, 128, 1, write min(8, 2) = 2. LDS (:283-341): align lcm(1, 2, 128/32, 1) = 4, (4*128 + 4*128) *
// 2 bytes * 2 = 4 KiB. Grid 512/128 * 21632/128 = 676. The default differs (M 256, MW 128, grid 338), and a
// record IsReallyValid refuses falls back to it: KPACK 4 with N 128 fails the B copy (4 > 256/128), and a
// record of three fields fails Deserialize (serializable.hpp:69-112).
TEST(HipIgemmBwdxMIOpenTree, V4R1XdlopsGoldenFromPerfDbRecordGfx908) {
    NEEDS_TREE();
    const std::string key = "1000-13-13-1x1-512-13-13-128-0x0-1x1-1x1-0-NCHW-BF16-B";
    const auto k = plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120", "128,128,4,2,64,64,1,1");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 1u);  // 1x1, stride 1: one GEMM, every pixel written
    EXPECT_EQ(k.kernels[0].options,
              " -DCK_PARAM_PROBLEM_N=128 -DCK_PARAM_PROBLEM_K=1000 -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=13"
              " -DCK_PARAM_PROBLEM_WI=13 -DCK_PARAM_PROBLEM_HO=13 -DCK_PARAM_PROBLEM_WO=13 -DCK_PARAM_PROBLEM_Y=1"
              " -DCK_PARAM_PROBLEM_X=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1 -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_H=1 -DCK_PARAM_PROBLEM_CONV_DILATION_W=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=0 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=0"
              " -DCK_PARAM_PROBLEM_CONV_GROUP_COUNTS=1 -DCK_PARAM_TUNABLE_BLOCK_SIZE=256"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128"
              " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4 -DCK_PARAM_GEMM_M_PER_WAVE=64 -DCK_PARAM_GEMM_N_PER_WAVE=64"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
              " -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=4"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=2"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=128"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=1 -DCK_PARAM_DEPENDENT_GRID_SIZE=676" +
                  ck_flags(true, " -DCK_PARAM_GEMM_ID=0") + kBf16Block +
                  " -DCK_PARAM_KPACK_LENGTH=2 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1"
                  " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2 -mcpu=gfx908");
    const auto d = plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120");
    ASSERT_EQ(d.kernels.size(), 1u);
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "256");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_GEMM_M_PER_WAVE"), "128");
    EXPECT_EQ(define(d.kernels[0].options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "338");
    const auto r = plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120", std::string("128,128,4,4,64,64,1,1"));
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_EQ(r.kernels[0].options, d.kernels[0].options);
    // Three fields do not parse: an error naming the row, not the default (issue #25).
    EXPECT_NE(test::input_error_of([&] { plan(kV4R1X, key, "gfx908:sramecc+:xnack-_120", std::string("128,128,4")); })
                  .find("perf_db row 1: params '128,128,4'"),
              std::string::npos);
}

// ConvHipImplicitGemmBwdDataV4R1Xdlops on gfx90a (110 CUs), BF16, no record: dy 128x256x28x28, 3x3 filter,
// pad 12, dilation 12, dx 128x2048x28x28. MIOpen 3.3 leaves BF16 on gfx90a off unless
// MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V4R1_XDLOPS is set (WORKAROUND_SWDEV_329642, V4R1X:823-829); with
// it set these are its keys. Stride 1: one GEMM, M = 2048, HTilda = 28 + 12*2 = 52, slice 12..min(52, 39+1)
// = 28 wide, N = 128*28*28 = 100352, K = 256*9 = 2304. The walk reaches M 256, N 128, (MW, NW) = (128, 64),
// block 256; the B copy refuses KPACK > 256/128 = 2 (:218-219), so KPACK 2, K 8: A per thread 8*256*2/256 = 16,
// B 8 (both <= 32); grid 2048/256 * 100352/128 = 6272, the largest blockwise GEMM's. Dilation 12 leaves
// pixels unwritten: SetTensor zeroes dx (BF16, 128*2048*28*28 elements -> 65536 work items) first
// (impl_gemm.cpp:170-190). FP16 is not applicable on gfx90a (FP16-alt, V4R1X:858-859).
TEST(HipIgemmBwdxMIOpenTree, V4R1XdlopsDefaultGfx90aBf16WithSetTensor) {
    NEEDS_TREE();
    const std::string key = "256-28-28-3x3-2048-28-28-128-12x12-1x1-12x12-0-NCHW-BF16-B";
    const auto k = plan(kV4R1X, key, "gfx90a:sramecc+:xnack-_110");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_TRUE(k.off);
    EXPECT_NE(k.off->find("WORKAROUND_SWDEV_329642"), std::string::npos) << *k.off;
    ASSERT_EQ(k.kernels.size(), 2u);
    const auto& o = k.kernels[0].options;
    EXPECT_EQ(define(o, "CK_PARAM_PROBLEM_IN_RIGHT_PAD_H"), "12");  // 1 + 2*12 + 27 - (12 + 28)
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "256");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "128");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_K_PER_BLOCK"), "8");
    EXPECT_EQ(define(o, "CK_PARAM_GEMM_M_PER_WAVE"), "128");
    EXPECT_EQ(define(o, "CK_PARAM_GEMM_N_PER_WAVE"), "64");
    EXPECT_EQ(define(o, "CK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K"), "2");  // 8 / (8 / gcd(2, 8))
    EXPECT_EQ(define(o, "CK_PARAM_DEPENDENT_GRID_SIZE"), "6272");
    EXPECT_EQ(define(o, "CK_PARAM_KPACK_LENGTH"), "2");
    EXPECT_EQ(define(o, "CK_USE_AMD_BUFFER_ATOMIC_FADD"), "0");
    EXPECT_TRUE(
        o.ends_with(kBf16Block +
                    " -DCK_PARAM_KPACK_LENGTH=2 -DCK_PARAM_TUNABLE_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2"
                    " -DCK_PARAM_TUNABLE_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2 -mcpu=gfx90a"))
        << o;
    EXPECT_EQ(k.kernels[1].file, "MIOpenSubTensorOpWithScalarKernel.cl");
    EXPECT_EQ(k.kernels[1].symbols, std::vector<std::string>{"SubTensorOpWithScalar1d"});
    EXPECT_EQ(k.kernels[1].options, set_tensor_options(kBf16Block, 65536) + " -mcpu=gfx90a");
    const auto fp16 = plan(kV4R1X, "256-28-28-3x3-2048-28-28-128-12x12-1x1-12x12-0-NCHW-FP16-B", "gfx90a_110");
    EXPECT_FALSE(fp16.applicable);
    EXPECT_EQ(fp16.why, "gfx90a FP16-alt");
}

// ConvHipImplicitGemmBwdDataV1R1Xdlops on gfx90a (110 CUs), FP32, no record (off by default everywhere:
// WORKAROUND_SWDEV_251757, V1R1X:761-764; these are its keys with MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_BWD_V1R1_XDLOPS
// set). dy 32x256x14x14, 3x3, pad 1, dx 32x256x14x14: right pads 1 + 2 + 13 - (1 + 14) = 1. CalculateGemmSize
// (V1R1X:680-701): M = 256*9 = 2304, N = 32*14*14 = 6272, K = 256. HeuristicInit (:111-238) from 256, 256, 8,
// 128, 128, KPack 4: N 256 does not divide 6272; N 128 with (MW, NW) = (128, 64) gives block 256 (4 waves);
// K 8 puts 8*256*4/256 = 32 A values on a thread, over FP32's 16 (:639-656), K 4 puts 16: taken. Grid
// 2304/256 * 6272/128 = 441 (ratio 1). A copy (:287-366): per thread 16, read gcd(4, 256, 16) = 4 along M,
// tmp 4 -> KPack gcd(4, 4) = 4, K 1: clusters 4, 64, 1, write gcd(4, 4) = 4. B copy (:368-453): per thread
// 4*128*4/256 = 8, read gcd(4, 14*14, 8, 128) = 4 along N, tmp 2 -> KPack gcd(4, 2) = 2, K 1: clusters 4, 32, 2,
// write gcd(4, 2) = 2. Options (:895-936): G first, the data-type block last. FP32 always zeroes dx
// (impl_gemm.cpp:117-128): SetTensor over 32*256*14*14 elements (65536 work items).
TEST(HipIgemmBwdxMIOpenTree, V1R1XdlopsGoldenDefaultGfx90a) {
    NEEDS_TREE();
    const auto k = plan(kV1R1X, "256-14-14-3x3-256-14-14-32-1x1-1x1-1x1-0-NCHW-FP32-B", "gfx90a:sramecc+:xnack-_110");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_TRUE(k.off);
    EXPECT_NE(k.off->find("WORKAROUND_SWDEV_251757"), std::string::npos) << *k.off;
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].file, kV1R1XFile);
    EXPECT_EQ(k.kernels[0].symbols, std::vector<std::string>{kV1R1XSymbol});
    EXPECT_EQ(k.kernels[0].options,
              " -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=256 -DCK_PARAM_PROBLEM_C=256"
              " -DCK_PARAM_PROBLEM_HI=14 -DCK_PARAM_PROBLEM_WI=14 -DCK_PARAM_PROBLEM_HO=14 -DCK_PARAM_PROBLEM_WO=14"
              " -DCK_PARAM_PROBLEM_Y=3 -DCK_PARAM_PROBLEM_X=3 -DCK_PARAM_PROBLEM_CONV_STRIDE_H=1"
              " -DCK_PARAM_PROBLEM_CONV_STRIDE_W=1 -DCK_PARAM_PROBLEM_CONV_DILATION_H=1"
              " -DCK_PARAM_PROBLEM_CONV_DILATION_W=1 -DCK_PARAM_PROBLEM_IN_LEFT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_LEFT_PAD_W=1 -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_H=1"
              " -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=1 -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=256"
              " -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=4"
              " -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64"
              " -DCK_PARAM_TUNABLE_GEMM_KPACK=4 -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256 -DCK_PARAM_DEPENDENT_GRID_SIZE=441"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=64"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=1"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=4"
              " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=2"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=4"
              " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=2" +
                  ck_flags(false) + kFp32Block + " -mcpu=gfx90a");
    EXPECT_EQ(k.kernels[1].file, "MIOpenSubTensorOpWithScalarKernel.cl");
    EXPECT_EQ(k.kernels[1].options, set_tensor_options(kFp32Block, 65536) + " -mcpu=gfx90a");
}

// ConvHipImplicitGemmBwdDataV1R1Xdlops on gfx908 (120 CUs), FP16, from a perf-db record (the fixture; see
// above): dy 32x1024x12x12, 3x3, stride 2, dx 32x512x25x25. M = 512*9 = 4608, N = 32*144 = 4608, K = 1024.
// The record M 128, N 128, K 8, MW 64, NW 64, KPack 8, A-more-K 1, B-more-KPack 0 (Visit order,
// solvers.hpp:1301-1311) passes IsReallyValid (V1R1X:469-530): (64, 64) wave shape, block 256; 1024 % 8 = 0,
// 128 % 8 = 0; LDS 8*8*(128+128)*2 = 32 KiB. A copy: per thread 8*128*8/256 = 32, read gcd(4, 128, 32) = 4
// along M, tmp 8 -> K gcd(8, 8) = 8, KPack 1: clusters 1, 32, 8, write gcd(8, 1) = 1. B copy: per thread 32,
// read gcd(4, 144, 32, 128) = 4, tmp 8 -> K gcd(8, 8) = 8, KPack 1: clusters 1, 32, 8, write 1. Grid 36*36 =
// 1296. Stride 2 < 1*(3-1)+1: GEMM outputs overlap, so the kernel adds into an FP32 workspace the invoker
// zeroes and casts into dx (impl_gemm.cpp:45-114): SetTensor (FP32) and CastTensor FP32 -> FP16
// (src/ocl/tensorocl.cpp:2006-2131: types 3 -> 2) over 32*512*25*25 elements (65536 work items). A record
// with a ninth field reads the same (Deserialize reads eight); one with a block of 512 falls to the
// default (M 256, N 128, MW 128, NW 64, grid 648).
TEST(HipIgemmBwdxMIOpenTree, V1R1XdlopsGoldenFromPerfDbRecordGfx908) {
    NEEDS_TREE();
    const std::string key = "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP16-B";
    const auto k = plan(kV1R1X, key, "gfx908:sramecc+:xnack-_120", "128,128,8,64,64,8,1,0");
    ASSERT_TRUE(k.applicable) << k.why;
    ASSERT_EQ(k.kernels.size(), 3u);
    const auto& o = k.kernels[0].options;
    EXPECT_TRUE(
        o.starts_with(" -DCK_PARAM_PROBLEM_G=1 -DCK_PARAM_PROBLEM_N=32 -DCK_PARAM_PROBLEM_K=1024"
                      " -DCK_PARAM_PROBLEM_C=512 -DCK_PARAM_PROBLEM_HI=25"))
        << o;
    EXPECT_NE(o.find(" -DCK_PARAM_TUNABLE_GEMM_M_PER_BLOCK=128 -DCK_PARAM_TUNABLE_GEMM_N_PER_BLOCK=128"
                     " -DCK_PARAM_TUNABLE_GEMM_K_PER_BLOCK=8 -DCK_PARAM_TUNABLE_GEMM_M_PER_WAVE=64"
                     " -DCK_PARAM_TUNABLE_GEMM_N_PER_WAVE=64 -DCK_PARAM_TUNABLE_GEMM_KPACK=8"
                     " -DCK_PARAM_DEPENDENT_BLOCK_SIZE=256 -DCK_PARAM_DEPENDENT_GRID_SIZE=1296"
                     " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
                     " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_M=32"
                     " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=8"
                     " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_M=4"
                     " -DCK_PARAM_DEPENDENT_GEMM_A_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1"
                     " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_K=1"
                     " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_N=32"
                     " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_CLUSTER_LENGTHS_GEMM_KPACK=8"
                     " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_SRC_DATA_PER_READ_GEMM_N=4"
                     " -DCK_PARAM_DEPENDENT_GEMM_B_BLOCK_COPY_DST_DATA_PER_WRITE_GEMM_KPACK=1" +
                     ck_flags(true) + kFp16Block + " -mcpu=gfx908"),
              std::string::npos)
        << o;
    EXPECT_EQ(k.kernels[1].options, set_tensor_options(kFp32Block, 65536) + " -mcpu=gfx908");
    EXPECT_EQ(k.kernels[2].file, "MIOpenSubTensorOpWithCastTensorKernel.cl");
    EXPECT_EQ(k.kernels[2].symbols, std::vector<std::string>{"SubTensorOpWithCastTensor1d"});
    EXPECT_EQ(k.kernels[2].options, " -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=2 -DWORK_LENGTH_0=65536 -mcpu=gfx908");
    const auto extra = plan(kV1R1X, key, "gfx908:sramecc+:xnack-_120", "128,128,8,64,64,8,1,0,7");
    ASSERT_EQ(extra.kernels.size(), 3u);
    EXPECT_EQ(extra.kernels[0].options, o);
    const auto refused = plan(kV1R1X, key, "gfx908:sramecc+:xnack-_120", "256,256,8,128,64,8,0,1");
    ASSERT_EQ(refused.kernels.size(), 3u);
    EXPECT_EQ(define(refused.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_M_PER_BLOCK"), "256");
    EXPECT_EQ(define(refused.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_N_PER_BLOCK"), "128");
    EXPECT_EQ(define(refused.kernels[0].options, "CK_PARAM_TUNABLE_GEMM_N_PER_WAVE"), "64");
    EXPECT_EQ(define(refused.kernels[0].options, "CK_PARAM_DEPENDENT_GRID_SIZE"), "648");  // 18 * 36
    // BF16 with the same shape: CastTensor to BF16 asks for round-to-nearest-even (tensorocl.cpp:2119-2122).
    const auto bf16 = plan(kV1R1X, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-BF16-B", "gfx908_120");
    ASSERT_EQ(bf16.kernels.size(), 3u);
    EXPECT_EQ(
        bf16.kernels[2].options,
        " -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=4 -DWORK_LENGTH_0=65536 -DMIOPEN_USE_RNE_BFLOAT16=1 -mcpu=gfx908");
    // FP16 with stride 1 and a 1x1 filter: nothing overlaps, every pixel written: no helper (impl_gemm.cpp:83-88).
    const auto plain = plan(kV1R1X, "1000-13-13-1x1-512-13-13-128-0x0-1x1-1x1-0-NCHW-FP16-B", "gfx908_120");
    EXPECT_EQ(plain.kernels.size(), 1u);
    // FP16 with stride 3 over a 1x1 filter: no overlap but skipped pixels: SetTensor on dx in FP16 (:72-82).
    const auto skip = plan(kV1R1X, "1024-8-8-1x1-512-24-24-64-0x0-3x3-1x1-0-NCHW-FP16-B", "gfx908_120");
    ASSERT_TRUE(skip.applicable) << skip.why;
    ASSERT_EQ(skip.kernels.size(), 2u);
    EXPECT_EQ(skip.kernels[1].options, set_tensor_options(kFp16Block, 65536) + " -mcpu=gfx908");
}

// IsApplicable's checks in MIOpen's order (V1R1X:758-819, V4R1X:813-874) and the default-off rules.
TEST(HipIgemmBwdxMIOpenTree, ApplicabilityAndDefaultOff) {
    NEEDS_TREE();
    const std::string fp16 = "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP16-B";
    for (const char* solver : {kV4R1X, kV1R1X}) {
        // IsXdlopsSupport (implicitgemm_util.hpp:206-218): gfx908, gfx90a, gfx94x only.
        for (const char* spec : {"gfx900_56", "gfx906_60", "gfx1030_36"}) {
            const auto r = plan(solver, fp16, spec);
            EXPECT_FALSE(r.applicable) << solver << " " << spec;
            EXPECT_EQ(r.why, "no xdlops") << solver << " " << spec;
        }
        // IsComposableKernelSupportedHardware (implicitgemm_util.hpp:574-584): no gfx803 with 36 CUs, no gfx11.
        EXPECT_EQ(plan(solver, fp16, "gfx803_36").why, "not composable-kernel hardware") << solver;
        EXPECT_EQ(plan(solver, fp16, "gfx1100_48").why, "not composable-kernel hardware") << solver;
        EXPECT_EQ(plan(solver, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP16-F", "gfx908_120").why,
                  "not backward data");
        EXPECT_EQ(plan(solver, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NHWC-NHWC-NHWC-FP16-B", "gfx908_120").why,
                  "not NCHW");
        EXPECT_EQ(plan(solver, fp16, "gfx90a_104").why, "gfx90a FP16-alt");
        // gfx94x: composable-kernel hardware with xdlops, but a deprecated solver (src/solver.cpp:716-732).
        const auto mi300 = plan(solver, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-BF16-B", "gfx942_304");
        EXPECT_TRUE(mi300.applicable) << solver << " " << mi300.why;
        ASSERT_TRUE(mi300.off) << solver;
        EXPECT_NE(mi300.off->find(std::string(solver) == kV1R1X ? "WORKAROUND_SWDEV_251757" : "deprecated"),
                  std::string::npos)
            << *mi300.off;
    }
    // V4R1Xdlops: FP16 and BF16 run by default on gfx908; FP32 only with the variable (WORKAROUND_ISSUE_1206).
    EXPECT_FALSE(plan(kV4R1X, fp16, "gfx908_120").off);
    EXPECT_FALSE(plan(kV4R1X, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-BF16-B", "gfx908_120").off);
    const auto fp32 = plan(kV4R1X, "1024-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx908_120");
    EXPECT_TRUE(fp32.applicable) << fp32.why;
    ASSERT_TRUE(fp32.off);
    EXPECT_NE(fp32.off->find("WORKAROUND_ISSUE_1206"), std::string::npos);
    // IsApplicableXdlops (implicitgemm_util.hpp:338-388): FP16 packs 4 K values on xdlops; K = 6 does not divide.
    EXPECT_EQ(plan(kV4R1X, "6-12-12-3x3-512-25-25-32-0x0-2x2-1x1-0-NCHW-FP16-B", "gfx908_120").why,
              "K per group is no multiple of EPACK");
    // The problem as one GEMM fits xdlops (M = 4*9 = 36, N = 4*144 = 576 = 9*64, K = 16), but V4R1Xdlops'
    // per-phase GEMMs (M = 4, N = 4*13*13 = 676: neither M % 16 nor N % 64) do not (V4R1X:867-872).
    const std::string small = "16-12-12-3x3-4-25-25-4-0x0-2x2-1x1-0-NCHW-FP32-B";
    EXPECT_EQ(plan(kV4R1X, small, "gfx908_120").why, "a GEMM's sizes do not fit xdlops");
    // V1R1Xdlops' one GEMM: M = 36, N = 576, K = 16 fits (V1R1X:810-818); with C = 1, M = 9 is no multiple of 4.
    EXPECT_TRUE(plan(kV1R1X, small, "gfx908_120").applicable);
    EXPECT_EQ(plan(kV1R1X, "16-12-12-3x3-1-25-25-4-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx908_120").why,
              "GEMM sizes do not fit xdlops");
}

struct Agreement {
    long listed = 0, heads = 0, applicable = 0, with_kernels = 0, default_off = 0;
    std::map<std::string, long> refused;  // why -> count
    std::string first_refused, first_without_kernels;
};

// Per HIP find-db of the tree and solver: how many listed entries applicable() accepts and kernels() serves.
std::map<std::string, std::map<std::string, Agreement>> find_db_agreement() {
    static const std::vector<std::pair<std::string, std::string>> files = {{"gfx1030_36", "gfx1030_36"},
                                                                           {"gfx803_36", "gfx803_36"},
                                                                           {"gfx803_64", "gfx803_64"},
                                                                           {"gfx900_56", "gfx900_56"},
                                                                           {"gfx900_64", "gfx900_64"},
                                                                           {"gfx906_60", "gfx906_60"},
                                                                           {"gfx906_64", "gfx906_64"},
                                                                           {"gfx90878", "gfx908:sramecc+:xnack-_120"},
                                                                           {"gfx90a68", "gfx90a:sramecc+:xnack-_104"},
                                                                           {"gfx90a6e", "gfx90a:sramecc+:xnack-_110"},
                                                                           {"gfx942130", "gfx942:sramecc+:xnack-_304"}};
    std::map<std::string, std::map<std::string, Agreement>> out;
    for (const auto& [stem, spec] : files) {
        const Target target = parse_target(spec);
        const fs::path path = tree().root() / "src" / "kernels" / (stem + ".HIP.fdb.txt.bz2");
        const Bytes text = bz2_decompress_stream(read_file(path));
        std::string_view rest(text.data(), text.size());
        auto& per_solver = out[stem];
        per_solver["ConvHipImplicitGemmBwdDataV1R1Xdlops"];
        per_solver["ConvHipImplicitGemmBwdDataV4R1Xdlops"];
        while (!rest.empty()) {
            const auto end = rest.find('\n');
            const std::string_view line = rest.substr(0, end);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
            if (line.find("Xdlops") == std::string_view::npos ||
                line.find("ConvHipImplicitGemmBwdData") == std::string_view::npos)
                continue;
            for (const auto& entry : parse_find_db(line, path.string())) {
                const ConvView view{entry.problem};
                const SolverContext ctx = tree_context(target, view);
                for (const auto& item : entry.solvers) {
                    if (!per_solver.count(std::string(item.solver))) continue;
                    auto& a = per_solver[std::string(item.solver)];
                    const Solver* s = find_solver(item.solver);
                    ++a.listed;
                    if (&item == &entry.solvers.front()) ++a.heads;
                    if (s->disabled_by_default(view, ctx)) ++a.default_off;
                    std::string why;
                    if (!s->applicable(view, ctx, &why)) {
                        ++a.refused[why];
                        if (a.first_refused.empty()) a.first_refused = entry.key + ": " + why;
                        continue;
                    }
                    ++a.applicable;
                    if (!s->kernels(view, ctx).empty())
                        ++a.with_kernels;
                    else if (a.first_without_kernels.empty())
                        a.first_without_kernels = entry.key;
                }
            }
        }
    }
    return out;
}

// MIOpen wrote a solver into a find-db line only after its IsApplicable accepted the problem on that GPU
// (with the MIOpen of the day). Over the 11 HIP find-dbs of the tree (MIOpen 3.3.0), measured:
//  - ConvHipImplicitGemmBwdDataV4R1Xdlops: only gfx90878 (gfx908, 120 CUs) lists it, 9572 entries (4984
//    FP16, 4588 BF16, 323 of them grouped; it heads 5547 lines): all 9572 applicable, all with kernels
//    (the heuristic default: the tree has no gfx908 perf-db), none off by default (no FP32 entry, no gfx90a).
//  - ConvHipImplicitGemmBwdDataV1R1Xdlops: no find-db lists it (off by default since WORKAROUND_SWDEV_251757).
// No disagreement to explain; the bounds below are exact.
TEST(HipIgemmBwdxMIOpenTree, FindDbAgreement) {
    NEEDS_TREE();
    const auto all = find_db_agreement();
    EXPECT_EQ(all.size(), 11u);
    for (const auto& [stem, per_solver] : all)
        for (const auto& [solver, a] : per_solver) {
            std::cout << stem << " " << solver << ": listed " << a.listed << " (heads " << a.heads << "), applicable "
                      << a.applicable << ", with kernels " << a.with_kernels << ", off by default " << a.default_off
                      << "\n";
            for (const auto& [why, n] : a.refused) std::cout << "  refused " << n << ": " << why << "\n";
            if (!a.first_refused.empty()) std::cout << "  first refused: " << a.first_refused << "\n";
            if (!a.first_without_kernels.empty())
                std::cout << "  first without kernels: " << a.first_without_kernels << "\n";
            const bool lister = stem == "gfx90878" && solver == kV4R1X;
            EXPECT_EQ(a.listed, lister ? 9572 : 0) << stem << " " << solver;
            EXPECT_EQ(a.heads, lister ? 5547 : 0) << stem << " " << solver;
            EXPECT_EQ(a.applicable, a.listed) << stem << " " << solver << ": " << a.first_refused;
            EXPECT_EQ(a.with_kernels, a.applicable) << stem << " " << solver << ": " << a.first_without_kernels;
            EXPECT_EQ(a.default_off, 0) << stem << " " << solver;
        }
}

// One planned key per solver and target among gfx900_56, gfx906_60, gfx908 (120 CUs), gfx90a (110 CUs) and
// gfx1030_36, from the target's find-db problems: both solvers need xdlops, so gfx900, gfx906 and gfx1030
// plan none. The sample is the first find-db problem of the wanted type with a 3x3 filter and stride 2 (V4R1Xdlops:
// four GEMMs, the last, of K = K/G*1*1, is built) or a 3x3 filter (V1R1Xdlops), so that each data type is built
// once: gfx90a has no FP16 here (FP16-alt) and its V4R1Xdlops BF16 and FP32 are off by default (built anyway:
// MIOpen builds them with the variable set). Measured: 4 compiled, 0 failed (clang 19 through the buffer overlay).
TEST(HipIgemmBwdxMIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    const std::map<std::pair<std::string, std::string>, std::string> wanted = {{{"gfx908", kV4R1X}, "FP16"},
                                                                               {{"gfx908", kV1R1X}, "BF16"},
                                                                               {{"gfx90a", kV4R1X}, "BF16"},
                                                                               {{"gfx90a", kV1R1X}, "FP32"}};
    CompileCount count;
    for (const char* spec :
         {"gfx900_56", "gfx906_60", "gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_110", "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        Samples builds;  // solver -> (problem, build)
        std::size_t applicable = 0;
        for (const auto& entry : read_find_db(*fdb)) {
            if (entry.problem.direction != ConvDirection::BackwardData) continue;
            const ConvView view{entry.problem};
            const SolverContext ctx = tree_context(target, view);
            for (const char* name : {kV4R1X, kV1R1X}) {
                const Solver* s = find_solver(name);
                if (!s->applicable(view, ctx, nullptr)) continue;
                ++applicable;
                const auto want = wanted.find({std::string(target.name()), name});
                if (builds.count(name) || want == wanted.end() || entry.problem.data_types != want->second) continue;
                if (view.GetWeightsHeight() != 3 || view.GetWeightsWidth() != 3) continue;
                const bool v4r1 = std::string(name) == kV4R1X;
                if (v4r1 && (view.GetKernelStrideH() != 2 || view.GetKernelStrideW() != 2)) continue;
                auto kernels = s->kernels(view, ctx);
                ASSERT_FALSE(kernels.empty()) << name << " " << entry.key;
                if (v4r1) {
                    ASSERT_GE(kernels.size(), 4u) << entry.key;
                    kernels[0] = kernels[3];
                    ASSERT_EQ(define(" " + kernels[0].options, "CK_PARAM_GEMM_ID"), "3") << kernels[0].options;
                }
                auto build = miopen_kernel_build(kernels[0], target, tree());
                ASSERT_TRUE(build) << kernels[0].file << " is not in the tree";
                builds.emplace(name, std::pair{entry.key, std::move(*build)});
            }
        }
        if (!target.processor->xdlops) {
            EXPECT_EQ(applicable, 0u) << spec;
            continue;
        }
        EXPECT_EQ(builds.size(), 2u) << spec;
        compile_samples(compiler, spec, builds, count);
    }
    std::cout << count.built << " compiled, " << count.failed << " failed\n";
    EXPECT_EQ(count.built, 4u);
    EXPECT_EQ(count.failed, 0u);
}



}  // namespace
