// Golden kdb keys and applicability of ConvWinoFuryRxS<2-3>, written by hand from MIOpen 3.3.0's
// source (develop 2d1fd997), never by the code under test:
//   src/solver/conv/conv_wino_fury_RxS.cpp  :72-79 GetNGroups, :81-100 IsShaderConstraintsMetV2,
//     :107-112 GpuHasReducedVGPRMem, :114-214 ShaderModel, :229-271 IsApplicable, :296-428 GetSolution
//   src/conv/kernel_interface/winograd_kernel_interface.cpp:64-154  SetConvParams
//   src/include/miopen/handle.hpp:160-165  GetMaxHardwareComputeUnits (2 x the WGPs on gfx1*)
// A key is {kernel file + ".o", comp_options + " -mcpu=<gfx>"} (src/hip/handlehip.cpp:545-560).
// Problem keys: C-H-W-RxS-K-oH-oW-N-pad-stride-dilation-bias-layout-type-direction, where "in" is
// dy and "out" is x outside forward (src/include/miopen/conv/problem_description.hpp:117-119).
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace kdbgen;

namespace {

constexpr const char* kFury = "ConvWinoFuryRxS<2-3>";

// GetSolution :379-383: KernelBuildParameters{{"ROCM_METADATA_VERSION", 5}}.GenerateFor(kbp::GcnAsm{})
// ("-Wa,-defsym,", src/kernel_build_params.cpp:74-77) then " -mcumode -mwavefrontsize64".
const std::string kFuryOptions = "-Wa,-defsym,ROCM_METADATA_VERSION=5 -mcumode -mwavefrontsize64";

struct Key {
    std::string name, args;
    std::vector<std::string> symbols;
};

std::vector<Key> keys(const std::string& problem_key, const std::string& target_spec) {
    const Solver* solver = find_solver(kFury);
    EXPECT_NE(solver, nullptr);
    if (!solver) return {};
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, {3, 3, 0}, data_type_options(view), nullptr};
    std::vector<Key> out;
    for (const auto& k : solver->kernels(view, ctx))
        out.push_back({k.file + ".o", k.options + target.mcpu_suffix(), k.symbols});
    return out;
}

bool applicable(const std::string& problem_key, const std::string& target_spec) {
    const auto problem = parse_conv_problem_key(problem_key);
    const SolverContext ctx{parse_target(target_spec), {3, 3, 0}, "", nullptr};
    return find_solver(kFury)->applicable(ConvView{problem}, ctx, nullptr);
}

// The one kernel GetSolution names (:340-371): file Conv_Winograd_Fury_v2_4_1 + postfix + ".s",
// symbol miopenSp3AsmConvFury_v2_4_1_gfx11_<1536|1024>vgprs + postfix, postfix
// "_fp16_fp16acc_f2x3_<c16|c32>_stride1".
Key fury_key(const std::string& c_mode, const std::string& vgprs, const std::string& mcpu) {
    return {"Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_" + c_mode + "_stride1.s.o", kFuryOptions + " -mcpu=" + mcpu,
            {"miopenSp3AsmConvFury_v2_4_1_gfx11_" + vgprs + "_fp16_fp16acc_f2x3_" + c_mode + "_stride1"}};
}

void expect_key(const std::string& problem_key, const std::string& target_spec, const Key& expected) {
    SCOPED_TRACE(problem_key + " on " + target_spec);
    const auto k = keys(problem_key, target_spec);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, expected.name);
    EXPECT_EQ(k[0].args, expected.args);
    EXPECT_EQ(k[0].symbols, expected.symbols);
}

}  // namespace

// SolverDbId = GetSolverDbId<ConvWinoFuryRxS<2, 3>>() (src/include/miopen/conv/solvers.hpp:2259-2262):
// ComputeSolverDbId (src/include/miopen/solver.hpp:102-110) takes get_type_name's
// "miopen::solver::conv::ConvWinoFuryRxS<2, 3>" after its last ':', ',' -> '-', spaces dropped.
// IsDynamic true (solvers.hpp:2266); Winograd finder (src/solver.cpp:619-620, src/mlo_dir_conv.cpp:143,
// :185); the CU count enters both the K limit and the C16/C32 model.
TEST(WinoFury, NameAndKind) {
    const Solver* s = find_solver("ConvWinoFuryRxS<2-3>");
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->dynamic());
    EXPECT_TRUE(s->winograd());
    EXPECT_TRUE(s->uses_compute_units());
    EXPECT_TRUE(s->builds_kernels());
    EXPECT_TRUE(s->applicability_modelled());
    EXPECT_FALSE(s->uses_general_options());
    // MIOPEN_DEBUG_AMD_WINOGRAD_FURY_RXS_F2X3 is read with env::disabled (:235): on by default.
    const auto problem = parse_conv_problem_key("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F");
    const SolverContext ctx{parse_target("gfx1100_48"), {3, 3, 0}, "", nullptr};
    EXPECT_FALSE(s->disabled_by_default(ConvView{problem}, ctx).has_value());
}

