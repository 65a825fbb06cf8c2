#include "kdbgen/enumerate.hpp"
#include "kdbgen/cache_entry.hpp"

#include "kdbgen/checks.hpp"
#include "kdbgen/error.hpp"

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_set>
#include <fmt/format.h>

#include <array>

#include <charconv>
#include <cmath>

namespace kdbgen {

namespace {

std::string join_longs(std::span<const long> values, char separator) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += separator;
        out += std::to_string(values[i]);
    }
    return out;
}

long to_long(std::string_view key, std::string_view field, std::string_view what) {
    const auto value = parse_int(field);
    if (!value || *value < 0)
        throw InputError(fmt::format("problem key '{}': {} '{}' is not a non-negative number", key, what, field));
    return static_cast<long>(*value);
}

std::vector<long> x_separated(std::string_view key, std::string_view field, unsigned dims, std::string_view what) {
    const auto parts = split(field, 'x');
    if (parts.size() != dims)
        throw InputError(fmt::format("problem key '{}': {} '{}' needs {} values joined by 'x'", key, what, field, dims));
    std::vector<long> values;
    for (const auto& part : parts) values.push_back(to_long(key, part, what));
    return values;
}

bool is_layout(std::string_view token) {
    return !token.empty() && token.find_first_not_of("NCDHWc") == std::string_view::npos;
}

char direction_letter(ConvDirection direction) {
    switch (direction) {
        case ConvDirection::Forward: return 'F';
        case ConvDirection::BackwardData: return 'B';
        case ConvDirection::BackwardWeights: return 'W';
    }
    return '?';
}

}  // namespace

std::string ConvProblem::serialize() const {
    std::string out = fmt::format("{}-{}-{}-{}-{}-{}-{}-{}-{}-{}", in_channels, join_longs(in_spatial, '-'),
                                  join_longs(weights_spatial, 'x'), out_channels, join_longs(out_spatial, '-'), batch,
                                  join_longs(pads, 'x'), join_longs(strides, 'x'), join_longs(dilations, 'x'), bias);
    const bool default_layout = (in_layout == "NCHW" && weights_layout == "NCHW" && out_layout == "NCHW") ||
                                (in_layout == "NCDHW" && weights_layout == "NCDHW" && out_layout == "NCDHW");
    if (default_layout) out += "-" + in_layout;
    else out += fmt::format("-{}-{}-{}", in_layout, weights_layout, out_layout);
    out += fmt::format("-{}-{}", data_types, direction_letter(direction));
    if (groups != 1) out += fmt::format("_g{}", groups);
    return out + cast_suffix;
}

ConvProblem parse_conv_problem_key(std::string_view key) {
    const auto tokens = split(key, '-');
    const auto bad = [&](const std::string& why) { return InputError(fmt::format("problem key '{}': {}", key, why)); };
    if (tokens.size() < 15) throw bad(fmt::format("{} fields, a convolution key has at least 15", tokens.size()));
    ConvProblem p;
    // The weights field is the first with an 'x': at index 3 in 2-D keys, 4 in 3-D keys.
    if (tokens[3].find('x') != std::string::npos) p.spatial_dims = 2;
    else if (tokens.size() > 4 && tokens[4].find('x') != std::string::npos) p.spatial_dims = 3;
    else throw bad("no filter size field (YxX or ZxYxX)");
    const unsigned d = p.spatial_dims;
    std::size_t i = 0;
    p.in_channels = to_long(key, tokens[i++], "input channels");
    for (unsigned k = 0; k < d; ++k) p.in_spatial.push_back(to_long(key, tokens[i++], "input size"));
    p.weights_spatial = x_separated(key, tokens[i++], d, "filter size");
    p.out_channels = to_long(key, tokens[i++], "output channels");
    if (tokens.size() < i + d + 8) throw bad("too few fields");
    for (unsigned k = 0; k < d; ++k) p.out_spatial.push_back(to_long(key, tokens[i++], "output size"));
    p.batch = to_long(key, tokens[i++], "batch size");
    p.pads = x_separated(key, tokens[i++], d, "padding");
    p.strides = x_separated(key, tokens[i++], d, "strides");
    p.dilations = x_separated(key, tokens[i++], d, "dilations");
    p.bias = static_cast<int>(to_long(key, tokens[i++], "bias"));
    const std::size_t rest = tokens.size() - i;  // layout(s), types, direction
    if (rest == 3) {
        if (!is_layout(tokens[i])) throw bad(fmt::format("layout '{}' is not a tensor layout", tokens[i]));
        p.in_layout = p.weights_layout = p.out_layout = tokens[i++];
    } else if (rest == 5) {
        for (auto* layout : {&p.in_layout, &p.weights_layout, &p.out_layout}) {
            if (!is_layout(tokens[i])) throw bad(fmt::format("layout '{}' is not a tensor layout", tokens[i]));
            *layout = tokens[i++];
        }
    } else {
        throw bad(fmt::format("{} fields after bias, expected 3 or 5", rest));
    }
    p.data_types = tokens[i++];
    if (p.data_types.empty()) throw bad("empty data type");
    const std::string& direction = tokens[i];
    if (direction.empty()) throw bad("empty direction");
    switch (direction[0]) {
        case 'F': p.direction = ConvDirection::Forward; break;
        case 'B': p.direction = ConvDirection::BackwardData; break;
        case 'W': p.direction = ConvDirection::BackwardWeights; break;
        default: throw bad(fmt::format("direction '{}' is not F, B or W", direction));
    }
    std::string_view optional = std::string_view(direction).substr(1);
    if (optional.starts_with("_g")) {
        std::size_t end = 2;
        while (end < optional.size() && std::isdigit(static_cast<unsigned char>(optional[end]))) ++end;
        p.groups = to_long(key, optional.substr(2, end - 2), "group count");
        optional.remove_prefix(end);
    }
    if (!optional.empty() && !optional.starts_with("_c")) throw bad(fmt::format("unknown key suffix '{}'", optional));
    p.cast_suffix = std::string(optional);
    // A problem MIOpen can form (zero batch, channels, filter, stride, dilation or groups it refuses) ...
    try {
        checks::check_conv_problem(p);
    } catch (const InputError& e) {
        throw bad(e.what());
    }
    // ... written the one way ProblemDescription::Serialize writes it (src/conv/problem_description.cpp:188-237,
    // MIOpen 3.3.0): "01", "+1" or "_g1" parse but are never looked up.
    if (const std::string canonical = p.serialize(); canonical != key)
        throw bad(fmt::format("MIOpen writes this problem as '{}'", canonical));
    return p;
}

