// Release-scale builds: shards, merges, a shared cache under concurrent
// processes, and byte-for-byte reproducibility.
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/shard.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>

using namespace kdbgen;
using test::run_kdbgen;

namespace {

const std::string kTargets = "gfx906_60,gfx1030_36,gfx1100_48";
const std::vector<std::string> kKdbs = {"gfx906_60.kdb", "gfx1030_36.kdb", "gfx1100_48.kdb"};

ProcessResult build(const std::vector<std::string>& extra, const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(KDBGEN_TEST_BINARY);
    argv.insert(argv.end(), {"build", "--targets", kTargets, "-q"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv);
}

void expect_same_kdbs(const fs::path& a, const fs::path& b) {
    for (const auto& name : kKdbs) {
        ASSERT_TRUE(fs::exists(a / name) && fs::exists(b / name)) << name;
        EXPECT_EQ(read_file(a / name), read_file(b / name)) << a / name << " vs " << b / name;
    }
}

}  // namespace

TEST(Release, ThreeShardsMergeToTheUnshardedBytes) {
    test::TempDir dir;
    const std::string cache = (dir / "cache").string();
    ASSERT_EQ(build({"-o", (dir / "whole").string(), "--cache-dir", cache}).exit_code, 0);
    std::set<std::string> keys_seen;
    std::size_t records = 0;
    for (int k = 1; k <= 3; ++k) {
        const auto out = dir / ("shard" + std::to_string(k));
        const auto run = build({"-o", out.string(), "--cache-dir", cache, "--shard", std::to_string(k) + "/3"});
        ASSERT_EQ(run.exit_code, 0) << run.output;
        for (const auto& name : kKdbs)
            for (const auto& [key, code] : read_kdb(out / name)) {
                EXPECT_TRUE(keys_seen.insert(name + key.kernel_name + key.kernel_args).second) << "in two shards";
                ++records;
            }
    }
    std::size_t whole = 0;
    for (const auto& name : kKdbs) whole += read_kdb(dir / "whole" / name).size();
    EXPECT_EQ(records, whole) << "every kernel in exactly one shard";
    const auto merge = run_kdbgen({"merge", (dir / "merged").string(), (dir / "shard1").string(),
                                   (dir / "shard2").string(), (dir / "shard3").string()});
    ASSERT_EQ(merge.exit_code, 0) << merge.output;
    expect_same_kdbs(dir / "whole", dir / "merged");
}

// More shards than a target has kernels (the demo plans a few per target): some shards hold
// nothing for a target and write it an empty kdb, and the merge is still the unsharded build.
TEST(Release, ShardsWithNothingForATargetWriteEmptyKdbsAndTheMergeIsWhole) {
    test::TempDir dir;
    const std::string cache = (dir / "cache").string();
    ASSERT_EQ(build({"-o", (dir / "whole").string(), "--cache-dir", cache}).exit_code, 0);
    std::size_t whole = 0;
    for (const auto& name : kKdbs) whole += read_kdb(dir / "whole" / name).size();
    const int count = static_cast<int>(whole) + 3;
    std::vector<std::string> merge{"merge", (dir / "merged").string()};
    std::size_t empty = 0;
    for (int k = 1; k <= count; ++k) {
        const auto out = dir / ("shard" + std::to_string(k));
        const auto run = build({"-o", out.string(), "--cache-dir", cache, "--shard", fmt::format("{}/{}", k, count)});
        ASSERT_EQ(run.exit_code, 0) << k << "/" << count << "\n" << run.output;
        for (const auto& name : kKdbs) empty += read_kdb(out / name).empty();
        merge.push_back(out.string());
    }
    EXPECT_GT(empty, 0u);
    const auto merged = run_kdbgen(merge);
    ASSERT_EQ(merged.exit_code, 0) << merged.output;
    expect_same_kdbs(dir / "whole", dir / "merged");
}

TEST(Release, ReproducibleAcrossJobsCachesAndTime) {
    test::TempDir dir;
    const std::string cache = (dir / "cache").string();
    ASSERT_EQ(build({"-o", (dir / "a").string(), "--no-cache", "-j", "1"}, {"SOURCE_DATE_EPOCH=1"}).exit_code, 0);
    ASSERT_EQ(build({"-o", (dir / "b").string(), "--cache-dir", cache, "-j", "2"}).exit_code, 0);
    ASSERT_EQ(build({"-o", (dir / "c").string(), "--cache-dir", cache, "-j", "2"}, {"SOURCE_DATE_EPOCH=2000000000"})
                  .exit_code,
              0);
    expect_same_kdbs(dir / "a", dir / "b");
    expect_same_kdbs(dir / "a", dir / "c");
}

// Another machine has its files elsewhere: the same kernels built from a copy
// of the sources in another folder give the same bytes.
TEST(Release, ReproducibleFromAnotherFolder) {
    test::TempDir dir;
    fs::create_directories(dir / "elsewhere");
    fs::copy(test::kernels_dir(), dir / "elsewhere" / "kernels", fs::copy_options::recursive);
    fs::copy_file(test::source_dir() / "configs/demo/kernels.toml", dir / "elsewhere" / "kernels.toml");
    ASSERT_EQ(build({"-o", (dir / "here").string(), "--no-cache"}).exit_code, 0);
    const auto run = build({"-o", (dir / "there").string(), "--no-cache", "--manifest",
                            (dir / "elsewhere" / "kernels.toml").string(), "--kernels-dir",
                            (dir / "elsewhere" / "kernels").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    expect_same_kdbs(dir / "here", dir / "there");
}

TEST(Release, ConcurrentShardsShareOneCache) {
    test::TempDir dir;
    const std::string cache = (dir / "cache").string();
    std::string script;
    for (int k = 1; k <= 3; ++k)
        script += fmt::format("\"{}\" build --targets {} -q --cache-dir \"{}\" --shard {}/3 -o \"{}\" & ", KDBGEN_TEST_BINARY,
                              kTargets, cache, k, (dir / ("s" + std::to_string(k))).string());
    // A fourth process builds everything at the same time into the same cache.
    script += fmt::format("\"{}\" build --targets {} -q --cache-dir \"{}\" -o \"{}\" & ", KDBGEN_TEST_BINARY, kTargets,
                          cache, (dir / "all").string());
    script += "fail=0; for p in $(jobs -p); do wait $p || fail=1; done; echo \"fail=$fail\"";
    const auto run = run_process({"/bin/bash", "-c", script});
    EXPECT_NE(run.output.find("fail=0"), std::string::npos) << run.output;
    ASSERT_EQ(run_kdbgen({"merge", (dir / "merged").string(), (dir / "s1").string(), (dir / "s2").string(),
                          (dir / "s3").string()})
                  .exit_code,
              0);
    expect_same_kdbs(dir / "all", dir / "merged");
    const auto stats = run_kdbgen({"cache", "stats", "--json", "--cache-dir", cache});
    EXPECT_EQ(nlohmann::json::parse(stats.output)["corrupt"], 0) << stats.output;
    // Everything is in the cache now, whole and uncorrupted.
    const auto warm = build({"-o", (dir / "warm").string(), "--cache-dir", cache, "--json"});
    const auto json = nlohmann::json::parse(warm.output.substr(warm.output.find('{')));
    EXPECT_EQ(json["cached"], json["compiles"]);
    expect_same_kdbs(dir / "all", dir / "warm");
}

TEST(Release, ShardAssignmentIsDeterministicAndBalanced) {
    std::vector<KernelBuild> builds;
    for (int i = 0; i < 60; ++i) {
        KernelBuild b;
        b.source = test::kernels_dir() / (i % 3 == 0 ? "kdbgen_activation.cpp" : i % 3 == 1 ? "kdbgen_tensor_op.cl" : "kdbgen_fill.s");
        b.kernel_file = b.source.filename().string();
        b.options = "-DVARIANT=" + std::to_string(i / 3);
        b.target = parse_target(i % 2 ? "gfx1030_36" : "gfx906_60");
        builds.push_back(b);
    }
    const auto forward = assign_shards(builds, 4);
    auto reversed_builds = builds;
    std::reverse(reversed_builds.begin(), reversed_builds.end());
    const auto backward = assign_shards(reversed_builds, 4);
    std::vector<double> load(4, 0);
    for (std::size_t i = 0; i < builds.size(); ++i) {
        EXPECT_EQ(forward[i], backward[builds.size() - 1 - i]) << "order does not matter";
        load[forward[i]] += estimated_compile_cost(builds[i]);
    }
    const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
    EXPECT_LT(*hi / *lo, 1.2) << "balanced by estimated cost";
    // The same code object never goes to two shards: the CU count is not part of it.
    auto twin = builds[0];
    twin.target = parse_target("gfx906_64");
    builds.push_back(twin);
    const auto with_twin = assign_shards(builds, 4);
    EXPECT_EQ(with_twin.back(), with_twin.front());
    EXPECT_THROW(parse_shard("4/3"), InputError);
    EXPECT_THROW(parse_shard("0/3"), InputError);
    EXPECT_EQ(parse_shard("2/3").index, 1u);
}

TEST(Release, PlanJsonNamesEachKernelsShard) {
    test::TempDir dir;
    const auto plan = run_kdbgen({"plan", "--targets", kTargets, "--json", "--shards", "3"});
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    const auto json = nlohmann::json::parse(plan.output);
    std::set<std::string> planned_in_2;
    for (const auto& b : json["builds"])
        if (b["shard"] == 2) planned_in_2.insert(b["kdb"].get<std::string>() + b["kernel_args"].get<std::string>());
    ASSERT_EQ(build({"-o", (dir / "s2").string(), "--no-cache", "--shard", "2/3"}).exit_code, 0);
    std::set<std::string> built_in_2;
    for (const auto& name : kKdbs)
        for (const auto& [key, code] : read_kdb(dir / "s2" / name)) built_in_2.insert(name + key.kernel_args);
    EXPECT_EQ(planned_in_2, built_in_2);
}
