// The passes of a card's problems (replay_card, include/kdbgen/miopen_engine.hpp):
// the problems dealt to slices, one replay process at a time per slice, each
// problem through the passes that tell what MIOpen asks for and which keys
// change between processes.
#include "client.hpp"
#include "driver_client.hpp"
#include "records.hpp"

#include "kdbgen/shard.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <algorithm>
#include <exception>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace kdbgen {

namespace {

using namespace engine;

enum class ReplayMode { Find, Immediate };
const char* mode_name(ReplayMode mode) { return mode == ReplayMode::Find ? "find" : "immediate"; }

// What one pass (one replay process at a time over a list of problems, in
// one mode) saw.
struct PassResult {
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::map<std::size_t, KernelLookups> lookups;
    std::map<KdbKey, Bytes> kernels;
    std::vector<std::string> bad_rows;
    CompileLog compiles;
    std::size_t processes = 0;
    std::string load_failure;
    fs::path last_cache;  // the last process's cache folder (its user kdb, in view/), for the next pass
};

struct PassSpec {
    ReplayMode mode = ReplayMode::Find;
    // Two processes of one mode are made to differ (the problems' order, the
    // environment's size, so the stack starts elsewhere): a key built from an
    // uninitialized value then differs between them.
    unsigned variant = 0;
    // A cache folder (MIOPEN_CUSTOM_CACHE_DIR) each process starts with: the
    // user kdb of the slice's pass before, so that a kernel one pass built is
    // loaded by the next, not built again. Lookups are logged either way.
    fs::path seed_cache;  // relative to the run folder's view/, as every path of a pass
    bool one_handle = false;  // the process's problems share a MIOpen handle (ReplayPurpose::Check)
};

// kdbgen-miopen-replay's protocol (src/engine/replay/main.cpp) and MIOpen's
// log, read line by line into the pass's outcomes and lookups. They come on
// one stream, so that MIOpen's lines of a problem are between its start and
// done; the watchdog listens to the replay's own channel (run_client).
class ReplayReader {
public:
    ReplayReader(const EngineSetup& setup, const PassSpec& spec, std::size_t problem_count, PassResult& result)
        : setup_(setup), spec_(spec), problem_count_(problem_count), result_(result) {}

    // True where a problem starts: the watchdog's clock starts again.
    // True where a problem starts.
    bool read(std::string_view text) {
        if (text.starts_with("load-failed ")) {
            result_.load_failure = std::string(text.substr(12));
            return false;
        }
        for (const std::string_view verb : {"start ", "done ", "note ", "cu "})
            if (text.starts_with(verb)) return protocol(verb, text.substr(verb.size()));
        if (current && read_miopen_log_line(text, result_.lookups[*current])) return false;
        tail.add(text);
        return false;
    }

    std::optional<std::size_t> current;  // the problem the process is on
    std::chrono::steady_clock::time_point current_since = std::chrono::steady_clock::now();
    Tail tail;

private:
    bool protocol(std::string_view verb, std::string_view text) {
        std::string rest(text);
        const auto space = rest.find(' ');
        const std::size_t index = std::strtoull(rest.c_str(), nullptr, 10);
        if (index >= problem_count_) return false;
        rest = space == std::string::npos ? "" : rest.substr(space + 1);
        auto& outcome = result_.outcomes[index];
        if (verb == "start ") {
            current = index;
            current_since = std::chrono::steady_clock::now();
            return true;
        }
        if (verb == "note ") {
            outcome.notes.push_back(fmt::format("{}: {}", mode_name(spec_.mode), rest));
            return false;
        }
        if (verb == "cu ") {
            // Only the problem under way, and a count; added, so that a line the library prints
            // itself cannot lower the replay's own.
            const bool count = !rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos;
            if (count && current == index) {
                outcome.deciding_cu_reads += std::strtoull(rest.c_str(), nullptr, 10);
                outcome.cu_told = 1;
            }
            return false;
        }
        current.reset();
        if (!outcome.cu_told) outcome.cu_untold = 1;
        if (setup_.on_pass_done) setup_.on_pass_done(result_.lookups[index].saved);
        outcome.seconds = seconds_since(current_since);
        outcome.ok = rest == "ok";
        if (!outcome.ok)
            outcome.message = fmt::format("{}: {}", mode_name(spec_.mode), rest.starts_with("fail ") ? rest.substr(5) : rest);
        return false;
    }

