// MIOpen's default find for problems without a usable find-db record, and the
// ConvWinograd3x3MultipassWrW applicability it depends on. Expectations are
// written by hand from MIOpen 3.3.0's source (develop 2d1fd997; file:line at
// each test), never by the code under test. Tests that need the MIOpen tree
// skip without KDBGEN_MIOPEN_SRC.
#include "kdbgen/plan.hpp"
#include "kdbgen/util.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

using namespace kdbgen;

namespace {

const Solver& solver(std::string_view name) {
    const Solver* s = find_solver(name);
    if (!s) throw std::runtime_error("no solver " + std::string(name));
    return *s;
}

bool applicable(std::string_view name, const std::string& problem_key, const std::string& target_spec,
                std::string* why = nullptr) {
    const auto problem = parse_conv_problem_key(problem_key);
    const SolverContext ctx{parse_target(target_spec), {3, 3, 0}, "", nullptr};
    return solver(name).applicable(ConvView{problem}, ctx, why);
}

}  // namespace

// --- which solvers are dynamic ---------------------------------------------------------------

// The catalog's dynamic solvers are exactly those whose MIOpen class overrides IsDynamic() with
// true (src/include/miopen/conv/solvers.hpp, MIOpen 3.3.0): :1644 V4R1DynamicFwd, :1660 _Fwd_1x1,
// :1676 _Wrw, :1697 GTCDynamicWrwXdlops, :1718 V4R1DynamicBwd, :1734 GTCDynamicFwdXdlops,
// :1750 GTCDynamicBwdXdlops, :1817 ConvBinWinograd3x3U, :1830 ConvBinWinogradRxS, :1888
// ConvBinWinoRxS<> (kdbgen's ConvBinWinogradRxSf3x2/f2x3), :1924 ConvBinWinogradRxSf2x3g1,
// :2112 ConvWinograd3x3MultipassWrW, :2836/:2856/:2876 the naive convs, :2889/:2974/:3040 the
// GEMM bases, :3481/:3685/:3895 GTC NHWC, :4247 GTCDynamicFwdDlopsNCHWC. Everything else keeps
// SolverBase's false (src/include/miopen/solver.hpp:86): fft, the fixed-shape and tunable
// assembly solvers, the OpenCL direct solvers.
TEST(DynamicSolvers, AsMIOpenDeclaresThem) {
    std::set<std::string> expected = {
        "ConvAsmImplicitGemmV4R1DynamicFwd", "ConvAsmImplicitGemmV4R1DynamicFwd_1x1",
        "ConvAsmImplicitGemmV4R1DynamicWrw", "ConvAsmImplicitGemmV4R1DynamicBwd",
        "ConvAsmImplicitGemmGTCDynamicWrwXdlops", "ConvAsmImplicitGemmGTCDynamicFwdXdlops",
        "ConvAsmImplicitGemmGTCDynamicBwdXdlops", "ConvBinWinograd3x3U", "ConvBinWinogradRxS",
        "ConvBinWinogradRxSf3x2", "ConvBinWinogradRxSf2x3", "ConvBinWinogradRxSf2x3g1",
        "ConvDirectNaiveConvFwd", "ConvDirectNaiveConvBwd", "ConvDirectNaiveConvWrw",
        "GemmFwd1x1_0_1", "GemmFwd1x1_0_1_int8", "GemmFwd1x1_0_2", "GemmFwdRest", "GemmBwd1x1_stride1",
        "GemmBwd1x1_stride2", "GemmBwdRest", "GemmWrw1x1_stride1", "GemmWrwUniversal",
        "ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC", "ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC",
        "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC", "ConvAsmImplicitGemmGTCDynamicFwdDlopsNCHWC",
        // ConvWinoFuryRxS<2,3>: IsDynamic at src/include/miopen/conv/solvers.hpp:2266.
        "ConvWinoFuryRxS<2-3>",
        // The composable-kernel solvers that run MIOpen kernels around CK's (src/plan/solvers/ck/):
        // IsDynamic at solvers.hpp:4392, :4478, :4555, :4632, :4709, :4800, :5117.
        "ConvHipImplicitGemmGroupFwdXdlops", "ConvHipImplicitGemmGroupBwdXdlops", "ConvHipImplicitGemmGroupWrwXdlops",
        "ConvHipImplicitGemm3DGroupFwdXdlops", "ConvHipImplicitGemm3DGroupBwdXdlops",
        "ConvHipImplicitGemm3DGroupWrwXdlops", "ConvHipImplicitGemmF16F8F16WrwXdlops"};
    for (const char* v : {"3-2", "3-3", "3-4", "3-5", "3-6", "7-2", "7-3", "1-1-7-2", "1-1-7-3", "7-2-1-1", "7-3-1-1",
                          "5-3", "5-4"})
        expected.insert(fmt::format("ConvWinograd3x3MultipassWrW<{}>", v));
    std::set<std::string> dynamic, winograd;
    for (const auto* s : solver_catalog()) {
        if (s->dynamic()) dynamic.insert(std::string(s->name()));
        if (s->winograd()) winograd.insert(std::string(s->name()));
    }
    EXPECT_EQ(dynamic, expected);
    EXPECT_TRUE(dynamic.count("fft") == 0 && dynamic.count("ConvOclDirectFwd") == 0 && dynamic.count("ConvAsm1x1U") == 0);
    // The Winograd finder's lists (src/mlo_dir_conv.cpp:126-164) that are in the catalog.
    // ConvWinoFuryRxS<2,3> is in both lists (src/mlo_dir_conv.cpp:143, :185; solvers.hpp:2266).
    std::set<std::string> expected_winograd = {"ConvBinWinograd3x3U", "ConvBinWinogradRxS", "ConvBinWinogradRxSf3x2",
                                               "ConvBinWinogradRxSf2x3", "ConvBinWinogradRxSf2x3g1",
                                               "ConvWinoFuryRxS<2-3>"};
    for (const auto& name : expected)
        if (name.starts_with("ConvWinograd3x3MultipassWrW")) expected_winograd.insert(name);
    EXPECT_EQ(winograd, expected_winograd);
}

// ConvMPBidirectWinograd<> and _xdlops<> (MIOpen 3.3.0 lists them in the Winograd finder,
// src/mlo_dir_conv.cpp:132-141) are off by default: WORKAROUND_SWDEV_257202 makes IS_DISABLED
// !env::enabled (src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :344-368, :869-893).
TEST(DynamicSolvers, MPBidirectWinogradIsOffByDefault) {
    for (const char* name : {"ConvMPBidirectWinograd<2-3>", "ConvMPBidirectWinograd<3-3>", "ConvMPBidirectWinograd<4-3>",
                             "ConvMPBidirectWinograd<5-3>", "ConvMPBidirectWinograd<6-3>",
                             "ConvMPBidirectWinograd_xdlops<2-3>", "ConvMPBidirectWinograd_xdlops<3-3>",
                             "ConvMPBidirectWinograd_xdlops<4-3>", "ConvMPBidirectWinograd_xdlops<5-3>",
                             "ConvMPBidirectWinograd_xdlops<6-3>"}) {
        const auto external = external_solver(name);
        ASSERT_TRUE(external) << name;
        EXPECT_EQ(external->kind, ExternalSolver::Kind::DefaultOff) << name;
        EXPECT_NE(external->reason.find("WORKAROUND_SWDEV_257202"), std::string::npos) << name;
        EXPECT_EQ(find_solver(name), nullptr) << name;
    }
}

// --- ConvWinograd3x3MultipassWrW::IsApplicable --------------------------------------------------