// IsApplicable (:229-271) on gfx1100 with 48 WGPs: 96 hardware CUs, n_groups min(96, 255) = 96.
TEST(WinoFury, Applicability) {
    // Forward 3x3 pad 1 stride 1, FP16: N 32, C 64, K 64, 56x56; ceil(64/16) = 4 <= 96.
    const std::string fwd = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F";
    EXPECT_TRUE(applicable(fwd, "gfx1100_48"));
    // Backward data (dy 64 x 14x14, dx 32 x 14x14, N 4): SetConvParams (:82-102) takes C 64 (dy),
    // K 32 (dx), R = S = 3, backward pads 3 - 1 - 1 = 1 (:132-138).
    EXPECT_TRUE(applicable("64-14-14-3x3-32-14-14-4-1x1-1x1-1x1-0-NCHW-FP16-B", "gfx1100_48"));
    // Backward weights, MIOpen's own WrW case (test/gtest/unit_conv_solver_ConvWinoFuryRxS.cpp:49):
    // x 1x16x5x5, w 16x16x3x3, pad 0, so dy 16 x 3x3. SetConvParams for WrW (:103-123): N 16 (x's
    // channels), C 1 (the batch), H = W = 5, K 16 (dy's channels), R = S = 3 (dy's size),
    // out 3x3 (the weights).
    EXPECT_TRUE(applicable("16-3-3-3x3-16-5-5-1-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx1100_48"));
    // ... so a WrW whose dy is larger than 3x3 has R, S > 3 (IsShaderConstraintsMetV2 :93-94).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W", "gfx1100_48"));
    // All gfx11 (:253-256): gfx1101, gfx1102, gfx1103, gfx1150, gfx1151 too.
    for (const char* card : {"gfx1101_30", "gfx1102_16", "gfx1103_6", "gfx1150_8", "gfx1151_20"})
        EXPECT_TRUE(applicable(fwd, card)) << card;

    // FP16 only (:248-249).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx1100_48"));
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-BF16-F", "gfx1100_48"));
    // Not gfx10, not gfx12 (:253-256).
    EXPECT_FALSE(applicable(fwd, "gfx1030_36"));
    EXPECT_FALSE(applicable(fwd, "gfx1201_32"));
    EXPECT_FALSE(applicable(fwd, "gfx90a_110"));
    // Stride 1 (:258-259), dilation 1 (:260-261).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-28-28-32-1x1-2x2-1x1-0-NCHW-FP16-F", "gfx1100_48"));
    EXPECT_FALSE(applicable("64-56-56-3x3-64-52-52-32-1x1-1x1-2x2-0-NCHW-FP16-F", "gfx1100_48"));
    // One group (:98).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F_g2", "gfx1100_48"));
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F_g64", "gfx1100_48"));
    // No bias (winograd_kernel_interface.cpp:68-69); 2-D only (:66-67).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-1-NCHW-FP16-F", "gfx1100_48"));
    EXPECT_FALSE(applicable("16-8-28-28-3x3x3-16-8-28-28-4-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16-F", "gfx1100_48"));
    // R, S <= 3 (:93-94): 5x5 forward weights are out; 1x1 and 1x3 are in.
    EXPECT_FALSE(applicable("64-56-56-5x5-64-56-56-32-2x2-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48"));
    EXPECT_TRUE(applicable("64-28-28-1x1-128-28-28-8-0x0-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48"));
    EXPECT_TRUE(applicable("64-28-28-1x3-128-28-28-8-0x1-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48"));
    // W innermost in x, w and y (winograd_kernel_interface.cpp:70-74): NHWC puts the channels
    // there, so it is out unless every tensor has one channel (then its W stride is 1).
    EXPECT_FALSE(applicable("64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F", "gfx1100_48"));
    EXPECT_TRUE(applicable("1-56-56-3x3-1-56-56-32-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F", "gfx1100_48"));
    // ceil(K/16) <= n_groups (:97): gfx1103 with 6 WGPs has 12 hardware CUs, so K <= 192 there.
    EXPECT_TRUE(applicable("64-28-28-3x3-192-28-28-8-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1103_6"));
    EXPECT_FALSE(applicable("64-28-28-3x3-208-28-28-8-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1103_6"));
    EXPECT_TRUE(applicable("64-28-28-3x3-208-28-28-8-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48"));
    // N, C, H, W < 2^16 (:85-88).
    EXPECT_FALSE(applicable("8-65536-4-3x3-16-65536-4-1-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48"));
}

