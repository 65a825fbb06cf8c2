// build() with the MIOpen engine (include/kdbgen/pipeline.hpp): the same
// stages as the native build, with an installed MIOpen in place of the planner
// and the compiler:
//
//   request -> installation (resolved once) -> problems (the sources, or the
//     corpus of the installed find-dbs and the zoo) -> shard (shard.hpp, by
//     problem) -> cards -> rounds to the fixpoint (or the check) -> records
//     -> one kdb per target (KdbTransaction) -> report
//
// Cards of a processor share one set of kernels, installed as MIOpen's system
// kdb before every replay, and with a cache the kernels and settled problems
// of earlier runs (engine_cache.hpp): each kernel is compiled once.
#include "kdbgen/cleanup.hpp"
#include "kdbgen/corpus.hpp"
#include "kdbgen/engine_cache.hpp"
#include "kdbgen/engine_records.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/pipeline.hpp"
#include "kdbgen/shard.hpp"
#include "kdbgen/cache.hpp"
#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"
#include "pipeline_internal.hpp"
#include "replay_progress.hpp"

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

std::optional<fs::path> corpus_find_db_dir(const BuildRequest& request, const Installation& installation) {
    if (!installation.system_db || !request.plan.corpus_find_dbs) return std::nullopt;
    return installation.system_db->on_host;
}

// Where the corpus' problems come from, in words.
std::string corpus_source(const BuildRequest& request, const std::optional<fs::path>& db) {
    std::vector<std::string> parts;
    if (db) parts.push_back("the find-dbs of " + db->string());
    else if (request.plan.corpus_find_dbs) parts.push_back("no find-db (the installation ships none)");
    if (request.plan.zoo) parts.push_back("the zoo");
    if (!request.plan.sources.empty()) parts.push_back("the problems given");
    return parts.empty() ? "nothing" : join(parts, " and ");
}

// The problems an engine build replays: the sources given, or (with none, or
// --corpus on) the corpus: every problem of every find-db the installed
// MIOpen ships, and the zoo.
ProblemSet engine_problems(const BuildRequest& request, const Installation& installation, std::string& source) {
    const auto& sources = request.plan.sources;
    if (!corpus_enabled(request.plan, sources)) {
        if (sources.empty())
            throw InputError("--engine miopen with --corpus off needs problems: give --network, --driver-log, "
                             "--find-db or --onnx");
        source = "given";
        return gather_problems(sources);
    }
    const std::optional<fs::path> db = corpus_find_db_dir(request, installation);
    const CorpusOptions corpus = corpus_options_for(request.plan, sources, db.value_or(fs::path()), fs::path());
    ProblemSet problems = corpus_problems(corpus);
    if (!sources.empty()) problems.merge(gather_problems(sources));
    problems.finish_adding();
    source = corpus_source(request, db);
    if (problems.entries().empty())
        throw InputError(fmt::format("--engine miopen: {} gives no problem to replay; give --network, --driver-log, "
                                     "--find-db or --onnx, or another --corpus", source));
    return problems;
}

// The corpus alone (no problem source given) with a cache: read through its
// index (CorpusIndex), made once per installation and corpus, so a run decodes
// only the problems of its shard. The same problems, in the same order, as
// engine_problems then first_of and shard_of give.
std::optional<ProblemSet> indexed_corpus(const BuildRequest& request, const Installation& installation,
                                         const fs::path& cache_dir, const std::optional<ShardSpec>& shard,
                                         EngineReport& engine) {
    if (!request.plan.sources.empty() || !corpus_enabled(request.plan, request.plan.sources)) return std::nullopt;
    const std::optional<fs::path> db = corpus_find_db_dir(request, installation);
    const CorpusOptions corpus = corpus_options_for(request.plan, {}, db.value_or(fs::path()), fs::path());
    const fs::path file = cache_dir / "engine" / "corpus" / (corpus_stat_fingerprint(corpus) + ".index");
    std::optional<CorpusIndex> index = CorpusIndex::load(file);
    if (!index) {
        ProblemSet all = corpus_problems(corpus);
        all.finish_adding();
        CorpusIndex::save(file, all, estimated_replay_cost);
        index = CorpusIndex::load(file);
        if (!index) throw InputError(located(file.string(), 0, "the corpus index just written does not read back"));
    }
    engine.problem_source = corpus_source(request, db);
    if (index->size() == 0)
        throw InputError(fmt::format("--engine miopen: {} gives no problem to replay; give --network, --driver-log, "
                                     "--find-db or --onnx, or another --corpus", engine.problem_source));
    engine.problems_all = index->size();
    std::size_t count = index->size();
    if (const std::size_t first = request.miopen.first_problems; first && count > first) {
        count = first;
        engine.problem_source += fmt::format(", the first {}", first);
    }
    std::vector<std::size_t> positions;
    if (!shard) {
        for (std::size_t i = 0; i < count; ++i) positions.push_back(i);
        return index->take(positions);
    }
    std::vector<ShardUnit> units;
    units.reserve(count);
    for (std::size_t i = 0; i < count; ++i) units.push_back({index->identities()[i], index->costs()[i]});
    const auto dealt = assign_shards(units, shard->count);
    for (std::size_t i = 0; i < count; ++i)
        if (dealt[i] == shard->index) positions.push_back(i);
    return index->take(positions);
}