// MIOpen 3.3.0 src/solver/conv/conv_multipass_wino3x3WrW.cpp:376-556 with the transforms'
// IsApplicable (:89-130, :196-236, :302-305), worked by hand. WrW keys: "in" is dy, "out" is x.
TEST(MultipassWrWApplicability, Rules) {
    // dy 64x28x28, x 64x28x28, batch 32, 3x3 pad 1 stride 1: <3-4>, <3-5>, <3-6> apply on gfx906_60.
    const char* base = "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W";
    for (const char* v : {"<3-4>", "<3-5>", "<3-6>"})
        EXPECT_TRUE(applicable(std::string("ConvWinograd3x3MultipassWrW") + v, base, "gfx906_60")) << v;
    // F3x2 and F3x3 need a stride above 1 (:386-398).
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-2>", base, "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-3>", base, "gfx906_60"));
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-3>", "64-28-28-3x3-64-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-W",
                           "gfx906_60"));
    // The weights must be the data tile (:538): 5x5 weights are <5-x>'s, not <3-4>'s.
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "64-28-28-5x5-64-28-28-32-2x2-1x1-1x1-0-NCHW-FP32-W",
                            "gfx906_60"));
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<5-4>", "64-28-28-5x5-64-28-28-32-2x2-1x1-1x1-0-NCHW-FP32-W",
                           "gfx906_60"));
    // Stride 2 only with 3x3 weights (:539-542); dilation 1 (:544-545); one group (:553).
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<5-4>", "64-14-14-5x5-64-28-28-32-2x2-2x2-1x1-0-NCHW-FP32-W",
                            "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "64-26-26-3x3-64-28-28-32-1x1-1x1-2x2-0-NCHW-FP32-W",
                            "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W_g2",
                            "gfx906_60"));
    // Pads up to 3 (:128-129, :234-235): 7x7 weights with pad 4 do not.
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<7-2>", "64-28-28-7x7-64-28-28-32-3x3-1x1-1x1-0-NCHW-FP32-W",
                           "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<7-2>", "64-30-30-7x7-64-28-28-32-4x4-1x1-1x1-0-NCHW-FP32-W",
                            "gfx906_60"));
    // The data transform takes fewer than 2^16 output channels (N = GetOutChannels, :126).
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "1-8-8-3x3-65535-8-8-1-1x1-1x1-1x1-0-NCHW-FP32-W",
                           "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "1-8-8-3x3-65536-8-8-1-1x1-1x1-1x1-0-NCHW-FP32-W",
                            "gfx906_60"));
    // The input stack 4 * W * H * C must stay below 2^24 bytes (:528-535): 256 x 128 x 128 is 2^24.
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "255-128-128-3x3-16-128-128-1-1x1-1x1-1x1-0-NCHW-FP32-W",
                           "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "256-128-128-3x3-16-128-128-1-1x1-1x1-1x1-0-NCHW-FP32-W",
                            "gfx906_60"));
    // gfx8 (the transforms, :115-118), gfx10+ and gfx94x (:490-491), xnack on (:480-482).
    for (const char* spec : {"gfx803_36", "gfx1030_36", "gfx942_304", "gfx90a:xnack+_110"})
        EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", base, spec)) << spec;
    for (const char* spec : {"gfx900_56", "gfx908_120", "gfx90a_110"})
        EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-4>", base, spec)) << spec;
    // FP16: off for F3x4..F3x6 on gfx906/gfx908 (WORKAROUND_SWDEV_234193, :402-419), F5x4 still on;
    // on gfx90a FP16 WrW needs the FP16-alt GEMM (:492-493).
    const char* fp16 = "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP16-W";
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", fp16, "gfx906_60"));
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<3-4>", fp16, "gfx900_56"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", fp16, "gfx90a_110"));
    EXPECT_TRUE(applicable("ConvWinograd3x3MultipassWrW<5-4>", "64-28-28-5x5-64-28-28-32-2x2-1x1-1x1-0-NCHW-FP16-W",
                           "gfx906_60"));
    // Not WrW, not 2-D, INT8.
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>", "64-28-28-3x3-64-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906_60"));
    EXPECT_FALSE(applicable("ConvWinograd3x3MultipassWrW<3-4>",
                            "64-4-28-28-1x3x3-64-4-28-28-32-0x1x1-1x1x1-1x1x1-0-NCDHW-FP32-W", "gfx906_60"));
}

// WORKAROUND_SWDEV_203031 (:495-516): on gfx900, and on gfx906 with 60 CUs or fewer, the workspace
// (:565-571) may not exceed 2,000,000,000 bytes. dy 64x56x56, x 256x56x56, 3x3 pad 1, <3-4>
// (6x6 transforms, buffer_info.hpp:166-309): wino_c = batch * ceil(56/4)^2 = batch * 196;
// data buffer 256 * wino_c * 6 * 6 * 4, filter buffer 64 * wino_c * 6 * 6 * 4, output buffer
// 256 * 64 * 6 * 6 * 4 = 2,359,296. Batch 256: 1,849,688,064 + 462,422,016 + 2,359,296 =
// 2,314,469,376 bytes, above the limit; batch 128: 1,157,234,688, below it.
TEST(MultipassWrWApplicability, WorkspaceLimitOnGfx900AndSmallGfx906) {
    const char* big = "64-56-56-3x3-256-56-56-256-1x1-1x1-1x1-0-NCHW-FP32-W";
    const char* half = "64-56-56-3x3-256-56-56-128-1x1-1x1-1x1-0-NCHW-FP32-W";
    const std::string name = "ConvWinograd3x3MultipassWrW<3-4>";
    EXPECT_FALSE(applicable(name, big, "gfx900_56"));
    EXPECT_FALSE(applicable(name, big, "gfx906_60"));
    EXPECT_TRUE(applicable(name, big, "gfx906_64"));
    EXPECT_TRUE(applicable(name, big, "gfx908_120"));
    EXPECT_TRUE(applicable(name, big, "gfx90a_110"));
    EXPECT_TRUE(applicable(name, half, "gfx900_56"));
    EXPECT_TRUE(applicable(name, half, "gfx906_60"));
    EXPECT_TRUE(solver(name).uses_compute_units());
}

