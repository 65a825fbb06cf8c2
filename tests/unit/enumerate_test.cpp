// Problem keys and find-db files, against MIOpen's own data.
// Key format: ProblemDescription::Serialize, src/conv/problem_description.cpp:188-237 (MIOpen 3.3.0).
#include "kdbgen/cache_entry.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/error.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

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

TEST(FindDbWithTree, EveryKeyInEveryShippedFindDbRoundTrips) {
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

// MIOpen forms a key with ProblemDescription::Serialize (src/conv/problem_description.cpp:188-237,
// MIOpen 3.3.0): every D/H/W field goes through PrintDHW (:51-58) with the same spatial dimension
// count, so a 3-D key always has three padding values. A key with two can be in a find-db file but
// no lookup ever asks for it.
TEST(FindDbWithTree, KeysMIOpenNeverFormsAreSkippedOnlyWhenAsked) {
    const std::string text =
        "576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F=ConvAsm1x1U:0.05,0,miopenConvolutionFwdAlgoDirect\n"
        "1024-14-14-4-1x1x1-2048-7-7-2-4-0x0-2x2x2-1x1x1-0-NCHW-FP32-F=miopenConvolutionFwdAlgoGEMM:GemmFwdRest,"
        "15.3926,401408,rocBlas,<unused>\n"
        "1024-14-14-4-1x1x1-2048-7-7-2-4-0x0-2x2x2-1x1x1-0-NCHW-FP32-B=GemmBwdRest:1.0,0,miopenConvolutionBwdDataAlgoGEMM\n";
    // Strict (a find-db the user gives): the first such line is an error with file:line and the value.
    const auto strict = test::input_error_of([&] { parse_find_db(text, "given.fdb.txt"); });
    EXPECT_NE(strict.find("given.fdb.txt:2:"), std::string::npos) << strict;
    EXPECT_NE(strict.find("padding '0x0' needs 3 values"), std::string::npos) << strict;
    // Lenient (a find-db from the MIOpen tree): skipped and counted, the readable line kept.
    UnreadableFindDbLines skipped;
    const auto entries = parse_find_db(text, "tree.fdb.txt", &skipped);
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].line, 1u);
    EXPECT_EQ(skipped.count, 2u);
    EXPECT_EQ(skipped.first_line, 2u);
    EXPECT_NE(skipped.first_reason.find("padding '0x0'"), std::string::npos) << skipped.first_reason;
    // Only keys are forgiven: a readable key with a broken solver record is still an error.
    UnreadableFindDbLines ignored;
    const auto record = test::input_error_of([&] {
        parse_find_db("576-4-4-1x1-192-4-4-8-1x1-2x2-3x3-0-NCHW-FP32-F=ConvAsm1x1U:0.05\n", "tree.fdb.txt", &ignored);
    });
    EXPECT_NE(record.find("tree.fdb.txt:1:"), std::string::npos) << record;
}

// The find-dbs MIOpen 3.3.0 ships with such keys: 42 lines each in gfx803_36, gfx803_64,
// gfx900_64 and gfx906_64 (counted with bzcat | awk over the key fields).
TEST(FindDbWithTree, ShippedFindDbsWithTwoValuePaddingIn3dKeys) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    for (const char* name : {"gfx803_36", "gfx803_64", "gfx900_64", "gfx906_64"}) {
        const fs::path path = fs::path(src) / "src" / "kernels" / (std::string(name) + ".HIP.fdb.txt.bz2");
        if (!fs::exists(path)) GTEST_SKIP() << path << " not present";
        UnreadableFindDbLines skipped;
        const auto entries = read_find_db(path, &skipped);
        EXPECT_EQ(skipped.count, 42u) << name;
        EXPECT_NE(skipped.first_reason.find("padding"), std::string::npos) << name << ": " << skipped.first_reason;
        EXPECT_GT(entries.size(), 1000u) << name;
        EXPECT_THROW(read_find_db(path), InputError) << name << " read strictly";
    }
}

// MIOpenDriver lines and the keys MIOpen's find-dbs hold for the same problems.
// Each expected key is a line of ../shared/miopen-db/<target>.HIP.fdb.txt.bz2
// (MIOpen 3.3.0, develop 2d1fd997); the driver lines are written as
// src/driver_arguments.cpp:116-233 prints them.
TEST(DriverLog, ConvLinesGiveTheFindDbKeys) {
    const std::vector<std::pair<std::string, std::string>> pairs = {
        // gfx90a6e: NHWC backward data (dy has 1 channel, dx 64)
        {"conv -n 1024 -c 64 -H 19 -W 19 -k 1 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 --in_layout NHWC "
         "--fil_layout NHWC --out_layout NHWC -m conv -g 1 -F 2 -t 1",
         "1-19-19-1x1-64-19-19-1024-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-B"},
        // gfx90a6e: 3-D backward weights
        {"conv -n 128 -c 512 --in_d 1 -H 4 -W 4 -k 1 --fil_d 1 -y 4 -x 4 --pad_d 0 -p 0 -q 0 --conv_stride_d 1 -u 1 "
         "-v 1 --dilation_d 1 -l 1 -j 1 --spatial_dim 3 -m conv -g 1 -F 4 -t 1",
         "1-1-1-1-1x4x4-512-1-4-4-128-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W"},
        // gfx1030_36: grouped forward
        {"conv -n 32 -c 1024 -H 112 -W 112 -k 1024 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 32 -F 1 -t 1",
         "1024-112-112-3x3-1024-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-F_g32"},
        // gfx90a6e: BF16 backward data
        {"convbfp16 -n 128 -c 2 -H 3 -W 3 -k 1 -y 3 -x 3 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -m conv -g 1 -F 2 -t 1",
         "1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-BF16-B"},
        // gfx1030_36: FP16 backward data
        {"convfp16 -n 1 -c 1 -H 1760 -W 1760 -k 1 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 2 -t 1",
         "1-1760-1760-1x1-1-1760-1760-1-0x0-1x1-1x1-0-NCHW-FP16-B"},
        // gfx90a6e: forward with padding and stride
        {"conv -n 1 -c 1 -H 159 -W 697 -k 64 -y 5 -x 5 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 1 -F 1 -t 1",
         "1-159-697-5x5-64-79-348-1-1x1-2x2-1x1-0-NCHW-FP32-F"},
    };
    for (const auto& [line, key] : pairs) {
        const auto problems = parse_driver_command(line);
        ASSERT_EQ(problems.size(), 1u) << line;
        EXPECT_EQ(problem_key(problems[0]), key) << line;
    }
    const auto shared = test::shared_db_dir();
    if (!fs::is_directory(shared)) return;
    std::set<std::string> keys;
    for (const char* file : {"gfx90a6e.HIP.fdb.txt.bz2", "gfx1030_36.HIP.fdb.txt.bz2"})
        for (const auto& entry : read_find_db(shared / file)) keys.insert(entry.key);
    for (const auto& [line, key] : pairs) EXPECT_TRUE(keys.count(key)) << key << " is a real find-db key";
}