    const EngineSetup& setup_;
    const PassSpec& spec_;
    const std::size_t problem_count_;
    PassResult& result_;
};

// A process that ended before it started any problem (the library died
// loading, in its constructor or in miopenCreate): the library's fault, not
// the first problem's. Sets result.load_failure then.
void judge_early_end(const EngineSetup& setup, const ClientEnd& end, const ReplayReader& reader,
                     const std::vector<std::size_t>& remaining, PassResult& result) {
    const bool never_started = !remaining.empty() && !result.outcomes.count(remaining.front());
    if (!never_started || reader.current) return;
    if (result.load_failure.empty() && end.timed_out)
        result.load_failure = fmt::format("the replay started no problem within {} s (--problem-timeout) and "
                                          "was stopped", setup.problem_timeout);
    if (result.load_failure.empty() && !(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0))
        result.load_failure = fmt::format("the replay ended ({}) before its first problem", describe_exit(end.status));
}

// The problem a process ended on fails; the rest go on in a new process.
void fail_current(const EngineSetup& setup, const PassSpec& spec, const ClientEnd& end, const ReplayReader& reader,
                  std::vector<std::size_t>& remaining, PassResult& result) {
    auto& outcome = result.outcomes[*reader.current];
    outcome.ok = false;
    outcome.cu_untold = 1;
    outcome.seconds = seconds_since(reader.current_since);
    if (end.timed_out) {
        outcome.timed_out = true;
        outcome.message = fmt::format("{}: stopped by the watchdog after {} s on this problem (--problem-timeout)",
                                      mode_name(spec.mode), setup.problem_timeout);
    } else {
        outcome.message =
            fmt::format("{}: the replay ended ({}) on this problem", mode_name(spec.mode), describe_exit(end.status));
    }
    if (setup.on_pass_done) setup.on_pass_done({});  // it ended here: no "done" line comes
    const auto at = std::find(remaining.begin(), remaining.end(), *reader.current);
    remaining.erase(remaining.begin(), at == remaining.end() ? remaining.end() : at + 1);
}

// The folder of one replay process of a pass (relative to the run folder's
// view/): its problems, and the seed cache. Made after clients have run there,
// so through run.files: no link a client left is followed.
fs::path prepare_process_dir(const RunFolder& run, const fs::path& pass_dir, unsigned process, const PassSpec& spec,
                             const std::vector<std::size_t>& remaining, const std::vector<std::string>& lines,
                             std::vector<std::string>& refused) {
    const fs::path dir = pass_dir / fmt::format("p{}", process);
    run.files->make_folders(dir / "tmp");
    if (!spec.seed_cache.empty()) run.files->copy_tree(spec.seed_cache, dir / "cache", refused);
    std::string problems;
    for (const std::size_t i : remaining) problems += fmt::format("{} {}\n", i, lines[i]);
    run.files->write_new_file(dir / "problems.txt", problems);
    return dir;
}

std::vector<std::string> replay_environment(const EngineSetup& setup, const RunFolder& run, const Target& card,
                                            const fs::path& view, const PassSpec& spec) {
    auto environment = client_environment(setup, run, card, view);
    environment.push_back(fmt::format("KDBGEN_REPLAY_VARIANT={}", std::string(1 + spec.variant * 4093, 'v')));
    for (const char* name : kFaultInjection)
        if (const char* value = std::getenv(name); value && setup.fault_injection)
            environment.push_back(std::string(name) + "=" + value);
    environment.push_back("MIOPEN_SYSTEM_DB_PATH=" + run.system_db_view.string());
    environment.push_back(fmt::format("KDBGEN_PROTOCOL_FD={}", kKdbgenProtocolFd));
    return environment;
}

// Runs the problems through replay processes, a new one (with an empty user
// kdb) after a problem that crashed one.
PassResult run_pass(const EngineSetup& setup, const Target& card, const RunFolder& run, const fs::path& pass_dir,
                    const std::vector<std::size_t>& indexes, const std::vector<std::string>& lines,
                    const PassSpec& spec) {
    PassResult result;
    std::vector<std::size_t> remaining = indexes;
    for (unsigned process = 0; !remaining.empty(); ++process) {
        if (setup.interrupted && setup.interrupted->load()) break;
        std::vector<std::string> refused;
        const fs::path dir = prepare_process_dir(run, pass_dir, process, spec, remaining, lines, refused);
        for (const auto& path : refused)
            result.bad_rows.push_back(fmt::format("{} left {}, which is not a regular file: not copied",
                                                  setup.installation.library.string(), path));
        const fs::path view = run.root_view / dir;
        const std::vector<std::string> arguments{(run.root_view / "kdbgen-miopen-replay").string(),
                                                 setup.installation.library.string(), (view / "problems.txt").string(),
                                                 mode_name(spec.mode), spec.one_handle ? "one-handle" : "handle-each"};
        ReplayReader reader(setup, spec, lines.size(), result);
        const ClientEnd end =
            run_client(setup, run, arguments, replay_environment(setup, run, card, view, spec),
                       [&](std::string_view text) { reader.read(text); }, true);
        ++result.processes;
        if (!end.sandbox_failure.empty()) {
            result.load_failure = end.sandbox_failure;
            break;
        }
        collect_user_kdb(*run.files, dir / "cache", run.private_dir, card, setup.installation.library, result.kernels,
                         result.bad_rows);
        result.last_cache = dir / "cache";
        read_compile_log(run, dir / "compile.log", lines.size(), result.compiles, result.outcomes);
        judge_early_end(setup, end, reader, remaining, result);
        if (!result.load_failure.empty()) {
            result.load_failure += "\n" + reader.tail.text;
            break;
        }
        if (!reader.current) break;
        fail_current(setup, spec, end, reader, remaining, result);
        if (!std::getenv("KDBGEN_KEEP_ENGINE_RUN")) run.files->remove_tree(dir / "cache");
    }
    return result;
}

// The problems the replay can express, and a line for each; those only
// MIOpenDriver can run (DriverCommandProblem, where it is installed); the
// others are outcomes "not replayed" at once. Each problem's slot in the
// outcome maps: a replay line's index, or after them a driver problem's.
struct Expressible {
    std::vector<std::string> lines;
    std::vector<const ProblemSet::Entry*> entries;
    std::vector<const ProblemSet::Entry*> by_driver;
    std::vector<std::optional<std::size_t>> slot;  // per problem given
    std::map<std::size_t, ReplayOutcome> not_replayed;  // by the problem's place in the set
    bool is_conv(std::size_t i) const { return std::holds_alternative<ConvProblem>(entries[i]->problem); }
};
Expressible expressible(const EngineSetup& setup, const ProblemSet& problems, CardReplay& report) {
    Expressible found;
    const auto& entries = problems.entries();
    std::vector<std::size_t> driver_places;
    for (std::size_t place = 0; place < entries.size(); ++place) {
        const auto& entry = entries[place];
        std::string why;
        if (auto line = replay_line(entry.problem, &why)) {
            found.slot.push_back(found.lines.size());
            found.lines.push_back(std::move(*line));
            found.entries.push_back(&entry);
            continue;
        }
        found.slot.emplace_back();
        if (std::holds_alternative<DriverCommandProblem>(entry.problem) && setup.installation.driver) {
            driver_places.push_back(place);
            found.by_driver.push_back(&entry);
            continue;
        }
        ++report.skipped;
        ReplayOutcome outcome;
        outcome.kind = std::string(problem_kind(entry.problem));
        outcome.key = entry.key;
        outcome.message = "not replayed: " + why;
        found.not_replayed[place] = std::move(outcome);
    }
    for (std::size_t j = 0; j < driver_places.size(); ++j) found.slot[driver_places[j]] = found.lines.size() + j;
    return found;
}

// The problems only MIOpenDriver runs (issue #50): one driver process each with
// the kdbs so far installed, as a user runs the line, and again where MIOpen
// compiled anything (keys that differ are built from values that change from
// process to process). A run in which the driver made no MIOpen call (a flag it
// does not define) fails the problem. Keyed from first_slot on.
void run_driver_problems(const EngineSetup& setup, const Target& card, const Expressible& problems,
                         std::size_t first_slot, CardReplay& report, std::map<KdbKey, Bytes>& kernels,
                         std::map<std::size_t, ReplayOutcome>& outcomes, std::map<std::size_t, KernelLookups>& lookups) {
    std::vector<Task> tasks;
    for (std::size_t j = 0; j < problems.by_driver.size(); ++j) {
        std::string why;
        const auto commands = driver_commands(problems.by_driver[j]->problem, &why);
        if (!commands) throw std::logic_error("a MIOpenDriver command without a driver command line: " + why);
        tasks.push_back({j, commands->find, "find"});
    }
    DriverClient client(setup, card);
    const TaskRuns runs = run_tasks(setup, client, tasks, false);
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const TaskResult& first = runs.first[t];
        const std::size_t slot = first_slot + tasks[t].problem;
        const std::string problem = fmt::format("driver {}", problems.by_driver[tasks[t].problem]->key);
        report.processes += 1 + (first.lookups.saved.empty() ? 0 : 1);
        report.compiler_starts += first.compiles.starts + runs.second[t].compiles.starts;
        for (const auto* run : {&first, &runs.second[t]}) {
            for (const auto& [key, code] : run->kernels) kernels.emplace(key, code);
            report.bad_rows.insert(report.bad_rows.end(), run->bad_rows.begin(), run->bad_rows.end());
        }
        find_unstable(first.lookups, runs.second[t].lookups, problem, report.unstable);
        find_unstable(runs.second[t].lookups, first.lookups, problem, report.unstable);
        lookups[slot].add(first.lookups);
        ReplayOutcome& outcome = outcomes[slot];
        outcome.ok = first.ok();
        outcome.seconds = first.seconds;
        outcome.timed_out = first.timed_out || !first.compile_timed_out.empty();
        if (!outcome.ok) {
            outcome.message = fmt::format("MIOpenDriver {} failed ({})", problems.by_driver[tasks[t].problem]->key,
                                          first.how(setup.problem_timeout));
            outcome.notes.push_back(first.tail.size() > 600 ? first.tail.substr(first.tail.size() - 600) : first.tail);
        }
    }
}

