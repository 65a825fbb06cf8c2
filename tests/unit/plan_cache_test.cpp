// The plan cache (include/kdbgen/plan_cache.hpp): plans round-trip through
// their bytes exactly, a damaged entry is never used, and a build or plan with
// a warm cache gives what planning gives, while any input that decides the plan
// (a tree file, the targets, the options) makes a new entry.
#include "kdbgen/plan_cache.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace kdbgen;

namespace {

Plan sample_plan() {
    Plan plan;
    plan.targets = parse_target_list("gfx90a:sramecc+:xnack-_110,gfx1030");
    const auto build = [&](std::size_t target, std::string file, std::string options, std::vector<unsigned> cus) {
        PlannedBuild p;
        p.build.source = "/tree/src/kernels/" + file;
        p.build.kernel_file = file;
        p.build.options = std::move(options);
        p.build.target = plan.targets[target];
        p.build.kernels = {"kernel_a", "kernel_b"};
        p.build.include_dirs = SharedPaths{"/tree/src/kernels", "/tree/src/kernels/static_composable_kernel/include/utility"};
        p.origin = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F Solver (gfx90a6e.HIP.fdb.txt.bz2)";
        p.kind = "conv";
        p.compute_units = std::move(cus);
        return p;
    };
    // Option strings with every spacing a solver writes: a leading space, doubled spaces, a trailing one, none.
    plan.builds.push_back(build(0, "naive_conv.cpp", " -DA=1 -DB=2", {}));
    plan.builds.push_back(build(0, "MIOpenConv1x1S.cl", "  -DA=1  -DA=1 ", {104, 110}));
    plan.builds.push_back(build(1, "conv1x1u.s", "", {30}));
    plan.builds.push_back(build(1, "naive_conv.cpp", "-DNO_SPACE", {}));
    plan.uncovered = {"a problem: why", ""};
    plan.coverage.push_back({"gfx90a6e.kdb", "key-1", "conv", "ConvA", CoverageEntry::Status::NoConfiguration, "detail", true});
    plan.coverage.push_back({"gfx1030.kdb", "key-2", "batchnorm", "", CoverageEntry::Status::PrecompiledKernels, "", false,
                             CoverageEntry::Source::CorpusZoo});
    LineCoverage line{"gfx90a6e.kdb", "key-1", "gfx90a6e.HIP.fdb.txt.bz2", "ConvA", CoverageEntry::Status::Planned, "d", {}, {}, false};
    line.skipped.push_back({"ConvB", CoverageEntry::Status::DefaultOff, "MIOPEN_DEBUG_X"});
    line.tied = {"ConvC", "ConvD"};
    line.fusion_only = true;
    plan.lines.push_back(line);
    plan.unreadable_lines.push_back({"gfx1030.kdb", "/tree/x.fdb.txt", {3, 17, "padding '0x0'"}});
    return plan;
}

void expect_same(const Plan& a, const Plan& b) {
    ASSERT_EQ(a.builds.size(), b.builds.size());
    for (std::size_t i = 0; i < a.builds.size(); ++i) {
        const auto &x = a.builds[i], &y = b.builds[i];
        EXPECT_EQ(x.build.source, y.build.source) << i;
        EXPECT_EQ(x.build.kernel_file, y.build.kernel_file) << i;
        EXPECT_EQ(x.build.options, y.build.options) << i;
        EXPECT_EQ(x.build.target.spec(), y.build.target.spec()) << i;
        EXPECT_EQ(x.build.kdb_args(), y.build.kdb_args()) << i;
        EXPECT_EQ(x.build.kernels, y.build.kernels) << i;
        EXPECT_EQ(std::vector<fs::path>(x.build.include_dirs.begin(), x.build.include_dirs.end()),
                  std::vector<fs::path>(y.build.include_dirs.begin(), y.build.include_dirs.end()))
            << i;
        EXPECT_EQ(x.origin, y.origin) << i;
        EXPECT_EQ(x.kind, y.kind) << i;
        EXPECT_EQ(x.compute_units, y.compute_units) << i;
    }
    EXPECT_EQ(a.uncovered, b.uncovered);
    ASSERT_EQ(a.coverage.size(), b.coverage.size());
    for (std::size_t i = 0; i < a.coverage.size(); ++i) {
        const auto &x = a.coverage[i], &y = b.coverage[i];
        EXPECT_EQ(std::tie(x.target, x.problem, x.kind, x.solver, x.status, x.detail, x.dynamic_find, x.source),
                  std::tie(y.target, y.problem, y.kind, y.solver, y.status, y.detail, y.dynamic_find, y.source))
            << i;
    }
    ASSERT_EQ(a.lines.size(), b.lines.size());
    for (std::size_t i = 0; i < a.lines.size(); ++i) {
        const auto &x = a.lines[i], &y = b.lines[i];
        EXPECT_EQ(std::tie(x.target, x.problem, x.find_db, x.winner, x.status, x.detail, x.tied, x.fusion_only),
                  std::tie(y.target, y.problem, y.find_db, y.winner, y.status, y.detail, y.tied, y.fusion_only));
        ASSERT_EQ(x.skipped.size(), y.skipped.size());
        for (std::size_t j = 0; j < x.skipped.size(); ++j)
            EXPECT_EQ(std::tie(x.skipped[j].solver, x.skipped[j].status, x.skipped[j].detail),
                      std::tie(y.skipped[j].solver, y.skipped[j].status, y.skipped[j].detail));
    }
    ASSERT_EQ(a.unreadable_lines.size(), b.unreadable_lines.size());
    EXPECT_EQ(a.unreadable_lines[0].lines.first_reason, b.unreadable_lines[0].lines.first_reason);
    EXPECT_EQ(a.unreadable_lines[0].lines.count, b.unreadable_lines[0].lines.count);
    EXPECT_EQ(a.unreadable_lines[0].lines.first_line, b.unreadable_lines[0].lines.first_line);
}

std::string text_of(const Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

const std::string kKey(64, 'a');

}  // namespace

TEST(PlanCache, PlansRoundTripExactly) {
    const Plan plan = sample_plan();
    const std::string bytes = text_of(serialize_plan(plan, kKey));
    const Plan back = deserialize_plan(bytes, plan.targets, kKey);
    expect_same(plan, back);
    // Builds of one include list share it again.
    EXPECT_EQ(&*back.builds[0].build.include_dirs.begin(), &*back.builds[1].build.include_dirs.begin());
    // So do builds of one source file (builds 0 and 3), and only they.
    EXPECT_EQ(&back.builds[0].build.source.path(), &back.builds[3].build.source.path());
    EXPECT_NE(&back.builds[0].build.source.path(), &back.builds[1].build.source.path());
    EXPECT_EQ(text_of(serialize_plan(back, kKey)), bytes) << "the same plan gives the same bytes";
}

TEST(PlanCache, DamagedOrForeignEntriesAreRefused) {
    const Plan plan = sample_plan();
    const std::string bytes = text_of(serialize_plan(plan, kKey));
    const auto refused = [&](const std::string& data, const std::vector<Target>& targets) {
        try {
            deserialize_plan(data, targets, kKey);
        } catch (const std::runtime_error&) {
            return true;
        }
        return false;
    };
    for (const std::size_t at : {std::size_t{0}, std::size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
        std::string flipped = bytes;
        flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
        EXPECT_TRUE(refused(flipped, plan.targets)) << "a byte flipped at " << at;
    }
    EXPECT_TRUE(refused(bytes.substr(0, bytes.size() - 1), plan.targets));
    EXPECT_TRUE(refused(bytes.substr(0, 40), plan.targets));
    EXPECT_TRUE(refused("", plan.targets));
    EXPECT_TRUE(refused(bytes, parse_target_list("gfx90a:sramecc+:xnack-_110"))) << "other targets";
    EXPECT_TRUE(refused(bytes, parse_target_list("gfx1030,gfx90a:sramecc+:xnack-_110"))) << "targets in another order";
    // Another key's entry, even re-sealed with a correct digest over its content.
    try {
        deserialize_plan(bytes, plan.targets, std::string(64, 'b'));
        ADD_FAILURE() << "an entry opened under another key";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("sealed under key"), std::string::npos) << e.what();
    }
}

namespace {

// A MIOpen tree with one find-db line whose winner's kernel exists (an empty file: nothing is compiled).
fs::path fake_tree(const fs::path& root, const std::string& find_db_text) {
    fs::create_directories(root / "src" / "kernels" / "gpu_reference_kernel");
    std::ofstream(root / "CMakeLists.txt") << "project(MIOpen)\nrocm_setup_version(VERSION 3.3.0)\n";
    std::ofstream(root / "src" / "kernels" / "gpu_reference_kernel" / "naive_conv.cpp") << "// kernel\n";
    std::ofstream(root / "src" / "kernels" / "gfx906_60.HIP.fdb.txt") << find_db_text;
    return root;
}

const std::string kLine =
    "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F=ConvDirectNaiveConvFwd:0.5,0,miopenConvolutionFwdAlgoDirect\n";

struct DryRun {
    int exit_code;
    nlohmann::json json;
    std::string output;
};

DryRun dry_run(const fs::path& tree, const fs::path& cache, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args{"build", "-n", "--json", "--miopen-src", tree.string(), "--targets", "gfx906_60",
                                  "-o", (tree.parent_path() / "out").string(), "--cache-dir", cache.string()};
    args.insert(args.end(), more.begin(), more.end());
    const auto run = test::run_kdbgen(args);
    DryRun out{run.exit_code, nullptr, run.output};
    if (run.exit_code == 0) out.json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    return out;
}

bool hit(const DryRun& run) { return run.json["phases"]["plan"]["parts"]["plan_cache_hit"].get<bool>(); }

std::vector<fs::path> entries(const fs::path& cache) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(cache / "plan", ec))
        if (file.path().extension() == ".plan") out.push_back(file.path());
    return out;
}

}  // namespace