// bnorm's -s and -r, read two ways (issue 16, behaviours 1 and 3; MIOpen 3.3.0):
//  - MIOpen's logger (src/driver_arguments.cpp:91-113, BnDriverInfo) writes -s 1 for running (inference:
//    estimated) mean/variance, -r 1 for saved mean/inverse variance (src/batch_norm_api.cpp:234-241,311-318,391-398);
//  - MIOpenDriver reads -s as saveMeanVar and -r as keepRunningMeanVar (driver/bn_driver.hpp:306-316,441-466).
// Inference without estimated mean/variance runs the training kernel with no saved or running results
// (src/ocl/batchnormocl.cpp:259-281 -> :119-132: resultsave 0, resultrunning 0: "rs0rr0" in the network
// config, src/batchnorm/problem_description.cpp:135-136).
TEST(DriverLog, BnormFlagsAsLoggedAndAsHandWritten) {
    const auto logged = [](const std::string& line, std::size_t index = 0) {
        const auto set = parse_driver_log("MIOpen(HIP): Command [LogCmdBNorm] ./bin/MIOpenDriver " + line + "\n", "run.log");
        return set.entries().at(index).key;
    };
    const auto hand = [](const std::string& line, std::size_t index = 0) {
        const auto set = parse_driver_log("./bin/MIOpenDriver " + line + "\n", "cmds.txt");
        return set.entries().at(index).key;
    };
    const std::string shape = "bnorm -n 32 -c 64 -H 56 -W 56 -m 1 ";
    const std::string inference = "fp160fp321fp640fbf160fmix0mode1HWdims3136C64layoutNCHW";
    const auto training = [](const char* rs_rr) {
        return fmt::format("variant1gx65536gy1xl1024yl1ldsgcn16{}fp160fp321fp640fbf160fmix0single1n32c64hw3136layoutNCHW", rs_rr);
    };
    const auto backward = [](int us) {
        return fmt::format("variant1gx65536n32c64hw3136gy1lx1024ly1us{}fp160fp321fp640fbf160fmix0single1gcn16layoutNCHW", us);
    };
    // Inference: logged -s 1 / hand-written -r 1 carry estimated mean and variance.
    EXPECT_EQ(logged(shape + "--forw 2 -b 0 -s 1 --layout NCHW"), inference);
    EXPECT_EQ(hand(shape + "--forw 2 -b 0 -r 1 --layout NCHW"), inference);
    // Without them (behaviour 1): the training kernel, rs0rr0, under both readings.
    EXPECT_EQ(logged(shape + "--forw 2 -b 0 --layout NCHW"), training("rs0rr0"));
    EXPECT_EQ(logged(shape + "--forw 2 -b 0 -r 1 --layout NCHW"), training("rs0rr0"));
    EXPECT_EQ(hand(shape + "--forw 2 -b 0 -s 1 --layout NCHW"), training("rs0rr0"));
    // Training: the same -s 1 is running results when logged, saved results when hand-written.
    EXPECT_EQ(logged(shape + "--forw 1 -b 0 -s 1 --layout NCHW"), training("rs0rr1"));
    EXPECT_EQ(hand(shape + "--forw 1 -b 0 -s 1 --layout NCHW"), training("rs1rr0"));
    EXPECT_EQ(logged(shape + "--forw 1 -b 0 -s 1 -r 1 --layout NCHW"), training("rs1rr1"));
    // Backward: logged -r 1 / hand-written -s 1 use the saved mean and inverse variance.
    EXPECT_EQ(logged(shape + "--forw 0 -b 1 -r 1 --layout NCHW"), backward(1));
    EXPECT_EQ(hand(shape + "--forw 0 -b 1 -r 1 --layout NCHW"), backward(0));
    EXPECT_EQ(hand(shape + "--forw 0 -b 1 -s 1 --layout NCHW"), backward(1));
    // The prefix may carry a process id and elapsed time (src/logger.cpp:179-198).
    EXPECT_EQ(parse_driver_log("1234 5678 MIOpen(HIP)   0.123: Command [LogCmdBNorm] ./bin/MIOpenDriver " + shape +
                                   "--forw 2 -b 0 -s 1\n",
                               "run.log")
                  .entries()
                  .at(0)
                  .key,
              inference);
    // MIOpenDriver exits on -s or -r other than 0 or 1 (driver/bn_driver.hpp:441-466).
    EXPECT_NE(test::input_error_of([&] { parse_driver_command(shape + "--forw 1 -s 2"); }).find("--save 2"),
              std::string::npos);
}

TEST(DriverLog, AllDirectionsTransposeAndPadModes) {
    const auto all = parse_driver_command("conv -n 8 -c 16 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0");
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(problem_key(all[0]), "16-14-14-3x3-32-14-14-8-1x1-1x1-1x1-0-NCHW-FP32-F");
    EXPECT_EQ(problem_key(all[1]), "32-14-14-3x3-16-14-14-8-1x1-1x1-1x1-0-NCHW-FP32-B");
    EXPECT_EQ(problem_key(all[2]), "32-14-14-3x3-16-14-14-8-1x1-1x1-1x1-0-NCHW-FP32-W");
    // Transposed: forward is MIOpen's backward-data problem with x first (convolution_api.cpp:56-58).
    const auto trans = parse_driver_command("conv -n 1 -c 64 -H 8 -W 8 -k 32 -y 2 -x 2 -u 2 -v 2 -m trans -F 1");
    EXPECT_EQ(problem_key(trans[0]), "64-8-8-2x2-32-16-16-1-0x0-2x2-1x1-0-NCHW-FP32-B");
    // pad_mode same (conv_driver.hpp:1175-1186; output ceil(in / stride), convolution.cpp:298-306).
    const auto same = parse_driver_command("conv -n 1 -c 3 -H 225 -W 225 -k 8 -y 3 -x 3 -u 2 -v 2 -z same -F 1");
    EXPECT_EQ(problem_key(same[0]), "3-225-225-3x3-8-113-113-1-1x1-2x2-1x1-0-NCHW-FP32-F");
    // convint8: y is miopenInt32 (conv_driver.hpp:816-817).
    EXPECT_EQ(problem_key(parse_driver_command("convint8 -n 1 -c 8 -H 4 -W 4 -k 8 -y 1 -x 1 -F 1")[0]),
              "8-4-4-1x1-8-4-4-1-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F");
}

