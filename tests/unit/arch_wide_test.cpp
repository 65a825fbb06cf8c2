// Arch-wide kdbs: one <DbId>.kdb that serves every card of an architecture, as
// AMD ships them (src/kernels/gfx1030.kdb.bz2 ... in MIOpen 3.3.0).
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <set>

using namespace kdbgen;

namespace {

std::set<std::pair<std::string, std::string>> keys_of(const Plan& plan) {
    std::set<std::pair<std::string, std::string>> keys;
    for (const auto& b : plan.builds) keys.emplace(b.build.kdb_name(), b.build.kdb_args());
    return keys;
}

// A MIOpen tree with only the database files named, empty.
fs::path fake_tree(const fs::path& root, const std::vector<std::string>& files) {
    fs::create_directories(root / "src" / "kernels");
    std::ofstream(root / "CMakeLists.txt") << "rocm_setup_version(VERSION 3.3.0)\n";
    for (const auto& name : files) std::ofstream(root / "src" / "kernels" / name) << "";
    return root;
}

}  // namespace

// GetDb (src/binary_cache.cpp:128-142, MIOpen 3.3.0): <DbBasename>.kdb first, then <DbId>.kdb.
TEST(ArchWide, MIOpenOpensTheDbIdKdbWhenTheBasenameOneIsAbsent) {
    test::TempDir dir;
    std::ofstream(dir / "gfx1030.kdb") << "";
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx1030_30")), dir / "gfx1030.kdb");
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx1030_40")), dir / "gfx1030.kdb");
    std::ofstream(dir / "gfx1030_36.kdb") << "";
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx1030_36")), dir / "gfx1030_36.kdb");
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx90a_110")), std::nullopt);
    std::ofstream(dir / "gfx90a_xnack.kdb") << "";
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx90a:xnack+_110")), dir / "gfx90a_xnack.kdb");
    EXPECT_EQ(system_kdb_for(dir.path(), parse_target("gfx90a:xnack-_110")), std::nullopt);
}

// Every build of a tree's kernel file names the tree's one copy of its path (an architecture
// plans 10^5 builds; a copied fs::path holds each component apart), and reads as that path.
TEST(ArchWide, BuildsOfATreeKernelShareItsPath) {
    test::TempDir dir;
    const auto root = fake_tree(dir / "tree", {});
    fs::create_directories(root / "src" / "kernels" / "sub");
    std::ofstream(root / "src" / "kernels" / "sub" / "k.cl") << "";
    const auto tree = MiopenTree::open(root);
    EXPECT_EQ(tree.kernel_source("missing.cl"), std::nullopt);
    const auto a = miopen_kernel_build(SolverKernel{"k.cl", {"ka"}, "-DA=1"}, parse_target("gfx1100"), tree);
    const auto b = miopen_kernel_build(SolverKernel{"k.cl", {"kb"}, "-DA=2"}, parse_target("gfx1100"), tree);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(&a->source.path(), &b->source.path());
    EXPECT_EQ(&a->source.path(), &tree.kernel_source("k.cl")->path());
    const fs::path& as_path = a->source;
    EXPECT_EQ(as_path, root / "src" / "kernels" / "sub" / "k.cl");
    EXPECT_EQ(a->source, SharedPath(root / "src" / "kernels" / "sub" / "k.cl")) << "equal by the path, not the copy";
    EXPECT_EQ(a->source.filename(), "k.cl");
    EXPECT_EQ(SharedPath().string(), "");
}

