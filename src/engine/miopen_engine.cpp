// Runs kdbgen-miopen-replay processes against an installed libMIOpen under
// kdbgen-hip-stub and collects what MIOpen compiled (include/kdbgen/miopen_engine.hpp).
#include "kdbgen/miopen_engine.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/codeobject.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
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

constexpr std::string_view kWrapperMarker = "installed by kdbgen in place of a compiler";

// The wrapper kdbgen puts where the library expects its compiler. Shell, so
// that it runs in any root whatever its C library.
std::string compiler_wrapper(const std::string& real_compiler) {
    return fmt::format(R"(#!/bin/sh
# {} the installed libMIOpen starts.
# It logs the start (KDBGEN_COMPILE_LOG) and runs the real compiler with
# MIOpen's arguments, less "-isystem /usr/include": Debian's MIOpen passes that
# pair to its HIP compiles, which hides the C library's <math.h> from
# libstdc++'s #include_next (GCC 15+ headers) and fails every HIP kernel; the
# folder is searched anyway. HIP compiles get -fuse-cuid=none, so that the same
# key gives the same code object (else a random __hip_cuid_ symbol differs).
real="{}"
if [ -n "${{KDBGEN_COMPILE_LOG:-}}" ]; then
    printf '%s %s\n' "$0" "$*" >> "$KDBGEN_COMPILE_LOG"
fi
# Fault injection for kdbgen's tests: fail the compiles whose arguments hold this text.
case "$*" in
    *"${{KDBGEN_COMPILER_FAIL_ON:-@@none@@}}"*) echo "kdbgen: injected compiler failure" >&2; exit 1 ;;
esac
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
exec "$real" "$@"
)",
                       kWrapperMarker, real_compiler);
}

fs::path inside(const fs::path& root, const fs::path& path) {
    return root == "/" ? path : root / path.relative_path();
}