ProblemSet first_of(const ProblemSet& all, std::size_t first) {
    ProblemSet head;
    for (std::size_t i = 0; i < first; ++i)
        for (const auto& origin : all.entries()[i].origins) head.add(all.entries()[i].problem, origin);
    for (const auto& [why, count] : all.left_out()) head.leave_out(why, count);
    head.finish_adding();
    return head;
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
    for (const auto& [why, count] : problems.left_out()) mine.leave_out(why, count);
    mine.finish_adding();
    return mine;
}

// The problems of this run without an index: all of them read, then the first
// --first-problems, then the shard's.
ProblemSet mine_of(const BuildRequest& request, const Installation& installation, const std::optional<ShardSpec>& shard,
                   EngineReport& engine) {
    ProblemSet all = engine_problems(request, installation, engine.problem_source);
    engine.problems_all = all.entries().size();
    if (const std::size_t first = request.miopen.first_problems; first && all.entries().size() > first) {
        all = first_of(all, first);
        engine.problem_source += fmt::format(", the first {}", first);
    }
    return shard ? shard_of(all, *shard) : std::move(all);
}

// The request's options checked, and the installation resolved once: every
// room after this reads it.
EngineSetup setup_of(const BuildRequest& request, bool with_cache) {
    const EngineRequest& miopen = request.miopen;
    EngineSetup setup;
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
        setup.installed_kdbs = *miopen.check_kdbs;
    }
    InstallationRequest installation;
    installation.root = miopen.root;
    installation.library = miopen.library;
    installation.helper_dir = miopen.helper_dir;
    installation.miopen_db = miopen.miopen_db;
    installation.identify = with_cache;
    setup.installation = resolve_installation(installation);
    return setup;
}

// The check's client: MIOpenDriver where installed (or asked for), else the replay.
bool check_with_driver(const BuildRequest& request, const Installation& installation) {
    const auto client = request.miopen.check_client;
    if (client == EngineRequest::CheckClient::Replay) return false;
    if (installation.driver) return true;
    if (client == EngineRequest::CheckClient::Driver)
        throw InputError(fmt::format("--check-client driver: {} has no MIOpenDriver (Debian: libmiopen1-tests)",
                                     installation.root.string()));
    if (!request.quiet)
        fmt::print(stderr, "kdbgen: {} has no MIOpenDriver (Debian: libmiopen1-tests): checking with kdbgen's replay\n",
                   installation.root.string());
    return false;
}

// One card: its rounds to the fixpoint (a later card of a processor first
// confirmed as its first card answered), or the check of the kdbs given.
CardReplay run_card(const BuildRequest& request, const EngineSetup& setup, const Target& card, const ProblemSet& mine,
                    bool driver, std::map<KdbKey, Bytes>& known, EngineCache* cache, const CardReplay* first_card) {
    if (!request.miopen.check_kdbs)
        return replay_card_to_fixpoint(setup, card, mine, request.miopen.rounds, known, cache, first_card);
    if (setup.on_phase_start) setup.on_phase_start("checking", mine.entries().size());
    if (driver) return check_card_with_driver(setup, card, mine);
    CardReplay replay = replay_card(setup, card, mine, ReplayPurpose::Check);
    name_miopens_own_failures(setup, card, mine, replay.outcomes, std::vector<bool>(replay.outcomes.size(), true));
    // The replay alone: whatever it compiled with the kdbs installed, less unstable keys.
    replay.still_compiled.clear();
    for (const auto& record : replay.records) replay.still_compiled.push_back(record.key);
    return replay;
}

// The keys a target's kdb gets, and how many of them came from the cache.
struct TargetKeys {
    std::map<KdbKey, std::size_t> written;  // key -> its row in the target's records
    std::set<KdbKey> asked, from_cache;
};

