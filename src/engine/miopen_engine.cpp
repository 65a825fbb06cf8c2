// Runs kdbgen-miopen-replay processes against an installed libMIOpen under
// kdbgen-hip-stub and collects what MIOpen compiled (include/kdbgen/miopen_engine.hpp).
#include "kdbgen/miopen_engine.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/codeobject.hpp"
#include "kdbgen/engine_cache.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/shard.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace kdbgen {

namespace {

// The wrapper kdbgen puts where the library expects its compiler, in the
// client's private view of the root (kdbgen-sandbox). Shell, so that it runs
// in any root whatever its C library.
std::string compiler_wrapper(const std::string& path, const std::string& fallback) {
    return fmt::format(R"sh(#!/bin/sh
# kdbgen's wrapper for {0}, which the installed libMIOpen starts.
# It logs the start (KDBGEN_COMPILE_LOG) and runs the real compiler with
# MIOpen's arguments, less "-isystem /usr/include": Debian's MIOpen passes that
# pair to its HIP compiles, which hides the C library's <math.h> from
# libstdc++'s #include_next (GCC 15+ headers) and fails every HIP kernel; the
# folder is searched anyway. HIP compiles get -fuse-cuid=none, so that the same
# key gives the same code object (else a random __hip_cuid_ symbol differs).
# A compile that runs past KDBGEN_COMPILE_TIMEOUT seconds is stopped and
# logged against the problem the replay was on (KDBGEN_PROBLEM).
real="{1}"
# A compiler that was a file of its own stands beside the wrapper.
[ -x "{0}.kdbgen-real" ] && real="{0}.kdbgen-real"
if [ -n "${{KDBGEN_COMPILE_LOG:-}}" ]; then
    printf 'start %s\n' "$*" >> "$KDBGEN_COMPILE_LOG"
fi
# Fault injection for kdbgen's tests: fail, or hang in, the compiles whose arguments hold this text.
case "$*" in
    *"${{KDBGEN_COMPILER_FAIL_ON:-@@none@@}}"*) echo "kdbgen: injected compiler failure" >&2; exit 1 ;;
    *"${{KDBGEN_COMPILER_HANG_ON:-@@none@@}}"*) real=/bin/sleep; set -- 100000 ;;
esac
if [ "$real" != /bin/sleep ]; then
    hip=0
    pending=0
    for arg do
        shift
        if [ "$pending" = 1 ]; then
            pending=0
            [ "$arg" = /usr/include ] && continue
            set -- "$@" -isystem
        fi
        if [ "$arg" = -isystem ]; then
            pending=1
            continue
        fi
        [ "$arg" = hip ] && hip=1
        set -- "$@" "$arg"
    done
    [ "$pending" = 1 ] && set -- "$@" -isystem
    [ "$hip" = 1 ] && set -- "$@" -fuse-cuid=none
fi
limit="${{KDBGEN_COMPILE_TIMEOUT:-0}}"
if [ "$limit" = 0 ] || ! command -v timeout > /dev/null 2>&1; then
    exec "$real" "$@"
fi
started=$(date +%s%N)
timeout -k 5 "$limit" "$real" "$@"
status=$?
ended=$(date +%s%N)
[ -n "${{KDBGEN_COMPILE_LOG:-}}" ] && printf 'end %s\n' "$(( (ended - started) / 1000000 ))" >> "$KDBGEN_COMPILE_LOG"
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "kdbgen: the compiler ran past {2} ($limit s) and was stopped" >&2
    [ -n "${{KDBGEN_COMPILE_LOG:-}}" ] && printf 'timeout %s %s\n' "${{KDBGEN_PROBLEM:-?}}" "$limit" >> "$KDBGEN_COMPILE_LOG"
fi
exit "$status"
)sh",
                       path, fallback, "--compile-timeout");
}

// Absolute compiler paths in the library's read-only data: the HIP compiler
// (/usr/bin/clang++-21) and, in Debian's 3.4.0, an OpenCL compiler in the
// package's build tree that no installed system has.
std::vector<std::string> compiler_paths(const fs::path& library) {
    std::ifstream in(library, std::ios::binary);
    if (!in) throw InputError(located(library.string(), 0, "cannot read the MIOpen library"));
    static const std::regex compiler(R"(/[A-Za-z0-9_.+/-]*/clang(\+\+)?(-[0-9]+)?)");
    std::set<std::string> found;
    std::string run;
    char c;
    while (in.get(c)) {
        if (c >= 0x20 && c < 0x7f) {
            run += c;
            continue;
        }
        if (run.size() >= 8 && run.size() < 256 && std::regex_match(run, compiler)) found.insert(run);
        run.clear();
    }
    return {found.begin(), found.end()};
}

// The real compiler inside the root for a path the library names: the root's
// LLVM of the same major version (clang-21 -> /usr/lib/llvm-21/bin/clang).
std::string real_compiler_for(const fs::path& root, const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    static const std::regex versioned(R"((clang(\+\+)?)-([0-9]+))");
    std::smatch match;
    if (!std::regex_match(name, match, versioned))
        throw InputError(fmt::format("the MIOpen library starts the compiler {}, which names no LLVM version; "
                                     "kdbgen cannot tell which of the root's compilers it is",
                                     path));
    const std::string real = fmt::format("/usr/lib/llvm-{}/bin/{}", match[3].str(), match[1].str());
    if (!resolve_in_root(root, real))
        throw InputError(fmt::format("the MIOpen library starts {}, but {} has no {}: install clang-{} (and lld-{}, "
                                     "llvm-{}, clang-tools-{}) there",
                                     path, root.string(), real, match[3].str(), match[3].str(), match[3].str(),
                                     match[3].str()));
    return real;
}

constexpr const char* kViewInside = "/.kdbgen-run";  // kdbgen-sandbox's name for the run folder's view/
constexpr const char* kDbInside = "/.kdbgen-miopen-db";  // where --miopen-db is bound in the client's view

// A folder removed when kdbgen is done with it, or by the interrupt handler
// (Ctrl-C, SIGTERM) if kdbgen is stopped first.
struct ScratchFolder {
    fs::path top;
    int slot = -1;
    void adopt(fs::path path) {
        top = std::move(path);
        slot = register_temporary_folder(top);
    }
    ~ScratchFolder() {
        unregister_temporary(slot);
        if (top.empty() || std::getenv("KDBGEN_KEEP_ENGINE_RUN")) return;
        std::error_code ec;
        fs::remove_all(top, ec);
    }
};

struct RunFolder : ScratchFolder {
    fs::path host;        // view/ as kdbgen sees it
    fs::path root_view;   // the same as the client sees it (kViewInside)
    fs::path mountpoint;  // mnt/
    fs::path sandbox;     // kdbgen-sandbox
    std::vector<std::pair<std::string, std::string>> wraps;  // compiler path -> wrapper, inside the view
    std::vector<std::pair<std::string, std::string>> binds;  // host folder -> path in the view (read-only)
    fs::path system_db_view;  // MIOPEN_SYSTEM_DB_PATH
};

