// The client room of the engine: one process (kdbgen-miopen-replay or
// MIOpenDriver) in kdbgen-sandbox over the installation's root and a run
// folder, with the watchdog, its output read line by line. Used by the passes
// (passes.cpp) and the driver check (driver_check.cpp); nothing here knows
// what a pass or a round is.
#pragma once

#include "beneath.hpp"

#include "kdbgen/miopen_engine.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kdbgen::engine {

// A folder removed when kdbgen is done with it, or by the interrupt handler
// (Ctrl-C, SIGTERM) if kdbgen is stopped first.
struct ScratchFolder {
    fs::path top;
    int slot = -1;
    void adopt(fs::path path);
    ~ScratchFolder();
};

// The run folder in TMPDIR: view/ is what the client sees as /.kdbgen-run
// (kdbgen's helpers, the compiler wrappers, each process's HOME, caches and
// logs, and the system db folder MIOpen is pointed at); mnt/ is where
// kdbgen-sandbox puts the client's root together.
struct RunFolder : ScratchFolder {
    fs::path host;        // view/ as kdbgen sees it
    fs::path root_view;   // the same as the client sees it
    fs::path mountpoint;  // mnt/
    fs::path sandbox;     // kdbgen-sandbox
    std::vector<std::pair<std::string, std::string>> wraps;  // compiler path -> wrapper, inside the view
    std::vector<std::pair<std::string, std::string>> binds;  // host folder -> path in the view (read-only)
    fs::path system_db_view;  // MIOPEN_SYSTEM_DB_PATH
    // view/ as kdbgen touches it once a client may have run: no link followed.
    std::unique_ptr<Beneath> files;
    fs::path private_dir;  // kdbgen's own (not in the view): copies of what a client wrote, read from here
};
// Makes it: the helpers and wrappers copied in, and the system db folder MIOpen
// is given (the installation's db entries as links, setup.installed_kdbs' kdbs).
void make_run_folder(const EngineSetup& setup, RunFolder& run);

// How a client process ended.
struct ClientEnd {
    int status = 0;
    // The watchdog stopped it: no new problem within setup.problem_timeout.
    bool timed_out = false;
    // kdbgen-sandbox could not make its namespaces or start the client: the
    // same for every process, so the build stops with these words.
    std::string sandbox_failure;
};

// The descriptor the replay also writes its "start" lines to, apart from its
// standard output and error, which the library shares: the watchdog listens to
// this one alone (src/engine/replay/main.cpp).
constexpr int kKdbgenProtocolFd = 3;

// Gets each line a client wrote on its standard output and error, in order:
// the replay's protocol and MIOpen's log, and anything the library prints.
using LineReader = std::function<void(std::string_view line)>;

// Runs one client. The watchdog's clock (setup.problem_timeout) runs from the
// start; with protocol_channel the client gets kKdbgenProtocolFd and each
// "start" line there starts the clock again, and nothing on the client's
// output does. When the clock runs out the sandbox is stopped, and with it
// every process in its namespace.
ClientEnd run_client(const EngineSetup& setup, const RunFolder& run, const std::vector<std::string>& client_arguments,
                     const std::vector<std::string>& environment, const LineReader& on_line,
                     bool protocol_channel = false);

// What a client process runs with: the stub as its HIP runtime, describing the
// card; its own HOME, TMPDIR and empty user db; MIOpen's log at Info2.
std::vector<std::string> client_environment(const EngineSetup& setup, const RunFolder& run, const Target& card,
                                            const fs::path& view);

// The tests' fault injection, passed to clients from kdbgen's environment.
constexpr const char* kFaultInjection[] = {"KDBGEN_REPLAY_CRASH_ON", "KDBGEN_REPLAY_HANG_ON", "KDBGEN_COMPILER_FAIL_ON",
                                           "KDBGEN_COMPILER_HANG_ON"};

std::string describe_exit(int status);
double seconds_since(std::chrono::steady_clock::time_point since);

// The last lines a client wrote that were neither protocol nor MIOpen's kdb log.
struct Tail {
    std::string text;
    void add(std::string_view line);
};

// The wrappers' log of one process: "start <arguments>" per compiler start,
// "end <milliseconds>" when it returns, "timeout <problem> <seconds>" per
// compile the wrapper stopped (the problem as the replay numbered it in
// KDBGEN_PROBLEM; "?" for MIOpenDriver).
struct CompileLog {
    std::size_t starts = 0;
    double slowest_seconds = 0;
    double total_seconds = 0;  // wall time inside compiler processes (one thread each: about their CPU)
};
// Reads it (a path in the run folder's view/); a timeout marks the outcome of
// the problem it names (or of `only`).
void read_compile_log(const RunFolder& run, const fs::path& log_path, std::size_t problem_count, CompileLog& compiles,
                      std::map<std::size_t, ReplayOutcome>& outcomes, std::optional<std::size_t> only = std::nullopt);

// Throws InputError naming the library when a client could not load it.
void fail_on_load_failure(const EngineSetup& setup, const std::string& load_failure);

}  // namespace kdbgen::engine
