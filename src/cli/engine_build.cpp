// build --engine miopen (include/kdbgen/miopen_engine.hpp): per card, replay
// the problems against the installed MIOpen, then write the kernels it
// compiled into one kdb per target, as the native pipeline writes them.
#include "engine_build.hpp"

#include "common.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/shard.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <map>
#include <sys/resource.h>
#include <thread>

namespace kdbgen::cli {

void EngineFlags::add_to(CLI::App& app) {
    app.add_option("--engine", engine,
                   "native: kdbgen plans MIOpen 3.2/3.3's solvers from its source tree and compiles (default); "
                   "miopen: an installed libMIOpen (any version) runs under kdbgen-hip-stub with no GPU and compiles "
                   "its own kernels, which kdbgen collects")
        ->check(CLI::IsMember({"native", "miopen"}));
    app.add_option("--miopen-lib", library,
                   "with --engine miopen: libMIOpen.so.1, as a path inside --miopen-root (default "
                   "/usr/lib/x86_64-linux-gnu/libMIOpen.so.1)");
    app.add_option("--miopen-root", root,
                   "with --engine miopen: the system the library belongs to, e.g. a debootstrapped Debian "
                   "(tools/miopen-roots), or / (default: this system). kdbgen never writes into it: each MIOpen "
                   "process runs in private namespaces (kdbgen-sandbox; a user namespace when not run as root) "
                   "that see the root read-only, entered with pivot_root, without any capability (root too), "
                   "with kdbgen's compiler wrapper in place of the compilers the library starts");
    miopen_db_option = app.add_option("--miopen-db", miopen_db,
                   "with --engine miopen: MIOpen's system db folder (find-dbs, perf-dbs, tuning models: what "
                   "decides which kernels MIOpen builds) as this system names it, e.g. the package's staging tree "
                   "when MIOpen is not installed yet (default: the one installed with the library, "
                   "<prefix>/share/miopen/db); a kdb in it is never installed, so the result does not depend on one");
    auto* check_kdbs_option = app.add_option("--check-kdbs", check_kdbs,
                   "with --engine miopen: install this folder's kdbs as MIOpen's system kdbs and run every problem "
                   "through MIOpen's own MIOpenDriver (Find, and -S 0 for convolutions; one process each, an empty "
                   "user db each; the replay where the installation has no driver), and report what MIOpen still "
                   "compiles; writes no kdb; exit 1 when it compiles anything, a problem fails or MIOpen cannot read "
                   "a kdb");
    app.add_option("--check-client", check_client,
                   "with --check-kdbs: auto (MIOpenDriver where installed, else the replay), driver (MIOpen's own "
                   "MIOpenDriver, one process per problem and way, as a user runs it) or replay (kdbgen's replay, "
                   "many problems a process on one MIOpen handle, as a framework runs them: the check of a "
                   "whole corpus)")
        ->check(CLI::IsMember({"auto", "driver", "replay"}))
        ->needs(check_kdbs_option);
    app.add_option("--engine-rounds", rounds,
                   "with --engine miopen: replay each card until MIOpen, with the kernels so far installed as its "
                   "system kdb, compiles nothing, at most this many times (default 4; what it still compiles then "
                   "is reported and the exit code is 1)")
        ->check(CLI::Range(1u, 16u));
    app.add_option("--first-problems", first_problems,
                   "with --engine miopen: only the first N problems of the set (the corpus in its order: its "
                   "find-dbs by name, then the zoo), before --shard: a trial of a whole-corpus build, or a slice to "
                   "check sharding on (default: all)")
        ->check(CLI::Range(std::uint64_t{1}, kMaxFirstProblems));
    app.add_option("--problem-timeout", problem_timeout,
                   fmt::format("with --engine miopen: the watchdog stops a MIOpen process that spends more than this "
                               "many seconds on one problem (loading the library counts towards its first), with "
                               "every process it started; the problem is reported as timed out and the build goes "
                               "on (default {}; 0: no limit)",
                               kDefaultProblemTimeout))
        ->check(CLI::Range(0u, kMaxTimeout));
    app.add_option("--compile-timeout", compile_timeout,
                   fmt::format("with --engine miopen: stop one compiler process MIOpen started after this many "
                               "seconds; its problem is reported as timed out (default {}; 0: no limit; MIOpen "
                               "3.5 compiles in-process, where --problem-timeout applies)",
                               kDefaultCompileTimeout))
        ->check(CLI::Range(0u, kMaxTimeout));
    app.add_option("--engine-helpers", helper_dir,
                   "folder with kdbgen-miopen-replay, kdbgen-sandbox, kdbgen-compiler-wrapper and hip-stub/ (default: "
                   "libexec/kdbgen, or "
                   "beside kdbgen)");
}

namespace {

nlohmann::json keys_json(const auto& keys) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& key : keys) out.push_back({{"kernel_name", key.kernel_name}, {"kernel_args", key.kernel_args}});
    return out;
}