// Dealt to the processes by expected cost (shard.hpp's rule), each slice in list order.
std::vector<std::vector<std::size_t>> deal_slices(const Expressible& problems, unsigned jobs) {
    std::vector<ShardUnit> units;
    for (std::size_t i = 0; i < problems.lines.size(); ++i)
        units.push_back({problems.entries[i]->key + problems.lines[i], estimated_replay_cost(problems.entries[i]->problem)});
    const auto slice_of = assign_shards(units, jobs);
    std::vector<std::vector<std::size_t>> slices(jobs);
    for (std::size_t i = 0; i < problems.lines.size(); ++i) slices[slice_of[i]].push_back(i);
    return slices;
}

// Each problem runs in processes that have done nothing else with it:
//   A  find mode, in list order           B  immediate mode, in reverse order
//   C  find mode again, reversed, for the convolutions that missed in A
//   D  immediate mode again, for the convolutions that missed in B
// A convolution's keys are compared between A and C, and B and D; any
// other problem's (one way to run it) between A and B. A check's A and B
// share a handle per process, so what a problem asks there depends on the
// problems before it: every problem that missed goes to C and D (on
// handles of their own), and each is compared only with those. A
// confirmation (a later card of a processor) is A and B on one handle: a
// problem that missed anything is replayed in full rounds after it, where
// C and D tell its unstable keys.
struct SlicePasses {
    PassResult a, b, c, d;
};
void announce_passes(const EngineSetup& setup, std::size_t problem_passes) {
    if (setup.on_passes && problem_passes) setup.on_passes(problem_passes);
}