// A card's replay into the engine's counts; its records into the target's kdb.
void count_card(CardReplay& replay, bool checking, const std::set<KdbKey>& cached, EngineReport& engine,
                std::vector<KdbRecord>& records, TargetKeys& keys) {
    count_card_replay(replay, checking);
    for (const auto& record : replay.records) replay.counts.kernels_from_cache += cached.count(record.key);
    engine.counts.add_problems(replay.counts);
    engine.still_compiled += replay.still_compiled.size();
    engine.unstable_keys += replay.unstable.size();
    engine.kdb_unreadable += replay.kdb_unreadable.size();
    engine.bad_rows += replay.bad_rows.size();
    engine.counts.kernels_compiled += replay.counts.kernels_compiled;
    keys.asked.insert(replay.asked.begin(), replay.asked.end());
    // The code objects go to the kdb; the card keeps the keys (its report counts them).
    for (auto& record : replay.records) {
        if (!checking && keys.written.emplace(record.key, records.size()).second) {
            if (cached.count(record.key)) keys.from_cache.insert(record.key);
            records.push_back({record.key, std::move(record.code)});
        }
        record.code = Bytes();
    }
}

// Every card of every target: its rounds to the fixpoint (or the check), the
// cards of a processor sharing one set of kernels, and each later card
// confirmed as the target's first card answered; each card's records into
// its target's kdb.
void run_cards(const BuildRequest& request, const EngineSetup& setup, const ProblemSet& mine, bool driver,
               EngineCache* cache, ReplayProgress& progress, EngineReport& engine,
               std::vector<std::vector<KdbRecord>>& records_of) {
    const bool checking = request.miopen.check_kdbs.has_value();
    // Kernels per code-object target (DbId: the processor and its features): every card of a
    // processor installs them all; and those of them the cache held before this run.
    std::map<std::string, std::map<KdbKey, Bytes>> known;
    std::map<std::string, std::set<KdbKey>> cached;
    for (std::size_t t = 0; t < request.plan.targets.size(); ++t) {
        const Target& target = request.plan.targets[t];
        const std::vector<Target> cards = cards_of(target, request.plan.compute_units);
        EngineReport::TargetCards replays{target, {}};
        replays.cards.reserve(cards.size());  // the first card's replay is read while the next run
        TargetKeys keys;
        for (const Target& card : cards) {
            progress.start_card(card);
            auto [kernels, first] = known.try_emplace(card.fallback_kdb_filename());
            auto& from_cache = cached[card.fallback_kdb_filename()];
            if (first && cache) {
                kernels->second = cache->kernels(card);
                for (const auto& [key, code] : kernels->second) from_cache.insert(key);
            }
            const CardReplay* first_card = replays.cards.empty() ? nullptr : &replays.cards.front();
            CardReplay replay = run_card(request, setup, card, mine, driver, kernels->second, cache, first_card);
            count_card(replay, checking, from_cache, engine, records_of[t], keys);
            progress.end_card(replay.counts);
            if (request.on_engine_card) request.on_engine_card(replay);
            replays.cards.push_back(std::move(replay));
        }
        engine.counts.kernels_asked += keys.asked.size();
        engine.counts.kernels_from_cache += keys.from_cache.size();
        engine.counts.kernels_written += keys.written.size();
        engine.targets.push_back(std::move(replays));
    }
}

// One kdb per target, all renamed into place together.
void write_kdbs(const BuildRequest& request, bool empty_shard, std::vector<std::vector<KdbRecord>>& records_of,
                BuildReport& report) {
    const auto& targets = request.plan.targets;
    // A shard dealt no problem (N above the problem count) writes empty kdbs the merge takes
    // nothing from; a build that replayed problems and got no kernel is an environment fault.
    for (std::size_t t = 0; t < targets.size(); ++t)
        if (records_of[t].empty() && !empty_shard)
            throw InputError(fmt::format("MIOpen compiled no kernel for {} ({}): nothing written",
                                         targets[t].kdb_filename(), targets[t].spec()));
    fs::create_directories(request.output);
    KdbTransaction transaction(request.output);
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const auto stage = transaction.add_kdb(request.output / targets[t].kdb_filename(), request.update, targets[t]);
        for (const auto& record : records_of[t]) transaction.add(stage, record);
    }
    const auto stats = transaction.commit();
    for (std::size_t t = 0; t < targets.size(); ++t) {
        KdbReport kdb;
        kdb.target = targets[t];
        kdb.kdb = request.output / kdb.target.kdb_filename();
        kdb.planned = kdb.built = records_of[t].size();
        kdb.stats = stats[t];
        report.kernels += stats[t].records;
        report.kdbs.push_back(std::move(kdb));
    }
}

