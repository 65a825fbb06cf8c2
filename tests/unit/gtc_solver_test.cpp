// The assembly implicit-GEMM GTC family: golden kdb keys written by hand from
// MIOpen 3.3.0's source (develop 2d1fd997; the same in rocm-6.2.0), the table
// reader's errors, and the planned kernels compiling for gfx908, gfx90a and
// gfx942. A key is {kernel file + ".o", comp_options + " -mcpu=<gfx>"}
// (src/hip/handlehip.cpp:536-560). Tests that read the tables need a MIOpen tree
// (KDBGEN_MIOPEN_SRC) and skip without one.
//
// Where a golden key follows a table search, the row it lands on is named by
// file:line; the NCHW first-fit searches, the WrW NCHW block-size search and
// the batched-transpose heuristic were also replayed by a separate throwaway
// port written from MIOpen's text, which agreed.
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

using namespace kdbgen;

namespace {

const std::string kFp32Set =
    "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 "
    "-DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 "
    "-DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 -DMIOPEN_FP8_CLIPPING=1";
const std::string kFp16Set =
    "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 "
    "-DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 "
    "-DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 -DMIOPEN_FP8_CLIPPING=1";
// GenerateClangDefsym (src/ocl/gcn_asm_utils.cpp:305-310) of ROCM_METADATA_VERSION 5; on gfx942
// force_sc0_sc1 0 and atomic_add_using_cas 0 follow (e.g. conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp:1000-1006).
const std::string kMeta = " -Wa,-defsym,ROCM_METADATA_VERSION=5";
const std::string kGfx942 = kMeta + " -Wa,-defsym,force_sc0_sc1=0 -Wa,-defsym,atomic_add_using_cas=0";

struct Key {
    std::string name, args, symbol;
    bool operator==(const Key&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Key& k) { return os << k.name << " | " << k.args << " | " << k.symbol; }

const char* tree_dir() { return ::kdbgen::test::miopen_src(); }

const MiopenTree& tree() {
    static const MiopenTree t = MiopenTree::open(tree_dir());
    return t;
}

// The keys with the tree and, when asked, the tree's perf-db for the target.
std::vector<Key> keys(std::string_view solver, const std::string& problem_key, const std::string& target_spec,
                      bool with_perf_db = false) {
    const Solver* s = find_solver(solver);
    EXPECT_NE(s, nullptr) << solver;
    if (!s) return {};
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    std::unique_ptr<PerfDb> perf;
    if (with_perf_db) {
        const auto path = tree().perf_db(target);
        EXPECT_TRUE(path) << "no perf-db for " << target_spec;
        if (path) perf = std::make_unique<PerfDb>(*path);
    }
    const SolverContext ctx{target, tree().version(), data_type_options(view), perf.get(), &tree()};
    std::string why;
    EXPECT_TRUE(s->applicable(view, ctx, &why)) << solver << " " << problem_key << ": " << why;
    std::vector<Key> out;
    for (const auto& k : s->kernels(view, ctx))
        out.push_back({k.file + ".o", k.options + target.mcpu_suffix(), k.symbols.empty() ? "" : k.symbols.front()});
    return out;
}

bool applicable(std::string_view solver, const std::string& problem_key, const std::string& target_spec) {
    const auto problem = parse_conv_problem_key(problem_key);
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, tree().version(), "", nullptr, &tree()};
    return find_solver(solver)->applicable(ConvView{problem}, ctx, nullptr);
}

Key asm_key(const std::string& kernel, const std::string& args) { return {kernel + ".s.o", args, kernel}; }
Key transpose_key(const std::string& kernel, const char* gfx) {
    // BatchedTransposeSolution::GetKernelInfo (src/hip/batched_transpose_sol.cpp:335-361): no options.
    return {"batched_transpose.cpp.o", std::string(" -mcpu=") + gfx, kernel};
}
// SetTensor on a packed tensor (src/ocl/tensorocl.cpp:1498-1560): one dimension of min(2^ceil(log2 n), 65536).
Key set_key(const std::string& block, int work, const char* gfx) {
    return {"MIOpenSubTensorOpWithScalarKernel.cl.o", fmt::format("{} -DWORK_LENGTH_0={} -mcpu={}", block, work, gfx),
            "SubTensorOpWithScalar1d"};
}
// CastTensor FP32 -> FP16 (src/ocl/tensorocl.cpp:2006-2131): types 3 -> 2.
Key cast_key(int work, const char* gfx) {
    return {"MIOpenSubTensorOpWithCastTensorKernel.cl.o",
            fmt::format(" -DMIOPEN_SRC_TYPE=3 -DMIOPEN_DST_TYPE=2 -DWORK_LENGTH_0={} -mcpu={}", work, gfx),
            "SubTensorOpWithCastTensor1d"};
}

#define NEEDS_TREE() \
    if (!tree_dir()) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree"

}  // namespace