// The problems that failed; and those that went through but on the way MIOpen
// reported errors (a solution whose kernel failed to build, a kernel source it lacks).
std::pair<nlohmann::json, nlohmann::json> outcomes_json(const CardReplay& replay) {
    nlohmann::json failures = nlohmann::json::array(), with_errors = nlohmann::json::array();
    for (const auto& outcome : replay.outcomes) {
        if (outcome.ok) {
            if (!outcome.miopen_errors.empty() || !outcome.notes.empty())
                with_errors.push_back({{"kind", outcome.kind}, {"key", outcome.key}, {"notes", outcome.notes},
                                       {"miopen_errors", outcome.miopen_errors}});
            continue;
        }
        failures.push_back({{"kind", outcome.kind}, {"key", outcome.key}, {"message", outcome.message},
                            {"miopen_own", outcome.miopen_own},
                            {"notes", outcome.notes}, {"miopen_errors", outcome.miopen_errors},
                            {"failed_compiles", keys_json(outcome.failed_compiles)}, {"timed_out", outcome.timed_out},
                            {"seconds", outcome.seconds}});
    }
    return {failures, with_errors};
}

nlohmann::json round_json(const CardReplay::Round& round) {
    return {{"problems", round.problems},
            {"processes", round.processes},
            {"compiler_starts", round.compiler_starts},
            {"seconds", round.seconds},
            {"compile_seconds", round.compile_seconds},
            {"logged_compile_seconds", round.logged_compile_seconds}};
}

// Per round: its problems, and the kernels MIOpen compiled there that were new (kernels_compiled).
nlohmann::json rounds_json(const CardReplay& replay) {
    nlohmann::json rounds = nlohmann::json::array();
    for (std::size_t r = 0; r < replay.rounds.size(); ++r) {
        nlohmann::json round = round_json(replay.rounds[r]);
        round["round"] = r + 1;
        round["kernels_compiled"] = r < replay.new_per_round.size() ? replay.new_per_round[r] : 0;
        rounds.push_back(std::move(round));
    }
    return rounds;
}

// EngineCounts under its own names, as the progress and the text lines name them.
nlohmann::json counts_json(const EngineCounts& counts) {
    return {{"problems", counts.problems},
            {"problems_settled", counts.problems_settled},
            {"problems_from_cache", counts.problems_from_cache},
            {"problems_confirmed", counts.problems_confirmed},
            {"problems_failed_by_miopen", counts.problems_failed_by_miopen},
            {"problems_failed_under_kdbgen", counts.problems_failed_under_kdbgen},
            {"problems_not_replayed", counts.problems_not_replayed},
            {"kernels_asked", counts.kernels_asked},
            {"kernels_compiled", counts.kernels_compiled},
            {"kernels_from_cache", counts.kernels_from_cache},
            {"kernels_written", counts.kernels_written}};
}