namespace {

// Calls f(piece) for each piece of text between separators, as views: a whole
// find-db is ~10^5 lines of ~10 items, and copying each line, item and field
// into its own string was most of the parse.
template <typename F>
void for_each_piece(std::string_view text, char separator, F&& f) {
    std::size_t start = 0;
    while (true) {
        const auto end = text.find(separator, start);
        f(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return;
        start = end + 1;
    }
}

}  // namespace

std::string_view interned(std::string_view name) {
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    };
    static std::mutex mutex;
    static std::unordered_set<std::string, Hash, std::equal_to<>> names;  // nodes: the strings never move
    std::lock_guard lock(mutex);
    auto it = names.find(name);
    if (it == names.end()) it = names.emplace(name).first;
    return *it;
}

std::size_t for_each_find_db_entry(std::string_view text, const std::string& origin,
                                   UnreadableFindDbLines* skip_unreadable_keys,
                                   const std::function<void(FindDbEntry&&)>& take) {
    std::size_t entries = 0;
    std::size_t number = 0;
    for_each_piece(text, '\n', [&](std::string_view raw) {
        ++number;
        const auto line = trim(raw);
        if (line.empty()) return;
        const auto equals = line.find('=');
        if (equals == std::string_view::npos)
            throw InputError(located(origin, number, fmt::format("no '=' in find-db line '{}'", line.substr(0, 120))));
        FindDbEntry entry;
        entry.line = number;
        entry.key = std::string(line.substr(0, equals));
        try {
            entry.problem = parse_conv_problem_key(entry.key);
        } catch (const InputError& e) {
            if (!skip_unreadable_keys) throw InputError(located(origin, number, e.what()));
            if (skip_unreadable_keys->count++ == 0) {
                skip_unreadable_keys->first_line = number;
                skip_unreadable_keys->first_reason = e.what();
            }
            return;
        }
        for_each_piece(line.substr(equals + 1), ';', [&](std::string_view item) {
            const auto colon = item.find(':');
            if (colon == std::string_view::npos)
                throw InputError(located(origin, number, fmt::format("solver record '{}' has no ':'", item)));
            const std::string_view head = item.substr(0, colon);
            std::array<std::string_view, 5> fields{};
            std::size_t count = 0;
            for_each_piece(item.substr(colon + 1), ',', [&](std::string_view field) {
                if (count < fields.size()) fields[count] = field;
                ++count;
            });
            FindDbSolver solver;
            std::size_t time_at = 0;
            if (head.starts_with("miopenConvolution")) {
                // algorithm:solver,time,workspace,algorithm,<unused>
                if (count < 4)
                    throw InputError(located(origin, number, fmt::format("solver record '{}' is truncated", item)));
                solver.solver = interned(fields[0]);
                solver.algorithm = interned(head);
                time_at = 1;
            } else {
                // solver:time,workspace,algorithm
                if (count < 3)
                    throw InputError(located(origin, number, fmt::format("solver record '{}' is truncated", item)));
                solver.solver = interned(head);
                solver.algorithm = interned(fields[2]);
            }
            try {
                solver.time = std::stod(std::string(fields[time_at]));
            } catch (const std::exception&) {
                throw InputError(located(origin, number, fmt::format("time '{}' in '{}' is not a number", fields[time_at], item)));
            }
            // The fastest item wins (SolutionTimeComparator): a NaN or negative time would decide it wrongly.
            if (!std::isfinite(solver.time) || solver.time < 0)
                throw InputError(located(origin, number, fmt::format("time '{}' in '{}' is not a time", fields[time_at], item)));
            const auto workspace = parse_int(fields[time_at + 1]);
            if (!workspace)
                throw InputError(located(origin, number,
                                         fmt::format("workspace '{}' in '{}' is not a number", fields[time_at + 1], item)));
            if (*workspace < 0)
                throw InputError(located(origin, number, fmt::format("workspace '{}' in '{}' is negative", fields[time_at + 1], item)));
            solver.workspace = *workspace;
            entry.solvers.push_back(std::move(solver));
        });
        ++entries;
        take(std::move(entry));
    });
    if (!entries && !(skip_unreadable_keys && skip_unreadable_keys->count))
        throw InputError(located(origin, 0, "the find-db has no lines"));
    return entries;
}

