// The check through MIOpen's own driver (check_card_with_driver,
// include/kdbgen/miopen_engine.hpp): every problem run as a user runs it, one
// MIOpenDriver process per problem and way, the kdbs installed.
#include "client.hpp"
#include "driver_client.hpp"
#include "records.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

namespace kdbgen {

namespace {

using namespace engine;

// A task's runs into the problem's outcome: a failure, or MIOpen throwing,
// counts when it happens with the kdbs installed and not without them.
void judge_task(const Task& task, const TaskResult& first, const std::optional<TaskResult>& bare, unsigned limit,
                const std::string& driver_name, ReplayOutcome& outcome) {
    std::string command = driver_name;
    for (const auto& arg : task.args) command += " " + arg;
    if (first.ok()) {
        if (!bare) return;
        // A kernel MIOpen fails to build with the kdbs installed and without them (3.4.0's
        // MIOpenBatchNormFwdTrainSpatial.cl on gfx1151): the problem fails (settle_outcome), as
        // MIOpen's own failure; the driver exits 0 all the same.
        const auto failed = first.lookups.failed_compiles(), failed_bare = bare->lookups.failed_compiles();
        const bool kdbgen_failure_before = !outcome.ok && outcome.miopen_own.empty();
        if (!failed.empty() && !kdbgen_failure_before &&
            std::all_of(failed.begin(), failed.end(), [&](const KdbKey& key) {
                return std::find(failed_bare.begin(), failed_bare.end(), key) != failed_bare.end();
            }))
            outcome.miopen_own = fmt::format("`{}` fails to build {} without the kdbs as well", command,
                                             failed.front().kernel_name);
        const auto without = thrown_errors(bare->lookups);
        for (const auto& error : thrown_errors(first.lookups)) {
            if (without.count(error)) {
                outcome.notes.push_back(fmt::format("{}: `{}` exited 0, but MIOpen threw (with or without the "
                                                    "kdbs): {}", task.way, command, error));
                continue;
            }
            outcome.ok = false;
            outcome.miopen_own.clear();
            outcome.message = fmt::format("{}: `{}`: MIOpen threw with the kdbs installed and not without them: {}",
                                          task.way, command, error);
        }
        return;
    }
    const bool passes_bare = bare && bare->ok();
    // MIOpen's own only while no way of the problem failed under kdbgen.
    const bool kdbgen_failure_before = !outcome.ok && outcome.miopen_own.empty();
    outcome.ok = false;
    if (!passes_bare && !first.timed_out && first.compile_timed_out.empty()) {
        if (!kdbgen_failure_before)
            outcome.miopen_own = fmt::format("`{}` fails without the kdbs as well ({})", command, first.how(limit));
    } else {
        outcome.miopen_own.clear();
    }
    outcome.timed_out |= first.timed_out || !first.compile_timed_out.empty();
    outcome.message = fmt::format("{}: `{}` failed ({}){}", task.way, command, first.how(limit),
                                  passes_bare ? " with the kdbs installed and passes without them"
                                              : ", without the kdbs as well");
    outcome.notes.push_back(first.tail.size() > 600 ? first.tail.substr(first.tail.size() - 600) : first.tail);
}

void add_counts(const TaskResult& result, CardReplay& report, std::map<KdbKey, Bytes>& kernels) {
    report.compiler_starts += result.compiles.starts;
    report.slowest_compile_seconds = std::max(report.slowest_compile_seconds, result.compiles.slowest_seconds);
    report.lookups += result.lookups.asked.size();
    report.compiled += result.lookups.saved.size();
    report.asked.insert(result.lookups.asked.begin(), result.lookups.asked.end());
    for (const auto& line : result.lookups.kdb_unreadable)
        if (report.kdb_unreadable.size() < 12) report.kdb_unreadable.push_back(line);
    for (const auto& [key, code] : result.kernels) kernels.emplace(key, code);
    report.bad_rows.insert(report.bad_rows.end(), result.bad_rows.begin(), result.bad_rows.end());
}

// The problems MIOpenDriver cannot run, checked through the replay instead.
void check_through_replay(const EngineSetup& setup, const Target& card, const ProblemSet& for_replay,
                          CardReplay& report) {
    CardReplay replayed = replay_card(setup, card, for_replay, ReplayPurpose::Check);
    name_miopens_own_failures(setup, card, for_replay, replayed.outcomes,
                              std::vector<bool>(replayed.outcomes.size(), true));
    report.outcomes.insert(report.outcomes.end(), replayed.outcomes.begin(), replayed.outcomes.end());
    report.skipped += replayed.skipped;
    report.lookups += replayed.lookups;
    report.compiled += replayed.compiled;
    report.processes += replayed.processes;
    report.asked.insert(replayed.asked.begin(), replayed.asked.end());
    report.kdb_unreadable.insert(report.kdb_unreadable.end(), replayed.kdb_unreadable.begin(),
                                 replayed.kdb_unreadable.end());
    report.unstable.insert(report.unstable.end(), replayed.unstable.begin(), replayed.unstable.end());
    report.without_source.insert(replayed.without_source.begin(), replayed.without_source.end());
    for (auto& record : replayed.records) {
        report.still_compiled.push_back(record.key);
        report.records.push_back(std::move(record));
    }
}

}  // namespace

CardReplay check_card_with_driver(const EngineSetup& setup, const Target& card, const ProblemSet& problems) {
    if (!setup.installation.driver) throw std::logic_error("check_card_with_driver: the installation has no MIOpenDriver");
    const auto started = std::chrono::steady_clock::now();
    CardReplay report;
    report.card = card;
    report.client = "MIOpenDriver";

    // One task per problem and way; problems MIOpenDriver has no command for go to the replay.
    std::vector<Task> tasks;
    std::vector<const ProblemSet::Entry*> entries;
    ProblemSet for_replay;
    for (const auto& entry : problems.entries()) {
        const auto commands = driver_commands(entry.problem);
        if (!commands) {
            for (const auto& origin : entry.origins) for_replay.add(entry.problem, origin);
            continue;
        }
        tasks.push_back({entries.size(), commands->find, "find"});
        if (commands->immediate) {
            tasks.push_back({entries.size(), *commands->immediate, "immediate (-S 0)"});
            // A convolution in every find mode a user's process can set: MIOPEN_FIND_MODE=FAST
            // answers Find from the find-db, else from the immediate mode's first solution.
            tasks.push_back({entries.size(), commands->find, "find (MIOPEN_FIND_MODE=FAST)", {"MIOPEN_FIND_MODE=FAST"}});
        }
        entries.push_back(&entry);
    }
    DriverClient check(setup, card);
    const TaskRuns runs = run_tasks(setup, check, tasks, true);

    std::set<std::size_t> unsupported;
    // A command this driver does not know, or runs without a MIOpen call where kdbgen's replay
    // makes the calls (3.5.1's rnn: a user's process reaches those kernels only through the API).
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (runs.first[t].unsupported ||
            (!runs.first[t].did_nothing.empty() && replay_line(entries[tasks[t].problem]->problem)))
            unsupported.insert(tasks[t].problem);
    for (const std::size_t i : unsupported)
        for (const auto& origin : entries[i]->origins) for_replay.add(entries[i]->problem, origin);
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::map<std::size_t, KernelLookups> lookups;
    std::map<KdbKey, Bytes> kernels;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const auto& task = tasks[t];
        if (unsupported.count(task.problem)) continue;
        const bool seen_before = outcomes.count(task.problem) != 0;
        auto& outcome = outcomes[task.problem];
        if (!seen_before) outcome.ok = true;
        outcome.seconds = std::max(outcome.seconds, runs.first[t].seconds);
        add_counts(runs.first[t], report, kernels);
        add_counts(runs.second[t], report, kernels);
        report.processes += 1 + (runs.first[t].lookups.saved.empty() ? 0 : 1) + (runs.bare[t] ? 1 : 0);
        lookups[task.problem].add(runs.first[t].lookups);
        const std::string problem =
            fmt::format("{} {}", problem_kind(entries[task.problem]->problem), entries[task.problem]->key);
        find_unstable(runs.first[t].lookups, runs.second[t].lookups, problem, report.unstable);
        find_unstable(runs.second[t].lookups, runs.first[t].lookups, problem, report.unstable);
        judge_task(task, runs.first[t], runs.bare[t], setup.problem_timeout,
                   setup.installation.driver->filename().string(), outcome);
    }
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!unsupported.count(i)) add_outcome(report, *entries[i], outcomes, lookups, i, "not run (interrupted)");
    for (auto& [key, code] : kernels)
        if (!is_unstable(report.unstable, key)) report.still_compiled.push_back(key);
    for (auto& [key, code] : kernels) report.records.push_back({key, std::move(code)});
    if (!for_replay.entries().empty()) check_through_replay(setup, card, for_replay, report);
    report.seconds = seconds_since(started);
    return report;
}

}  // namespace kdbgen
