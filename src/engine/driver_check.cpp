// The check through MIOpen's own driver (check_card_with_driver,
// include/kdbgen/miopen_engine.hpp): every problem run as a user runs it, one
// MIOpenDriver process per problem and way, the kdbs installed.
#include "client.hpp"
#include "records.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

namespace kdbgen {

namespace {

using namespace engine;

// One driver run per problem and way.
struct Task {
    std::size_t problem;
    std::vector<std::string> args;
    const char* way;
};

struct TaskResult {
    int status = 0;
    // MIOpenDriver exits 0 from some runs it reports failed ("RunBackwardGPU() FAILED, rc = 0x70000",
    // conv_driver.hpp's RunBackwardGPU, MIOpen 3.3.0 and Debian's 3.5.1): that line fails it too.
    std::string failed_line;
    // The driver has no such command ("FAILED: Invalid Base Input Argument": Debian's 3.5.1 driver
    // has no tensoropfp16): the problem goes to the replay instead.
    bool unsupported = false;
    KernelLookups lookups;
    std::map<KdbKey, Bytes> kernels;
    std::vector<std::string> bad_rows;
    std::string tail;
    CompileLog compiles;
    double seconds = 0;
    bool timed_out = false;           // the watchdog stopped it (--problem-timeout)
    std::string compile_timed_out;    // the wrapper stopped a compile (--compile-timeout)
    std::string sandbox_failure;
    bool ok() const {
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 && failed_line.empty() && !timed_out &&
               compile_timed_out.empty();
    }
    std::string how(unsigned limit) const {
        if (timed_out) return fmt::format("stopped by the watchdog after {} s, --problem-timeout", limit);
        if (!compile_timed_out.empty()) return compile_timed_out;
        return failed_line.empty() ? describe_exit(status) : failed_line;
    }
};

// Where MIOpen threw to its caller in a run (thrown_site), as "MIOpen Error: <file>:<line>:".
std::set<std::string> thrown_errors(const KernelLookups& lookups) {
    std::set<std::string> thrown;
    for (const auto& line : lookups.errors)
        if (const auto site = thrown_site(line)) thrown.insert("MIOpen Error: " + *site + ":");
    return thrown;
}

class DriverCheck {
public:
    DriverCheck(const EngineSetup& setup, const Target& card) : setup_(setup), card_(card) {
        make_run_folder(setup, run_);
        // The same system db without kdbs: a problem that fails with the kdbs runs again with this.
        const fs::path bare = run_.host / "system-db-bare";
        fs::create_directories(bare);
        for (const auto& entry : fs::directory_iterator(run_.host / "system-db"))
            if (entry.path().extension() != ".kdb") fs::copy_symlink(entry.path(), bare / entry.path().filename());
    }