void run_slice(const EngineSetup& setup, const Target& card, const RunFolder& run, const fs::path& slice_dir,
               const Expressible& problems, const std::vector<std::size_t>& forward, ReplayPurpose purpose,
               SlicePasses& r) {
    const bool checking = purpose != ReplayPurpose::Build;
    const std::vector<std::size_t> reversed(forward.rbegin(), forward.rend());
    // Another primitive runs the same calls in B as in A: a build compares
    // the two, a check has seen it once already.
    std::vector<std::size_t> immediate;
    for (const std::size_t i : reversed)
        if (!checking || problems.is_conv(i)) immediate.push_back(i);
    announce_passes(setup, forward.size() + immediate.size());
    r.a = run_pass(setup, card, run, slice_dir / "a", forward, problems.lines, {ReplayMode::Find, 0, {}, checking});
    if (!r.a.load_failure.empty()) return;
    r.b = run_pass(setup, card, run, slice_dir / "b", immediate, problems.lines,
                   {ReplayMode::Immediate, 1, r.a.last_cache, checking});
    if (purpose == ReplayPurpose::Confirm) return;
    // Again: the problems that tried to compile. A miss whose source MIOpen
    // lacks is no compile, and the same in every process.
    const auto missed_in = [&](const PassResult& pass, const std::vector<std::size_t>& order) {
        std::vector<std::size_t> again;
        for (const std::size_t i : order)
            if ((checking || problems.is_conv(i)) && pass.lookups.count(i) && pass.lookups.at(i).missed_a_buildable_key())
                again.push_back(i);
        return again;
    };
    const auto latest = [](const PassResult& pass, const fs::path& before) {
        return pass.last_cache.empty() ? before : pass.last_cache;
    };
    const fs::path after_b = latest(r.b, r.a.last_cache);
    const auto again_c = missed_in(r.a, reversed), again_d = missed_in(r.b, forward);
    announce_passes(setup, again_c.size() + again_d.size());
    r.c = run_pass(setup, card, run, slice_dir / "c", again_c, problems.lines, {ReplayMode::Find, 1, after_b});
    r.d = run_pass(setup, card, run, slice_dir / "d", again_d, problems.lines,
                   {ReplayMode::Immediate, 0, latest(r.c, after_b)});
}

