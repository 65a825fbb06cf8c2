// Golden kdb keys for every solver in the catalog, written by hand from
// MIOpen's source (file:line and version with each), never by the code under
// test. A key is {kernel file + ".o", comp_options + " -mcpu=<gfx>"}
// (src/hip/handlehip.cpp:547-548, src/binary_cache.cpp make_object_file_name).
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <tuple>

using namespace kdbgen;

namespace {

// MIOpen 3.3.0's GetDataTypeKernelParams(miopenFloat) (src/include/miopen/datatype.hpp:136-187)
// with the src/CMakeLists.txt:41-43 defaults, as SetupFloats appends it.
const std::string kFp32Block =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kFp16Block =
    " -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
// conv_winoRxS.cpp:863-868 (MIOpen 3.3.0): ROCM_METADATA_VERSION 5, FORCE_CACHE_BYPASS_ON_STORE
// (1 on gfx940/gfx941), then " -mcumode -mwavefrontsize64".
const std::string kWinoOptions =
    "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,FORCE_CACHE_BYPASS_ON_STORE=0 -mcumode -mwavefrontsize64";

struct Key {
    std::string name, args;
    std::vector<std::string> symbols;
};

std::vector<Key> keys(std::string_view solver_name, const std::string& problem_key, const std::string& target_spec,
                      int general_copies = 1, MiopenVersion version = {3, 3, 0}) {
    const Solver* solver = find_solver(solver_name);
    EXPECT_NE(solver, nullptr) << solver_name;
    if (!solver) return {};
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    std::string general;
    for (int i = 0; i < general_copies; ++i) general += data_type_options(view);
    const SolverContext ctx{target, version, general, nullptr};
    std::vector<Key> out;
    for (const auto& k : solver->kernels(view, ctx))
        out.push_back({k.file + ".o", k.options + target.mcpu_suffix(), k.symbols});
    return out;
}

bool applicable(std::string_view solver_name, const std::string& problem_key, const std::string& target_spec) {
    const auto problem = parse_conv_problem_key(problem_key);
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, {3, 3, 0}, "", nullptr};
    return find_solver(solver_name)->applicable(ConvView{problem}, ctx, nullptr);
}

}  // namespace

TEST(SolverCatalog, GeneralBlockIsMIOpens) {
    const auto problem = parse_conv_problem_key("1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F");
    EXPECT_EQ(data_type_options(ConvView{problem}), kFp32Block);
}

// ConvDirectNaiveConv{Fwd,Bwd,Wrw}: file naive_conv.cpp (conv_direct_naive_conv.cpp:238-254),
// options = ctx.general_compile_options (:256-263), MIOpen 3.3.0.
TEST(SolverGoldenKeys, ConvDirectNaiveConvFwd) {
    // find-db gfx1030_36.HIP.fdb.txt: 1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F
    auto k = keys("ConvDirectNaiveConvFwd", "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "naive_conv.cpp.o");
    EXPECT_EQ(k[0].args, kFp32Block + " -mcpu=gfx1030");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_fwd_nchw_float_double_float"}));
    // The same problem asked for on the path that ran SetupFloats twice (src/ocl/convolutionocl.cpp:87 after :260).
    k = keys("ConvDirectNaiveConvFwd", "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx906_60", 2);
    EXPECT_EQ(k[0].args, kFp32Block + kFp32Block + " -mcpu=gfx906");
    // Odd shape: 3-D NDHWC FP16 on gfx90a (kernel name :129-236).
    k = keys("ConvDirectNaiveConvFwd", "16-4-9-9-3x3x3-8-2-7-7-2-0x0x0-1x1x1-1x1x1-0-NDHWC-NDHWC-NDHWC-FP16-F",
             "gfx90a:sramecc+:xnack-_110");
    EXPECT_EQ(k[0].args, kFp16Block + " -mcpu=gfx90a");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_fwd_ndhwc_half_double_half"}));
    // rocm-6.2.0 (MIOpen 3.2.0) names its kernels without "ab_" (src/solver/conv_direct_naive_conv.cpp:129-134).
    k = keys("ConvDirectNaiveConvFwd", "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36", 1, {3, 2, 0});
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_nonpacked_fwd_nchw_float_double_float"}));
}

TEST(SolverGoldenKeys, ConvDirectNaiveConvBwdAndWrw) {
    // find-db gfx1030_36.HIP.fdb.txt: 1-1760-1760-1x1-1-1760-1760-1-0x0-1x1-1x1-0-NCHW-FP16-B
    auto k = keys("ConvDirectNaiveConvBwd", "1-1760-1760-1x1-1-1760-1760-1-0x0-1x1-1x1-0-NCHW-FP16-B", "gfx1030_36");
    EXPECT_EQ(k[0].name, "naive_conv.cpp.o");
    EXPECT_EQ(k[0].args, kFp16Block + " -mcpu=gfx1030");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_bwd_nchw_half_double_half"}));
    k = keys("ConvDirectNaiveConvBwd", "64-19-19-1x1-1-19-19-1024-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-B", "gfx942_304");
    EXPECT_EQ(k[0].args, kFp32Block + " -mcpu=gfx942");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_bwd_nhwc_float_double_float"}));
    // find-db gfx90a6e.HIP.fdb.txt: 1-1-1-1-1x4x4-512-1-4-4-128-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W
    k = keys("ConvDirectNaiveConvWrw", "1-1-1-1-1x4x4-512-1-4-4-128-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W", "gfx90a_110");
    EXPECT_EQ(k[0].args, kFp32Block + " -mcpu=gfx90a");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_wrw_ncdhw_float_double_float"}));
    k = keys("ConvDirectNaiveConvWrw", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-W", "gfx1100_48");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"naive_conv_ab_nonpacked_wrw_nchw_ushort_double_ushort"}));
    EXPECT_NE(k[0].args.find("-DMIOPEN_USE_BFP16=1"), std::string::npos);
}

TEST(SolverApplicability, ConvDirectNaiveConv) {
    EXPECT_TRUE(applicable("ConvDirectNaiveConvFwd", "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvDirectNaiveConvFwd", "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-B", "gfx1030_36"));
    // INT8 forward only (conv_direct_naive_conv_fwd.cpp:59-61 vs _bwd.cpp:59-61), and IsInt8 wants
    // an int32 or float y (problem_description.hpp:278-282): an all-int8 key ("INT8") is not one,
    // and naive_conv.cpp defines no int8-output kernel for it (:2136-2167).
    EXPECT_TRUE(applicable("ConvDirectNaiveConvFwd", "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F", "gfx906_60"));
    EXPECT_TRUE(applicable("ConvDirectNaiveConvFwd", "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NCHW-INT8INT8FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvDirectNaiveConvFwd", "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NCHW-INT8-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvDirectNaiveConvBwd", "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NCHW-INT8-B", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvDirectNaiveConvFwd", "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NHWC-NCHW-NCHW-FP32-F", "gfx906_60"));
}

// ConvBinWinogradRxSf2x3 / f3x2 / f2x3g1: conv_winoRxS.cpp:845-915 (MIOpen 3.3.0).
TEST(SolverGoldenKeys, ConvBinWinogradRxSf3x2) {
    // find-db gfx1030_36: a f3x2 record, FP32 stride 1 -> v30, gfx10
    auto k = keys("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s.o");
    EXPECT_EQ(k[0].args, kWinoOptions + " -mcpu=gfx1030");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv_v30_3_1_gfx10_fp32_f3x2_stride1"}));
    // gfx906 prefers v21 (:210-214) except f3x2 with stride 2.
    k = keys("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx906_60");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v21_1_3_fp16_dot2_f3x2_stride1.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv_v21_1_3_gfx9_fp16_dot2_edc_f3x2_stride1"}));
    EXPECT_EQ(k[0].args, kWinoOptions + " -mcpu=gfx906");
    k = keys("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx906_60");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v30_3_1_fp32_f3x2_stride2.s.o");
    // Backward data with stride 2 is the dilation-2 kernel (:909-912).
    k = keys("ConvBinWinogradRxSf3x2", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-B", "gfx1100_48");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v30_3_1_fp32_f3x2_dilation2.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv_v30_3_1_gfx11_fp32_f3x2_dilation2"}));
}

TEST(SolverGoldenKeys, ConvBinWinogradRxSf2x3AndG1) {
    // gfx940/gfx941 bypass the cache on stores (:861).
    auto k = keys("ConvBinWinogradRxSf2x3", "128-28-28-3x3-128-28-28-16-1x1-1x1-1x1-0-NCHW-FP32-F_g32", "gfx940_228");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v30_3_1_fp32_f2x3_stride1.s.o");
    EXPECT_EQ(k[0].args,
              "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,FORCE_CACHE_BYPASS_ON_STORE=1 -mcumode "
              "-mwavefrontsize64 -mcpu=gfx940");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv_v30_3_1_gfx9_fp32_f2x3_stride1"}));
    k = keys("ConvBinWinogradRxSf2x3g1", "256-14-14-3x3-256-14-14-64-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx900_56");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v21_1_3_fp16_dot2_f2x3_stride1.s.o");
    EXPECT_EQ(k[0].args, kWinoOptions + " -mcpu=gfx900");
    k = keys("ConvBinWinogradRxSf2x3g1", "256-14-14-3x3-256-28-28-64-1x1-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v30_3_1_fp32_f2x3_stride2.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv_v30_3_1_gfx10_fp32_f2x3_stride2"}));
}

TEST(SolverApplicability, WinogradRxS) {
    const std::string ungrouped = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    // f2x3 leaves ungrouped forward problems to f2x3g1 (:764-772, WORKAROUND_ISSUE_1681 = 0 at :55).
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf2x3", ungrouped, "gfx1030_36"));
    EXPECT_TRUE(applicable("ConvBinWinogradRxSf2x3g1", ungrouped, "gfx1030_36"));
    EXPECT_TRUE(applicable("ConvBinWinogradRxSf3x2", ungrouped, "gfx1030_36"));
    EXPECT_TRUE(applicable("ConvBinWinogradRxSf2x3", "128-28-28-3x3-128-28-28-16-1x1-1x1-1x1-0-NCHW-FP32-F_g32", "gfx906_60"));
    // Not on gfx12, not with xnack on, FP16 not on gfx900 (:674-685).
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", ungrouped, "gfx1200_32"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", ungrouped, "gfx90a:xnack+_110"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx900_56"));
    // Dilation, bias, NHWC, tiny tensors (:691-722).
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-52-52-32-1x1-1x1-2x2-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-1-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", "4-6-6-3x3-4-6-6-2-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    // WrW with stride 2 is not taken (:730-731).
    EXPECT_FALSE(applicable("ConvBinWinogradRxSf3x2", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-W", "gfx1030_36"));
}

TEST(SolverCatalog, GemmSolversBuildNoKernels) {
    // Pure GEMM: nothing of MIOpen's own runs.
    for (const char* name : {"GemmFwd1x1_0_1", "GemmBwd1x1_stride1"}) {
        const auto* solver = find_solver(name);
        ASSERT_NE(solver, nullptr) << name;
        EXPECT_FALSE(solver->builds_kernels()) << name;
    }
    // INT8 runs one more MIOpen kernel than FP32, the packed transpose (gemm.cpp:981-996, MIOpen 3.3.0);
    // the full INT8 keys are in family_solver_test.cpp (GemmHelperKeys.FwdRestInt8).
    const auto int8 = keys("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8INT8INT32-F", "gfx906_60");
    ASSERT_EQ(int8.size(), 2u);
    EXPECT_EQ(int8[0].name, "MIOpenIm2d2Col.cl.o");
    EXPECT_EQ(int8[1].symbols, (std::vector<std::string>{"transpose_packed_MN2NM_off64"}));
    EXPECT_EQ(find_solver("ConvNoSuchSolver"), nullptr);
}

// The helper kernels GEMM solvers launch: src/ocl/utilocl.cpp:43-280 (Im2d2ColGPU), :403-500
// (Col2Im2dGPU), src/ocl/tensorocl.cpp:1498-1560 (SetTensor); which solver runs which:
// gemm.cpp:885-990, gemm_bwd.cpp:602-745, gemm_wrw.cpp:169-250, :357-470 (MIOpen 3.3.0; the same
// in rocm-6.2.0). Worked by hand.
TEST(SolverGoldenKeys, GemmHelpers) {
    // GemmFwdRest, 3x3 over 56x56: one channel per group, 32x8 tiles -> 2 x 7 blocks,
    // local memory (31 + 3) * (7 + 3) = 340.
    const std::string im2col_56 =
        " -DLOCAL_MEM_SIZE=340 -DSTRIDE_GT_1=0 -DNUM_IM_BLKS_EQ_1=0 -DUSE_IM_OFF_GUARD=1" + kFp32Block;
    auto k = keys("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenIm2d2Col.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"Im2d2Col_v2"}));
    EXPECT_EQ(k[0].args, im2col_56 + " -mcpu=gfx906");
    // 7x7 output, stride 1, channels a multiple of 4: four channels per group, one block,
    // local memory max((4*7 + 3) * 10, 4 * 34 * (1 + 3)) = 544.
    k = keys("GemmFwdRest", "256-7-7-3x3-256-7-7-8-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args, " -DLOCAL_MEM_SIZE=544 -DSTRIDE_GT_1=0 -DNUM_IM_BLKS_EQ_1=1 -DUSE_IM_OFF_GUARD=1" +
                             kFp16Block + " -mcpu=gfx1030");
    // GemmBwdRest: col2im into dx; 64 * 56 * 56 * 9 fits 32 bits.
    k = keys("GemmBwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-B", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenCol2Im2d.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"Col2Im2dU"}));
    EXPECT_EQ(k[0].args, kFp32Block + " -DMIOPEN_USE_64BIT_INDEX=0 -mcpu=gfx906");
    // GemmWrwUniversal: dw zeroed (36864 values -> 65536 work items), then im2col of x.
    k = keys("GemmWrwUniversal", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx90a_110");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].name, "MIOpenSubTensorOpWithScalarKernel.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SubTensorOpWithScalar1d"}));
    EXPECT_EQ(k[0].args,
              "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + kFp32Block + " -DWORK_LENGTH_0=65536 -mcpu=gfx90a");
    EXPECT_EQ(k[1].args, im2col_56 + " -mcpu=gfx90a");
    // GemmFwd1x1_0_2 (gemm.cpp:250-420): x to CNHW with stride 2 (V2), y back without stride: FP32
    // 28*28 % 4 == 0 and 196 * 256 >= 64*4*64 -> the 1-D float4 V1 (utilocl.cpp:779-815, :913-940).
    // Both from MIOpenUtilKernels4.cl, whose only options are the data-type block.
    k = keys("GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenUtilKernels4.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"transpose_NCHW2CNHW_V2_2D_WG_off64",
                                                      "transpose_CNHW2NCHW_V1_1D_WG_float4_off64"}));
    EXPECT_EQ(k[0].args, kFp32Block + " -mcpu=gfx906");
    // GemmBwd1x1_stride2 (gemm_bwd.cpp:223-380), FP16: dx zeroed (25690112 values -> 65536 items),
    // then both transposes in their V2 form (not FP32).
    k = keys("GemmBwd1x1_stride2", "512-28-28-1x1-256-56-56-32-0x0-2x2-1x1-0-NCHW-FP16-B", "gfx1030_36");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].args,
              "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + kFp16Block + " -DWORK_LENGTH_0=65536 -mcpu=gfx1030");
    EXPECT_EQ(k[1].symbols, (std::vector<std::string>{"transpose_NCHW2CNHW_V2_2D_WG_off64",
                                                      "transpose_CNHW2NCHW_V2_2D_WG_off64"}));
    EXPECT_EQ(k[1].args, kFp16Block + " -mcpu=gfx1030");
    // GemmWrw1x1_stride1: only the zeroing, 64 x 256 weights.
    k = keys("GemmWrw1x1_stride1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + kFp16Block + " -DWORK_LENGTH_0=16384 -mcpu=gfx1030");
}

// End to end with a MIOpen tree: find-db planning, both key forms, coverage reasons.
// The default mode builds each line's winner only (src/ocl/convolutionocl.cpp:742-755,
// GetSolutions, MIOpen 3.3.0); find-db-all every listed solver.
TEST(SolverPlanWithTree, FindDbMode) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto tree = MiopenTree::open(src);
    test::TempDir dir;
    const auto fdb = dir / "gfx1030_36.HIP.fdb.txt";
    write_file_atomic(fdb, test::bytes_of(
        "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F=ConvDirectNaiveConvFwd:0.1,0,miopenConvolutionFwdAlgoDirect;"
        "GemmFwdRest:0.2,100,miopenConvolutionFwdAlgoGEMM;ConvMlirIgemmFwd:0.3,0,miopenConvolutionFwdAlgoImplicitGEMM\n"
        "64-56-56-1x1-256-56-56-1-0x0-1x1-1x1-0-NCHW-FP32-F=GemmFwd1x1_0_1:0.1,0,miopenConvolutionFwdAlgoGEMM\n"));
    SolverPlanOptions options;
    options.tree = &tree;
    options.find_dbs = {fdb};
    options.mode = SolverMode::FindDbAll;
    auto plan = plan_from_problems(ProblemSet{}, parse_target_list("gfx1030_36"), options);
    // The naive conv with the block once and twice, and GemmFwdRest's im2col helper.
    ASSERT_EQ(plan.builds.size(), 3u);
    std::set<std::string> naive_args, names;
    for (const auto& b : plan.builds) {
        names.insert(b.build.kdb_name());
        if (b.build.kdb_name() == "naive_conv.cpp.o") naive_args.insert(b.build.kdb_args());
    }
    EXPECT_EQ(names, (std::set<std::string>{"naive_conv.cpp.o", "MIOpenIm2d2Col.cl.o"}));
    EXPECT_EQ(naive_args,
              (std::set<std::string>{kFp32Block + " -mcpu=gfx1030", kFp32Block + kFp32Block + " -mcpu=gfx1030"}));
    std::map<std::string, CoverageEntry::Status> status;
    for (const auto& c : plan.coverage) status[c.solver] = c.status;
    EXPECT_EQ(status["ConvDirectNaiveConvFwd"], CoverageEntry::Status::Planned);
    EXPECT_EQ(status["GemmFwdRest"], CoverageEntry::Status::Planned);
    EXPECT_EQ(status["GemmFwd1x1_0_1"], CoverageEntry::Status::Gemm);
    EXPECT_EQ(status["ConvMlirIgemmFwd"], CoverageEntry::Status::NotInCatalog);

    // The winner only: the naive conv (0.1 ms) for the first line, the rocBLAS GEMM for the second.
    options.mode = SolverMode::FindDb;
    plan = plan_from_problems(ProblemSet{}, parse_target_list("gfx1030_36"), options);
    ASSERT_EQ(plan.builds.size(), 2u);
    for (const auto& b : plan.builds) EXPECT_EQ(b.build.kdb_name(), "naive_conv.cpp.o");
    ASSERT_EQ(plan.lines.size(), 2u);
    std::map<std::string, LineCoverage> lines;
    for (const auto& line : plan.lines) lines[line.problem] = line;
    EXPECT_EQ(lines["1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F"].winner, "ConvDirectNaiveConvFwd");
    EXPECT_EQ(lines["64-56-56-1x1-256-56-56-1-0x0-1x1-1x1-0-NCHW-FP32-F"].winner, "GemmFwd1x1_0_1");
    EXPECT_EQ(lines["64-56-56-1x1-256-56-56-1-0x0-1x1-1x1-0-NCHW-FP32-F"].status, CoverageEntry::Status::Gemm);
    EXPECT_EQ(plan.coverage.size(), 4u) << "every listed entry is still counted";
}