nlohmann::json card_json(const CardReplay& replay) {
    const auto [failures, with_errors] = outcomes_json(replay);
    double slowest = 0;
    std::string slowest_problem;
    for (const auto& outcome : replay.outcomes)
        if (outcome.seconds > slowest) {
            slowest = outcome.seconds;
            slowest_problem = outcome.kind + " " + outcome.key;
        }
    std::map<std::string, std::size_t> by_file;
    for (const auto& record : replay.records) ++by_file[record.key.kernel_name];
    nlohmann::json unstable = nlohmann::json::array();
    for (const auto& key : replay.unstable)
        unstable.push_back({{"kernel_name", key.kernel_name}, {"varying_defines", key.varying_defines},
                            {"examples", key.examples}, {"problem", key.problem}});
    nlohmann::json card = counts_json(replay.counts);
    card.update({{"card", replay.card.spec()},
                 {"client", replay.client},
                 {"db_basename", replay.card.db_basename()},
                 {"lookups", replay.lookups},
                 {"processes", replay.processes},
                 {"slowest_problem", {{"problem", slowest_problem}, {"seconds", slowest}}},
                 {"slowest_compile_seconds", replay.slowest_compile_seconds},
                 {"compile_seconds", replay.compile_seconds},
                 {"logged_compile_seconds", replay.logged_compile_seconds},
                 {"unstable_keys", unstable},
                 {"kernels_without_source", keys_json(replay.without_source)},
                 {"kdb_unreadable", replay.kdb_unreadable},
                 {"bad_rows", replay.bad_rows},
                 {"kernels_by_file", by_file},
                 {"compiler_starts", replay.compiler_starts},
                 {"rounds", rounds_json(replay)},
                 {"confirmation", replay.confirmation ? round_json(*replay.confirmation) : nlohmann::json(nullptr)},
                 {"problems_confirmed_unreplayed", replay.confirmed_unreplayed},
                 {"kernels_installed_before", replay.kernels_installed},
                 {"still_compiled", keys_json(replay.still_compiled)},
                 {"seconds", replay.seconds},
                 {"failures", failures},
                 {"replayed_with_miopen_errors", with_errors}});
    return card;
}

}  // namespace

int run_engine_plan(const EngineFlags& flags, const std::vector<Target>& targets, const ProblemSet& problems,
                    bool json) {
    if (problems.entries().empty())
        throw InputError("--engine miopen needs problems: give --network, --driver-log, --find-db or --onnx");
    nlohmann::json lines = nlohmann::json::array();
    std::size_t replayable = 0;
    for (const auto& entry : problems.entries()) {
        std::string why;
        const auto line = replay_line(entry.problem, &why);
        replayable += line.has_value();
        lines.push_back({{"kind", problem_kind(entry.problem)}, {"key", entry.key}, {"origins", entry.origins},
                         {"replay", line ? nlohmann::json(*line) : nlohmann::json(nullptr)},
                         {"not_replayed", line ? "" : why}});
    }
    nlohmann::json report = nlohmann::json::array();
    for (const auto& target : targets) {
        nlohmann::json cards = nlohmann::json::array();
        for (const auto& card : cards_of(target))
            cards.push_back({{"card", card.spec()}, {"stub_arch", card.reported_target_id()},
                             {"stub_cus", card.compute_units}, {"db_basename", card.db_basename()}});
        report.push_back({{"target", target.spec()}, {"kdb", target.kdb_filename()}, {"cards", cards}});
    }
    if (json) {
        print_json({{"engine", "miopen"}, {"library", flags.library}, {"root", flags.root}, {"targets", report},
                    {"problems", lines}, {"replayable", replayable}});
        return kExitOk;
    }
    for (const auto& target : report) {
        fmt::print("{} ({}): replayed on", target["kdb"].get<std::string>(), target["target"].get<std::string>());
        for (const auto& card : target["cards"])
            fmt::print(" {} (stub {} with {} CUs)", card["card"].get<std::string>(),
                       card["stub_arch"].get<std::string>(), card["stub_cus"].get<unsigned>());
        fmt::print("\n");
    }
    for (const auto& line : lines)
        if (line["replay"].is_null())
            fmt::print("not replayed: {} {}: {}\n", line["kind"].get<std::string>(), line["key"].get<std::string>(),
                       line["not_replayed"].get<std::string>());
    fmt::print("{} of {} problems replayed through {} per card\n", replayable, lines.size(), flags.library);
    return kExitOk;
}