void write_script(const fs::path& path, const std::string& text) {
    {
        std::ofstream out(path, std::ios::trunc);
        out << text;
        if (!out) throw InputError(located(path.string(), 0, "cannot write kdbgen's compiler wrapper"));
    }
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
}

void copy_helpers(const EngineSetup& setup, RunFolder& run) {
    // Installed: bin/kdbgen and libexec/kdbgen/; in the build tree: side by side.
    fs::path helpers = setup.helper_dir;
    if (helpers.empty()) {
        helpers = executable_dir().parent_path() / "libexec" / "kdbgen";
        if (!fs::exists(helpers / "kdbgen-miopen-replay")) helpers = executable_dir();
    }
    const fs::path replay = helpers / "kdbgen-miopen-replay";
    const fs::path stubs = helpers / "hip-stub";
    run.sandbox = helpers / "kdbgen-sandbox";
    if (!fs::exists(replay) || !fs::exists(run.sandbox) || !fs::is_directory(stubs))
        throw InputError(fmt::format("kdbgen-miopen-replay, kdbgen-sandbox or hip-stub/ is missing from {} (built "
                                     "with kdbgen; installed to libexec/kdbgen)",
                                     helpers.string()));
    // Copies: the client sees the run folder, not kdbgen's own.
    fs::create_directories(run.host / "lib");
    fs::copy_file(replay, run.host / "kdbgen-miopen-replay", fs::copy_options::overwrite_existing);
    for (const auto& entry : fs::directory_iterator(stubs))
        if (entry.path().filename().string().find(".so") != std::string::npos)
            fs::copy_file(entry.path(), run.host / "lib" / entry.path().filename(),
                          fs::copy_options::overwrite_existing);
}

// How a client process ended.
struct ClientEnd {
    int status = 0;
    // The watchdog stopped it: no new problem within setup.problem_timeout.
    bool timed_out = false;
    // kdbgen-sandbox could not make its namespaces or start the client: the
    // same for every process, so the build stops with these words.
    std::string sandbox_failure;
};

// One client process (the replay or MIOpenDriver) in kdbgen-sandbox over the
// root, its standard output and error read as one stream line by line:
// MIOpen's log and the replay's own lines arrive in the order they were
// written. on_line returns true where the client starts a new problem: the
// watchdog's clock (setup.problem_timeout) starts again there. When it runs
// out the sandbox is stopped, and with it every process in its namespace.
ClientEnd run_client(const EngineSetup& setup, const RunFolder& run, const std::vector<std::string>& client_arguments,
                     const std::vector<std::string>& environment,
                     const std::function<bool(std::string_view)>& on_line) {
    std::vector<std::string> arguments{run.sandbox.string(), setup.root.string(), run.host.string(),
                                       run.mountpoint.string()};
    for (const auto& [path, wrapper] : run.wraps) arguments.insert(arguments.end(), {"--wrap", path, wrapper});
    for (const auto& [host, inside] : run.binds) arguments.insert(arguments.end(), {"--bind", host, inside});
    arguments.push_back("--");
    arguments.insert(arguments.end(), client_arguments.begin(), client_arguments.end());
    std::vector<char*> argv, envp;
    for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    int out_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        // A process group of its own, which the interrupt handler stops; and
        // no sandbox outlives kdbgen (kill -9 included: the kernel sends this).
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(out_pipe[1], STDERR_FILENO);
        execve(argv[0], argv.data(), envp.data());
        std::printf("kdbgen-sandbox: cannot start %s: %s\n", argv[0], std::strerror(errno));
        std::fflush(stdout);
        _exit(125);
    }
    const int child_slot = register_child(pid, true);
    close(out_pipe[1]);
    ClientEnd end;
    const auto limit = std::chrono::seconds(setup.problem_timeout);
    auto deadline = std::chrono::steady_clock::now() + limit;
    std::string pending;
    char buffer[65536];
    // KDBGEN_ENGINE_TRACE=FILE: every line every client wrote, for whoever debugs the engine.
    static const char* trace_path = std::getenv("KDBGEN_ENGINE_TRACE");
    static std::mutex trace_mutex;
    const auto deliver = [&](std::string_view text) {
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
        if (trace_path) {
            const std::lock_guard lock(trace_mutex);
            std::ofstream(trace_path, std::ios::app) << text << '\n';
        }
        if (text.starts_with("kdbgen-sandbox: ")) end.sandbox_failure = std::string(text.substr(16));
        if (on_line(text)) deadline = std::chrono::steady_clock::now() + limit;
    };
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd poll_fd{out_pipe[0], POLLIN, 0};
        const int ready = setup.problem_timeout == 0 ? poll(&poll_fd, 1, -1)
                                                     : poll(&poll_fd, 1, static_cast<int>(std::max<long>(0, left.count())));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            // Out of time: SIGTERM makes the sandbox kill its namespace's PID 1
            // and wait until the kernel has reaped everything in there.
            end.timed_out = true;
            ::kill(pid, SIGTERM);
            const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (::waitpid(pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < grace)
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            break;
        }
        const ssize_t n = read(out_pipe[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t from = 0;
        for (std::size_t newline; (newline = pending.find('\n', from)) != std::string::npos; from = newline + 1)
            deliver(std::string_view(pending).substr(from, newline - from));
        pending.erase(0, from);
    }
    if (!pending.empty() && !end.timed_out) deliver(pending);
    close(out_pipe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unregister_temporary(child_slot);
    end.status = status;
    const bool sandbox_exit = WIFEXITED(status) && (WEXITSTATUS(status) == 125 || WEXITSTATUS(status) == 127);
    if (!sandbox_exit) end.sandbox_failure.clear();
    return end;
}

std::string describe_exit(int status) {
    return WIFSIGNALED(status) ? fmt::format("signal {}: {}", WTERMSIG(status), strsignal(WTERMSIG(status)))
                               : fmt::format("exit {}", WEXITSTATUS(status));
}

// The last lines a client wrote that were neither protocol nor MIOpen's kdb log.
struct Tail {
    std::string text;
    void add(std::string_view line) {
        text.append(line).push_back('\n');
        if (text.size() > 4000) text.erase(0, text.size() - 2000);
    }
};

// Every kernel MIOpen compiled into a client's user kdb (its cache folder).
void collect_user_kdb(const fs::path& cache, const Target& card, const fs::path& library,
                      std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(cache, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->path().extension() != ".ukdb") continue;
        // The client writes this folder: a link there is not MIOpen's kdb, and kdbgen reads nothing through it.
        if (it->is_symlink(ec) || !it->is_regular_file(ec)) {
            bad_rows.push_back(fmt::format("{} left {}, which is not a regular file: not read", library.string(),
                                           it->path().string()));
            continue;
        }
        if (it->path().stem() != card.db_basename())
            spdlog::warn("{}: MIOpen named its user kdb {}, not {}.ukdb: the stub's device is not the card kdbgen "
                         "meant", card.spec(), it->path().filename().string(), card.db_basename());
        read_user_kdb(it->path(), card, library, kernels, bad_rows);
    }
}