// ---- the table reader ------------------------------------------------------

namespace {
// A tree with one solver source written by the test.
fs::path fake_tree(const test::TempDir& dir, const std::string& fwd_source) {
    fs::create_directories(dir.path() / "src" / "kernels");
    fs::create_directories(dir.path() / "src" / "solver" / "conv");
    std::ofstream(dir.path() / "CMakeLists.txt") << "rocm_setup_version(VERSION 3.3.0)\n";
    std::ofstream(dir.path() / "src/solver/conv/conv_asm_implicit_gemm_gtc_fwd.cpp") << fwd_source;
    return dir.path();
}
std::string error_for(const fs::path& root) {
    const MiopenTree t = MiopenTree::open(root);
    const auto problem = parse_conv_problem_key("64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F");
    const SolverContext ctx{parse_target("gfx908_120"), t.version(), "", nullptr, &t};
    return test::input_error_of([&] {
        (void)find_solver("ConvAsmImplicitGemmGTCDynamicFwdXdlops")->applicable(ConvView{problem}, ctx, nullptr);
    });
}
}  // namespace

TEST(GtcTables, AMalformedRowNamesFileAndLine) {
    test::TempDir dir;
    const auto root = fake_tree(dir,
                                "static const inline std::vector<T>& GetImplicitGemmGtcDynamicFwdXdlopsTunablesList()\n"
                                "{\n"
                                "    static const std::vector<T> kernel_param_list {\n"
                                "        // { \"fwd\", commented out, ignored },\n"
                                "        { \"fwd\", miopenFloat, 4, 0, 256, 128, 8, 64, 32, 1, 1, 1, 2, 2, {1, 4, 2, 1}, "
                                "{1, 2, 1, 128}, {1, 4, 1, 1}, {1, 2, 1, 128}, 0},\n"
                                "        { \"fwd\", miopenFloat, 4, 0, 256, 128, 8, 64, 32, 1, 1, 1, 2, 2, {1, 4, 2}, "
                                "{1, 2, 1, 128}, {1, 4, 1, 1}, {1, 2, 1, 128}, 0},\n"
                                "    };\n"
                                "    return kernel_param_list;\n"
                                "}\n");
    const std::string error = error_for(root);
    EXPECT_NE(error.find("conv_asm_implicit_gemm_gtc_fwd.cpp:6"), std::string::npos) << error;
    EXPECT_NE(error.find("field 15: expected a list of 4 integers"), std::string::npos) << error;
}

TEST(GtcTables, AMissingTableOrSourceIsAnInputError) {
    test::TempDir a, b;
    std::string error = error_for(fake_tree(a, "int unrelated() { return 0; }\n"));
    EXPECT_NE(error.find("no definition of GetImplicitGemmGtcDynamicFwdXdlopsTunablesList"), std::string::npos) << error;
    error = error_for(fake_tree(b, "const std::vector<T>& GetImplicitGemmGtcDynamicFwdXdlopsTunablesList() {\n"
                                   "    static const std::vector<T> kernel_param_list {\n"
                                   "        { \"fwd\", miopenFloat, 4, 0, 256 }\n"));
    EXPECT_NE(error.find("conv_asm_implicit_gemm_gtc_fwd.cpp:1"), std::string::npos) << error;
}

TEST(GtcTables, WithoutATreeTheSolversDoNotApply) {
    const auto problem = parse_conv_problem_key("64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F");
    const SolverContext ctx{parse_target("gfx908_120"), {3, 3, 0}, "", nullptr, nullptr};
    std::string why;
    EXPECT_FALSE(find_solver("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC")->applicable(ConvView{problem}, ctx, &why));
    EXPECT_NE(why.find("MIOpen tree"), std::string::npos) << why;
    EXPECT_TRUE(find_solver("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC")->kernels(ConvView{problem}, ctx).empty());
}

// ---- switches and CU counts --------------------------------------------------

