#include "kdbgen/corpus.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <unordered_set>

namespace kdbgen {

namespace {

bool is_find_db_file(const fs::path& path) {
    std::string name = path.filename().string();
    if (name.ends_with(".bz2")) name.resize(name.size() - 4);
    return name.ends_with(".fdb.txt");
}

std::vector<fs::path> find_db_files(const fs::path& dir) {
    std::vector<fs::path> files;
    if (dir.empty()) return files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file() && is_find_db_file(entry.path())) files.push_back(entry.path());
    if (ec) throw InputError(located(dir.string(), 0, "cannot list the folder: " + ec.message()));
    std::sort(files.begin(), files.end());
    return files;
}

// Bumped when corpus_problems() reads the same files into other problems.
constexpr std::string_view kCorpusRules =
    "kdbgen corpus 3: find-db keys first-file origin; zoo with origins, no int32-overflowing tensors, 3-D max-pool indices wide enough, RNN and CTC networks";

}  // namespace

std::string corpus_fingerprint(const CorpusOptions& options) {
    Sha256 hash;
    hash.add(kCorpusRules);
    const auto add_file = [&](const fs::path& path) {
        const Bytes bytes = read_file(path);
        hash.add(path.filename().string()).add(std::to_string(bytes.size())).add(std::string_view(bytes.data(), bytes.size()));
    };
    for (const auto& file : find_db_files(options.find_db_dir)) add_file(file);
    for (const auto& network : options.zoo) add_file(network);
    const auto& e = options.zoo_expansion;
    for (const long b : e.batch_sizes) hash.add("batch " + std::to_string(b));
    for (const auto& t : e.data_types) hash.add("type " + t);
    for (const auto& l : e.layouts) hash.add("layout " + l);
    for (const auto& m : e.modes) hash.add("mode " + m);
    return hash.hex();
}

ProblemSet corpus_problems(const CorpusOptions& options) {
    ProblemSet set;
    // The zoo's networks are expanded on a thread of their own while the find-dbs are read,
    // and added after them, in file order, as one thread would.
    auto zoo = std::async(std::launch::async, [&options] {
        std::vector<ProblemSet> networks;
        for (const auto& network : options.zoo) networks.push_back(read_network(network, options.zoo_expansion));
        return networks;
    });
    {
        const std::vector<fs::path> files = find_db_files(options.find_db_dir);
        // 1.1 million lines name 215 thousand problems (MIOpen 3.3.0): only the keys are
        // read, and each distinct one parsed once; a problem keeps the first file that lists
        // it as its origin. The solver records are the business of the card a file serves.
        // Unpacking bzip2 is most of a cold read: two files are unpacked ahead on threads of
        // their own while this one parses, so two cores share it with at most three texts held.
        constexpr std::size_t kUnpackedAhead = 2;
        std::vector<std::future<std::string>> texts(files.size());
        const auto unpack = [&](std::size_t i) {
            if (i < files.size())
                texts[i] = std::async(std::launch::async, [&options, path = files[i]] {
                    return read_find_db_text(path, options.decoded_find_db_dir, [](std::string_view) {});
                });
        };
        for (std::size_t i = 0; i < kUnpackedAhead; ++i) unpack(i);
        // Looked up by view: 9 of 10 lines repeat a key already seen.
        struct ViewHash {
            using is_transparent = void;
            std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
        };
        std::unordered_set<std::string, ViewHash, std::equal_to<>> seen;
        for (std::size_t i = 0; i < files.size(); ++i) {
            const fs::path& file = files[i];
            const std::string origin = std::string(kCorpusFindDbOrigin) + file.filename().string();
            const std::string text = texts[i].get();
            unpack(i + kUnpackedAhead);
            std::size_t number = 0;
            for (std::size_t at = 0; at < text.size();) {
                const std::size_t end = std::min(text.find('\n', at), text.size());
                const std::string_view line(text.data() + at, end - at);
                at = end + 1;
                ++number;
                const std::size_t equals = line.find('=');
                if (equals == std::string_view::npos) continue;
                const std::string_view key_view = trim(line.substr(0, equals));
                if (key_view.empty() || seen.find(key_view) != seen.end()) continue;
                std::string key(key_view);
                ConvProblem problem;
                try {
                    problem = parse_conv_problem_key(key);
                } catch (const InputError&) {
                    continue;  // a key MIOpen never forms, so never looks up (see read_find_db)
                }
                seen.insert(std::move(key));
                set.add(std::move(problem), fmt::format("{}:{}", origin, number));
            }
        }
    }
    const std::vector<ProblemSet> networks = zoo.get();
    for (std::size_t i = 0; i < networks.size(); ++i) {
        const std::string origin = std::string(kCorpusZooOrigin) + options.zoo[i].filename().string();
        for (const auto& entry : networks[i].entries()) set.add(entry.problem, origin + ":" + entry.origins.front());
        for (const auto& [why, count] : networks[i].left_out()) set.leave_out(why, count);
    }
    return set;
}

std::vector<fs::path> zoo_networks(const fs::path& networks_dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(networks_dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".toml") out.push_back(entry.path());
    if (ec) throw InputError(located(networks_dir.string(), 0, "cannot list the network zoo: " + ec.message()));
    std::sort(out.begin(), out.end());
    return out;
}

// Measured on gfx1100 (docs/solvers.md, "The built-in corpus"): each batch size adds ~520
// batch-norm training keys over FP32 and FP16 (their options hold N; the inference ones do
// not), at 0.14 CPU-s and 2.7 KB of kdb each; the zoo's convolutions add little over the
// find-dbs. Powers of two to 256 cost about 11 CPU-minutes and 13 MB per processor.
NetworkExpansion default_zoo_expansion() {
    NetworkExpansion e;
    e.batch_sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    e.data_types = {"FP32", "FP16"};
    e.layouts = {};  // each network's own
    e.modes = {"inference", "training"};
    return e;
}

}  // namespace kdbgen
