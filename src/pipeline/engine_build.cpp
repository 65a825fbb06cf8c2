// build() with the MIOpen engine (include/kdbgen/pipeline.hpp): the same
// stages as the native build, with an installed MIOpen in place of the planner
// and the compiler:
//
//   enumerate (the sources, or the corpus of the installed find-dbs and the zoo)
//     -> shard (shard.hpp, by problem) -> per card: replay to the fixpoint
//     -> the kernels MIOpen compiled -> one kdb per target (KdbTransaction)
//
// Cards of a processor share one set of kernels, installed as MIOpen's system
// kdb before every replay, and with a cache the kernels and settled problems
// of earlier runs (engine_cache.hpp): each kernel is compiled once.
#include "kdbgen/cleanup.hpp"
#include "kdbgen/engine_cache.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/pipeline.hpp"
#include "kdbgen/shard.hpp"
#include "kdbgen/cache.hpp"
#include "kdbgen/target.hpp"
#include "pipeline_internal.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

namespace kdbgen {

std::vector<Target> cards_of(const Target& target, const std::vector<unsigned>& compute_units) {
    if (!target.arch_wide()) return {target};
    static const auto products = read_products((data_path("configs") / "targets" / "products.toml").string());
    std::vector<Target> cards;
    for (const unsigned cus : compute_units.empty() ? product_compute_units(products, target.name()) : compute_units) {
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

namespace {

// Problems done of the round's total on the card, kernels MIOpen compiled,
// and the ETA from the mean time per problem: one redrawn line on a terminal,
// else a line every kLogEvery.
class ReplayProgress {
public:
    ReplayProgress(std::ostream& out, bool bar, bool quiet) : out_(out), bar_(bar), quiet_(quiet) {}

    void start_round(const Target& card, unsigned round, std::size_t problems) {
        const std::lock_guard lock(mutex_);
        end_line();
        card_ = card.spec();
        round_ = round;
        total_ = problems;
        done_ = compiled_ = 0;
        started_ = last_line_ = std::chrono::steady_clock::now();
        if (!quiet_ && !bar_)
            fmt::print(out_, "kdbgen: {}: round {}: replaying {} problems\n", card_, round_ + 1, total_);
    }

    void problem_done(std::size_t compiled) {
        const std::lock_guard lock(mutex_);
        ++done_;
        compiled_ += compiled;
        if (quiet_) return;
        const auto now = std::chrono::steady_clock::now();
        if (bar_) {
            draw(now);
            return;
        }
        if (now - last_line_ >= kLogEvery || done_ == total_) {
            last_line_ = now;
            fmt::print(out_, "kdbgen: {}: round {}: {}/{} problems, {} kernels compiled, ETA {}\n", card_, round_ + 1,
                       done_, total_, compiled_, eta(now));
        }
    }

    void end_line() {
        if (drawn_) fmt::print(out_, "\n");
        drawn_ = false;
    }

    ~ReplayProgress() { end_line(); }

private:
    static constexpr auto kLogEvery = std::chrono::seconds(30);

    std::string eta(std::chrono::steady_clock::time_point now) const {
        if (!done_) return "?";
        const double elapsed = std::chrono::duration<double>(now - started_).count();
        const auto left = static_cast<long>(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
        return left >= 3600 ? fmt::format("{}h{:02}m", left / 3600, left / 60 % 60)
                            : fmt::format("{}m{:02}s", left / 60, left % 60);
    }

    void draw(std::chrono::steady_clock::time_point now) {
        constexpr int kWidth = 24;
        const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
        fmt::print(out_, "\r{} round {} [{:=<{}}{: <{}}] {}/{} problems, {} kernels compiled, ETA {}   ", card_,
                   round_ + 1, "", filled, "", kWidth - filled, done_, total_, compiled_, eta(now));
        out_.flush();
        drawn_ = true;
    }

    std::ostream& out_;
    const bool bar_, quiet_;
    std::mutex mutex_;
    std::string card_;
    unsigned round_ = 0;
    std::size_t total_ = 0, done_ = 0, compiled_ = 0;
    std::chrono::steady_clock::time_point started_, last_line_;
    bool drawn_ = false;
};

// MIOpen's system db folder as kdbgen sees it: --miopen-db, or the installed one inside the root.
std::optional<fs::path> system_db_on_host(const EngineSetup& setup) {
    if (setup.miopen_db) return setup.miopen_db;
    if (const auto installed = installed_system_db(setup)) return resolve_in_root(setup.root, *installed);
    return std::nullopt;
}

// The problems an engine build replays: the sources given, or (with none, or
// --corpus on) the corpus: every problem of every find-db the installed
// MIOpen ships, and the zoo.
ProblemSet engine_problems(const BuildRequest& request, const EngineSetup& setup, std::string& source) {
    const auto& sources = request.plan.sources;
    if (!corpus_enabled(request.plan, sources)) {
        if (sources.empty())
            throw InputError("--engine miopen with --corpus off needs problems: give --network, --driver-log, "
                             "--find-db or --onnx");
        source = "given";
        return gather_problems(sources);
    }
    const auto db = system_db_on_host(setup);
    const CorpusOptions corpus = corpus_options_for(request.plan, sources, db.value_or(fs::path()), fs::path());
    ProblemSet problems = corpus_problems(corpus);
    if (!sources.empty()) problems.merge(gather_problems(sources));
    problems.finish_adding();
    source = db ? fmt::format("the find-dbs of {}{}", db->string(), request.plan.zoo ? " and the zoo" : "")
                : std::string(request.plan.zoo ? "the zoo (the installation ships no find-db)" : "nothing");
    if (problems.entries().empty())
        throw InputError(fmt::format("--engine miopen: {} has no find-db and the zoo is off: no problem to replay; "
                                     "give --network, --driver-log, --find-db or --onnx",
                                     setup.root.string()));
    return problems;
}

ProblemSet shard_of(const ProblemSet& problems, const ShardSpec& spec) {
    std::vector<ShardUnit> units;
    units.reserve(problems.entries().size());
    for (const auto& entry : problems.entries())
        units.push_back({std::string(problem_kind(entry.problem)) + " " + entry.key, estimated_replay_cost(entry.problem)});
    const auto shard = assign_shards(units, spec.count);
    ProblemSet mine;
    const auto& entries = problems.entries();
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (shard[i] == spec.index)
            for (const auto& origin : entries[i].origins) mine.add(entries[i].problem, origin);
    mine.finish_adding();
    return mine;
}

EngineSetup setup_of(const BuildRequest& request) {
    const EngineRequest& miopen = request.miopen;
    EngineSetup setup;
    setup.root = miopen.root;
    setup.library = miopen.library;
    setup.helper_dir = miopen.helper_dir;
    setup.problem_timeout = miopen.problem_timeout;
    setup.compile_timeout = miopen.compile_timeout;
    setup.jobs = request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
    // Ctrl-C and SIGTERM raise it before the handler stops the clients and
    // removes the run folder: a replay thread then starts no further pass
    // into a folder being removed (it did, when a pass had just ended).
    setup.interrupted = request.interrupted;
    if (miopen.check_kdbs) {
        if (!fs::is_directory(*miopen.check_kdbs))
            throw InputError(located(miopen.check_kdbs->string(), 0, "--check-kdbs: not a folder"));
        setup.system_db = *miopen.check_kdbs;
    }
    if (miopen.miopen_db) {
        if (!fs::is_directory(*miopen.miopen_db))
            throw InputError(located(miopen.miopen_db->string(), 0, "--miopen-db: not a folder"));
        setup.miopen_db = fs::absolute(*miopen.miopen_db);
    }
    if (setup.root != "/" && !fs::is_directory(setup.root))
        throw InputError(located(setup.root.string(), 0, "--miopen-root: not a folder"));
    setup.compilers = plan_compiler_wrappers(setup);
    return setup;
}

}  // namespace

BuildReport build_with_engine(const BuildRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    const bool checking = request.miopen.check_kdbs.has_value();
    if (!checking && request.output.empty()) throw InputError("no output folder: give -o DIR");
    std::error_code ec;
    if (!checking && fs::exists(request.output, ec) && !fs::is_directory(request.output, ec))
        throw InputError(located(request.output.string(), 0, "output folder is a file"));
    const std::optional<ShardSpec> shard =
        request.shard.empty() ? std::nullopt : std::optional<ShardSpec>(parse_shard(request.shard));
    EngineSetup setup = setup_of(request);
    // Run folders live in TMPDIR: a killed run's (kill -9) are removed here.
    remove_dead_scratch();
    check_tmpdir();

    BuildReport report;
    EngineReport engine;
    engine.checked = checking;
    ProblemSet all = engine_problems(request, setup, engine.problem_source);
    engine.problems_all = all.entries().size();
    if (const std::size_t first = request.miopen.first_problems; first && all.entries().size() > first) {
        ProblemSet head;
        for (std::size_t i = 0; i < first; ++i)
            for (const auto& origin : all.entries()[i].origins) head.add(all.entries()[i].problem, origin);
        head.finish_adding();
        all = std::move(head);
        engine.problem_source += fmt::format(", the first {}", first);
    }
    const ProblemSet problems = shard ? shard_of(all, *shard) : ProblemSet();
    const ProblemSet& mine = shard ? problems : all;
    engine.problems = mine.entries().size();

    const auto client = request.miopen.check_client;
    const std::optional<fs::path> driver =
        checking && client != EngineRequest::CheckClient::Replay ? installed_driver(setup) : std::nullopt;
    if (checking && client == EngineRequest::CheckClient::Driver && !driver)
        throw InputError(fmt::format("--check-client driver: {} has no MIOpenDriver (Debian: libmiopen1-tests)",
                                     setup.root.string()));
    engine.client = driver ? "MIOpenDriver" : "kdbgen-miopen-replay";
    if (checking && !driver && client == EngineRequest::CheckClient::Auto && !request.quiet)
        fmt::print(stderr, "kdbgen: {} has no MIOpenDriver (Debian: libmiopen1-tests): checking with kdbgen's replay\n",
                   setup.root.string());
    // The cache (not for a check: it must see what MIOpen itself does with the kdbs given).
    std::unique_ptr<EngineCache> cache;
    if (!checking && !request.plan.cache_disabled) {
        const fs::path dir =
            request.plan.cache_dir.empty() ? BuildCache::default_dir() : fs::path(request.plan.cache_dir);
        BuildCache tag(dir, 0);  // creates and tags the folder as a build does
        engine.identity = engine_identity(setup);
        cache = std::make_unique<EngineCache>(dir, engine.identity, system_db_fingerprint(system_db_on_host(setup)));
    }
    if (!request.quiet)
        fmt::print(stderr, "kdbgen: {} of {} problems ({}){} through {} ({} processes at a time){}\n",
                   engine.problems, engine.problems_all, engine.problem_source,
                   shard ? fmt::format(", shard {}/{}", shard->index + 1, shard->count) : "",
                   driver ? driver->string() : setup.library.string(), setup.jobs,
                   cache ? fmt::format(", cache {}", cache->dir().string()) : "");

    std::ostream& progress_out = request.progress ? *request.progress : std::cerr;
    ReplayProgress progress(progress_out, request.progress_bar, request.quiet);
    Target current_card;
    setup.on_round_start = [&](unsigned round, std::size_t count) { progress.start_round(current_card, round, count); };
    setup.on_problem_done = [&](std::size_t compiled) { progress.problem_done(compiled); };

    // Kernels per code-object target (DbId: the processor and its features): every card of a processor installs them all.
    std::map<std::string, std::map<KdbKey, Bytes>> known;
    std::vector<std::vector<KdbRecord>> records_of(request.plan.targets.size());
    for (std::size_t t = 0; t < request.plan.targets.size(); ++t) {
        const Target& target = request.plan.targets[t];
        EngineReport::TargetCards cards{target, {}};
        std::map<KdbKey, std::size_t> seen;
        for (const Target& card : cards_of(target, request.plan.compute_units)) {
            current_card = card;
            auto [kernels, first] = known.try_emplace(card.fallback_kdb_filename());
            if (first && cache) kernels->second = cache->kernels(card);
            if (checking && !request.quiet)
                fmt::print(stderr, "kdbgen: {}: checking {} problems through {}\n", card.spec(), engine.problems,
                           engine.client);
            if (checking) progress.start_round(card, 0, engine.problems);
            CardReplay replay = !checking ? replay_card_to_fixpoint(setup, card, mine, request.miopen.rounds,
                                                                    kernels->second, cache.get())
                                : driver ? check_card_with_driver(setup, card, mine, *driver)
                                         : replay_card(setup, card, mine, ReplayPurpose::Check);
            progress.end_line();
            if (checking && !driver) {
                // The replay alone: whatever it compiled with the kdbs installed, less unstable keys.
                replay.still_compiled.clear();
                for (const auto& record : replay.records) replay.still_compiled.push_back(record.key);
            }
            engine.still_compiled += replay.still_compiled.size();
            engine.unstable_keys += replay.unstable.size();
            engine.kdb_unreadable += replay.kdb_unreadable.size();
            engine.bad_rows += replay.bad_rows.size();
            engine.problems_from_cache += replay.from_cache;
            for (const auto count : replay.new_per_round) engine.kernels_compiled += count;
            for (const auto& outcome : replay.outcomes) engine.failed_problems += !outcome.ok;
            engine.failed_problems -= replay.skipped;
            // The code objects go to the kdb; the card keeps the keys (its report counts them).
            for (auto& record : replay.records) {
                if (!checking && seen.emplace(record.key, records_of[t].size()).second)
                    records_of[t].push_back({record.key, std::move(record.code)});
                record.code = Bytes();
            }
            if (request.on_engine_card) request.on_engine_card(replay);
            cards.cards.push_back(std::move(replay));
        }
        engine.targets.push_back(std::move(cards));
    }
    if (!checking) {
        // A shard dealt no problem (N above the problem count) writes empty kdbs the merge takes
        // nothing from; a build that replayed problems and got no kernel is an environment fault.
        for (std::size_t t = 0; t < request.plan.targets.size(); ++t)
            if (records_of[t].empty() && !(shard && mine.entries().empty()))
                throw InputError(fmt::format("MIOpen compiled no kernel for {} ({}): nothing written",
                                             request.plan.targets[t].kdb_filename(), request.plan.targets[t].spec()));
        fs::create_directories(request.output);
        KdbTransaction transaction(request.output);
        for (std::size_t t = 0; t < request.plan.targets.size(); ++t) {
            const Target& target = request.plan.targets[t];
            const auto stage = transaction.add_kdb(request.output / target.kdb_filename(), request.update, target);
            for (const auto& record : records_of[t]) transaction.add(stage, record);
        }
        const auto stats = transaction.commit();
        for (std::size_t t = 0; t < request.plan.targets.size(); ++t) {
            KdbReport kdb;
            kdb.target = request.plan.targets[t];
            kdb.kdb = request.output / kdb.target.kdb_filename();
            kdb.planned = kdb.built = records_of[t].size();
            kdb.stats = stats[t];
            report.kernels += stats[t].records;
            report.kdbs.push_back(std::move(kdb));
        }
    }
    report.outcome = engine.faults() ? BuildReport::Outcome::SomeFailed : BuildReport::Outcome::Ok;
    report.compiles = engine.kernels_compiled;
    report.engine = std::move(engine);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace kdbgen
