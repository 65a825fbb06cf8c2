// The built-in corpus and the kdb it gives every card (issue #26): problems generated at
// random, planned on a card that reads no find-db, must find their keys in the default
// arch-wide plan of their processor. Needs the MIOpen tree (KDBGEN_MIOPEN_SRC); the
// processors are a sample, KDBGEN_CORPUS_PROCESSORS (comma-separated arch-wide targets with
// the card to plan on, e.g. gfx1100=gfx1100_48) replaces it, as tools/corpus-coverage does
// for all 25 and docs/solvers.md reports.
#include "kdbgen/corpus.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/target.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>

using namespace kdbgen;

namespace {

// A convolution MIOpenDriver could be asked for: 2-D or 3-D, groups (depthwise too), every
// data type and direction, both layouts; sizes from what networks use and beyond.
std::string random_driver_line(std::mt19937& rng) {
    const auto pick = [&](auto const& values) { return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)]; };
    const auto between = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(rng); };
    const bool three_d = between(0, 9) == 0;
    const std::vector<long> channels = {1, 3, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 320, 384, 512, 640, 1024, 1280, 2048};
    long c = between(0, 3) == 0 ? between(1, 300) : pick(channels);
    long k = between(0, 3) == 0 ? between(1, 300) : pick(channels);
    long groups = 1;
    const long group_kind = between(0, 9);
    if (group_kind < 2) groups = c = k = pick(std::vector<long>{8, 16, 32, 64, 96, 144, 192, 384, 576, 960});  // depthwise
    else if (group_kind < 3) {
        groups = pick(std::vector<long>{2, 4, 8, 32});
        c = groups * between(1, 16), k = groups * between(1, 16);
    }
    const long n = pick(std::vector<long>{1, 2, 3, 4, 8, 16, 32, 64, 128, 256});
    const long spatial = three_d ? between(4, 40) : pick(std::vector<long>{7, 8, 13, 14, 17, 28, 32, 56, 64, 100, 112, 128, 224, 256});
    const long h = spatial, w = between(0, 4) == 0 ? between(1, spatial * 2) : spatial;
    const long fy = pick(std::vector<long>{1, 1, 1, 3, 3, 3, 3, 5, 7, 11}), fx = between(0, 5) == 0 ? pick(std::vector<long>{1, 3, 5, 7}) : fy;
    const long stride = pick(std::vector<long>{1, 1, 1, 2, 2, 3}), dilation = between(0, 7) == 0 ? 2 : 1;
    const long pad_y = between(0, fy / 2), pad_x = between(0, fx / 2);
    if ((h + 2 * pad_y - dilation * (fy - 1) - 1) < 0 || (w + 2 * pad_x - dilation * (fx - 1) - 1) < 0) return "";
    const std::string command = pick(std::vector<std::string>{"conv", "convfp16", "convbfp16", "convfp16", "conv", "convint8"});
    const long direction = command == "convint8" ? 1 : pick(std::vector<long>{1, 2, 4});
    std::string layout = three_d ? "NCDHW" : "NCHW";
    if (between(0, 4) == 0) layout = three_d ? "NDHWC" : "NHWC";
    std::string line = fmt::format("{} -n {} -c {} -H {} -W {} -k {} -y {} -x {} -p {} -q {} -u {} -v {} -l {} -j {} -g {} -F {} "
                                   "--in_layout {} --fil_layout {} --out_layout {}",
                                   command, n, c, h, w, k, fy, fx, pad_y, pad_x, stride, stride, dilation, dilation, groups,
                                   direction, layout, layout, layout);
    if (three_d) {
        const long d = between(4, 32), fd = pick(std::vector<long>{1, 3});
        line += fmt::format(" --spatial_dim 3 --in_d {} --fil_d {} --pad_d {} --conv_stride_d 1 --dilation_d 1", d, fd, fd / 2);
    }
    return line;
}

ProblemSet random_problems(unsigned seed, std::size_t count) {
    std::mt19937 rng(seed);
    ProblemSet set;
    while (set.entries().size() < count) {
        const std::string line = random_driver_line(rng);
        if (line.empty()) continue;
        try {
            for (auto& problem : parse_driver_command(line)) set.add(std::move(problem), line);
        } catch (const InputError&) {
            // a combination MIOpenDriver refuses too (checked like any driver line)
        }
    }
    return set;
}

using Key = std::pair<std::string, std::string>;  // (kdb name, kdb args)

std::set<Key> keys_of(const Plan& plan) {
    std::set<Key> keys;
    for (const auto& b : plan.builds) keys.insert({b.build.kdb_name(), b.build.kdb_args()});
    return keys;
}

struct Sample {
    std::string processor;  // arch-wide target
    std::string card;       // a card of it (that reads no find-db, in the built-in sample)
    bool card_without_find_db = true;
};

