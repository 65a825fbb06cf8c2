// The whole pipeline as two library calls: plan(PlanRequest) -> Plan and
// build(BuildRequest) -> BuildReport. The CLI (src/cli/) only turns options
// into a request and a report into text or JSON; a test or another program
// can drive a build without the binary.
//
//   enumerate (problem sources, the corpus) -> plan (solvers) -> compile -> kdb
//
// Inputs are read and checked before anything is written; errors are
// InputError naming the file, line and value.
#pragma once

#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/phase_clock.hpp"
#include "kdbgen/plan.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

class MiopenTree;
struct PlanCacheUse;

// What a plan is made of.
struct PlanRequest {
    std::vector<Target> targets;
    // Without a MIOpen tree: a kernel manifest (empty: the built-in demo) and its kernel folder.
    fs::path manifest, kernels_dir;
    // With one: MIOpen's solvers over the problem sources, the built-in corpus, or each
    // target's find-db. Empty miopen_src with problem sources: $KDBGEN_MIOPEN_SRC.
    std::string miopen_src;
    std::optional<std::string> assume_version;
    ProblemSources sources;
    SolverMode mode = SolverMode::FindDb;
    MiopenBuildOptions build;
    std::vector<unsigned> compute_units;  // the cards of arch-wide targets; empty: products.toml
    enum class Corpus { Auto, On, Off } corpus = Corpus::Auto;  // Auto: on when no problem source is given
    // The corpus' parts (--corpus find-dbs|zoo|both): the find-dbs (of the tree, or those the
    // installed MIOpen ships), and the network zoo.
    bool corpus_find_dbs = true;
    bool zoo = true;
    std::vector<std::string> excluded_solvers;
    bool entry_coverage = false;   // every listed find-db entry's status, not only each line's winner
    bool record_coverage = true;   // build needs no coverage: it leaves it out
    // Each target's find-dbs and perf-dbs stay read for later plans of the same Planner
    // (`kdbgen plan --network` plans the whole set, then each network); a build plans once.
    bool keep_databases = true;
    // The build cache folder, where unpacked find-dbs and plans are kept; empty: the default.
    std::string cache_dir;
    bool cache_disabled = false;
    bool quiet = false;  // no notes on standard error
};

// A plan request made ready: the MIOpen tree opened and the target databases
// read once, shared by every plan made from it (`kdbgen plan --network` plans
// the whole set and then each network alone).
class Planner {
public:
    explicit Planner(PlanRequest request);
    ~Planner();
    Planner(const Planner&) = delete;
    Planner& operator=(const Planner&) = delete;

    Plan plan() const;  // warns once per tree find-db with lines MIOpen never looks up
    // The same plan with other problem sources (the corpus as the request says), without the warnings.
    Plan plan(const ProblemSources& sources) const;
    // The request's plan made and handed over one group of targets at a time, each freed before
    // the next is made: a build of every architecture holds one architecture's plan at a time,
    // not 4 * 10^5 builds. The problems are gathered once; a group's plan is the plan of its
    // targets alone (cached under them), so the groups' plans together are plan()'s. `take`
    // returns false to stop; plan_each then returns false. A plan made (not found in the plan
    // cache) is stored there while `take` has it.
    bool plan_each(const std::vector<std::vector<Target>>& groups, const std::function<bool(const Plan&)>& take) const;
    bool solver_plan() const;  // planning MIOpen's solvers from a tree (not a manifest)
    const PlanRequest& request() const { return request_; }

private:
    struct Gathered {
        std::optional<ProblemSet> given, problems;
        std::string fingerprint;
    };
    Plan make(const ProblemSources& sources, const std::vector<Target>& targets, const Target* next_target,
              Gathered* gathered, PlanCacheUse* cache_use) const;
    PlanRequest request_;
    struct Solvers;
    std::unique_ptr<Solvers> solvers_;  // null for a manifest plan
};

// Planning only: Planner(request).plan().
Plan plan(const PlanRequest& request);

// The builds of a plan that compile once: targets that differ only in CUs, and the key forms
// MIOpen asks for the same kernel under.
std::string compile_identity(const KernelBuild& build);

// Which engine decides and compiles the kernels: kdbgen's planner for MIOpen
// 3.2/3.3 (plan, compile), or an installed MIOpen of any version run with no
// GPU (miopen_engine.hpp). Both take the same problems (the sources, or the
// corpus: with the engine, the find-dbs the installed MIOpen ships) and shard
// by the same rule, and write the kdbs the same way.
enum class Engine { Native, Miopen };

struct EngineRequest {
    fs::path root = "/";
    fs::path library = "/usr/lib/x86_64-linux-gnu/libMIOpen.so.1";  // inside root
    fs::path helper_dir;                 // empty: libexec/kdbgen, or beside kdbgen
    std::optional<fs::path> miopen_db;   // MIOpen's system db folder; default: the installed one
    unsigned rounds = 4;
    unsigned problem_timeout = kDefaultProblemTimeout, compile_timeout = kDefaultCompileTimeout;
    // Only the first this many problems of the set (the corpus in its order), before sharding: a
    // trial of a whole-corpus build, or a slice its shards can be checked on. 0: all.
    std::size_t first_problems = 0;
    // Instead of building: install these kdbs and report what MIOpen still
    // compiles (MIOpenDriver when installed, else the replay); writes nothing.
    std::optional<fs::path> check_kdbs;
    // The check's client: MIOpenDriver where installed (one process per problem and way, as a
    // user runs it), or kdbgen's replay (many problems a process: a whole corpus' check).
    enum class CheckClient { Auto, Driver, Replay } check_client = CheckClient::Auto;
};

