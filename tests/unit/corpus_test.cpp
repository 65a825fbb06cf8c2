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
#include "kdbgen/util.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <fstream>
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

namespace {

// The zoo as the default corpus expands it (32 thousand problems, every primitive the networks have).
ProblemSet default_zoo() {
    ProblemSet zoo;
    for (const auto& network : zoo_networks(test::source_dir() / "configs" / "networks"))
        zoo.merge(read_network(network, default_zoo_expansion()));
    zoo.finish_adding();
    return zoo;
}

}  // namespace

// The corpus index keeps every field of every problem: decoded, a problem has its key again and
// encodes to the same words (so its replay line and plan are the same).
TEST(CorpusIndex, EveryProblemOfTheZooAndTheFindDbsDecodesToItself) {
    ProblemSet problems = default_zoo();
    // The convolutions of a real find-db (every key MIOpen forms, 2-D and 3-D, groups, layouts), where the
    // shared copies are (CI; a user's clone and the distro check's roots have none: the zoo's alone then).
    const fs::path find_db_file = test::shared_db_dir() / "gfx942130.HIP.fdb.txt.bz2";
    if (fs::is_regular_file(find_db_file)) {
        const std::string find_db = read_find_db_text(find_db_file, {}, [](std::string_view) {});
        std::size_t convolutions = 0;
        for (const auto& line : split(find_db, '\n')) {
            const auto equals = line.find('=');
            if (equals == std::string::npos) continue;
            try {
                problems.add(parse_conv_problem_key(line.substr(0, equals)), "test");
                ++convolutions;
            } catch (const InputError&) {
            }
        }
        EXPECT_GT(convolutions, 1000u);
    }
    // MIOpenDriver commands kept as given (issue #50): their arguments, none too.
    problems.add(DriverCommandProblem{"rnn", {"--batchsize", "4,4,3", "--hid_h", "16"}}, "test");
    problems.add(DriverCommandProblem{"ctc", {}}, "test");
    std::set<std::string_view> kinds;
    for (const auto& entry : problems.entries()) {
        kinds.insert(problem_kind(entry.problem));
        const std::string words = encode_problem(entry.problem);
        const Problem decoded = decode_problem(words);
        ASSERT_EQ(problem_key(decoded), entry.key) << words;
        ASSERT_EQ(encode_problem(decoded), words);
    }
    EXPECT_GE(kinds.size(), 6u);
    EXPECT_TRUE(kinds.count("driver"));
    EXPECT_THROW(decode_problem("0 2 64"), InputError);
    EXPECT_THROW(decode_problem("9 1"), InputError);
    EXPECT_THROW(decode_problem(encode_problem(problems.entries().front().problem) + " 7"), InputError);
}

// A run takes its problems from the index as from the corpus itself: the same identities and
// costs a shard is dealt by, the same problems and origins, in the same order; a file cut short
// or of another form is no index (made again).
TEST(CorpusIndex, TakesTheProblemsTheCorpusHasAndRefusesAFileCutShort) {
    const test::TempDir temp;
    const fs::path& work = temp.path();
    ProblemSet zoo = default_zoo();
    zoo.leave_out("a reason");
    const auto cost = [](const Problem& p) { return p.index() == 0 ? 2.5 : 0.125; };
    CorpusIndex::save(work / "zoo.index", zoo, cost);
    const auto index = CorpusIndex::load(work / "zoo.index");
    ASSERT_TRUE(index);
    ASSERT_EQ(index->size(), zoo.entries().size());
    std::vector<std::size_t> odd;
    for (std::size_t i = 0; i < index->size(); ++i) {
        const auto& entry = zoo.entries()[i];
        ASSERT_EQ(index->identities()[i], fmt::format("{} {}", problem_kind(entry.problem), entry.key));
        ASSERT_EQ(index->costs()[i], cost(entry.problem));
        if (i % 2) odd.push_back(i);
    }
    const ProblemSet taken = index->take(odd);
    ASSERT_EQ(taken.entries().size(), odd.size());
    for (std::size_t j = 0; j < odd.size(); ++j) {
        EXPECT_EQ(taken.entries()[j].key, zoo.entries()[odd[j]].key);
        EXPECT_EQ(taken.entries()[j].origins, zoo.entries()[odd[j]].origins);
    }
    EXPECT_EQ(taken.left_out().at("a reason"), 1u);

    const std::string text = kdbgen::read_text_file(work / "zoo.index");
    std::ofstream(work / "cut.index") << text.substr(0, text.size() / 2);
    EXPECT_FALSE(CorpusIndex::load(work / "cut.index"));
    std::ofstream(work / "other.index") << "something else\n";
    EXPECT_FALSE(CorpusIndex::load(work / "other.index"));
    EXPECT_FALSE(CorpusIndex::load(work / "missing.index"));
}

// The zoo sends MIOpen only what frameworks send (issue #47): no tensor of 2^31 elements or more
// (MIOpen indexes in int; 3.5.1's batch norm fails to compile n64 c64 hw1835008), and a max pooling
// that saves its indices does so in a type wide enough for them, else MIOpen throws "Index range not
// enough for max pooling bwd" (src/ocl/pooling_ocl.cpp:89-106, MIOpen 3.3.0).
TEST(CorpusIndex, TheZooGeneratesOnlyProblemsMiopenTakes) {
    const ProblemSet zoo = default_zoo();
    const auto index_max = [](int type) -> long {
        return type == 0 ? 255L : type == 1 ? 65535L : type == 2 ? 4294967295L : LONG_MAX;
    };
    std::size_t three_d_max_pools = 0;
    for (const auto& entry : zoo.entries()) {
        if (const auto* pool = std::get_if<PoolingProblem>(&entry.problem)) {
            EXPECT_LT(pool->x.elements(), 1L << 31) << entry.key;
            if (pool->mode != PoolingProblem::Mode::Max || !pool->save_index) continue;
            long indexed = 1;
            if (pool->workspace_index_mode == 1) {
                ++three_d_max_pools;
                for (const long d : pool->x.spatial()) indexed *= d;
            } else {
                for (const long w : pool->window) indexed *= w;
            }
            EXPECT_GT(index_max(pool->index_type), indexed) << entry.key;
        }
        if (const auto* bn = std::get_if<BatchNormProblem>(&entry.problem)) {
            EXPECT_LT(bn->x.elements(), 1L << 31) << entry.key;
        }
    }
    EXPECT_GT(three_d_max_pools, 0u) << "the zoo has no 3-D max pooling left to check";
    for (const auto& [why, count] : zoo.left_out()) EXPECT_NE(why.find("2^31"), std::string::npos) << why;
}