// A line's fastest item that MIOpen never runs falls through to the next
// (GetSolutions skips it on IsApplicable, src/ocl/convolutionocl.cpp:746-750, 3.3.0):
// ConvCkIgemmFwdV6r1DlopsNchw is off unless MIOPEN_DEBUG_CONV_CK_IGEMM_FWD_V6R1_DLOPS_NCHW
// is set (WORKAROUND_SWDEV_411729, conv_ck_igemm_fwd_v6r1_dlops_nchw.cpp:37, :92-93),
// ConvMlirIgemmFwd is absent from a MIOpen built without MLIR (conv_mlir_igemm_fwd.cpp:166),
// and a fusion id has no convolution solver (src/solver.cpp:316-320). The line below is a
// real gfx1030_36 line (MIOpen 3.3.0 src/kernels/gfx1030_36.HIP.fdb.txt.bz2), legacy format.
TEST(SolverPlanWithTree, LineWinnerSkipsWhatMIOpenNeverRuns) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto tree = MiopenTree::open(src);
    test::TempDir dir;
    const auto fdb = dir / "gfx1030_36.HIP.fdb.txt";
    const std::string ck_line =
        "1008-14-14-1x1-192-14-14-1024-0x0-1x1-1x1-0-NCHW-FP16-F=miopenConvolutionFwdAlgoImplicitGEMM:"
        "ConvCkIgemmFwdV6r1DlopsNchw,3.93505,4096,miopenConvolutionFwdAlgoImplicitGEMM,<unused>;"
        "miopenConvolutionFwdAlgoWinograd:ConvBinWinogradRxSf3x2,4.95169,0,miopenConvolutionFwdAlgoWinograd,<unused>;"
        "miopenConvolutionFwdAlgoGEMM:GemmFwd1x1_0_1,5.45363,0,miopenConvolutionFwdAlgoGEMM,not used;"
        "miopenConvolutionFwdAlgoDirect:ConvDirectNaiveConvFwd,647.358,0,miopenConvolutionFwdAlgoDirect,not used\n";
    // Listed out of time order: the naive conv is slowest but written first.
    const std::string mlir_line =
        "16-28-28-3x3-16-28-28-1-1x1-1x1-1x1-0-NCHW-FP32-F=ConvDirectNaiveConvFwd:9.5,0,miopenConvolutionFwdAlgoDirect;"
        "ConvMlirIgemmFwd:0.5,0,miopenConvolutionFwdAlgoImplicitGEMM;"
        "ConvOclDirectFwdFused:0.1,0,miopenConvolutionFwdAlgoDirect\n";
    write_file_atomic(fdb, test::bytes_of(ck_line + mlir_line));
    SolverPlanOptions options;
    options.tree = &tree;
    options.find_dbs = {fdb};
    const auto winners = [&](const SolverPlanOptions& o) {
        std::map<std::string, std::string> out;
        for (const auto& line : plan_from_problems(ProblemSet{}, parse_target_list("gfx1030_36"), o).lines)
            out[line.problem.substr(0, 4)] = line.winner;
        return out;
    };
    auto w = winners(options);
    EXPECT_EQ(w["1008"], "ConvBinWinogradRxSf3x2");
    EXPECT_EQ(w["16-2"], "ConvMlirIgemmFwd") << "MLIR on (MIOpen's default): the line needs rocMLIR's kernel";
    options.build.mlir = false;
    w = winners(options);
    EXPECT_EQ(w["16-2"], "ConvDirectNaiveConvFwd");
    const auto plan = plan_from_problems(ProblemSet{}, parse_target_list("gfx1030_36"), options);
    for (const auto& line : plan.lines) {
        ASSERT_FALSE(line.skipped.empty()) << line.problem;
        if (line.problem.starts_with("1008")) {
            EXPECT_EQ(line.skipped[0].solver, "ConvCkIgemmFwdV6r1DlopsNchw");
            EXPECT_EQ(line.skipped[0].status, CoverageEntry::Status::DefaultOff);
            EXPECT_EQ(line.status, CoverageEntry::Status::Planned);
        } else {
            EXPECT_EQ(line.skipped[0].status, CoverageEntry::Status::NotConvolution);
            EXPECT_EQ(line.skipped[1].status, CoverageEntry::Status::DefaultOff);
        }
    }
    // The Winograd kernel of the first line and the naive conv (two key forms) of the second.
    std::set<std::string> names;
    for (const auto& b : plan.builds) names.insert(b.build.kdb_name());
    EXPECT_TRUE(names.count("naive_conv.cpp.o"));
    EXPECT_EQ(names.size(), 2u);
}

