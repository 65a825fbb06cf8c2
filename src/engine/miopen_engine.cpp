// Runs kdbgen-miopen-replay processes against an installed libMIOpen under
// kdbgen-hip-stub and collects what MIOpen compiled (include/kdbgen/miopen_engine.hpp).
#include "kdbgen/miopen_engine.hpp"

#include "kdbgen/cleanup.hpp"
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

struct Shard {
    std::vector<std::size_t> problems;  // indexes into the card's replayable problems
};

struct ReplayResult {
    std::map<std::size_t, ReplayOutcome> outcomes;
    std::string load_failure;
};

// One replay process over the given lines; returns when it exits. Lines it
// reports are recorded in result; the index of a problem it did not finish
// (a crash) is returned.
std::optional<std::size_t> run_replay(const EngineSetup& setup, const RunFolder& run, const fs::path& shard_dir,
                                      const std::vector<std::size_t>& indexes, const std::vector<std::string>& lines,
                                      const std::vector<std::string>& environment, ReplayResult& result) {
    {
        std::ofstream out(shard_dir / "problems.txt", std::ios::trunc);
        for (const std::size_t i : indexes) out << i << ' ' << lines[i] << '\n';
    }
    const fs::path shard_view = run.root_view / shard_dir.filename();
    const std::string replay = (run.root_view / "kdbgen-miopen-replay").string();
    const std::string problems = (shard_view / "problems.txt").string();
    const std::string library = setup.library.string();
    std::vector<char*> argv{const_cast<char*>(replay.c_str()), const_cast<char*>(library.c_str()),
                            const_cast<char*>(problems.c_str()), nullptr};
    std::vector<char*> envp;
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const std::string root = setup.root.string();
    const std::string stderr_path = (shard_dir / "stderr.txt").string();

    int out_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        // A process group of its own, which the interrupt handler kills with
        // MIOpen's compilers; and no replay outlives kdbgen.
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(out_pipe[1], STDOUT_FILENO);
        if (err >= 0) dup2(err, STDERR_FILENO);
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
    std::optional<std::size_t> current;
    char* line = nullptr;
    std::size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stream)) > 0) {
        std::string text(line, static_cast<std::size_t>(length));
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        std::istringstream words(text);
        std::string verb;
        std::size_t index = 0;
        words >> verb;
        if (verb == "load-failed") {
            result.load_failure = text.substr(12);
            continue;
        }
        if (!(words >> index) || index >= lines.size()) continue;
        std::string rest;
        std::getline(words, rest);
        if (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
        auto& outcome = result.outcomes[index];
        if (verb == "start") current = index;
        else if (verb == "note") outcome.notes.push_back(rest);
        else if (verb == "done") {
            current.reset();
            outcome.ok = rest == "ok";
            if (!outcome.ok) outcome.message = rest.starts_with("fail ") ? rest.substr(5) : rest;
        }
    }
    std::free(line);
    std::fclose(stream);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unregister_temporary(child_slot);
    if (current) {
        auto& outcome = result.outcomes[*current];
        outcome.ok = false;
        outcome.message = WIFSIGNALED(status) ? fmt::format("the replay crashed (signal {}: {}) on this problem",
                                                            WTERMSIG(status), strsignal(WTERMSIG(status)))
                                              : fmt::format("the replay exited ({}) during this problem",
                                                            WEXITSTATUS(status));
    }
    return current;
}

// MIOpen's error lines in a replay's standard error, by the problem it was on
// (the replay marks each start); at most a dozen a problem.
std::map<std::size_t, std::vector<std::string>> miopen_errors_by_problem(const fs::path& shard_dir) {
    std::map<std::size_t, std::vector<std::string>> errors;
    std::ifstream in(shard_dir / "stderr.txt");
    std::string line;
    std::optional<std::size_t> current;
    constexpr std::string_view marker = "@@kdbgen-replay start ";
    while (std::getline(in, line)) {
        if (line.starts_with(marker)) {
            current = std::strtoull(line.c_str() + marker.size(), nullptr, 10);
            continue;
        }
        if (!current) continue;
        const bool error = line.find("Error") != std::string::npos || line.find("error:") != std::string::npos;
        auto& lines = errors[*current];
        if (error && lines.size() < 12) lines.push_back(line.size() > 2000 ? line.substr(0, 2000) + " ..." : line);
    }
    return errors;
}

