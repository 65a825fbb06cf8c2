#include "kdbgen/error.hpp"
#include "kdbgen/phase_clock.hpp"
#include "kdbgen/util.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

using namespace kdbgen;

TEST(Util, Md5MatchesKnownDigests) {
    EXPECT_EQ(md5_hex(test::bytes_of("")), "d41d8cd98f00b204e9800998ecf8427e");
    EXPECT_EQ(md5_hex(test::bytes_of("The quick brown fox jumps over the lazy dog")), "9e107d9d372bb6826bd81d3542a419d6");
}

TEST(Util, Bz2RoundTripAndRawFallback) {
    const Bytes text(10000, 'a');
    const auto packed = bz2_compress_like_miopen(text);
    ASSERT_TRUE(packed.has_value());
    EXPECT_LT(packed->size(), text.size());
    EXPECT_EQ(bz2_decompress(*packed, text.size()), text);
    EXPECT_EQ(bz2_decompress_stream(*packed), text);
    Bytes noise(4096);
    unsigned state = 12345;
    for (auto& c : noise) c = static_cast<char>((state = state * 1103515245u + 12345u) >> 24);
    EXPECT_FALSE(bz2_compress_like_miopen(noise).has_value()) << "incompressible data is stored raw";
    EXPECT_THROW(bz2_decompress(test::bytes_of("BZh9 not really"), 100), std::runtime_error);
}

TEST(Util, SplitSpacesLikeMIOpen) {
    EXPECT_EQ(split_spaces("  -DA=1   -DB=2 "), (std::vector<std::string>{"-DA=1", "-DB=2"}));
    EXPECT_EQ(split("a::b", ':'), (std::vector<std::string>{"a", "", "b"}));
    EXPECT_EQ(parse_int("42"), 42);
    EXPECT_EQ(parse_int("4x"), std::nullopt);
}

TEST(Util, AtomicFileLeavesNothingWithoutCommit) {
    test::TempDir dir;
    {
        AtomicFile file(dir / "out.bin");
        std::ofstream(file.temp_path()) << "partial";
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
    write_file_atomic(dir / "out.bin", test::bytes_of("whole"));
    EXPECT_EQ(read_text_file(dir / "out.bin"), "whole");
}

// A build plans and compiles one group of targets after another: a phase marked again adds
// to the phase of that name, which keeps its place.
TEST(Util, PhaseClockAddsAPhaseMarkedAgain) {
    PhaseClock clock;
    const auto busy = [] {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
        while (std::chrono::steady_clock::now() < until) {
        }
    };
    busy();
    clock.mark("plan");
    busy();
    clock.mark("compile");
    const auto first = clock.phases()[0];
    busy();
    clock.mark("plan");
    ASSERT_EQ(clock.phases().size(), 2u);
    EXPECT_EQ(clock.phases()[0].name, "plan");
    EXPECT_EQ(clock.phases()[1].name, "compile");
    EXPECT_GE(clock.phases()[0].seconds, first.seconds + 0.019);  // busy() waits 20 ms of wall time
    EXPECT_GE(clock.phases()[0].user_seconds, first.user_seconds);
    EXPECT_GE(clock.phases()[0].own_seconds, first.own_seconds);
    EXPECT_GT(clock.phases()[0].peak_rss_bytes, 0);
}

// The parts are written one after another, as one file.
TEST(Util, AtomicWriteOfPartsIsTheirConcatenation) {
    test::TempDir dir;
    const std::string a = "header\n", b(100000, 'x');
    write_file_atomic(dir / "f", std::vector<std::span<const char>>{std::span<const char>(a.data(), a.size()),
                                                                    std::span<const char>(b.data(), b.size())});
    EXPECT_EQ(read_text_file(dir / "f"), a + b);
    EXPECT_EQ(Sha256().add({a, "", b}).hex(), Sha256().add(a + b).hex());
    EXPECT_NE(Sha256().add({a, b}).hex(), Sha256().add(a).add(b).hex());
}
