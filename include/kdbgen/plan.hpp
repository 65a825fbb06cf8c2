// The plan stage: which kernels each target's kdb must hold, as a
// deduplicated list of kernel builds. Today's source of kernels is a kernel
// manifest (the built-in demo: configs/demo/kernels.toml over kernels/);
// solvers add theirs through the same KernelBuild list.
#pragma once

#include "kdbgen/kernel_build.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/target.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

struct PlannedBuild {
    KernelBuild build;
    std::string origin;  // where the need came from: manifest file:line, or problem and solver
    std::string kind;    // problem_kind() of the problem it serves ("conv", "batchnorm", ...); empty for manifests
    // Arch-wide kdbs: the CU counts whose cards ask for this key; empty when every card does.
    std::vector<unsigned> compute_units;
};

// What became of one (target, problem, solver) the plan considered.
struct CoverageEntry {
    enum class Status {
        Planned, Gemm, NotInCatalog, NotApplicable, NoFindDbRecord, SourceMissing, NoConfiguration, Excluded,
        DefaultOff,          // MIOpen never runs it as configured: env-gated, or its build option is off
        NotConvolution,      // a find-db id with no convolution solver behind it (fusion ids)
        PrecompiledKernels,  // composable-kernel solvers: kernels built into libMIOpen, nothing for a kdb
    };
    std::string target;   // kdb file name
    std::string problem;  // key
    std::string kind;     // problem_kind(): "conv", "batchnorm", ...
    std::string solver;   // empty for NoFindDbRecord, and for primitives no solver applies to
    Status status = Status::Planned;
    std::string detail;
    // Planned as MIOpen's default find builds a problem without a usable find-db record:
    // every applicable dynamic solver (DynamicHybrid, src/ocl/convolutionocl.cpp:154-190,
    // MIOpen 3.3.0). Not a find-db entry, so outside the "entries" share.
    bool dynamic_find = false;
    // Where the problem came from (its first origin): plan reports count the corpus apart.
    enum class Source : std::uint8_t { Given, FindDbLine, CorpusFindDb, CorpusZoo };
    Source source = Source::Given;
};
std::string_view coverage_status_name(CoverageEntry::Status status);
// Whether an entry with this status leaves nothing missing from the kdb
// (planned, or a solver whose kernels are not MIOpen's to compile at run time).
bool coverage_status_served(CoverageEntry::Status status);
// Entries MIOpen as configured never asks for: counted apart, outside every share's denominator.
bool coverage_status_never_asked(CoverageEntry::Status status);

// One find-db line and the solver MIOpen uses for it: the items sorted by
// time, the first whose solver is enabled and applicable
// (src/ocl/convolutionocl.cpp:698-760, GetSolutions; FindConvolution takes its
// front(), :143-172, MIOpen 3.3.0).
struct LineCoverage {
    std::string target;   // kdb file name
    std::string problem;  // key
    std::string find_db;  // the find-db file the line is from
    std::string winner;   // empty when MIOpen can use no item of the line
    CoverageEntry::Status status = CoverageEntry::Status::Planned;  // the winner's; DefaultOff with no winner
    std::string detail;
    struct Skipped {
        std::string solver;
        CoverageEntry::Status status;  // DefaultOff, NotConvolution or NotApplicable
        std::string detail;
    };
    std::vector<Skipped> skipped;  // the faster items MIOpen passes over
    // Usable items whose time equals the winner's (as MIOpen's float): MIOpen may run any
    // of them (see plan_line), so their kernels are planned too.
    std::vector<std::string> tied;
    // Every item is a fusion id (ConvOclDirectFwdFused, ...): MIOpen 3.3 can run none of them
    // for an unfused convolution, and falls back to the no-record path.
    bool fusion_only = false;
};

// The MIOpen build being packaged: CMake options that decide whether whole
// solver families exist in it.
struct MiopenBuildOptions {
    bool mlir = true;               // MIOPEN_USE_MLIR, on for shared builds (CMakeLists.txt:401-402, 3.3.0)
    bool composable_kernel = true;  // MIOPEN_USE_COMPOSABLEKERNEL, On (CMakeLists.txt:261, 3.3.0)
};

// A find-db solver name outside the catalog whose fate MIOpen's source
// settles without a port (src/plan/external_solvers.cpp).
struct ExternalSolver {
    enum class Kind { PrecompiledKernels, Mlir, DefaultOff, NotConvolution } kind;
    std::string reason;  // MIOpen's file:line
};
std::optional<ExternalSolver> external_solver(std::string_view name);
// Every name external_solver() knows: none is in the solver catalog.
std::vector<std::string_view> external_solver_names();

// Lines of a find-db from the MIOpen tree that no MIOpen lookup can reach
// (their key is not one MIOpen forms), skipped by the plan.
struct SkippedFindDbLines {
    std::string target;   // kdb file name
    std::string find_db;  // path of the find-db
    UnreadableFindDbLines lines;
};

struct Plan {
    std::vector<Target> targets;
    std::vector<PlannedBuild> builds;     // unique per (target, kdb key), in a stable order
    std::vector<std::string> uncovered;   // what could not be planned, and why
    std::vector<CoverageEntry> coverage;  // per (target, problem, solver), for solver plans
    std::vector<LineCoverage> lines;      // per (target, find-db line), in find-db modes
    std::vector<SkippedFindDbLines> unreadable_lines;  // per (target, tree find-db) with any
    // Where planning's time went (wall seconds): reported by `build --json` and -v.
    struct Timings {
        double read_databases = 0;  // find-dbs and perf-dbs: decompressing and parsing
        double evaluate = 0;        // solvers over the problems
        double deduplicate = 0;
        double cache = 0;         // reading the plan from the plan cache, or storing it there
        bool cache_hit = false;   // the plan came from the cache: the parts above did not run
    } timings;
};