// Network-config strings worked by hand from MIOpen 3.3.0's MakeNetworkConfig
// (see src/enumerate/primitives.cpp for file:line).
TEST(DriverLog, PrimitiveNetworkConfigs) {
    const auto key = [](const char* line, std::size_t index = 0) {
        return problem_key(parse_driver_command(line).at(index));
    };
    // activ: 32*64*56*56 = 6422528 elements, read unit 4, MAP_RD 1605632, height 56;
    // 1*3*5*5 = 75 elements: read unit 1, MAP_RD 75, height 5.
    EXPECT_EQ(key("activ -n 32 -c 64 -H 56 -W 56 -m 3 --forw 1 -A 1 -B 1 -G 1"), "activ-fwd-11134160563256");
    EXPECT_EQ(key("activfp16 -n 1 -c 3 -H 5 -W 5 -m 8 --forw 2"), "activ-bwd-11081755");
    // softmax: the "sfmfwd-" initial buffer is overwritten by the writes.
    EXPECT_EQ(key("softmax -n 32 -c 1000 -H 1 -W 1 -F 1 -a 1 -m 1 -A 1 -B 0"),
              "n32c1000h1w1floata1b0algo1mode1xpk1ypk1");
    EXPECT_EQ(key("softmaxfp16 -n 4 -c 10 -H 1 -W 1 -F 2 -a 2 -m 0"), "n4c10h1w1halfa1b0algo2mode0ypk1dypk1dxpk1");
    // bnorm inference and training, spatial, 32x64x56x56 (hw 3136 > 1024: variant 1).
    // (hand-written: -r 1 gives the estimated mean/variance inference uses; see BnormFlags below)
    EXPECT_EQ(key("bnorm -n 32 -c 64 -H 56 -W 56 -m 1 --forw 2 -b 0 -r 1 --layout NCHW"),
              "fp160fp321fp640fbf160fmix0mode1HWdims3136C64layoutNCHW");
    EXPECT_EQ(key("bnorm -n 32 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW"),
              "variant1gx65536gy1xl1024yl1ldsgcn16rs1rr1fp160fp321fp640fbf160fmix0single1n32c64hw3136layoutNCHW");
    // 7x7 (hw 49 <= 512, n < 256 and hw < 256: local 256, variant 0); FP16 data with FP32 parameters.
    EXPECT_EQ(key("bnormfp16fp32 -n 32 -c 2048 -H 7 -W 7 -m 1 --forw 1 -b 0 -s 1 -r 1"),
              "variant0gx524288gy1xl256yl1ldsgcn4rs1rr1fp161fp320fp640fbf160fmix1single1n32c2048hw49layoutNCHW");
    // A 5-D tensor reaches the solvers folded to N x C x (D*H) x W, NCHW (src/batch_norm_api.cpp:252-256).
    EXPECT_EQ(key("bnorm -n 2 -c 8 -D 4 -H 16 -W 16 -m 1 --forw 1 -b 0 -s 1 -r 1"),
              key("bnorm -n 2 -c 8 -H 64 -W 16 -m 1 --forw 1 -b 0 -s 1 -r 1"));
    // backward, spatial, hw 3136 > 1024: variant 1, local 1024.
    EXPECT_EQ(key("bnorm -n 32 -c 64 -H 56 -W 56 -m 1 --forw 0 -b 1 -s 1"),
              "variant1gx65536n32c64hw3136gy1lx1024ly1us1fp160fp321fp640fbf160fmix0single1gcn16layoutNCHW");
    // pool: 112x112 -> 56x56 with a 3x3 window, stride 2, pad 1; forward only, so no saved index.
    EXPECT_EQ(key("pool -W 32x64x112x112 -y 3 -x 3 -p 1 -q 1 -v 2 -u 2 -m max -F 1"),
              "m1_dt1_ker3x3_str2x2_pad1x1_it0_im0_is0_xd32x64x112x112_xs802816x12544x112x1_yd32x64x56x56_ys200704x3136x56x1");
    EXPECT_EQ(parse_driver_command("pool -W 1x8x4x4 -y 2 -x 2 -v 2 -u 2 -m avg").size(), 2u);
    // An NHWC pooling's strides are channels-last in its key (the network config names x's and y's strides,
    // src/pooling/problem_description.cpp:52-88, MIOpen 3.3.0); MIOpen's log of the call gives the strides
    // themselves after the comma (Pooling_logging_cmd), which read back to the same layout.
    EXPECT_EQ(key("pool -W 2x4x8x10,NHWC -y 2 -x 2 -p 0 -q 0 -v 1 -u 1 -m max -F 1"),
              "m1_dt1_ker2x2_str1x1_pad0x0_it0_im0_is0_xd2x4x8x10_xs320x1x40x4_yd2x4x7x9_ys252x1x36x4");
    EXPECT_EQ(key("pool -M 0 --input 2x4x8x10,320x1x40x4 -y 2 -x 2 -p 0 -q 0 -v 1 -u 1 -m max -F 1"),
              key("pool -W 2x4x8x10,NHWC -y 2 -x 2 -p 0 -q 0 -v 1 -u 1 -m max -F 1"));
    EXPECT_EQ(key("pool -M 0 --input 2x4x8x10,320x80x10x1 -y 2 -x 2 -v 1 -u 1 -m max -F 1"),
              key("pool -W 2x4x8x10 -y 2 -x 2 -v 1 -u 1 -m max -F 1"));
    EXPECT_NE(test::input_error_of([] { parse_driver_command("pool -W 2x4x8x10,7x7x7x7 -F 1"); }).find("7x7x7x7"),
              std::string::npos);
    EXPECT_EQ(key("lrn -A 0.0001 -B 0.75 -F 1 -H 27 -K 2 -N 5 -W 27 -c 96 -m 1 -n 128"),
              "lrn-fwd-mode1-n5-a0.0001-b0.75-k2-128x96x27x27-FP32");
    // tensorop (driver/tensorop_driver.hpp:148-153): 0 SetTensor, 1 ScaleTensor, 2-5 OpTensor add..max.
    EXPECT_EQ(key("tensorop -n 2 -c 8 -H 4 -W 4 -o 0"), "settensor-a2x8x4x4-FP32");
    EXPECT_EQ(key("tensoropfp16 -n 2 -c 8 -H 4 -W 4 -o 3"), "optensor-op1-a2x8x4x4-b2x8x4x4-FP16");
    EXPECT_NE(test::input_error_of([] { parse_driver_command("tensorop -o 7"); }).find("--tensor_op 7"),
              std::string::npos);
}

