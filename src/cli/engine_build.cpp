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
                   "that see the root read-only, with kdbgen's compiler wrapper in place of the compilers the "
                   "library starts");
    app.add_option("--miopen-db", miopen_db,
                   "with --engine miopen: MIOpen's system db folder (find-dbs, perf-dbs, tuning models: what "
                   "decides which kernels MIOpen builds) as this system names it, e.g. the package's staging tree "
                   "when MIOpen is not installed yet (default: the one installed with the library, "
                   "<prefix>/share/miopen/db); a kdb in it is never installed, so the result does not depend on one");
    app.add_option("--check-kdbs", check_kdbs,
                   "with --engine miopen: install this folder's kdbs as MIOpen's system kdbs and run every problem "
                   "through MIOpen's own MIOpenDriver (Find, and -S 0 for convolutions; one process each, an empty "
                   "user db each; the replay where the installation has no driver), and report what MIOpen still "
                   "compiles; writes no kdb; exit 1 when it compiles anything, a problem fails or MIOpen cannot read "
                   "a kdb");
    app.add_option("--engine-rounds", rounds,
                   "with --engine miopen: replay each card until MIOpen, with the kernels so far installed as its "
                   "system kdb, compiles nothing, at most this many times (default 4; what it still compiles then "
                   "is reported and the exit code is 1)")
        ->check(CLI::Range(1u, 16u));
    app.add_option("--problem-timeout", problem_timeout,
                   fmt::format("with --engine miopen: the watchdog stops a MIOpen process that spends more than this "
                               "many seconds on one problem (loading the library counts towards its first), with "
                               "every process it started; the problem is reported as timed out and the build goes "
                               "on (default {}; 0: no limit)",
                               kDefaultProblemTimeout));
    app.add_option("--compile-timeout", compile_timeout,
                   fmt::format("with --engine miopen: stop one compiler process MIOpen started after this many "
                               "seconds; its problem is reported as timed out (default {}; 0: no limit; MIOpen "
                               "3.5 compiles in-process, where --problem-timeout applies)",
                               kDefaultCompileTimeout));
    app.add_option("--engine-helpers", helper_dir,
                   "folder with kdbgen-miopen-replay, kdbgen-sandbox and hip-stub/ (default: libexec/kdbgen, or "
                   "beside kdbgen)");
}