enum class SolverMode {
    // Per find-db line, the solver MIOpen uses: the fastest enabled and applicable item. A problem
    // without a usable line on a card (no record, or no item applies) gets what MIOpen's default
    // find (DynamicHybrid) builds then: every applicable dynamic solver.
    FindDb,
    FindDbAll,   // every solver each find-db line lists; the dynamic find where there is no usable line
    Applicable,  // every catalog solver that applies, dynamic or not (a superset of the dynamic find)
};

// Each target's find-db records and perf-db, read on first use. Unpacking
// them is most of a plan's time, and `kdbgen plan --network` plans the whole
// set and then each network alone, so plans made with copies of one
// SolverPlanOptions share what was read.
class TargetDatabaseCache;
std::shared_ptr<TargetDatabaseCache> make_target_database_cache();

struct SolverPlanOptions {
    const MiopenTree* tree = nullptr;
    SolverMode mode = SolverMode::FindDb;
    std::vector<fs::path> find_dbs;  // used for the targets they name, before the tree's own
    std::vector<std::string> excluded_solvers;  // --exclude-solvers: planned as if absent
    MiopenBuildOptions build;
    // With no problems given, each target's find-db lines are the problems (the
    // configs AMD's kdbs cover). Off, an empty problem set is an error: a given
    // source that yielded nothing must not turn into a whole find-db.
    bool find_db_problems_when_empty = true;
    // Evaluate every listed entry for coverage (kdbgen plan), not only as far as each line's winner.
    bool entry_coverage = true;
    // Keep Plan::coverage and Plan::lines (kdbgen plan reports them; a build needs only the builds).
    bool record_coverage = true;
    // Known CU counts per processor, for arch-wide targets (configs/targets/products.toml or --cus).
    std::map<std::string, std::vector<unsigned>> compute_units;
    std::shared_ptr<TargetDatabaseCache> databases = make_target_database_cache();
    // Off, each target's find-dbs and perf-dbs are freed as soon as it is planned, whatever
    // `databases` holds: a build plans once, and holding every architecture's parsed
    // find-dbs until the last one is planned was a third of planning all 25's memory.
    bool keep_databases = true;
    // Without keep_databases: the target the next plan made with these options starts with
    // (a build plans its targets a group at a time), whose databases are read ahead while
    // this plan's last target is evaluated.
    std::optional<Target> next_target;
    // Where unpacked find-db texts are kept between runs (the build cache's
    // find-db/ folder); empty: unpack every time.
    fs::path decoded_find_db_dir;
    // Threads that plan slices of the problem list (0: two when there are
    // thousands of problems, else one). The plan is the same for any count.
    unsigned planning_threads = 0;
    // Add every value MIOpen can give an option that takes a small, finite set of values
    // inside the no-record path, once one key of the family is planned (complete_key_families
    // in src/plan/key_families.cpp). On for the built-in corpus.
    bool complete_key_families = false;
};

// The keys of the families complete_key_families names that `plan` lacks: for each planned
// member, its siblings with every other value of the family's option. Returns how many it added.
std::size_t complete_key_families(Plan& plan);

// One solver kernel as a build from the MIOpen tree's kernels folder, or
// nullopt when the tree has no such kernel file.
std::optional<KernelBuild> miopen_kernel_build(const SolverKernel& kernel, const Target& target, const MiopenTree& tree);
// The same, taking the kernel's strings; a kernel whose source the tree lacks is left as it was.
std::optional<KernelBuild> miopen_kernel_build(SolverKernel&& kernel, const Target& target, const MiopenTree& tree);

// Problems x targets x solvers -> kernel builds. With no problems, each
// target's find-db is the problem list (the configs AMD's kdbs cover). An
// arch-wide target (no CU count) reads every find-db of its DbId and builds the
// CU-dependent solvers' keys for every CU count in options.compute_units.
Plan plan_from_problems(const ProblemSet& problems, const std::vector<Target>& targets, const SolverPlanOptions& options);

// Options with repeated identical -D defines dropped where nothing between
// redefines the macro: MIOpen's doubled data-type block compiles to the same
// code object as the single one.
std::string canonical_options(const std::string& options);

// What must give the same code object, independent of where files are on
// this machine: target ID, kernel file name, canonical options.
std::string code_identity(const KernelBuild& build);


// Reads a kernel manifest: [[kernel]] tables with file, symbols, options
// (one string per variant) and optional targets (processor prefixes the
// kernel is for). Errors name the manifest, line and value.
Plan plan_from_manifest(const fs::path& manifest, const fs::path& kernel_dir, const std::vector<Target>& targets);

// Drops repeated (target, kdb key) pairs, keeping the first; sorts by target
// then key so output never depends on input order.
void deduplicate(Plan& plan);
// What deduplicate() keeps of a later build with the same key as `kept`: the
// union of their symbols (kept's first) and of the cards asking for it.
void merge_duplicate_build(PlannedBuild& kept, PlannedBuild& duplicate);

}  // namespace kdbgen