TEST(DriverLog, ReadsLinesOutOfALogAndDeduplicates) {
    const std::string log =
        "some PyTorch output\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 1 -H 159 -W 697 -k 64 -y 5 -x 5 "
        "-p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
        "MIOpen(HIP): Info [Forward] ...\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 1 -H 159 -W 697 -k 64 -y 5 -x 5 "
        "-p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
        "MIOpen(HIP): Command [LogCmdActivation] ./bin/MIOpenDriver activ -n 1 -c 64 -H 79 -W 348 -m 3 --forw 1 "
        "-A 0 -B 0 -G 0\n";
    const auto set = parse_driver_log(log, "run.log");
    ASSERT_EQ(set.entries().size(), 2u);
    EXPECT_EQ(set.entries()[0].origins, (std::vector<std::string>{"run.log:2", "run.log:4"}));
    EXPECT_EQ(set.count("activation"), 1u);
}

TEST(DriverLog, BadFlagsNameFileLineAndValue) {
    const auto message = [](const std::string& line) {
        return test::input_error_of([&] { parse_driver_log("MIOpenDriver " + line + "\n", "x.log"); });
    };
    EXPECT_NE(message("conv -n 1 --frobnicate 3").find("x.log:1: MIOpenDriver conv: unknown flag '--frobnicate'"),
              std::string::npos);
    EXPECT_NE(message("conv -n 1 -Q 3").find("unknown flag '-Q'"), std::string::npos);
    EXPECT_NE(message("conv -n x").find("'x' is not a whole number"), std::string::npos);
    EXPECT_NE(message("conv -n 1 -H 2 -W 2 -y 5 -x 5").find("output size"), std::string::npos);
    EXPECT_NE(message("conv -c 3 -k 8 -g 2").find("not divisible by 2 groups"), std::string::npos);
    EXPECT_NE(message("gemmx -m 1").find("x.log:1: unsupported MIOpenDriver command 'gemmx'"), std::string::npos);
}

// MIOpenDriver's commands kdbgen has no problem model for (issue #50) are kept as the command itself, its
// flags as written (the drivers of one command differ between versions; the installed one runs the line)
// less those the driver's table (driver_flags.cpp, MIOpen 3.3.0 and 3.5.1) names as steering the run only,
// so the same work is one problem; the rest of the log is read as before. A line that is no flag-value
// list names the file and line.
TEST(DriverLog, EveryMiopenDriverCommandIsReadNoneRefusesTheLog) {
    const auto set = parse_driver_log("MIOpenDriver conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1\n"
                                      "MIOpenDriver rnn -n 4 -W 8 -H 16 -l 1 -m lstm -F 0 -V 0\n"
                                      "MIOpenDriver ctc -k 10 -l 5\n"
                                      "MIOpenDriver rnn --hid_h 16 --batchsize 4 -i 5 --in_h 8 -l 1 -F 0 -m lstm\n"
                                      "MIOpenDriver layernormfp16 -X 32x64x128 -o 2 -F 1\n"
                                      "MIOpenDriver dropout -d 4,32,32 -p 0.5 -e 1\n",
                                      "x.log");
    EXPECT_EQ(set.count("conv"), 1u);
    EXPECT_EQ(set.count("driver"), 5u);  // the rnn lines differ in spelling: two problems
    std::set<std::string> keys;
    for (const auto& entry : set.entries())
        if (problem_kind(entry.problem) == "driver") keys.insert(entry.key);
    EXPECT_TRUE(keys.count("rnn -n 4 -W 8 -H 16 -l 1 -m lstm -F 0")) << fmt::format("{}", fmt::join(keys, " | "));
    EXPECT_TRUE(keys.count("ctc -k 10 -l 5")) << fmt::format("{}", fmt::join(keys, " | "));
    for (const auto& entry : set.entries())
        if (const auto* driver = std::get_if<DriverCommandProblem>(&entry.problem)) {
            EXPECT_EQ(driver->key(), entry.key);
            EXPECT_EQ(entry.key.find(" -V "), std::string::npos) << entry.key;
            EXPECT_EQ(entry.key.find(" -i "), std::string::npos) << entry.key;
        }
    const auto message = [](const std::string& line) {
        return test::input_error_of([&] { parse_driver_log("\n\nMIOpenDriver " + line + "\n", "x.log"); });
    };
    EXPECT_NE(message("ctc -k 10 -lx 5").find("x.log:3: MIOpenDriver ctc: '-lx' is not a flag"), std::string::npos);
    EXPECT_NE(message("dropout -d").find("the flag '-d' has no value"), std::string::npos);
    EXPECT_NE(message("dropout -d 4 -p 0.5 bad").find("'bad' is not a flag"), std::string::npos);
}

// Shipped networks. Counting ResNet-50 (v1.5) by hand: distinct forward
// convolutions per (batch, type) are conv1, 4 in stage 1 (1x1 64->64,
// 3x3 64->64, 1x1 64->256 which the downsample shares, 1x1 256->64), and 6
// in each of stages 2-4 (1x1 in->mid at the input size, 3x3 stride 2, 1x1
// mid->out, the 1x1 stride-2 downsample, 1x1 out->mid, 3x3 stride 1):
// 1 + 4 + 3 * 6 = 23. Training adds backward-weights for all 23 and
// backward-data for all but conv1 (no gradient for the image): 23 + 22 + 23 = 68.
// Over batch {1, 32} x {FP32, FP16}: 92 for inference, 272 for training, and
// 272 for both (the forward keys are shared).
TEST(Networks, ResNet50CountsAsCountedByHand) {
    const auto path = test::source_dir() / "configs/networks/resnet50.toml";
    NetworkExpansion inference;
    inference.modes = {"inference"};
    NetworkExpansion training;
    training.modes = {"training"};
    EXPECT_EQ(read_network(path, inference).count("conv"), 92u);
    EXPECT_EQ(read_network(path, training).count("conv"), 272u);
    EXPECT_EQ(read_network(path).count("conv"), 272u);
    NetworkExpansion one;
    one.batch_sizes = {32};
    one.data_types = {"FP32"};
    one.modes = {"inference"};
    const auto set = read_network(path, one);
    EXPECT_EQ(set.count("conv"), 23u);
    std::set<std::string> keys;
    for (const auto& e : set.entries()) keys.insert(e.key);
    // conv1 and a stage-2 stride-2 3x3, written out by hand.
    EXPECT_TRUE(keys.count("3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-F"));
    EXPECT_TRUE(keys.count("128-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-FP32-F"));
    EXPECT_TRUE(keys.count("256-56-56-1x1-512-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F"));  // downsample
    EXPECT_EQ(set.count("batchnorm"), 12u);
}

