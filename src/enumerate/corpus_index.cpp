// The corpus index (include/kdbgen/corpus.hpp): the parsed corpus as a cache
// file. Its form, after a header line with the rules' version and the count:
//   left-out <count> <reason>                 (a source's problems not generated)
//   <cost> TAB <kind key> TAB <encoded problem> TAB <origin> [US <origin>]...
#include "kdbgen/corpus.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

namespace kdbgen {

namespace {

constexpr std::string_view kIndexHeader = "kdbgen corpus index 1";
constexpr char kOriginSeparator = '\x1f';

std::vector<std::string_view> split_views(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const std::size_t end = text.find(separator, at);
        parts.push_back(text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        if (end == std::string_view::npos) return parts;
        at = end + 1;
    }
}

std::string stat_words(const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return path.filename().string() + " missing";
    return fmt::format("{} {} {}.{} {}.{} {} {}", path.filename().string(), st.st_size, st.st_mtim.tv_sec,
                       st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec, st.st_ino, st.st_dev);
}

}  // namespace

std::string corpus_stat_fingerprint(const CorpusOptions& options) {
    Sha256 hash;
    hash.add(kIndexHeader);
    // Without the bytes of the find-dbs; corpus_fingerprint's rules and the zoo with them.
    CorpusOptions rest = options;
    rest.find_db_dir.clear();
    hash.add(corpus_fingerprint(rest));
    std::vector<fs::path> files;
    std::error_code ec;
    if (!options.find_db_dir.empty())
        for (const auto& entry : fs::directory_iterator(options.find_db_dir, ec)) files.push_back(entry.path());
    if (ec) throw InputError(located(options.find_db_dir.string(), 0, "cannot list the folder: " + ec.message()));
    std::sort(files.begin(), files.end());
    hash.add(options.find_db_dir.string());
    for (const auto& file : files) hash.add(stat_words(file));
    return hash.hex();
}

void CorpusIndex::save(const fs::path& file, const ProblemSet& problems,
                       const std::function<double(const Problem&)>& cost) {
    std::string text = fmt::format("{} {}\n", kIndexHeader, problems.entries().size());
    for (const auto& [why, count] : problems.left_out()) text += fmt::format("left-out {} {}\n", count, why);
    for (const auto& entry : problems.entries()) {
        text += fmt::format("{:.17g}\t{} {}\t{}\t", cost(entry.problem), problem_kind(entry.problem), entry.key,
                            encode_problem(entry.problem));
        for (std::size_t i = 0; i < entry.origins.size(); ++i) {
            if (i) text += kOriginSeparator;
            text += entry.origins[i];
        }
        text += '\n';
    }
    fs::create_directories(file.parent_path());
    write_file_atomic(file, std::span<const char>(text.data(), text.size()));
}

std::optional<CorpusIndex> CorpusIndex::load(const fs::path& file) {
    CorpusIndex index;
    try {
        const Bytes bytes = read_file(file);
        index.text_.assign(bytes.begin(), bytes.end());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    std::string_view text = index.text_;
    const std::size_t header_end = text.find('\n');
    if (header_end == std::string_view::npos || !text.starts_with(kIndexHeader)) return std::nullopt;
    std::size_t count = 0;
    const std::string_view count_text = text.substr(kIndexHeader.size() + 1, header_end - kIndexHeader.size() - 1);
    if (std::from_chars(count_text.data(), count_text.data() + count_text.size(), count).ec != std::errc())
        return std::nullopt;
    index.lines_.reserve(count);
    index.identities_.reserve(count);
    index.costs_.reserve(count);
    for (std::size_t at = header_end + 1; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (line.starts_with("left-out ")) {
            const auto space = line.find(' ', 9);
            std::size_t n = 0;
            std::from_chars(line.data() + 9, line.data() + space, n);
            index.left_out_[std::string(line.substr(space + 1))] += n;
            continue;
        }
        const auto fields = split_views(line, '\t');
        if (fields.size() != 4) return std::nullopt;
        double cost = 0;
        if (std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), cost).ec != std::errc())
            return std::nullopt;
        index.costs_.push_back(cost);
        index.identities_.emplace_back(fields[1]);
        index.lines_.push_back(line);
    }
    if (index.lines_.size() != count) return std::nullopt;  // cut short: made again
    return index;
}

ProblemSet CorpusIndex::take(const std::vector<std::size_t>& positions) const {
    ProblemSet set;
    set.reserve(positions.size());
    for (const std::size_t i : positions) {
        const auto fields = split_views(lines_.at(i), '\t');
        const Problem problem = decode_problem(fields[2]);
        for (const auto origin : split_views(fields[3], kOriginSeparator)) set.add(problem, std::string(origin));
    }
    for (const auto& [why, count] : left_out_) set.leave_out(why, count);
    set.finish_adding();
    return set;
}

}  // namespace kdbgen