// ConvBinWinogradRxS: conv_bin_winoRxS.cpp:273-331 (MIOpen 3.3.0): options
// ROCM_METADATA_VERSION 5 (code object v3+, :286-289), file by type, direction, stride.
TEST(SolverGoldenKeys, ConvBinWinogradRxS) {
    auto k = keys("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv_3x3_wheel_alpha_v9_0_15.s.o");
    EXPECT_EQ(k[0].args, "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcpu=gfx900");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConvRxSU"}));
    k = keys("ConvBinWinogradRxS", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-B", "gfx906_60");
    EXPECT_EQ(k[0].name, "conv_3x3_wheel_alpha_v9_0_15_stride_2_dil.s.o");
    EXPECT_EQ(k[0].args, "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcpu=gfx906");
    k = keys("ConvBinWinogradRxS", "64-56-56-3x3-64-28-28-32-1x1-2x2-1x1-0-NCHW-FP16-F", "gfx906_60");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v14_3_3_fp16dot_stride2_dec.s.o");
    k = keys("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx908_120");
    EXPECT_EQ(k[0].name, "Conv_Winograd_v16_5_0_stride1.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConvRxSf3x2"}));
    EXPECT_EQ(k[0].args, "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcpu=gfx908");
    EXPECT_TRUE(applicable("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvBinWinogradRxS", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F_g2", "gfx906_60"));
}

// ConvOclDirectFwd, options of conv_ocl_dir2Dfwd.cpp:230-485 (MIOpen 3.3.0) worked by hand.
TEST(SolverGoldenKeys, ConvOclDirectFwdDefaultConfig) {
    // Default configuration (conv_ocl_dir2Dfwd_exhaustive_search.cpp:100-170) for 56x56: in tiles 32,
    // out tiles 2, group tiles 16, 8 output and 2 input tiles, 1 stack; ALU tiles 16x16; read procs 256.
    const auto k = keys("ConvOclDirectFwd", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvDirUni.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenConvUni"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_HW_WAVE_SZ=64 -DMLO_DIR_FORWARD=1 -DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=1 "
              "-DMLO_FILTER_PAD1=1 -DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_N_OUTPUTS=64 -DMLO_N_INPUTS=64 "
              "-DMLO_BATCH_SZ=32 -DMLO_OUT_WIDTH=56 -DMLO_OUT_HEIGHT=56 -DMLO_OUT_BATCH_STRIDE=200704 "
              "-DMLO_OUT_CHANNEL_STRIDE=3136 -DMLO_OUT_STRIDE=56 -DMLO_IN_WIDTH=56 -DMLO_IN_HEIGHT=56 "
              "-DMLO_IN_BATCH_STRIDE=200704 -DMLO_IN_CHANNEL_STRIDE=3136 -DMLO_IN_STRIDE=56 -DMLO_IN_TILE0=32 "
              "-DMLO_IN_TILE1=32 -DMLO_GRP_TILE0=16 -DMLO_GRP_TILE1=16 -DMLO_OUT_TILE0=2 -DMLO_OUT_TILE1=2 "
              "-DMLO_N_STACKS=1 -DMLO_N_OUT_TILES=8 -DMLO_N_OUT_TILES_PERSTACK=8 -DMLO_N_IN_TILES_PERSTACK=2 "
              "-DMLO_N_READ_PROCS=256 -DMLO_ALU_VTILE0=16 -DMLO_ALU_VTILE1=16" +
                  kFp32Block + " -DMLO_CONV_BIAS=0 -mcpu=gfx1030");
    EXPECT_TRUE(applicable("ConvOclDirectFwd", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    // Deprecated solver: not enabled on gfx11 (src/solver.cpp:716-732); no 1x1; no FP16 forward stride 2.
    EXPECT_FALSE(applicable("ConvOclDirectFwd", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1100_48"));
    EXPECT_FALSE(applicable("ConvOclDirectFwd", "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvOclDirectFwd", "64-56-56-3x3-64-28-28-32-1x1-2x2-1x1-0-NCHW-FP16-F", "gfx906_60"));
}

TEST(SolverGoldenKeysWithTree, ConvOclDirectFwdPerfDbConfig) {
    const auto path = test::shared_db_dir() / "gfx906_60.db.bz2";
    if (!fs::exists(path)) GTEST_SKIP() << path << " not present";
    const PerfDb perf_db(path);
    // gfx906_60.db: config 20665 (B, 1024 channels 14x14, 3x3, stride 2, pad 1, batch 32, 32 groups)
    // -> ConvOclDirectFwd "16,32,32,32,2,1,4,4,2" (grp_tile1, grp_tile0, in_tile1, in_tile0,
    // out_pix_tile1, out_pix_tile0, n_out_pix_tiles, n_in_data_tiles, n_stacks;
    // legacy_exhaustive_search.hpp:64-75). Backward stride 2 forces out tiles 2 (:262-267); the
    // backward pads are 3 - 1 - 1 = 1; 32 groups add the group defines (:347-357).
    const auto problem = parse_conv_problem_key("1024-14-14-3x3-1024-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-B_g32");
    EXPECT_EQ(perf_db.find(problem, "ConvOclDirectFwd"), std::optional<std::string>("16,32,32,32,2,1,4,4,2"));
    const Target target = parse_target("gfx906_60");
    const ConvView view{problem};
    const SolverContext ctx{target, {3, 3, 0}, data_type_options(view), &perf_db};
    const auto k = find_solver("ConvOclDirectFwd")->kernels(view, ctx);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].options + target.mcpu_suffix(),
              " -DMLO_HW_WAVE_SZ=64 -DMLO_DIR_FORWARD=0 -DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=1 "
              "-DMLO_FILTER_PAD1=1 -DMLO_FILTER_STRIDE0=2 -DMLO_FILTER_STRIDE1=2 -DMLO_N_OUTPUTS=1024 "
              "-DMLO_N_INPUTS=1024 -DMLO_BATCH_SZ=32 -DMLO_OUT_WIDTH=28 -DMLO_OUT_HEIGHT=28 "
              "-DMLO_OUT_BATCH_STRIDE=802816 -DMLO_OUT_CHANNEL_STRIDE=784 -DMLO_OUT_STRIDE=28 -DMLO_IN_WIDTH=14 "
              "-DMLO_IN_HEIGHT=14 -DMLO_IN_BATCH_STRIDE=200704 -DMLO_IN_CHANNEL_STRIDE=196 -DMLO_IN_STRIDE=14 "
              "-DMLO_IN_TILE0=32 -DMLO_IN_TILE1=32 -DMLO_GRP_TILE0=16 -DMLO_GRP_TILE1=16 -DMLO_OUT_TILE0=2 "
              "-DMLO_OUT_TILE1=2 -DMLO_N_STACKS=1 -DMLO_N_OUT_TILES=4 -DMLO_N_OUT_TILES_PERSTACK=4 "
              "-DMLO_N_IN_TILES_PERSTACK=4 -DMLO_N_READ_PROCS=256 -DMLO_ALU_VTILE0=16 -DMLO_ALU_VTILE1=16" +
                  kFp32Block + " -DMLO_GROUP_COUNTS=32 -DMLO_GROUP_TILES=32 -DMLO_STACK_PERGROUP=8 -DGRP_MOD_ENABLE "
                               "-DMLO_CONV_BIAS=0 -mcpu=gfx906");
    EXPECT_GT(perf_db.size(), 1000u);
}

// ConvOclDirectFwd1x1, conv_ocl_dir2Dfwd1x1.cpp:98-420 (MIOpen 3.3.0) worked by hand from the
// default configuration (conv_ocl_dir2Dfwd_exhaustive_search.cpp:100-170).
TEST(SolverGoldenKeys, ConvOclDirectFwd1x1) {
    // FP32 forward, C and K multiples of 16: defaults 128 input / 32 output maps; 2 input groups.
    auto k = keys("ConvOclDirectFwd1x1", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConv1x1J1.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenConv1x1"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_N_LCL_IN_MAPS_ONCE=8 -DBATCHSIZE=32 -DH=56 -DW=56 "
              "-DC=256 -DK=64 -DMLO_N_LCL_IN_MAPS=128 -DMLO_N_INPUTS=256 -DMLO_N_OUTPUTS=64 -DH_out=56 -DW_out=56 "
              "-DMLO_N_IN_GROUPS=2 -DMLO_CLOOP0=16 -DMLO_CLOOP2=16 -DMLO_N_LCL_OUT_MAPS=32 "
              "-DMLO_CHEAT_SHADER_COMPILER=0 -DMLopen_RUNNING=1" +
                  kFp32Block + " -mcpu=gfx900");
    // FP16 backward data, stride 2: the MIOpenConv1x1S.cl path, read unit 2, 4 input / 16 output maps.
    k = keys("ConvOclDirectFwd1x1", "256-28-28-1x1-128-56-56-16-0x0-2x2-1x1-0-NCHW-FP16-B", "gfx906_60");
    EXPECT_EQ(k[0].name, "MIOpenConv1x1S.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenConv1x1pquv"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_DIR_FORWARD=0 -DMLO_FILTER_SIZE0=1 -DMLO_FILTER_SIZE1=1 -DMLO_FILTER_STRIDE0=2 "
              "-DMLO_FILTER_STRIDE1=2 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 -DMLO_IN_WIDTH=28 -DMLO_IN_HEIGHT=28 "
              "-DMLO_OUT_WIDTH=56 -DMLO_OUT_HEIGHT=56 -DMLO_N_OUTPUTS=128 -DMLO_N_INPUTS=256 -DMLO_BATCH_SZ=16 "
              "-DMLO_OUT_BATCH_STRIDE=401408 -DMLO_OUT_CHANNEL_STRIDE=3136 -DMLO_OUT_STRIDE=56 "
              "-DMLO_IN_BATCH_STRIDE=200704 -DMLO_IN_CHANNEL_STRIDE=784 -DMLO_IN_STRIDE=28 -DMLO_WEI_BSTRIDE=128 "
              "-DMLO_WEI_CHANNEL_STRIDE=1 -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 -DMLO_MAP_SZ4=392 "
              "-DMLO_OUT_WIDTH4=14 -DMLO_VERT_ALIGNED=1 -DMLO_HORIZ_ALIGNED=1 -DMLO_N_LCL_BATCHS=1 "
              "-DMLO_N_LCL_OUT_MAPS=16 -DMLO_N_LCL_IN_MAPS=4 -DMLO_CONV_BIAS=0 -DMLO_READ_UNIT=2 -DMLO_CLOOP0=64" +
                  kFp16Block + " -mcpu=gfx906");
    EXPECT_TRUE(applicable("ConvOclDirectFwd1x1", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
    // Off on gfx10/gfx11 (WORKAROUND_SWDEV_271887, :37 and :48-57); 1x1 only; no padding.
    EXPECT_FALSE(applicable("ConvOclDirectFwd1x1", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvOclDirectFwd1x1", "256-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvOclDirectFwd1x1", "256-56-56-1x1-64-58-58-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
}

// ConvBinWinograd3x3U: conv_bin_wino3x3U.cpp:105-135 (MIOpen 3.3.0).
TEST(SolverGoldenKeys, ConvBinWinograd3x3U) {
    auto k = keys("ConvBinWinograd3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv_3x3_wheel_alpha_v7_0_3b.s.o");
    EXPECT_EQ(k[0].args, "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcpu=gfx906");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenSp3AsmConv3x3F"}));
    k = keys("ConvBinWinograd3x3U", "32-28-28-3x3-32-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-B", "gfx803_36");
    EXPECT_EQ(k[0].name, "conv_3x3_wheel_alpha_v3_0b.s.o");
    EXPECT_EQ(k[0].args, "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcpu=gfx803");
    EXPECT_TRUE(applicable("ConvBinWinograd3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
    // C >= 18 on gfx9 (16 on gfx8), even C, FP32, not on gfx90a (:57-103).
    EXPECT_FALSE(applicable("ConvBinWinograd3x3U", "16-28-28-3x3-32-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
    EXPECT_TRUE(applicable("ConvBinWinograd3x3U", "16-28-28-3x3-32-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx803_36"));
    EXPECT_FALSE(applicable("ConvBinWinograd3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvBinWinograd3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110"));
}

// ConvAsm1x1U: conv_asm_1x1u.cpp:592-770 (MIOpen 3.3.0), GenerateClangDefsym writes
// " -Wa,-defsym,<name>=<value>" (src/ocl/gcn_asm_utils.cpp:305-310). Worked by hand.
namespace {
std::string defsyms(const std::vector<std::pair<const char*, long long>>& values) {
    std::string out;
    for (const auto& [name, value] : values) out += " -Wa,-defsym," + std::string(name) + "=" + std::to_string(value);
    return out;
}
}  // namespace

TEST(SolverGoldenKeysWithTree, ConvAsm1x1UPerfDbConfig) {
    const auto path = test::shared_db_dir() / "gfx906_60.db.bz2";
    if (!fs::exists(path)) GTEST_SKIP() << path << " not present";
    const PerfDb perf_db(path);
    // gfx906_60.db: F, 1024 -> 256 channels, 14x14, batch 128 -> "2,16,2,64,3,2,1,8".
    const auto problem = parse_conv_problem_key("1024-14-14-1x1-256-14-14-128-0x0-1x1-1x1-0-NCHW-FP32-F");
    EXPECT_EQ(perf_db.find(problem, "ConvAsm1x1U"), std::optional<std::string>("2,16,2,64,3,2,1,8"));
    const Target target = parse_target("gfx906_60");
    const ConvView view{problem};
    const SolverContext ctx{target, {3, 3, 0}, data_type_options(view), &perf_db};
    const auto k = find_solver("ConvAsm1x1U")->kernels(view, ctx);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].file + ".o", "conv1x1u.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmConv1x1U"}));
    EXPECT_EQ(k[0].options + target.mcpu_suffix(),
              defsyms({{"stride_h", 1}, {"stride_w", 1}, {"img_h", 14}, {"img_w", 14}, {"batch_size", 128},
                       {"input_channels", 1024}, {"output_channels", 256}, {"wei_h", 1}, {"wei_w", 1}, {"pad_h", 0},
                       {"pad_w", 0}, {"weights_layout", 0}, {"vec_c_in", 1}, {"vec_k_out", 1}, {"vec_c_filter", 1},
                       {"acc_type", 1}, {"buf_type", 1}, {"input_n_stride", 802816}, {"input_c_stride", 784},
                       {"input_h_stride", 56}, {"input_w_stride", 4}, {"output_n_stride", 200704},
                       {"output_k_stride", 784}, {"output_h_stride", 56}, {"output_w_stride", 4},
                       {"filter_k_stride", 4096}, {"filter_c_stride", 4}, {"filter_h_stride", 4},
                       {"filter_w_stride", 4}, {"input_buffer_size", 102760448}, {"filter_buffer_size", 1048576},
                       {"output_buffer_size", 25690112}, {"ROCM_METADATA_VERSION", 5}, {"read_size", 2},
                       {"k_mult", 16}, {"chunks_per_wave", 2}, {"chunk_size", 64}, {"n_mult", 3}, {"c_mult", 2},
                       {"waves_c_in_group", 1}, {"waves_k_in_group", 8}}) +
                  " -mcpu=gfx906");
}

TEST(SolverGoldenKeys, ConvAsm1x1UStaticHeuristicWithSubsample) {
    // Stride 2 forward on gfx900, no perf-db: StaticHeuristic (:400-424) keeps its first guess
    // 4,16,4,16,2,1,1,1; the image is the 28x28 output; the SubSample helper runs first (:592-640).
    auto k = keys("ConvAsm1x1U", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx900_56");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].name, "conv1x1u.s.o");
    EXPECT_EQ(k[0].args,
              defsyms({{"stride_h", 1}, {"stride_w", 1}, {"img_h", 28}, {"img_w", 28}, {"batch_size", 32},
                       {"input_channels", 256}, {"output_channels", 512}, {"wei_h", 1}, {"wei_w", 1}, {"pad_h", 0},
                       {"pad_w", 0}, {"weights_layout", 0}, {"vec_c_in", 1}, {"vec_k_out", 1}, {"vec_c_filter", 1},
                       {"acc_type", 1}, {"buf_type", 1}, {"input_n_stride", 802816}, {"input_c_stride", 3136},
                       {"input_h_stride", 112}, {"input_w_stride", 4}, {"output_n_stride", 1605632},
                       {"output_k_stride", 3136}, {"output_h_stride", 112}, {"output_w_stride", 4},
                       {"filter_k_stride", 1024}, {"filter_c_stride", 4}, {"filter_h_stride", 4},
                       {"filter_w_stride", 4}, {"input_buffer_size", 25690112}, {"filter_buffer_size", 524288},
                       {"output_buffer_size", 51380224}, {"ROCM_METADATA_VERSION", 5}, {"read_size", 4},
                       {"k_mult", 16}, {"chunks_per_wave", 4}, {"chunk_size", 16}, {"n_mult", 2}, {"c_mult", 1},
                       {"waves_c_in_group", 1}, {"waves_k_in_group", 1}}) +
                  " -mcpu=gfx900");
    EXPECT_EQ(k[1].name, "MIOpenUtilKernels3.cl.o");
    EXPECT_EQ(k[1].symbols, (std::vector<std::string>{"SubSample"}));
    EXPECT_EQ(k[1].args,
              " -DDATA_TYPE=float -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  -DMLO_GRP0_SZ2=1  -DMLO_FILTER0_STRIDE0=2 "
              "-DMLO_FILTER0_STRIDE1=2 -DMLO_WRITE_UNIT=4 -DMLO_OUT_CHANNEL_STRIDE=784 -DMLO_OUT_STRIDE=28 "
              "-DMLO_IN_BATCH_STRIDE=200704 -DMLO_IN0_BATCH_STRIDE=802816 -DMLO_IN0_CHANNEL_STRIDE=3136 "
              "-DMLO_IN0_STRIDE=56" +
                  kFp32Block + " -mcpu=gfx900");
    // gfx908 with stride 1 takes MIOpen's tuning-net default: without a MIOpen tree (no model
    // files to evaluate) kdbgen plans nothing.
    EXPECT_TRUE(keys("ConvAsm1x1U", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx908_120").empty());
    EXPECT_TRUE(applicable("ConvAsm1x1U", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvAsm1x1U", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvAsm1x1U", "256-56-56-3x3-512-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"));
}

// ConvAsm1x1U on gfx908, stride 1, no perf-db record: HeuristicInit (conv_asm_1x1u.cpp:488-503,
// MIOpen 3.3.0) asks the tuning net first (IsModelApplicable :476-486: device name "gfx908",
// stride H 1). The net's picks below were computed by tests/ktn_reference.py (NumPy, independent
// of kdbgen's C++) and checked valid by hand against IsValidImpl (:295-369); StaticHeuristic
// (:430-474) would give 4,16,4,16,2,1,1,1 and 1,4,8,1,1,2,1,1 instead. The rest of each option
// string is worked by hand from GetSolution (:645-912). Both problems are line winners in
// gfx90878.HIP.fdb.txt.bz2 (gfx908_120).
namespace {
std::vector<Key> keys_with_tree(const std::string& problem_key, const std::string& target_spec) {
    const char* src = ::kdbgen::test::miopen_src();
    if (!src || !*src) return {};
    static const MiopenTree tree = MiopenTree::open(src);
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, tree.version(), data_type_options(view), nullptr, &tree};
    std::vector<Key> out;
    for (const auto& k : find_solver("ConvAsm1x1U")->kernels(view, ctx))
        out.push_back({k.file + ".o", k.options + target.mcpu_suffix(), k.symbols});
    return out;
}
}  // namespace

TEST(SolverGoldenKeysWithTree, ConvAsm1x1UTuningNetGfx908) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    // FP32 forward, 32 -> 16 channels, 112x112, batch 8: the net picks 1,8,1,64,1,2,1,1.
    auto k = keys_with_tree("32-112-112-1x1-16-112-112-8-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx908_120");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv1x1u.s.o");
    EXPECT_EQ(k[0].args,
              defsyms({{"stride_h", 1}, {"stride_w", 1}, {"img_h", 112}, {"img_w", 112}, {"batch_size", 8},
                       {"input_channels", 32}, {"output_channels", 16}, {"wei_h", 1}, {"wei_w", 1}, {"pad_h", 0},
                       {"pad_w", 0}, {"weights_layout", 0}, {"vec_c_in", 1}, {"vec_k_out", 1}, {"vec_c_filter", 1},
                       {"acc_type", 1}, {"buf_type", 1}, {"input_n_stride", 1605632}, {"input_c_stride", 50176},
                       {"input_h_stride", 448}, {"input_w_stride", 4}, {"output_n_stride", 802816},
                       {"output_k_stride", 50176}, {"output_h_stride", 448}, {"output_w_stride", 4},
                       {"filter_k_stride", 128}, {"filter_c_stride", 4}, {"filter_h_stride", 4},
                       {"filter_w_stride", 4}, {"input_buffer_size", 12845056}, {"filter_buffer_size", 2048},
                       {"output_buffer_size", 6422528}, {"ROCM_METADATA_VERSION", 5}, {"read_size", 1},
                       {"k_mult", 8}, {"chunks_per_wave", 1}, {"chunk_size", 64}, {"n_mult", 1}, {"c_mult", 2},
                       {"waves_c_in_group", 1}, {"waves_k_in_group", 1}}) +
                  " -mcpu=gfx908");
    // FP16 backward data, 88 / 24 channels, 56x56, batch 32: the net picks 1,8,2,64,1,4,1,2.
    // Backward: filters CNHW (filter_k_stride 1, filter_c_stride K), weights_layout 1, buf_type 2.
    k = keys_with_tree("88-56-56-1x1-24-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-B", "gfx908_120");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              defsyms({{"stride_h", 1}, {"stride_w", 1}, {"img_h", 56}, {"img_w", 56}, {"batch_size", 32},
                       {"input_channels", 88}, {"output_channels", 24}, {"wei_h", 1}, {"wei_w", 1}, {"pad_h", 0},
                       {"pad_w", 0}, {"weights_layout", 1}, {"vec_c_in", 1}, {"vec_k_out", 1}, {"vec_c_filter", 1},
                       {"acc_type", 1}, {"buf_type", 2}, {"input_n_stride", 551936}, {"input_c_stride", 6272},
                       {"input_h_stride", 112}, {"input_w_stride", 2}, {"output_n_stride", 150528},
                       {"output_k_stride", 6272}, {"output_h_stride", 112}, {"output_w_stride", 2},
                       {"filter_k_stride", 2}, {"filter_c_stride", 48}, {"filter_h_stride", 2},
                       {"filter_w_stride", 2}, {"input_buffer_size", 17661952}, {"filter_buffer_size", 4224},
                       {"output_buffer_size", 4816896}, {"ROCM_METADATA_VERSION", 5}, {"read_size", 1},
                       {"k_mult", 8}, {"chunks_per_wave", 2}, {"chunk_size", 64}, {"n_mult", 1}, {"c_mult", 4},
                       {"waves_c_in_group", 1}, {"waves_k_in_group", 2}}) +
                  " -mcpu=gfx908");
    // gfx90a is not "gfx908" (:481): the same FP32 problem takes the static heuristic's first guess.
    k = keys_with_tree("32-112-112-1x1-16-112-112-8-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_NE(k[0].args.find("-Wa,-defsym,read_size=4 -Wa,-defsym,k_mult=16 -Wa,-defsym,chunks_per_wave=4 "
                             "-Wa,-defsym,chunk_size=16 -Wa,-defsym,n_mult=2 -Wa,-defsym,c_mult=1 "
                             "-Wa,-defsym,waves_c_in_group=1 -Wa,-defsym,waves_k_in_group=1 -mcpu=gfx90a"),
              std::string::npos)
        << k[0].args;
    // Stride 2 on gfx908 is not the net's either (:483): the static heuristic plans it.
    EXPECT_EQ(keys("ConvAsm1x1U", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx908_120").size(), 2u);
}

// ConvOclBwdWrW53: src/solver/conv/conv_ocl_dir2D_bwdWrW_53.cpp:348-651 (MIOpen 3.3.0; the same
// option string in rocm-6.2.0's src/solver/conv_ocl_dir2D_bwdWrW_53.cpp). Worked by hand.
TEST(SolverGoldenKeys, ConvOclBwdWrW53) {
    // From gfx1030_36.HIP.fdb.txt: dy 1x1x1, x 2x3x3, batch 16. 1 wave (in width <= 16), 2 input maps
    // (min(4, 2)), read unit 3 (x width 3), batch split 16 ways -> the _rdc kernel joins.
    auto k = keys("ConvOclBwdWrW53", "1-1-1-3x3-2-3-3-16-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvBwdWrW_LxG_P53.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW", "MIOpenCvBwdWrW_rdc"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ=64 -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
              "-DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 "
              "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DSTRIDE_W=1 -DSTRIDE_H=1 -DMLO_N_OUTPUTS=1 "
              "-DMLO_N_INPUTS=2 -DMLO_GROUP_COUNTS=1 -DMLO_N_INPUTS_PER_GROUP=2 -DMLO_N_OUTPUTS_PER_GROUP=1 "
              "-DMLO_BATCH_SZ=16 -DMLO_N_BATCH_LOOPS=1 -DMLO_OUT_BATCH_STRIDE=1 -DMLO_OUT_CHANNEL_STRIDE=1 "
              "-DMLO_OUT_STRIDE=1 -DMLO_IN_BATCH_STRIDE=18 -DMLO_IN_CHANNEL_STRIDE=9 -DMLO_IN_STRIDE=3 "
              "-DMLO_WEI_BATCH_STRIDE=18 -DMLO_WEI_CHANNEL_STRIDE=9 -DMLO_IN_WIDTH=3 -DMLO_IN_HEIGHT=3 "
              "-DMLO_OUT_WIDTH=1 -DMLO_OUT_HEIGHT=1 -DMLO_IN_TILE1=1 -DMLO_IN_TILE0=1 -DMLO_N_LCL_BATCHS=1 "
              "-DMLO_N_LCL_OUT_MAPS=1 -DMLO_N_LCL_IN_MAPS=2 -DMLO_OUT_TILE0=3 -DMLO_OUT_TILE1=3 -DMLO_OUT_STACKS=1 "
              "-DMLO_N_WAVES=1 -DMLO_READ_TYPE=_FLOAT3 -DMLO_READ_UNIT=3 -DMLO_HW_WAVE_SZ=64 "
              "-DMLO_LG2_PHYS_WAVE_SZ=6 -DMLO_IN_EXTENT1=3 -DMLO_IN_N_VERT_LOOPS=1 -DMLO_IN_WIDTH_CHUNK=3 "
              "-DMLO_IN_WIDTH_N_LOOPS=1 -DMLO_IN_WIDTH_LAST_CHUNK_VALID_READ_UNITS=0 "
              "-DMLO_IN_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_READ_UNIT=3 -DMLO_OUT_WIDTH_CHUNK=1 "
              "-DMLO_OUT_WIDTH_N_LOOPS=1 -DMLO_OUT_WIDTH_LAST_CHUNK_VALID_SPANS=0 "
              "-DMLO_OUT_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_SPAN=1 -DMLO_CONV_BIAS=0 -DMLO_UT_READ_TYPE=_FLOAT "
              "-DMLO_UT_READ_UNIT=1 -DMLO_UT_GRP_SZ0=256" +
                  kFp32Block + " -mcpu=gfx1030");
    // FP16, 56x56 with padding 1 on gfx908: 4 waves, read unit 4, rows halved (28, 2 loops),
    // 18 output stacks (256 / 14 spans), and the gfx908 unroll workaround (:586-592) after the block.
    k = keys("ConvOclBwdWrW53", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W", "gfx908_120");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ=256 -DMLO_GRP_SZ0=256 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
              "-DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=1 -DMLO_FILTER_PAD1=1 "
              "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DSTRIDE_W=1 -DSTRIDE_H=1 -DMLO_N_OUTPUTS=64 "
              "-DMLO_N_INPUTS=64 -DMLO_GROUP_COUNTS=1 -DMLO_N_INPUTS_PER_GROUP=64 -DMLO_N_OUTPUTS_PER_GROUP=64 "
              "-DMLO_BATCH_SZ=32 -DMLO_N_BATCH_LOOPS=1 -DMLO_OUT_BATCH_STRIDE=200704 -DMLO_OUT_CHANNEL_STRIDE=3136 "
              "-DMLO_OUT_STRIDE=56 -DMLO_IN_BATCH_STRIDE=200704 -DMLO_IN_CHANNEL_STRIDE=3136 -DMLO_IN_STRIDE=56 "
              "-DMLO_WEI_BATCH_STRIDE=576 -DMLO_WEI_CHANNEL_STRIDE=9 -DMLO_IN_WIDTH=56 -DMLO_IN_HEIGHT=56 "
              "-DMLO_OUT_WIDTH=56 -DMLO_OUT_HEIGHT=56 -DMLO_IN_TILE1=1 -DMLO_IN_TILE0=4 -DMLO_N_LCL_BATCHS=1 "
              "-DMLO_N_LCL_OUT_MAPS=1 -DMLO_N_LCL_IN_MAPS=1 -DMLO_OUT_TILE0=3 -DMLO_OUT_TILE1=3 -DMLO_OUT_STACKS=18 "
              "-DMLO_N_WAVES=4 -DMLO_READ_TYPE=_FLOAT4 -DMLO_READ_UNIT=4 -DMLO_HW_WAVE_SZ=64 "
              "-DMLO_LG2_PHYS_WAVE_SZ=6 -DMLO_IN_EXTENT1=28 -DMLO_IN_N_VERT_LOOPS=2 -DMLO_IN_WIDTH_CHUNK=56 "
              "-DMLO_IN_WIDTH_N_LOOPS=1 -DMLO_IN_WIDTH_LAST_CHUNK_VALID_READ_UNITS=0 "
              "-DMLO_IN_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_READ_UNIT=4 -DMLO_OUT_WIDTH_CHUNK=56 "
              "-DMLO_OUT_WIDTH_N_LOOPS=1 -DMLO_OUT_WIDTH_LAST_CHUNK_VALID_SPANS=0 "
              "-DMLO_OUT_WIDTH_LAST_CHUNK_VALID_PIXELS_IN_LAST_SPAN=4 -DMLO_CONV_BIAS=0 -DMLO_UT_READ_TYPE=_FLOAT "
              "-DMLO_UT_READ_UNIT=1 -DMLO_UT_GRP_SZ0=256" +
                  kFp16Block + " -DMLO_DISABLE_PRAGMA_UNROLL_COMPILER_SWDEV_200074_WORKAROUND=1 -mcpu=gfx908");
    EXPECT_TRUE(applicable("ConvOclBwdWrW53", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    // Stride 2; the FP16 7x7 pad-3 compiler-crash workaround (:80-90); not on gfx942 (deprecated).
    EXPECT_FALSE(applicable("ConvOclBwdWrW53", "64-112-112-7x7-3-224-224-32-3x3-2x2-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW53", "64-224-224-7x7-3-224-224-8-3x3-1x1-1x1-0-NCHW-FP16-W", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW53", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx942_304"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW53", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
}

// ConvOclBwdWrW2<N> / ConvOclBwdWrW2NonTunable: src/solver/conv/conv_ocl_dir2D_bwdWrW_2.cpp:138-169
// (IsTunable, NonTunable), :430-449 (HeuristicInit), :553-747 (GetSolution), MIOpen 3.3.0; the same
// option string in rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvOclBwdWrW2) {
    // Ungrouped 3x3: the non-tunable solver with the default config (1 wave, read size 6,
    // 4 output channels per tile, 3 rows). LDS row 1 + 56 + 3 = 60 -> 61 (FP32 bank padding).
    auto k = keys("ConvOclBwdWrW2NonTunable", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvBwdWrWS2.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW", "MIOpenCvBwdWrW_rdc"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ=64 -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
              "-DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=1 -DMLO_FILTER_PAD1=1 "
              "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_N_OUTPUTS=64 -DMLO_N_INPUTS=64 -DMLO_BATCH_SZ=32 "
              "-DMLO_N_BATCH_LOOPS=1 -DMLO_N_BATCH_BLKS=32 -DMLO_OUT_BATCH_STRIDE=200704 "
              "-DMLO_OUT_CHANNEL_STRIDE=3136 -DMLO_OUT_STRIDE=56 -DMLO_IN_BATCH_STRIDE=200704 "
              "-DMLO_IN_CHANNEL_STRIDE=3136 -DMLO_IN_STRIDE=56 -DMLO_WEI_BATCH_STRIDE=576 -DMLO_WEI_CHANNEL_STRIDE=9 "
              "-DMLO_IN_WIDTH=56 -DMLO_IN_HEIGHT=56 -DMLO_OUT_WIDTH=56 -DMLO_OUT_HEIGHT=56 -DMLO_N_LCL_OUT_MAPS=1 "
              "-DMLO_N_LCL_IN_MAPS=1 -DMLO_N_WAVES=1 -DMLO_READ_TYPE=_FLOAT6 -DMLO_READ_UNIT=6 "
              "-DMLO_ALIGNED_OUT_SCAN_LN=10 -DMLO_N_ALIGNED_OUT_SCAN_BLK=3 -DMLO_WEI_WKITEM=3 -DMLO_N_OUT_BLK_GRP=4 "
              "-DMLO_N_OUT_BLK=19 -DMLO_HW_WAVE_SZ=64 -DMLO_OUT_N_PIXS_OFF=2 -DMLO_IN_LCL_WIDTH=61 "
              "-DMLO_IN_LCL_SZ=309 -DMLO_CONV_BIAS=0 -DMLO_UT_READ_TYPE=_FLOAT -DMLO_UT_READ_UNIT=1 "
              "-DMLO_UT_GRP_SZ0=256 -DMLO_GROUP_COUNTS=1 -DMLO_N_INPUTS_PER_GROUP=64 -DMLO_N_OUTPUTS_PER_GROUP=64" +
                  kFp32Block + " -mcpu=gfx900");
    // The grouped FP16 shape below, for a batch split into blocks of loops.
    const auto grouped_fp16 = [](int batch, int loops, int blocks) {
        return fmt::format(
            " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ=64 -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
            "-DMLO_FILTER_SIZE0=3 -DMLO_FILTER_SIZE1=3 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 "
            "-DMLO_FILTER_STRIDE0=2 -DMLO_FILTER_STRIDE1=2 -DMLO_N_OUTPUTS=1024 -DMLO_N_INPUTS=1024 "
            "-DMLO_BATCH_SZ={} -DMLO_N_BATCH_LOOPS={} -DMLO_N_BATCH_BLKS={} -DMLO_OUT_BATCH_STRIDE=173056 "
            "-DMLO_OUT_CHANNEL_STRIDE=169 -DMLO_OUT_STRIDE=13 -DMLO_IN_BATCH_STRIDE=802816 "
            "-DMLO_IN_CHANNEL_STRIDE=784 -DMLO_IN_STRIDE=28 -DMLO_WEI_BATCH_STRIDE=288 -DMLO_WEI_CHANNEL_STRIDE=9 "
            "-DMLO_IN_WIDTH=28 -DMLO_IN_HEIGHT=28 -DMLO_OUT_WIDTH=13 -DMLO_OUT_HEIGHT=13 -DMLO_N_LCL_OUT_MAPS=1 "
            "-DMLO_N_LCL_IN_MAPS=1 -DMLO_N_WAVES=1 -DMLO_READ_TYPE=_FLOAT6 -DMLO_READ_UNIT=6 "
            "-DMLO_ALIGNED_OUT_SCAN_LN=3 -DMLO_N_ALIGNED_OUT_SCAN_BLK=3 -DMLO_WEI_WKITEM=3 -DMLO_N_OUT_BLK_GRP=4 "
            "-DMLO_N_OUT_BLK=5 -DMLO_HW_WAVE_SZ=64 -DMLO_OUT_N_PIXS_OFF=1 -DMLO_IN_LCL_WIDTH=30 "
            "-DMLO_IN_LCL_SZ=212 -DMLO_CONV_BIAS=0 -DMLO_UT_READ_TYPE=_FLOAT -DMLO_UT_READ_UNIT=1 "
            "-DMLO_UT_GRP_SZ0=256 -DMLO_GROUP_COUNTS=32 -DMLO_N_INPUTS_PER_GROUP=32 -DMLO_N_OUTPUTS_PER_GROUP=32",
            batch, loops, blocks) + kFp16Block + " -mcpu=gfx1030";
    };
    // From gfx1030_36.HIP.fdb.txt (ConvOclBwdWrW2<2>): grouped FP16, stride 2, batch 2 in one block:
    // the group kernel alone, no bank padding for FP16.
    k = keys("ConvOclBwdWrW2<2>", "1024-13-13-3x3-1024-28-28-2-0x0-2x2-1x1-0-NCHW-FP16-W_g32", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenGroupConvBwdWrWS2.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW"}));
    EXPECT_EQ(k[0].args, grouped_fp16(2, 2, 1));
    // <8> and <4> on the same grouped FP16 shape with a batch of 8 (default configuration, no perf-db):
    // one block of 8 loops, or two blocks of 4 loops, the second adding the reduction kernel from the
    // ungrouped file (:693-747).
    k = keys("ConvOclBwdWrW2<8>", "1024-13-13-3x3-1024-28-28-8-0x0-2x2-1x1-0-NCHW-FP16-W_g32", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenGroupConvBwdWrWS2.cl.o");
    EXPECT_EQ(k[0].args, grouped_fp16(8, 8, 1));
    k = keys("ConvOclBwdWrW2<4>", "1024-13-13-3x3-1024-28-28-8-0x0-2x2-1x1-0-NCHW-FP16-W_g32", "gfx1030_36");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].name, "MIOpenGroupConvBwdWrWS2.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW"}));
    EXPECT_EQ(k[1].name, "MIOpenConvBwdWrWS2.cl.o");
    EXPECT_EQ(k[1].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW_rdc"}));
    EXPECT_EQ(k[0].args, grouped_fp16(8, 4, 2));
    EXPECT_EQ(k[1].args, grouped_fp16(8, 4, 2));
    // <8> and <4>, ungrouped FP32 5x5 (tunable), batch 32, gfx900: 4 or 8 blocks, so both symbols.
    // Default configuration: 4 output channels a tile (64 % 4), 5 rows; LDS width 2 + 56 + 2 = 60 -> 61,
    // 61 * 9 rows + 2 + 2 = 553; 56 = 9 * 6 + 2 -> OUT_N_PIXS_OFF 2; ceil(56 / 5) = 12 output blocks.
    const auto ungrouped_5x5 = [](int loops, int blocks) {
        return fmt::format(
            " -DMLO_DIR_FORWARD=0 -DMLO_GRP_SZ=64 -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
            "-DMLO_FILTER_SIZE0=5 -DMLO_FILTER_SIZE1=5 -DMLO_FILTER_PAD0=2 -DMLO_FILTER_PAD1=2 "
            "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_N_OUTPUTS=64 -DMLO_N_INPUTS=64 -DMLO_BATCH_SZ=32 "
            "-DMLO_N_BATCH_LOOPS={} -DMLO_N_BATCH_BLKS={} -DMLO_OUT_BATCH_STRIDE=200704 "
            "-DMLO_OUT_CHANNEL_STRIDE=3136 -DMLO_OUT_STRIDE=56 -DMLO_IN_BATCH_STRIDE=200704 "
            "-DMLO_IN_CHANNEL_STRIDE=3136 -DMLO_IN_STRIDE=56 -DMLO_WEI_BATCH_STRIDE=1600 -DMLO_WEI_CHANNEL_STRIDE=25 "
            "-DMLO_IN_WIDTH=56 -DMLO_IN_HEIGHT=56 -DMLO_OUT_WIDTH=56 -DMLO_OUT_HEIGHT=56 -DMLO_N_LCL_OUT_MAPS=1 "
            "-DMLO_N_LCL_IN_MAPS=1 -DMLO_N_WAVES=1 -DMLO_READ_TYPE=_FLOAT6 -DMLO_READ_UNIT=6 "
            "-DMLO_ALIGNED_OUT_SCAN_LN=10 -DMLO_N_ALIGNED_OUT_SCAN_BLK=5 -DMLO_WEI_WKITEM=5 -DMLO_N_OUT_BLK_GRP=4 "
            "-DMLO_N_OUT_BLK=12 -DMLO_HW_WAVE_SZ=64 -DMLO_OUT_N_PIXS_OFF=2 -DMLO_IN_LCL_WIDTH=61 "
            "-DMLO_IN_LCL_SZ=553 -DMLO_CONV_BIAS=0 -DMLO_UT_READ_TYPE=_FLOAT -DMLO_UT_READ_UNIT=1 "
            "-DMLO_UT_GRP_SZ0=256 -DMLO_GROUP_COUNTS=1 -DMLO_N_INPUTS_PER_GROUP=64 -DMLO_N_OUTPUTS_PER_GROUP=64",
            loops, blocks) + kFp32Block + " -mcpu=gfx900";
    };
    for (const auto& [solver, loops, blocks] : {std::tuple{"ConvOclBwdWrW2<8>", 8, 4}, std::tuple{"ConvOclBwdWrW2<4>", 4, 8}}) {
        k = keys(solver, "64-56-56-5x5-64-56-56-32-2x2-1x1-1x1-0-NCHW-FP32-W", "gfx900_56");
        ASSERT_EQ(k.size(), 1u) << solver;
        EXPECT_EQ(k[0].name, "MIOpenConvBwdWrWS2.cl.o");
        EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW", "MIOpenCvBwdWrW_rdc"}));
        EXPECT_EQ(k[0].args, ungrouped_5x5(loops, blocks)) << solver;
    }
    // Tunable and non-tunable split the shapes; N batch loops need a batch of at least N.
    EXPECT_FALSE(applicable("ConvOclBwdWrW2<1>", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
    EXPECT_TRUE(applicable("ConvOclBwdWrW2<16>", "64-56-56-5x5-64-56-56-32-2x2-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW2<16>", "64-56-56-5x5-64-56-56-8-2x2-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW2NonTunable", "64-56-56-5x5-64-56-56-8-2x2-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
    // Issue 1693: even filter widths from 8 are excluded.
    EXPECT_FALSE(applicable("ConvOclBwdWrW2<1>", "64-49-49-8x8-64-56-56-8-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
}

// ConvOclBwdWrW1x1: src/solver/conv/conv_ocl_dir2D_bwdWrW_1x1.cpp:45-458 (MIOpen 3.3.0, same in
// rocm-6.2.0). Note the double spaces the " -DMLO_GRP_SZ1=1 " literals leave (:335-338). Worked by hand.
TEST(SolverGoldenKeys, ConvOclBwdWrW1x1) {
    // From gfx900_56.HIP.fdb.txt: 1024 -> 1024 channels at 1x1: 16x16 maps (4*64*64 >= 512), 64-wide groups.
    auto k = keys("ConvOclBwdWrW1x1", "1024-1-1-1x1-1024-1-1-128-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvBwdWrW1x1_PAD_read4.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW_16x16map"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_GRP_SZ0=64 -DMLO_GRP_SZ1=1  -DMLO_GRP_SZ2=1  -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  "
              "-DMLO_GRP0_SZ2=1  -DMLO_FILTER_SIZE0=1 -DMLO_FILTER_SIZE1=1 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 "
              "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_FILTER0_STRIDE0=1 -DMLO_FILTER0_STRIDE1=1 "
              "-DMLO_N_OUTPUTS=1024 -DMLO_N_INPUTS=1024 -DMLO_BATCH_SZ=128 -DMLO_IN_WIDTH=1 -DMLO_IN_HEIGHT=1 "
              "-DMLO_OUT_WIDTH=1 -DMLO_OUT_HEIGHT=1 -DMLO_N_LOAD_DWORDS_PER_MAP_ONCE=16 -DMLO_N_LCL_IN_MAPS=16 "
              "-DMLO_N_LCL_OUT_MAPS=16 -DMLO_READ_UNIT=4 -DMLO_WRITE_UNIT=1 -DMLO_OUT_BATCH_STRIDE=1024 "
              "-DMLO_OUT_CHANNEL_STRIDE=1 -DMLO_OUT_STRIDE=1 -DMLO_IN_BATCH_STRIDE=1024 -DMLO_IN_CHANNEL_STRIDE=1 "
              "-DMLO_IN_STRIDE=1 -DMLO_IN0_BATCH_STRIDE=1024 -DMLO_IN0_CHANNEL_STRIDE=1 -DMLO_IN0_STRIDE=1 "
              "-DMLO_WEI_BATCH_STRIDE=1048576 -DMLO_WEI_CHANNEL_STRIDE=1024 -DMLO_MAX_LOADS=0 -DMLO_ACCUM_SZ=64 "
              "-DMLO_OUT_READ_SZ=64 -DMLO_IN_READ_SZ=64 -DMLO_OUT_CHANNEL_READ_SZ=0 -DMLO_N_IN_TILE_BLOCK=8 "
              "-DMLO_N_LCL_OUT_MAPS_ONCE=8 -DMLO_N_LCL_IN_MAPS_ONCE=8 -DMLO_IN_PAD_MIN_X=0 -DMLO_IN_PAD_MIN_Y=0 "
              "-DMLO_OUT_PAD_MIN_X=0 -DMLO_OUT_PAD_MIN_Y=0 -DMLO_OUT_PAD_WIDTH=1 -DMLO_OUT_PAD_HEIGHT=1 "
              "-DMLO_TWO_PASSES=0" +
                  kFp32Block + " -mcpu=gfx900");
    // Stride 2, no padding, batch 16: two passes, SubSample first with the same options; 8x8 maps.
    k = keys("ConvOclBwdWrW1x1", "64-28-28-1x1-32-56-56-16-0x0-2x2-1x1-0-NCHW-FP32-W", "gfx90a_110");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].name, "MIOpenUtilKernels3.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SubSample"}));
    EXPECT_EQ(k[1].name, "MIOpenConvBwdWrW1x1_PAD_read4.cl.o");
    EXPECT_EQ(k[1].symbols, (std::vector<std::string>{"MIOpenCvBwdWrW_8x8map"}));
    const std::string expected =
        " -DMLO_GRP_SZ0=256 -DMLO_GRP_SZ1=1  -DMLO_GRP_SZ2=1  -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  "
        "-DMLO_GRP0_SZ2=1  -DMLO_FILTER_SIZE0=1 -DMLO_FILTER_SIZE1=1 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 "
        "-DMLO_FILTER_STRIDE0=1 -DMLO_FILTER_STRIDE1=1 -DMLO_FILTER0_STRIDE0=2 -DMLO_FILTER0_STRIDE1=2 "
        "-DMLO_N_OUTPUTS=64 -DMLO_N_INPUTS=32 -DMLO_BATCH_SZ=16 -DMLO_IN_WIDTH=28 -DMLO_IN_HEIGHT=28 "
        "-DMLO_OUT_WIDTH=28 -DMLO_OUT_HEIGHT=28 -DMLO_N_LOAD_DWORDS_PER_MAP_ONCE=64 -DMLO_N_LCL_IN_MAPS=8 "
        "-DMLO_N_LCL_OUT_MAPS=8 -DMLO_READ_UNIT=4 -DMLO_WRITE_UNIT=4 -DMLO_OUT_BATCH_STRIDE=50176 "
        "-DMLO_OUT_CHANNEL_STRIDE=784 -DMLO_OUT_STRIDE=28 -DMLO_IN_BATCH_STRIDE=25088 -DMLO_IN_CHANNEL_STRIDE=784 "
        "-DMLO_IN_STRIDE=28 -DMLO_IN0_BATCH_STRIDE=100352 -DMLO_IN0_CHANNEL_STRIDE=3136 -DMLO_IN0_STRIDE=56 "
        "-DMLO_WEI_BATCH_STRIDE=2048 -DMLO_WEI_CHANNEL_STRIDE=32 -DMLO_MAX_LOADS=3136 -DMLO_ACCUM_SZ=64 "
        "-DMLO_OUT_READ_SZ=32 -DMLO_IN_READ_SZ=32 -DMLO_OUT_CHANNEL_READ_SZ=196 -DMLO_N_IN_TILE_BLOCK=8 "
        "-DMLO_N_LCL_OUT_MAPS_ONCE=8 -DMLO_N_LCL_IN_MAPS_ONCE=8 -DMLO_IN_PAD_MIN_X=0 -DMLO_IN_PAD_MIN_Y=0 "
        "-DMLO_OUT_PAD_MIN_X=0 -DMLO_OUT_PAD_MIN_Y=0 -DMLO_OUT_PAD_WIDTH=28 -DMLO_OUT_PAD_HEIGHT=28 "
        "-DMLO_TWO_PASSES=1" +
        kFp32Block + " -mcpu=gfx90a";
    EXPECT_EQ(k[0].args, expected);
    EXPECT_EQ(k[1].args, expected);
    // Off on gfx10 (WORKAROUND_SWDEV_266868); channels must be multiples of 16; 1x1 only.
    EXPECT_FALSE(applicable("ConvOclBwdWrW1x1", "1024-1-1-1x1-1024-1-1-128-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW1x1", "24-1-1-1x1-1024-1-1-128-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
    EXPECT_FALSE(applicable("ConvOclBwdWrW1x1", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"));
}

// ConvAsmBwdWrW1x1: src/solver/conv/conv_asm_dir_BwdWrW1x1.cpp:371-455 (HeuristicInit), :475-547
// (IsApplicable), :581-776 (GetSolution), MIOpen 3.3.0; the same in rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvAsmBwdWrW1x1) {
    // From gfx906_60.HIP.fdb.txt: K = 1, C = 64 (C*K/256 = 0: the smallest configuration), 19x19.
    auto k = keys("ConvAsmBwdWrW1x1", "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv1x1wrw.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmConv1x1WrW"}));
    EXPECT_EQ(k[0].args,
              " -Wa,-defsym,stride_h=1 -Wa,-defsym,stride_w=1 -Wa,-defsym,img_h=19 -Wa,-defsym,img_w=19 "
              "-Wa,-defsym,out_h=19 -Wa,-defsym,out_w=19 -Wa,-defsym,batch_size=1024 -Wa,-defsym,input_channels=64 "
              "-Wa,-defsym,output_channels=1 -Wa,-defsym,wei_h=1 -Wa,-defsym,wei_w=1 -Wa,-defsym,pad_h=0 "
              "-Wa,-defsym,pad_w=0 -Wa,-defsym,weights_layout=0 -Wa,-defsym,reverse_weights=0 "
              "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,do_not_use_default_perf_params=1 "
              "-Wa,-defsym,acc_type=1 -Wa,-defsym,buf_type=1 -Wa,-defsym,input_n_stride=92416 "
              "-Wa,-defsym,input_c_stride=1444 -Wa,-defsym,input_h_stride=76 -Wa,-defsym,input_w_stride=4 "
              "-Wa,-defsym,output_n_stride=1444 -Wa,-defsym,output_k_stride=1444 -Wa,-defsym,output_h_stride=76 "
              "-Wa,-defsym,output_w_stride=4 -Wa,-defsym,filter_k_stride=256 -Wa,-defsym,filter_c_stride=4 "
              "-Wa,-defsym,filter_h_stride=4 -Wa,-defsym,filter_w_stride=4 -Wa,-defsym,input_buffer_size=94633984 "
              "-Wa,-defsym,filter_buffer_size=256 -Wa,-defsym,output_buffer_size=1478656 -Wa,-defsym,short_store=0 "
              "-Wa,-defsym,chunk_size=16 -Wa,-defsym,c_per_gpr=1 -Wa,-defsym,c_mult=1 -Wa,-defsym,k_per_gpr=1 "
              "-Wa,-defsym,k_mult=1 -Wa,-defsym,n_per_gpr=1 -Wa,-defsym,n_part_cnt=1 -Wa,-defsym,hw_per_gpr=4 "
              "-Wa,-defsym,read_size=1 -Wa,-defsym,data_prefetch=1 -mcpu=gfx906");
    // ResNet-50's FP16 stride-2 projection on gfx900: SubSample first (its options end with the
    // general block), the asm image is dy's 28x28, C*K/256 = 512 takes the largest configuration.
    k = keys("ConvAsmBwdWrW1x1", "512-28-28-1x1-256-56-56-32-0x0-2x2-1x1-0-NCHW-FP16-W", "gfx900_56");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].name, "MIOpenUtilKernels3.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SubSample"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_GRP0_SZ0=256 -DMLO_GRP0_SZ1=1  -DMLO_GRP0_SZ2=1  -DMLO_FILTER0_STRIDE0=2 -DMLO_FILTER0_STRIDE1=2 "
              "-DMLO_WRITE_UNIT=4 -DMLO_OUT_CHANNEL_STRIDE=784 -DMLO_OUT_STRIDE=28 -DMLO_IN_BATCH_STRIDE=200704 "
              "-DMLO_IN0_BATCH_STRIDE=802816 -DMLO_IN0_CHANNEL_STRIDE=3136 -DMLO_IN0_STRIDE=56" +
                  kFp16Block + " -mcpu=gfx900");
    EXPECT_EQ(k[1].args,
              " -Wa,-defsym,stride_h=1 -Wa,-defsym,stride_w=1 -Wa,-defsym,img_h=28 -Wa,-defsym,img_w=28 "
              "-Wa,-defsym,out_h=28 -Wa,-defsym,out_w=28 -Wa,-defsym,batch_size=32 -Wa,-defsym,input_channels=256 "
              "-Wa,-defsym,output_channels=512 -Wa,-defsym,wei_h=1 -Wa,-defsym,wei_w=1 -Wa,-defsym,pad_h=0 "
              "-Wa,-defsym,pad_w=0 -Wa,-defsym,weights_layout=0 -Wa,-defsym,reverse_weights=0 "
              "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,do_not_use_default_perf_params=1 "
              "-Wa,-defsym,acc_type=1 -Wa,-defsym,buf_type=2 -Wa,-defsym,input_n_stride=401408 "
              "-Wa,-defsym,input_c_stride=1568 -Wa,-defsym,input_h_stride=56 -Wa,-defsym,input_w_stride=2 "
              "-Wa,-defsym,output_n_stride=802816 -Wa,-defsym,output_k_stride=1568 -Wa,-defsym,output_h_stride=56 "
              "-Wa,-defsym,output_w_stride=2 -Wa,-defsym,filter_k_stride=512 -Wa,-defsym,filter_c_stride=2 "
              "-Wa,-defsym,filter_h_stride=2 -Wa,-defsym,filter_w_stride=2 -Wa,-defsym,input_buffer_size=12845056 "
              "-Wa,-defsym,filter_buffer_size=262144 -Wa,-defsym,output_buffer_size=25690112 "
              "-Wa,-defsym,short_store=1 -Wa,-defsym,chunk_size=8 -Wa,-defsym,c_per_gpr=2 -Wa,-defsym,c_mult=4 "
              "-Wa,-defsym,k_per_gpr=2 -Wa,-defsym,k_mult=4 -Wa,-defsym,n_per_gpr=4 -Wa,-defsym,n_part_cnt=4 "
              "-Wa,-defsym,hw_per_gpr=1 -Wa,-defsym,read_size=4 -Wa,-defsym,data_prefetch=1 -mcpu=gfx900");
    // gfx9 only, no xnack; FP16 WrW on gfx90a needs the FP16-alt kernels (convolution.hpp:83-85 defaults).
    EXPECT_FALSE(applicable("ConvAsmBwdWrW1x1", "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW1x1", "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx90a:xnack+_110"));
    EXPECT_TRUE(applicable("ConvAsmBwdWrW1x1", "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW1x1", "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW1x1", "64-28-28-1x1-32-56-56-16-1x1-2x2-1x1-0-NCHW-FP32-W", "gfx906_60"));
}

// ConvOclDirectFwdGen: src/solver/conv/conv_ocl_dir2Dfwdgen.cpp:40-280 (MIOpen 3.3.0, same in
// rocm-6.2.0). The option string has no leading space (:188). Worked by hand.
TEST(SolverGoldenKeys, ConvOclDirectFwdGen) {
    // ResNet-50's first layer (in gfx906_60.HIP.fdb.txt): 7x7 stride 2, batch 32 -> 2 input stacks,
    // 16x16 groups, MIOpenCDFGen4; gbl1 carries the 2 supertiles, so MLO_ALIGNED=0.
    auto k = keys("ConvOclDirectFwdGen", "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvDirGenFwd.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCDFGen4"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_GRP_SZ=256 -DMLO_GRP_SZ0=16 -DMLO_GRP_SZ1=16 -DMLO_GRP_SZ2=1 -DMLO_LCL_N_IN_CHNLS=1 "
              "-DMLO_LCL_N_OUT_CHNLS=32 -DMLO_OUT_STACKS=1 -DMLO_IN_STACKS=2 -DMLO_BATCH_SZ=32 -DMLO_FLTR_SZ0=7 "
              "-DMLO_FLTR_PAD_SZ0=3 -DMLO_FLTR_STRIDE0=2 -DMLO_FLTR_SZ1=7 -DMLO_FLTR_PAD_SZ1=3 -DMLO_FLTR_STRIDE1=2 "
              "-DMLO_N_OUT_CHNLS=64 -DMLO_OUT_WIDTH=112 -DMLO_OUT_HEIGHT=112 -DMLO_OUT_STRIDE=112 "
              "-DMLO_OUT_CHNL_STRIDE=12544 -DMLO_OUT_BATCH_STRIDE=802816 -DMLO_N_OUT_PIX_SZ0=1 -DMLO_N_OUT_PIX_SZ1=1 "
              "-DMLO_N_IN_CHNLS=3 -DMLO_IN_WIDTH=224 -DMLO_IN_HEIGHT=224 -DMLO_IN_STRIDE=224 "
              "-DMLO_IN_CHNL_STRIDE=50176 -DMLO_IN_BATCH_STRIDE=150528 -DMLO_N_IN_PIX_SZ0=1 -DMLO_N_IN_PIX_SZ1=1 "
              "-DMLO_WEI_SZ=9408 -DMLO_WEIGHTS_STRIDE=147 -DMLO_N_STACKS=16 -DMLO_N_PROCS0=16 -DMLO_N_PROCS1=8 "
              "-DMLO_ALIGNED=0 -DMLO_BATCH_ALIGNED=1 -DMLO_OUT_ALINED=1 -DMLO_IN_SZ0=31 -DMLO_IN_SZ1=15 "
              "-DMLO_LG2N_PROC_TILES=1 -DMLO_LG2N_PROC_TILE1=3 -DMLO_BIG=1 -DMLO_CONV_BIAS=0" +
                  kFp32Block + " -mcpu=gfx906");
    // Batch 1, FP16 3x3 stride 2 on gfx1030: one stack, 8x16 groups, MIOpenCDFGen.
    k = keys("ConvOclDirectFwdGen", "64-56-56-3x3-128-28-28-1-1x1-2x2-1x1-0-NCHW-FP16-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCDFGen"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_GRP_SZ=128 -DMLO_GRP_SZ0=8 -DMLO_GRP_SZ1=16 -DMLO_GRP_SZ2=1 -DMLO_LCL_N_IN_CHNLS=1 "
              "-DMLO_LCL_N_OUT_CHNLS=32 -DMLO_OUT_STACKS=1 -DMLO_IN_STACKS=1 -DMLO_BATCH_SZ=1 -DMLO_FLTR_SZ0=3 "
              "-DMLO_FLTR_PAD_SZ0=1 -DMLO_FLTR_STRIDE0=2 -DMLO_FLTR_SZ1=3 -DMLO_FLTR_PAD_SZ1=1 -DMLO_FLTR_STRIDE1=2 "
              "-DMLO_N_OUT_CHNLS=128 -DMLO_OUT_WIDTH=28 -DMLO_OUT_HEIGHT=28 -DMLO_OUT_STRIDE=28 "
              "-DMLO_OUT_CHNL_STRIDE=784 -DMLO_OUT_BATCH_STRIDE=100352 -DMLO_N_OUT_PIX_SZ0=1 -DMLO_N_OUT_PIX_SZ1=1 "
              "-DMLO_N_IN_CHNLS=64 -DMLO_IN_WIDTH=56 -DMLO_IN_HEIGHT=56 -DMLO_IN_STRIDE=56 -DMLO_IN_CHNL_STRIDE=3136 "
              "-DMLO_IN_BATCH_STRIDE=200704 -DMLO_N_IN_PIX_SZ0=1 -DMLO_N_IN_PIX_SZ1=1 -DMLO_WEI_SZ=73728 "
              "-DMLO_WEIGHTS_STRIDE=576 -DMLO_N_STACKS=1 -DMLO_N_PROCS0=8 -DMLO_N_PROCS1=16 -DMLO_ALIGNED=0 "
              "-DMLO_BATCH_ALIGNED=1 -DMLO_OUT_ALINED=1 -DMLO_IN_SZ0=15 -DMLO_IN_SZ1=31 -DMLO_LG2N_PROC_TILES=0 "
              "-DMLO_LG2N_PROC_TILE1=4 -DMLO_BIG=1 -DMLO_CONV_BIAS=0" +
                  kFp16Block + " -mcpu=gfx1030");
    // Stride-1 3x3 is not its; nor 1x1 stride 2, grouped, or backward.
    EXPECT_FALSE(applicable("ConvOclDirectFwdGen", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvOclDirectFwdGen", "64-56-56-1x1-128-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvOclDirectFwdGen", "64-56-56-3x3-128-28-28-1-1x1-2x2-1x1-0-NCHW-FP32-F_g2", "gfx906_60"));
    EXPECT_TRUE(applicable("ConvOclDirectFwdGen", "3-64-64-13x13-8-52-52-4-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvOclDirectFwdGen", "3-64-64-13x13-8-52-52-4-0x0-1x1-1x1-0-NCHW-FP32-B", "gfx906_60"));
}

// ConvAsm3x3U: src/solver/conv/conv_asm_3x3u.cpp:141-155 (HeuristicInit), :174-247 (IsApplicable),
// :276-301 (options through KernelBuildParameters::GenerateFor(GcnAsm): no leading space),
// MIOpen 3.3.0, same in rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvAsm3x3U) {
    // ResNet-50 3x3 (gfx906_60.HIP.fdb.txt): 2 filters per wave, one 64-lane chunk of 56 lanes.
    auto k = keys("ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv3x3.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmConv3x3U"}));
    EXPECT_EQ(k[0].args,
              "-Wa,-defsym,batch_size=32 -Wa,-defsym,img_width=56 -Wa,-defsym,img_height=56 "
              "-Wa,-defsym,input_channels=64 -Wa,-defsym,output_channels=64 -Wa,-defsym,weights_layout=0 "
              "-Wa,-defsym,reverse_weights=0 -Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,limit_wave_cnt=0 "
              "-Wa,-defsym,filters_per_wave=2 -Wa,-defsym,output_lines_per_wave=2 -Wa,-defsym,group_counts=1 "
              "-Wa,-defsym,k_group_size_is_power_of_two=1 -Wa,-defsym,workgroup_size_x=56 -mcpu=gfx906");
    // Backward data, 35 output channels (1 filter per wave, not a power of two), 130 wide:
    // 3 chunks of 44 lanes.
    k = keys("ConvAsm3x3U", "100-130-130-3x3-35-130-130-4-1x1-1x1-1x1-0-NCHW-FP32-B", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              "-Wa,-defsym,batch_size=4 -Wa,-defsym,img_width=130 -Wa,-defsym,img_height=130 "
              "-Wa,-defsym,input_channels=100 -Wa,-defsym,output_channels=35 -Wa,-defsym,weights_layout=1 "
              "-Wa,-defsym,reverse_weights=1 -Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,limit_wave_cnt=0 "
              "-Wa,-defsym,filters_per_wave=1 -Wa,-defsym,output_lines_per_wave=2 -Wa,-defsym,group_counts=1 "
              "-Wa,-defsym,k_group_size_is_power_of_two=0 -Wa,-defsym,workgroup_size_x=44 -mcpu=gfx900");
    // gfx8/gfx90x only, FP32 only, input channels per group a multiple of 4, pad 1.
    EXPECT_FALSE(applicable("ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx942_304"));
    EXPECT_FALSE(applicable("ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsm3x3U", "6-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsm3x3U", "64-56-56-3x3-64-54-54-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_TRUE(applicable("ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110"));
}

// With a MIOpen tree: kernels of this catalog's solvers (those the ResNet-50 build test does not
// reach) compile for gfx906, gfx90a and gfx1030 where the solver applies there.
TEST(SolverMIOpenTree, KernelsCompile) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    const Compiler compiler(test::toolchain(), nullptr);
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F"},
        {"GemmFwdRest", "256-7-7-3x3-256-7-7-8-1x1-1x1-1x1-0-NCHW-FP16-F"},
        {"GemmBwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-B"},
        {"GemmWrwUniversal", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W"},
        {"GemmWrw1x1_stride1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-W"},
        {"GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F"},
        {"GemmBwd1x1_stride2", "512-28-28-1x1-256-56-56-32-0x0-2x2-1x1-0-NCHW-FP16-B"},
        {"ConvWinograd3x3MultipassWrW<3-6>", "1-5-5-3x3-1-7-7-256-0x0-1x1-1x1-0-NCHW-FP32-W"},
        {"ConvWinograd3x3MultipassWrW<1-1-7-2>", "128-17-17-1x7-128-17-17-128-0x3-1x1-1x1-0-NCHW-FP16-W"},
        {"ConvWinograd3x3MultipassWrW<3-2>", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-W"},
        {"ConvAsmBwdWrW3x3", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W"},
        {"ConvAsm3x3U", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F"},
        {"ConvOclDirectFwdGen", "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-F"},
        {"ConvOclDirectFwd11x11", "3-227-227-11x11-96-55-55-32-0x0-4x4-1x1-0-NCHW-FP32-F"},
        {"ConvAsm1x1UV2", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F"},
        {"ConvAsm1x1UV2", "512-28-28-1x1-256-56-56-16-0x0-2x2-1x1-0-NCHW-FP32-B"},
        {"ConvOclBwdWrW53", "1-1-1-3x3-2-3-3-16-0x0-1x1-1x1-0-NCHW-FP32-W"},
        {"ConvOclBwdWrW2<2>", "1024-13-13-3x3-1024-28-28-2-0x0-2x2-1x1-0-NCHW-FP16-W_g32"},
        {"ConvOclBwdWrW1x1", "64-28-28-1x1-32-56-56-16-0x0-2x2-1x1-0-NCHW-FP32-W"},
        {"ConvAsmBwdWrW1x1", "512-28-28-1x1-256-56-56-32-0x0-2x2-1x1-0-NCHW-FP16-W"}};
    for (const char* spec : {"gfx906:sramecc+:xnack-_60", "gfx90a:sramecc+:xnack-_110", "gfx1030_36"}) {
        const Target target = parse_target(spec);
        for (const auto& [solver, key] : cases) {
            const auto problem = parse_conv_problem_key(key);
            const SolverContext ctx{target, tree.version(), data_type_options(ConvView{problem}), nullptr};
            const Solver* s = find_solver(solver);
            ASSERT_NE(s, nullptr) << solver;
            // GEMM and multipass kernels compile wherever kernels() gives them; the others where they apply.
            if (!s->applicable(ConvView{problem}, ctx, nullptr) && !std::string(solver).starts_with("Gemm") &&
                !std::string(solver).starts_with("ConvWinograd3x3Multipass"))
                continue;
            for (const auto& kernel : s->kernels(ConvView{problem}, ctx)) {
                const auto planned = miopen_kernel_build(kernel, target, tree);
                ASSERT_TRUE(planned) << kernel.file;
                const KernelBuild& build = *planned;
                const auto result = compiler.compile(build);
                EXPECT_TRUE(result.ok) << build.describe() << "\n" << result.log.substr(0, 3000);
            }
        }
    }
}

// ConvAsmBwdWrW3x3: src/solver/conv/conv_asm_dir_BwdWrW3x3.cpp:124-345 (IsValid, HeuristicInit),
// :364-485 (IsApplicable), :487-545 (options), MIOpen 3.3.0; the same in rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvAsmBwdWrW3x3) {
    // ResNet-50's 3x3 WrW (gfx906_60.HIP.fdb.txt): chunk 16 (4 channels per wave), C*K = 4096 ->
    // 2 filters per wave and 4 images per group; 48 VGPRs.
    auto k = keys("ConvAsmBwdWrW3x3", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv3x3wrw.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmConv3x3WrW"}));
    EXPECT_EQ(k[0].args,
              " -Wa,-defsym,elements_in_dword=1 -Wa,-defsym,batch_size=32 -Wa,-defsym,img_h=56 -Wa,-defsym,img_w=56 "
              "-Wa,-defsym,input_channels=64 -Wa,-defsym,output_channels=64 -Wa,-defsym,wei_h=3 -Wa,-defsym,wei_w=3 "
              "-Wa,-defsym,pad_h=1 -Wa,-defsym,pad_w=1 -Wa,-defsym,stride_h=1 -Wa,-defsym,stride_w=1 "
              "-Wa,-defsym,weights_layout=0 -Wa,-defsym,reverse_weights=0 -Wa,-defsym,ROCM_METADATA_VERSION=5 "
              "-Wa,-defsym,limit_wave_cnt=0 -Wa,-defsym,chunk_size=16 -Wa,-defsym,c_per_wave=4 "
              "-Wa,-defsym,k_per_wave=2 -Wa,-defsym,n_per_group=4 -Wa,-defsym,pipe_lines_depth=2 "
              "-Wa,-defsym,reverse_inout=0 -Wa,-defsym,enable_debug_output=0 -Wa,-defsym,group_counts=1 "
              "-Wa,-defsym,k_group_size_is_power_of_two=1 -mcpu=gfx906");
    // FP16, 3 input channels, 7x7 on gfx900: chunk 8, in/out reversed (C % 4 != 0), every row in
    // the pipeline (7), 2 images per group (the batch); dot2 emulated, 9088 instructions.
    k = keys("ConvAsmBwdWrW3x3", "8-7-7-3x3-3-7-7-2-1x1-1x1-1x1-0-NCHW-FP16-W", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              " -Wa,-defsym,elements_in_dword=2 -Wa,-defsym,batch_size=2 -Wa,-defsym,img_h=7 -Wa,-defsym,img_w=7 "
              "-Wa,-defsym,input_channels=3 -Wa,-defsym,output_channels=8 -Wa,-defsym,wei_h=3 -Wa,-defsym,wei_w=3 "
              "-Wa,-defsym,pad_h=1 -Wa,-defsym,pad_w=1 -Wa,-defsym,stride_h=1 -Wa,-defsym,stride_w=1 "
              "-Wa,-defsym,weights_layout=0 -Wa,-defsym,reverse_weights=0 -Wa,-defsym,ROCM_METADATA_VERSION=5 "
              "-Wa,-defsym,limit_wave_cnt=0 -Wa,-defsym,chunk_size=8 -Wa,-defsym,c_per_wave=8 "
              "-Wa,-defsym,k_per_wave=1 -Wa,-defsym,n_per_group=2 -Wa,-defsym,pipe_lines_depth=7 "
              "-Wa,-defsym,reverse_inout=1 -Wa,-defsym,enable_debug_output=0 -Wa,-defsym,group_counts=1 "
              "-Wa,-defsym,k_group_size_is_power_of_two=1 -mcpu=gfx900");
    // FP32 on gfx90a (WORKAROUND_SWDEV_330460), stride 2 on gfx9 (WORKAROUND_ISSUE_532), odd FP16 batch, gfx10.
    EXPECT_FALSE(applicable("ConvAsmBwdWrW3x3", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW3x3", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-W", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW3x3", "8-7-7-3x3-3-7-7-3-1x1-1x1-1x1-0-NCHW-FP16-W", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsmBwdWrW3x3", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    EXPECT_TRUE(applicable("ConvAsmBwdWrW3x3", "8-7-7-3x3-3-7-7-2-1x1-1x1-1x1-0-NCHW-FP16-W", "gfx900_56"));
}

// ConvWinograd3x3MultipassWrW: src/solver/conv/conv_multipass_wino3x3WrW.cpp:140-348 (the three
// transforms' options), :733-749, src/include/miopen/conv/solvers.hpp:2122-2155 (names, transform
// sizes), MIOpen 3.3.0; the same in rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvWinograd3x3MultipassWrW) {
    const auto d = [](const char* name, long v) { return fmt::format(" -Wa,-defsym,{}={}", name, v); };
    // <3-6> from gfx906_60.HIP.fdb.txt, FP32 stride 1: 3 + 5 = 8-point transforms.
    auto k = keys("ConvWinograd3x3MultipassWrW<3-6>", "1-5-5-3x3-1-7-7-256-0x0-1x1-1x1-0-NCHW-FP32-W", "gfx906_60");
    ASSERT_EQ(k.size(), 3u);
    std::string head = d("acc_type", 1) + d("buf_type", 1) + d("ROCM_METADATA_VERSION", 5);
    std::string sizes = d("xformx_o_size", 3) + d("xformy_o_size", 3) + d("xformx_d_size", 8) +
                        d("xformy_d_size", 8) + d("xformx_f_size", 6) + d("xformy_f_size", 6) + d("fdilation_w", 1) +
                        d("fdilation_h", 1);
    const std::string rne = d("MIOPEN_USE_RNE_BFLOAT16", 1);
    EXPECT_EQ(k[0].name, "xform_data.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmWinogradXformData_3_3_6_6"}));
    EXPECT_EQ(k[0].args, head + sizes + rne + " -mcpu=gfx906");
    EXPECT_EQ(k[1].name, "xform_filter.s.o");
    EXPECT_EQ(k[1].symbols, (std::vector<std::string>{"miopenGcnAsmWinogradXformFilter_3_3_6_6"}));
    EXPECT_EQ(k[1].args, head + rne + sizes + " -mcpu=gfx906");
    EXPECT_EQ(k[2].name, "xform_out.s.o");
    EXPECT_EQ(k[2].symbols, (std::vector<std::string>{"miopenGcnAsmWinogradXformOut_3_3_6_6"}));
    EXPECT_EQ(k[2].args, head + rne + sizes + " -mcpu=gfx906");
    // <1-1-7-2> (gfx900_56.HIP.fdb.txt), FP16: a 7-wide data tile always steps 2 -> 9-point rows.
    k = keys("ConvWinograd3x3MultipassWrW<1-1-7-2>", "128-17-17-1x7-128-17-17-128-0x3-1x1-1x1-0-NCHW-FP16-W",
             "gfx900_56");
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmWinogradXformData_1_7_1_2"}));
    EXPECT_EQ(k[0].args, d("acc_type", 1) + d("buf_type", 2) + d("ROCM_METADATA_VERSION", 5) + d("xformx_o_size", 7) +
                             d("xformy_o_size", 1) + d("xformx_d_size", 9) + d("xformy_d_size", 1) +
                             d("xformx_f_size", 2) + d("xformy_f_size", 1) + d("fdilation_w", 1) +
                             d("fdilation_h", 1) + rne + " -mcpu=gfx900");
    // <3-2> (gfx90a6e.HIP.fdb.txt), BF16 stride 2: 3 + 1 * 2 = 5.
    k = keys("ConvWinograd3x3MultipassWrW<3-2>", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-W", "gfx90a_110");
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[2].args, d("acc_type", 1) + d("buf_type", 3) + d("ROCM_METADATA_VERSION", 5) + rne +
                             d("xformx_o_size", 3) + d("xformy_o_size", 3) + d("xformx_d_size", 5) +
                             d("xformy_d_size", 5) + d("xformx_f_size", 2) + d("xformy_f_size", 2) +
                             d("fdilation_w", 2) + d("fdilation_h", 2) + " -mcpu=gfx90a");
    // IsApplicable (:376-556): FP32 and BF16 apply on gfx90a; FP16 needs the FP16-alt GEMM there (:492-493).
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-2>", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-FP32-W", "gfx90a_110"));
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-2>", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-W", "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-2>", "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-FP16-W", "gfx90a_110"));
}

// Every other ConvWinograd3x3MultipassWrW<DataH-FilterH[-DataW-FilterW]> instance, FP32 on gfx906_60.
// Hand-worked from MIOpen 3.3.0 (same in rocm-6.2.0): the symbol suffix _DataH_DataW_FilterH_FilterW
// (solvers.hpp:2128-2137); d_size = Data + (Filter - 1) * (Data == 7 ? 2 : stride) (solvers.hpp:2141-2153);
// the defsym order of the data transform (conv_multipass_wino3x3WrW.cpp:141-157) and of the filter and
// output transforms (:252-264, :327-339); weights must be DataH x DataW, stride 1 except 3x3 at stride 2,
// and <3-3> needs stride 2 (:386-398, :535-540).
TEST(SolverGoldenKeys, ConvWinograd3x3MultipassWrWEveryInstance) {
    const auto d = [](const char* name, long v) { return fmt::format(" -Wa,-defsym,{}={}", name, v); };
    struct Case {
        const char* solver;
        const char* problem;
        const char* suffix;
        long o_x, o_y, d_x, d_y, f_x, f_y, stride;
    };
    const Case cases[] = {
        {"ConvWinograd3x3MultipassWrW<3-3>", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-W", "_3_3_3_3", 3, 3, 7, 7, 3, 3, 2},
        {"ConvWinograd3x3MultipassWrW<3-4>", "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W", "_3_3_4_4", 3, 3, 6, 6, 4, 4, 1},
        {"ConvWinograd3x3MultipassWrW<3-5>", "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W", "_3_3_5_5", 3, 3, 7, 7, 5, 5, 1},
        {"ConvWinograd3x3MultipassWrW<5-3>", "64-28-28-5x5-64-28-28-32-2x2-1x1-1x1-0-NCHW-FP32-W", "_5_5_3_3", 5, 5, 7, 7, 3, 3, 1},
        {"ConvWinograd3x3MultipassWrW<5-4>", "64-28-28-5x5-64-28-28-32-2x2-1x1-1x1-0-NCHW-FP32-W", "_5_5_4_4", 5, 5, 8, 8, 4, 4, 1},
        {"ConvWinograd3x3MultipassWrW<7-2>", "64-28-28-7x7-64-28-28-32-3x3-1x1-1x1-0-NCHW-FP32-W", "_7_7_2_2", 7, 7, 9, 9, 2, 2, 1},
        {"ConvWinograd3x3MultipassWrW<7-3>", "64-28-28-7x7-64-28-28-32-3x3-1x1-1x1-0-NCHW-FP32-W", "_7_7_3_3", 7, 7, 11, 11, 3, 3, 1},
        {"ConvWinograd3x3MultipassWrW<7-2-1-1>", "64-28-28-7x1-64-28-28-32-3x0-1x1-1x1-0-NCHW-FP32-W", "_7_1_2_1", 1, 7, 1, 9, 1, 2, 1},
        {"ConvWinograd3x3MultipassWrW<7-3-1-1>", "64-28-28-7x1-64-28-28-32-3x0-1x1-1x1-0-NCHW-FP32-W", "_7_1_3_1", 1, 7, 1, 11, 1, 3, 1},
        {"ConvWinograd3x3MultipassWrW<1-1-7-3>", "64-28-28-1x7-64-28-28-32-0x3-1x1-1x1-0-NCHW-FP32-W", "_1_7_1_3", 7, 1, 11, 1, 3, 1, 1},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.solver);
        const auto k = keys(c.solver, c.problem, "gfx906_60");
        ASSERT_EQ(k.size(), 3u);
        const std::string head = d("acc_type", 1) + d("buf_type", 1) + d("ROCM_METADATA_VERSION", 5);
        const std::string sizes = d("xformx_o_size", c.o_x) + d("xformy_o_size", c.o_y) + d("xformx_d_size", c.d_x) +
                                  d("xformy_d_size", c.d_y) + d("xformx_f_size", c.f_x) + d("xformy_f_size", c.f_y) +
                                  d("fdilation_w", c.stride) + d("fdilation_h", c.stride);
        const std::string rne = d("MIOPEN_USE_RNE_BFLOAT16", 1);
        EXPECT_EQ(k[0].name, "xform_data.s.o");
        EXPECT_EQ(k[0].symbols, (std::vector<std::string>{std::string("miopenGcnAsmWinogradXformData") + c.suffix}));
        EXPECT_EQ(k[0].args, head + sizes + rne + " -mcpu=gfx906");
        EXPECT_EQ(k[1].name, "xform_filter.s.o");
        EXPECT_EQ(k[1].symbols, (std::vector<std::string>{std::string("miopenGcnAsmWinogradXformFilter") + c.suffix}));
        EXPECT_EQ(k[1].args, head + rne + sizes + " -mcpu=gfx906");
        EXPECT_EQ(k[2].name, "xform_out.s.o");
        EXPECT_EQ(k[2].symbols, (std::vector<std::string>{std::string("miopenGcnAsmWinogradXformOut") + c.suffix}));
        EXPECT_EQ(k[2].args, head + rne + sizes + " -mcpu=gfx906");
    }
    // IsApplicable is ported (dynamic_find_test.cpp checks its rules): <3-4> applies to this problem
    // on gfx906_60; the transforms are GCN assembly for gfx8/gfx9 other than gfx94x (:490-491).
    const char* problem = "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W";
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-4>", problem, "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", problem, "gfx1030_36"));
    EXPECT_TRUE(keys("ConvWinograd3x3MultipassWrW<3-4>", problem, "gfx1030_36").empty());
    EXPECT_TRUE(keys("ConvWinograd3x3MultipassWrW<3-4>", problem, "gfx942_304").empty());
    EXPECT_EQ(keys("ConvWinograd3x3MultipassWrW<3-4>", problem, "gfx900_56").size(), 3u);
}

// ConvOclDirectFwd11x11: src/solver/conv/conv_ocl_dir2D11x11.cpp:41-325 (MIOpen 3.3.0, same in
// rocm-6.2.0). Note the two spaces after -cl-denorms-are-zero (:282). Worked by hand.
TEST(SolverGoldenKeys, ConvOclDirectFwd11x11) {
    const auto head = [](long c, long in, long k, long out, long n) {
        return fmt::format(
            " -DMLO_DIR_FORWARD=1 -DMLO_GRP_SZ=256 -DMLO_GRP_SZ0=256 -DMLO_GRP_SZ1=1 -DMLO_GRP_SZ2=1 "
            "-DMLO_FILTER_SIZE0=11 -DMLO_FILTER_SIZE1=11 -DMLO_FILTER_PAD0=0 -DMLO_FILTER_PAD1=0 "
            "-DMLO_FILTER_STRIDE0=4 -DMLO_FILTER_STRIDE1=4 -DSTRIDE_W=4 -DSTRIDE_H=4 -DMLO_N_OUTPUTS={} "
            "-DMLO_N_INPUTS={} -DMLO_BATCH_SZ={} -DMLO_N_BATCH_LOOPS=1 -DMLO_OUT_BATCH_STRIDE={} "
            "-DMLO_OUT_CHANNEL_STRIDE={} -DMLO_OUT_STRIDE={} -DMLO_IN_BATCH_STRIDE={} -DMLO_IN_CHANNEL_STRIDE={} "
            "-DMLO_IN_STRIDE={} -DMLO_WEI_BATCH_STRIDE={} -DMLO_WEI_CHANNEL_STRIDE=121 -DMLO_IN_WIDTH={} "
            "-DMLO_IN_HEIGHT={} -DMLO_OUT_WIDTH={} -DMLO_OUT_HEIGHT={} -DMLO_IN_TILE1=1 -DMLO_IN_TILE0=1 "
            "-DMLO_N_LCL_BATCHS=1 -DMLO_N_LCL_OUT_MAPS=6 -DMLO_N_LCL_IN_MAPS=1 -DMLO_IN_PIX_TILE1=1 "
            "-DMLO_IN_PIX_TILE0=1 -DMLO_OUT_PIX_TILE1=1 -DMLO_OUT_PIX_TILE0=3 -DMLO_OUT_STACKS=1 -DMLO_IN_STACKS=1 "
            "-DMLO_N_WAVES=4 -DMLO_N_FILTER_SPLITS0=3 -DMLO_N_FILTER_SPLITS1=3 ",
            k, c, n, k * out * out, out * out, out, c * in * in, in * in, in, c * 121, in, in, out, out);
    };
    const std::string tail =
        "-DMLO_TILE_REPLICATE0=2 -DMLO_TILE_REPLICATE1=1 -DMLO_LCL_BWD_MEM_SZ=726 ";
    // AlexNet conv1 (gfx1030_36.HIP.fdb.txt): 19-wide processing, 13-row extents, 3 rows left ->
    // second pass with 4 images per group.
    auto k = keys("ConvOclDirectFwd11x11", "3-227-227-11x11-96-55-55-32-0x0-4x4-1x1-0-NCHW-FP32-F", "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenConvFwd_LxL_11.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenCvFwd11x11", "MIOpenCvFwd11x11_2"}));
    EXPECT_EQ(k[0].args, head(3, 227, 96, 55, 32) +
                             "-DMLO_PROCESSING_WIDTH=19 -DMLO_OUT_EXTENT1=13 -DMLO_LAST_OUT_EXTENT1=3 "
                             "-DMLO_N_LCL_BATCHS_PASS2=4 " +
                             tail +
                             "-DMLO_N_IN_BWD_HORIZ_READS=16 -DMLO_N_IN_BWD_VERT_READS=6 -DMLO_READ_TYPE=_FLOAT10 "
                             "-DMLO_READ_UNIT=10 -DMLO_HW_WAVE_SZ=64 -DMLO_LG2_WAVE_SZ=6 -DMLO_N_WAVES_MASK=3 "
                             "-DMLO_CONV_BIAS=0 -cl-denorms-are-zero  " +
                             kFp32Block + " -mcpu=gfx1030");
    // 32x32 output, FP16 on gfx906: 11-wide, 23-row extents, 9 rows left -> second pass, 2 per group.
    k = keys("ConvOclDirectFwd11x11", "3-135-135-11x11-64-32-32-1-0x0-4x4-1x1-0-NCHW-FP16-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args, head(3, 135, 64, 32, 1) +
                             "-DMLO_PROCESSING_WIDTH=11 -DMLO_OUT_EXTENT1=23 -DMLO_LAST_OUT_EXTENT1=9 "
                             "-DMLO_N_LCL_BATCHS_PASS2=2 " +
                             tail +
                             "-DMLO_N_IN_BWD_HORIZ_READS=10 -DMLO_N_IN_BWD_VERT_READS=9 -DMLO_READ_TYPE=_FLOAT10 "
                             "-DMLO_READ_UNIT=10 -DMLO_HW_WAVE_SZ=64 -DMLO_LG2_WAVE_SZ=6 -DMLO_N_WAVES_MASK=3 "
                             "-DMLO_CONV_BIAS=0 -cl-denorms-are-zero  " +
                             kFp16Block + " -mcpu=gfx906");
    EXPECT_FALSE(applicable("ConvOclDirectFwd11x11", "3-227-227-11x11-96-55-55-32-0x0-4x4-1x1-0-NCHW-FP32-B", "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvOclDirectFwd11x11", "3-227-227-11x11-96-55-55-32-0x0-4x4-1x1-0-NCHW-FP32-F", "gfx942_304"));
}

// ConvAsm1x1UV2: src/solver/conv/conv_asm_1x1u_stride2.cpp:95-175 (config_helper, buff_info),
// :330-445 (IsValid, HeuristicInit), :460-742 (IsApplicable, options), MIOpen 3.3.0; the same in
// rocm-6.2.0. Worked by hand.
TEST(SolverGoldenKeys, ConvAsm1x1UV2) {
    const auto d = [](const char* name, long long v) { return fmt::format(" -Wa,-defsym,{}={}", name, v); };
    const auto tuning = d("ROCM_METADATA_VERSION", 5) + d("chunk_size", 16) + d("dwords_per_ld", 1) + d("k_mult", 8) +
                        d("c_mult", 2) + d("n_mult", 1) + d("w_mult", 1) + d("h_mult", 1) + d("h_per_chunk", 4) +
                        d("waves_k_in_group", 1) + d("waves_c_in_group", 1);
    // ResNet-50's stride-2 projection forward: C 256 -> c_mult 2, k_mult 8 (k_check is 0 forward, :407-412).
    auto k = keys("ConvAsm1x1UV2", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "conv1x1u_stride2.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmConv1x1U_stride2"}));
    EXPECT_EQ(k[0].args,
              d("stride_h", 2) + d("stride_w", 2) + d("idilation_h", 1) + d("idilation_w", 1) + d("img_h", 56) +
                  d("img_w", 56) + d("out_h", 28) + d("out_w", 28) + d("batch_size", 32) + d("input_channels", 256) +
                  d("output_channels", 512) + d("wei_h", 1) + d("wei_w", 1) + d("pad_h", 0) + d("pad_w", 0) +
                  d("weights_layout", 0) + d("vec_c_in", 1) + d("vec_k_out", 1) + d("vec_c_filter", 1) +
                  d("acc_type", 1) + d("buf_type", 1) + d("input_n_stride", 3211264) + d("input_c_stride", 12544) +
                  d("input_h_stride", 224) + d("input_w_stride", 4) + d("output_n_stride", 1605632) +
                  d("output_k_stride", 3136) + d("output_h_stride", 112) + d("output_w_stride", 4) +
                  d("filter_k_stride", 1024) + d("filter_c_stride", 4) + d("filter_h_stride", 4) +
                  d("filter_w_stride", 4) + d("input_buffer_size", 102760448) + d("filter_buffer_size", 524288) +
                  d("output_buffer_size", 51380224) + tuning + " -mcpu=gfx906");
    // Backward data on gfx900: stride 1 with input dilation 2, CNHW filter strides, weights_layout 1.
    k = keys("ConvAsm1x1UV2", "512-28-28-1x1-256-56-56-16-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx900_56");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              d("stride_h", 1) + d("stride_w", 1) + d("idilation_h", 2) + d("idilation_w", 2) + d("img_h", 28) +
                  d("img_w", 28) + d("out_h", 56) + d("out_w", 56) + d("batch_size", 16) + d("input_channels", 512) +
                  d("output_channels", 256) + d("wei_h", 1) + d("wei_w", 1) + d("pad_h", 0) + d("pad_w", 0) +
                  d("weights_layout", 1) + d("vec_c_in", 1) + d("vec_k_out", 1) + d("vec_c_filter", 1) +
                  d("acc_type", 1) + d("buf_type", 1) + d("input_n_stride", 1605632) + d("input_c_stride", 3136) +
                  d("input_h_stride", 112) + d("input_w_stride", 4) + d("output_n_stride", 3211264) +
                  d("output_k_stride", 12544) + d("output_h_stride", 224) + d("output_w_stride", 4) +
                  d("filter_k_stride", 4) + d("filter_c_stride", 1024) + d("filter_h_stride", 4) +
                  d("filter_w_stride", 4) + d("input_buffer_size", 25690112) + d("filter_buffer_size", 524288) +
                  d("output_buffer_size", 51380224) + tuning + " -mcpu=gfx900");
    // Stride 1 is ConvAsm1x1U's; FP16 and gfx10 are not supported.
    EXPECT_FALSE(applicable("ConvAsm1x1UV2", "256-56-56-1x1-512-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsm1x1UV2", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP16-F", "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsm1x1UV2", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    EXPECT_TRUE(applicable("ConvAsm1x1UV2", "256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx90a_110"));
}