TEST(Networks, VggAndLayoutsAndOthersExpand) {
    const auto dir = test::source_dir() / "configs/networks";
    NetworkExpansion e;
    e.batch_sizes = {1};
    e.data_types = {"FP32"};
    e.modes = {"inference"};
    // VGG-16 D: 9 distinct 3x3 convolutions (13 layers, 4 repeats).
    EXPECT_EQ(read_network(dir / "vgg16.toml", e).count("conv"), 9u);
    e.layouts = {"NHWC"};
    const auto nhwc = read_network(dir / "vgg16.toml", e);
    // bias 0 although VGG's layers have one: MIOpen's API never puts it in the key (conv_spec.hpp).
    EXPECT_EQ(nhwc.entries().front().key, "3-224-224-3x3-64-224-224-1-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-F");
    e.layouts = {};
    // MobileNet-V2 has depthwise (grouped) convolutions.
    const auto mobilenet = read_network(dir / "mobilenet_v2.toml", e);
    bool depthwise = false;
    for (const auto& entry : mobilenet.entries()) depthwise |= entry.key.ends_with("F_g96");
    EXPECT_TRUE(depthwise);
    // 3D U-Net: 3-D keys, the paper's 44x44x28 output.
    const auto unet = read_network(dir / "unet3d.toml", e);
    bool classifier = false;
    for (const auto& entry : unet.entries())
        classifier |= entry.key == "64-28-44-44-1x1x1-3-28-44-44-1-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-F";
    EXPECT_TRUE(classifier);
    EXPECT_GT(read_network(dir / "sd15_unet.toml", e).count("conv"), 20u);
}

// Recurrent layers, CTC loss and dropout in a network description (issue #50) are the MIOpenDriver lines
// of the calls PyTorch makes for nn.LSTM/GRU/RNN, F.ctc_loss and a MIOpen dropout (recurrent.hpp): flags
// as driver/rnn_driver.hpp:232-293, driver/ctc_driver.hpp:158-187 (num_class without the blank) and
// driver/dropout_driver.hpp:152-181 define them (MIOpen 3.3.0). A sequence input is [features, steps]; a
// convolutional front end's last axis is time; 'linear' keeps a sequence's steps.
TEST(Networks, RecurrentLayersCtcLossAndDropoutAreMiopenDriverLines) {
    test::TempDir dir;
    std::ofstream(dir / "speech.toml") << "[network]\ninput = [1, 16, 40]\nbatch = [4]\n"
                                          "data_types = [\"FP32\", \"FP16\"]\nmodes = [\"inference\", \"training\"]\n"
                                          "[[layer]]\ntype = \"conv\"\nout = 8\nkernel = 3\npad = 1\n"
                                          "[[layer]]\ntype = \"dropout\"\nrate = 0.1\nmiopen = true\n"
                                          "[[layer]]\ntype = \"gru\"\nhidden = 32\nnum_layers = 2\nbidirectional = true\n"
                                          "seq_len = 40\ndropout = 0.3\n"
                                          "[[layer]]\ntype = \"lstm\"\nhidden = 16\nbias = false\n"
                                          "[[layer]]\ntype = \"linear\"\nout = 29\n"
                                          "[[layer]]\ntype = \"ctc_loss\"\nlabel_len = 12\n";
    std::set<std::string> keys;
    const ProblemSet speech = read_network(dir / "speech.toml");
    for (const auto& entry : speech.entries())
        if (std::holds_alternative<DriverCommandProblem>(entry.problem)) keys.insert(entry.key);
    EXPECT_EQ(keys, (std::set<std::string>{
                        // 8 x 16 features a step over 40 steps; dropout between the GRU's layers in training only.
                        "rnn -n 4 -W 128 -H 32 -l 2 -k 40 -m gru -r 1 -b 1 -F 0 -c 0 -U 1 -P 0.3",
                        "rnn -n 4 -W 128 -H 32 -l 2 -k 40 -m gru -r 1 -b 1 -F 1 -c 1",
                        "rnnfp16 -n 4 -W 128 -H 32 -l 2 -k 40 -m gru -r 1 -b 1 -F 0 -c 0 -U 1 -P 0.3",
                        "rnnfp16 -n 4 -W 128 -H 32 -l 2 -k 40 -m gru -r 1 -b 1 -F 1 -c 1",
                        // the GRU's two directions are the LSTM's input
                        "rnn -n 4 -W 64 -H 16 -l 1 -k 40 -m lstm -r 0 -b 0 -F 0 -c 0",
                        "rnn -n 4 -W 64 -H 16 -l 1 -k 40 -m lstm -r 0 -b 0 -F 1 -c 1",
                        "rnnfp16 -n 4 -W 64 -H 16 -l 1 -k 40 -m lstm -r 0 -b 0 -F 0 -c 0",
                        "rnnfp16 -n 4 -W 64 -H 16 -l 1 -k 40 -m lstm -r 0 -b 0 -F 1 -c 1",
                        "ctc -n 4 -c 28 -k 40 -l 12 -b 0 -m 1 -F 1",  // float training only
                        "dropout -d 4,8,16,40 -p 0.1 -F 0", "dropoutfp16 -d 4,8,16,40 -p 0.1 -F 0"}));
    const auto error_for = [&](const std::string& text) {
        std::ofstream(dir / "net.toml") << text;
        return test::input_error_of([&] { read_network(dir / "net.toml"); });
    };
    const auto path = (dir / "net.toml").string();
    auto message = error_for("[network]\ninput = [3, 8, 8]\n[[layer]]\nname = \"r\"\ntype = \"lstm\"\nhidden = 4\n");
    EXPECT_NE(message.find(path + ":3: layer 'r': 'lstm' on a tensor that is no sequence needs 'seq_len'"),
              std::string::npos) << message;
    message = error_for("[network]\ninput = [8, 5]\n[[layer]]\ntype = \"gru\"\nhidden = 4\nseq_len = 6\n");
    EXPECT_NE(message.find("'seq_len' differs from the 5 steps"), std::string::npos) << message;
    message = error_for("[network]\ninput = [3, 8, 8]\n[[layer]]\ntype = \"ctc_loss\"\nlabel_len = 2\n");
    EXPECT_NE(message.find("'ctc_loss' reads a sequence"), std::string::npos) << message;
    message = error_for("[network]\ninput = [8, 5]\n[[layer]]\ntype = \"lstm\"\nhidden = 4\nlayers = 2\n");
    EXPECT_NE(message.find("'layers'"), std::string::npos) << message;
}