namespace {

// The cards a target stands for: itself, or for an arch-wide target every CU
// count configs/targets/products.toml lists for its processor.
std::vector<Target> cards_of(const Target& target) {
    if (!target.arch_wide()) return {target};
    static const auto products = read_products((data_path("configs") / "targets" / "products.toml").string());
    std::vector<Target> cards;
    for (const unsigned cus : product_compute_units(products, target.name())) {
        Target card = target;
        card.compute_units = cus;
        cards.push_back(card);
    }
    if (cards.empty())
        throw InputError(fmt::format("{}: configs/targets/products.toml lists no card of this processor; give "
                                     "cards as {}_<CUs>",
                                     target.spec(), target.spec()));
    return cards;
}

nlohmann::json card_json(const CardReplay& replay) {
    nlohmann::json failures = nlohmann::json::array();
    std::size_t ok = 0;
    for (const auto& outcome : replay.outcomes) {
        if (outcome.ok) {
            ++ok;
            continue;
        }
        nlohmann::json failed_compiles = nlohmann::json::array();
        for (const auto& key : outcome.failed_compiles)
            failed_compiles.push_back({{"kernel_name", key.kernel_name}, {"kernel_args", key.kernel_args}});
        failures.push_back({{"kind", outcome.kind}, {"key", outcome.key}, {"message", outcome.message},
                            {"notes", outcome.notes}, {"miopen_errors", outcome.miopen_errors},
                            {"failed_compiles", failed_compiles}, {"timed_out", outcome.timed_out},
                            {"seconds", outcome.seconds}});
    }
    double slowest = 0;
    std::string slowest_problem;
    for (const auto& outcome : replay.outcomes)
        if (outcome.seconds > slowest) {
            slowest = outcome.seconds;
            slowest_problem = outcome.kind + " " + outcome.key;
        }
    std::map<std::string, std::size_t> by_file;
    for (const auto& record : replay.records) ++by_file[record.key.kernel_name];
    // Problems that went through but on the way MIOpen reported errors (a
    // solution whose kernel failed to build, a kernel source it lacks).
    nlohmann::json with_errors = nlohmann::json::array();
    for (const auto& outcome : replay.outcomes)
        if (outcome.ok && (!outcome.miopen_errors.empty() || !outcome.notes.empty()))
            with_errors.push_back({{"kind", outcome.kind}, {"key", outcome.key}, {"notes", outcome.notes},
                                   {"miopen_errors", outcome.miopen_errors}});
    nlohmann::json without_source = nlohmann::json::array();
    for (const auto& key : replay.without_source)
        without_source.push_back({{"kernel_name", key.kernel_name}, {"kernel_args", key.kernel_args}});
    nlohmann::json unstable = nlohmann::json::array();
    for (const auto& key : replay.unstable)
        unstable.push_back({{"kernel_name", key.kernel_name}, {"varying_defines", key.varying_defines},
                            {"examples", key.examples}, {"problem", key.problem}});
    return {{"card", replay.card.spec()},
            {"client", replay.client},
            {"db_basename", replay.card.db_basename()},
            {"lookups", replay.lookups},
            {"compiled_in_last_round", replay.compiled},
            {"processes", replay.processes},
            {"slowest_problem", {{"problem", slowest_problem}, {"seconds", slowest}}},
            {"slowest_compile_seconds", replay.slowest_compile_seconds},
            {"unstable_keys", unstable},
            {"kernels_without_source", without_source},
            {"kdb_unreadable", replay.kdb_unreadable},
            {"bad_rows", replay.bad_rows},
            {"problems", replay.outcomes.size()},
            {"replayed_ok", ok},
            {"skipped", replay.skipped},
            {"kernels_compiled_by_miopen", replay.records.size()},
            {"kernels_by_file", by_file},
            {"compiler_starts", replay.compiler_starts},
            {"new_kernels_per_round", replay.new_per_round},
            {"still_compiled", [&] {
                 nlohmann::json keys = nlohmann::json::array();
                 for (const auto& key : replay.still_compiled)
                     keys.push_back({{"kernel_name", key.kernel_name}, {"kernel_args", key.kernel_args}});
                 return keys;
             }()},
            {"seconds", replay.seconds},
            {"failures", failures},
            {"replayed_with_miopen_errors", with_errors}};
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

int run_engine_build(const EngineFlags& flags, const std::vector<Target>& targets, const ProblemSet& all_problems,
                     const EngineBuildOutput& output) {
    // A shard is a slice of the problems; what MIOpen compiles for a problem
    // does not depend on the others, so merged shards give every key.
    ProblemSet sharded;
    if (!output.shard.empty()) {
        const ShardSpec spec = parse_shard(output.shard);
        const auto& entries = all_problems.entries();
        for (std::size_t i = spec.index; i < entries.size(); i += spec.count)
            for (const auto& origin : entries[i].origins) sharded.add(entries[i].problem, origin);
    }
    const ProblemSet& problems = output.shard.empty() ? all_problems : sharded;
    const bool checking = !flags.check_kdbs.empty();
    if (!checking && output.output.empty()) throw InputError("no output folder: give -o DIR");
    if (problems.entries().empty())
        throw InputError("--engine miopen needs problems: give --network, --driver-log, --find-db or --onnx");
    EngineSetup setup;
    setup.root = flags.root;
    setup.library = flags.library;
    setup.helper_dir = flags.helper_dir;
    setup.problem_timeout = flags.problem_timeout;
    setup.compile_timeout = flags.compile_timeout;
    setup.jobs = output.jobs ? output.jobs : std::max(1u, std::thread::hardware_concurrency());
    if (checking) {
        if (!fs::is_directory(flags.check_kdbs))
            throw InputError(located(flags.check_kdbs, 0, "--check-kdbs: not a folder"));
        setup.system_db = fs::path(flags.check_kdbs);
    }
    if (!flags.miopen_db.empty()) {
        if (!fs::is_directory(flags.miopen_db))
            throw InputError(located(flags.miopen_db, 0, "--miopen-db: not a folder"));
        setup.miopen_db = fs::absolute(flags.miopen_db);
    }
    if (setup.root != "/" && !fs::is_directory(setup.root))
        throw InputError(located(setup.root.string(), 0, "--miopen-root: not a folder"));
    setup.compilers = plan_compiler_wrappers(setup);
    // Run folders live in TMPDIR: a killed run's (kill -9) are removed here.
    remove_dead_scratch();
    check_tmpdir();

    const std::optional<fs::path> driver = checking ? installed_driver(setup) : std::nullopt;
    if (checking && !driver && !output.quiet)
        fmt::print(stderr, "kdbgen: {} has no MIOpenDriver (Debian: libmiopen1-tests): checking with kdbgen's replay\n",
                   setup.root.string());
    nlohmann::json report = nlohmann::json::array();
    std::size_t failed_problems = 0, still_compiled = 0, unstable_keys = 0, unreadable = 0, bad_rows = 0;
    std::vector<std::vector<KdbRecord>> records_of(targets.size());
    for (std::size_t t = 0; t < targets.size(); ++t) {
        nlohmann::json cards = nlohmann::json::array();
        std::map<KdbKey, std::size_t> seen;
        for (const Target& card : cards_of(targets[t])) {
            if (!output.quiet)
                fmt::print(stderr, "kdbgen: {}: {} {} problems through {} ({} processes at a time)\n", card.spec(),
                           checking ? "checking" : "replaying", problems.entries().size(),
                           driver ? driver->string() : flags.library, setup.jobs);
            CardReplay replay = !checking ? replay_card_to_fixpoint(setup, card, problems, flags.rounds)
                                : driver ? check_card_with_driver(setup, card, problems, *driver)
                                         : replay_card(setup, card, problems);
            if (checking && !driver) {
                // The replay alone: whatever it compiled with the kdbs installed, less unstable keys.
                replay.still_compiled.clear();
                for (const auto& record : replay.records) replay.still_compiled.push_back(record.key);
            }
            still_compiled += replay.still_compiled.size();
            unstable_keys += replay.unstable.size();
            unreadable += replay.kdb_unreadable.size();
            bad_rows += replay.bad_rows.size();
            if (!output.json) {
                for (const auto& key : replay.still_compiled)
                    fmt::print(stderr, "kdbgen: {}: MIOpen compiled {} with the kdb installed:\n  {}\n", card.spec(),
                               key.kernel_name, key.kernel_args);
                for (const auto& key : replay.unstable)
                    fmt::print(stderr, "kdbgen: {}: {} is built from values that change from process to process "
                                       "({}; e.g. {}): no kdb can serve it, MIOpen compiles it in every process\n",
                               card.spec(), key.kernel_name, fmt::join(key.varying_defines, ", "), key.problem);
                for (const auto& line : replay.kdb_unreadable)
                    fmt::print(stderr, "kdbgen: {}: MIOpen could not read an installed kdb: {}\n", card.spec(), line);
                for (const auto& line : replay.bad_rows) fmt::print(stderr, "kdbgen: {}: {}\n", card.spec(), line);
                if (!replay.without_source.empty() && !output.quiet)
                    fmt::print(stderr, "kdbgen: {}: MIOpen asked for {} kernels it has no source for (e.g. {}): it "
                                       "cannot build them; a kdb holding them would serve them\n",
                               card.spec(), replay.without_source.size(), replay.without_source.begin()->kernel_name);
            }
            std::size_t failed = 0;
            for (const auto& outcome : replay.outcomes)
                if (!outcome.ok) {
                    ++failed;
                    if (!output.json) {
                        fmt::print(stderr, "kdbgen: {}: {} {}: {}\n", card.spec(), outcome.kind, outcome.key,
                                   outcome.message);
                        for (const auto& key : outcome.failed_compiles)
                            fmt::print(stderr, "  not built: {} {}\n", key.kernel_name, key.kernel_args);
                        if (!output.quiet)
                            for (const auto& line : outcome.miopen_errors) fmt::print(stderr, "  {}\n", line);
                    }
                }
            failed_problems += failed - replay.skipped;
            if (!output.quiet)
                fmt::print(stderr, "kdbgen: {}: {} kernel lookups, {} compiled{} ({} processes, {} compiler starts{}), "
                                   "{} unstable keys, {} of {} problems ok, {:.1f}s\n",
                           card.spec(), replay.lookups, checking ? replay.still_compiled.size() : replay.records.size(),
                           checking ? " with the kdbs installed" : " kernels kept", replay.processes,
                           replay.compiler_starts,
                           checking ? "" : fmt::format("; new per round: {}", fmt::join(replay.new_per_round, ", ")),
                           replay.unstable.size(), replay.outcomes.size() - failed, replay.outcomes.size(),
                           replay.seconds);
            cards.push_back(card_json(replay));
            if (!checking)
                for (auto& record : replay.records)
                    if (seen.emplace(record.key, records_of[t].size()).second) records_of[t].push_back(std::move(record));
        }
        report.push_back({{"target", target_json(targets[t])}, {"kdb", targets[t].kdb_filename()}, {"cards", cards}});
    }
    const bool faults = failed_problems || still_compiled || unreadable || bad_rows;

    if (checking) {
        if (output.json)
            print_json({{"check", flags.check_kdbs}, {"client", driver ? "MIOpenDriver" : "kdbgen-miopen-replay"},
                        {"targets", report}, {"compiled", still_compiled}, {"failed_problems", failed_problems},
                        {"unstable_keys", unstable_keys}, {"kdb_unreadable", unreadable}, {"bad_rows", bad_rows}});
        else
            fmt::print("MIOpen compiled {} kernels with the kdbs of {} installed ({}); {} problems failed, {} keys "
                       "change from process to process{}\n",
                       still_compiled, flags.check_kdbs, driver ? "MIOpenDriver" : "kdbgen's replay", failed_problems,
                       unstable_keys, unreadable ? fmt::format(", MIOpen could not read a kdb {} times", unreadable) : "");
        return faults ? kExitSomeFailed : kExitOk;
    }

    for (std::size_t t = 0; t < targets.size(); ++t)
        if (records_of[t].empty())
            throw InputError(fmt::format("MIOpen compiled no kernel for {} ({}): nothing written",
                                         targets[t].kdb_filename(), targets[t].spec()));
    const fs::path out_dir = output.output;
    fs::create_directories(out_dir);
    KdbTransaction transaction(out_dir);
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const auto stage = transaction.add_kdb(out_dir / targets[t].kdb_filename(), output.update, targets[t]);
        for (const auto& record : records_of[t]) transaction.add(stage, record);
    }
    const auto stats = transaction.commit();
    for (std::size_t t = 0; t < targets.size(); ++t) {
        report[t]["records"] = stats[t].records;
        report[t]["file_bytes"] = stats[t].file_bytes;
        if (!output.json)
            fmt::print("{}: {} kernels, {}\n", (out_dir / targets[t].kdb_filename()).string(), stats[t].records,
                       human_bytes(stats[t].file_bytes));
    }
    if (output.json) print_json({{"engine", "miopen"}, {"library", flags.library}, {"root", flags.root},
                                 {"targets", report}, {"failed_problems", failed_problems},
                                 {"still_compiled", still_compiled}, {"unstable_keys", unstable_keys},
                                 {"bad_rows", bad_rows}});
    return faults ? kExitSomeFailed : kExitOk;
}

}  // namespace kdbgen::cli