// ShaderModel::PerfPrediction (:157-213), worked by hand. With Rg = Sg = 3, t_oH = t_oW = 2,
// nhw_factor 62, k_factor 16: Cg = C rounded up to 16 or 32, c_loops = Cg / (16|32),
// k_ways = ceil(K/16), oHg = oH rounded up to 2, oWg = oW rounded up to 2, plus 2,
// nhw_tiles = N * oHg/2 * oWg/2, n_groups_e = k_ways * (n_groups / k_ways),
// n_works = k_ways * ceil(nhw_tiles / 62), per CU ceil(n_works / n_groups_e) * ceil(n_groups_e / CUs),
// filter reloads 1 if c_loops is 1 else ceil(per CU / 10) (full VGPR file),
// clk = start * (2600|1450) + per CU * (c_loops - 1) * (2938|1645) + per CU * (2989|1696)
//       + reloads * c_loops * (2600|1450), start 4 (C32) or 6 (C16). C32 wins ties (:153).
TEST(WinoFury, C16OrC32ByTheCUCount) {
    // N 32, C 64, K 128, 7x7, 3x3 pad 1: k_ways 8, oHg 8, oWg 10, nhw_tiles 32*4*5 = 640,
    // n_works 8 * ceil(640/62) = 88.
    const std::string key = "64-7-7-3x3-128-7-7-32-1x1-1x1-1x1-0-NCHW-FP16-F";
    // gfx1100_48: 96 CUs, n_groups 96, n_groups_e 8*12 = 96, per CU ceil(88/96) * 1 = 1, reloads 1.
    //   C32: c_loops 2: 4*2600 + 1*2938 + 1*2989 + 2*2600 = 21527.
    //   C16: c_loops 4: 6*1450 + 3*1645 + 1*1696 + 4*1450 = 21131  -> C16.
    expect_key(key, "gfx1100_48", fury_key("c16", "1536vgprs", "gfx1100"));
    // gfx1100_42: 84 CUs, n_groups 84, n_groups_e 8*10 = 80, per CU ceil(88/80) * ceil(80/84) = 2.
    //   C32: 4*2600 + 2*2938 + 2*2989 + 2*2600 = 27454.
    //   C16: 6*1450 + 6*1645 + 2*1696 + 4*1450 = 27762  -> C32.
    expect_key(key, "gfx1100_42", fury_key("c32", "1536vgprs", "gfx1100"));
}