TEST(Networks, BadInputNamesFileLineLayerAndValue) {
    test::TempDir dir;
    const auto error_for = [&](const std::string& text) {
        std::ofstream(dir / "net.toml") << text;
        return test::input_error_of([&] { read_network(dir / "net.toml"); });
    };
    const std::string head = "[network]\ninput = [3, 8, 8]\n";
    const auto path = (dir / "net.toml").string();
    auto message = error_for(head + "[[layer]]\ntype = \"conv\"\nout = 4\nkernel = [3, 3\n");
    EXPECT_NE(message.find(path + ":6:"), std::string::npos) << message;  // malformed TOML
    message = error_for(head + "[[layer]]\nname = \"big\"\ntype = \"conv\"\nout = 4\nkernel = 11\n");
    EXPECT_NE(message.find(path + ":3: layer 'big': output size -2"), std::string::npos) << message;
    message = error_for(head + "[[layer]]\nname = \"g\"\ntype = \"conv\"\nout = 4\ngroups = 2\n");
    EXPECT_NE(message.find("layer 'g': channels 3 -> 4 are not divisible by 2 groups"), std::string::npos) << message;
    message = error_for(head + "[[layer]]\ntype = \"warp\"\n");
    EXPECT_NE(message.find("type = \"warp\": is not a layer type"), std::string::npos) << message;
    message = error_for(head + "[[layer]]\ntype = \"add\"\nwith = \"nowhere\"\n");
    EXPECT_NE(message.find("no earlier layer named 'nowhere'"), std::string::npos) << message;
    message = error_for("[network]\ninput = [3, 8, 8]\ndata_types = [\"FP8x\"]\n[[layer]]\ntype = \"relu\"\n");
    EXPECT_NE(message.find("unknown data type 'FP8x'"), std::string::npos) << message;
}

// The wrong inputs of issue 16 that used to plan something else: each an error with file:line, the
// key and the value, a near-miss key with its suggestion (tests/data/bad-inputs/ has the full corpus).
TEST(Networks, TyposWrongTypesAndRangesAreErrors) {
    test::TempDir dir;
    const auto error_for = [&](const std::string& layer, const std::string& network = "") {
        std::ofstream(dir / "net.toml") << "[network]\ninput = [3, 8, 8]\n" << network << "[[layer]]\n" << layer;
        return test::input_error_of([&] { read_network(dir / "net.toml"); });
    };
    const auto expect = [](const std::string& message, const std::string& fragment) {
        EXPECT_NE(message.find(fragment), std::string::npos) << message << "\n  wanted: " << fragment;
    };
    const std::string path = (dir / "net.toml").string();
    expect(error_for("type = \"conv\"\nout = 4\nstrides = 2\n"),
           path + ":6: layer 'layer 1': 'strides' is not a key of a conv layer (did you mean 'stride'?)");
    expect(error_for("type = \"relu\"\n", "batches = [1]\n"), ":3: [network]: 'batches' is not a key of [network] (did you mean 'batch'?)");
    expect(error_for("type = \"lrn\"\nmode = \"within-channel\"\n"), "mode = \"within-channel\": is not 'cross_channel' or 'within_channel' (did you mean 'within_channel'?)");
    expect(error_for("type = \"lrn\"\nsize = -5\n"), "size = -5: must be between 1 and");
    expect(error_for("type = \"lrn\"\nalpha = nan\n"), "alpha = nan: must be a finite number");
    expect(error_for("type = \"conv\"\nout = 4\nbias = \"yes\"\n"), "bias = \"yes\": must be true or false");
    expect(error_for("type = \"conv\"\nout = 4\nkernel = 3.0\n"), "kernel = 3.0: must be a whole number");
    expect(error_for("type = \"relu\"\nrepeat = 2.5\n"), "repeat = 2.5: must be a whole number");
    expect(error_for("type = \"relu\"\nrepeat = \"2\"\n"), "repeat = \"2\": must be a whole number");
    expect(error_for("type = \"cnov\"\nout = 4\n"), "is not a layer type (did you mean 'conv'?)");
    // A repeat no network has is refused before anything runs, in well under a second.
    const auto started = std::chrono::steady_clock::now();
    expect(error_for("name = \"b\"\nrepeat = 10000000\nlayers = [{ type = \"relu\" }]\n"),
           "block 'b': repeat = 10000000: must be between 1 and 10000");
    expect(error_for("repeat = 10000\nlayers = [{ type = \"relu\", repeat = 10000 }]\n"),
           "more than the 1000000 kdbgen plans from one file");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
    // Tensors beyond any GPU's memory.
    expect(error_for("type = \"upsample\"\nscale = 100000\n[[layer]]\ntype = \"upsample\"\nscale = 100000\n"),
           "more than 256 GiB");
}

// ONNX models from Debian's libonnx-testdata (PyTorch exports).
TEST(Onnx, PytorchConvertedModels) {
    const fs::path data = "/usr/share/libonnx-testdata/data/pytorch-converted";
    if (!fs::is_directory(data)) GTEST_SKIP() << "libonnx-testdata not installed";
    const auto keys_of = [&](const char* model, OnnxOptions options = {}) {
        std::vector<std::string> keys;
        const auto set = read_onnx_model(data / model / "model.onnx", options);
        for (const auto& e : set.entries()) keys.push_back(e.key);
        return keys;
    };
    // Depthwise strided: x 2x4x6x6, w 4x1x3x3, group 4, stride 2 (the model's own shapes); its bias
    // input is added by a separate call, never in the key (src/convolution_api.cpp:65-111).
    EXPECT_EQ(keys_of("test_Conv2d_depthwise_strided"),
              (std::vector<std::string>{"4-6-6-3x3-4-2-2-2-0x0-2x2-1x1-0-NCHW-FP32-F_g4"}));
    OnnxOptions fp16;
    fp16.batch_size = 8;
    fp16.data_type = "FP16";
    EXPECT_EQ(keys_of("test_Conv2d_depthwise_strided", fp16),
              (std::vector<std::string>{"4-6-6-3x3-4-2-2-8-0x0-2x2-1x1-0-NCHW-FP16-F_g4"}));
    // Conv1d runs as a 2-D convolution of height 1.
    const auto conv1d = keys_of("test_Conv1d");
    ASSERT_EQ(conv1d.size(), 1u);
    EXPECT_NE(conv1d[0].find("-1x3-"), std::string::npos) << conv1d[0];
    // Transposed: MIOpen's backward-data key with x first.
    EXPECT_EQ(keys_of("test_ConvTranspose2d").front(), "3-7-6-3x3-4-20-12-1-1x1-3x2-1x1-0-NCHW-FP32-B");
    // Other primitives.
    EXPECT_EQ(read_onnx_model(data / "test_MaxPool2d/model.onnx").count("pooling"), 1u);
    EXPECT_EQ(read_onnx_model(data / "test_BatchNorm2d_eval/model.onnx").count("batchnorm"), 1u);
    EXPECT_EQ(read_onnx_model(data / "test_LeakyReLU/model.onnx").count("activation"), 1u);
    EXPECT_EQ(read_onnx_model(data / "test_Softmax/model.onnx").count("softmax"), 1u);
    OnnxOptions train;
    train.modes = {"training"};
    EXPECT_EQ(read_onnx_model(data / "test_Conv2d/model.onnx", train).count("conv"), 2u) << "F and W, no B for the input";
}