TEST(PlanCache, WarmRunsGiveThePlannedCommandsAndAnyInputChangeReplans) {
    test::TempDir dir;
    const auto tree = fake_tree(dir / "tree", kLine);
    const auto cache = dir / "cache";
    const auto cold = dry_run(tree, cache);
    ASSERT_EQ(cold.exit_code, 0) << cold.output;
    EXPECT_FALSE(hit(cold));
    ASSERT_FALSE(cold.json["compiles"].empty()) << cold.output;
    ASSERT_EQ(entries(cache).size(), 1u);
    const auto warm = dry_run(tree, cache);
    ASSERT_EQ(warm.exit_code, 0) << warm.output;
    EXPECT_TRUE(hit(warm));
    EXPECT_EQ(warm.json["compiles"], cold.json["compiles"]);

    // A damaged entry is removed and the plan made again: the same commands.
    {
        const auto entry = entries(cache).front();
        std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(30);
        f.put('\x7f');
    }
    const auto repaired = dry_run(tree, cache);
    ASSERT_EQ(repaired.exit_code, 0) << repaired.output;
    EXPECT_FALSE(hit(repaired));
    EXPECT_EQ(repaired.json["compiles"], cold.json["compiles"]);
    EXPECT_TRUE(hit(dry_run(tree, cache)));

    // Another option, another plan; a tree file touched, another plan.
    EXPECT_FALSE(hit(dry_run(tree, cache, {"--exclude-solvers", "ConvOclDirectFwd"})));
    fs::last_write_time(tree / "src" / "kernels" / "gpu_reference_kernel" / "naive_conv.cpp",
                        fs::last_write_time(tree / "CMakeLists.txt") + std::chrono::seconds(5));
    EXPECT_FALSE(hit(dry_run(tree, cache)));
    EXPECT_EQ(entries(cache).size(), 3u);

    // --no-cache neither reads nor writes plans.
    const auto none = test::run_kdbgen({"build", "-n", "--json", "--miopen-src", tree.string(), "--targets", "gfx906_60",
                                        "-o", (dir / "out").string(), "--no-cache"});
    ASSERT_EQ(none.exit_code, 0) << none.output;
    EXPECT_EQ(entries(cache).size(), 3u);
}