// MIOpen wrote a solver into a find-db line only after its IsApplicable said yes on that GPU
// (with the MIOpen of the day): every (line, multipass instance) of the tree's find-dbs must be
// applicable in the port. Measured over all 11 HIP find-dbs of the tree (MIOpen 3.3.0):
//  - gfx900_56 4495, gfx906_60 3156, gfx908_120 (gfx90878) 8902, gfx90a_104 10400,
//    gfx90a_110 9260 entries: 0 disagreements; gfx1030_36 and gfx942_304 list none.
//  - gfx803_36, gfx803_64: all 3645 disagree. MIOpen 3.3.0's transforms refuse gfx8 (:115-118,
//    :222-225); the MIOpen that wrote those find-dbs still ran it.
//  - gfx900_64 (240 of 3645) and gfx906_64 (112 of 2974), older find-dbs: every disagreement is
//    a 1-D instance named the other way round from today's (<1-1-7-x> listed for 7x1 weights,
//    <7-x-1-1> for 1x7; the 3.3 find-dbs pair <1-1-7-x> with 1x7). In 3.3 the id names the
//    instance whose data tile is 1 x 7, which those weights do not fit (:538), so MIOpen 3.3 too
//    passes over these items (on gfx900 some fail the 2 GB workspace limit first, :495-516). The
//    mirrored instance applies to every one of them (checked below).
// The test reads a subset (decompressing all 11 takes a minute): gfx803_64 and gfx900_64 have the
// same contents; gfx1030/gfx942 list nothing.
TEST(MultipassWrWWithTree, ApplicableWhereverTheFindDbsListThem) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    struct Count {
        int listed = 0, disagree = 0, one_d_named_backwards = 0, mirror_applies = 0;
        std::string first;
    };
    std::map<std::string, Count> counts;
    const auto mirrored = [](const std::string& name) -> std::string {
        for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
                 {"<1-1-7-2>", "<7-2-1-1>"}, {"<1-1-7-3>", "<7-3-1-1>"}, {"<7-2-1-1>", "<1-1-7-2>"}, {"<7-3-1-1>", "<1-1-7-3>"}})
            if (name.ends_with(a)) return name.substr(0, name.size() - a.size()) + b;
        return "";
    };
    for (const char* spec : {"gfx803_36", "gfx900_56", "gfx900_64", "gfx906_60", "gfx906_64", "gfx908_120", "gfx90a_110"}) {
        const Target target = parse_target(spec);
        const auto path = tree.find_db(target);
        ASSERT_TRUE(path) << spec;
        const SolverContext ctx{target, tree.version(), "", nullptr};
        auto& count = counts[spec];
        // Line by line: the older find-dbs hold keys kdbgen's reader refuses (3-D keys with 2-D
        // padding) on lines that list no multipass instance.
        const Bytes text = bz2_decompress_stream(read_file(*path));
        std::string_view rest(text.data(), text.size());
        while (!rest.empty()) {
            const auto end = rest.find('\n');
            const std::string_view line = rest.substr(0, end);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
            if (line.find("ConvWinograd3x3MultipassWrW") == std::string_view::npos) continue;
            for (const auto& entry : parse_find_db(line, path->string())) {
                const ConvView view{entry.problem};
                for (const auto& item : entry.solvers) {
                    if (!item.solver.starts_with("ConvWinograd3x3MultipassWrW")) continue;
                    ++count.listed;
                    std::string why;
                    if (solver(item.solver).applicable(view, ctx, &why)) continue;
                    ++count.disagree;
                    if (count.first.empty()) count.first = entry.key + " " + std::string(item.solver) + ": " + why;
                    const std::string mirror = mirrored(std::string(item.solver));
                    const bool backwards = !mirror.empty() && view.GetWeightsHeight() != view.GetWeightsWidth() &&
                                           (view.GetWeightsHeight() == 1) == item.solver.ends_with("-1-1>");
                    if (!backwards) continue;
                    ++count.one_d_named_backwards;
                    if (solver(mirror).applicable(view, ctx, nullptr)) ++count.mirror_applies;
                }
            }
        }
    }
    for (const auto& [spec, c] : counts) {
        std::cout << spec << ": " << c.listed << " multipass entries, " << c.disagree << " not applicable ("
                  << c.one_d_named_backwards << " 1-D instances named backwards, " << c.mirror_applies
                  << " of them fit the mirrored instance)" << (c.first.empty() ? "" : "; first: " + c.first) << "\n";
        if (spec.starts_with("gfx803")) {
            EXPECT_EQ(c.disagree, c.listed) << spec;
        } else if (spec == "gfx900_64" || spec == "gfx906_64") {
            EXPECT_EQ(c.disagree, c.one_d_named_backwards) << spec << ": " << c.first;
        } else {
            EXPECT_EQ(c.disagree, 0) << spec << ": " << c.first;
        }
    }
    EXPECT_EQ(counts["gfx900_64"].disagree, 240);
    EXPECT_EQ(counts["gfx906_64"].disagree, 112);
    EXPECT_EQ(counts["gfx900_64"].mirror_applies, 240);
    EXPECT_EQ(counts["gfx906_64"].mirror_applies, 112);
    // The find-dbs list the solver at all (a test that checks nothing must not pass).
    EXPECT_EQ(counts["gfx900_56"].listed, 4495);
    EXPECT_EQ(counts["gfx906_60"].listed, 3156);
    EXPECT_EQ(counts["gfx90a_110"].listed, 9260);
}

// --- the dynamic find's kernels, golden ---------------------------------------------------------