// ONNX's LSTM, GRU and RNN (libonnx-testdata's node tests) as the MIOpenDriver rnn line of the calls
// PyTorch's MIOpen backend makes (include/kdbgen/recurrent.hpp; flags: driver/rnn_driver.hpp:232-293,
// MIOpen 3.3.0): X [seq, batch, input] or, with layout = 1, [batch, seq, input]; a bias when input B is
// given; training: forward and both backwards (-F 0 -c 0), inference: the inference forward (-F 1 -c 1).
// What MIOpen's RNN cannot run is an error naming the node; a training-mode Dropout is MIOpen's dropout.
TEST(Onnx, RecurrentNodesAndDropoutAreMiopenDriverLines) {
    const fs::path data = "/usr/share/libonnx-testdata/data/node";
    if (!fs::is_directory(data)) GTEST_SKIP() << "libonnx-testdata not installed";
    const auto keys_of = [&](const char* model, const char* mode) {
        OnnxOptions options;
        options.modes = {mode};
        std::vector<std::string> keys;
        const ProblemSet set = read_onnx_model(data / model / "model.onnx", options);
        for (const auto& e : set.entries()) keys.push_back(e.key);
        return keys;
    };
    EXPECT_EQ(keys_of("test_lstm_defaults", "training"),
              (std::vector<std::string>{"rnn -n 3 -W 2 -H 3 -l 1 -k 1 -m lstm -r 0 -b 0 -F 0 -c 0"}));
    EXPECT_EQ(keys_of("test_lstm_batchwise", "inference"),
              (std::vector<std::string>{"rnn -n 3 -W 2 -H 7 -l 1 -k 1 -m lstm -r 0 -b 0 -F 1 -c 1"}));
    EXPECT_EQ(keys_of("test_rnn_seq_length", "inference"),
              (std::vector<std::string>{"rnn -n 3 -W 3 -H 5 -l 1 -k 2 -m tanh -r 0 -b 1 -F 1 -c 1"}));
    EXPECT_EQ(keys_of("test_training_dropout", "training"), (std::vector<std::string>{"dropout -d 3,4,5 -p 0.5 -F 0"}));
    EXPECT_TRUE(keys_of("test_training_dropout", "inference").empty()) << "Dropout is the identity in inference";
    OnnxOptions options;
    auto message = test::input_error_of([&] { read_onnx_model(data / "test_lstm_with_peepholes/model.onnx", options); });
    EXPECT_NE(message.find("peepholes"), std::string::npos) << message;
    message = test::input_error_of([&] { read_onnx_model(data / "test_gru_defaults/model.onnx", options); });
    EXPECT_NE(message.find("linear_before_reset = 0"), std::string::npos) << message;
}

TEST(Onnx, CorruptModelIsAClearError) {
    test::TempDir dir;
    write_file_atomic(dir / "bad.onnx", test::bytes_of("\x08\x07this is not protobuf \xff\xff\xff"));
    const auto message = test::input_error_of([&] { read_onnx_model(dir / "bad.onnx"); });
    EXPECT_NE(message.find("bad.onnx"), std::string::npos) << message;
    EXPECT_NE(message.find("not a valid ONNX model"), std::string::npos) << message;
}

// read_find_db_entries(path, dir, ...) keeps the unpacked text of a .bz2 under the packed
// file's SHA-256: the next read parses the kept text, a changed file gets its own.
TEST(FindDb, UnpackedTextIsKeptUnderThePackedFilesHash) {
    const auto read_find_db = [](const fs::path& path, const fs::path& decoded_dir) {
        std::vector<FindDbEntry> entries;
        read_find_db_entries(path, decoded_dir, nullptr, [&](FindDbEntry&& e) { entries.push_back(std::move(e)); });
        return entries;
    };
    test::TempDir dir;
    // 40 lines each, so that bzip2 packs them smaller than the text (else MIOpen's packer gives up).
    std::string first, second;
    for (int i = 0; i < 40; ++i) {
        first += "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-F=ConvAsm1x1U:0.05,0,miopenConvolutionFwdAlgoDirect\n";
        second += "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F=ConvAsm1x1U:0.05,0,miopenConvolutionFwdAlgoDirect\n";
    }
    const auto pack = [&](const std::string& text) {
        const auto compressed = bz2_compress_like_miopen(std::span<const char>(text.data(), text.size()));
        EXPECT_TRUE(compressed.has_value());
        const Bytes packed = compressed.value_or(Bytes{});
        write_file_atomic(dir / "x.HIP.fdb.txt.bz2", std::span<const char>(packed.data(), packed.size()));
        return Sha256().add(std::string_view(packed.data(), packed.size())).hex();
    };
    const auto decoded = dir / "decoded";
    const auto hash = pack(first);
    const auto cold = read_find_db(dir / "x.HIP.fdb.txt.bz2", decoded);
    ASSERT_EQ(cold.size(), 40u);
    EXPECT_EQ(cold[0].key, kdbgen::read_find_db(dir / "x.HIP.fdb.txt.bz2")[0].key);
    Sha256 named;
    const Bytes packed = read_file(dir / "x.HIP.fdb.txt.bz2");
    const auto kept = decoded / (named.add(std::string_view(packed.data(), packed.size())).hex() + ".txt");
    ASSERT_TRUE(fs::exists(kept)) << "kept as " << kept;
    const std::string entry = read_text_file(kept);
    EXPECT_EQ(open_cache_entry("find-db-text", Sha256().add(std::string_view(packed.data(), packed.size())).hex(), entry),
              std::optional<std::string_view>(first));
    // A warm read parses the kept text, not the packed file (a text sealed as kdbgen seals it).
    write_file_atomic(kept, seal_cache_entry("find-db-text", Sha256().add(std::string_view(packed.data(), packed.size())).hex(),
                                             std::string_view(first + second)));
    EXPECT_EQ(read_find_db(dir / "x.HIP.fdb.txt.bz2", decoded).size(), 80u);
    // An edited one is refused and unpacked again (issue #25).
    std::ofstream(kept) << first << second;
    EXPECT_EQ(read_find_db(dir / "x.HIP.fdb.txt.bz2", decoded).size(), 40u);
    // A changed find-db is unpacked again under its own name.
    EXPECT_NE(pack(second), hash);
    const auto changed = read_find_db(dir / "x.HIP.fdb.txt.bz2", decoded);
    ASSERT_EQ(changed.size(), 40u);
    EXPECT_NE(changed[0].key.find("FP32"), std::string::npos);
    // No folder: nothing is kept.
    EXPECT_EQ(read_find_db(dir / "x.HIP.fdb.txt.bz2", "").size(), 40u);
}

// --- the network zoo -------------------------------------------------------------------------

