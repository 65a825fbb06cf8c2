// A card's rounds to a fixpoint (replay_card_to_fixpoint, include/kdbgen/miopen_engine.hpp):
// every kernel known so far installed as MIOpen's system kdb, only unsettled
// problems replayed again.
#include "client.hpp"
#include "records.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/engine_cache.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kdbgen {

namespace {

using namespace engine;

// Per problem of the card: its replay line (none: the replay cannot express
// it), and the keys it asked for once settled.
struct CardProblems {
    std::vector<std::optional<std::string>> lines;
    std::vector<std::optional<std::set<KdbKey>>> settled;
    std::vector<std::size_t> pending;
    std::vector<bool> ran_with_kdbs;          // whether its last run had kdbs installed
    std::vector<std::size_t> failures_to_keep; // settled failures the cache keeps, once told MIOpen's own or not
};

// Settled in an earlier run with this library and system db, and every key it
// asked for is at hand: replaying it would load them all.
bool settled_in_cache(const EngineCache& cache, const Target& card, const std::string& line,
                      const std::map<KdbKey, Bytes>& known, ReplayOutcome& outcome) {
    const auto hit = cache.problem(card, line);
    if (!hit || !std::all_of(hit->asked.begin(), hit->asked.end(), [&](const KdbKey& key) { return known.count(key); }))
        return false;
    outcome.ok = hit->failure.empty();
    outcome.message = hit->failure;
    outcome.miopen_own = hit->miopen_own;
    outcome.from_cache = true;
    outcome.settled = true;
    outcome.asked.insert(hit->asked.begin(), hit->asked.end());
    outcome.asked.insert(hit->unbuildable.begin(), hit->unbuildable.end());
    outcome.without_source = hit->unbuildable;
    if (hit->blind_to_cu) outcome.cu_told = 1;
    outcome.unstable_asked = hit->unstable;
    return true;
}

CardProblems sort_problems(const EngineSetup& setup, const ProblemSet& problems, const Target& card,
                           const std::map<KdbKey, Bytes>& known, const EngineCache* cache, CardReplay& total) {
    const auto& entries = problems.entries();
    CardProblems sorted;
    sorted.lines.resize(entries.size());
    sorted.settled.resize(entries.size());
    sorted.ran_with_kdbs.resize(entries.size(), false);
    total.outcomes.resize(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        auto& outcome = total.outcomes[i];
        outcome.kind = std::string(problem_kind(entries[i].problem));
        outcome.key = entries[i].key;
        std::string why;
        sorted.lines[i] = replay_line(entries[i].problem, &why);
        // A MIOpenDriver command runs in the installed driver (passes.cpp): its line there is its key.
        if (!sorted.lines[i] && std::holds_alternative<DriverCommandProblem>(entries[i].problem) &&
            setup.installation.driver)
            sorted.lines[i] = "MIOpenDriver " + entries[i].key;
        if (!sorted.lines[i]) {
            ++total.skipped;
            outcome.message = "not replayed: " + why;
            continue;
        }
        if (cache && settled_in_cache(*cache, card, *sorted.lines[i], known, outcome)) {
            sorted.settled[i] = outcome.asked;
            merge_unstable(total.unstable, outcome.unstable_asked);  // told again, and known to later cards
            ++total.from_cache;
            continue;
        }
        sorted.pending.push_back(i);
    }
    return sorted;
}

// The round's replay counts into the card's total and the round's stats.
CardReplay::Round absorb_round(const CardReplay& replay, std::size_t problems, CardReplay& total) {
    CardReplay::Round stats;
    stats.problems = problems;
    stats.processes = replay.processes;
    stats.compiler_starts = replay.compiler_starts;
    stats.seconds = replay.seconds;
    stats.compile_seconds = replay.compile_seconds;
    stats.logged_compile_seconds = replay.logged_compile_seconds;
    total.compiler_starts += replay.compiler_starts;
    total.slowest_compile_seconds = std::max(total.slowest_compile_seconds, replay.slowest_compile_seconds);
    total.compile_seconds += replay.compile_seconds;
    total.logged_compile_seconds += replay.logged_compile_seconds;
    total.processes += replay.processes;
    total.lookups += replay.lookups;
    total.compiled += replay.compiled;
    total.kdb_unreadable = replay.kdb_unreadable;
    total.bad_rows.insert(total.bad_rows.end(), replay.bad_rows.begin(), replay.bad_rows.end());
    merge_unstable(total.unstable, replay.unstable);
    return stats;
}

// What the round compiled joins what is known (and the cache); returns how many are new.
std::size_t learn_kernels(const CardReplay& replay, unsigned round, const Target& card, std::map<KdbKey, Bytes>& known,
                          EngineCache* cache, CardReplay& total, CardReplay::Round& stats) {
    total.still_compiled.clear();
    std::size_t fresh = 0;
    for (const auto& record : replay.records) {
        if (is_unstable(total.unstable, record.key)) continue;
        if (round > 0) total.still_compiled.push_back(record.key);
        ++stats.compiled;
        if (!known.emplace(record.key, record.code).second) continue;
        if (cache) cache->store_kernel(card, record.key, record.code);
        ++fresh;
    }
    return fresh;
}

// A settled problem into the cache: the keys it asked for, those no one can
// build, and why it fails when that repeats every run.
void keep_settled(EngineCache& cache, const Target& card, const std::map<KdbKey, Bytes>& known,
                  const CardProblems& problems, std::size_t i, const ReplayOutcome& done) {
    EngineCache::Settled entry;
    for (const auto& key : *problems.settled[i]) (known.count(key) ? entry.asked : entry.unbuildable).push_back(key);
    if (!done.ok) entry.failure = done.message;
    entry.miopen_own = done.miopen_own;
    entry.blind_to_cu = done.blind_to_cu();
    entry.unstable = done.unstable_asked;
    cache.store_problem(card, *problems.lines[i], entry);
}

// Settled: every key it looked up was found, or what was not is no kernel
// anyone has (MIOpen failed to build it, or has no source for it: reported,
// and another round would not change it). A key built from a value that
// changes between processes never counts. Returns the problems still pending.
std::vector<std::size_t> settle_round(CardReplay& replay, const Target& card, const std::map<KdbKey, Bytes>& known,
                                      EngineCache* cache, CardProblems& problems, CardReplay& total) {
    std::vector<std::size_t> still;
    for (std::size_t j = 0; j < problems.pending.size(); ++j) {
        const std::size_t i = problems.pending[j];
        ReplayOutcome& outcome = replay.outcomes[j];
        outcome.seconds = std::max(outcome.seconds, total.outcomes[i].seconds);
        std::erase_if(outcome.missed, [&](const KdbKey& key) { return is_unstable(total.unstable, key); });
        std::erase_if(outcome.asked, [&](const KdbKey& key) {
            for (const auto& unstable : total.unstable)
                if (unstable.matches(key)) {
                    merge_unstable(outcome.unstable_asked,
                                   {{key.kernel_name, unstable.varying_defines, {key.kernel_args}, unstable.problem}});
                    return true;
                }
            return false;
        });
        const bool missed_any =
            std::any_of(outcome.missed.begin(), outcome.missed.end(), [&](const KdbKey& key) { return known.count(key); });
        outcome.add_cu_reads(total.outcomes[i]);  // every round it ran in
        total.outcomes[i] = std::move(outcome);
        if (missed_any) {
            still.push_back(i);
            continue;
        }
        problems.settled[i] = total.outcomes[i].asked;
        total.outcomes[i].settled = true;
        // Kept for the next run when it passed, or failed for what the installation lacks (a
        // kernel source: it fails the same way every time); a crash or a timeout is tried again.
        const ReplayOutcome& done = total.outcomes[i];
        const bool repeats = done.ok || (!done.timed_out && !done.without_source.empty() && done.failed_compiles.empty());
        if (!cache || !repeats || !problems.lines[i]) continue;
        if (!done.ok) {
            problems.failures_to_keep.push_back(i);  // once name_miopens_own_failures has told whose it is
            continue;
        }
        keep_settled(*cache, card, known, problems, i, done);
    }
    return still;
}

// Only what the problems asked for last goes into the kdb: a key only an
// earlier round asked for (before the kdb held what it loads now) is a row
// no user's process asks for.
void take_records(const CardProblems& problems, const std::map<KdbKey, Bytes>& known, CardReplay& total) {
    for (std::size_t i = 0; i < total.outcomes.size(); ++i) {
        const auto& asked = problems.settled[i] ? *problems.settled[i] : total.outcomes[i].asked;
        total.asked.insert(asked.begin(), asked.end());
        total.without_source.insert(total.outcomes[i].without_source.begin(), total.outcomes[i].without_source.end());
    }
    for (const auto& key : total.asked)
        if (const auto found = known.find(key); found != known.end() && !is_unstable(total.unstable, key))
            total.records.push_back({key, found->second});
}

// The kdb of the kernels known so far, in a folder of its own under the
// run's scratch folder: MIOpen's system kdb for the next pass.
fs::path install_known(const ScratchFolder& scratch, const std::string& name, const Target& card,
                       const std::map<KdbKey, Bytes>& known) {
    std::vector<KdbRecord> so_far;
    so_far.reserve(known.size());
    for (const auto& [key, code] : known) so_far.push_back({key, code});
    const fs::path installed = scratch.top / name;
    fs::create_directories(installed);
    write_scratch_kdb(installed / card.kdb_filename(), so_far);
    return installed;
}

// The processor's first card settled the problem, and this card's
// confirmation asked only for keys it settled it with, found every key it
// can have, and ended the same way (the same failure, named MIOpen's own
// there): the problem's path on this card is the first card's. A key the
// first card found built from values that change between processes differs
// in every process; it is left out, as it was there.
bool same_as_first_card(const CardReplay& first_card, const ReplayOutcome& first, const ReplayOutcome& here) {
    if (!first.settled || first.timed_out || here.timed_out || first.ok != here.ok) return false;
    if (!first.ok && (first.miopen_own.empty() || first.message != here.message)) return false;
    const auto within = [&](const auto& keys, const std::set<KdbKey>& of) {
        return std::all_of(keys.begin(), keys.end(), [&](const KdbKey& key) {
            return of.count(key) > 0 || is_unstable(first_card.unstable, key);
        });
    };
    const std::set<KdbKey> unbuildable(first.without_source.begin(), first.without_source.end());
    return within(here.asked, first.asked) && within(here.missed, unbuildable) && here.failed_compiles.empty();
}

// The first card's outcome as this card's: settled as it was there.
void settle_as_first_card(const ReplayOutcome& first, double seconds, const Target& card,
                          const std::map<KdbKey, Bytes>& known, EngineCache* cache, CardProblems& sorted,
                          std::size_t i, CardReplay& total) {
    ReplayOutcome& outcome = total.outcomes[i];
    outcome = first;
    outcome.from_cache = false;
    outcome.confirmed = true;
    outcome.seconds = seconds;
    sorted.settled[i] = outcome.asked;
    ++total.confirmed;
    // Kept as the first card's would be: a pass, or a failure for sources the installation lacks.
    const bool repeats = outcome.ok || (!outcome.without_source.empty() && outcome.failed_compiles.empty());
    if (cache && sorted.lines[i] && repeats) keep_settled(*cache, card, known, sorted, i, outcome);
}

// Problems the first card settled with no read of the CU count that could
// decide anything (ReplayOutcome::blind_to_cu), on a card that reads the same
// db files: MIOpen takes the same path on it, so they are settled as there,
// with no replay. The rest stay pending.
void settle_blind_to_cu(const EngineSetup& setup, const Target& card, const CardReplay& first,
                        const std::map<KdbKey, Bytes>& known, EngineCache* cache, CardProblems& sorted,
                        CardReplay& total) {
    const auto& db = setup.installation.system_db;
    const std::vector<std::string> none;
    const auto& entries = db ? db->entries : none;
    if (db_files_read(entries, card) != db_files_read(entries, first.card)) return;
    std::vector<std::size_t> still;
    for (const std::size_t i : sorted.pending) {
        const bool same_path = i < first.outcomes.size() && first.outcomes[i].settled && !first.outcomes[i].timed_out &&
                               first.outcomes[i].blind_to_cu() && (first.outcomes[i].ok || !first.outcomes[i].miopen_own.empty());
        if (!same_path) {
            still.push_back(i);
            continue;
        }
        settle_as_first_card(first.outcomes[i], 0, card, known, cache, sorted, i, total);
        ++total.confirmed_unreplayed;
    }
    sorted.pending = std::move(still);
}

// A later card's confirmation (replay_card_to_fixpoint's first_card): the
// pending problems, every known kernel installed, on one handle per process;
// those that go as on the first card are settled so, the rest stay pending.
void confirm_with_first_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                             const CardReplay& first, const std::map<KdbKey, Bytes>& known,
                             const ScratchFolder& scratch, EngineCache* cache, CardProblems& sorted,
                             CardReplay& total) {
    const auto& entries = problems.entries();
    EngineSetup confirming = setup;
    confirming.installed_kdbs = install_known(scratch, "confirmation", card, known);
    if (setup.on_phase_start)
        setup.on_phase_start(fmt::format("confirming as {} answered", first.card.spec()), sorted.pending.size());
    ProblemSet these;
    for (const std::size_t i : sorted.pending)
        for (const auto& origin : entries[i].origins) these.add(entries[i].problem, origin);
    CardReplay replay = replay_card(confirming, card, these, ReplayPurpose::Confirm);
    if (replay.outcomes.size() != sorted.pending.size())
        throw std::logic_error("replay_card returned another number of outcomes");
    CardReplay::Round stats = absorb_round(replay, sorted.pending.size(), total);
    total.confirmation = stats;
    std::vector<std::size_t> still;
    for (std::size_t j = 0; j < sorted.pending.size(); ++j) {
        const std::size_t i = sorted.pending[j];
        if (i >= first.outcomes.size() || !same_as_first_card(first, first.outcomes[i], replay.outcomes[j])) {
            still.push_back(i);
            continue;
        }
        settle_as_first_card(first.outcomes[i], replay.outcomes[j].seconds, card, known, cache, sorted, i, total);
    }
    sorted.pending = std::move(still);
}

}  // namespace

CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds) {
    std::map<KdbKey, Bytes> known;
    return replay_card_to_fixpoint(setup, card, problems, max_rounds, known, nullptr);
}

CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds, std::map<KdbKey, Bytes>& known, EngineCache* cache,
                                   const CardReplay* first_card) {
    const auto started = std::chrono::steady_clock::now();
    CardReplay total;
    total.card = card;
    total.kernels_installed = known.size();
    CardProblems sorted = sort_problems(setup, problems, card, known, cache, total);
    const auto& entries = problems.entries();

    // The kdb of the kernels known so far, installed for each round (TMPDIR; a killed run's is removed by the next).
    ScratchFolder scratch;
    scratch.adopt(make_scratch_folder("rounds"));
    if (first_card && !known.empty() && !sorted.pending.empty() && !(setup.interrupted && setup.interrupted->load())) {
        settle_blind_to_cu(setup, card, *first_card, known, cache, sorted, total);
        if (!sorted.pending.empty())
            confirm_with_first_card(setup, card, problems, *first_card, known, scratch, cache, sorted, total);
    }
    for (unsigned round = 0; round < std::max(1u, max_rounds) && !sorted.pending.empty(); ++round) {
        if (setup.interrupted && setup.interrupted->load()) break;
        EngineSetup this_round = setup;
        if (!known.empty()) this_round.installed_kdbs = install_known(scratch, fmt::format("round-{}", round), card, known);
        if (setup.on_phase_start) setup.on_phase_start(fmt::format("round {}", round + 1), sorted.pending.size());
        ProblemSet these;
        for (const std::size_t i : sorted.pending)
            for (const auto& origin : entries[i].origins) these.add(entries[i].problem, origin);
        CardReplay replay = replay_card(this_round, card, these);
        for (const std::size_t i : sorted.pending) sorted.ran_with_kdbs[i] = this_round.installed_kdbs.has_value();
        if (replay.outcomes.size() != sorted.pending.size())
            throw std::logic_error("replay_card returned another number of outcomes");
        CardReplay::Round stats = absorb_round(replay, sorted.pending.size(), total);
        total.new_per_round.push_back(learn_kernels(replay, round, card, known, cache, total, stats));
        sorted.pending = settle_round(replay, card, known, cache, sorted, total);
        total.rounds.push_back(stats);
    }
    name_miopens_own_failures(setup, card, problems, total.outcomes, sorted.ran_with_kdbs);
    if (cache)
        for (const std::size_t i : sorted.failures_to_keep) keep_settled(*cache, card, known, sorted, i, total.outcomes[i]);
    take_records(sorted, known, total);
    total.seconds = seconds_since(started);
    return total;
}

}  // namespace kdbgen