namespace {

// GetDataTypeKernelParams(miopenFloat) (src/include/miopen/datatype.hpp:136-187) with the
// src/CMakeLists.txt:41-43 defaults: ExecutionContext::general_compile_options after SetupFloats.
const std::string kFp32 =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
// ConvBinWinoRxS<2,3>/<3,2> and ConvBinWinogradRxSf2x3g1 (src/solver/conv/conv_winoRxS.cpp:859-868):
// ROCM_METADATA_VERSION 5, FORCE_CACHE_BYPASS_ON_STORE 0 (not gfx940/941), then the wave flags.
const std::string kWino =
    "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,FORCE_CACHE_BYPASS_ON_STORE=0 -mcumode -mwavefrontsize64";
// ConvBinWinograd3x3U (conv_bin_wino3x3U.cpp:133-136) and ConvBinWinogradRxS (conv_bin_winoRxS.cpp:341-344).
const std::string kMetadata5 = "-Wa,-defsym,ROCM_METADATA_VERSION=5";

struct Golden {
    std::string file, args, symbol;
    auto operator<=>(const Golden&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Golden& g) {
    return os << "{" << g.file << " [" << g.symbol << "] \"" << g.args << "\"}";
}

// The three transforms of ConvWinograd3x3MultipassWrW<3-F> for an FP32 stride-1 problem
// (conv_multipass_wino3x3WrW.cpp:145-158, :252-264, :327-339; solvers.hpp:2128-2155):
// d_size = 3 + (F - 1) * stride.
std::vector<Golden> multipass_3xF(int f, const std::string& mcpu) {
    const auto d = [](const char* name, long v) { return fmt::format(" -Wa,-defsym,{}={}", name, v); };
    const std::string head = d("acc_type", 1) + d("buf_type", 1) + d("ROCM_METADATA_VERSION", 5);
    const std::string sizes = d("xformx_o_size", 3) + d("xformy_o_size", 3) + d("xformx_d_size", 3 + (f - 1)) +
                              d("xformy_d_size", 3 + (f - 1)) + d("xformx_f_size", f) + d("xformy_f_size", f) +
                              d("fdilation_w", 1) + d("fdilation_h", 1);
    const std::string rne = d("MIOPEN_USE_RNE_BFLOAT16", 1);
    const std::string suffix = fmt::format("_3_3_{}_{}", f, f);
    return {{"xform_data.s.o", head + sizes + rne + mcpu, "miopenGcnAsmWinogradXformData" + suffix},
            {"xform_filter.s.o", head + rne + sizes + mcpu, "miopenGcnAsmWinogradXformFilter" + suffix},
            {"xform_out.s.o", head + rne + sizes + mcpu, "miopenGcnAsmWinogradXformOut" + suffix}};
}

std::set<Golden> planned(const Plan& plan) {
    std::set<Golden> out;
    for (const auto& b : plan.builds)
        for (const auto& symbol : b.build.kernels) out.insert({b.build.kdb_name(), b.build.kdb_args(), symbol});
    return out;
}

// Plans share one database cache: reading a find-db is most of a plan's time.
Plan plan_keys(const std::vector<std::string>& keys, const char* target, SolverMode mode, const MiopenTree& tree) {
    static const auto databases = make_target_database_cache();
    ProblemSet problems;
    for (const auto& key : keys) problems.add(parse_conv_problem_key(key), "test");
    SolverPlanOptions options;
    options.tree = &tree;
    options.mode = mode;
    options.databases = databases;
    return plan_from_problems(problems, parse_target_list(target), options);
}

// Forward, C 36, 19x19, K 34, N 10, 3x3 pad 1 stride 1, FP32; not in any shipped find-db.
const char* kForward = "36-19-19-3x3-34-19-19-10-1x1-1x1-1x1-0-NCHW-FP32-F";
// Weights gradient: dy 22 x 13x13, x 20 x 13x13, N 6, 3x3 pad 1 stride 1, FP32; not in any find-db.
const char* kWrw = "22-13-13-3x3-20-13-13-6-1x1-1x1-1x1-0-NCHW-FP32-W";

// What MIOpen 3.3.0's DynamicHybrid find compiles for kForward (src/ocl/convolutionocl.cpp:174-190,
// src/conv/solver_finders.cpp:316-358; each solver's IsApplicable and GetSolution):
//  - gfx906_60: K = 34 >= 16 and even, and ConvBinWinograd3x3U applies (C = 36 even >= 18, 3x3
//    pad 1 stride 1 FP32; conv_bin_wino3x3U.cpp:45-103), so IsWinograd3x3SupportedAndFast
//    (src/convolution.cpp:385-401) leaves the Winograd finder alone: 3x3U (gfx9 file, :137-142),
//    ConvBinWinogradRxS (FP32 forward: conv_3x3_wheel_alpha_v9_0_15, conv_bin_winoRxS.cpp:373-385),
//    ConvBinWinoRxS<3,2> and ConvBinWinogradRxSf2x3g1 in their v21 form (gfx906 prefers v21,
//    conv_winoRxS.cpp:206-213; names :875-915). No naive conv and no im2col: the Direct and GEMM
//    finders do not run. (ConvBinWinoRxS<2,3> leaves ungrouped forward problems to f2x3g1.)
//  - gfx1030_36: no 3x3U (gfx803/900/906/908 only), so every finder runs: the v30 Winograd kernels
//    (gfx10 names), ConvDirectNaiveConvFwd (naive_conv.cpp, general options, both key forms;
//    conv_direct_naive_conv.cpp:124-150, :240-252) and GemmFwdRest's im2col of x (Im2d2ColGPU,
//    src/ocl/utilocl.cpp:43-260: one channel per group, tiles 32x8 -> ceil(19/32) * ceil(19/8) = 3
//    blocks, local memory (31 + 2 + 1) * (7 + 2 + 1) = 340).
// kWrw:
//  - gfx906_60: ConvWinograd3x3MultipassWrW<3-4>, <3-5>, <3-6> (3x3 weights = the data tile;
//    F3x2/F3x3 need stride 2), ConvBinWinogradRxS for WrW (Conv_Winograd_v16_5_0_stride1,
//    miopenSp3AsmConvRxSf3x2, conv_bin_winoRxS.cpp:368-372), ConvBinWinoRxS<2,3> (and f2x3g1, the
//    same key) and <3,2> in v21 form, ConvDirectNaiveConvWrw (both key forms), and GemmWrwUniversal
//    (gemm_wrw.cpp:440-470): SetTensor zeroes dw, 22 x 20 x 3 x 3 = 3960 values -> 4096 work items
//    (src/ocl/tensorocl.cpp:1498-1560), then the im2col of x (13x13: 1 x 2 blocks, 340).
//  - gfx1030_36: the same without the multipass transforms (GCN assembly for gfx8/gfx9, :490-491)
//    and without ConvBinWinogradRxS (gfx9 only), with the v30 Winograd kernels.
std::set<Golden> golden(const std::string& key, const std::string& target) {
    const bool gfx906 = target == "gfx906_60";
    const std::string mcpu = gfx906 ? " -mcpu=gfx906" : " -mcpu=gfx1030";
    const std::string wino_version = gfx906 ? "v21_1_3" : "v30_3_1";
    const std::string wino_arch = gfx906 ? "gfx9" : "gfx10";
    const auto wino = [&](const char* f) {
        return Golden{fmt::format("Conv_Winograd_{}_fp32_{}_stride1.s.o", wino_version, f), kWino + mcpu,
                      fmt::format("miopenSp3AsmConv_{}_{}_fp32_{}_stride1", wino_version, wino_arch, f)};
    };
    const std::string im2col_340 = " -DLOCAL_MEM_SIZE=340 -DSTRIDE_GT_1=0 -DNUM_IM_BLKS_EQ_1=0 -DUSE_IM_OFF_GUARD=1";
    std::set<Golden> out;
    if (key == kForward) {
        out = {wino("f3x2"), wino("f2x3")};
        if (gfx906) {
            out.insert({"conv_3x3_wheel_alpha_v7_0_3b.s.o", kMetadata5 + mcpu, "miopenSp3AsmConv3x3F"});
            out.insert({"conv_3x3_wheel_alpha_v9_0_15.s.o", kMetadata5 + mcpu, "miopenSp3AsmConvRxSU"});
        } else {
            const std::string naive = "naive_conv_ab_nonpacked_fwd_nchw_float_double_float";
            out.insert({"naive_conv.cpp.o", kFp32 + mcpu, naive});
            out.insert({"naive_conv.cpp.o", kFp32 + kFp32 + mcpu, naive});
            out.insert({"MIOpenIm2d2Col.cl.o", im2col_340 + kFp32 + mcpu, "Im2d2Col_v2"});
        }
    } else {
        out = {wino("f3x2"), wino("f2x3")};
        const std::string naive = "naive_conv_ab_nonpacked_wrw_nchw_float_double_float";
        out.insert({"naive_conv.cpp.o", kFp32 + mcpu, naive});
        out.insert({"naive_conv.cpp.o", kFp32 + kFp32 + mcpu, naive});
        out.insert({"MIOpenSubTensorOpWithScalarKernel.cl.o",
                    "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + kFp32 + " -DWORK_LENGTH_0=4096" + mcpu,
                    "SubTensorOpWithScalar1d"});
        out.insert({"MIOpenIm2d2Col.cl.o", im2col_340 + kFp32 + mcpu, "Im2d2Col_v2"});
        if (gfx906) {
            out.insert({"Conv_Winograd_v16_5_0_stride1.s.o", kMetadata5 + mcpu, "miopenSp3AsmConvRxSf3x2"});
            for (const int f : {4, 5, 6})
                for (const auto& g : multipass_3xF(f, mcpu)) out.insert(g);
        }
    }
    return out;
}

}  // namespace

// The default mode (--solvers find-db) for problems with no find-db record plans exactly what the
// dynamic find compiles; --solvers applicable plans at least that (and the non-dynamic solvers too).
TEST(DynamicFindWithTree, GoldenKeysForProblemsWithoutARecord) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    for (const char* target : {"gfx906_60", "gfx1030_36"}) {
        ASSERT_TRUE(tree.find_db(parse_target(target))) << "the target has a find-db, only not for these problems";
        for (const char* key : {kForward, kWrw}) {
            SCOPED_TRACE(std::string(target) + " " + key);
            const auto expected = golden(key, target);
            const Plan find_db_plan = plan_keys({key}, target, SolverMode::FindDb, tree);
            EXPECT_TRUE(find_db_plan.lines.empty()) << "no find-db line for the problem";
            EXPECT_EQ(planned(find_db_plan), expected);
            for (const auto& c : find_db_plan.coverage) {
                EXPECT_TRUE(c.dynamic_find) << c.solver;
                EXPECT_EQ(c.status, CoverageEntry::Status::Planned) << c.solver;
            }
            EXPECT_EQ(planned(plan_keys({key}, target, SolverMode::FindDbAll, tree)), expected);
            const auto applicable_keys = planned(plan_keys({key}, target, SolverMode::Applicable, tree));
            for (const auto& g : expected) EXPECT_TRUE(applicable_keys.count(g)) << "--solvers applicable lacks " << g;
        }
    }
}