// What a client process (the replay or MIOpenDriver) runs with: the stub as
// its HIP runtime, describing the card; its own HOME, TMPDIR and empty user
// db; MIOpen's log at Info2, which names every kdb lookup, miss and save with
// its key (src/binary_cache.cpp:166-194, MIOpen 3.3.0).
std::vector<std::string> client_environment(const EngineSetup& setup, const RunFolder& run, const Target& card,
                                            const fs::path& view) {
    return {
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=" + view.string(),
        "TMPDIR=" + (view / "tmp").string(),
        "LD_LIBRARY_PATH=" + (run.root_view / "lib").string(),
        "KDBGEN_STUB_ARCH=" + card.reported_target_id(),
        fmt::format("KDBGEN_STUB_CUS={}", card.compute_units),
        "KDBGEN_COMPILE_LOG=" + (view / "compile.log").string(),
        fmt::format("KDBGEN_COMPILE_TIMEOUT={}", setup.compile_timeout),
        "MIOPEN_CUSTOM_CACHE_DIR=" + (view / "cache").string(),
        "MIOPEN_USER_DB_PATH=" + (view / "user-db").string(),
        "MIOPEN_LOG_LEVEL=6",
        // The milliseconds since the previous log line: what a compile took, in-process or not.
        "MIOPEN_ENABLE_LOGGING_ELAPSED_TIME=1",
    };
}

// Where MIOpen threw to its caller ("MIOpen Error: <file>:<line>: ..." -> up to
// the line number: the message names temporary folders that differ from run to
// run; its logged errors, "MIOpen(HIP): Error [...]", are not failures of the call).
std::set<std::string> thrown_errors(const KernelLookups& lookups) {
    std::set<std::string> thrown;
    for (const auto& line : lookups.errors) {
        const auto at = line.find("MIOpen Error: ");
        if (at == std::string::npos) continue;
        std::string where = line.substr(at);
        // "MIOpen Error: src/x.cpp:186: ...": keep through the second ':' after the prefix.
        const auto file_end = where.find(':', 14);
        const auto line_end = file_end == std::string::npos ? file_end : where.find(':', file_end + 1);
        thrown.insert(line_end == std::string::npos ? where : where.substr(0, line_end + 1));
    }
    return thrown;
}

double seconds_since(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The wrappers' log of one process: "start <arguments>" per compiler start,
// "end <milliseconds>" when it returns, "timeout <problem> <seconds>" per
// compile the wrapper stopped (the problem as the replay numbered it in
// KDBGEN_PROBLEM; "?" for MIOpenDriver).
struct CompileLog {
    std::size_t starts = 0;
    double slowest_seconds = 0;
    double total_seconds = 0;  // wall time inside compiler processes (one thread each: about their CPU)
};
void read_compile_log(const fs::path& log_path, std::size_t problem_count, CompileLog& compiles,
                      std::map<std::size_t, ReplayOutcome>& outcomes, std::optional<std::size_t> only = std::nullopt) {
    std::ifstream log(log_path);
    std::string line;
    while (std::getline(log, line)) {
        if (line.starts_with("start ")) ++compiles.starts;
        if (line.starts_with("end ")) {
            const double seconds = std::strtod(line.c_str() + 4, nullptr) / 1000;
            compiles.slowest_seconds = std::max(compiles.slowest_seconds, seconds);
            compiles.total_seconds += seconds;
        }
        if (!line.starts_with("timeout ")) continue;
        std::istringstream fields(line.substr(8));
        std::string problem, limit;
        fields >> problem >> limit;
        std::size_t index = only ? *only : std::strtoull(problem.c_str(), nullptr, 10);
        if (!only && (problem.empty() || problem == "?" || index >= problem_count)) continue;
        auto& outcome = outcomes[index];
        outcome.timed_out = true;
        outcome.ok = false;
        const std::string what = fmt::format("a compile ran past {} s (--compile-timeout) and was stopped", limit);
        if (outcome.message.empty()) outcome.message = what;
        else outcome.notes.push_back(what);
    }
}

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
    fs::path last_cache;  // the last process's cache folder (its user kdb), for the next pass
};

struct PassSpec {
    ReplayMode mode = ReplayMode::Find;
    // Two processes of one mode are made to differ (the problems' order, the
    // environment's size, so the stack starts elsewhere): a key built from an
    // uninitialized value then differs between them.
    unsigned variant = 0;
    bool counts_progress = false;  // the pass every problem goes through once (A)
    // A cache folder (MIOPEN_CUSTOM_CACHE_DIR) each process starts with: the
    // user kdb of the slice's pass before, so that a kernel one pass built is
    // loaded by the next, not built again. Lookups are logged either way.
    fs::path seed_cache;
    bool one_handle = false;  // the process's problems share a MIOpen handle (ReplayPurpose::Check)
};