// MIOpen's own labels (test/gtest/unit_conv_solver_ConvWinoFuryRxS.cpp:37-38 forward and backward,
// :49-50 WrW: "c16 kernel" / "c32 kernel"), on gfx1100 with 48 WGPs (96 CUs, n_groups 96).
TEST(WinoFury, MIOpensOwnCases) {
    // x 1x16x16x16, w 16x16x3x3, pad 1: N 1, C = K = 16, 16x16: k_ways 1, oWg 18, nhw_tiles 8*9 = 72,
    // n_works 2, per CU 1, c_loops 1 either way: C16 6*1450 + 1696 + 1450 = 11846,
    // C32 4*2600 + 2989 + 2600 = 15989 -> C16.
    expect_key("16-16-16-3x3-16-16-16-1-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48",
               fury_key("c16", "1536vgprs", "gfx1100"));
    expect_key("16-16-16-3x3-16-16-16-1-1x1-1x1-1x1-0-NCHW-FP16-B", "gfx1100_48",
               fury_key("c16", "1536vgprs", "gfx1100"));
    // C = K = 128: k_ways 8, n_works 8 * ceil(72/62) = 16, per CU 1, reloads 1.
    // C32: c_loops 4: 4*2600 + 3*2938 + 2989 + 4*2600 = 32603; C16: c_loops 8: 6*1450 + 7*1645 +
    // 1696 + 8*1450 = 33511 -> C32.
    expect_key("128-16-16-3x3-128-16-16-1-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1100_48",
               fury_key("c32", "1536vgprs", "gfx1100"));
    expect_key("128-16-16-3x3-128-16-16-1-1x1-1x1-1x1-0-NCHW-FP16-B", "gfx1100_48",
               fury_key("c32", "1536vgprs", "gfx1100"));
    // WrW x 1x16x5x5, w 16x16x3x3, pad 0 (dy 3x3): N 16, C 1, K 16, R = S = 3, out 3x3: oHg 4,
    // oWg 6, nhw_tiles 16*2*3 = 96, n_works 2, per CU 1, c_loops 1: 11846 vs 15989 -> C16.
    expect_key("16-3-3-3x3-16-5-5-1-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx1100_48", fury_key("c16", "1536vgprs", "gfx1100"));
    // WrW x 64x128x7x7, w 64x128x7x7, pad 0 (dy 64 x 1x1): N 128 (x's channels), C 64 (the
    // batch), K 64 (dy's channels), R = S = 1, out 7x7: k_ways 4, oHg 8, oWg 10, nhw_tiles
    // 128*4*5 = 2560, n_works 4 * ceil(2560/62) = 168, n_groups_e 96, per CU 2, reloads 1.
    // C32: c_loops 2: 4*2600 + 2*2938 + 2*2989 + 2*2600 = 27454; C16: c_loops 4: 6*1450 +
    // 6*1645 + 2*1696 + 4*1450 = 27762 -> C32.
    expect_key("64-1-1-7x7-128-7-7-64-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx1100_48", fury_key("c32", "1536vgprs", "gfx1100"));
}

// GpuHasReducedVGPRMem (:107-112): all gfx11 but gfx1100, gfx1101 and gfx1151 have the smaller
// VGPR file, so GetSolution takes C16 without asking the model (:324-325) and names the
// 1024-VGPR kernel (:345-349). The kernel files pick the same body by the gfx11 stepping
// (src/kernels/winograd/Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c16_stride1.s).
TEST(WinoFury, ReducedVGPRPartsTakeC16) {
    // N 8, C 64, K 128, 1x1, 28x28: k_ways 8, oHg 28, oWg 30, nhw_tiles 8*14*15 = 1680,
    // n_works 8 * ceil(1680/62) = 224.
    const std::string key = "64-28-28-1x1-128-28-28-8-0x0-1x1-1x1-0-NCHW-FP16-F";
    // gfx1101_30: 60 CUs, n_groups_e 8*7 = 56, per CU ceil(224/56) * ceil(56/60) = 4, reloads 1.
    // C32: 4*2600 + 4*2938 + 4*2989 + 2*2600 = 39308; C16: 6*1450 + 12*1645 + 4*1696 + 4*1450 =
    // 41024 -> C32.
    expect_key(key, "gfx1101_30", fury_key("c32", "1536vgprs", "gfx1101"));
    // gfx1100_48: per CU ceil(224/96) = 3: C32 33381 <= C16 34393 -> C32.
    expect_key(key, "gfx1100_48", fury_key("c32", "1536vgprs", "gfx1100"));
    // gfx1102 and gfx1103, gfx1150: C16, 1024 VGPRs.
    expect_key(key, "gfx1102_16", fury_key("c16", "1024vgprs", "gfx1102"));
    expect_key(key, "gfx1103_6", fury_key("c16", "1024vgprs", "gfx1103"));
    expect_key(key, "gfx1150_8", fury_key("c16", "1024vgprs", "gfx1150"));
}

// The files GetSolution names are in MIOpen's tree (src/kernels/winograd/, listed in
// src/CMakeLists.txt:635-636), found by their file name as MIOpen's embedded kernels are.
TEST(WinoFuryWithTree, KernelFilesExistInTheTree) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    for (const char* file : {"Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c16_stride1.s",
                             "Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c32_stride1.s"})
        EXPECT_TRUE(tree.kernel_source(file)) << file;
}