// A network problem MIOpen has no find-db record for gets the dynamic find's kernels, the
// multipass WrW transforms among them, under --solvers applicable and under the default mode.
TEST(DynamicFindWithTree, NetworkProblemWithoutARecord) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    test::TempDir dir;
    const auto network = dir / "odd.toml";
    write_file_atomic(network, test::bytes_of("[network]\nname = \"odd\"\ninput = [20, 13, 13]\nbatch = [6]\n"
                                              "data_types = [\"FP32\"]\nmodes = [\"training\"]\n\n"
                                              "[[layer]]\ntype = \"conv\"\nout = 22\nkernel = 3\npad = 1\n"));
    ProblemSources sources;
    sources.networks = {network};
    const ProblemSet problems = gather_problems(sources);
    bool has_wrw = false;
    for (const auto& e : problems.entries()) has_wrw |= e.key == kWrw;
    ASSERT_TRUE(has_wrw) << "the network's weights-gradient problem is kWrw";
    const auto databases = make_target_database_cache();
    for (const SolverMode mode : {SolverMode::Applicable, SolverMode::FindDb}) {
        SolverPlanOptions options;
        options.tree = &tree;
        options.mode = mode;
        options.databases = databases;
        const Plan plan = plan_from_problems(problems, parse_target_list("gfx906_60"), options);
        const auto keys = planned(plan);
        for (const auto& g : golden(kWrw, "gfx906_60"))
            EXPECT_TRUE(keys.count(g)) << (mode == SolverMode::Applicable ? "applicable" : "find-db") << " lacks " << g;
        std::set<std::string> multipass;
        for (const auto& c : plan.coverage)
            if (c.problem == kWrw && c.solver.starts_with("ConvWinograd3x3MultipassWrW") &&
                c.status == CoverageEntry::Status::Planned)
                multipass.insert(c.solver);
        EXPECT_EQ(multipass, (std::set<std::string>{"ConvWinograd3x3MultipassWrW<3-4>", "ConvWinograd3x3MultipassWrW<3-5>",
                                                     "ConvWinograd3x3MultipassWrW<3-6>"}));
    }
}

// --- cards without a find-db of their own: the dynamic find's kernels, golden --------------------
//
// MIOpen 3.3.0 reads a system find-db only under the card's exact name (FindDbRecord_t::
// GetInstalledPathFile, src/find_db.cpp:124-197: <GetDbBasename()>.HIP.fdb.txt, the basename
// "<DbId>_<CUs>", src/include/miopen/handle.hpp:225-236). Its inexact search keeps the files whose
// path.extension() == path_suffix + ".fdb.txt" (:149-153); extension() is only ".txt", so it keeps
// none and returns an empty path (:187). The tree ships gfx1030_36 and no gfx10.3 sibling, gfx11 or
// gfx12 find-db: on gfx1100_48, gfx1201_32, gfx1031_20 and gfx1030_40 every problem takes the
// no-record path. kdbgen: MiopenTree::find_db (src/plan/miopen_tree.cpp:271-285).
//
// The no-record path (DynamicHybrid, src/CMakeLists.txt:44): GetSolutions finds no record, so
// FindConvolution runs FindCore with use_dynamic_solutions_only (src/ocl/convolutionocl.cpp:
// 154-190) over the five finders (src/conv/solver_finders.cpp:199-212); SearchForAllSolutions
// skips every solver whose IsDynamic() is false (src/include/miopen/find_solution.hpp:297) and
// PrecompileSolutions compiles the rest that apply (solver_finders.cpp:348-358); the GEMM
// solvers' helper kernels are built when EvaluateInvokers runs their invokers (:258-274).
// IsWinograd3x3SupportedAndFast (src/convolution.cpp:385-401) needs ConvBinWinograd3x3U, which
// takes gfx803/900/906/908 only (src/solver/conv/conv_bin_wino3x3U.cpp:62-63): false on all four
// cards, so the Direct, ImplicitGEMM, GEMM and FFT finders run too. Per finder, on these cards:
//  - Winograd (src/mlo_dir_conv.cpp:126-144), fwd and bwd-data list:
//    * ConvBinWinograd3x3U: gfx803/900/906/908 only (above). ConvBinWinogradRxS: gfx803/900/906/908 only
//      (src/solver/conv/conv_bin_winoRxS.cpp:256-275). ConvMPBidirectWinograd<>/_xdlops<>: off
//      (conv_MP_bidirectional_winograd.cpp:51-59).
//    * ConvBinWinoRxS<3,2> (kdbgen: ConvBinWinogradRxSf3x2) and ConvBinWinogradRxSf2x3g1
//      (IsApplicableBase, src/solver/conv/conv_winoRxS.cpp:656-758; f2x3g1 adds one group,
//      :1141-1147): gfx9, gfx10 and gfx11 only (:678-680), so NOT gfx1201; FP16 only on
//      gfx906/908/90a/94/1011/1012/103x/11 (:681-685): gfx1031 and gfx1030 match "gfx103", gfx1100
//      "gfx11"; stride 1 or 2, dilation 1, no bias, NCHW (:690-697); not a tiny tensor (H, W <= 6,
//      N, C <= 4; :713-723); bwd-data pads >= 0 (:305-313) and the V30 limits (:260-290: every
//      problem here is far below them). ConvBinWinoRxS<2,3> is off for one group outside WrW
//      (:764-772, WORKAROUND_ISSUE_1681 is 0, :55): its key is f2x3g1's anyway.
//    * ConvWinoFuryRxS<2,3> (IsDynamic, src/include/miopen/conv/solvers.hpp:2266; listed at
//      src/mlo_dir_conv.cpp:143; registered src/solver.cpp:619-620): FP16 only (src/solver/conv/
//      conv_wino_fury_RxS.cpp:248-249), "gfx11" only (:253-256), stride 1 and dilation 1
//      (:258-261), then WinoShaderArgsV2::SetConvParams (src/conv/kernel_interface/
//      winograd_kernel_interface.cpp:64-154) and IsShaderConstraintsMetV2 (conv_wino_fury_RxS.cpp:
//      81-100: R, S <= 3, ceil(K / 16) <= n_groups, one group). So only gfx1100_48, and only the
//      stride-1 FP16 problems below (1x1 weights fit R, S <= 3). Not in kdbgen's catalog.
//  - Direct (src/mlo_dir_conv.cpp:72-87): of its list only the naive convs are dynamic
//    (solvers.hpp:2836, :2856); ConvDirectNaiveConvFwd/Bwd need HIP kernels, NCHW or NHWC, FP32/
//    FP16/BF16/INT8/FP8 and their direction (conv_direct_naive_conv_fwd.cpp:39-83,
//    conv_direct_naive_conv_bwd.cpp:40-83): no device condition, every card.
//  - ImplicitGEMM (src/mlo_dir_conv.cpp:89-124): no dynamic member applies on gfx10/11/12.
//    V4R1Dynamic Fwd/Fwd_1x1/Bwd take gfx900/906 (conv_asm_implicit_gemm_v4r1_dynamic.cpp:290, :339;
//    conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp:140); GTC Fwd/Bwd Xdlops gfx908 (conv_asm_implicit_
//    gemm_gtc_fwd.cpp:1511, _bwd.cpp:986); the NHWC ones gfx908/90a/94x (_fwd_nhwc.cpp:886-887,
//    _bwd_nhwc.cpp:943-944); GTCDynamicFwdDlopsNCHWC "gfx1030" with NCHWc tensors only
//    (conv_asm_implicit_gemm_gtc_fwd_nchwc.cpp:556-557, :575); the composable-kernel solvers need
//    xdlops or the CK whitelist gfx908/90a/94x (src/include/miopen/solver/implicitgemm_util.hpp:
//    206-218, ck_utility_common.hpp:72-77) and build nothing for a kdb anyway.
//  - GEMM (src/mlo_dir_conv.cpp:57-70): no device condition (rocBLAS handles FP16,
//    src/include/miopen/solver/gemm_common.hpp:46-47); the one that applies depends on the shape
//    (below). FFT: fft is not dynamic (solvers.hpp keeps SolverBase's false).
//
// Key forms: as in golden() above, "-mcpu=<name>" is what Handle::LoadProgram appends
// (src/hip/handlehip.cpp:545-560); the naive convs carry the general options once (the find,
// SetupFloats at src/ocl/convolutionocl.cpp:258-263 forward, :884-889 backward data) and twice
// (PrepareInvoker's SetupFloats on that context, :82-95, when the found solution is compiled
// again, :116-122).

