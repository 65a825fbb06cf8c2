// The content-addressed build cache: hits, misses, corruption, what the key covers.
#include "kdbgen/cache.hpp"
#include "kdbgen/compile.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

using namespace kdbgen;

namespace {

KernelBuild fill_build(const fs::path& source, const std::string& options = "-Wa,-defsym,KDBGEN_FILL_GROUP_SIZE=64") {
    KernelBuild build;
    build.source = source;
    build.kernel_file = "kdbgen_fill.s";
    build.options = options;
    build.target = parse_target("gfx1030_36");
    build.kernels = {"KdbgenFill"};
    return build;
}

fs::path only_entry(const fs::path& dir) {
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.path().extension() == ".co") return entry.path();
    return {};
}

}  // namespace

TEST(Cache, MissThenHitWithIdenticalCode) {
    test::TempDir dir;
    BuildCache cache(dir / "cache", 0);
    const Compiler compiler(test::toolchain(), &cache);
    const auto build = fill_build(test::kernels_dir() / "kdbgen_fill.s");
    const auto first = compiler.compile(build);
    const auto second = compiler.compile(build);
    ASSERT_TRUE(first.ok && second.ok) << first.log << second.log;
    EXPECT_FALSE(first.cache_hit);
    EXPECT_TRUE(second.cache_hit);
    EXPECT_EQ(first.code, second.code);
    const auto stats = cache.stats();
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.misses, 1u);
    EXPECT_EQ(stats.entries, 1u);
}

TEST(Cache, CorruptEntryIsDetectedAndRebuilt) {
    test::TempDir dir;
    BuildCache cache(dir / "cache", 0);
    const Compiler compiler(test::toolchain(), &cache);
    const auto build = fill_build(test::kernels_dir() / "kdbgen_fill.s");
    const auto good = compiler.compile(build);
    ASSERT_TRUE(good.ok);
    const auto entry = only_entry(dir / "cache");
    ASSERT_FALSE(entry.empty());
    auto bytes = read_file(entry);
    bytes[bytes.size() / 2] ^= 0x5a;
    write_file_atomic(entry, bytes);
    const auto again = compiler.compile(build);
    ASSERT_TRUE(again.ok) << again.log;
    EXPECT_FALSE(again.cache_hit);
    EXPECT_EQ(again.code, good.code) << "rebuilt, not the corrupt bytes";
    EXPECT_EQ(cache.stats().corrupt, 1u);
    EXPECT_TRUE(compiler.compile(build).cache_hit) << "the rebuilt entry is stored again";
}

TEST(Cache, KeyCoversOptionsTargetSourceAndIncludes) {
    test::TempDir dir;
    fs::create_directories(dir / "k");
    fs::copy_file(test::kernels_dir() / "kdbgen_fill.s", dir / "k" / "kdbgen_fill.s");
    const Compiler compiler(test::toolchain(), nullptr);
    const auto base = fill_build(dir / "k" / "kdbgen_fill.s");
    const auto key = compiler.cache_key(base);
    EXPECT_EQ(compiler.cache_key(base), key);
    EXPECT_NE(compiler.cache_key(fill_build(base.source, "-Wa,-defsym,KDBGEN_FILL_GROUP_SIZE=128")), key);
    auto other_target = base;
    other_target.target = parse_target("gfx1031_20");
    EXPECT_NE(compiler.cache_key(other_target), key);
    auto features = base;
    features.target = parse_target("gfx90a:xnack+_110");
    auto features_off = base;
    features_off.target = parse_target("gfx90a:xnack-_110");
    EXPECT_NE(compiler.cache_key(features), compiler.cache_key(features_off));
    std::ofstream(dir / "k" / "kdbgen_fill.s", std::ios::app) << "\n// edited\n";
    EXPECT_NE(compiler.cache_key(base), key) << "source content";
}

TEST(Cache, TrimKeepsTheFolderUnderItsLimit) {
    test::TempDir dir;
    BuildCache cache(dir / "cache", 0);
    for (int i = 0; i < 10; ++i)
        cache.store(sha256_hex(test::bytes_of(std::to_string(i))), Bytes(1000, static_cast<char>(i)));
    EXPECT_EQ(cache.stats().entries, 10u);
    cache.trim(4500);
    EXPECT_LE(cache.stats().bytes, 4500u);
    const auto left = cache.stats().entries;  // each entry is its object and a sealed header
    EXPECT_GE(left, 3u);
    EXPECT_EQ(cache.clear(), left);
    EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(Cache, ConcurrentWritersNeverExposeHalfEntries) {
    test::TempDir dir;
    const std::string key = sha256_hex(test::bytes_of("shared"));
    const Bytes value(1 << 20, 'x');
    std::vector<std::thread> threads;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            BuildCache cache(dir / "cache", 0);
            for (int i = 0; i < 20; ++i) {
                cache.store(key, value);
                if (auto got = cache.load(key); got && *got != value) ++bad;
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(bad.load(), 0);
}
