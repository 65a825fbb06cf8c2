// Problem keys and find-db files, against MIOpen's own data.
// Key format: ProblemDescription::Serialize, src/conv/problem_description.cpp:188-237 (MIOpen 3.3.0).
#include "kdbgen/enumerate.hpp"
#include "kdbgen/error.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <iostream>

using namespace kdbgen;

TEST(ProblemKey, ParsesMIOpensExample) {
    // The example in problem_description.cpp:192-194.
    const auto p = parse_conv_problem_key("576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F");
    EXPECT_EQ(p.in_channels, 576);
    EXPECT_EQ(p.in_spatial, (std::vector<long>{4, 4}));
    EXPECT_EQ(p.weights_spatial, (std::vector<long>{1, 1}));
    EXPECT_EQ(p.out_channels, 192);
    EXPECT_EQ(p.batch, 8);
    EXPECT_EQ(p.strides, (std::vector<long>{2, 2}));
    EXPECT_EQ(p.dilations, (std::vector<long>{3, 3}));
    EXPECT_EQ(p.direction, ConvDirection::Forward);
    EXPECT_EQ(p.serialize(), "576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F");
    EXPECT_EQ(parse_conv_problem_key("576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NHWC-NCHW-NCHW-FP32-F").serialize(),
              "576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NHWC-NCHW-NCHW-FP32-F");
}

TEST(ProblemKey, ThreeDimensionalAndGroups) {
    const auto p = parse_conv_problem_key("32-4-8-8-3x3x3-64-4-8-8-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16-W_g2");
    EXPECT_EQ(p.spatial_dims, 3u);
    EXPECT_EQ(p.groups, 2);
    EXPECT_EQ(p.direction, ConvDirection::BackwardWeights);
    EXPECT_EQ(p.serialize(), "32-4-8-8-3x3x3-64-4-8-8-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP16-W_g2");
}

TEST(ProblemKey, BadKeysNameTheField) {
    const auto message = [](const char* key) { return test::input_error_of([&] { parse_conv_problem_key(key); }); };
    EXPECT_NE(message("576-4-4-1x1-192").find("at least 15"), std::string::npos);
    EXPECT_NE(message("576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-Q").find("direction 'Q'"), std::string::npos);
    EXPECT_NE(message("576-4-4-1x1-192-4-4-8-1x1x1-2x2-3x3-0-NCHW-FP32-F").find("padding"), std::string::npos);
    EXPECT_NE(message("57a-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F").find("'57a'"), std::string::npos);
}

TEST(FindDb, EveryKeyInEveryShippedFindDbRoundTrips) {
    const auto dir = test::shared_db_dir();
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not present";
    std::size_t files = 0, keys = 0, solvers = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().string().find(".HIP.fdb.txt") == std::string::npos) continue;
        ++files;
        for (const auto& record : read_find_db(entry.path())) {
            ++keys;
            solvers += record.solvers.size();
            ASSERT_EQ(record.problem.serialize(), record.key) << entry.path() << ":" << record.line;
            ASSERT_FALSE(record.solvers.empty()) << entry.path() << ":" << record.line;
        }
    }
    EXPECT_EQ(files, 5u);
    EXPECT_GT(keys, 490000u);  // 106105 + 64583 + 120454 + 192219 + 9600 lines
    std::cout << files << " find-db files, " << keys << " keys, " << solvers << " solver records round-tripped\n";
}

TEST(FindDb, BothLineForms) {
    const auto entries = parse_find_db(
        "1-1-1-3x3-2-3-3-128-0x0-1x1-1x1-0-NCHW-FP32-W=miopenConvolutionBwdWeightsAlgoWinograd:ConvBinWinogradRxSf2x3,"
        "0.12116,0,miopenConvolutionBwdWeightsAlgoWinograd,<unused>\n"
        "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-F=ConvAsm1x1U:0.05,0,miopenConvolutionFwdAlgoDirect;"
        "GemmFwd1x1_0_1:0.08,128,miopenConvolutionFwdAlgoGEMM\n",
        "test.fdb.txt");
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].solvers[0].solver, "ConvBinWinogradRxSf2x3");
    EXPECT_EQ(entries[0].solvers[0].algorithm, "miopenConvolutionBwdWeightsAlgoWinograd");
    EXPECT_EQ(entries[1].solvers[1].solver, "GemmFwd1x1_0_1");
    EXPECT_EQ(entries[1].solvers[1].workspace, 128);
}

TEST(FindDb, TruncatedFileIsAnErrorWithFileAndLine) {
    try {
        parse_find_db("576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F=ConvAsm1x1U:0.05,0,miopenConvolutionFwdAlgoDirect\n"
                      "576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-B=ConvAsm1x1U:0.0",
                      "x.fdb.txt");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("x.fdb.txt:2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    test::TempDir dir;
    write_file_atomic(dir / "cut.fdb.txt.bz2", test::bytes_of("BZh91AY&SY"));
    EXPECT_THROW(read_find_db(dir / "cut.fdb.txt.bz2"), InputError);
}
