// The engine's records (include/kdbgen/engine_records.hpp, records.hpp).
#include "records.hpp"

#include "kdbgen/codeobject.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

namespace kdbgen {

std::optional<std::string> kernel_fault(const KdbKey& key, const Bytes& code, const Target& card) {
    if (!key.kernel_name.ends_with(".o")) return "the kernel name does not end in .o";
    if (const auto faults = check_code_object(code, card); !faults.empty()) return faults.front();
    return std::nullopt;
}

void read_user_kdb(const fs::path& ukdb, const Target& card, const fs::path& library,
                   std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows, const fs::path& shown) {
    const std::string name = (shown.empty() ? ukdb : shown).string();
    const auto bad = [&](const StoredRow& row, const std::string& why) {
        bad_rows.push_back(fmt::format("{} wrote {} | {} into {}: {}", library.string(), row.key.kernel_name,
                                       row.key.kernel_args, name, why));
    };
    std::vector<StoredRow> rows;
    try {
        rows = read_kdb_rows(ukdb);
    } catch (const std::exception& error) {
        bad_rows.push_back(fmt::format("{} wrote {}, which kdbgen cannot read: {}", library.string(), name, error.what()));
        return;
    }
    for (const auto& row : rows) {
        Bytes code;
        try {
            code = decode_row(row);
        } catch (const std::exception& error) {
            bad(row, error.what());
            continue;
        }
        if (const auto fault = kernel_fault(row.key, code, card)) {
            bad(row, *fault);
            continue;
        }
        kernels.emplace(row.key, std::move(code));
    }
}

std::vector<std::string> verify_kdb_folder(const fs::path& folder) {
    std::vector<std::string> faults;
    std::vector<fs::path> kdbs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".kdb") kdbs.push_back(entry.path());
    if (ec) faults.push_back(fmt::format("{}: cannot read the folder: {}", folder.string(), ec.message()));
    std::sort(kdbs.begin(), kdbs.end());
    for (const auto& path : kdbs) {
        const auto status = fs::symlink_status(path, ec);
        if (fs::is_symlink(status) || !fs::is_regular_file(status)) {
            faults.push_back(fmt::format("{}: not a regular file (a link, or another kind): not read, not installed",
                                         path.string()));
            continue;
        }
        try {
            const auto target = target_from_kdb_filename(path);
            if (!target) {
                faults.push_back(fmt::format("{}: no target in its name (MIOpen would not open it)", path.string()));
                continue;
            }
            for (const auto& fault : verify_kdb(path, target).faults) faults.push_back(path.string() + ": " + fault);
        } catch (const std::exception& error) {
            faults.push_back(fmt::format("{}: {}", path.string(), error.what()));
        }
    }
    return faults;
}