std::vector<Sample> samples() {
    std::vector<Sample> out;
    if (const char* env = std::getenv("KDBGEN_CORPUS_PROCESSORS"); env && *env) {
        for (const auto& item : split(env, ',')) {
            const auto parts = split(item, '=');
            if (parts.size() == 2) out.push_back({parts[0], parts[1], false});
        }
        return out;
    }
    return {{"gfx1100", "gfx1100_48"}, {"gfx1201", "gfx1201_32"}, {"gfx1031", "gfx1031_20"},
            {"gfx1030", "gfx1030_40"}, {"gfx90a:xnack+", "gfx90a:xnack+_110"}, {"gfx942", "gfx942_228"}};
}

}  // namespace

// Every key a random problem gets on a card with no find-db is in the default kdb of its
// processor, except im2col keys whose -DLOCAL_MEM_SIZE the corpus never met: that option takes
// any of 16384 values (src/ocl/utilocl.cpp:153-190, MIOpen 3.3.0), so its share is reported, not
// required. Families of few values (SetTensor's WORK_LENGTH_0) are enumerated whole.
TEST(CorpusWithTree, RandomProblemsOnCardsWithoutAFindDbFindTheirKeys) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    CorpusOptions corpus;
    corpus.find_db_dir = tree.kernels_dir();
    corpus.zoo = zoo_networks(test::source_dir() / "configs/networks");
    corpus.zoo_expansion = default_zoo_expansion();
    const ProblemSet corpus_set = corpus_problems(corpus);
    std::size_t from_find_dbs = 0;
    for (const auto& entry : corpus_set.entries()) from_find_dbs += entry.origins.front().starts_with(kCorpusFindDbOrigin);
    // MIOpen 3.3.0's 18 find-dbs: 215,156 distinct keys, 84 of them 3-D keys with two padding
    // values that ProblemDescription::Serialize never writes (docs/networks.md).
    if (tree.version().minor == 3) {
        EXPECT_EQ(from_find_dbs, 215072u);
    }
    ASSERT_GT(from_find_dbs, 100000u);
    ASSERT_GT(corpus_set.count("batchnorm"), 0u);
    // KDBGEN_CORPUS_SEED draws another sample (tools/corpus-coverage reports the default one).
    const char* seed = std::getenv("KDBGEN_CORPUS_SEED");
    const ProblemSet random = random_problems(seed && *seed ? static_cast<unsigned>(std::stoul(seed)) : 20261204u, 400);
    const auto products = read_products((test::source_dir() / "configs/targets/products.toml").string());
    const auto databases = make_target_database_cache();
    for (const auto& sample : samples()) {
        SCOPED_TRACE(sample.processor);
        const Target card = parse_target(sample.card);
        if (sample.card_without_find_db) {
            ASSERT_FALSE(tree.find_db(card)) << sample.card << " must be a card MIOpen reads no find-db for";
        }
        SolverPlanOptions options;
        options.tree = &tree;
        options.record_coverage = false;
        options.entry_coverage = false;
        options.databases = databases;
        options.complete_key_families = true;
        const Target arch = parse_target(sample.processor);
        options.compute_units[std::string(arch.name())] = product_compute_units(products, arch.name());
        const std::set<Key> default_keys = keys_of(plan_from_problems(corpus_set, {arch}, options));
        options.complete_key_families = false;
        const Plan random_plan = plan_from_problems(random, {card}, options);
        std::map<std::string, std::pair<long, long>> share;  // kernel file -> (found, asked)
        std::vector<std::string> missing;
        for (const auto& b : random_plan.builds) {
            const Key key{b.build.kdb_name(), b.build.kdb_args()};
            auto& [found, asked] = share[b.build.kernel_file];
            ++asked;
            if (default_keys.count(key)) ++found;
            else if (b.build.kernel_file != "MIOpenIm2d2Col.cl") missing.push_back(b.origin + ": " + key.first + " [" + key.second + "]");
        }
        long found = 0, asked = 0;
        for (const auto& [file, counts] : share) found += counts.first, asked += counts.second;
        std::cout << fmt::format("{} ({}): {} of {} keys of {} random problems in the default kdb ({:.1f}%)", sample.processor,
                                 sample.card, found, asked, random.entries().size(), 100.0 * found / std::max(asked, 1L));
        if (share.count("MIOpenIm2d2Col.cl"))
            std::cout << fmt::format("; im2col {} of {}", share["MIOpenIm2d2Col.cl"].first, share["MIOpenIm2d2Col.cl"].second);
        std::cout << "\n";
        EXPECT_GT(asked, 0) << "the random problems plan no kernel";
        EXPECT_TRUE(missing.empty()) << missing.size() << " keys missing:\n  " << join(missing, "\n  ");
    }
}