// Runs the problems through replay processes, a new one (with an empty user
// kdb) after a problem that crashed one.
PassResult run_pass(const EngineSetup& setup, const Target& card, const RunFolder& run, const fs::path& pass_dir,
                    const std::vector<std::size_t>& indexes, const std::vector<std::string>& lines,
                    const PassSpec& spec) {
    PassResult result;
    std::vector<std::size_t> remaining = indexes;
    for (unsigned process = 0; !remaining.empty(); ++process) {
        if (setup.interrupted && setup.interrupted->load()) break;
        const fs::path dir = pass_dir / fmt::format("p{}", process);
        fs::create_directories(dir / "tmp");
        if (!spec.seed_cache.empty() && fs::is_directory(spec.seed_cache))
            fs::copy(spec.seed_cache, dir / "cache", fs::copy_options::recursive);
        {
            std::ofstream out(dir / "problems.txt", std::ios::trunc);
            for (const std::size_t i : remaining) out << i << ' ' << lines[i] << '\n';
        }
        const fs::path view = run.root_view / fs::relative(dir, run.host);
        auto environment = client_environment(setup, run, card, view);
        environment.push_back(fmt::format("KDBGEN_REPLAY_VARIANT={}", std::string(1 + spec.variant * 4093, 'v')));
        for (const char* name : {"KDBGEN_REPLAY_CRASH_ON", "KDBGEN_REPLAY_HANG_ON", "KDBGEN_COMPILER_FAIL_ON",
                                 "KDBGEN_COMPILER_HANG_ON"})
            if (const char* value = std::getenv(name)) environment.push_back(std::string(name) + "=" + value);
        environment.push_back("MIOPEN_SYSTEM_DB_PATH=" + run.system_db_view.string());
        const std::vector<std::string> arguments{(run.root_view / "kdbgen-miopen-replay").string(),
                                                 setup.library.string(), (view / "problems.txt").string(),
                                                 mode_name(spec.mode), spec.one_handle ? "one-handle" : "handle-each"};
        std::optional<std::size_t> current;
        auto current_since = std::chrono::steady_clock::now();
        Tail tail;
        const ClientEnd end = run_client(setup, run, arguments, environment, [&](std::string_view text) {
            if (text.starts_with("load-failed ")) {
                result.load_failure = std::string(text.substr(12));
                return false;
            }
            for (const std::string_view verb : {"start ", "done ", "note "}) {
                if (!text.starts_with(verb)) continue;
                std::string rest(text.substr(verb.size()));
                const auto space = rest.find(' ');
                const std::size_t index = std::strtoull(rest.c_str(), nullptr, 10);
                if (index >= lines.size()) return false;
                rest = space == std::string::npos ? "" : rest.substr(space + 1);
                auto& outcome = result.outcomes[index];
                if (verb == "start ") {
                    current = index;
                    current_since = std::chrono::steady_clock::now();
                    return true;
                }
                if (verb == "note ") {
                    outcome.notes.push_back(fmt::format("{}: {}", mode_name(spec.mode), rest));
                } else {
                    current.reset();
                    if (spec.counts_progress && setup.on_problem_done)
                        setup.on_problem_done(result.lookups.count(index) ? result.lookups[index].saved.size() : 0);
                    outcome.seconds = seconds_since(current_since);
                    outcome.ok = rest == "ok";
                    if (!outcome.ok)
                        outcome.message = fmt::format("{}: {}", mode_name(spec.mode),
                                                      rest.starts_with("fail ") ? rest.substr(5) : rest);
                }
                return false;
            }
            if (current && read_miopen_log_line(text, result.lookups[*current])) return false;
            tail.add(text);
            return false;
        });
        const int status = end.status;
        ++result.processes;
        if (!end.sandbox_failure.empty()) {
            result.load_failure = end.sandbox_failure;
            break;
        }
        collect_user_kdb(dir / "cache", card, setup.library, result.kernels, result.bad_rows);
        result.last_cache = dir / "cache";
        read_compile_log(dir / "compile.log", lines.size(), result.compiles, result.outcomes);
        // Ended before it started any problem (the library died loading, in its constructor or in
        // miopenCreate): the library's fault, not the first problem's.
        const bool never_started = !remaining.empty() && !result.outcomes.count(remaining.front());
        if (result.load_failure.empty() && never_started && !current && end.timed_out)
            result.load_failure = fmt::format("the replay started no problem within {} s (--problem-timeout) and "
                                              "was stopped", setup.problem_timeout);
        if (result.load_failure.empty() && never_started && !current &&
            !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
            result.load_failure = fmt::format("the replay ended ({}) before its first problem", describe_exit(status));
        if (!result.load_failure.empty()) {
            result.load_failure += "\n" + tail.text;
            break;
        }
        if (!current) break;
        auto& outcome = result.outcomes[*current];
        outcome.ok = false;
        outcome.seconds = seconds_since(current_since);
        if (end.timed_out) {
            outcome.timed_out = true;
            outcome.message = fmt::format("{}: stopped by the watchdog after {} s on this problem (--problem-timeout)",
                                          mode_name(spec.mode), setup.problem_timeout);
        } else {
            outcome.message = fmt::format("{}: the replay ended ({}) on this problem", mode_name(spec.mode),
                                          describe_exit(status));
        }
        // Go on after the problem that ended it, in a new process.
        const auto at = std::find(remaining.begin(), remaining.end(), *current);
        remaining.erase(remaining.begin(), at == remaining.end() ? remaining.end() : at + 1);
        if (!std::getenv("KDBGEN_KEEP_ENGINE_RUN")) {
            std::error_code ignored;
            fs::remove_all(dir / "cache", ignored);
        }
    }
    return result;
}

// Keys one problem asked for in one process and not in the other of the same
// kind, whose counterpart there differs only in some defines' values.
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

}  // namespace

void read_user_kdb(const fs::path& ukdb, const Target& card, const fs::path& library,
                   std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows) {
    const auto bad = [&](const StoredRow& row, const std::string& why) {
        bad_rows.push_back(fmt::format("{} wrote {} | {} into {}: {}", library.string(), row.key.kernel_name,
                                       row.key.kernel_args, ukdb.string(), why));
    };
    std::vector<StoredRow> rows;
    try {
        rows = read_kdb_rows(ukdb);
    } catch (const std::exception& error) {
        bad_rows.push_back(fmt::format("{} wrote {}, which kdbgen cannot read: {}", library.string(), ukdb.string(),
                                       error.what()));
        return;
    }
    for (const auto& row : rows) {
        if (!row.key.kernel_name.ends_with(".o")) {
            bad(row, "the kernel name does not end in .o");
            continue;
        }
        Bytes code;
        try {
            code = decode_row(row);
        } catch (const std::exception& error) {
            bad(row, error.what());
            continue;
        }
        if (const auto faults = check_code_object(code, card); !faults.empty()) {
            bad(row, faults.front());
            continue;
        }
        kernels.emplace(row.key, std::move(code));
    }
}

std::optional<fs::path> installed_system_db(const EngineSetup& setup) {
    // MIOpen's system db folder is <prefix>/share/miopen/db, fixed when it was
    // built: 3.5.1 (Debian 7.2.4) names /usr/share/miopen/db, 3.4.0 (6.4.3)
    // finds share/miopen/db next to its library's prefix.
    std::vector<fs::path> candidates{"/usr/share/miopen/db"};
    for (fs::path dir = setup.library.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        candidates.push_back(dir / "share" / "miopen" / "db");
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (const auto host = resolve_in_root(setup.root, candidate); host && fs::is_directory(*host, ec))
            return candidate;
    }
    return std::nullopt;
}

