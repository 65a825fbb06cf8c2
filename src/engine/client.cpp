// One client process in kdbgen-sandbox over a run folder (client.hpp).
#include "client.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace kdbgen::engine {

namespace {

constexpr const char* kViewInside = "/.kdbgen-run";  // kdbgen-sandbox's name for the run folder's view/

void write_script(const fs::path& path, const std::string& text) {
    {
        std::ofstream out(path, std::ios::trunc);
        out << text;
        if (!out) throw InputError(located(path.string(), 0, "cannot write kdbgen's compiler wrapper"));
    }
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
}

// Copies: the client sees the run folder, not kdbgen's own.
void copy_helpers(const EngineHelpers& helpers, RunFolder& run) {
    run.sandbox = helpers.sandbox;
    fs::create_directories(run.host / "lib");
    fs::copy_file(helpers.replay, run.host / "kdbgen-miopen-replay", fs::copy_options::overwrite_existing);
    for (const auto& entry : fs::directory_iterator(helpers.stubs))
        if (entry.path().filename().string().find(".so") != std::string::npos)
            fs::copy_file(entry.path(), run.host / "lib" / entry.path().filename(),
                          fs::copy_options::overwrite_existing);
}

}  // namespace

void ScratchFolder::adopt(fs::path path) {
    top = std::move(path);
    slot = register_temporary_folder(top);
}

ScratchFolder::~ScratchFolder() {
    unregister_temporary(slot);
    if (top.empty() || std::getenv("KDBGEN_KEEP_ENGINE_RUN")) return;
    std::error_code ec;
    fs::remove_all(top, ec);
}

void Tail::add(std::string_view line) {
    text.append(line).push_back('\n');
    if (text.size() > 4000) text.erase(0, text.size() - 2000);
}

void make_run_folder(const EngineSetup& setup, RunFolder& run) {
    run.adopt(make_scratch_folder("engine"));
    run.host = run.top / "view";
    run.mountpoint = run.top / "mnt";
    run.root_view = kViewInside;
    fs::create_directories(run.host / "wrappers");
    fs::create_directories(run.mountpoint);
    run.private_dir = run.top / "kdbgen";
    fs::create_directories(run.private_dir);
    run.files = std::make_unique<Beneath>(run.host);
    const Installation& installation = setup.installation;
    copy_helpers(installation.helpers, run);
    const auto& wrappers = installation.compilers;
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
    if (const auto& db = installation.system_db) {
        if (db->given) run.binds.emplace_back(db->on_host.string(), db->inside.string());
        for (const auto& name : db->entries) fs::create_symlink(db->inside / name, folder / name);
    }
    // Regular files only: a link among the kdbs given (x.kdb -> /etc/passwd) is never read through.
    if (setup.installed_kdbs)
        for (const auto& entry : fs::directory_iterator(*setup.installed_kdbs))
            if (entry.path().extension() == ".kdb" && !entry.is_symlink() && entry.is_regular_file())
                fs::copy_file(entry.path(), folder / entry.path().filename());
    run.system_db_view = run.root_view / "system-db";
}

void fail_on_load_failure(const EngineSetup& setup, const std::string& load_failure) {
    if (!load_failure.empty())
        throw InputError(fmt::format("{}: MIOpen cannot be loaded under kdbgen-hip-stub{}: {}",
                                     setup.installation.library.string(), setup.installation.where(), load_failure));
}

namespace {

// One pipe a client writes, read in lines.
struct LineStream {
    int fd = -1;
    std::string pending;
    bool open() const { return fd >= 0; }
    // Reads what is there; each whole line to deliver. False at end of file.
    template <typename Deliver>
    bool read_some(Deliver&& deliver) {
        char buffer[65536];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) return true;
            if (n <= 0) {
                close(fd);
                fd = -1;
                return false;
            }
            pending.append(buffer, static_cast<std::size_t>(n));
            std::size_t from = 0;
            for (std::size_t newline; (newline = pending.find('\n', from)) != std::string::npos; from = newline + 1)
                deliver(std::string_view(pending).substr(from, newline - from));
            pending.erase(0, from);
            if (static_cast<std::size_t>(n) < sizeof buffer) return true;
        }
    }
};

