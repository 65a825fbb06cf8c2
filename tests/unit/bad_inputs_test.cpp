// The bad-input corpus (tests/data/bad-inputs/, made by generate.py there): every case is a
// `kdbgen build` that must exit 2 with the expected fragment in its message and write nothing:
// no output folder, no cache, no new file next to the inputs.
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <set>

using namespace kdbgen;

namespace {

struct Case {
    std::size_t line = 0;
    std::vector<std::string> args;
    std::string fragment;
};

// Whitespace-separated words; '...' is one word (possibly empty).
std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (std::isspace(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        std::string word;
        if (text[i] == '\'') {
            const auto end = text.find('\'', i + 1);
            word = text.substr(i + 1, end - i - 1);
            i = end + 1;
        } else {
            while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) word += text[i++];
        }
        out.push_back(word);
    }
    return out;
}

std::vector<Case> read_cases(const fs::path& file) {
    std::ifstream in(file);
    std::vector<Case> cases;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty() || line[0] == '#') continue;
        const auto bar = line.find(" | ");
        if (bar == std::string::npos) continue;
        cases.push_back({number, words(line.substr(0, bar)), line.substr(bar + 3)});
    }
    return cases;
}

std::set<std::string> listing(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) names.insert(entry.path().string());
    return names;
}

}  // namespace

TEST(BadInputs, EveryCaseExitsTwoWithItsMessageAndWritesNothing) {
    const fs::path corpus = test::source_dir() / "tests/data/bad-inputs";
    const auto cases = read_cases(corpus / "cases.txt");
    ASSERT_GE(cases.size(), 100u) << "the corpus has at least 100 bad inputs";
    test::TempDir dir;
    // A stand-in MIOpen 3.3.0 tree: enough to open, with no find-db of its own.
    fs::create_directories(dir / "tree" / "src" / "kernels");
    std::ofstream(dir / "tree" / "CMakeLists.txt") << "project(MIOpen)\nrocm_setup_version(VERSION 3.3.0)\n";
    const auto corpus_before = listing(corpus);
    const auto scratch_before = listing(dir.path());
    std::map<std::string, int> formats;
    for (const auto& c : cases) {
        std::vector<std::string> args{"build", "-o", (dir / "out").string(), "--cache-dir", (dir / "cache").string()};
        bool targets = false, manifest = false;
        for (const auto& word : c.args) {
            targets = targets || word == "--targets" || word == "--targets-file";
            manifest = manifest || word == "--manifest";
            args.push_back(word.starts_with("@") ? (corpus / word.substr(1)).string() : word);
        }
        if (!c.args.empty()) ++formats[c.args[0]];
        if (!targets) args.insert(args.end(), {"--targets", "gfx906_60"});
        if (!manifest) args.insert(args.end(), {"--miopen-src", (dir / "tree").string()});
        const auto run = test::run_kdbgen(args);
        const std::string where = "cases.txt:" + std::to_string(c.line);
        EXPECT_EQ(run.exit_code, 2) << where << "\n" << run.output;
        EXPECT_NE(run.output.find(c.fragment), std::string::npos)
            << where << ": wanted '" << c.fragment << "' in\n" << run.output;
        EXPECT_EQ(run.output.find("kdbgen: error:"), run.output.rfind("kdbgen: error:")) << where << ": one error";
        EXPECT_FALSE(fs::exists(dir / "out")) << where << ": wrote an output folder";
        EXPECT_FALSE(fs::exists(dir / "cache")) << where << ": wrote a cache";
        EXPECT_EQ(listing(dir.path()), scratch_before) << where;
    }
    EXPECT_EQ(listing(corpus), corpus_before) << "nothing written next to the inputs";
    for (const auto& [flag, count] : formats) std::cout << flag << ": " << count << " cases\n";
}