namespace {

// GetDataTypeKernelParams(miopenHalf) (src/include/miopen/datatype.hpp:135-187) with the
// src/CMakeLists.txt:41-43 defaults: FP16 problems' general options (SetupFloats,
// src/conv/problem_description.cpp:279-290) and what the GEMM helpers pass for half tensors.
const std::string kFp16 =
    " -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";

// Forward, C 64, 28x28, K 128, N 8, 1x1 pad 0 stride 2, FP16.
const char* kFwd1x1Stride2Fp16 = "64-28-28-1x1-128-14-14-8-0x0-2x2-1x1-0-NCHW-FP16-F";
// Forward, C 64, 28x28, K 128, N 8, 1x1 pad 0 stride 1, FP16.
const char* kFwd1x1Fp16 = "64-28-28-1x1-128-28-28-8-0x0-1x1-1x1-0-NCHW-FP16-F";
// Backward data: dy 64 x 14x14, dx 32 x 14x14 (ProblemDescription's "in" is dy, "out" dx;
// src/include/miopen/conv/problem_description.hpp:117-119), N 4, 3x3 pad 1 stride 1, FP16.
const char* kBwd3x3Fp16 = "64-14-14-3x3-32-14-14-4-1x1-1x1-1x1-0-NCHW-FP16-B";
// A line of gfx1030_36.HIP.fdb.txt.bz2 (MIOpen 3.3.0): C 512, 10x10, K 24, N 32, 3x3 pad 1
// stride 1, FP32. Its items: ConvBinWinogradRxSf2x3g1 0.348439 ms, ConvDirectNaiveConvFwd
// 3.35955, GemmFwdRest 8.86654 (workspace 1843200).
const char* kGfx1030Line = "512-10-10-3x3-24-10-10-32-1x1-1x1-1x1-0-NCHW-FP32-F";

const char* kFurySolver = "ConvWinoFuryRxS<2-3>";

struct NoRecordGolden {
    std::set<std::string> solvers;  // the dynamic solvers that apply
    std::set<Golden> keys;
};

// ConvBinWinoRxS<F>::GetSolution (conv_winoRxS.cpp:815-915, f2x3g1 through <2,3> at :1155-1160):
// options kWino (:863-868); not gfx900/906, so v30_3_1 (:209-214, :870); the name takes _gfx10 /
// _gfx11 (:875-886), FP16 is "_fp16_dot2" outside gfx9 (:893-897); "_stride2" for a stride-2
// problem that is not backward data (:901-912).
Golden winograd_v30(const std::string& arch, const char* type, const char* f, const char* stride,
                    const std::string& mcpu) {
    return {fmt::format("Conv_Winograd_v30_3_1_{}_{}_{}.s.o", type, f, stride), kWino + mcpu,
            fmt::format("miopenSp3AsmConv_v30_3_1_{}_{}_{}_{}", arch, type, f, stride)};
}

// ConvWinoFuryRxSCommon<2,3>::GetSolution (conv_wino_fury_RxS.cpp:296-428): gfx1100 keeps the full
// VGPR file (GpuHasReducedVGPRMem, :107-112), so the name says _1536vgprs and ShaderModel picks C32
// or C16 (:323-325); the file name leaves the gfx11/VGPR part out (:341-371, the kernel file
// src/kernels/winograd/Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c16_stride1.s picks the
// 1536-VGPR body for gfx1100); options ROCM_METADATA_VERSION=5 then the wave flags (:379-383).
Golden fury_gfx1100(const char* c_mode, const std::string& mcpu) {
    return {fmt::format("Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_{}_stride1.s.o", c_mode),
            kMetadata5 + " -mcumode -mwavefrontsize64" + mcpu,
            fmt::format("miopenSp3AsmConvFury_v2_4_1_gfx11_1536vgprs_fp16_fp16acc_f2x3_{}_stride1", c_mode)};
}

// The naive conv (conv_direct_naive_conv.cpp: name :124-221, file naive_conv.cpp :223-238, options
// the general options :240-273), in both key forms.
void add_naive(std::set<Golden>& out, const std::string& symbol, const std::string& general, const std::string& mcpu) {
    out.insert({"naive_conv.cpp.o", general + mcpu, symbol});
    out.insert({"naive_conv.cpp.o", general + general + mcpu, symbol});
}

// What MIOpen 3.3.0 compiles for `key` on a card without a find-db (`card` is one of the four).
//
// FP32 forward 3x3 pad 1 stride 1 (kForward, kGfx1030Line):
//  - ConvBinWinoRxS<3,2> and f2x3g1 on gfx10/gfx11 (fp32, stride1); not gfx1201.
//  - ConvDirectNaiveConvFwd, float in/out, double accumulator (conv_direct_naive_conv.cpp:177-211).
//  - GemmFwdRest (src/solver/conv/gemm.cpp:862-880): not 1x1, so neither GemmFwd1x1_0_1 (:638-659),
//    _int8 (:489-511) nor _0_2 (:225-245); its invoker calls Im2ColGPU for x (:966-978) ->
//    Im2d2ColGPU (src/ocl/utilocl.cpp:43-260): out 19x19 / 10x10 > 8, so one channel per group
//    (:110-114); 32x8 tiles (:116-121): ceil(19/32) * ceil(19/8) = 3 and ceil(10/32) * ceil(10/8)
//    = 2 blocks, NUM_IM_BLKS_EQ_1=0; local memory (31 + 2 + 1) * (7 + 2 + 1) = 340 (:123-127),
//    x4 bytes under 64 KiB; then the float block (:184-190); no 64-bit index (:198-253).
// FP16 forward 1x1 pad 0 stride 2 (kFwd1x1Stride2Fp16):
//  - ConvBinWinoRxS<3,2> and f2x3g1 on gfx10/gfx11, "_fp16_dot2_*_stride2" (no filter-size
//    condition: 1x1 passes); Fury needs stride 1: none.
//  - ConvDirectNaiveConvFwd, half in/out.
//  - GemmFwd1x1_0_2 (gemm.cpp:225-245: 1x1, pad 0, stride 2; workspace 8*64*14*14*2 + 8*128*14*14*2
//    bytes, :186-220), so not GemmFwdRest (:874-875). Its invoker transposes x and y
//    (:320-333, :408-421): transpose_NCHW2CNHW / transpose_CNHW2NCHW of MIOpenUtilKernels4.cl with
//    the half block (src/ocl/utilocl.cpp:782, :916); not float with stride 1, so the V2 kernels
//    (:784, :829, :848, :851; :918, :962, :978, :985): one program, two symbols.
// FP16 forward 1x1 pad 0 stride 1 (kFwd1x1Fp16):
//  - ConvBinWinoRxS<3,2> and f2x3g1 on gfx10/gfx11, "_fp16_dot2_*_stride1".
//  - Fury on gfx1100: R = S = 1, K 128 -> 8 <= 96 groups (GetNGroups, :72-79, of
//    GetMaxHardwareComputeUnits = 2 x 48 WGPs, src/include/miopen/handle.hpp:160-165). PerfPrediction
//    (:157-213) with N 8, C 64, K 128, 28x28 out: Rg = Sg = 3, Kg 128, oHg 28, oWg 30, k_ways 8,
//    nhw_tiles 8*14*15 = 1680, n_groups_e 96, n_works 8 * ceil(1680/62) = 224, per CU
//    ceil(224/96) * 1 = 3, filter reloads 1. C32: c_loops 2, 4*2600 + 3*2938 + 3*2989 + 2*2600 =
//    33381 clk; C16: c_loops 4, 6*1450 + 9*1645 + 3*1696 + 4*1450 = 34393: C32 (<=, :153).
//  - ConvDirectNaiveConvFwd, half.
//  - GemmFwd1x1_0_1 (gemm.cpp:638-659: 1x1, pad 0, stride 1, not INT8), so not GemmFwdRest
//    (:870-871): rocBLAS alone (its invoker, :662-855, adds no MIOpen kernel): nothing for a kdb.
// FP16 backward data 3x3 pad 1 stride 1 (kBwd3x3Fp16):
//  - ConvBinWinoRxS<3,2> and f2x3g1 on gfx10/gfx11 ("_stride1"; backward pad 3 - 1 - 1 = 1).
//  - Fury on gfx1100: SetConvParams outside WrW takes N 4, C 64 (dy), K 32 (dx), 14x14, R = S = 3
//    (winograd_kernel_interface.cpp:82-101); K 32 -> 2 <= 96 groups. PerfPrediction: Kg 32,
//    oHg 14, oWg 16, k_ways 2, nhw_tiles 4*7*8 = 224, n_works 2 * ceil(224/62) = 8, per CU 1,
//    reloads 1. C32: c_loops 2, 4*2600 + 1*2938 + 1*2989 + 2*2600 = 21527; C16: c_loops 4,
//    6*1450 + 3*1645 + 1*1696 + 4*1450 = 21131: C16. (This reading of the model gives the labels of
//    MIOpen's own Fury tests, test/gtest/unit_conv_solver_ConvWinoFuryRxS.cpp:37-38: N 1, 16x16,
//    C = K = 16 is C16 (11846 < 15989 clk), C = K = 128 is C32 (32603 <= 33511).)
//  - ConvDirectNaiveConvBwd, half.
//  - GemmBwdRest (src/solver/conv/gemm_bwd.cpp:585-600; 3x3, so neither GemmBwd1x1_stride1 :399-420
//    nor _stride2 :198-221): Col2ImGPU into dx (:730-742) -> Col2Im2dGPU (src/ocl/utilocl.cpp:
//    403-486): the half block, then MIOPEN_USE_64BIT_INDEX=0 (32 * 14*14 * 3*3 < 2^32, :464-479).
NoRecordGolden golden_without_find_db(const std::string& key, const std::string& card) {
    const std::string arch = card.substr(0, card.find('_'));
    const std::string mcpu = " -mcpu=" + arch;
    const bool gfx10 = arch.starts_with("gfx10"), gfx11 = arch.starts_with("gfx11");
    const bool rxs = gfx10 || gfx11;  // ConvBinWinoRxS<3,2>, f2x3g1: gfx9/10/11 (conv_winoRxS.cpp:678-680)
    const bool fury = arch == "gfx1100";
    const std::string wino_arch = gfx10 ? "gfx10" : "gfx11";
    NoRecordGolden g;
    const auto add_winograd = [&](const char* type, const char* stride) {
        if (!rxs) return;
        g.solvers.insert("ConvBinWinogradRxSf3x2");
        g.solvers.insert("ConvBinWinogradRxSf2x3g1");
        g.keys.insert(winograd_v30(wino_arch, type, "f3x2", stride, mcpu));
        g.keys.insert(winograd_v30(wino_arch, type, "f2x3", stride, mcpu));
    };
    if (key == kForward || key == kGfx1030Line) {
        add_winograd("fp32", "stride1");
        g.solvers.insert("ConvDirectNaiveConvFwd");
        g.solvers.insert("GemmFwdRest");
        add_naive(g.keys, "naive_conv_ab_nonpacked_fwd_nchw_float_double_float", kFp32, mcpu);
        g.keys.insert({"MIOpenIm2d2Col.cl.o",
                       " -DLOCAL_MEM_SIZE=340 -DSTRIDE_GT_1=0 -DNUM_IM_BLKS_EQ_1=0 -DUSE_IM_OFF_GUARD=1" + kFp32 + mcpu,
                       "Im2d2Col_v2"});
    } else if (key == kFwd1x1Stride2Fp16) {
        add_winograd("fp16_dot2", "stride2");
        g.solvers.insert("ConvDirectNaiveConvFwd");
        g.solvers.insert("GemmFwd1x1_0_2");
        add_naive(g.keys, "naive_conv_ab_nonpacked_fwd_nchw_half_double_half", kFp16, mcpu);
        g.keys.insert({"MIOpenUtilKernels4.cl.o", kFp16 + mcpu, "transpose_NCHW2CNHW_V2_2D_WG_off64"});
        g.keys.insert({"MIOpenUtilKernels4.cl.o", kFp16 + mcpu, "transpose_CNHW2NCHW_V2_2D_WG_off64"});
    } else if (key == kFwd1x1Fp16) {
        add_winograd("fp16_dot2", "stride1");
        if (fury) {
            g.solvers.insert(kFurySolver);
            g.keys.insert(fury_gfx1100("c32", mcpu));
        }
        g.solvers.insert("ConvDirectNaiveConvFwd");
        g.solvers.insert("GemmFwd1x1_0_1");
        add_naive(g.keys, "naive_conv_ab_nonpacked_fwd_nchw_half_double_half", kFp16, mcpu);
    } else if (key == kBwd3x3Fp16) {
        add_winograd("fp16_dot2", "stride1");
        if (fury) {
            g.solvers.insert(kFurySolver);
            g.keys.insert(fury_gfx1100("c16", mcpu));
        }
        g.solvers.insert("ConvDirectNaiveConvBwd");
        g.solvers.insert("GemmBwdRest");
        add_naive(g.keys, "naive_conv_ab_nonpacked_bwd_nchw_half_double_half", kFp16, mcpu);
        g.keys.insert({"MIOpenCol2Im2d.cl.o", kFp16 + " -DMIOPEN_USE_64BIT_INDEX=0" + mcpu, "Col2Im2dU"});
    } else {
        throw std::runtime_error("no golden for " + key);
    }
    return g;
}

}  // namespace

