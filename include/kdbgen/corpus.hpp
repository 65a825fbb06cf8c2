// kdbgen's built-in problem corpus: what a default build plans when the user
// names no problem source, so that `kdbgen build --targets gfx1100` serves a
// card no find-db and no network list was written for (docs/solvers.md,
// "The built-in corpus").
//
// It is a problem source like --network: it brings problems, never solver
// records. Which solver MIOpen picks for each problem on each card is still
// decided by that card's own find-db (if MIOpen reads one) or its no-record path.
#pragma once

#include "kdbgen/enumerate.hpp"

#include <functional>
#include <map>
#include <optional>

namespace kdbgen {

struct CorpusOptions {
    // The MIOpen tree's src/kernels: the convolution problems of every
    // *.fdb.txt[.bz2] in it (every DbId and CU count, HIP and OpenCL).
    fs::path find_db_dir;
    fs::path decoded_find_db_dir;  // unpacked find-db text cache (may be empty)
    // Network files of the zoo, expanded with zoo_expansion; empty: no zoo.
    std::vector<fs::path> zoo;
    NetworkExpansion zoo_expansion;
};

// Where a corpus problem came from, as its first origin says (the corpus'
// origins are prefixed so plan reports can count them apart).
inline constexpr std::string_view kCorpusFindDbOrigin = "corpus:find-db:";
inline constexpr std::string_view kCorpusZooOrigin = "corpus:zoo:";

// Every find-db of the tree, read with the strict reader (lines whose key
// MIOpen never forms are skipped, as for the tree's own find-dbs) and
// deduplicated by problem key in file-name order; then the zoo's problems.
ProblemSet corpus_problems(const CorpusOptions& options);

// Changes whenever corpus_problems(options) would: the bytes and names of every
// find-db and zoo file, the expansion and the corpus rules' version. Reading
// the files' bytes costs a tenth of parsing them, so a warm plan skips that.
std::string corpus_fingerprint(const CorpusOptions& options);

// A problem as one line of words, and back (src/enumerate/problem_codec.cpp):
// every field, so the decoded problem has the same key and replay line.
// decode_problem throws InputError on a line encode_problem did not write.
std::string encode_problem(const Problem& problem);
Problem decode_problem(std::string_view line);

// The corpus parsed and de-duplicated once (src/enumerate/corpus_index.cpp):
// reading 784 MB of find-dbs costs 5-7 CPU-s a run, so the problems are kept
// in a cache file, a line each with the identity and cost a shard is dealt by
// first: a run reads the lines and decodes only the problems it takes.
class CorpusIndex {
public:
    // Every problem of the set, in its order, with the reasons a source left some out.
    static void save(const fs::path& file, const ProblemSet& problems,
                     const std::function<double(const Problem&)>& cost);
    // nullopt when the file is missing or is not an index this kdbgen wrote (then it is made again).
    static std::optional<CorpusIndex> load(const fs::path& file);

    std::size_t size() const { return lines_.size(); }
    const std::vector<std::string>& identities() const { return identities_; }  // problem kind + " " + key
    const std::vector<double>& costs() const { return costs_; }
    const std::map<std::string, std::size_t>& left_out() const { return left_out_; }
    // The problems at these positions, decoded, with their origins.
    ProblemSet take(const std::vector<std::size_t>& positions) const;

private:
    std::string text_;
    std::vector<std::string_view> lines_;
    std::vector<std::string> identities_;
    std::vector<double> costs_;
    std::map<std::string, std::size_t> left_out_;
};

// Changes whenever corpus_problems(options) may: the find-dbs by name, size,
// modification and change times and inode (a write changes the change time;
// no file is read), the zoo's files by their bytes, the expansion and rules.
std::string corpus_stat_fingerprint(const CorpusOptions& options);

// The zoo: configs/networks/*.toml, in name order.
std::vector<fs::path> zoo_networks(const fs::path& networks_dir);

// The batch sizes, data types, layouts and modes the zoo is expanded over by
// default (docs/solvers.md gives the measured cost they were chosen from).
NetworkExpansion default_zoo_expansion();

}  // namespace kdbgen
