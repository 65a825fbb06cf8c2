#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

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