// The databases MIOpen reads on a card whose CU count has no file of its own:
// GetInstalledPathFile's inexact find-db search (src/find_db.cpp:139-195) compares
// path.extension() (".txt") with ".fdb.txt" and so keeps no file: no find-db at all.
// GetPerfDbPathFile's (execution_context.hpp:205-258) takes the closest CU count, and none
// when the DbId holds a '_' (the count is read after the first '_').
TEST(ArchWide, FindDbAndPerfDbChosenAsMIOpenChoosesThem) {
    test::TempDir dir;
    const auto root = fake_tree(dir / "tree", {"gfx1030_36.HIP.fdb.txt.bz2", "gfx1030_36.db.bz2", "gfx906_60.db.bz2",
                                                "gfx906_64.HIP.fdb.txt.bz2", "gfx906_60.HIP.fdb.txt.bz2",
                                                "gfx90a6e.HIP.fdb.txt.bz2", "gfx90a68.HIP.fdb.txt.bz2",
                                                "gfx90a_xnack6e.db.bz2", "gfx1030.kdb.bz2"});
    const auto tree = MiopenTree::open(root);
    const auto kernels = root / "src" / "kernels";
    EXPECT_EQ(tree.find_db(parse_target("gfx1030_36")), kernels / "gfx1030_36.HIP.fdb.txt.bz2");
    EXPECT_EQ(tree.find_db(parse_target("gfx1030_30")), std::nullopt);
    EXPECT_EQ(tree.find_db(parse_target("gfx1030_40")), std::nullopt);
    EXPECT_EQ(tree.find_db(parse_target("gfx906_64")), kernels / "gfx906_64.HIP.fdb.txt.bz2");
    EXPECT_EQ(tree.find_db(parse_target("gfx1030")), std::nullopt) << "an arch-wide target is no card";
    EXPECT_EQ(tree.perf_db(parse_target("gfx1030_30")), kernels / "gfx1030_36.db.bz2");
    EXPECT_EQ(tree.perf_db(parse_target("gfx906_64")), kernels / "gfx906_60.db.bz2");
    EXPECT_EQ(tree.perf_db(parse_target("gfx900_56")), std::nullopt);
    EXPECT_EQ(tree.perf_db(parse_target("gfx90a:xnack+_104")), std::nullopt);
    const auto gfx90a = tree.find_dbs_of(parse_target("gfx90a"));
    ASSERT_EQ(gfx90a.size(), 2u);
    EXPECT_EQ(gfx90a[0].second, 104u);
    EXPECT_EQ(gfx90a[1].second, 110u);
    EXPECT_EQ(tree.find_dbs_of(parse_target("gfx90a:xnack+")).size(), 0u);
    EXPECT_EQ(db_file_compute_units("gfx90a6e.HIP.fdb.txt", "gfx90a"), 110u);
    EXPECT_EQ(db_file_compute_units("gfx906_60.db", "gfx906"), 60u);
    EXPECT_EQ(db_file_compute_units("gfx90a_xnack6e.db", "gfx90a"), std::nullopt);
    EXPECT_EQ(db_file_compute_units("gfx1030.kdb", "gfx1030"), std::nullopt);
}

TEST(ArchWide, ProductTableHasACountForEveryProcessor) {
    const auto products = read_products((test::source_dir() / "configs/targets/products.toml").string());
    for (const auto& processor : processor_table())
        EXPECT_FALSE(product_compute_units(products, processor.name).empty()) << processor.name;
    EXPECT_EQ(product_compute_units(products, "gfx1030"), (std::vector<unsigned>{30, 36, 40}));
    EXPECT_EQ(product_compute_units(products, "gfx90a"), (std::vector<unsigned>{104, 110}));
    test::TempDir dir;
    std::ofstream(dir / "bad.toml") << "[[product]]\nname = \"x\"\nprocessor = \"gfx1030\"\ncompute_unit = 36\n"
                                    << "source = \"s\"\n";
    const auto message = test::input_error_of([&] { read_products((dir / "bad.toml").string()); });
    EXPECT_NE(message.find("bad.toml:4:"), std::string::npos) << message;
    EXPECT_NE(message.find("compute_unit"), std::string::npos) << message;
}

