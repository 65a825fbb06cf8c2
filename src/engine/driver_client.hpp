// MIOpen's own driver as a client (driver_check.cpp's check, and the build's
// replay of the MIOpenDriver commands kdbgen has no problem of its own for,
// passes.cpp): one MIOpenDriver process per problem and way, in the sandbox,
// MIOpen's log read as for the replay, its user kdb collected.
#pragma once

#include "client.hpp"

#include "kdbgen/miopen_engine.hpp"

#include <fmt/format.h>

#include <sys/wait.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kdbgen::engine {

// One driver run per problem and way.
struct Task {
    std::size_t problem;
    std::vector<std::string> args;
    const char* way;
    std::vector<std::string> environment = {};  // more of the user's environment: MIOPEN_FIND_MODE=FAST
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
    // The driver ran no MIOpen call for the line: it took a flag or command it does not define
    // ("Long Name: time Not Found !", InputFlags.cpp:137-151, and the like) and exited, 0 as often as
    // not. Its words; a failure to replay, never a pass.
    std::string did_nothing;
    bool ok() const {
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 && failed_line.empty() && !timed_out &&
               compile_timed_out.empty() && did_nothing.empty();
    }
    std::string how(unsigned limit) const {
        if (timed_out) return fmt::format("stopped by the watchdog after {} s, --problem-timeout", limit);
        if (!compile_timed_out.empty()) return compile_timed_out;
        if (!did_nothing.empty()) return "MIOpenDriver ran no MIOpen call for it: " + did_nothing;
        return failed_line.empty() ? describe_exit(status) : failed_line;
    }
};

// Where MIOpen threw to its caller in a run (thrown_site), as "MIOpen Error: <file>:<line>:".
std::set<std::string> thrown_errors(const KernelLookups& lookups);

// The run folder and its two system dbs (the kdbs installed, and the same
// without them); run() starts one MIOpenDriver process in the sandbox.
class DriverClient {
public:
    DriverClient(const EngineSetup& setup, const Target& card);
    TaskResult run(const Task& task, const std::string& name, bool with_kdbs);

private:
    const EngineSetup& setup_;
    const Target& card_;
    RunFolder run_;
};

// Every task on setup.jobs threads: a second process where MIOpen compiled
// anything (a key that differs is built from a value that changes from process
// to process), and, with bare_on_failure, one without the kdbs where it failed
// or MIOpen threw (MIOpenDriver exits 0 from some commands whose MIOpen call
// failed). Progress: each run a pass (EngineSetup::on_passes, on_pass_done).
struct TaskRuns {
    std::vector<TaskResult> first, second;
    std::vector<std::optional<TaskResult>> bare;
};
TaskRuns run_tasks(const EngineSetup& setup, DriverClient& client, const std::vector<Task>& tasks, bool bare_on_failure);

}  // namespace kdbgen::engine