namespace engine {

namespace {

void settle_outcome(ReplayOutcome& outcome, const KernelLookups& lookups) {
    outcome.miopen_errors = lookups.errors;
    outcome.failed_compiles = lookups.failed_compiles();
    outcome.without_source = lookups.without_source();
    if (outcome.ok && !outcome.failed_compiles.empty()) {
        outcome.ok = false;
        outcome.message = fmt::format("MIOpen failed to build {} kernel{} ({} ...)", outcome.failed_compiles.size(),
                                      outcome.failed_compiles.size() == 1 ? "" : "s",
                                      outcome.failed_compiles.front().kernel_name);
    }
}

}  // namespace

void collect_user_kdb(const Beneath& files, const fs::path& cache, const fs::path& private_dir, const Target& card,
                      const fs::path& library, std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows) {
    std::vector<std::string> refused;
    const auto found = files.find_files(cache, ".ukdb", refused);
    for (const auto& path : refused)
        bad_rows.push_back(fmt::format("{} left {}, which is not a regular file: not read", library.string(), path));
    for (const auto& relative : found) {
        const fs::path shown = files.base() / relative;
        if (relative.stem() != card.db_basename())
            spdlog::warn("{}: MIOpen named its user kdb {}, not {}.ukdb: the stub's device is not the card kdbgen "
                         "meant", card.spec(), relative.filename().string(), card.db_basename());
        // A user kdb holds a card's kernels: a few hundred megabytes at the most.
        const auto bytes = files.read_file(relative, std::size_t(4) << 30);
        if (!bytes) continue;
        static std::atomic<unsigned> copies{0};  // replay threads copy side by side
        const fs::path copy = private_dir / fmt::format("user-{}.ukdb", copies.fetch_add(1));
        write_file_atomic(copy, *bytes);
        read_user_kdb(copy, card, library, kernels, bad_rows, shown);
        std::error_code ignored;
        fs::remove(copy, ignored);
    }
}

void find_unstable(const KernelLookups& first, const KernelLookups& second, const std::string& problem,
                   std::vector<UnstableKey>& unstable) {
    for (const auto& key : first.asked) {
        if (second.asked.count(key)) continue;
        for (const auto& other : second.asked) {
            if (first.asked.count(other)) continue;
            const auto varying = varying_defines(key, other);
            if (!varying) continue;
            auto known = std::find_if(unstable.begin(), unstable.end(), [&](const UnstableKey& u) {
                return u.kernel_name == key.kernel_name && u.varying_defines == *varying;
            });
            if (known == unstable.end()) {
                unstable.push_back({key.kernel_name, *varying, {}, problem});
                known = std::prev(unstable.end());
            }
            for (const auto* args : {&key.kernel_args, &other.kernel_args})
                if (std::find(known->examples.begin(), known->examples.end(), *args) == known->examples.end())
                    known->examples.push_back(*args);
        }
    }
}

bool is_unstable(const std::vector<UnstableKey>& unstable, const KdbKey& key) {
    return std::any_of(unstable.begin(), unstable.end(), [&](const UnstableKey& u) { return u.matches(key); });
}

std::optional<std::string> thrown_site(std::string_view line) {
    constexpr std::string_view marker = "MIOpen Error: ";
    const auto at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view rest = line.substr(at + marker.size());
    const auto file_end = rest.find(':');
    const auto line_end = file_end == std::string_view::npos ? file_end : rest.find(':', file_end + 1);
    return std::string(rest.substr(0, line_end));
}

void merge_unstable(std::vector<UnstableKey>& unstable, std::vector<UnstableKey> found) {
    for (auto& key : found) {
        auto same = std::find_if(unstable.begin(), unstable.end(), [&](const UnstableKey& u) {
            return u.kernel_name == key.kernel_name && u.varying_defines == key.varying_defines;
        });
        if (same == unstable.end()) {
            unstable.push_back(std::move(key));
            continue;
        }
        for (auto& example : key.examples)
            if (std::find(same->examples.begin(), same->examples.end(), example) == same->examples.end())
                same->examples.push_back(std::move(example));
    }
}

// Problem i's outcome over its processes (or `missing` when none reached it) into the report.
void add_outcome(CardReplay& report, const ProblemSet::Entry& entry, const std::map<std::size_t, ReplayOutcome>& outcomes,
                 const std::map<std::size_t, KernelLookups>& lookups, std::size_t i, const char* missing) {
    const auto found = outcomes.find(i);
    ReplayOutcome outcome = found != outcomes.end() ? found->second : ReplayOutcome{};
    if (found == outcomes.end()) outcome.message = missing;
    if (const auto seen = lookups.find(i); seen != lookups.end()) {
        settle_outcome(outcome, seen->second);
        outcome.asked = seen->second.asked;
        outcome.missed = seen->second.missed;
    }
    outcome.kind = std::string(problem_kind(entry.problem));
    outcome.key = entry.key;
    report.without_source.insert(outcome.without_source.begin(), outcome.without_source.end());
    report.outcomes.push_back(std::move(outcome));
}

void merge_outcome(ReplayOutcome& into, const ReplayOutcome& from, bool first) {
    into.timed_out |= from.timed_out;
    into.seconds = std::max(into.seconds, from.seconds);
    if (first) {
        into.ok = from.ok;
        into.message = from.message;
    } else if (into.ok && !from.ok) {
        into.ok = false;
        into.message = from.message;
    }
    into.notes.insert(into.notes.end(), from.notes.begin(), from.notes.end());
    into.add_cu_reads(from);
}

}  // namespace engine

void EngineCounts::add_problems(const EngineCounts& card) {
    problems += card.problems;
    problems_settled += card.problems_settled;
    problems_from_cache += card.problems_from_cache;
    problems_confirmed += card.problems_confirmed;
    problems_failed_by_miopen += card.problems_failed_by_miopen;
    problems_failed_under_kdbgen += card.problems_failed_under_kdbgen;
    problems_not_replayed += card.problems_not_replayed;
}

std::string EngineCounts::describe() const {
    return fmt::format("{} problems: {} settled ({} from the cache, {} as the first card), {} failed by MIOpen's own "
                       "fault, {} failed under kdbgen, {} not replayed; kernels: {} asked for, {} compiled by MIOpen "
                       "in this run, {} taken from the cache, {} written",
                       problems, problems_settled, problems_from_cache, problems_confirmed, problems_failed_by_miopen,
                       problems_failed_under_kdbgen, problems_not_replayed, kernels_asked, kernels_compiled,
                       kernels_from_cache, kernels_written);
}

void count_card_replay(CardReplay& replay, bool checking) {
    EngineCounts& counts = replay.counts;
    counts.problems = replay.outcomes.size();
    counts.problems_not_replayed = replay.skipped;
    for (const auto& outcome : replay.outcomes) {
        counts.problems_settled += outcome.settled;
        counts.problems_from_cache += outcome.from_cache;
        counts.problems_confirmed += outcome.confirmed;
        if (outcome.ok) continue;
        if (!outcome.miopen_own.empty()) ++counts.problems_failed_by_miopen;
        else ++counts.problems_failed_under_kdbgen;
    }
    counts.problems_failed_under_kdbgen -= std::min(counts.problems_failed_under_kdbgen, replay.skipped);
    counts.kernels_asked = replay.asked.size();
    counts.kernels_compiled = replay.still_compiled.size();
    if (!checking) {
        counts.kernels_compiled = 0;
        for (const auto count : replay.new_per_round) counts.kernels_compiled += count;
        counts.kernels_written = replay.records.size();
    }
}

}  // namespace kdbgen