std::string stderr_tail(const fs::path& shard_dir) {
    std::ifstream in(shard_dir / "stderr.txt");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (all.size() > 2000) all = all.substr(all.size() - 2000);
    return all;
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
            report.outcomes.push_back({std::string(problem_kind(entry.problem)), entry.key, false, "not replayed: " + why, {}, {}});
        }
    }

    RunFolder run;
    {
        const fs::path base = inside(setup.root, "/var/tmp");
        fs::create_directories(base);
        remove_folders_of_dead_runs(base);
        std::string pattern = (base / fmt::format("kdbgen-engine-{}-XXXXXX", getpid())).string();
        if (!mkdtemp(pattern.data()))
            throw InputError(located(base.string(), 0, std::string("cannot make a run folder: ") + std::strerror(errno)));
        run.adopt(pattern);
        run.root_view = fs::path("/var/tmp") / run.host.filename();
        if (setup.root == "/") run.root_view = run.host;
    }
    copy_helpers(setup, run.host);
    std::optional<fs::path> system_db_view;
    if (setup.system_db) {
        // MIOPEN_SYSTEM_DB_PATH replaces MIOpen's whole system db folder: the
        // folder given holds links to everything of the installed one (its
        // find-dbs, perf-dbs and tuning models, which decide what MIOpen
        // compiles: Debian's 3.5.1 ships them) and the kdbs to install.
        const fs::path folder = run.host / "system-db";
        fs::create_directories(folder);
        if (const auto installed = installed_system_db(setup)) {
            std::error_code ec;
            for (const auto& entry : fs::directory_iterator(inside(setup.root, *installed), ec))
                fs::create_symlink(*installed / entry.path().filename(), folder / entry.path().filename());
        }
        for (const auto& entry : fs::directory_iterator(*setup.system_db))
            if (entry.path().extension() == ".kdb") {
                fs::remove(folder / entry.path().filename());
                fs::copy_file(entry.path(), folder / entry.path().filename());
            }
        system_db_view = run.root_view / "system-db";
    }

    const unsigned jobs = std::max(1u, std::min<unsigned>(setup.jobs, static_cast<unsigned>(std::max<std::size_t>(1, lines.size()))));
    std::vector<std::vector<std::size_t>> shards(jobs);
    for (std::size_t i = 0; i < lines.size(); ++i) shards[i % jobs].push_back(i);

    ReplayResult merged;
    std::mutex merged_lock;
    std::vector<std::thread> threads;
    for (unsigned s = 0; s < jobs; ++s) {
        threads.emplace_back([&, s] {
            const fs::path shard_dir = run.host / fmt::format("shard-{}", s);
            fs::create_directories(shard_dir);
            const fs::path view = run.root_view / shard_dir.filename();
            std::vector<std::string> environment{
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "HOME=" + view.string(),
                "TMPDIR=" + (view / "tmp").string(),
                "LD_LIBRARY_PATH=" + (run.root_view / "lib").string(),
                "KDBGEN_STUB_ARCH=" + card.reported_target_id(),
                fmt::format("KDBGEN_STUB_CUS={}", card.compute_units),
                "KDBGEN_COMPILE_LOG=" + (view / "compile.log").string(),
                "MIOPEN_CUSTOM_CACHE_DIR=" + (view / "cache").string(),
                "MIOPEN_USER_DB_PATH=" + (view / "user-db").string(),
                "MIOPEN_LOG_LEVEL=" + std::string(std::getenv("KDBGEN_MIOPEN_LOG_LEVEL") ? std::getenv("KDBGEN_MIOPEN_LOG_LEVEL") : "4"),
            };
            // Fault injection for kdbgen's tests: a crash in the replay, a failing compiler.
            for (const char* name : {"KDBGEN_REPLAY_CRASH_ON", "KDBGEN_COMPILER_FAIL_ON"})
                if (const char* value = std::getenv(name)) environment.push_back(std::string(name) + "=" + value);
            fs::create_directories(shard_dir / "tmp");
            if (system_db_view) environment.push_back("MIOPEN_SYSTEM_DB_PATH=" + system_db_view->string());
            ReplayResult result;
            std::vector<std::size_t> remaining = shards[s];
            while (!remaining.empty()) {
                if (setup.interrupted && setup.interrupted->load()) break;
                const auto crashed = run_replay(setup, run, shard_dir, remaining, lines, environment, result);
                if (!result.load_failure.empty()) break;
                if (!crashed) break;
                // Go on after the problem that crashed it, in a new process.
                const auto at = std::find(remaining.begin(), remaining.end(), *crashed);
                remaining.erase(remaining.begin(), at == remaining.end() ? remaining.end() : at + 1);
            }
            if (!result.load_failure.empty()) result.load_failure += "\n" + stderr_tail(shard_dir);
            for (auto& [index, lines] : miopen_errors_by_problem(shard_dir))
                if (result.outcomes.count(index)) result.outcomes[index].miopen_errors = std::move(lines);
            std::lock_guard guard(merged_lock);
            for (auto& [index, outcome] : result.outcomes) merged.outcomes[index] = std::move(outcome);
            if (merged.load_failure.empty()) merged.load_failure = result.load_failure;
        });
    }
    for (auto& thread : threads) thread.join();
    if (!merged.load_failure.empty())
        throw InputError(fmt::format("{}: MIOpen cannot be loaded under kdbgen-hip-stub{}: {}", setup.library.string(),
                                     setup.root == "/" ? "" : " in " + setup.root.string(), merged.load_failure));

    for (std::size_t i = 0; i < lines.size(); ++i) {
        ReplayOutcome outcome = merged.outcomes.count(i) ? merged.outcomes[i] : ReplayOutcome{};
        if (!merged.outcomes.count(i)) outcome.message = "not replayed (interrupted)";
        outcome.kind = std::string(problem_kind(entries[i]->problem));
        outcome.key = entries[i]->key;
        report.outcomes.push_back(std::move(outcome));
    }

    // Every kernel MIOpen compiled is in a shard's user kdb; a key compiled in
    // two shards is kept once (the first shard's).
    std::map<KdbKey, Bytes> kernels;
    for (unsigned s = 0; s < jobs; ++s) {
        const fs::path shard_dir = run.host / fmt::format("shard-{}", s);
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(shard_dir / "cache", ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->path().extension() != ".ukdb") continue;
            if (it->path().stem() != card.db_basename())
                spdlog::warn("{}: MIOpen named its user kdb {}, not {}.ukdb: the stub's device is not the card kdbgen "
                             "meant", card.spec(), it->path().filename().string(), card.db_basename());
            for (const auto& row : read_kdb_rows(it->path())) kernels.emplace(row.key, decode_row(row));
        }
        std::ifstream log(shard_dir / "compile.log");
        std::string line;
        while (std::getline(log, line)) ++report.compiler_starts;
    }
    for (auto& [key, code] : kernels) report.records.push_back({key, std::move(code)});
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
            total.outcomes = replay.outcomes;
            total.skipped = replay.skipped;
        } else {
            // A problem that failed in the first round may get through now; keep the latest word.
            total.outcomes = replay.outcomes;
        }
        total.compiler_starts += replay.compiler_starts;
        total.seconds += replay.seconds;
        std::size_t fresh = 0;
        total.still_compiled.clear();
        for (auto& record : replay.records) {
            if (round > 0) total.still_compiled.push_back(record.key);
            if (!index.emplace(record.key, total.records.size()).second) continue;
            total.records.push_back(std::move(record));
            ++fresh;
        }
        total.new_per_round.push_back(fresh);
        if (round > 0 && total.still_compiled.empty()) break;
    }
    return total;
}

}  // namespace kdbgen