    TaskResult run(const Task& task, const std::string& name, bool with_kdbs) {
        TaskResult result;
        const fs::path dir = name;  // in the run folder's view/: made and read through run_.files
        run_.files->make_folders(dir / "tmp");
        const fs::path view = run_.root_view / name;
        auto environment = client_environment(setup_, run_, card_, view);
        environment.push_back("MIOPEN_SYSTEM_DB_PATH=" +
                              (run_.root_view / (with_kdbs ? "system-db" : "system-db-bare")).string());
        std::vector<std::string> arguments{setup_.installation.driver->string()};
        arguments.insert(arguments.end(), task.args.begin(), task.args.end());
        Tail tail;
        const auto started = std::chrono::steady_clock::now();
        const ClientEnd end = run_client(setup_, run_, arguments, environment, [&](std::string_view text) {
            if (read_miopen_log_line(text, result.lookups)) return;
            if (text.find("Invalid Base Input Argument") != std::string_view::npos) result.unsupported = true;
            if (result.failed_line.empty() && text.find("() FAILED") != std::string_view::npos)
                result.failed_line = std::string(text.substr(0, 200));
            tail.add(text);
        });
        result.status = end.status;
        result.seconds = seconds_since(started);
        result.timed_out = end.timed_out;
        result.sandbox_failure = end.sandbox_failure;
        result.tail = tail.text;
        std::map<std::size_t, ReplayOutcome> seen;
        read_compile_log(run_, dir / "compile.log", 1, result.compiles, seen, 0);
        if (seen.count(0)) result.compile_timed_out = seen[0].message;
        collect_user_kdb(*run_.files, dir / "cache", run_.private_dir, card_, setup_.installation.library,
                         result.kernels, result.bad_rows);
        if (!std::getenv("KDBGEN_KEEP_ENGINE_RUN")) run_.files->remove_tree(dir);
        return result;
    }

private:
    const EngineSetup& setup_;
    const Target& card_;
    RunFolder run_;
};

// Every task on setup.jobs threads: a second process where MIOpen compiled
// anything (a key that differs is built from a value that changes from process
// to process), and one without the kdbs where it failed or MIOpen threw
// (MIOpenDriver exits 0 from some commands whose MIOpen call failed).
struct TaskRuns {
    std::vector<TaskResult> first, second;
    std::vector<std::optional<TaskResult>> bare;
};
TaskRuns run_tasks(const EngineSetup& setup, DriverCheck& check, const std::vector<Task>& tasks) {
    TaskRuns runs{std::vector<TaskResult>(tasks.size()), std::vector<TaskResult>(tasks.size()),
                  std::vector<std::optional<TaskResult>>(tasks.size())};
    std::atomic<std::size_t> next{0};
    // No exception leaves a thread: the first is thrown here once every thread has ended.
    const unsigned jobs = std::max(1u, setup.jobs);
    std::vector<std::exception_ptr> failures(jobs);
    std::vector<std::thread> threads;
    // Progress: one pass per task, and one for each run again.
    const auto passes = [&](std::size_t count) {
        if (setup.on_passes) setup.on_passes(count);
    };
    const auto done = [&](const TaskResult& result) {
        if (setup.on_pass_done) setup.on_pass_done(result.lookups.saved);
    };
    passes(tasks.size());
    for (unsigned j = 0; j < jobs; ++j)
        threads.emplace_back([&, j] {
            try {
                for (std::size_t t; (t = next.fetch_add(1)) < tasks.size();) {
                    if (setup.interrupted && setup.interrupted->load()) return;
                    runs.first[t] = check.run(tasks[t], fmt::format("t{}", t), true);
                    const bool again = !runs.first[t].lookups.saved.empty();
                    const bool bare = !runs.first[t].ok() || !thrown_errors(runs.first[t].lookups).empty();
                    passes(again + bare);
                    done(runs.first[t]);
                    if (again) done(runs.second[t] = check.run(tasks[t], fmt::format("t{}b", t), true));
                    if (bare) {
                        runs.bare[t] = check.run(tasks[t], fmt::format("t{}n", t), false);
                        done(TaskResult{});
                    }
                }
            } catch (...) {
                failures[j] = std::current_exception();
                next = tasks.size();  // the other threads stop after their task
            }
        });
    for (auto& thread : threads) thread.join();
    for (const auto& failure : failures)
        if (failure) std::rethrow_exception(failure);
    for (const auto* results : {&runs.first, &runs.second})
        for (const auto& result : *results)
            if (!result.sandbox_failure.empty())
                throw InputError(fmt::format("{}: cannot run {}{}: {}", setup.installation.library.string(),
                                             setup.installation.driver->string(), setup.installation.where(),
                                             result.sandbox_failure));
    return runs;
}

// A task's runs into the problem's outcome: a failure, or MIOpen throwing,
// counts when it happens with the kdbs installed and not without them.
void judge_task(const Task& task, const TaskResult& first, const std::optional<TaskResult>& bare, unsigned limit,
                const std::string& driver_name, ReplayOutcome& outcome) {
    std::string command = driver_name;
    for (const auto& arg : task.args) command += " " + arg;
    if (first.ok()) {
        if (!bare) return;
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
        if (commands->immediate) tasks.push_back({entries.size(), *commands->immediate, "immediate (-S 0)"});
        entries.push_back(&entry);
    }
    DriverCheck check(setup, card);
    const TaskRuns runs = run_tasks(setup, check, tasks);

    std::set<std::size_t> unsupported;
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (runs.first[t].unsupported) unsupported.insert(tasks[t].problem);
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