// WORKAROUND_SWDEV_306318 (conv_asm_implicit_gemm_gtc_fwd.cpp:1546-1553): gfx908's NCHW forward
// solver is off for 1x1 with C % 8 != 0 unless MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_FWD_GTC_XDLOPS is
// set; nothing else in the family is off by default.
TEST(GtcSolvers, DisabledByDefaultOnlyForGfx908FwdOneByOneWithCNotAMultipleOf8) {
    const auto check = [](const char* solver, const char* key, const char* target) {
        const auto problem = parse_conv_problem_key(key);
        const SolverContext ctx{parse_target(target), {3, 3, 0}, "", nullptr, nullptr};
        return find_solver(solver)->disabled_by_default(ConvView{problem}, ctx).has_value();
    };
    EXPECT_TRUE(check("ConvAsmImplicitGemmGTCDynamicFwdXdlops", "3-224-224-1x1-64-224-224-16-0x0-1x1-1x1-0-NCHW-FP32-F",
                      "gfx908_120"));
    EXPECT_FALSE(check("ConvAsmImplicitGemmGTCDynamicFwdXdlops", "8-224-224-1x1-64-224-224-16-0x0-1x1-1x1-0-NCHW-FP32-F",
                       "gfx908_120"));
    EXPECT_FALSE(check("ConvAsmImplicitGemmGTCDynamicFwdXdlops", "3-224-224-3x3-64-224-224-16-1x1-1x1-1x1-0-NCHW-FP32-F",
                       "gfx908_120"));
    for (const char* s : {"ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC", "ConvAsmImplicitGemmGTCDynamicBwdXdlops",
                          "ConvAsmImplicitGemmGTCDynamicWrwXdlops", "ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC",
                          "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC", "ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC"})
        EXPECT_FALSE(check(s, "3-224-224-1x1-64-224-224-16-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx908_120")) << s;
    // Only the WrW NHWC heuristic reads the CU count (conv_asm_implicit_gemm_gtc_wrw_nhwc.cpp:579).
    for (const auto* s : solver_catalog())
        if (std::string(s->name()).starts_with("ConvAsmImplicitGemmGTC")) {
            EXPECT_EQ(s->uses_compute_units(), s->name() == "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC") << s->name();
        }
}

// ---- golden keys -------------------------------------------------------------

// ConvAsmImplicitGemmGTCDynamicFwdXdlops (conv_asm_implicit_gemm_gtc_fwd.cpp:1348-1604): gfx908 only.
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicFwdXdlops) {
    NEEDS_TREE();
    // FP32 1x1, K 256, N*H*W 100352, C 64: the 128x256 rows need N % 64 == 0, the 256x128x16 rows
    // (:66-73) are skipped by mayHaveBiggerN1bClusterSize (gemm_n / gemm_m = 392); row :74 fits.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicFwdXdlops", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_fwd_gtcx_nchw_fp32_bx4_ex0_bt256x128x8_wt64x32x1_ws1x1_wr2x2_ta1x4x2x1_"
                                        "1x2x1x128_tb1x4x1x1_1x2x1x128",
                                        kMeta + " -mcpu=gfx908")}));
    // FP16 3x3 pad 1: the first FP16 row with nxe 1 whose N-block divides 32 and 64 % gemm_m: row :573.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicFwdXdlops", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_fwd_gtcx_nchw_fp16_bx16_ex1_bt64x256x8_wt32x64x4_ws1x2_wr1x1_ta1x1x2x1_"
                                        "1x8x1x32_tb1x1x8x1_1x8x1x32",
                                        kMeta + " -mcpu=gfx908")}));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdXdlops",
                            "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdXdlops",
                            "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-F", "gfx908_120"));
}

// ConvAsmImplicitGemmGTCDynamicBwdXdlops (conv_asm_implicit_gemm_gtc_bwd.cpp:785-1066) and its invoker's
// zeroing of dx (src/conv/invokers/impl_gemm_dynamic.cpp:317-320).
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicBwdXdlops) {
    NEEDS_TREE();
    // 1x1 stride 2: 4 sub-GEMMs, one not empty (gemm_k 512), slices 7x7 so nxb 1; row :98 (256x32x16).
    // y 1 < stride 2: dx (32*256*14*14 values) is zeroed first.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicBwdXdlops", "512-7-7-1x1-256-14-14-32-0x0-2x2-1x1-0-NCHW-FP32-B",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_bwd_gtcx_nchw_fp32_bx1_ex1_bt256x32x16_wt64x4x1_ws1x2_wr2x2_ta1x1x16x1_"
                                        "1x16x1x16_tb1x1x2x1_1x16x1x16",
                                        kMeta + " -mcpu=gfx908"),
                                set_key(kFp32Set, 65536, "gfx908")}));
    // FP16 3x3 pad 1, stride 1: every pixel written, no zeroing; row :503.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicBwdXdlops", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-B",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_bwd_gtcx_nchw_fp16_bx4_ex1_bt64x128x32_wt32x32x8_ws1x2_wr1x1_ta8x1x1x1_"
                                        "1x4x1x64_tb8x1x2x1_1x4x1x64",
                                        kMeta + " -mcpu=gfx908")}));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicBwdXdlops", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-B",
                            "gfx942_304"));
}