EngineRequest EngineFlags::request() const {
    if (miopen_db_option && miopen_db_option->count() && miopen_db.empty())
        throw InputError("--miopen-db: an empty path; give MIOpen's system db folder (find-dbs, perf-dbs, tuning models)");
    EngineRequest request;
    request.root = root;
    request.library = library;
    request.helper_dir = helper_dir;
    if (!miopen_db.empty()) request.miopen_db = miopen_db;
    if (!check_kdbs.empty()) request.check_kdbs = check_kdbs;
    request.rounds = rounds;
    request.first_problems = first_problems;
    request.check_client = check_client == "driver"   ? EngineRequest::CheckClient::Driver
                           : check_client == "replay" ? EngineRequest::CheckClient::Replay
                                                      : EngineRequest::CheckClient::Auto;
    request.problem_timeout = problem_timeout;
    request.compile_timeout = compile_timeout;
    return request;
}

namespace {

// A card's replay in words, on standard error, as it ends.
void print_card(const CardReplay& replay, bool quiet) {
    const std::string card = replay.card.spec();
    for (const auto& key : replay.still_compiled)
        fmt::print(stderr, "kdbgen: {}: MIOpen compiled {} with the kdb installed:\n  {}\n", card, key.kernel_name,
                   key.kernel_args);
    for (const auto& key : replay.unstable)
        fmt::print(stderr, "kdbgen: {}: {} is built from values that change from process to process ({}; e.g. {}): no "
                           "kdb can serve it, MIOpen compiles it in every process\n",
                   card, key.kernel_name, fmt::join(key.varying_defines, ", "), key.problem);
    for (const auto& line : replay.kdb_unreadable)
        fmt::print(stderr, "kdbgen: {}: MIOpen could not read an installed kdb: {}\n", card, line);
    for (const auto& line : replay.bad_rows) fmt::print(stderr, "kdbgen: {}: {}\n", card, line);
    if (!replay.without_source.empty() && !quiet)
        fmt::print(stderr, "kdbgen: {}: MIOpen asked for {} kernels it has no source for (e.g. {}): it cannot build "
                           "them; a kdb holding them would serve them\n",
                   card, replay.without_source.size(), replay.without_source.begin()->kernel_name);
    for (const auto& outcome : replay.outcomes) {
        if (outcome.ok) continue;
        if (!outcome.miopen_own.empty()) {
            // Not the build's fault: a user's process fails so without kdbgen too.
            if (!quiet)
                fmt::print(stderr, "kdbgen: {}: {} {}: MIOpen's own failure (the same with no kdb installed): {}\n",
                           card, outcome.kind, outcome.key, outcome.miopen_own);
            continue;
        }
        fmt::print(stderr, "kdbgen: {}: {} {}: {}\n", card, outcome.kind, outcome.key, outcome.message);
        for (const auto& key : outcome.failed_compiles)
            fmt::print(stderr, "  not built: {} {}\n", key.kernel_name, key.kernel_args);
        if (!quiet)
            for (const auto& line : outcome.miopen_errors) fmt::print(stderr, "  {}\n", line);
    }
    if (quiet) return;
    fmt::print(stderr, "kdbgen: {}: {}; {} kernel lookups, {} processes, {} compiler starts, {} unstable keys, {:.1f}s\n",
               card, replay.counts.describe(), replay.lookups, replay.processes, replay.compiler_starts,
               replay.unstable.size(), replay.seconds);
}

}  // namespace

