// The kernel-manifest planner behind the built-in demo.
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace kdbgen;

TEST(Plan, DemoManifestPlansEveryVariantForEveryTarget) {
    const auto targets = parse_target_list("gfx1030_36,gfx90a_110");
    const auto plan = plan_from_manifest(test::source_dir() / "configs/demo/kernels.toml", test::kernels_dir(), targets);
    EXPECT_EQ(plan.builds.size(), 2u * (4 + 3 + 2));
    for (const auto& planned : plan.builds) {
        EXPECT_TRUE(planned.build.kdb_args().ends_with(planned.build.target.mcpu_suffix()));
        EXPECT_TRUE(planned.build.kdb_name().ends_with(".o"));
    }
    const auto& first = plan.builds.front().build;
    EXPECT_EQ(first.kdb_name(), "kdbgen_activation.cpp.o");
    EXPECT_EQ(first.kdb_args(), "-DMIOPEN_USE_FP16=0 -DKDBGEN_ACTIVATION=0 -mcpu=gfx1030");
}

TEST(Plan, DeduplicatesRepeatedKeys) {
    test::TempDir dir;
    std::ofstream(dir / "m.toml") << "[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"KdbgenFill\"]\n"
                                     "options = [\"-Wa,-defsym,A=1\", \"-Wa,-defsym,A=1\"]\n";
    const auto plan = plan_from_manifest(dir / "m.toml", test::kernels_dir(), parse_target_list("gfx1030_36"));
    EXPECT_EQ(plan.builds.size(), 1u);
}

// deduplicate() compares the kdb args (options + " -mcpu=...") without joining them; where
// one options string is a prefix of another, the suffix decides, as in the joined strings:
// "-DA" + " -mcpu" sorts after "-DA\x1f" + " -mcpu" although "-DA" < "-DA\x1f", and after
// "-DA -DB" + " -mcpu" ('D' < 'm').
TEST(Plan, DeduplicateOrdersAndMergesByTheWholeKdbArgs) {
    const Target target = parse_target_list("gfx1030_36").front();
    Plan plan;
    for (const std::string options : {"-DA", "-DA\x1f", "-DA!", "-DA", "-DA -DB", "-DA\x1f"})
        plan.builds.push_back({KernelBuild{test::kernels_dir() / "kdbgen_fill.s", "kdbgen_fill.s", options, target,
                                           {"KdbgenFill"}, {}},
                               "test", "", {}});
    deduplicate(plan);
    std::vector<std::string> args;
    for (const auto& planned : plan.builds) args.push_back(planned.build.kdb_args());
    const std::vector<std::string> expected{"-DA\x1f -mcpu=gfx1030", "-DA -DB -mcpu=gfx1030", "-DA -mcpu=gfx1030",
                                            "-DA! -mcpu=gfx1030"};
    EXPECT_EQ(args, expected);
}

TEST(Plan, BadManifestNamesFileAndLine) {
    test::TempDir dir;
    const auto expect_error = [&](const std::string& text, const std::string& needle) {
        std::ofstream(dir / "m.toml") << text;
        try {
            plan_from_manifest(dir / "m.toml", test::kernels_dir(), parse_target_list("gfx1030_36"));
            ADD_FAILURE() << "no error for: " << text;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find((dir / "m.toml").string()), std::string::npos) << e.what();
        }
    };
    expect_error("[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"K\"\n", ":3:");
    expect_error("[[kernel]]\nfile = \"nope.cl\"\nsymbols = [\"K\"]\noptions = [\"\"]\n", "nope.cl");
    expect_error("[[kernel]]\nfile = \"kdbgen_fill.s\"\noptions = [\"\"]\n", "needs 'symbols'");
    expect_error("[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"K\"]\noptions = [1]\n", ":4:");
}

// canonical_options drops a -D define that repeats the macro's current definition, so that
// MIOpen's two key forms (the data-type block once or twice) compile once; a define that
// differs, or repeats an older definition after a newer one, stays.
TEST(Plan, CanonicalOptionsDropOnlyRepeatedCurrentDefinitions) {
    EXPECT_EQ(canonical_options(" -DA=1 -DB=2 -DA=1 -DB=2"), "-DA=1 -DB=2");
    EXPECT_EQ(canonical_options("-DA=1 -DA=2 -DA=1"), "-DA=1 -DA=2 -DA=1");
    EXPECT_EQ(canonical_options("-DA -DA -DA=1"), "-DA -DA=1");
    EXPECT_EQ(canonical_options("-x  -y\t-DZ=3 -DZ=3  --std=c++14 --std=c++14"), "-x -y -DZ=3 --std=c++14 --std=c++14");
    EXPECT_EQ(canonical_options(""), "");
    EXPECT_EQ(canonical_options("   "), "");
    const std::string block = " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1";
    EXPECT_EQ(canonical_options(" -DK=4" + block + block + " -mcpu=gfx90a"), canonical_options(" -DK=4" + block + " -mcpu=gfx90a"));
}

// --- key families (src/plan/key_families.cpp) -----------------------------------------------------

namespace {

PlannedBuild family_member(const std::string& file, const std::string& options) {
    PlannedBuild b;
    b.build.source = "/tree/src/kernels/" + file;
    b.build.kernel_file = file;
    b.build.options = options;
    b.build.target = parse_target("gfx1100");
    b.build.kernels = {"k"};
    b.kind = "conv";
    return b;
}

}  // namespace