// ConvAsmImplicitGemmGTCDynamicWrwXdlops (conv_asm_implicit_gemm_wrw_gtc_dynamic_xdlops.cpp:504-1010).
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicWrwXdlops) {
    NEEDS_TREE();
    // FP32 1x1: the search settles on 64x64x16 with a global split (row :130, log2 splits 5);
    // the FP32 invoker zeroes dw (256*64 values) first.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicWrwXdlops", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-W",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_wrw_gtcx_nchw_fp32_bx1_ex1_bt64x64x16_wt16x16x1_ws1x1_wr2x2_ta1x1x4x1_"
                                        "1x16x1x16_tb1x1x4x1_1x16x1x16_gkgs",
                                        kMeta + " -mcpu=gfx908"),
                                set_key(kFp32Set, 16384, "gfx908")}));
    // FP16 3x3 with a split: an FP32 workspace shaped as dw (64*64*9 values) zeroed, then cast to FP16.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicWrwXdlops", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W",
                   "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_wrw_gtcx_nchw_fp16_bx16_ex1_bt64x64x16_wt32x32x8_ws1x1_wr1x1_ta1x1x1x4_"
                                        "1x16x1x16_tb1x1x4x1_1x16x1x16_gkgs",
                                        kMeta + " -mcpu=gfx908"),
                                set_key(kFp32Set, 65536, "gfx908"), cast_key(65536, "gfx908")}));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicWrwXdlops", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-W",
                            "gfx90a_110"));
}

// ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC (conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp:368-1070).
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC) {
    NEEDS_TREE();
    // gfx942, NCHW FP32, the perf-db record (gfx942130.db: fwd,nhwc,fp32,0,0,128,64,16,32,32,2,1,1,1,2,
    // 0,0,0,0,1,1,8,1,1,1,2,4,32,1,4,1,1,1,4,1,64,27): _gtcx3_, pta -> "_pta". Transposes: x (N 16,
    // C 1024 x HW 196) 16x32, the 1x1 weights skipped (width 1), y (HW 196 x K 1024) 32x16 dword
    // (HeuristicGet, batched_transpose_sol.cpp:200-298, the least padding).
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC", "1024-14-14-1x1-1024-14-14-16-0x0-1x1-1x1-0-NCHW-FP32-F",
                   "gfx942_304", true),
              (std::vector<Key>{asm_key("igemm_fwd_gtcx3_nhwc_fp32_bx0_ex0_bt128x64x16_wt32x32x2_ws1x1_wr1x2_ta1x8x1x1_"
                                        "1x2x4x32_tb1x4x1x1_1x4x1x64_pta",
                                        kGfx942 + " -mcpu=gfx942"),
                                transpose_key("batched_transpose_16x32_dword", "gfx942"),
                                transpose_key("batched_transpose_32x16_dword", "gfx942")}));
    // gfx90a, NHWC FP16, the heuristic: tile 128x128x32 (tile_list_fp16 :389), row :166 (nxe 0 for a
    // unit conv), grid 1568 > 1200 so no split; FP16 on gfx90a: fp16_alt 0 and 1 (:1009-1021).
    const std::string fwd90a = "igemm_fwd_gtcx2_nhwc_fp16_bx0_ex0_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_"
                               "tb1x8x2x1_1x4x1x64";
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC",
                   "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F", "gfx90a_110"),
              (std::vector<Key>{asm_key(fwd90a, kMeta + " -Wa,-defsym,igemm_fwd_fp16_alt_impl=0 -mcpu=gfx90a"),
                                asm_key(fwd90a, kMeta + " -Wa,-defsym,igemm_fwd_fp16_alt_impl=1 -mcpu=gfx90a")}));
    // Grouped: WORKAROUND_ISSUE_1979; C <= 4 with dilation: WORKAROUND_ISSUE_2624.
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC",
                            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F_g2", "gfx942_304"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC",
                            "4-56-56-3x3-64-52-52-32-0x0-1x1-2x2-0-NCHW-FP16-F", "gfx942_304"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC",
                            "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
}

// ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC (conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp:469-1179) and its
// invoker (impl_gemm_dynamic.cpp:800-1042).
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC) {
    NEEDS_TREE();
    // gfx942, NCHW FP16, the record bwd,nhwc,fp16,0,1,128,128,16,32,32,4,1,1,2,2,1,0,2,1,0,1,1,8,1,1,16,1,16,
    // 1,1,8,1,1,16,1,16,152[2] ("152[2]" reads as index 152): mh, me, gks 2 -> "_mh_me_gkgs". The split
    // zeroes dx (16*512*13*13 values) in FP16 (vector_store 0: no FP32 buffer). Transposes: dx (HW 169 x
    // C 512) 32x16, dy (K 1000 x HW 169) 16x16 (the gfx94x half list, :117-131).
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC", "1000-13-13-1x1-512-13-13-16-0x0-1x1-1x1-0-NCHW-FP16-B",
                   "gfx942_304", true),
              (std::vector<Key>{asm_key("igemm_bwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x128x16_wt32x32x4_ws1x1_wr2x2_ta1x1x8x1_"
                                        "1x16x1x16_tb1x1x8x1_1x16x1x16_mh_me_gkgs",
                                        kGfx942 + " -mcpu=gfx942"),
                                transpose_key("batched_transpose_32x16_half", "gfx942"),
                                transpose_key("batched_transpose_16x16_half", "gfx942"), set_key(kFp16Set, 65536, "gfx942")}));
    // gfx908, NHWC FP32, the heuristic: gemm 100352 x 64 x 256 -> tile 128x64x16 (:474), row :80 (nxe 0),
    // grid 784 and 1568 > 1200: no split, nothing zeroed.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC",
                   "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-B", "gfx908_120"),
              (std::vector<Key>{asm_key("igemm_bwd_gtcx_nhwc_fp32_bx0_ex0_bt128x64x16_wt32x32x2_ws1x1_wr2x1_ta1x4x2x1_"
                                        "1x4x1x64_tb1x4x1x1_1x4x1x64",
                                        kMeta + " -mcpu=gfx908")}));
}

// ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC (conv_asm_implicit_gemm_gtc_wrw_nhwc.cpp:459-1350).
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC) {
    NEEDS_TREE();
    // gfx942, NCHW FP16, the record wrw,nhwc,fp16,0,0,128,64,32,32,32,8,1,1,1,2,0,0,2,0,0,1,4,1,4,1,8,1,32,
    // 1,4,1,2,1,8,1,32,118[2]: tb[3] 2 and vector_store 0, so no cast: dw (1000*512) zeroed in FP16.
    // Transposes: x (C 512 x HW 169) 16x32, dy (K 1000 x HW 169) 16x16; the 1x1 weights skipped.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC", "1000-13-13-1x1-512-13-13-16-0x0-1x1-1x1-0-NCHW-FP16-W",
                   "gfx942_304", true),
              (std::vector<Key>{asm_key("igemm_wrw_gtcx3_nhwc_fp16_bx0_ex0_bt128x64x32_wt32x32x8_ws1x1_wr1x2_ta1x4x1x4_"
                                        "1x8x1x32_tb1x4x1x2_1x8x1x32_gkgs",
                                        kGfx942 + " -mcpu=gfx942"),
                                transpose_key("batched_transpose_16x32_half", "gfx942"),
                                transpose_key("batched_transpose_16x16_half", "gfx942"), set_key(kFp16Set, 65536, "gfx942")}));
    // gfx942, NCHW FP16, vector_store 1 (record ...,0,1,1,0,0,... ,151[1]): dw accumulates in FP32
    // (16*32 values zeroed), then CastTensor. x (C 32 x HW 12544) and dy (K 16 x HW 12544) take the
    // h/w ratio > 128 branch of HeuristicGet: 32x32 and 32x16.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC",
                   "16-112-112-1x1-32-112-112-16-0x0-1x1-1x1-0-NCHW-FP16-W", "gfx942_304", true),
              (std::vector<Key>{asm_key("igemm_wrw_gtcx3_nhwc_fp16_bx0_ex0_bt64x32x32_wt16x16x16_ws1x1_wr2x1_ta1x4x1x2_"
                                        "1x8x1x32_tb1x4x1x1_1x8x1x32_vs1_gkgs",
                                        kGfx942 + " -mcpu=gfx942"),
                                transpose_key("batched_transpose_32x32_half", "gfx942"),
                                transpose_key("batched_transpose_32x16_half", "gfx942"), set_key(kFp32Set, 512, "gfx942"),
                                cast_key(512, "gfx942")}));
    // gfx90a, NHWC FP32, the heuristic: gemm 64 x 256 -> tile 64x128x16 (:465), row :89; grid 2 <= 600
    // splits k (gemm_k_global_split = the occupancy): "_gkgs"; dw (64*256) zeroed in FP32.
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC",
                   "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-W", "gfx90a_110"),
              (std::vector<Key>{asm_key("igemm_wrw_gtcx2_nhwc_fp32_bx0_ex0_bt64x128x16_wt32x32x2_ws1x1_wr1x2_ta1x1x1x4_"
                                        "1x16x1x16_tb1x1x1x8_1x16x1x16_gkgs",
                                        kMeta + " -mcpu=gfx90a"),
                                set_key(kFp32Set, 16384, "gfx90a")}));
}

// ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC (conv_asm_implicit_gemm_gtc_fwd_nchwc.cpp:295-648): gfx1030.
TEST(GtcGoldenKeysWithTree, ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC) {
    NEEDS_TREE();
    // gemm 50176 x 32 x 144: the least-padding nchwc_kcyxc row of each vector length (ta[1] = tb[1] = 1).
    EXPECT_EQ(keys("ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC",
                   "16-28-28-3x3-32-28-28-64-1x1-1x1-1x1-0-NCHWc-NCHWc-NCHWc-FP16-F", "gfx1030_36"),
              (std::vector<Key>{asm_key("igemm_fwd_gtcn2_nchwc_kcyxc_fp16x4_bx0_ex1_bt128x32x32_lt8x8_lw4x1_lr2x2_"
                                        "ta1x1x1x32_1x8x1x16_tb1x1x2x4_1x8x1x16",
                                        kMeta + " -mcpu=gfx1030"),
                                asm_key("igemm_fwd_gtcn2_nchwc_kcyxc_fp16x8_bx0_ex1_bt128x32x32_lt8x8_lw4x1_lr2x2_"
                                        "ta1x1x1x32_1x4x1x32_tb1x1x1x8_1x4x1x32",
                                        kMeta + " -mcpu=gfx1030")}));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC",
                            "16-28-28-3x3-32-28-28-64-1x1-1x1-1x1-0-NCHWc-NCHWc-NCHWc-FP16-F", "gfx908_120"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC",
                            "16-28-28-3x3-32-28-28-64-1x1-1x1-1x1-0-NCHW-FP16-F", "gfx1030_36"));
}

// ---- the planned kernels compile ---------------------------------------------

// Every GTC solver the find-dbs of gfx908 (gfx90878), gfx90a (gfx90a6e) and gfx942 (gfx942130)
// name, on every line it is listed for and applies to (the tree's perf-db where there is one):
// one build per distinct (target, assembly file, options) and per distinct helper key.
TEST(GtcMIOpenTree, PlannedKernelsCompile) {
    NEEDS_TREE();
    const Compiler compiler(test::toolchain(), nullptr);
    std::size_t built = 0, failed = 0, planned_keys = 0;
    for (const char* spec : {"gfx908:sramecc+:xnack-_120", "gfx90a:sramecc+:xnack-_110", "gfx942:sramecc+:xnack-_304"}) {
        const Target target = parse_target(spec);
        const auto fdb = tree().find_db(target);
        ASSERT_TRUE(fdb) << spec;
        std::unique_ptr<PerfDb> perf;
        if (const auto path = tree().perf_db(target)) perf = std::make_unique<PerfDb>(*path);
        std::map<std::string, KernelBuild> builds;  // one per sample key
        std::set<std::string> keys_seen;
        for (const auto& entry : read_find_db(*fdb)) {
            const ConvView view{entry.problem};
            const SolverContext ctx{target, tree().version(), data_type_options(view), perf.get(), &tree()};
            for (const auto& item : entry.solvers) {
                if (!item.solver.starts_with("ConvAsmImplicitGemmGTC")) continue;
                const Solver* s = find_solver(item.solver);
                ASSERT_NE(s, nullptr) << item.solver;
                if (!s->applicable(view, ctx, nullptr)) continue;
                for (const auto& kernel : s->kernels(view, ctx)) {
                    const std::string key = kernel.file + "\n" + kernel.options;
                    keys_seen.insert(key);
                    // The assembly: every file and options (the gfx90a fp16_alt forms too); helpers: every
                    // file and data-type form (their keys differ otherwise only in WORK_LENGTH_0).
                    std::string sample = key;
                    if (const auto at = sample.find(" -DWORK_LENGTH_0="); at != std::string::npos) sample.erase(at);
                    if (builds.count(sample)) continue;
                    auto build = miopen_kernel_build(kernel, target, tree());
                    ASSERT_TRUE(build) << kernel.file << " is not in the tree (" << entry.key << ")";
                    builds.emplace(sample, std::move(*build));
                }
            }
        }
        planned_keys += keys_seen.size();
        for (const auto& [sample, build] : builds) {
            const auto result = compiler.compile(build);
            ++built;
            if (!result.ok) ++failed;
            EXPECT_TRUE(result.ok) << build.describe() << "\n" << result.log.substr(0, 2000);
        }
        std::cout << spec << ": " << keys_seen.size() << " distinct keys planned, " << builds.size() << " compiled\n";
    }
    std::cout << built << " of " << planned_keys << " distinct keys compiled, " << failed << " failed\n";
    EXPECT_GT(built, 0u);
}