std::vector<CompilerWrapper> plan_compiler_wrappers(const EngineSetup& setup) {
    const auto library = resolve_in_root(setup.root, setup.library);
    std::error_code ec;
    if (!library || !fs::is_regular_file(*library, ec))
        throw InputError(located((setup.root / setup.library.relative_path()).string(), 0,
                                 "no MIOpen library there (--miopen-lib, inside --miopen-root)"));
    std::vector<CompilerWrapper> wrappers;
    for (const auto& path : compiler_paths(*library)) {
        // Only normal absolute paths: the sandbox puts the wrapper where the
        // root's own links lead, and a ".." part would say two things at once.
        if (fs::path(path).lexically_normal() != fs::path(path) || path.find("/./") != std::string::npos)
            throw InputError(fmt::format("{}: the compiler path {} is not a plain path; kdbgen will not put its "
                                         "wrapper there", setup.library.string(), path));
        // A regular file at the path (no link) is the real compiler, kept
        // beside the wrapper; else the root's LLVM of the same version.
        const auto entry = resolve_parent_in_root(setup.root, path);
        const bool own_file = entry && fs::is_regular_file(fs::symlink_status(*entry, ec));
        const std::string real = own_file ? path + ".kdbgen-real" : real_compiler_for(setup.root, path);
        wrappers.push_back({path, compiler_wrapper(path, real), own_file ? path : real});
    }
    return wrappers;
}

namespace {

const std::vector<CompilerWrapper>& compiler_wrappers_of(const EngineSetup& setup) {
    if (setup.compilers) return *setup.compilers;
    // Read once per library: it is large and each replay process needs them.
    static std::mutex mutex;
    static std::map<std::pair<fs::path, fs::path>, std::vector<CompilerWrapper>> known;
    const std::lock_guard lock(mutex);
    const auto key = std::make_pair(setup.root, setup.library);
    auto found = known.find(key);
    if (found == known.end()) found = known.emplace(key, plan_compiler_wrappers(setup)).first;
    return found->second;
}

// The run folder in TMPDIR: view/ is what the client sees as /.kdbgen-run
// (kdbgen's helpers, the compiler wrappers, each process's HOME, caches and
// logs, and the system db folder MIOpen is pointed at); mnt/ is where
// kdbgen-sandbox puts the client's root together.
void make_run_folder(const EngineSetup& setup, RunFolder& run) {
    run.adopt(make_scratch_folder("engine"));
    run.host = run.top / "view";
    run.mountpoint = run.top / "mnt";
    run.root_view = kViewInside;
    fs::create_directories(run.host / "wrappers");
    fs::create_directories(run.mountpoint);
    copy_helpers(setup, run);
    const auto& wrappers = compiler_wrappers_of(setup);
    for (std::size_t i = 0; i < wrappers.size(); ++i) {
        const fs::path script = run.host / "wrappers" / std::to_string(i);
        write_script(script, wrappers[i].script);
        run.wraps.emplace_back(wrappers[i].path, (run.root_view / "wrappers" / std::to_string(i)).string());
    }
    // MIOPEN_SYSTEM_DB_PATH replaces MIOpen's whole system db folder, in
    // every process: the folder given holds links to everything of the
    // system db (its find-dbs, perf-dbs and tuning models, which decide what
    // MIOpen compiles: Debian's 3.5.1 ships them), from --miopen-db (bound
    // into the view) or else the installed one (inside the root), and the
    // kdbs to install. A kdb already installed there is left out: what the
    // build machine had installed never hides a kernel.
    const fs::path folder = run.host / "system-db";
    fs::create_directories(folder);
    std::optional<std::pair<fs::path, fs::path>> db;  // as kdbgen sees it, as the client does
    if (setup.miopen_db) {
        db.emplace(*setup.miopen_db, kDbInside);
        run.binds.emplace_back(setup.miopen_db->string(), kDbInside);
    } else if (const auto installed = installed_system_db(setup)) {
        db.emplace(*resolve_in_root(setup.root, *installed), *installed);
    }
    if (db) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(db->first, ec))
            if (entry.path().extension() != ".kdb")
                fs::create_symlink(db->second / entry.path().filename(), folder / entry.path().filename());
    }
    if (setup.system_db)
        for (const auto& entry : fs::directory_iterator(*setup.system_db))
            if (entry.path().extension() == ".kdb") fs::copy_file(entry.path(), folder / entry.path().filename());
    run.system_db_view = run.root_view / "system-db";
}

void fail_on_load_failure(const EngineSetup& setup, const std::string& load_failure) {
    if (!load_failure.empty())
        throw InputError(fmt::format("{}: MIOpen cannot be loaded under kdbgen-hip-stub{}: {}", setup.library.string(),
                                     setup.root == "/" ? "" : " in " + setup.root.string(), load_failure));
}

// The outcome of a problem over its processes: failed if any failed; a kernel
// MIOpen started to build and did not fails it too.
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
}

}  // namespace

CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                       ReplayPurpose purpose) {
    const auto started = std::chrono::steady_clock::now();
    if (card.arch_wide()) throw std::logic_error("replay_card needs a card (a target with its CU count)");
    CardReplay report;
    report.card = card;

    // The problems the replay can express, and a line for each.
    std::vector<std::string> lines;
    std::vector<const ProblemSet::Entry*> entries;
    for (const auto& entry : problems.entries()) {
        std::string why;
        if (auto line = replay_line(entry.problem, &why)) {
            lines.push_back(std::move(*line));
            entries.push_back(&entry);
        } else {
            ++report.skipped;
            ReplayOutcome outcome;
            outcome.kind = std::string(problem_kind(entry.problem));
            outcome.key = entry.key;
            outcome.message = "not replayed: " + why;
            report.outcomes.push_back(std::move(outcome));
        }
    }

    RunFolder run;
    make_run_folder(setup, run);

    // Each problem runs in processes that have done nothing else with it:
    //   A  find mode, in list order           B  immediate mode, in reverse order
    //   C  find mode again, reversed, for the convolutions that missed in A
    //   D  immediate mode again, for the convolutions that missed in B
    // A convolution's keys are compared between A and C, and B and D; any
    // other problem's (one way to run it) between A and B. A check's A and B
    // share a handle per process, so what a problem asks there depends on the
    // problems before it: every problem that missed goes to C and D (on
    // handles of their own), and each is compared only with those.
    const bool checking = purpose == ReplayPurpose::Check;
    const auto is_conv = [&](std::size_t i) { return std::holds_alternative<ConvProblem>(entries[i]->problem); };
    const unsigned jobs = std::max(1u, std::min<unsigned>(setup.jobs, static_cast<unsigned>(std::max<std::size_t>(1, lines.size()))));
    // Dealt to the processes by expected cost (shard.hpp's rule), each slice in list order.
    std::vector<ShardUnit> units;
    for (std::size_t i = 0; i < lines.size(); ++i)
        units.push_back({entries[i]->key + lines[i], estimated_replay_cost(entries[i]->problem)});
    const auto slice_of = assign_shards(units, jobs);
    std::vector<std::vector<std::size_t>> slices(jobs);
    for (std::size_t i = 0; i < lines.size(); ++i) slices[slice_of[i]].push_back(i);

    struct SliceResult {
        PassResult a, b, c, d;
    };
    std::vector<SliceResult> slice_results(jobs);
    std::vector<std::thread> threads;
    for (unsigned s = 0; s < jobs; ++s) {
        threads.emplace_back([&, s] {
            const fs::path slice_dir = run.host / fmt::format("slice-{}", s);
            auto& r = slice_results[s];
            const auto& forward = slices[s];
            const std::vector<std::size_t> reversed(forward.rbegin(), forward.rend());
            r.a = run_pass(setup, card, run, slice_dir / "a", forward, lines,
                           {ReplayMode::Find, 0, true, {}, checking});
            if (!r.a.load_failure.empty()) return;
            // Another primitive runs the same calls in B as in A: a build
            // compares the two, a check has seen it once already.
            std::vector<std::size_t> immediate;
            for (const std::size_t i : reversed)
                if (!checking || is_conv(i)) immediate.push_back(i);
            r.b = run_pass(setup, card, run, slice_dir / "b", immediate, lines,
                           {ReplayMode::Immediate, 1, false, r.a.last_cache, checking});
            // Again: the problems that tried to compile. A miss whose source
            // MIOpen lacks is no compile, and the same in every process.
            const auto missed_in = [&](const PassResult& pass, const std::vector<std::size_t>& order) {
                std::vector<std::size_t> again;
                for (const std::size_t i : order)
                    if ((checking || is_conv(i)) && pass.lookups.count(i) && pass.lookups.at(i).missed_a_buildable_key())
                        again.push_back(i);
                return again;
            };
            const auto latest = [](const PassResult& pass, const fs::path& before) {
                return pass.last_cache.empty() ? before : pass.last_cache;
            };
            const fs::path after_b = latest(r.b, r.a.last_cache);
            r.c = run_pass(setup, card, run, slice_dir / "c", missed_in(r.a, reversed), lines,
                           {ReplayMode::Find, 1, false, after_b});
            r.d = run_pass(setup, card, run, slice_dir / "d", missed_in(r.b, forward), lines,
                           {ReplayMode::Immediate, 0, false, latest(r.c, after_b)});
        });
    }
    for (auto& thread : threads) thread.join();
    for (const auto& r : slice_results) {
        fail_on_load_failure(setup, r.a.load_failure);
        fail_on_load_failure(setup, r.b.load_failure);
    }

    std::map<KdbKey, Bytes> kernels;
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::map<std::size_t, KernelLookups> lookups;
    for (const auto& r : slice_results) {
        for (const PassResult* pass : {&r.a, &r.b, &r.c, &r.d}) {
            report.compiler_starts += pass->compiles.starts;
            report.slowest_compile_seconds = std::max(report.slowest_compile_seconds, pass->compiles.slowest_seconds);
            report.compile_seconds += pass->compiles.total_seconds;
            report.processes += pass->processes;
            for (const auto& [key, code] : pass->kernels) kernels.emplace(key, code);
            report.bad_rows.insert(report.bad_rows.end(), pass->bad_rows.begin(), pass->bad_rows.end());
            for (const auto& [index, seen] : pass->lookups) {
                lookups[index].add(seen);
                report.lookups += seen.asked.size();
                report.compiled += seen.saved.size();
                report.logged_compile_seconds += seen.compile_seconds;
                report.asked.insert(seen.asked.begin(), seen.asked.end());
                for (const auto& line : seen.kdb_unreadable)
                    if (report.kdb_unreadable.size() < 12) report.kdb_unreadable.push_back(line);
            }
        }
        // The primary runs decide a problem's outcome: A and, for a convolution, B.
        for (const auto& [index, outcome] : r.a.outcomes) merge_outcome(outcomes[index], outcome, true);
        for (const auto& [index, outcome] : r.b.outcomes)
            if (is_conv(index)) merge_outcome(outcomes[index], outcome, false);
        const auto compare = [&](const PassResult& first, const PassResult& second, bool convs) {
            for (const auto& [index, seen] : first.lookups)
                if (is_conv(index) == convs && second.lookups.count(index))
                    find_unstable(seen, second.lookups.at(index),
                                  fmt::format("{} {}", problem_kind(entries[index]->problem), entries[index]->key),
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

    for (std::size_t i = 0; i < lines.size(); ++i)
        add_outcome(report, *entries[i], outcomes, lookups, i, "not replayed (interrupted)");
    for (auto& [key, code] : kernels)
        if (!is_unstable(report.unstable, key)) report.records.push_back({key, std::move(code)});
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds) {
    std::map<KdbKey, Bytes> known;
    return replay_card_to_fixpoint(setup, card, problems, max_rounds, known, nullptr);
}

CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds, std::map<KdbKey, Bytes>& known, EngineCache* cache) {
    const auto started = std::chrono::steady_clock::now();
    CardReplay total;
    total.card = card;
    total.kernels_installed = known.size();
    const auto& entries = problems.entries();
    total.outcomes.resize(entries.size());
    // Per problem: its replay line (none: the replay cannot express it), and
    // the keys it asked for once settled.
    std::vector<std::optional<std::string>> lines(entries.size());
    std::vector<std::optional<std::set<KdbKey>>> settled(entries.size());
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        auto& outcome = total.outcomes[i];
        outcome.kind = std::string(problem_kind(entries[i].problem));
        outcome.key = entries[i].key;
        std::string why;
        lines[i] = replay_line(entries[i].problem, &why);
        if (!lines[i]) {
            ++total.skipped;
            outcome.message = "not replayed: " + why;
            continue;
        }
        // Settled in an earlier run with this library and system db, and every
        // key it asked for is at hand: replaying it would load them all.
        if (cache)
            if (const auto hit = cache->problem(card, *lines[i]);
                hit && std::all_of(hit->asked.begin(), hit->asked.end(), [&](const KdbKey& key) { return known.count(key); })) {
                outcome.ok = hit->failure.empty();
                outcome.message = hit->failure;
                outcome.from_cache = true;
                outcome.asked.insert(hit->asked.begin(), hit->asked.end());
                outcome.asked.insert(hit->unbuildable.begin(), hit->unbuildable.end());
                outcome.without_source = hit->unbuildable;
                settled[i] = outcome.asked;
                ++total.from_cache;
                continue;
            }
        pending.push_back(i);
    }

    // The kdb of the kernels known so far, installed for each round (TMPDIR; a killed run's is removed by the next).
    ScratchFolder scratch;
    scratch.adopt(make_scratch_folder("rounds"));
    for (unsigned round = 0; round < std::max(1u, max_rounds) && !pending.empty(); ++round) {
        if (setup.interrupted && setup.interrupted->load()) break;
        EngineSetup this_round = setup;
        if (!known.empty()) {
            std::vector<KdbRecord> so_far;
            so_far.reserve(known.size());
            for (const auto& [key, code] : known) so_far.push_back({key, code});
            const fs::path installed = scratch.top / fmt::format("round-{}", round);
            fs::create_directories(installed);
            write_kdb(installed / card.kdb_filename(), so_far);
            this_round.system_db = installed;
        }
        if (setup.on_round_start) setup.on_round_start(round, pending.size());
        ProblemSet these;
        for (const std::size_t i : pending)
            for (const auto& origin : entries[i].origins) these.add(entries[i].problem, origin);
        CardReplay replay = replay_card(this_round, card, these);
        if (replay.outcomes.size() != pending.size())
            throw std::logic_error("replay_card returned another number of outcomes");

        CardReplay::Round stats;
        stats.problems = pending.size();
        stats.processes = replay.processes;
        stats.compiler_starts = replay.compiler_starts;
        stats.seconds = replay.seconds;
        total.compiler_starts += replay.compiler_starts;
        total.slowest_compile_seconds = std::max(total.slowest_compile_seconds, replay.slowest_compile_seconds);
        total.compile_seconds += replay.compile_seconds;
        total.logged_compile_seconds += replay.logged_compile_seconds;
        stats.compile_seconds = replay.compile_seconds;
        stats.logged_compile_seconds = replay.logged_compile_seconds;
        total.processes += replay.processes;
        total.lookups += replay.lookups;
        total.compiled += replay.compiled;
        total.kdb_unreadable = replay.kdb_unreadable;
        total.bad_rows.insert(total.bad_rows.end(), replay.bad_rows.begin(), replay.bad_rows.end());
        for (auto& found : replay.unstable) {
            auto same = std::find_if(total.unstable.begin(), total.unstable.end(), [&](const UnstableKey& u) {
                return u.kernel_name == found.kernel_name && u.varying_defines == found.varying_defines;
            });
            if (same == total.unstable.end()) total.unstable.push_back(std::move(found));
            else
                for (auto& example : found.examples)
                    if (std::find(same->examples.begin(), same->examples.end(), example) == same->examples.end())
                        same->examples.push_back(std::move(example));
        }
        total.still_compiled.clear();
        std::size_t fresh = 0;
        for (auto& record : replay.records) {
            if (is_unstable(total.unstable, record.key)) continue;
            if (round > 0) total.still_compiled.push_back(record.key);
            ++stats.compiled;
            if (!known.emplace(record.key, record.code).second) continue;
            if (cache) cache->store_kernel(card, record.key, record.code);
            ++fresh;
        }
        total.new_per_round.push_back(fresh);

        // Settled: every key it looked up was found, or what was not is no
        // kernel anyone has (MIOpen failed to build it, or has no source for
        // it: reported, and another round would not change it). A key built
        // from a value that changes between processes never counts.
        std::vector<std::size_t> still;
        for (std::size_t j = 0; j < pending.size(); ++j) {
            const std::size_t i = pending[j];
            ReplayOutcome& outcome = replay.outcomes[j];
            outcome.seconds = std::max(outcome.seconds, total.outcomes[i].seconds);
            std::erase_if(outcome.missed, [&](const KdbKey& key) { return is_unstable(total.unstable, key); });
            std::erase_if(outcome.asked, [&](const KdbKey& key) { return is_unstable(total.unstable, key); });
            const bool missed_any =
                std::any_of(outcome.missed.begin(), outcome.missed.end(), [&](const KdbKey& key) { return known.count(key); });
            total.outcomes[i] = std::move(outcome);
            if (missed_any) {
                still.push_back(i);
                continue;
            }
            settled[i] = total.outcomes[i].asked;
            // Kept for the next run when it passed, or failed for what the installation lacks (a
            // kernel source: it fails the same way every time); a crash or a timeout is tried again.
            const ReplayOutcome& done = total.outcomes[i];
            const bool repeats = done.ok || (!done.timed_out && !done.without_source.empty() && done.failed_compiles.empty());
            if (cache && repeats && lines[i]) {
                EngineCache::Settled entry;
                for (const auto& key : *settled[i]) (known.count(key) ? entry.asked : entry.unbuildable).push_back(key);
                if (!done.ok) entry.failure = done.message;
                cache->store_problem(card, *lines[i], entry);
            }
        }
        total.rounds.push_back(stats);
        pending = std::move(still);
    }
    // Only what the problems asked for last goes into the kdb: a key only an
    // earlier round asked for (before the kdb held what it loads now) is a row
    // no user's process asks for.
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& asked = settled[i] ? *settled[i] : total.outcomes[i].asked;
        total.asked.insert(asked.begin(), asked.end());
        total.without_source.insert(total.outcomes[i].without_source.begin(), total.outcomes[i].without_source.end());
    }
    for (const auto& key : total.asked)
        if (const auto found = known.find(key); found != known.end() && !is_unstable(total.unstable, key))
            total.records.push_back({key, found->second});
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return total;
}