// One gfx1030.kdb holds what a gfx1030 with 30, 36 or 40 CUs asks for: for each card, the
// per-card plan of the same find-db lines is inside the arch-wide plan; where a kernel's options
// depend on the CU count, it holds each card's key and says which card asks for it.
TEST(ArchWideWithTree, OneKdbHoldsTheKeysOfEveryCard) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto tree = MiopenTree::open(src);
    test::TempDir dir;
    const auto fdb = *tree.find_db(parse_target("gfx1030_36"));
    const auto entries = read_find_db(fdb);
    ProblemSet problems;
    for (std::size_t i = 0; i < entries.size(); i += entries.size() / 300) problems.add(entries[i].problem, "sample");
    SolverPlanOptions arch;
    arch.tree = &tree;
    arch.find_dbs = {fdb};
    arch.compute_units["gfx1030"] = {30, 36, 40};
    const Plan wide = plan_from_problems(problems, {parse_target("gfx1030")}, arch);
    ASSERT_GT(wide.builds.size(), 50u);
    const auto wide_keys = keys_of(wide);
    for (const unsigned cus : {30u, 36u, 40u}) {
        // The card runs the same lines (copied under its own name).
        const auto own = dir / fmt::format("gfx1030_{}.HIP.fdb.txt.bz2", cus);
        fs::copy_file(fdb, own, fs::copy_options::overwrite_existing);
        SolverPlanOptions card;
        card.tree = &tree;
        card.find_dbs = {own};
        const auto card_keys = keys_of(plan_from_problems(problems, {parse_target(fmt::format("gfx1030_{}", cus))}, card));
        ASSERT_FALSE(card_keys.empty());
        for (const auto& key : card_keys) EXPECT_TRUE(wide_keys.count(key)) << cus << " CUs: " << key.first << " " << key.second;
    }
    for (const auto& b : wide.builds) EXPECT_EQ(b.build.target.kdb_filename(), "gfx1030.kdb");

    // Cross-channel LRN picks its read unit by whether the waves fit the CUs (n_waves <= 8 x CUs,
    // src/ocl/lrn.cpp via mlo_construct_norm, MIOpen 3.3.0): 16x64x64x64 gives 256 waves, so a
    // 30-CU card asks for another key than the 36- and 40-CU cards, and the kdb holds both.
    LrnProblem lrn;
    lrn.mode = 1;
    lrn.size = 5;
    lrn.x.dims = {16, 64, 64, 64};
    ProblemSet lrn_problems;
    lrn_problems.add(lrn, "lrn");
    const Plan lrn_plan = plan_from_problems(lrn_problems, {parse_target("gfx1030")}, arch);
    ASSERT_EQ(lrn_plan.builds.size(), 2u);
    std::set<std::vector<unsigned>> tags;
    for (const auto& b : lrn_plan.builds) tags.insert(b.compute_units);
    EXPECT_EQ(tags, (std::set<std::vector<unsigned>>{{30}, {36, 40}}));
    // A card plan of one CU count holds exactly its tagged key.
    const Plan lrn_card = plan_from_problems(lrn_problems, {parse_target("gfx1030_30")}, arch);
    ASSERT_EQ(lrn_card.builds.size(), 1u);
    for (const auto& b : lrn_plan.builds)
        if (b.compute_units == std::vector<unsigned>{30}) {
            EXPECT_EQ(b.build.kdb_args(), lrn_card.builds[0].build.kdb_args());
        }
}