std::vector<FindDbEntry> parse_find_db(std::string_view text, const std::string& origin,
                                       UnreadableFindDbLines* skip_unreadable_keys) {
    std::vector<FindDbEntry> entries;
    for_each_find_db_entry(text, origin, skip_unreadable_keys,
                           [&](FindDbEntry&& entry) { entries.push_back(std::move(entry)); });
    return entries;
}

ProblemSet problems_of(const std::vector<FindDbEntry>& entries, const std::string& origin) {
    ProblemSet set;
    for (const auto& entry : entries) set.add(entry.problem, fmt::format("{}:{}", origin, entry.line));
    return set;
}

std::vector<FindDbEntry> read_find_db(const fs::path& path, UnreadableFindDbLines* skip_unreadable_keys) {
    auto entries = parse_find_db(read_text_maybe_bz2(path), path.string(), skip_unreadable_keys);
    // An empty find-db names no solver and no problem: it is never what was meant.
    if (entries.empty()) throw InputError(located(path.string(), 0, "find-db has no records"));
    return entries;
}

namespace {

// The unpacked text of a .bz2 find-db, kept in decoded_dir, handed to accept (which may
// throw first); nothing is copied (an architecture's text is 60 MB).
void visit_find_db_text(const fs::path& path, const fs::path& decoded_dir,
                        const std::function<void(std::string_view)>& accept) {
    // Unpacking bzip2 was the largest single part of planning a whole find-db
    // (gfx90a6e: 3.5 MB packed); the text is kept under the packed file's
    // SHA-256, so a changed find-db never meets a stale text.
    // The entry is sealed under the packed file's digest with the text's own
    // (cache_entry.hpp): a cut or edited text is refused and unpacked again, so
    // it can neither change a plan nor be blamed on the intact MIOpen file.
    const Bytes packed = read_file(path);
    const std::string source_digest = Sha256().add(std::string_view(packed.data(), packed.size())).hex();
    const fs::path decoded = decoded_dir / (source_digest + ".txt");
    std::error_code ec;
    if (fs::exists(fs::symlink_status(decoded, ec))) {
        std::string why = "not a regular file";
        if (fs::is_regular_file(fs::symlink_status(decoded, ec))) {
            const Bytes stored = read_file(decoded);
            if (const auto text = open_cache_entry("find-db-text", source_digest,
                                                   std::string_view(stored.data(), stored.size()), &why)) {
                accept(*text);
                return;
            }
        }
        report_refused_cache_entry("find-db-text", decoded, why);
        fs::remove(decoded, ec);
    }
    Bytes text;
    try {
        text = bz2_decompress_stream(packed);
    } catch (const std::runtime_error& e) {
        throw InputError(located(path.string(), 0, e.what()));
    }
    // Accepted first: a find-db that is refused leaves no cache entry behind.
    accept(std::string_view(text.data(), text.size()));
    try {
        make_private_folder(decoded_dir, "find-db cache folder");
        write_cache_entry(decoded, "find-db-text", source_digest, {std::string_view(text.data(), text.size())});
    } catch (const std::exception&) {
        // A cache that cannot be written only costs the next run the unpacking.
    }
}

}  // namespace

std::string read_find_db_text(const fs::path& path, const fs::path& decoded_dir,
                              const std::function<void(std::string_view)>& accept) {
    std::string text;
    if (decoded_dir.empty() || path.extension() != ".bz2") {
        text = read_text_maybe_bz2(path);
        accept(text);
        return text;
    }
    visit_find_db_text(path, decoded_dir, [&](std::string_view unpacked) {
        accept(unpacked);
        text = unpacked;
    });
    return text;
}

void read_find_db_entries(const fs::path& path, const fs::path& decoded_dir, UnreadableFindDbLines* skip_unreadable_keys,
                          const std::function<void(FindDbEntry&&)>& take) {
    std::size_t entries = 0;
    const auto parse = [&](std::string_view text) {
        entries = for_each_find_db_entry(text, path.string(), skip_unreadable_keys, take);
    };
    if (decoded_dir.empty() || path.extension() != ".bz2") parse(read_text_maybe_bz2(path));
    else visit_find_db_text(path, decoded_dir, parse);
    // An empty find-db names no solver and no problem: it is never what was meant.
    if (!entries) throw InputError(located(path.string(), 0, "find-db has no records"));
}

}  // namespace kdbgen
