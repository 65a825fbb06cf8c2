// The MIOpenDriver client (driver_client.hpp).
#include "driver_client.hpp"
#include "records.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

namespace kdbgen::engine {

namespace {

// The lines MIOpenDriver's InputFlags and main print when they stop before any
// MIOpen call (driver/InputFlags.cpp:104-201, driver/main.cpp:55-66, MIOpen
// 3.3.0; the same in 3.5.1).
bool driver_refused(std::string_view text) {
    for (const std::string_view said : {" Not Found !", "Incorrect BaseArg", "Illegal input flag",
                                        "Invalid Base Input Argument", "Invalid Number of Input Arguments"})
        if (text.find(said) != std::string_view::npos) return true;
    return false;
}

}  // namespace

// Where MIOpen threw to its caller in a run (thrown_site), as "MIOpen Error: <file>:<line>:".
std::set<std::string> thrown_errors(const KernelLookups& lookups) {
    std::set<std::string> thrown;
    for (const auto& line : lookups.errors)
        if (const auto site = thrown_site(line)) thrown.insert("MIOpen Error: " + *site + ":");
    return thrown;
}

DriverClient::DriverClient(const EngineSetup& setup, const Target& card) : setup_(setup), card_(card) {
    make_run_folder(setup, run_);
    // The same system db without kdbs: a problem that fails with the kdbs runs again with this.
    const fs::path bare = run_.host / "system-db-bare";
    fs::create_directories(bare);
    for (const auto& entry : fs::directory_iterator(run_.host / "system-db"))
        if (entry.path().extension() != ".kdb") fs::copy_symlink(entry.path(), bare / entry.path().filename());
}

TaskResult DriverClient::run(const Task& task, const std::string& name, bool with_kdbs) {
    TaskResult result;
    const fs::path dir = name;  // in the run folder's view/: made and read through run_.files
    run_.files->make_folders(dir / "tmp");
    const fs::path view = run_.root_view / name;
    auto environment = client_environment(setup_, run_, card_, view);
    environment.push_back("MIOPEN_SYSTEM_DB_PATH=" +
                          (run_.root_view / (with_kdbs ? "system-db" : "system-db-bare")).string());
    environment.insert(environment.end(), task.environment.begin(), task.environment.end());
    std::vector<std::string> arguments{setup_.installation.driver->string()};
    arguments.insert(arguments.end(), task.args.begin(), task.args.end());
    Tail tail;
    const auto started = std::chrono::steady_clock::now();
    const ClientEnd end = run_client(setup_, run_, arguments, environment, [&](std::string_view text) {
        if (read_miopen_log_line(text, result.lookups)) return;
        if (text.find("Invalid Base Input Argument") != std::string_view::npos) result.unsupported = true;
        if (result.did_nothing.empty() && driver_refused(text)) result.did_nothing = std::string(text.substr(0, 200));
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

TaskRuns run_tasks(const EngineSetup& setup, DriverClient& check, const std::vector<Task>& tasks, bool bare_on_failure) {
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
                    const bool bare = bare_on_failure && (!runs.first[t].ok() || !thrown_errors(runs.first[t].lookups).empty());
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


}  // namespace kdbgen::engine