// `kdbgen build --targets gfx1030,gfx90a,gfx906` writes gfx1030.kdb, gfx90a.kdb and gfx906.kdb
// (and gfx90a_xnack.kdb for gfx90a:xnack+); the demo builds arch-wide for every known processor.
TEST(ArchWide, DemoBuildsAnArchWideKdbForEveryProcessor) {
    test::TempDir dir;
    const auto run = test::run_kdbgen({"build", "--targets", "gfx1030,gfx90a,gfx906,gfx90a:xnack+", "-o",
                                       (dir / "out").string(), "--cache-dir", (dir / "cache").string(), "-q"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (const char* kdb : {"gfx1030.kdb", "gfx90a.kdb", "gfx906.kdb", "gfx90a_xnack.kdb"})
        EXPECT_TRUE(fs::exists(dir / "out" / kdb)) << kdb;
    const auto all = test::run_kdbgen({"build", "--targets-file", (test::source_dir() / "configs/targets/arch.txt").string(),
                                       "-o", (dir / "all").string(), "--cache-dir", (dir / "cache").string(), "-q",
                                       "--json"});
    ASSERT_EQ(all.exit_code, 0) << all.output.substr(0, 3000);
    const auto json = nlohmann::json::parse(all.output.substr(all.output.find('{')));
    EXPECT_EQ(json["targets"].size(), processor_table().size());
    std::vector<std::string> args{"verify"};
    for (const auto& processor : processor_table()) {
        const auto kdb = dir / "all" / (std::string(processor.name) + ".kdb");
        EXPECT_TRUE(fs::exists(kdb)) << kdb;
        args.push_back(kdb.string());
    }
    const auto verify = test::run_kdbgen(args);
    EXPECT_EQ(verify.exit_code, 0) << verify.output.substr(0, 3000);
}

// `kdbgen targets` shows the products of each processor; `kdbgen plan` tells how many keys of an
// arch-wide kdb depend on the CU count.
TEST(ArchWide, TargetsShowsProducts) {
    const auto run = test::run_kdbgen({"targets", "--targets", "gfx1030", "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto json = nlohmann::json::parse(run.output);
    ASSERT_EQ(json.size(), 1u);
    EXPECT_EQ(json[0]["kdb"], "gfx1030.kdb");
    EXPECT_EQ(json[0]["compute_units"], nullptr);
    EXPECT_EQ(json[0]["products"].size(), 3u);
    EXPECT_EQ(json[0]["card_compute_units"], (std::vector<unsigned>{30, 36, 40}));
    const auto table = test::run_kdbgen({"targets"});
    EXPECT_NE(table.output.find("Radeon RX 6800 XT"), std::string::npos) << table.output.substr(0, 2000);
}

// plan_from_problems plans slices of the problem list on threads of their own
// and appends them in order: any thread count gives the one-thread plan.
TEST(PlanThreadsWithTree, TwoThreadsPlanWhatOneThreadPlans) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto tree = MiopenTree::open(src);
    const auto fdb = *tree.find_db(parse_target("gfx90a_110"));
    const auto entries = read_find_db(fdb);
    ProblemSet problems;
    for (std::size_t i = 0; i < entries.size(); i += entries.size() / 600) problems.add(entries[i].problem, "sample");
    const auto plan_with = [&](unsigned threads) {
        SolverPlanOptions options;
        options.tree = &tree;
        options.find_dbs = {fdb};
        options.planning_threads = threads;
        return plan_from_problems(problems, {parse_target("gfx90a_110")}, options);
    };
    const Plan one = plan_with(1), two = plan_with(2), three = plan_with(3);
    ASSERT_GT(one.builds.size(), 100u);
    for (const Plan* other : {&two, &three}) {
        ASSERT_EQ(other->builds.size(), one.builds.size());
        for (std::size_t i = 0; i < one.builds.size(); ++i) {
            EXPECT_EQ(other->builds[i].build.kdb_name(), one.builds[i].build.kdb_name()) << i;
            EXPECT_EQ(other->builds[i].build.kdb_args(), one.builds[i].build.kdb_args()) << i;
            EXPECT_EQ(other->builds[i].origin, one.builds[i].origin) << i;
            EXPECT_EQ(other->builds[i].build.kernels, one.builds[i].build.kernels) << i;
        }
        ASSERT_EQ(other->coverage.size(), one.coverage.size());
        for (std::size_t i = 0; i < one.coverage.size(); ++i) {
            EXPECT_EQ(other->coverage[i].problem, one.coverage[i].problem) << i;
            EXPECT_EQ(other->coverage[i].solver, one.coverage[i].solver) << i;
        }
        ASSERT_EQ(other->lines.size(), one.lines.size());
        for (std::size_t i = 0; i < one.lines.size(); ++i) EXPECT_EQ(other->lines[i].winner, one.lines[i].winner) << i;
    }
}