// Per card, with the four problems (keys in all; solvers that apply):
//  - gfx1100_48: kForward 5 (f3x2, f2x3g1 gfx11 fp32; naive x2; im2col), kFwd1x1Stride2Fp16 6
//    (f3x2, f2x3g1 gfx11 fp16 stride2; naive x2; 2 transposes), kFwd1x1Fp16 5 (f3x2, f2x3g1 gfx11
//    fp16; Fury C32; naive x2; GemmFwd1x1_0_1 without keys), kBwd3x3Fp16 6 (f3x2, f2x3g1; Fury C16;
//    naive bwd x2; col2im).
//  - gfx1201_32: no Winograd at all (ConvBinWinoRxS stops at gfx11, Fury is gfx11 only): 3, 4, 2, 3.
//  - gfx1031_20, gfx1030_40: the gfx10 Winograd kernels, no Fury: 5, 6, 4, 5.
// Then a card whose own find-db MIOpen reads (gfx1030_36) against one whose it does not
// (gfx1030_40), for a problem that is a line of gfx1030_36's find-db: there MIOpen compiles only
// the line's winner (GetSolutions sorts the items by time and takes the first valid, enabled and
// applicable one, src/ocl/convolutionocl.cpp:549-565, :698-760; FindConvolution compiles just it,
// :152-172): ConvBinWinogradRxSf2x3g1, which applies on gfx1030 (FP32, 3x3 stride 1) -> one key.
// On gfx1030_40 the same problem has no record and gets the dynamic find's five keys.
TEST(DynamicFindWithTree, GoldenKeysOnCardsWithoutAFindDb) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    for (const char* card : {"gfx1100_48", "gfx1201_32", "gfx1031_20", "gfx1030_40"}) {
        EXPECT_FALSE(tree.find_db(parse_target(card))) << card << ": MIOpen 3.3.0 reads no find-db for it";
        for (const char* key : {kForward, kFwd1x1Stride2Fp16, kFwd1x1Fp16, kBwd3x3Fp16}) {
            SCOPED_TRACE(std::string(card) + " " + key);
            const auto expected = golden_without_find_db(key, card);
            const Plan plan = plan_keys({key}, card, SolverMode::FindDb, tree);
            EXPECT_TRUE(plan.lines.empty()) << "no find-db line for the problem";
            EXPECT_EQ(planned(plan), expected.keys);
            std::set<std::string> solvers;
            for (const auto& c : plan.coverage) {
                EXPECT_TRUE(c.dynamic_find) << c.solver;
                // GemmFwd1x1_0_1 runs rocBLAS alone: served, with nothing to build.
                EXPECT_EQ(c.status, c.solver == "GemmFwd1x1_0_1" ? CoverageEntry::Status::Gemm
                                                                 : CoverageEntry::Status::Planned)
                    << c.solver;
                // MIOpen names the solver by its type (GetSolverDbId, src/include/miopen/solver.hpp:93-110);
                // a port may spell the template arguments its own way.
                solvers.insert(c.solver.starts_with("ConvWinoFuryRxS") ? std::string(kFurySolver) : c.solver);
            }
            EXPECT_EQ(solvers, expected.solvers);
            EXPECT_EQ(planned(plan_keys({key}, card, SolverMode::FindDbAll, tree)), expected.keys);
        }
    }

    // gfx1030_36: MIOpen reads its find-db (the exact name, src/find_db.cpp:127-137); gfx1030_40:
    // none, although the tree has a gfx1030 find-db for another CU count (:149-153, :187).
    const auto own = tree.find_db(parse_target("gfx1030_36"));
    ASSERT_TRUE(own);
    EXPECT_TRUE(own->filename().string().starts_with("gfx1030_36.HIP.fdb.txt")) << own->string();
    EXPECT_FALSE(tree.find_db(parse_target("gfx1030_40")));

    const Plan with_line = plan_keys({kGfx1030Line}, "gfx1030_36", SolverMode::FindDb, tree);
    ASSERT_EQ(with_line.lines.size(), 1u) << "the problem is a line of gfx1030_36's find-db";
    EXPECT_EQ(with_line.lines[0].problem, kGfx1030Line);
    EXPECT_EQ(with_line.lines[0].winner, "ConvBinWinogradRxSf2x3g1");
    for (const auto& c : with_line.coverage) EXPECT_FALSE(c.dynamic_find) << c.solver;
    // ConvBinWinogradRxSf2x3g1's kernel on gfx1030 (conv_winoRxS.cpp:815-915, :1155-1160).
    const std::set<Golden> line_keys = {winograd_v30("gfx10", "fp32", "f2x3", "stride1", " -mcpu=gfx1030")};
    EXPECT_EQ(planned(with_line), line_keys);

    const Plan without_line = plan_keys({kGfx1030Line}, "gfx1030_40", SolverMode::FindDb, tree);
    EXPECT_TRUE(without_line.lines.empty());
    const auto dynamic = golden_without_find_db(kGfx1030Line, "gfx1030_40");
    EXPECT_EQ(dynamic.keys.size(), 5u);
    EXPECT_EQ(planned(without_line), dynamic.keys);
    std::set<std::string> solvers;
    for (const auto& c : without_line.coverage) {
        EXPECT_TRUE(c.dynamic_find) << c.solver;
        solvers.insert(c.solver);
    }
    EXPECT_EQ(solvers, dynamic.solvers);
    EXPECT_NE(line_keys, dynamic.keys);
    EXPECT_TRUE(dynamic.keys.count(*line_keys.begin())) << "the winner's kernel is among the dynamic find's";
}