void check_output(const BuildRequest& request) {
    if (request.miopen.check_kdbs) return;
    if (request.output.empty()) throw InputError("no output folder: give -o DIR");
    std::error_code ec;
    if (fs::exists(request.output, ec) && !fs::is_directory(request.output, ec))
        throw InputError(located(request.output.string(), 0, "output folder is a file"));
}

}  // namespace

BuildReport build_with_engine(const BuildRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    const bool checking = request.miopen.check_kdbs.has_value();
    check_output(request);
    const std::optional<ShardSpec> shard =
        request.shard.empty() ? std::nullopt : std::optional<ShardSpec>(parse_shard(request.shard));
    // The cache (not for a check: it must see what MIOpen itself does with the kdbs given).
    const bool with_cache = !checking && !request.plan.cache_disabled;
    const fs::path cache_dir =
        request.plan.cache_dir.empty() ? BuildCache::default_dir() : fs::path(request.plan.cache_dir);
    if (with_cache) remember_digests(cache_dir / "engine" / "digests");
    EngineSetup setup = setup_of(request, with_cache);
    const Installation& installation = setup.installation;
    // Run folders live in TMPDIR: a killed run's (kill -9) are removed here.
    remove_dead_scratch();
    check_tmpdir();

    BuildReport report;
    EngineReport engine;
    engine.checked = checking;
    // A check passes nothing `kdbgen verify` rejects, whatever MIOpen makes of it under the stub.
    if (checking) engine.kdb_faults = verify_kdb_folder(*request.miopen.check_kdbs);
    std::optional<ProblemSet> indexed;
    if (with_cache) {
        BuildCache tag(cache_dir, 0);  // creates and tags the folder as a build does
        indexed = indexed_corpus(request, installation, cache_dir, shard, engine);
    }
    const ProblemSet mine = indexed ? std::move(*indexed) : mine_of(request, installation, shard, engine);
    if (!request.quiet)
        for (const auto& [why, count] : mine.left_out())
            fmt::print(stderr, "kdbgen: {} problems not replayed: {}\n", count, why);
    engine.problems = mine.entries().size();

    const bool driver = checking && check_with_driver(request, installation);
    engine.client = driver ? "MIOpenDriver" : "kdbgen-miopen-replay";
    std::unique_ptr<EngineCache> cache;
    if (with_cache) {
        engine.identity = installation.identity;
        const std::optional<fs::path> db =
            installation.system_db ? std::optional<fs::path>(installation.system_db->on_host) : std::nullopt;
        cache = std::make_unique<EngineCache>(cache_dir, engine.identity, system_db_fingerprint(db));
        save_digests();
    }
    if (!request.quiet)
        fmt::print(stderr, "kdbgen: {} of {} problems ({}){} through {} ({} processes at a time){}\n",
                   engine.problems, engine.problems_all, engine.problem_source,
                   shard ? fmt::format(", shard {}/{}", shard->index + 1, shard->count) : "",
                   driver ? installation.driver->string() : installation.library.string(), setup.jobs,
                   cache ? fmt::format(", cache {}", cache->dir().string()) : "");

    if (!request.quiet && installation.system_db && installation.system_db->given)
        fmt::print(stderr, "kdbgen: --miopen-db {}: {}\n", installation.system_db->on_host.string(),
                   installation.system_db->describe());
    std::ostream& progress_out = request.progress ? *request.progress : std::cerr;
    ReplayProgress progress(progress_out, request.progress_bar, request.quiet);
    setup.on_phase_start = [&](const std::string& phase, std::size_t count) { progress.start_phase(phase, count); };
    setup.on_passes = [&](std::size_t count) { progress.add_passes(count); };
    setup.on_pass_done = [&](const std::set<KdbKey>& compiled) { progress.pass_done(compiled); };

    std::vector<std::vector<KdbRecord>> records_of(request.plan.targets.size());
    run_cards(request, setup, mine, driver, cache.get(), progress, engine, records_of);
    if (!checking) write_kdbs(request, shard && mine.entries().empty(), records_of, report);
    report.outcome = engine.faults() ? BuildReport::Outcome::SomeFailed : BuildReport::Outcome::Ok;
    report.compiles = engine.counts.kernels_compiled;
    report.engine = std::move(engine);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace kdbgen