bool is_wrapper(const fs::path& file) {
    std::ifstream in(file);
    std::string head(512, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    return head.find(kWrapperMarker) != std::string::npos;
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
    if (!fs::exists(inside(root, real)))
        throw InputError(fmt::format("the MIOpen library starts {}, but {} has no {}: install clang-{} (and lld-{}, "
                                     "llvm-{}, clang-tools-{}) there",
                                     path, root.string(), real, match[3].str(), match[3].str(), match[3].str(),
                                     match[3].str()));
    return real;
}

// A folder removed when kdbgen is done with it, or by the interrupt handler
// (Ctrl-C, SIGTERM) if kdbgen is stopped first.
struct ScratchFolder {
    fs::path host;  // as kdbgen sees it
    int slot = -1;
    void adopt(fs::path path) {
        host = std::move(path);
        slot = register_temporary_folder(host);
    }
    ~ScratchFolder() {
        unregister_temporary(slot);
        if (host.empty() || std::getenv("KDBGEN_KEEP_ENGINE_RUN")) return;
        std::error_code ec;
        fs::remove_all(host, ec);
    }
};

struct RunFolder : ScratchFolder {
    fs::path root_view;  // as the replay sees it (inside the root)
    std::optional<fs::path> system_db_view;  // MIOPEN_SYSTEM_DB_PATH, when kdbs are installed
};

void copy_helpers(const EngineSetup& setup, const fs::path& to) {
    // Installed: bin/kdbgen and libexec/kdbgen/; in the build tree: side by side.
    fs::path helpers = setup.helper_dir;
    if (helpers.empty()) {
        helpers = executable_dir().parent_path() / "libexec" / "kdbgen";
        if (!fs::exists(helpers / "kdbgen-miopen-replay")) helpers = executable_dir();
    }
    const fs::path replay = helpers / "kdbgen-miopen-replay";
    const fs::path stubs = helpers / "hip-stub";
    if (!fs::exists(replay) || !fs::is_directory(stubs))
        throw InputError(fmt::format("kdbgen-miopen-replay or hip-stub/ is missing from {} (built with kdbgen; "
                                     "installed to libexec/kdbgen)",
                                     helpers.string()));
    fs::create_directories(to / "lib");
    fs::copy_file(replay, to / "kdbgen-miopen-replay", fs::copy_options::overwrite_existing);
    for (const auto& entry : fs::directory_iterator(stubs))
        if (entry.path().filename().string().find(".so") != std::string::npos)
            fs::copy_file(entry.path(), to / "lib" / entry.path().filename(), fs::copy_options::overwrite_existing);
}

// One client process (the replay or MIOpenDriver) inside the root, its
// standard output and error read as one stream line by line: MIOpen's log and
// the replay's own lines arrive in the order they were written. Returns the
// wait status.
int run_client(const EngineSetup& setup, const std::vector<std::string>& arguments,
               const std::vector<std::string>& environment, const std::function<void(std::string_view)>& on_line) {
    std::vector<char*> argv, envp;
    for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const std::string root = setup.root.string();
    int out_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        // A process group of its own, which the interrupt handler kills with
        // MIOpen's compilers; and no client outlives kdbgen.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(out_pipe[1], STDERR_FILENO);
        if (root != "/" && (chroot(root.c_str()) != 0 || chdir("/") != 0)) {
            std::printf("load-failed cannot enter %s with chroot: %s\n", root.c_str(), std::strerror(errno));
            std::fflush(stdout);
            _exit(3);
        }
        execve(argv[0], argv.data(), envp.data());
        std::printf("load-failed cannot start %s: %s\n", argv[0], std::strerror(errno));
        std::fflush(stdout);
        _exit(3);
    }
    const int child_slot = register_child(pid);
    close(out_pipe[1]);
    FILE* stream = fdopen(out_pipe[0], "r");
    char* line = nullptr;
    std::size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stream)) > 0) {
        std::string_view text(line, static_cast<std::size_t>(length));
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
        on_line(text);
    }
    std::free(line);
    std::fclose(stream);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unregister_temporary(child_slot);
    return status;
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
std::vector<std::string> client_environment(const RunFolder& run, const Target& card, const fs::path& view) {
    return {
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=" + view.string(),
        "TMPDIR=" + (view / "tmp").string(),
        "LD_LIBRARY_PATH=" + (run.root_view / "lib").string(),
        "KDBGEN_STUB_ARCH=" + card.reported_target_id(),
        fmt::format("KDBGEN_STUB_CUS={}", card.compute_units),
        "KDBGEN_COMPILE_LOG=" + (view / "compile.log").string(),
        "MIOPEN_CUSTOM_CACHE_DIR=" + (view / "cache").string(),
        "MIOPEN_USER_DB_PATH=" + (view / "user-db").string(),
        "MIOPEN_LOG_LEVEL=6",
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

enum class ReplayMode { Find, Immediate };
const char* mode_name(ReplayMode mode) { return mode == ReplayMode::Find ? "find" : "immediate"; }

// What one pass (one replay process at a time over a list of problems, in
// one mode) saw.
struct PassResult {
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::map<std::size_t, KernelLookups> lookups;
    std::map<KdbKey, Bytes> kernels;
    std::vector<std::string> bad_rows;
    std::size_t compiler_starts = 0, processes = 0;
    std::string load_failure;
};

struct PassSpec {
    ReplayMode mode = ReplayMode::Find;
    // Two processes of one mode are made to differ (the problems' order, the
    // environment's size, so the stack starts elsewhere): a key built from an
    // uninitialized value then differs between them.
    unsigned variant = 0;
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
        {
            std::ofstream out(dir / "problems.txt", std::ios::trunc);
            for (const std::size_t i : remaining) out << i << ' ' << lines[i] << '\n';
        }
        const fs::path view = run.root_view / fs::relative(dir, run.host);
        auto environment = client_environment(run, card, view);
        environment.push_back(fmt::format("KDBGEN_REPLAY_VARIANT={}", std::string(1 + spec.variant * 4093, 'v')));
        for (const char* name : {"KDBGEN_REPLAY_CRASH_ON", "KDBGEN_COMPILER_FAIL_ON"})
            if (const char* value = std::getenv(name)) environment.push_back(std::string(name) + "=" + value);
        if (run.system_db_view) environment.push_back("MIOPEN_SYSTEM_DB_PATH=" + run.system_db_view->string());
        const std::vector<std::string> arguments{(run.root_view / "kdbgen-miopen-replay").string(),
                                                 setup.library.string(), (view / "problems.txt").string(),
                                                 mode_name(spec.mode)};
        std::optional<std::size_t> current;
        Tail tail;
        const int status = run_client(setup, arguments, environment, [&](std::string_view text) {
            if (text.starts_with("load-failed ")) {
                result.load_failure = std::string(text.substr(12));
                return;
            }
            for (const std::string_view verb : {"start ", "done ", "note "}) {
                if (!text.starts_with(verb)) continue;
                std::string rest(text.substr(verb.size()));
                const auto space = rest.find(' ');
                const std::size_t index = std::strtoull(rest.c_str(), nullptr, 10);
                if (index >= lines.size()) return;
                rest = space == std::string::npos ? "" : rest.substr(space + 1);
                auto& outcome = result.outcomes[index];
                if (verb == "start ") {
                    current = index;
                } else if (verb == "note ") {
                    outcome.notes.push_back(fmt::format("{}: {}", mode_name(spec.mode), rest));
                } else {
                    current.reset();
                    outcome.ok = rest == "ok";
                    if (!outcome.ok)
                        outcome.message = fmt::format("{}: {}", mode_name(spec.mode),
                                                      rest.starts_with("fail ") ? rest.substr(5) : rest);
                }
                return;
            }
            if (current && read_miopen_log_line(text, result.lookups[*current])) return;
            tail.add(text);
        });
        ++result.processes;
        collect_user_kdb(dir / "cache", card, setup.library, result.kernels, result.bad_rows);
        {
            std::ifstream log(dir / "compile.log");
            std::string line;
            while (std::getline(log, line)) ++result.compiler_starts;
        }
        // Ended before it started any problem (the library died loading, in its constructor or in
        // miopenCreate): the library's fault, not the first problem's.
        const bool never_started = !remaining.empty() && !result.outcomes.count(remaining.front());
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
        outcome.message = fmt::format("{}: the replay ended ({}) on this problem", mode_name(spec.mode),
                                      describe_exit(status));
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

// Run folders are named kdbgen-engine-<pid>-*: one whose kdbgen is gone
// (SIGKILL, or an interrupt that raced a compiler still writing into it) is
// removed by the next run.
void remove_folders_of_dead_runs(const fs::path& base) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(base, ec)) {
        const std::string name = entry.path().filename().string();
        constexpr std::string_view prefix = "kdbgen-engine-";
        if (!name.starts_with(prefix)) continue;
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
        std::error_code ignored;
        fs::remove_all(entry.path(), ignored);
        spdlog::debug("removed {}, left by kdbgen process {} that is gone", entry.path().string(), pid);
    }
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
    for (const auto& candidate : candidates)
        if (fs::is_directory(inside(setup.root, candidate))) return candidate;
    return std::nullopt;
}

std::vector<std::string> prepare_miopen_root(const EngineSetup& setup) {
    const fs::path library = inside(setup.root, setup.library);
    std::error_code ec;
    if (!fs::is_regular_file(library, ec))
        throw InputError(located(library.string(), 0, "no MIOpen library there (--miopen-lib, inside --miopen-root)"));
    const auto compilers = compiler_paths(library);
    if (setup.root == "/") {
        for (const auto& path : compilers)
            if (!fs::exists(path))
                spdlog::warn("the MIOpen library starts {}, which this system lacks: its kernels will fail to build",
                             path);
        return compilers;
    }
    for (const auto& path : compilers) {
        const fs::path host = inside(setup.root, path);
        const bool ours = fs::exists(host) && is_wrapper(host);
        // A real binary that stood at the path itself is kept beside the wrapper.
        const bool kept_beside = fs::exists(host.string() + ".kdbgen-real");
        std::string real = kept_beside ? path + ".kdbgen-real" : real_compiler_for(setup.root, path);
        if (!ours) {
            fs::create_directories(host.parent_path());
            if (fs::is_symlink(host)) {
                fs::remove(host);
            } else if (fs::exists(host)) {
                fs::rename(host, host.string() + ".kdbgen-real");
                real = path + ".kdbgen-real";
            }
        }
        // A wrapper of another kdbgen version is replaced.
        if (ours && read_text_file(host) == compiler_wrapper(real)) continue;
        const fs::path temporary = host.string() + ".kdbgen-tmp";
        {
            std::ofstream out(temporary, std::ios::trunc);
            out << compiler_wrapper(real);
            if (!out) throw InputError(located(temporary.string(), 0, "cannot write kdbgen's compiler wrapper"));
        }
        fs::permissions(temporary, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                       fs::perms::others_read | fs::perms::others_exec);
        fs::rename(temporary, host);
        spdlog::debug("{}: kdbgen's compiler wrapper, running {}", host.string(), real);
    }
    return compilers;
}

namespace {

// The run folder inside the root (under its /var/tmp), with kdbgen's helpers
// and, when kdbs are installed, the system db folder MIOpen is pointed at.
void make_run_folder(const EngineSetup& setup, RunFolder& run, bool with_system_db) {
    const fs::path base = inside(setup.root, "/var/tmp");
    fs::create_directories(base);
    remove_folders_of_dead_runs(base);
    std::string pattern = (base / fmt::format("kdbgen-engine-{}-XXXXXX", getpid())).string();
    if (!mkdtemp(pattern.data()))
        throw InputError(located(base.string(), 0, std::string("cannot make a run folder: ") + std::strerror(errno)));
    run.adopt(pattern);
    run.root_view = fs::path("/var/tmp") / run.host.filename();
    if (setup.root == "/") run.root_view = run.host;
    copy_helpers(setup, run.host);
    if (!with_system_db) return;
    // MIOPEN_SYSTEM_DB_PATH replaces MIOpen's whole system db folder: the
    // folder given holds links to everything of the installed one (its
    // find-dbs, perf-dbs and tuning models, which decide what MIOpen
    // compiles: Debian's 3.5.1 ships them) and the kdbs to install.
    const fs::path folder = run.host / "system-db";
    fs::create_directories(folder);
    if (const auto installed = installed_system_db(setup)) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(inside(setup.root, *installed), ec))
            if (entry.path().extension() != ".kdb")
                fs::create_symlink(*installed / entry.path().filename(), folder / entry.path().filename());
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
    if (const auto seen = lookups.find(i); seen != lookups.end()) settle_outcome(outcome, seen->second);
    outcome.kind = std::string(problem_kind(entry.problem));
    outcome.key = entry.key;
    report.without_source.insert(outcome.without_source.begin(), outcome.without_source.end());
    report.outcomes.push_back(std::move(outcome));
}

void merge_outcome(ReplayOutcome& into, const ReplayOutcome& from, bool first) {
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

CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems) {
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
            report.outcomes.push_back({std::string(problem_kind(entry.problem)), entry.key, false, "not replayed: " + why, {}, {}, {}, {}});
        }
    }

    RunFolder run;
    make_run_folder(setup, run, setup.system_db.has_value());

    // Each problem runs in processes that have done nothing else with it:
    //   A  find mode, in list order           B  immediate mode, in reverse order
    //   C  find mode again, reversed, for the convolutions that missed in A
    //   D  immediate mode again, for the convolutions that missed in B
    // A convolution's keys are compared between A and C, and B and D; any
    // other problem's (one way to run it) between A and B.
    const auto is_conv = [&](std::size_t i) { return std::holds_alternative<ConvProblem>(entries[i]->problem); };
    const unsigned jobs = std::max(1u, std::min<unsigned>(setup.jobs, static_cast<unsigned>(std::max<std::size_t>(1, lines.size()))));
    std::vector<std::vector<std::size_t>> slices(jobs);
    for (std::size_t i = 0; i < lines.size(); ++i) slices[i % jobs].push_back(i);

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
            r.a = run_pass(setup, card, run, slice_dir / "a", forward, lines, {ReplayMode::Find, 0});
            if (!r.a.load_failure.empty()) return;
            r.b = run_pass(setup, card, run, slice_dir / "b", reversed, lines, {ReplayMode::Immediate, 1});
            const auto missed_in = [&](const PassResult& pass, const std::vector<std::size_t>& order) {
                std::vector<std::size_t> again;
                for (const std::size_t i : order)
                    if (is_conv(i) && pass.lookups.count(i) && !pass.lookups.at(i).missed.empty()) again.push_back(i);
                return again;
            };
            r.c = run_pass(setup, card, run, slice_dir / "c", missed_in(r.a, reversed), lines, {ReplayMode::Find, 1});
            r.d = run_pass(setup, card, run, slice_dir / "d", missed_in(r.b, forward), lines, {ReplayMode::Immediate, 0});
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
            report.compiler_starts += pass->compiler_starts;
            report.processes += pass->processes;
            for (const auto& [key, code] : pass->kernels) kernels.emplace(key, code);
            report.bad_rows.insert(report.bad_rows.end(), pass->bad_rows.begin(), pass->bad_rows.end());
            for (const auto& [index, seen] : pass->lookups) {
                lookups[index].add(seen);
                report.lookups += seen.asked.size();
                report.compiled += seen.saved.size();
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
        compare(r.a, r.b, false);
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
    CardReplay total;
    std::map<KdbKey, std::size_t> index;  // key -> position in total.records
    std::string pattern = (fs::temp_directory_path() / "kdbgen-engine-kdb-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
        throw InputError(located(fs::temp_directory_path().string(), 0,
                                 std::string("cannot make a folder (TMPDIR): ") + std::strerror(errno)));
    ScratchFolder scratch;
    scratch.adopt(pattern);
    const fs::path folder = scratch.host;
    bool settled = false;
    for (unsigned round = 0; round < std::max(1u, max_rounds); ++round) {
        EngineSetup this_round = setup;
        if (round > 0) {
            std::vector<KdbRecord> so_far = total.records;
            write_kdb(folder / card.kdb_filename(), so_far);
            this_round.system_db = folder;
        }
        CardReplay replay = replay_card(this_round, card, problems);
        if (round == 0) {
            total.card = replay.card;
            total.skipped = replay.skipped;
        }
        // A problem that failed in the first round may get through now; keep the latest word.
        total.outcomes = replay.outcomes;
        total.compiler_starts += replay.compiler_starts;
        total.processes += replay.processes;
        total.seconds += replay.seconds;
        total.lookups = replay.lookups;
        total.compiled = replay.compiled;
        total.asked = std::move(replay.asked);
        total.kdb_unreadable = replay.kdb_unreadable;
        total.bad_rows.insert(total.bad_rows.end(), replay.bad_rows.begin(), replay.bad_rows.end());
        total.without_source = replay.without_source;
        for (auto& found : replay.unstable) {
            auto known = std::find_if(total.unstable.begin(), total.unstable.end(), [&](const UnstableKey& u) {
                return u.kernel_name == found.kernel_name && u.varying_defines == found.varying_defines;
            });
            if (known == total.unstable.end()) total.unstable.push_back(std::move(found));
            else
                for (auto& example : found.examples)
                    if (std::find(known->examples.begin(), known->examples.end(), example) == known->examples.end())
                        known->examples.push_back(std::move(example));
        }
        std::size_t fresh = 0;
        total.still_compiled.clear();
        for (auto& record : replay.records) {
            if (is_unstable(total.unstable, record.key)) continue;
            if (round > 0) total.still_compiled.push_back(record.key);
            if (!index.emplace(record.key, total.records.size()).second) continue;
            total.records.push_back(std::move(record));
            ++fresh;
        }
        total.new_per_round.push_back(fresh);
        if (round > 0 && total.still_compiled.empty()) {
            settled = true;
            break;
        }
    }
    // Only what the settled round asked for goes into the kdb: a key only an
    // earlier round asked for (before the kdb held what it loads now), or one
    // found unstable in a later round, is a row no user's process asks for.
    std::erase_if(total.records, [&](const KdbRecord& record) {
        return is_unstable(total.unstable, record.key) || (settled && !total.asked.count(record.key));
    });
    return total;
}

std::optional<fs::path> installed_driver(const EngineSetup& setup) {
    // Debian ships it in libmiopen1-tests; MIOpen's own install puts it in <prefix>/bin.
    std::vector<fs::path> candidates{"/usr/libexec/rocm/libmiopen1-tests/MIOpenDriver"};
    for (fs::path dir = setup.library.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        candidates.push_back(dir / "bin" / "MIOpenDriver");
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(inside(setup.root, candidate), ec)) return candidate;
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
    make_run_folder(setup, run, true);
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
        bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0 && failed_line.empty(); }
        std::string how() const { return failed_line.empty() ? describe_exit(status) : failed_line; }
    };
    const auto run_task = [&](const Task& task, const std::string& name, bool with_kdbs) {
        TaskResult result;
        const fs::path dir = run.host / name;
        fs::create_directories(dir / "tmp");
        const fs::path view = run.root_view / name;
        auto environment = client_environment(run, card, view);
        environment.push_back("MIOPEN_SYSTEM_DB_PATH=" +
                              (run.root_view / (with_kdbs ? "system-db" : "system-db-bare")).string());
        std::vector<std::string> arguments{driver.string()};
        arguments.insert(arguments.end(), task.args.begin(), task.args.end());
        Tail tail;
        result.status = run_client(setup, arguments, environment, [&](std::string_view text) {
            if (read_miopen_log_line(text, result.lookups)) return;
            if (text.find("Invalid Base Input Argument") != std::string_view::npos) result.unsupported = true;
            if (result.failed_line.empty() && text.find("() FAILED") != std::string_view::npos)
                result.failed_line = std::string(text.substr(0, 200));
            tail.add(text);
        });
        result.tail = tail.text;
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
        for (const TaskResult* result : {&first[t], &second[t]}) {
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
        outcome.message = fmt::format("{}: `{}` failed ({}){}", task.way, command, first[t].how(),
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
        CardReplay replayed = replay_card(setup, card, for_replay);
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