struct BuildRequest {
    Engine engine = Engine::Native;
    EngineRequest miopen;  // with Engine::Miopen
    PlanRequest plan;
    ToolchainOptions toolchain;
    InProcess in_process = InProcess::Auto;
    std::uint64_t max_cache_bytes = 0;  // trim the cache to this size (0: no limit)
    fs::path output;
    unsigned jobs = 0;         // 0: one per core
    bool fail_fast = false;
    bool update = false;       // replace these keys in existing kdbs, keep the others
    std::string min_built;     // N or P% per kdb; empty: 1
    std::string shard;         // K/N; empty: all
    bool progress_bar = false; // else one line per kernel, unless quiet
    bool quiet = false;        // no compile progress (plan.quiet: no planning notes)
    // Set by a signal handler: the compile phase stops its children and build() returns Interrupted.
    std::atomic<bool>* interrupted = nullptr;
    // Runs the compile phase (the CLI makes signals cooperative for its length only).
    std::function<void(const std::function<void()>& compile)> around_compile;
    std::ostream* progress = nullptr;  // where compile progress goes (default std::cerr)
    // With Engine::Miopen: each card's replay as it ends (its records' code already taken for the kdb).
    std::function<void(const CardReplay&)> on_engine_card;
    // Dry run: no compile, no kdb; each compile's commands, with {OUT} and {SCRATCH} for the
    // output file and scratch folder, handed over as they are formed.
    std::function<void(const KernelBuild&, const std::vector<std::vector<std::string>>&)> dry_run;
};

struct KernelFailure {
    std::string kernel_name, kernel_args, origin, log, command, describe;
};

struct KdbReport {
    Target target;
    fs::path kdb;
    std::size_t planned = 0, built = 0;
    WriteStats stats;
    std::vector<KernelFailure> failures;
};

struct CompileCost {
    std::size_t compiles = 0;
    double seconds = 0, cpu_seconds = 0;
};

// What the MIOpen engine did, per target and card (the cards' records keep their keys; the code
// objects are in the kdbs).
struct EngineReport {
    bool checked = false;           // a check of request.miopen.check_kdbs, no kdb written
    std::string client;             // kdbgen-miopen-replay or MIOpenDriver
    std::string problem_source;     // "given", or the corpus' find-db folder (and the zoo)
    std::size_t problems = 0;       // this shard's
    std::size_t problems_all = 0;   // before sharding and --first-problems
    std::string identity;           // engine_identity (the cache's folder), empty without a cache
    struct TargetCards {
        Target target;
        std::vector<CardReplay> cards;
    };
    std::vector<TargetCards> targets;
    // Every card's, added up (problem-cards); each kernel once per kdb. Problems failed under
    // kdbgen are a fault of the build (exit 1); MIOpen's own failures (the same with no kdb
    // installed, as in a user's process) are named, not faults.
    EngineCounts counts;
    std::size_t still_compiled = 0, unstable_keys = 0, kdb_unreadable = 0, bad_rows = 0;
    // With a check: the kdbs of the folder that fail `kdbgen verify`'s checks (verify_kdb_folder).
    std::vector<std::string> kdb_faults;
    bool faults() const {
        return counts.problems_failed_under_kdbgen || still_compiled || kdb_unreadable || bad_rows || !kdb_faults.empty();
    }
};

struct BuildReport {
    enum class Outcome {
        Ok,           // every kernel built, every kdb written
        SomeFailed,   // kdbs written without the failed kernels
        FailFast,     // a kernel failed with fail_fast: nothing written
        TooFewBuilt,  // a kdb would get fewer than min_built: nothing written
        Interrupted,  // nothing written
    } outcome = Outcome::Ok;
    std::vector<KdbReport> kdbs;         // in target order (empty unless written)
    std::vector<std::string> too_few;    // with TooFewBuilt: per kdb, built of planned and needed
    std::vector<KernelFailure> failures; // each failed compile once, in compile order
    std::size_t kernels = 0, compiles = 0, cached = 0, failed = 0;
    std::vector<std::string> uncovered;
    double seconds = 0;
    std::vector<PhaseClock::Phase> phases;
    Plan::Timings plan_timings;
    std::map<std::string, CompileCost> cost_by_language, cost_by_kernel_file;  // cache hits left out
    std::string toolchain;  // clang --version, first line
    bool in_process = false;
    fs::path worker;
    std::string not_in_process_reason;
    InProcessStats in_process_stats;
    std::optional<EngineReport> engine;  // with Engine::Miopen
};

// Plans, compiles and writes one kdb per target (or, with dry_run, hands over the commands);
// with Engine::Miopen, replays the problems through the installed MIOpen on every card of
// each target and writes what it compiled (or checks kdbs: request.miopen.check_kdbs).
BuildReport build(const BuildRequest& request);

// The cards a target stands for: itself, or for an arch-wide target each of
// compute_units, or when that is empty every CU count configs/targets/products.toml
// lists for its processor.
std::vector<Target> cards_of(const Target& target, const std::vector<unsigned>& compute_units = {});

}  // namespace kdbgen