// The sandbox started over the run folder: its output and error on `output`,
// and with a protocol pipe the client's kKdbgenProtocolFd.
pid_t start_sandbox(const EngineSetup& setup, const RunFolder& run, const std::vector<std::string>& client_arguments,
                    const std::vector<std::string>& environment, int output, int protocol) {
    std::vector<std::string> arguments{run.sandbox.string(), setup.installation.root.string(), run.host.string(),
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
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        // A process group of its own, which the interrupt handler stops; and
        // no sandbox outlives kdbgen (kill -9 included: the kernel sends this).
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(output, STDOUT_FILENO);
        dup2(output, STDERR_FILENO);
        // Without close-on-exec, so that the client inherits it (dup2 onto itself would keep the flag).
        if (protocol == kKdbgenProtocolFd) fcntl(protocol, F_SETFD, 0);
        else if (protocol >= 0) dup2(protocol, kKdbgenProtocolFd);
        execve(argv[0], argv.data(), envp.data());
        std::printf("kdbgen-sandbox: cannot start %s: %s\n", argv[0], std::strerror(errno));
        std::fflush(stdout);
        _exit(125);
    }
    return pid;
}

// Out of time: SIGTERM makes the sandbox kill its namespace's PID 1 and wait
// until the kernel has reaped everything in there.
void stop_sandbox(pid_t pid) {
    ::kill(pid, SIGTERM);
    const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (::waitpid(pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < grace)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

}  // namespace

ClientEnd run_client(const EngineSetup& setup, const RunFolder& run, const std::vector<std::string>& client_arguments,
                     const std::vector<std::string>& environment, const LineReader& on_line, bool protocol_channel) {
    int out_pipe[2], protocol_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || (protocol_channel && pipe2(protocol_pipe, O_CLOEXEC) != 0))
        throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    const pid_t pid = start_sandbox(setup, run, client_arguments, environment, out_pipe[1], protocol_pipe[1]);
    const int child_slot = register_child(pid, true);
    close(out_pipe[1]);
    if (protocol_channel) close(protocol_pipe[1]);
    fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
    if (protocol_channel) fcntl(protocol_pipe[0], F_SETFL, O_NONBLOCK);
    ClientEnd end;
    const auto limit = std::chrono::seconds(setup.problem_timeout);
    auto deadline = std::chrono::steady_clock::now() + limit;
    LineStream log{out_pipe[0], {}}, protocol{protocol_pipe[0], {}};
    // KDBGEN_ENGINE_TRACE=FILE: every line every client wrote, for whoever debugs the engine.
    static const char* trace_path = std::getenv("KDBGEN_ENGINE_TRACE");
    static std::mutex trace_mutex;
    const auto trace = [&](std::string_view text, const char* channel) {
        if (!trace_path) return;
        const std::lock_guard lock(trace_mutex);
        std::ofstream(trace_path, std::ios::app) << channel << text << '\n';
    };
    const auto from_log = [&](std::string_view text) {
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
        trace(text, "");
        if (text.starts_with("kdbgen-sandbox: ")) end.sandbox_failure = std::string(text.substr(16));
        on_line(text);
    };
    // Only the replay's own channel moves the watchdog: nothing the library prints does.
    const auto from_protocol = [&](std::string_view text) {
        trace(text, "[protocol] ");
        if (text.starts_with("start ")) deadline = std::chrono::steady_clock::now() + limit;
    };
    while (log.open() || protocol.open()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd fds[2] = {{log.fd, POLLIN, 0}, {protocol.fd, POLLIN, 0}};
        const int wait_ms = setup.problem_timeout == 0 ? -1 : static_cast<int>(std::clamp<long>(left.count(), 0, INT_MAX));
        const int ready = poll(fds, 2, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            end.timed_out = true;
            stop_sandbox(pid);
            break;
        }
        if (log.open() && fds[0].revents) log.read_some(from_log);
        if (protocol.open() && fds[1].revents) protocol.read_some(from_protocol);
    }
    if (!end.timed_out && !log.pending.empty()) from_log(log.pending);
    if (log.open()) close(log.fd);
    if (protocol.open()) close(protocol.fd);
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

double seconds_since(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void read_compile_log(const RunFolder& run, const fs::path& log_path, std::size_t problem_count, CompileLog& compiles,
                      std::map<std::size_t, ReplayOutcome>& outcomes, std::optional<std::size_t> only) {
    // A line per compile: 64 MiB is hundreds of thousands of compiles.
    const auto text = run.files->read_file(log_path, std::size_t(64) << 20);
    if (!text) return;
    std::istringstream log(std::string(text->begin(), text->end()));
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

}  // namespace kdbgen::engine