std::optional<fs::path> installed_driver(const EngineSetup& setup) {
    // Debian ships it in libmiopen1-tests; MIOpen's own install puts it in <prefix>/bin.
    std::vector<fs::path> candidates{"/usr/libexec/rocm/libmiopen1-tests/MIOpenDriver"};
    for (fs::path dir = setup.library.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        candidates.push_back(dir / "bin" / "MIOpenDriver");
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (const auto host = resolve_in_root(setup.root, candidate); host && fs::is_regular_file(*host, ec))
            return candidate;
    }
    return std::nullopt;
}

CardReplay check_card_with_driver(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                  const fs::path& driver) {
    const auto started = std::chrono::steady_clock::now();
    CardReplay report;
    report.card = card;
    report.client = "MIOpenDriver";

    // One task per problem and way; problems MIOpenDriver has no command for go to the replay.
    struct Task {
        std::size_t problem;
        std::vector<std::string> args;
        const char* way;
    };
    std::vector<Task> tasks;
    std::vector<const ProblemSet::Entry*> entries;
    ProblemSet for_replay;
    for (const auto& entry : problems.entries()) {
        std::string why;
        const auto commands = driver_commands(entry.problem, &why);
        if (!commands) {
            for (const auto& origin : entry.origins) for_replay.add(entry.problem, origin);
            continue;
        }
        tasks.push_back({entries.size(), commands->find, "find"});
        if (commands->immediate) tasks.push_back({entries.size(), *commands->immediate, "immediate (-S 0)"});
        entries.push_back(&entry);
    }

    RunFolder run;
    make_run_folder(setup, run);
    // The same system db without kdbs: a problem that fails with the kdbs runs again with this.
    const fs::path bare = run.host / "system-db-bare";
    fs::create_directories(bare);
    for (const auto& entry : fs::directory_iterator(run.host / "system-db"))
        if (entry.path().extension() != ".kdb") fs::copy_symlink(entry.path(), bare / entry.path().filename());

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
    const auto run_task = [&](const Task& task, const std::string& name, bool with_kdbs) {
        TaskResult result;
        const fs::path dir = run.host / name;
        fs::create_directories(dir / "tmp");
        const fs::path view = run.root_view / name;
        auto environment = client_environment(setup, run, card, view);
        environment.push_back("MIOPEN_SYSTEM_DB_PATH=" +
                              (run.root_view / (with_kdbs ? "system-db" : "system-db-bare")).string());
        std::vector<std::string> arguments{driver.string()};
        arguments.insert(arguments.end(), task.args.begin(), task.args.end());
        Tail tail;
        const auto started_task = std::chrono::steady_clock::now();
        const ClientEnd end = run_client(setup, run, arguments, environment, [&](std::string_view text) {
            if (read_miopen_log_line(text, result.lookups)) return false;
            if (text.find("Invalid Base Input Argument") != std::string_view::npos) result.unsupported = true;
            if (result.failed_line.empty() && text.find("() FAILED") != std::string_view::npos)
                result.failed_line = std::string(text.substr(0, 200));
            tail.add(text);
            return false;
        });
        result.status = end.status;
        result.seconds = seconds_since(started_task);
        result.timed_out = end.timed_out;
        result.sandbox_failure = end.sandbox_failure;
        result.tail = tail.text;
        {
            std::map<std::size_t, ReplayOutcome> seen;
            read_compile_log(dir / "compile.log", 1, result.compiles, seen, 0);
            if (seen.count(0)) result.compile_timed_out = seen[0].message;
        }
        collect_user_kdb(dir / "cache", card, setup.library, result.kernels, result.bad_rows);
        if (!std::getenv("KDBGEN_KEEP_ENGINE_RUN")) {
            std::error_code ignored;
            fs::remove_all(dir, ignored);
        }
        return result;
    };

    std::vector<TaskResult> first(tasks.size()), second(tasks.size());
    std::vector<std::optional<TaskResult>> bare_run(tasks.size());
    std::atomic<std::size_t> next{0};
    const unsigned jobs = std::max(1u, setup.jobs);
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < jobs; ++j)
        threads.emplace_back([&] {
            for (std::size_t t; (t = next.fetch_add(1)) < tasks.size();) {
                if (setup.interrupted && setup.interrupted->load()) return;
                first[t] = run_task(tasks[t], fmt::format("t{}", t), true);
                const bool ok = first[t].ok();
                // A second process where MIOpen compiled anything: a key that differs is built from
                // a value that changes from process to process.
                if (!first[t].lookups.saved.empty()) second[t] = run_task(tasks[t], fmt::format("t{}b", t), true);
                // MIOpenDriver exits 0 from some commands whose MIOpen call failed (batch norm): what MIOpen
                // threw counts too, compared with a run without the kdbs.
                if (!ok || !thrown_errors(first[t].lookups).empty())
                    bare_run[t] = run_task(tasks[t], fmt::format("t{}n", t), false);
            }
        });
    for (auto& thread : threads) thread.join();
    for (const auto* results : {&first, &second})
        for (const auto& result : *results)
            if (!result.sandbox_failure.empty())
                throw InputError(fmt::format("{}: cannot run {} over {}: {}", setup.library.string(), driver.string(),
                                             setup.root.string(), result.sandbox_failure));

    std::set<std::size_t> unsupported;
    for (std::size_t t = 0; t < tasks.size(); ++t)
        if (first[t].unsupported) unsupported.insert(tasks[t].problem);
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
        outcome.seconds = std::max(outcome.seconds, first[t].seconds);
        for (const TaskResult* result : {&first[t], &second[t]}) {
            report.compiler_starts += result->compiles.starts;
            report.slowest_compile_seconds = std::max(report.slowest_compile_seconds, result->compiles.slowest_seconds);
            report.lookups += result->lookups.asked.size();
            report.compiled += result->lookups.saved.size();
            report.asked.insert(result->lookups.asked.begin(), result->lookups.asked.end());
            for (const auto& line : result->lookups.kdb_unreadable)
                if (report.kdb_unreadable.size() < 12) report.kdb_unreadable.push_back(line);
            for (const auto& [key, code] : result->kernels) kernels.emplace(key, code);
            report.bad_rows.insert(report.bad_rows.end(), result->bad_rows.begin(), result->bad_rows.end());
        }
        report.processes += 1 + (first[t].lookups.saved.empty() ? 0 : 1) + (bare_run[t] ? 1 : 0);
        lookups[task.problem].add(first[t].lookups);
        find_unstable(first[t].lookups, second[t].lookups,
                      fmt::format("{} {}", problem_kind(entries[task.problem]->problem), entries[task.problem]->key),
                      report.unstable);
        find_unstable(second[t].lookups, first[t].lookups,
                      fmt::format("{} {}", problem_kind(entries[task.problem]->problem), entries[task.problem]->key),
                      report.unstable);
        const bool ok = first[t].ok();
        std::string command = driver.filename().string();
        for (const auto& arg : task.args) command += " " + arg;
        const auto& bare_result = bare_run[t];
        if (ok) {
            if (!bare_result) continue;
            const auto without = thrown_errors(bare_result->lookups);
            for (const auto& error : thrown_errors(first[t].lookups)) {
                if (without.count(error)) {
                    outcome.notes.push_back(fmt::format("{}: `{}` exited 0, but MIOpen threw (with or without the "
                                                        "kdbs): {}", task.way, command, error));
                    continue;
                }
                outcome.ok = false;
                outcome.message = fmt::format("{}: `{}`: MIOpen threw with the kdbs installed and not without them: {}",
                                              task.way, command, error);
            }
            continue;
        }
        const bool passes_bare = bare_result && bare_result->ok();
        outcome.ok = false;
        outcome.timed_out |= first[t].timed_out || !first[t].compile_timed_out.empty();
        outcome.message = fmt::format("{}: `{}` failed ({}){}", task.way, command, first[t].how(setup.problem_timeout),
                                      passes_bare ? " with the kdbs installed and passes without them"
                                                  : ", without the kdbs as well");
        std::string tail = first[t].tail.size() > 600 ? first[t].tail.substr(first[t].tail.size() - 600) : first[t].tail;
        outcome.notes.push_back(tail);
    }
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!unsupported.count(i)) add_outcome(report, *entries[i], outcomes, lookups, i, "not run (interrupted)");
    for (auto& [key, code] : kernels)
        if (!is_unstable(report.unstable, key)) report.still_compiled.push_back(key);
    for (auto& [key, code] : kernels) report.records.push_back({key, std::move(code)});
    if (!for_replay.entries().empty()) {
        CardReplay replayed = replay_card(setup, card, for_replay, ReplayPurpose::Check);
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
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace kdbgen