// Where the CPU went: kdbgen's own process, and every process it waited for
// (the sandboxes, MIOpen's replays and the compilers they started).
nlohmann::json cpu_json() {
    const auto seconds = [](int who) {
        rusage usage{};
        getrusage(who, &usage);
        return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    };
    return {{"kdbgen_seconds", seconds(RUSAGE_SELF)}, {"children_seconds", seconds(RUSAGE_CHILDREN)}};
}

int run_engine_build(BuildRequest request, bool json, bool quiet) {
    const bool checking = request.miopen.check_kdbs.has_value();
    if (!json) request.on_engine_card = [&](const CardReplay& replay) { print_card(replay, quiet); };
    const BuildReport built = build(request);
    const EngineReport& engine = *built.engine;
    nlohmann::json targets = nlohmann::json::array();
    for (std::size_t t = 0; t < engine.targets.size(); ++t) {
        nlohmann::json cards = nlohmann::json::array();
        for (const auto& card : engine.targets[t].cards) cards.push_back(card_json(card));
        nlohmann::json target{{"target", target_json(engine.targets[t].target)},
                              {"kdb", engine.targets[t].target.kdb_filename()},
                              {"cards", cards}};
        if (t < built.kdbs.size()) {
            target["records"] = built.kdbs[t].stats.records;
            target["file_bytes"] = built.kdbs[t].stats.file_bytes;
            if (!json)
                fmt::print("{}: {} kernels, {}\n", built.kdbs[t].kdb.string(), built.kdbs[t].stats.records,
                           human_bytes(built.kdbs[t].stats.file_bytes));
        }
        targets.push_back(std::move(target));
    }
    const int exit_code = engine.faults() ? kExitSomeFailed : kExitOk;
    if (checking && !json)
        for (const auto& fault : engine.kdb_faults) fmt::print(stderr, "kdbgen: {}\n", fault);
    nlohmann::json report = counts_json(engine.counts);  // problem-cards: every card's problems
    report.update({{"problems_given", engine.problems}, {"targets", targets}, {"still_compiled", engine.still_compiled},
                   {"unstable_keys", engine.unstable_keys}, {"kdb_unreadable", engine.kdb_unreadable},
                   {"bad_rows", engine.bad_rows}, {"seconds", built.seconds}, {"cpu", cpu_json()}});
    if (checking) {
        report.update({{"check", request.miopen.check_kdbs->string()}, {"client", engine.client},
                       {"kdb_faults", engine.kdb_faults}});
        if (json)
            print_json(report);
        else
            fmt::print("{}; with the kdbs of {} installed ({}): {} kernels compiled, {} keys change from process "
                       "to process{}{}\n",
                       engine.counts.describe(), request.miopen.check_kdbs->string(),
                       engine.client == "MIOpenDriver" ? "MIOpenDriver" : "kdbgen's replay", engine.still_compiled,
                       engine.unstable_keys,
                       engine.kdb_unreadable ? fmt::format(", MIOpen could not read a kdb {} times", engine.kdb_unreadable)
                                             : "",
                       engine.kdb_faults.empty() ? ""
                                                 : fmt::format(", {} faults in the kdbs as `kdbgen verify` checks them",
                                                               engine.kdb_faults.size()));
        return exit_code;
    }
    report.update({{"engine", "miopen"}, {"library", request.miopen.library.string()},
                   {"root", request.miopen.root.string()}, {"problem_source", engine.problem_source},
                   {"problems_all", engine.problems_all}, {"shard", request.shard},
                   {"cache_identity", engine.identity}});
    if (json)
        print_json(report);
    else
        fmt::print("{} (problem-cards, of {} problems in the shard), in {:.1f}s\n", engine.counts.describe(),
                   engine.problems, built.seconds);
    return exit_code;
}

}  // namespace kdbgen::cli