// The overlay (src/compile/asm_compat.cpp) rewrites the GTC utils .inc files too: their macros name a
// parameter `a` and write accumulator registers as `a[...]` (e.g. .v_clear_acc_c). The .s files never
// enter .altmacro, so Clang substitutes only `\a` and the rename changes nothing: LLVM 19 assembles
// the original and the overlay to the same machine code, one kernel of each architecture's folders.
TEST(GtcMIOpenTree, AssemblerOverlayKeepsTheMachineCode) {
    NEEDS_TREE();
    const fs::path igemm = fs::path(tree_dir()) / "src" / "kernels" / "dynamic_igemm";
    const std::vector<std::pair<std::string, std::string>> samples = {
        {"igemm_gtc_xdlops_nhwc_gfx940/fwd_fp16/igemm_fwd_gtcx3_nhwc_fp16_bx0_ex0_bt128x128x32_wt32x32x8_ws1x1_wr2x2_"
         "ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64.s",
         "gfx942:sramecc+:xnack-_304"},
        {"igemm_gtc_xdlops_nhwc_gfx90a/wrw_fp16/igemm_wrw_gtcx2_nhwc_fp16_bx0_ex1_bt64x64x64_wt32x32x8_ws1x1_wr1x1_"
         "ta1x4x1x4_1x16x1x16_tb1x4x1x4_1x16x1x16_gkgs.s",
         "gfx90a:sramecc+:xnack-_110"},
        {"igemm_gtc_xdlops_nhwc/bwd_fp32/igemm_bwd_gtcx_nhwc_fp32_bx0_ex0_bt128x64x16_wt32x32x2_ws1x1_wr2x1_ta1x4x2x1_"
         "1x4x1x64_tb1x4x1x1_1x4x1x64.s",
         "gfx908:sramecc+:xnack-_120"}};
    const test::TempDir temp;
    const Compiler compiler(test::toolchain(), nullptr);
    const auto text_of = [&](const fs::path& object, const std::string& tag) {
        const fs::path out = temp / (tag + ".text");
        run_process({(test::toolchain().llvm_root / "bin" / "llvm-objcopy").string(), "-O", "binary",
                     "--only-section=.text", object.string(), out.string()});
        return read_file(out);
    };
    int index = 0;
    for (const auto& [relative, spec] : samples) {
        const fs::path source = igemm / relative;
        ASSERT_TRUE(fs::exists(source)) << source;
        ASSERT_TRUE(assembler_compat_overlay(source.parent_path(), temp.path())) << "no overlay for " << relative;
        KernelBuild build;
        build.source = source;
        build.kernel_file = source.filename().string();
        build.options = " -Wa,-defsym,ROCM_METADATA_VERSION=5";
        build.target = parse_target(spec);
        build.kernels = {source.stem().string()};
        build.include_dirs = {tree().kernels_dir()};
        const auto result = compiler.compile(build);
        ASSERT_TRUE(result.ok) << result.command << "\n" << result.log.substr(0, 2000);
        const std::string tag = std::to_string(index++);
        write_file_atomic(temp / (tag + "-ours.co"), std::span<const char>(result.code.data(), result.code.size()));
        // The same assembly without the overlay.
        const fs::path reference = temp / (tag + "-ref.o");
        const auto ref = run_process({test::toolchain().clang().string(), "-x", "assembler", "-target",
                                      "amdgcn-amd-amdhsa", "-mcpu=" + build.target.asm_target_id(),
                                      fmt::format("-mcode-object-version={}", test::toolchain().code_object_version),
                                      "-Wa,-defsym,ROCM_METADATA_VERSION=5", "-I" + source.parent_path().string(),
                                      "-I" + tree().kernels_dir().string(), "-c", source.string(), "-o",
                                      reference.string()});
        ASSERT_EQ(ref.exit_code, 0) << ref.output.substr(0, 2000);
        const Bytes ours = text_of(temp / (tag + "-ours.co"), tag + "-ours");
        EXPECT_FALSE(ours.empty()) << relative;
        EXPECT_EQ(ours, text_of(reference, tag + "-ref")) << relative;
    }
}

// ---- the composable-kernel solvers' MIOpen helper kernels (src/plan/solvers/ck/) ----
//
// MIOpen 3.3.0 (develop 2d1fd997), src/include/miopen/solver/implicitgemm_ck_util.hpp: an NC(D)HW problem
// builds four batched transposes with the solution (:481-501; fwd :920-925, bwd :936-941, wrw :951-956),
// each whatever its shape (no IsSkippable), all in batched_transpose.cpp with no options; N(D)HWC backward
// weights zeroes dw with SetTensor (:868-873); N(D)HWC forward and backward data run the CK instance alone
// (:890-909). The tile names are HeuristicGet's (src/hip/batched_transpose_sol.cpp:216-318).
TEST(CkGoldenKeysWithTree, GroupedSolversTransposeNcdhwProblems) {
    NEEDS_TREE();
    // gfx90a68.HIP.fdb.txt: ConvHipImplicitGemm3DGroupWrwXdlops is this line's fastest item (3.42 ms).
    // x (C 256 x DHW 32768), dy (K 128 x 32768), dw back (ZYX 27 x C 256, batch K), dw-init (C 256 x 27):
    // every one the least-padded 32x32 dword tile. One kdb key, batched_transpose.cpp.o " -mcpu=gfx90a".
    EXPECT_EQ(keys("ConvHipImplicitGemm3DGroupWrwXdlops",
                   "128-32-32-32-3x3x3-256-32-32-32-1-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-W", "gfx90a_110"),
              (std::vector<Key>(4, transpose_key("batched_transpose_32x32_dword", "gfx90a"))));
    // ...3DGroupBwdXdlops heads the backward-data line: dy (K 128 x 32768), w (C 128 x 27, batch K),
    // dx back (32768 x C 128), dx-init (C 128 x 32768).
    EXPECT_EQ(keys("ConvHipImplicitGemm3DGroupBwdXdlops",
                   "128-32-32-32-3x3x3-128-32-32-32-1-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-B", "gfx90a_110"),
              (std::vector<Key>(4, transpose_key("batched_transpose_32x32_dword", "gfx90a"))));
    // A 1x1 filter: the weights transpose is (C 1152 x 1), which the GTC solvers skip and CK's invoker
    // builds: the long thin 4x256 tile (HeuristicGet's ratio branch, :222-231). x and y-init (C 1152 x HW 49),
    // y back (49 x 1152). FP16 on gfx942: the gfx94x half list (:117-138).
    const auto one_by_one = keys("ConvHipImplicitGemmGroupFwdXdlops",
                                 "1152-7-7-1x1-1152-7-7-1-0x0-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110");
    ASSERT_EQ(one_by_one.size(), 4u);
    EXPECT_EQ(one_by_one[1], transpose_key("batched_transpose_4x256_dword", "gfx90a"));
    for (const auto& key : one_by_one) EXPECT_EQ(key.name, "batched_transpose.cpp.o");
}