// One pass's counts and lookups into the card's report and the problems' lookups.
void absorb_pass(const PassResult& pass, CardReplay& report, std::map<KdbKey, Bytes>& kernels,
                 std::map<std::size_t, KernelLookups>& lookups) {
    report.compiler_starts += pass.compiles.starts;
    report.slowest_compile_seconds = std::max(report.slowest_compile_seconds, pass.compiles.slowest_seconds);
    report.compile_seconds += pass.compiles.total_seconds;
    report.processes += pass.processes;
    for (const auto& [key, code] : pass.kernels) kernels.emplace(key, code);
    report.bad_rows.insert(report.bad_rows.end(), pass.bad_rows.begin(), pass.bad_rows.end());
    for (const auto& [index, seen] : pass.lookups) {
        lookups[index].add(seen);
        report.lookups += seen.asked.size();
        report.compiled += seen.saved.size();
        report.logged_compile_seconds += seen.compile_seconds;
        report.asked.insert(seen.asked.begin(), seen.asked.end());
        for (const auto& line : seen.kdb_unreadable)
            if (report.kdb_unreadable.size() < 12) report.kdb_unreadable.push_back(line);
    }
}

// A slice's outcomes (A and, for a convolution, B decide) and its unstable keys.
void judge_slice(const SlicePasses& r, const Expressible& problems, bool checking, CardReplay& report,
                 std::map<std::size_t, ReplayOutcome>& outcomes) {
    for (const auto& [index, outcome] : r.a.outcomes) merge_outcome(outcomes[index], outcome, true);
    for (const auto& [index, outcome] : r.b.outcomes)
        if (problems.is_conv(index)) merge_outcome(outcomes[index], outcome, false);
        else outcomes[index].add_cu_reads(outcome);
    for (const PassResult* again : {&r.c, &r.d})
        for (const auto& [index, outcome] : again->outcomes) outcomes[index].add_cu_reads(outcome);
    const auto compare = [&](const PassResult& first, const PassResult& second, bool convs) {
        for (const auto& [index, seen] : first.lookups)
            if (problems.is_conv(index) == convs && second.lookups.count(index))
                find_unstable(seen, second.lookups.at(index),
                              fmt::format("{} {}", problem_kind(problems.entries[index]->problem),
                                          problems.entries[index]->key),
                              report.unstable);
    };
    compare(r.a, r.c, true);
    compare(r.b, r.d, true);
    if (checking) {
        compare(r.a, r.c, false);
        compare(r.b, r.d, false);
    } else {
        compare(r.a, r.b, false);
    }
}

}  // namespace

CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                       ReplayPurpose purpose) {
    const auto started = std::chrono::steady_clock::now();
    if (card.arch_wide()) throw std::logic_error("replay_card needs a card (a target with its CU count)");
    CardReplay report;
    report.card = card;
    const Expressible expressed = expressible(setup, problems, report);
    RunFolder run;
    make_run_folder(setup, run);

    const bool checking = purpose != ReplayPurpose::Build;
    const unsigned jobs = std::max(
        1u, std::min<unsigned>(setup.jobs, static_cast<unsigned>(std::max<std::size_t>(1, expressed.lines.size()))));
    const auto slices = deal_slices(expressed, jobs);
    std::vector<SlicePasses> slice_results(jobs);
    // No exception leaves a thread (that would abort kdbgen and leave the run folder): the first is
    // thrown here, after every slice has ended, and the run folder goes as at an interrupt.
    std::vector<std::exception_ptr> failures(jobs);
    std::vector<std::thread> threads;
    for (unsigned s = 0; s < jobs; ++s)
        threads.emplace_back([&, s] {
            try {
                run_slice(setup, card, run, fmt::format("slice-{}", s), expressed, slices[s], purpose,
                          slice_results[s]);
            } catch (...) {
                failures[s] = std::current_exception();
            }
        });
    for (auto& thread : threads) thread.join();
    for (const auto& failure : failures)
        if (failure) std::rethrow_exception(failure);
    for (const auto& r : slice_results) {
        fail_on_load_failure(setup, r.a.load_failure);
        fail_on_load_failure(setup, r.b.load_failure);
    }

    std::map<KdbKey, Bytes> kernels;
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::map<std::size_t, KernelLookups> lookups;
    for (const auto& r : slice_results) {
        for (const PassResult* pass : {&r.a, &r.b, &r.c, &r.d}) absorb_pass(*pass, report, kernels, lookups);
        judge_slice(r, expressed, checking, report, outcomes);
    }
    if (!expressed.by_driver.empty() && !(setup.interrupted && setup.interrupted->load()))
        run_driver_problems(setup, card, expressed, expressed.lines.size(), report, kernels, outcomes, lookups);
    // In the order given: the rounds match outcomes to their problems by place.
    for (std::size_t place = 0; place < problems.entries().size(); ++place) {
        if (const auto slot = expressed.slot[place])
            add_outcome(report, problems.entries()[place], outcomes, lookups, *slot, "not replayed (interrupted)");
        else
            report.outcomes.push_back(expressed.not_replayed.at(place));
    }
    for (auto& [key, code] : kernels)
        if (!is_unstable(report.unstable, key)) report.records.push_back({key, std::move(code)});
    report.seconds = seconds_since(started);
    return report;
}

}  // namespace kdbgen