// Items tied on time: MIOpen holds a record's items in an std::unordered_map
// (src/include/miopen/db_record.hpp:167, MIOpen 3.3.0) and sorts them by their float times
// (src/ocl/convolutionocl.cpp:549-565, :706-742), so among equal times it may run either; both
// are planned. gfx90a6e's line for this key lists ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm
// and ConvOclDirectFwd, both at 0.00352. A line of fusion ids only (gfx1030_36 has 92) is one
// MIOpen 3.3 cannot run: counted as such, and the no-record path is planned for it.
TEST(DynamicFindWithTree, TiedItemsArePlannedAndFusionOnlyLinesCounted) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    const char* tied_key = "1-7-7-3x3-1-5-5-64-0x0-1x1-1x1-0-NCHW-BF16-F";
    const Plan tied = plan_keys({tied_key}, "gfx90a_110", SolverMode::FindDb, tree);
    ASSERT_EQ(tied.lines.size(), 1u);
    EXPECT_EQ(tied.lines[0].winner, "ConvHipImplicitGemmForwardV4R4Xdlops_Padded_Gemm");
    EXPECT_EQ(tied.lines[0].tied, std::vector<std::string>{"ConvOclDirectFwd"});
    EXPECT_EQ(tied.lines[0].status, CoverageEntry::Status::Planned) << tied.lines[0].detail;
    std::set<std::string> files;
    for (const auto& b : tied.builds) files.insert(b.build.kernel_file);
    EXPECT_TRUE(files.count("MIOpenConvDirUni.cl")) << "ConvOclDirectFwd's kernel";
    EXPECT_TRUE(std::any_of(files.begin(), files.end(), [](const std::string& f) { return f.ends_with(".cpp"); }))
        << "the implicit GEMM's HIP kernel";
    EXPECT_FALSE(files.count("naive_conv.cpp")) << "the slower items stay out";

    const Plan fused = plan_keys({"128-10-10-3x3-256-5-5-100-0x0-2x2-1x1-0-NCHW-FP32-F"}, "gfx1030_36", SolverMode::FindDb, tree);
    ASSERT_EQ(fused.lines.size(), 1u);
    EXPECT_TRUE(fused.lines[0].fusion_only);
    EXPECT_TRUE(fused.lines[0].winner.empty());
    bool dynamic = false;
    for (const auto& c : fused.coverage) dynamic |= c.dynamic_find && c.status == CoverageEntry::Status::Planned;
    EXPECT_TRUE(dynamic) << "MIOpen falls back to the no-record path";
}

// The CK solvers' helpers through the planner: gfx90a68.HIP.fdb.txt (MIOpen 3.3.0) heads this NCDHW
// backward-weights line with ConvHipImplicitGemm3DGroupWrwXdlops, whose invoker transposes the tensors
// with batched_transpose.cpp (implicitgemm_ck_util.hpp:481-501); a MIOpen built without CK
// (MIOPEN_USE_COMPOSABLEKERNEL off, --ck off) takes the line's next item instead.
TEST(DynamicFindWithTree, ACkWinnerPlansItsTransposesUnlessCkIsOff) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    const char* key = "128-32-32-32-3x3x3-256-32-32-32-1-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-W";
    const auto plan_with = [&](bool ck) {
        ProblemSet problems;
        problems.add(parse_conv_problem_key(key), "test");
        SolverPlanOptions options;
        options.tree = &tree;
        options.build.composable_kernel = ck;
        return plan_from_problems(problems, parse_target_list("gfx90a:sramecc+:xnack-_104"), options);
    };
    const auto has_transpose = [](const Plan& plan) {
        return std::any_of(plan.builds.begin(), plan.builds.end(),
                           [](const auto& b) { return b.build.kdb_name() == "batched_transpose.cpp.o"; });
    };
    const Plan with = plan_with(true);
    EXPECT_TRUE(has_transpose(with));
    bool ck_planned = false;
    for (const auto& c : with.coverage)
        ck_planned |= c.solver == "ConvHipImplicitGemm3DGroupWrwXdlops" && c.status == CoverageEntry::Status::Planned;
    EXPECT_TRUE(ck_planned);
    const Plan without = plan_with(false);
    EXPECT_FALSE(has_transpose(without));
    for (const auto& c : without.coverage)
        if (c.solver == "ConvHipImplicitGemm3DGroupWrwXdlops") {
            EXPECT_EQ(c.status, CoverageEntry::Status::DefaultOff);
        }
}