TEST(CkGoldenKeysWithTree, NhwcBackwardWeightsZeroesTheWeightsAndNhwcForwardBuildsNothing) {
    NEEDS_TREE();
    // Grouped wrw, NHWC FP16, K 64, C 64, 32 groups, 3x3: dw holds 64 * 2 * 9 = 1152 values, so SetTensor's
    // one dimension is 2048 work items (tensorocl.cpp:1451-1496, :1553-1559) with the FP16 block.
    EXPECT_EQ(keys("ConvHipImplicitGemmGroupWrwXdlops",
                   "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-W_g32", "gfx942_304"),
              (std::vector<Key>{set_key(kFp16Set, 2048, "gfx942")}));
    // NDHWC 3-D wrw FP32: K 32, C 16, 3x3x3 -> 32 * 16 * 27 = 13824 values: 16384.
    EXPECT_EQ(keys("ConvHipImplicitGemm3DGroupWrwXdlops",
                   "32-8-8-8-3x3x3-16-8-8-8-2-1x1x1-1x1x1-1x1x1-0-NDHWC-NDHWC-NDHWC-FP32-W", "gfx90a_110"),
              (std::vector<Key>{set_key(kFp32Set, 16384, "gfx90a")}));
    // NHWC forward and backward data: nothing MIOpen looks up in a kdb.
    for (const char* name : {"ConvHipImplicitGemmGroupFwdXdlops", "ConvHipImplicitGemmGroupBwdXdlops"}) {
        const auto problem = parse_conv_problem_key(std::string(name).find("Fwd") != std::string::npos
                                                        ? "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F"
                                                        : "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-B");
        EXPECT_TRUE(find_solver(name)->kernels_in_library(ConvView{problem})) << name;
    }
}

TEST(CkGoldenKeysWithTree, AppliesWhereMiopenAsksCkAndNowhereElse) {
    NEEDS_TREE();
    const char* nchw = "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-F";
    EXPECT_TRUE(applicable("ConvHipImplicitGemmGroupFwdXdlops", nchw, "gfx90a_110"));  // groups 1 too
    EXPECT_TRUE(applicable("ConvHipImplicitGemmGroupFwdXdlops", nchw, "gfx908_120"));
    // is_ck_whitelist (ck_utility_common.hpp:72-77): no RDNA card.
    EXPECT_FALSE(applicable("ConvHipImplicitGemmGroupFwdXdlops", nchw, "gfx1100_48"));
    EXPECT_FALSE(applicable("ConvHipImplicitGemmGroupFwdXdlops", nchw, "gfx1030_36"));
    // Is2d / Is3d, the direction, one data type (HasMixedDataTypes), casts (grouped fwd :500).
    EXPECT_FALSE(applicable("ConvHipImplicitGemm3DGroupFwdXdlops", nchw, "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvHipImplicitGemmGroupBwdXdlops", nchw, "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvHipImplicitGemmGroupFwdXdlops", "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NCHW-INT8INT8INT32-F",
                            "gfx90a_110"));
    EXPECT_FALSE(applicable("ConvHipImplicitGemmGroupFwdXdlops", "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NCHW-FP16-F_ciFP8",
                            "gfx90a_110"));
    // F16F8F16 wrw: FP16 NHWC with In FP8 and Out BF8 casts (f16f8f16_wrw :327-329).
    EXPECT_TRUE(applicable("ConvHipImplicitGemmF16F8F16WrwXdlops",
                           "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-W_ciFP8_coBFP8", "gfx942_304"));
    EXPECT_FALSE(applicable("ConvHipImplicitGemmF16F8F16WrwXdlops",
                            "64-28-28-3x3-64-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-W", "gfx942_304"));
}