// One planned SetTensor key brings all the others MIOpen can form: SetTensor over a packed tensor
// is flattened to 1-D (src/ocl/tensorocl.cpp:44-48, MIOpen 3.3.0), its work size rounded up to a
// power of two and capped at 65536 (:1470-1495), -DWORK_LENGTH_0 that size (:1498-1560): 17 values,
// for each type block a GEMM or GTC solver zeroes with (FP32, FP16, BF16). The options are as
// sub_tensor_op_with_scalar forms them (src/plan/solver_registry.cpp).
TEST(KeyFamilies, SetTensorGetsEveryWorkLengthOfEveryType) {
    Plan plan;
    plan.targets = {parse_target("gfx1100")};
    const std::string head = "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET";
    plan.builds.push_back(family_member("MIOpenSubTensorOpWithScalarKernel.cl",
                                        head + " " + data_type_defines(DataType::Float) + " -DWORK_LENGTH_0=4096"));
    const std::size_t added = complete_key_families(plan);
    EXPECT_EQ(added, 3u * 17u - 1u);
    std::set<std::string> options;
    for (const auto& b : plan.builds) options.insert(b.build.options);
    for (const DataType type : {DataType::Float, DataType::Half, DataType::BFloat16})
        for (long work = 1; work <= 65536; work *= 2)
            EXPECT_TRUE(options.count(head + " " + data_type_defines(type) + " -DWORK_LENGTH_0=" + std::to_string(work)))
                << key_name(type) << " " << work;
    EXPECT_EQ(options.size(), 51u);
    EXPECT_EQ(complete_key_families(plan), 0u) << "complete already";
}

// The naive convolutions take the general options, the x type's block once or twice
// (conv_direct_naive_conv.cpp:240-270; the doubled form, DESIGN.md): each form gets every type a
// naive convolution takes (FP32, FP16, BF16, INT8 forward); kernels outside a family are left alone.
TEST(KeyFamilies, NaiveConvolutionGetsEveryTypeInBothForms) {
    Plan plan;
    plan.targets = {parse_target("gfx1100")};
    const std::string fp16 = " " + data_type_defines(DataType::Half);
    plan.builds.push_back(family_member("naive_conv.cpp", fp16));
    plan.builds.push_back(family_member("naive_conv.cpp", fp16 + fp16));
    plan.builds.push_back(family_member("MIOpenBatchNormFwdTrainSpatial.cl", " -DMIO_BN_N=8"));
    EXPECT_EQ(complete_key_families(plan), 6u);
    std::set<std::string> options;
    for (const auto& b : plan.builds)
        if (b.build.kernel_file == "naive_conv.cpp") options.insert(b.build.options);
    for (const DataType type : {DataType::Float, DataType::Half, DataType::BFloat16, DataType::Int8}) {
        const std::string block = " " + data_type_defines(type);
        EXPECT_TRUE(options.count(block)) << key_name(type);
        EXPECT_TRUE(options.count(block + block)) << key_name(type);
    }
    EXPECT_EQ(plan.builds.size(), 9u);
}

// src/plan/external_solvers.cpp lists only what the catalog does not port: a solver that is
// ported and still listed there would have two answers to "does MIOpen run it" (the port's
// disabled_by_default and the list's), and the list's would be dead text.
TEST(ExternalSolvers, NeverOverlapTheCatalog) {
    const auto names = external_solver_names();
    // 28 since the seven CK solvers that run MIOpen kernels around CK's moved to the catalog (issue #39).
    ASSERT_GE(names.size(), 28u);
    for (const auto name : names) {
        EXPECT_EQ(find_solver(name), nullptr) << name << " is ported: take it out of src/plan/external_solvers.cpp";
        EXPECT_TRUE(external_solver(name)) << name;
    }
    // The two that were ported while still listed (MIOpen 3.3.0, both off by default there).
    for (const char* ported : {"ConvHipImplicitGemmBwdDataV4R1", "ConvHipImplicitGemmBwdDataV1R1Xdlops"}) {
        EXPECT_NE(find_solver(ported), nullptr) << ported;
        EXPECT_FALSE(external_solver(ported)) << ported;
    }
}

// One target's builds (a build plans each architecture alone) are sorted in two halves on
// two threads and merged: each (kdb name, args) once, in key order, with the symbols of all
// its builds in first-seen order, as sorting them whole gives.
TEST(Plan, DeduplicateOfOneLargeTargetIsTheWholeSort) {
    const Target target = parse_target_list("gfx1030_36").front();
    // 30,000 builds over 8,000 keys (4,000 options, two files), three symbols.
    struct Made {
        std::string file, options, symbol;
    };
    std::vector<Made> made;
    std::uint32_t state = 12345;
    const auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (int i = 0; i < 30000; ++i)
        made.push_back({(next() >> 16) % 2 ? "a.cl" : "b.cl", "-DN=" + std::to_string((next() >> 8) % 4000) + " -DUSE=1",
                        "K" + std::to_string((next() >> 16) % 3)});
    Plan plan;
    for (const auto& m : made)
        plan.builds.push_back(
            {KernelBuild{test::kernels_dir() / "kdbgen_fill.s", m.file, m.options, target, {m.symbol}, {}}, "test", "", {}});
    deduplicate(plan);
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> reference;
    for (const auto& m : made) {
        auto& symbols = reference[{m.file + ".o", m.options + " -mcpu=gfx1030"}];
        if (std::find(symbols.begin(), symbols.end(), m.symbol) == symbols.end()) symbols.push_back(m.symbol);
    }
    ASSERT_GT(reference.size(), 7000u);
    ASSERT_EQ(plan.builds.size(), reference.size());
    std::size_t at = 0;
    for (const auto& [key, symbols] : reference) {
        const auto& build = plan.builds[at++].build;
        EXPECT_EQ(build.kdb_name(), key.first);
        EXPECT_EQ(build.kdb_args(), key.second);
        EXPECT_EQ(build.kernels, symbols) << key.second;
    }
}