namespace {

// Distinct convolution problems of one direction at the file's first batch size and type,
// grouped ones (key suffix _g<groups>) included.
std::size_t distinct_convs(const ProblemSet& set, char direction, long batch, const std::string& type) {
    std::set<std::string> keys;
    for (const auto& e : set.entries()) {
        const auto* conv = std::get_if<ConvProblem>(&e.problem);
        if (!conv || conv->batch != batch || conv->data_types != type) continue;
        const char d = conv->direction == ConvDirection::Forward        ? 'F'
                       : conv->direction == ConvDirection::BackwardData ? 'B'
                                                                        : 'W';
        if (d == direction) keys.insert(e.key);
    }
    return keys.size();
}

}  // namespace

// Every network of the zoo (configs/networks/) reads, and yields the distinct convolutions
// counted by hand from the model's public definition (each file's header names it): forward,
// backward data, backward weights per (batch, type); backward data leaves out the layer whose
// input is the image, and a transposed convolution's forward pass is a backward-data key.
// Convolution keys carry bias 0 whatever the layer's bias (MIOpen's API never sets it,
// src/convolution_api.cpp:65-111, MIOpen 3.3.0), which merges YOLOv8n's 1x1 box-head
// convolution at 80x80 into a backbone one (42 layers, 41 problems).
TEST(NetworkZoo, EveryNetworkYieldsItsHandCountedConvolutions) {
    struct Expected {
        const char* file;
        std::size_t forward, backward_data, backward_weights;
    };
    const std::vector<Expected> zoo = {
        {"deepspeech2.toml", 2, 1, 2},        {"lstm_lm.toml", 0, 0, 0},
        {"densenet121.toml", 66, 65, 66},     {"efficientnet_b0.toml", 46, 45, 46}, {"mobilenet_v2.toml", 30, 29, 30},
        {"mobilenet_v3_large.toml", 44, 43, 44}, {"resnet101.toml", 23, 22, 23}, {"resnet18.toml", 11, 10, 11},
        {"resnet50.toml", 23, 22, 23},        {"sd15_unet.toml", 35, 0, 0},        {"sd15_vae.toml", 23, 0, 0},
        {"sdxl_unet.toml", 27, 0, 0},         {"sdxl_vae.toml", 23, 0, 0},         {"unet.toml", 19, 18, 19},
        {"unet3d.toml", 18, 17, 18},          {"vgg16.toml", 9, 8, 9},             {"vgg16_bn.toml", 9, 8, 9},
        {"yolov5s.toml", 29, 28, 29},         {"yolov8n.toml", 41, 40, 41},
    };
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(test::source_dir() / "configs/networks"))
        files.insert(entry.path().filename().string());
    std::set<std::string> expected_files;
    for (const auto& e : zoo) expected_files.insert(e.file);
    EXPECT_EQ(files, expected_files) << "a network without hand-counted expectations here";
    for (const auto& e : zoo) {
        SCOPED_TRACE(e.file);
        const ProblemSet set = read_network(test::source_dir() / "configs/networks" / e.file, {{1}, {"FP32"}, {}, {}});
        EXPECT_EQ(distinct_convs(set, 'F', 1, "FP32"), e.forward);
        EXPECT_EQ(distinct_convs(set, 'B', 1, "FP32"), e.backward_data);
        EXPECT_EQ(distinct_convs(set, 'W', 1, "FP32"), e.backward_weights);
        for (const auto& entry : set.entries())
            if (const auto* conv = std::get_if<ConvProblem>(&entry.problem)) {
                EXPECT_EQ(conv->bias, 0) << entry.key;
            }
    }
    // The zoo's recurrent networks (issue #50): DeepSpeech2's bidirectional GRUs over the 200 steps its
    // front end leaves (32 maps x 41 bins a step) and its CTC loss; the LSTM language model in training,
    // its dropout between layers through MIOpen's dropout descriptor.
    std::set<std::string> speech, language;
    const ProblemSet ds2 = read_network(test::source_dir() / "configs/networks/deepspeech2.toml",
                                        {{16}, {"FP32"}, {}, {"training"}});
    for (const auto& entry : ds2.entries())
        if (std::holds_alternative<DriverCommandProblem>(entry.problem)) speech.insert(entry.key);
    EXPECT_EQ(speech, (std::set<std::string>{"rnn -n 16 -W 1312 -H 800 -l 5 -k 200 -m gru -r 1 -b 1 -F 0 -c 0",
                                             "ctc -n 16 -c 28 -k 200 -l 50 -b 0 -m 1 -F 1"}));
    const ProblemSet lm = read_network(test::source_dir() / "configs/networks/lstm_lm.toml",
                                       {{20}, {"FP16"}, {}, {"training"}});
    for (const auto& entry : lm.entries()) language.insert(entry.key);
    EXPECT_EQ(language,
              (std::set<std::string>{"rnnfp16 -n 20 -W 650 -H 650 -l 2 -k 35 -m lstm -r 0 -b 1 -F 0 -c 0 -U 1 -P 0.5"}));
}

// finish_adding() frees the index a set is added to with; an add after it finds the same
// entries and origins as one without it.
TEST(ProblemSetIndex, AddingAfterFinishAddingIsAddingWithout) {
    const auto conv = [](const char* key) { return Problem(parse_conv_problem_key(key)); };
    const char* a = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    const char* b = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F";
    ProblemSet kept, finished;
    for (ProblemSet* set : {&kept, &finished}) {
        set->add(conv(a), "x:1");
        set->add(conv(a), "x:2");
        if (set == &finished) set->finish_adding();
        set->add(conv(a), "x:1");  // seen: not again
        set->add(conv(a), "x:3");
        set->add(conv(b), "y:1");
    }
    ASSERT_EQ(finished.entries().size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(finished.entries()[i].key, kept.entries()[i].key);
        EXPECT_EQ(finished.entries()[i].origins, kept.entries()[i].origins);
    }
    EXPECT_EQ(finished.entries()[0].origins, (std::vector<std::string>{"x:1", "x:2", "x:3"}));
}

// A problem's per-dimension values are held inline (Dims): up to three, compared, read and
// passed on as a span like the vectors they replaced; a fourth is refused, not dropped.
TEST(ProblemKey, DimsHoldUpToThreeValuesInline) {
    Dims dims{7, 5};
    dims.push_back(3);
    EXPECT_EQ(dims.size(), 3u);
    EXPECT_EQ(dims, (std::vector<long>{7, 5, 3}));
    EXPECT_NE(dims, (Dims{7, 5}));
    EXPECT_THROW(dims.push_back(1), std::length_error);
    const std::span<const long> view = dims;
    EXPECT_EQ(view.back(), 3);
    EXPECT_EQ(dims.to_vector(), (std::vector<long>{7, 5, 3}));
    const auto key = "64-8-14-14-3x3x3-64-8-14-14-2-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-F";
    const ConvProblem p = parse_conv_problem_key(key);
    EXPECT_EQ(p.weights_spatial, (Dims{3, 3, 3}));
    EXPECT_EQ(p.serialize(), key);
}
