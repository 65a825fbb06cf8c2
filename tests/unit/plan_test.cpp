// The kernel-manifest planner behind the built-in demo.
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

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