TEST(PlanCache, BadInputLeavesNoCacheBehind) {
    test::TempDir dir;
    const auto tree = fake_tree(dir / "tree", kLine + "64-56-56-3x3-64-56-56-0-1x1-1x1-1x1-0-NCHW-FP32-F=X:1,0,y\n");
    std::ofstream(dir / "gfx906_60.HIP.fdb.txt") << "not a find-db line\n";
    const auto run = test::run_kdbgen({"build", "-n", "--miopen-src", tree.string(), "--targets", "gfx906_60", "--find-db",
                                       (dir / "gfx906_60.HIP.fdb.txt").string(), "-o", (dir / "out").string(),
                                       "--cache-dir", (dir / "cache").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_FALSE(fs::exists(dir / "cache")) << "a refused input leaves no cache folder";
}

// A build plans each architecture alone (one compile group at a time) and caches each plan
// under its own targets and cards: a later build of one of them finds its plan, with the
// same commands, and storing more plans than an old count limit loses none of them.
TEST(PlanCache, EachArchitectureOfABuildIsPlannedAndCachedAlone) {
    test::TempDir dir;
    const auto tree = fake_tree(dir / "tree", kLine);
    std::ofstream(tree / "src" / "kernels" / "gfx900_56.HIP.fdb.txt") << kLine;
    const auto cache = dir / "cache";
    const auto run = [&](const std::string& targets, const std::vector<std::string>& more = {}) {
        std::vector<std::string> args{"build", "-n", "--json", "--miopen-src", tree.string(), "--targets", targets,
                                      "--zoo", "off", "-o", (dir / "out").string(), "--cache-dir", cache.string()};
        args.insert(args.end(), more.begin(), more.end());
        const auto result = test::run_kdbgen(args);
        DryRun out{result.exit_code, nullptr, result.output};
        if (result.exit_code == 0) out.json = nlohmann::json::parse(result.output.substr(result.output.find('{')));
        return out;
    };
    const auto both = run("gfx906,gfx900");
    ASSERT_EQ(both.exit_code, 0) << both.output;
    EXPECT_FALSE(hit(both));
    EXPECT_EQ(entries(cache).size(), 2u) << "one plan per architecture";
    const auto alone = run("gfx900");
    ASSERT_EQ(alone.exit_code, 0) << alone.output;
    EXPECT_TRUE(hit(alone)) << "gfx900's plan from the two-architecture build";
    nlohmann::json gfx900 = nlohmann::json::array();
    for (const auto& compile : both.json["compiles"])
        if (compile["kernel"].get<std::string>().find(" for gfx900") != std::string::npos) gfx900.push_back(compile);
    ASSERT_FALSE(gfx900.empty());
    EXPECT_EQ(alone.json["compiles"], gfx900);
    EXPECT_FALSE(fs::exists(dir / "out")) << "a dry run writes no output folder";

    // Ten more plans (ten option sets), all kept: a build of many architectures stores one each.
    const char* solvers[] = {"ConvOclDirectFwd", "ConvOclDirectFwd1x1", "ConvAsm1x1U", "ConvAsm3x3U", "ConvBinWinograd3x3U",
                             "ConvOclDirectFwdGen", "ConvAsm5x10u2v2f1", "ConvAsm7x7c3h224w224k64u2v2p3q3f1",
                             "ConvOclDirectFwd11x11", "ConvAsmBwdWrW1x1"};
    for (const char* solver : solvers) ASSERT_EQ(run("gfx900", {"--exclude-solvers", solver}).exit_code, 0) << solver;
    EXPECT_EQ(entries(cache).size(), 12u);
    EXPECT_TRUE(hit(run("gfx906")));
}

// A build compiles one architecture after another and renames their kdbs together at the
// end: when the first stops the build (here: none of its kernels builds, the tree's kernel
// file being empty), the next is not compiled, and the output folder the build made is gone.
TEST(PlanCache, AStopInTheFirstArchitectureCompilesNoOtherAndLeavesNoOutputFolder) {
    test::TempDir dir;
    const auto tree = fake_tree(dir / "tree", kLine);
    std::ofstream(tree / "src" / "kernels" / "gfx900_56.HIP.fdb.txt") << kLine;
    const auto run = test::run_kdbgen({"build", "--miopen-src", tree.string(), "--targets", "gfx906_60,gfx900_56",
                                       "--zoo", "off", "-o", (dir / "out").string(), "--cache-dir",
                                       (dir / "cache").string(), "-j", "2"});
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("gfx906_60.kdb: 0 of"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("naive_conv.cpp for gfx906_60"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("for gfx900_56"), std::string::npos) << "the second architecture was compiled:\n"
                                                                     << run.output;
    EXPECT_FALSE(fs::exists(dir / "out")) << "a build that writes nothing leaves no output folder it made";
}
