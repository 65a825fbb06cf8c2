// MIOpen's own failures told from failures under kdbgen
// (name_miopens_own_failures, include/kdbgen/miopen_engine.hpp): a problem
// that fails the same way with no kdb installed and none of kdbgen's fault
// injection fails so in a user's process without kdbgen too; it is named, by
// its cause, and is no failure of the build.
#include "client.hpp"
#include "records.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kdbgen {

namespace {

bool fault_injection_active(const EngineSetup& setup) {
    return setup.fault_injection &&
           std::any_of(std::begin(engine::kFaultInjection), std::end(engine::kFaultInjection),
                       [](const char* name) { return std::getenv(name) != nullptr; });
}

// The first place MIOpen threw, from "src/" on (the build path differs between builds).
std::string thrown_at(const std::vector<std::string>& errors) {
    for (const auto& line : errors)
        if (auto where = engine::thrown_site(line)) {
            if (const auto src = where->rfind("/src/"); src != std::string::npos) *where = where->substr(src + 1);
            return *where;
        }
    return {};
}

}  // namespace

std::string failure_cause(const ReplayOutcome& outcome) {
    if (!outcome.without_source.empty()) {
        std::set<std::string> names;
        for (const auto& key : outcome.without_source) names.insert(key.kernel_name);
        return fmt::format("MIOpen has no source for {} ({})", names.size() == 1 ? "a kernel it asks for" : fmt::format("{} kernels it asks for", names.size()),
                           fmt::join(names, ", "));
    }
    if (!outcome.failed_compiles.empty())
        return fmt::format("MIOpen fails to compile {} ({})", outcome.failed_compiles.front().kernel_name,
                           outcome.failed_compiles.front().kernel_args);
    if (const auto where = thrown_at(outcome.miopen_errors); !where.empty())
        return fmt::format("MIOpen's error at {}: {}", where, outcome.message);
    return outcome.message;
}

void name_miopens_own_failures(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                               std::vector<ReplayOutcome>& outcomes, const std::vector<bool>& ran_with_kdbs) {
    const bool injected = fault_injection_active(setup);
    const auto& entries = problems.entries();
    ProblemSet again;
    std::vector<std::size_t> again_index;
    for (std::size_t i = 0; i < outcomes.size() && i < entries.size(); ++i) {
        ReplayOutcome& outcome = outcomes[i];
        // Not replayed at all (the replay cannot express it), a timeout (kdbgen's own limit), or
        // named in an earlier run: nothing to tell.
        if (outcome.ok || outcome.timed_out || !outcome.miopen_own.empty() || outcome.from_cache ||
            outcome.message.starts_with("not replayed"))
            continue;
        if (!ran_with_kdbs[i] && !injected) {
            outcome.miopen_own = failure_cause(outcome);
            continue;
        }
        for (const auto& origin : entries[i].origins) again.add(entries[i].problem, origin);
        again_index.push_back(i);
    }
    if (again_index.empty() || (setup.interrupted && setup.interrupted->load())) return;
    EngineSetup bare = setup;
    bare.installed_kdbs.reset();
    bare.fault_injection = false;
    // Its compiles are no kernels of the kdb: its passes count as done, with none compiled.
    if (setup.on_pass_done) bare.on_pass_done = [&setup](const std::set<KdbKey>&) { setup.on_pass_done({}); };
    if (setup.on_phase_start) setup.on_phase_start("telling MIOpen's own failures, no kdb installed", again_index.size());
    const CardReplay replay = replay_card(bare, card, again);
    for (std::size_t j = 0; j < again_index.size() && j < replay.outcomes.size(); ++j) {
        ReplayOutcome& outcome = outcomes[again_index[j]];
        const ReplayOutcome& without = replay.outcomes[j];
        if (!without.ok) outcome.miopen_own = failure_cause(without);
        else outcome.notes.push_back("it passes with no kdb installed: a failure under kdbgen");
    }
}

}  // namespace kdbgen
