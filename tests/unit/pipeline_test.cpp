// The pipeline as library calls (include/kdbgen/pipeline.hpp): plan() and build() without
// the kdbgen binary, on the built-in demo and on a manifest with a kernel that fails.
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/pipeline.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace kdbgen;

namespace {

BuildRequest demo_request(const test::TempDir& dir, const std::string& targets) {
    BuildRequest request;
    request.plan.targets = parse_target_list(targets);
    request.plan.cache_dir = (dir / "cache").string();
    request.plan.quiet = true;
    request.quiet = true;
    request.output = dir / "out";
    request.jobs = 2;
    return request;
}

}  // namespace

TEST(Pipeline, PlanOfTheDemoNeedsNoBinary) {
    PlanRequest request;
    request.targets = parse_target_list("gfx1030_36,gfx90a:sramecc+:xnack-_110");
    const Plan plan = kdbgen::plan(request);
    EXPECT_EQ(plan.targets.size(), 2u);
    ASSERT_FALSE(plan.builds.empty());
    for (const auto& planned : plan.builds) EXPECT_FALSE(planned.origin.empty()) << planned.build.describe();
    EXPECT_FALSE(Planner(request).solver_plan()) << "no MIOpen tree: the manifest plan";
}

TEST(Pipeline, BuildWritesVerifiedKdbsAndReportsThem) {
    test::TempDir dir;
    const BuildReport report = build(demo_request(dir, "gfx1030_36,gfx1100_48"));
    ASSERT_EQ(report.outcome, BuildReport::Outcome::Ok);
    ASSERT_EQ(report.kdbs.size(), 2u);
    EXPECT_EQ(report.failed, 0u);
    EXPECT_EQ(report.kernels, report.kdbs[0].planned + report.kdbs[1].planned);
    for (const auto& kdb : report.kdbs) {
        EXPECT_EQ(kdb.built, kdb.planned) << kdb.kdb;
        EXPECT_EQ(kdb.stats.records, kdb.built) << kdb.kdb;
        EXPECT_TRUE(verify_kdb(kdb.kdb, kdb.target).ok()) << kdb.kdb;
    }
    std::vector<std::string> phases;
    for (const auto& phase : report.phases) phases.push_back(phase.name);
    EXPECT_EQ(phases, (std::vector<std::string>{"plan", "toolchain", "compile", "write"}));
    std::size_t costed = 0;
    for (const auto& [language, cost] : report.cost_by_language) costed += cost.compiles;
    EXPECT_EQ(costed + report.cached, report.compiles);

    // The same request again: every compile from the cache, the same bytes.
    test::TempDir again;
    BuildRequest warm = demo_request(again, "gfx1030_36,gfx1100_48");
    warm.plan.cache_dir = (dir / "cache").string();
    const BuildReport second = build(warm);
    EXPECT_EQ(second.cached, second.compiles);
    EXPECT_EQ(read_file(dir / "out" / "gfx1030_36.kdb"), read_file(again / "out" / "gfx1030_36.kdb"));
}

TEST(Pipeline, DryRunHandsOverEveryCompileAndWritesNothing) {
    test::TempDir dir;
    BuildRequest request = demo_request(dir, "gfx1030_36");
    std::size_t handed = 0;
    request.dry_run = [&](const KernelBuild& build, const std::vector<std::vector<std::string>>& commands) {
        ++handed;
        EXPECT_FALSE(commands.empty()) << build.describe();
    };
    const BuildReport report = build(request);
    EXPECT_EQ(handed, report.compiles);
    EXPECT_GT(handed, 0u);
    EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Pipeline, AFailedKernelIsReportedAndCostsNoOther) {
    test::TempDir dir;
    test::write_manifest_with_a_broken_kernel(dir.path());
    BuildRequest request = demo_request(dir, "gfx1030_36");
    request.plan.manifest = dir / "m.toml";
    request.plan.kernels_dir = dir / "kernels";
    request.plan.cache_disabled = true;
    const BuildReport report = build(request);
    EXPECT_EQ(report.outcome, BuildReport::Outcome::SomeFailed);
    ASSERT_EQ(report.failures.size(), 1u);
    EXPECT_EQ(report.failures[0].kernel_name, "broken.cl.o");
    EXPECT_NE(report.failures[0].log.find("broken.cl:4:"), std::string::npos) << report.failures[0].log;
    ASSERT_EQ(report.kdbs.size(), 1u);
    EXPECT_EQ(report.kdbs[0].stats.records, 1u) << "the good kernel is written";
    EXPECT_EQ(report.kdbs[0].failures.size(), 1u);

    test::TempDir strict;
    BuildRequest fail_fast = request;
    fail_fast.output = strict / "out";
    fail_fast.fail_fast = true;
    fail_fast.jobs = 1;
    EXPECT_EQ(build(fail_fast).outcome, BuildReport::Outcome::FailFast);
    EXPECT_FALSE(fs::exists(strict / "out" / "gfx1030_36.kdb"));
}

TEST(Pipeline, BadInputIsAnInputErrorBeforeAnythingIsWritten) {
    test::TempDir dir;
    BuildRequest request = demo_request(dir, "gfx1030_36");
    request.min_built = "lots";
    EXPECT_THROW(build(request), InputError);
    request.min_built.clear();
    request.shard = "3/2";
    EXPECT_THROW(build(request), InputError);
    EXPECT_FALSE(fs::exists(dir / "out"));
}
