// build: plan -> compile -> one kdb per target.
#include "commands.hpp"
#include "common.hpp"
#include "engine_build.hpp"

#include "kdbgen/cache.hpp"
#include "kdbgen/cleanup.hpp"
#include "kdbgen/corpus.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/jobs.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/plan_cache.hpp"
#include "kdbgen/primitive.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <unordered_map>
#include <set>
#include <sys/resource.h>
#include <unistd.h>

namespace kdbgen::cli {

namespace {

struct BuildOptions {
    TargetFlags targets;
    ToolchainFlags toolchain;
    CacheFlags cache;
    std::string output;
    std::string manifest;
    std::string kernel_dir;
    unsigned jobs = 0;
    bool fail_fast = false;
    bool update = false;
    bool dry_run = false;
    std::string min_built;  // --min-built: N or P%; default 1
    std::string shard;
    bool json = false;
    bool quiet = false;
    std::string progress = "auto";
    // Problem sources (enumerate stage).
    std::vector<std::string> networks, driver_logs, find_dbs, onnx_models;
    std::vector<long> batch_sizes;
    std::vector<std::string> data_types, layouts, modes;
    // MIOpen's solvers (plan stage).
    std::string miopen_src, assume_version, solver_mode = "find-db";
    std::vector<std::string> excluded_solvers;
    std::string mlir = "on", composable_kernel = "on";
    std::vector<unsigned> compute_units;  // --cus: the cards of arch-wide targets
    // The built-in corpus (include/kdbgen/corpus.hpp): auto = on when no problem source is given.
    std::string corpus = "auto", zoo = "on";
    bool entry_coverage = false;          // plan: every listed entry's status, not only each line's winner
    // --engine miopen: an installed libMIOpen compiles its own kernels (src/cli/engine_build.cpp).
    EngineFlags engine;

    ProblemSources problem_sources() const {
        ProblemSources sources;
        for (const auto& p : networks) sources.networks.emplace_back(p);
        for (const auto& p : driver_logs) sources.driver_logs.emplace_back(p);
        for (const auto& p : find_dbs) sources.find_dbs.emplace_back(p);
        for (const auto& p : onnx_models) sources.onnx_models.emplace_back(p);
        sources.expansion = {batch_sizes, data_types, layouts, modes};
        return sources;
    }
};

void add_problem_source_flags(CLI::App& sub, BuildOptions& options) {
    sub.add_option("--network", options.networks, "network description (configs/networks/*.toml); repeatable");
    sub.add_option("--driver-log", options.driver_logs, "log with MIOpenDriver command lines (MIOPEN_ENABLE_LOGGING_CMD=1)");
    sub.add_option("--find-db", options.find_dbs, "MIOpen find-db file (*.HIP.fdb.txt[.bz2])");
    sub.add_option("--onnx", options.onnx_models, "ONNX model");
    sub.add_option("--batch", options.batch_sizes, "batch sizes to expand networks and ONNX models over")->delimiter(',');
    sub.add_option("--data-types", options.data_types, "FP32, FP16, BF16, INT8 (comma-separated)")->delimiter(',');
    sub.add_option("--layouts", options.layouts, "NCHW, NHWC, NCDHW, NDHWC (comma-separated)")->delimiter(',');
    sub.add_option("--modes", options.modes, "inference, training (comma-separated)")->delimiter(',');
}

nlohmann::json problems_json(const ProblemSet& set) {
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& entry : set.entries())
        problems.push_back({{"kind", problem_kind(entry.problem)}, {"key", entry.key}, {"origins", entry.origins}});
    nlohmann::json counts = nlohmann::json::object();
    for (const char* kind : {"conv", "batchnorm", "pooling", "activation", "softmax", "lrn", "tensorop"})
        counts[kind] = set.count(kind);
    return {{"problems", problems}, {"counts", counts}, {"total", set.entries().size()}};
}

void print_problems(const ProblemSet& set) {
    std::size_t width = 10;
    for (const auto& entry : set.entries()) width = std::max(width, entry.key.size());
    width = std::min<std::size_t>(width, 90);
    fmt::print("{:<10}  {:<{}}  {}\n", "kind", "key", width, "from");
    for (const auto& entry : set.entries()) {
        const std::string more = entry.origins.size() > 1 ? fmt::format(" (+{} more)", entry.origins.size() - 1) : "";
        fmt::print("{:<10}  {:<{}}  {}{}\n", problem_kind(entry.problem), entry.key, width, entry.origins.front(), more);
    }
    fmt::print("{} problem configs:", set.entries().size());
    for (const char* kind : {"conv", "batchnorm", "pooling", "activation", "softmax", "lrn", "tensorop"})
        if (const auto n = set.count(kind)) fmt::print(" {} {}", n, kind);
    fmt::print("\n");
}

void add_miopen_flags(CLI::App& sub, BuildOptions& options) {
    sub.add_option("--miopen-src", options.miopen_src,
                   "MIOpen source tree: plan MIOpen's solvers and build its kernels (default: $KDBGEN_MIOPEN_SRC if "
                   "problem sources are given)");
    sub.add_option("--assume-version", options.assume_version, "treat the MIOpen tree as this version (3.2 or 3.3)");
    sub.add_option("--solvers", options.solver_mode,
                   "find-db: per find-db line the solver MIOpen uses, its fastest enabled and applicable item, as "
                   "AMD's kdbs hold (default); find-db-all: every solver a line lists; in both, a problem without a "
                   "usable find-db line gets what MIOpen's default find builds then, every applicable dynamic "
                   "solver; applicable: every catalog solver that applies, dynamic or not")
        ->check(CLI::IsMember({"find-db", "find-db-all", "applicable"}));
    sub.add_option("--mlir", options.mlir,
                   "whether the MIOpen being packaged was built with rocMLIR (MIOPEN_USE_MLIR, default on); with off, "
                   "find-db lines headed by ConvMlirIgemm* fall through to their next solver")
        ->check(CLI::IsMember({"on", "off"}));
    sub.add_option("--ck", options.composable_kernel,
                   "whether it was built with composable kernels (MIOPEN_USE_COMPOSABLEKERNEL, default on)")
        ->check(CLI::IsMember({"on", "off"}));
    sub.add_option("--cus", options.compute_units,
                   "CU counts (as MIOpen counts them) of the cards arch-wide targets serve, e.g. 30,36,40 (default: "
                   "configs/targets/products.toml)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 4096u));
    sub.add_option("--corpus", options.corpus,
                   "plan the built-in problem corpus: the convolution problems of every find-db in the MIOpen tree "
                   "and the network zoo (configs/networks/), each card served as MIOpen serves it (its own find-db "
                   "line, else its no-record path); auto (default): on when no --network, --driver-log, --onnx or "
                   "--find-db is given; off with no problem source: each target's own find-db lines")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    sub.add_option("--zoo", options.zoo,
                   "include the network zoo in the corpus (default on; expanded over --batch, --data-types, "
                   "--layouts, --modes where given, else the documented zoo set)")
        ->check(CLI::IsMember({"on", "off"}));
    sub.add_option("--exclude-solvers", options.excluded_solvers,
                   "solvers to leave out (comma-separated), e.g. ConvAsm1x1U with an assembler that cannot build it "
                   "(docs/solvers.md)")
        ->delimiter(',');
}

void add_plan_source_flags(CLI::App& sub, BuildOptions& options) {
    sub.add_option("--manifest", options.manifest,
                   "kernel manifest to build (default: the built-in demo, configs/demo/kernels.toml)");
    sub.add_option("--kernels-dir", options.kernel_dir, "folder the manifest's kernel files are in (default: kernels/)");
}

// What planning MIOpen's solvers needs, made once per command: every plan of
// the command (kdbgen plan --network makes one per network as well) shares
// the opened tree and the target databases read.
struct SolverPlanning {
    std::unique_ptr<MiopenTree> tree;
    SolverPlanOptions options;
    fs::path plan_cache_dir;  // empty with --no-cache
};

// nullopt when there is no MIOpen tree (the manifest plan).
std::optional<SolverPlanning> solver_planning(const BuildOptions& options) {
    std::string tree_dir = options.miopen_src;
    if (tree_dir.empty() && !options.problem_sources().empty())
        if (const char* env = std::getenv("KDBGEN_MIOPEN_SRC"); env && *env) tree_dir = env;
    if (tree_dir.empty()) return std::nullopt;
    if (!options.manifest.empty()) throw InputError("--manifest and --miopen-src are separate plans: give one");
    SolverPlanning planning;
    planning.tree = std::make_unique<MiopenTree>(MiopenTree::open(
        tree_dir, options.assume_version.empty() ? std::nullopt : std::optional<std::string>(options.assume_version)));
    planning.options.tree = planning.tree.get();
    planning.options.mode = options.solver_mode == "applicable"    ? SolverMode::Applicable
                            : options.solver_mode == "find-db-all" ? SolverMode::FindDbAll
                                                                   : SolverMode::FindDb;
    planning.options.build.mlir = options.mlir == "on";
    planning.options.build.composable_kernel = options.composable_kernel == "on";
    planning.options.entry_coverage = options.entry_coverage;
    // The cards of arch-wide targets: --cus, else the product table.
    std::vector<Product> products;
    for (const auto& target : options.targets.resolve()) {
        if (!target.arch_wide()) continue;
        if (!options.compute_units.empty()) {
            planning.options.compute_units[std::string(target.name())] = options.compute_units;
            continue;
        }
        if (products.empty()) products = read_products((data_path("configs") / "targets" / "products.toml").string());
        planning.options.compute_units[std::string(target.name())] = product_compute_units(products, target.name());
    }
    for (const auto& f : options.find_dbs) planning.options.find_dbs.emplace_back(f);
    // Unpacked find-dbs live in the build cache folder (unless --no-cache).
    if (!options.cache.disabled) {
        planning.plan_cache_dir = options.cache.dir.empty() ? BuildCache::default_dir() : fs::path(options.cache.dir);
        planning.options.decoded_find_db_dir = planning.plan_cache_dir / "find-db";
    }
    for (const auto& name : options.excluded_solvers) {
        if (!find_solver(name))
            throw InputError(fmt::format("--exclude-solvers: '{}' is not a solver kdbgen knows (kdbgen solvers)", name));
        planning.options.excluded_solvers.push_back(name);
    }
    return planning;
}

// The corpus is what a packager's `--targets gfx1100` alone plans; given problem sources
// replace it unless --corpus on asks for both.
bool corpus_enabled(const BuildOptions& options) {
    if (options.corpus != "auto") return options.corpus == "on";
    return options.problem_sources().empty();
}

CorpusOptions corpus_options(const BuildOptions& options, const SolverPlanning& planning) {
    CorpusOptions corpus;
    corpus.find_db_dir = planning.tree->kernels_dir();
    corpus.decoded_find_db_dir = planning.options.decoded_find_db_dir;
    if (options.zoo == "on") {
        corpus.zoo = zoo_networks(data_path("configs") / "networks");
        const NetworkExpansion defaults = default_zoo_expansion();
        corpus.zoo_expansion = {options.batch_sizes.empty() ? defaults.batch_sizes : options.batch_sizes,
                                options.data_types.empty() ? defaults.data_types : options.data_types,
                                options.layouts.empty() ? defaults.layouts : options.layouts,
                                options.modes.empty() ? defaults.modes : options.modes};
    }
    return corpus;
}

Plan solver_plan(const BuildOptions& options, const SolverPlanning& planning, const std::vector<Target>& targets) {
    // With a MIOpen tree a find-db names the solvers for the target it is
    // named after; with no other problem source, each target's find-db
    // (given, or the tree's) is also its problem list.
    ProblemSources problem_only = options.problem_sources();
    problem_only.find_dbs.clear();
    // With a tree a given find-db serves the target it is named after; one named for none would be
    // dropped without a word, and its lines (and any error in them) never read.
    for (const auto& path : planning.options.find_dbs) {
        const std::string name = path.filename().string();
        const bool serves = std::any_of(targets.begin(), targets.end(), [&](const Target& t) {
            return t.arch_wide() ? db_file_compute_units(name, t.db_id()).has_value()
                                 : name.starts_with(t.db_basename() + ".");
        });
        if (!serves) {
            std::vector<std::string> expected;
            for (const auto& t : targets)
                expected.push_back(t.arch_wide() ? t.db_id() + "_<CUs>.HIP.fdb.txt" : t.db_basename() + ".HIP.fdb.txt");
            throw InputError(located(path.string(), 0, fmt::format("--find-db: the file is named for none of the targets "
                                                                   "(a find-db serves the target it is named after: {})",
                                                                   join(expected, ", "))));
        }
    }
    SolverPlanOptions plan_options = planning.options;
    if (corpus_enabled(options)) {
        const CorpusOptions corpus = corpus_options(options, planning);
        plan_options.complete_key_families = true;
        const ProblemSet given = gather_problems(problem_only);
        if (!options.quiet)
            fmt::print(stderr, "kdbgen: planning the built-in corpus (the find-dbs of the MIOpen tree{}){}\n",
                       options.zoo == "on" ? " and the network zoo" : "",
                       given.entries().empty() ? "" : " and the problems given");
        // Gathered only when the plan cache has no entry: reading 1.1 million find-db lines is
        // most of a warm plan's time otherwise.
        ProblemSet problems;
        const std::string fingerprint = corpus_fingerprint(corpus) + problem_set_fingerprint(given);
        return cached_plan_from_source(
            fingerprint,
            [&]() -> const ProblemSet& {
                problems = corpus_problems(corpus);
                problems.merge(given);
                return problems;
            },
            targets, plan_options, planning.plan_cache_dir);
    }
    ProblemSet problems = gather_problems(problem_only);
    // Only with no problem source at all do the find-dbs become the problem list.
    plan_options.find_db_problems_when_empty = problem_only.empty();
    if (problem_only.empty() && !options.quiet)
        fmt::print(stderr, "kdbgen: no problem source given (--network, --driver-log, --onnx) and --corpus off: "
                           "the problems are every line of each target's find-db{}\n",
                   options.find_dbs.empty() ? " in the MIOpen tree" : " given");
    return cached_plan_from_problems(problems, targets, plan_options, planning.plan_cache_dir);
}

// One warning per tree find-db with lines MIOpen can never look up (read once, however many targets share it).
void warn_unreadable_lines(const Plan& plan) {
    std::set<std::string> warned;
    for (const auto& skipped : plan.unreadable_lines) {
        if (!warned.insert(skipped.find_db).second) continue;
        fmt::print(stderr,
                   "kdbgen: warning: {}: skipped {} line(s) whose key MIOpen never forms, so never looks up (first: "
                   "line {}: {})\n",
                   skipped.find_db, skipped.lines.count, skipped.lines.first_line, skipped.lines.first_reason);
    }
}

Plan make_plan(const BuildOptions& options, const std::vector<Target>& targets,
               const std::optional<SolverPlanning>& planning) {
    if (planning) {
        Plan plan = solver_plan(options, *planning, targets);
        warn_unreadable_lines(plan);
        return plan;
    }
    const auto sources = options.problem_sources();
    if (!sources.empty())
        throw InputError("planning kernels for networks, logs, find-dbs or ONNX models needs a MIOpen source tree: "
                         "give --miopen-src DIR (or set KDBGEN_MIOPEN_SRC)");
    const fs::path manifest = options.manifest.empty() ? data_path("configs") / "demo" / "kernels.toml" : fs::path(options.manifest);
    const fs::path kernels = options.kernel_dir.empty() ? data_path("kernels") : fs::path(options.kernel_dir);
    return plan_from_manifest(manifest, kernels, targets);
}

std::string first_lines(const std::string& text, std::size_t count) {
    const auto lines = split(text, '\n');
    if (lines.size() <= count) return text;
    return join(std::vector<std::string>(lines.begin(), lines.begin() + static_cast<long>(count)), "\n") +
           fmt::format("\n... ({} more lines; --json has the whole log)", lines.size() - count);
}

// Builds that must give the same code object compile once: targets that
// differ only in CUs, and the key forms MIOpen asks for the same kernel under.
std::string compile_identity(const KernelBuild& build) {
    return code_identity(build) + "\n" + build.source.string();
}

// --min-built: N kernels per kdb, or P% of the kernels planned for it.
std::size_t min_built_for(const std::string& spec, std::size_t planned) {
    if (spec.empty()) return 1;
    std::string digits = spec;
    const bool percent = digits.ends_with('%');
    if (percent) digits.pop_back();
    const auto value = parse_int(digits);
    if (!value || *value < 0 || (percent && *value > 100))
        throw InputError(fmt::format("--min-built '{}' is not a count or a percentage (e.g. 1, 95%)", spec));
    if (!percent) return static_cast<std::size_t>(*value);
    return (planned * static_cast<std::size_t>(*value) + 99) / 100;
}

// Wall and CPU time (user, system; kdbgen and the compilers it ran and
// reaped) between marks, for `build --json` "phases" and -v.
class PhaseClock {
public:
    struct Phase {
        std::string name;
        double seconds = 0, user_seconds = 0, system_seconds = 0;
        double own_seconds = 0;  // of user + system, kdbgen's own (the rest: the compilers)
        long peak_rss_bytes = 0;  // kdbgen's own peak resident memory by the end of the phase
    };
    PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(cpu_now()) {}
    // Closes the phase that began at the previous mark.
    void mark(std::string name) {
        const auto wall = std::chrono::steady_clock::now();
        const auto cpu = cpu_now();
        phases_.push_back({std::move(name), std::chrono::duration<double>(wall - wall_).count(), cpu.user - cpu_.user,
                           cpu.system - cpu_.system, cpu.own - cpu_.own, cpu.peak_rss_bytes});
        wall_ = wall;
        cpu_ = cpu;
    }
    const std::vector<Phase>& phases() const { return phases_; }
    nlohmann::json json(const Plan& plan) const {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& p : phases_)
            out[p.name] = {{"seconds", p.seconds},
                           {"user_seconds", p.user_seconds},
                           {"system_seconds", p.system_seconds},
                           {"kdbgen_cpu_seconds", p.own_seconds},
                           {"kdbgen_peak_rss_bytes", p.peak_rss_bytes}};
        // Planning's own split (wall seconds), inside "plan".
        if (out.contains("plan"))
            out["plan"]["parts"] = {{"read_find_db", plan.timings.read_databases},
                                    {"evaluate", plan.timings.evaluate},
                                    {"deduplicate", plan.timings.deduplicate},
                                    {"plan_cache", plan.timings.cache},
                                    {"plan_cache_hit", plan.timings.cache_hit}};
        return out;
    }
    std::string summary(const Plan& plan) const {
        std::vector<std::string> parts;
        for (const auto& p : phases_) {
            std::string part = fmt::format("{} {:.2f}s (cpu {:.2f}s user, {:.2f}s sys, {:.2f}s of it kdbgen's own; "
                                           "peak RSS {} MB)",
                                           p.name, p.seconds, p.user_seconds, p.system_seconds, p.own_seconds,
                                           p.peak_rss_bytes >> 20);
            if (p.name == "plan" && plan.timings.cache_hit)
                part += fmt::format(" [from the plan cache {:.2f}s]", plan.timings.cache);
            else if (p.name == "plan")
                part += fmt::format(" [read find-db {:.2f}s, evaluate {:.2f}s, dedup {:.2f}s, plan cache {:.2f}s]",
                                    plan.timings.read_databases, plan.timings.evaluate, plan.timings.deduplicate,
                                    plan.timings.cache);
            parts.push_back(part);
        }
        return join(parts, "; ");
    }

private:
    struct Cpu {
        double user = 0, system = 0, own = 0;
        long peak_rss_bytes = 0;
    };
    static Cpu cpu_now() {
        Cpu cpu;
        for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
            rusage usage{};
            ::getrusage(who, &usage);
            const double user = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
            const double system = static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) * 1e-6;
            cpu.user += user;
            cpu.system += system;
            if (who == RUSAGE_SELF) {
                cpu.own = user + system;
                cpu.peak_rss_bytes = usage.ru_maxrss * 1024L;  // Linux reports KiB
            }
        }
        return cpu;
    }
    std::chrono::steady_clock::time_point wall_;
    Cpu cpu_;
    std::vector<Phase> phases_;
};

// How the compiles ran: in kdbgen-compile-worker processes or as clang processes, and why.
nlohmann::json in_process_json(const Compiler& compiler) {
    const auto stats = compiler.in_process_stats();
    return {{"enabled", compiler.in_process()},
            {"worker", compiler.worker_path().string()},
            {"reason", compiler.not_in_process_reason()},
            {"workers_started", stats.workers_started},
            {"commands", stats.commands},
            {"run_as_process", stats.not_in_process},
            {"worker_deaths", stats.worker_deaths},
            {"worker_peak_rss_bytes", stats.worker_peak_rss_bytes}};
}

template <typename Costs>
nlohmann::json costs_json(const Costs& costs) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, cost] : costs) out[name] = cost.json();
    return out;
}

// What a compiler prints when its scratch folder fails it rather than the kernel.
bool is_scratch_space_failure(const std::string& log) {
    for (const char* text : {"No space left on device", "Disk quota exceeded", "Read-only file system", "TMPDIR "})
        if (log.find(text) != std::string::npos) return true;
    return false;
}

int run_build(const BuildOptions& options) {
    if (options.engine.engine == "miopen") {
        if (!options.manifest.empty() || !options.miopen_src.empty() || options.dry_run)
            throw InputError("--engine miopen takes no --manifest, --miopen-src or --dry-run: the installed MIOpen "
                             "plans and compiles");
        return run_engine_build(options.engine, options.targets.resolve(), gather_problems(options.problem_sources()),
                                EngineBuildOutput{options.output, options.shard, options.update, options.json,
                                                  options.quiet, options.jobs});
    }
    const auto started = std::chrono::steady_clock::now();
    PhaseClock clock;
    const auto targets = options.targets.resolve();
    if (options.output.empty()) throw InputError("no output folder: give -o DIR");
    const fs::path out_dir = options.output;
    // Every input is read and checked before anything is written: bad input leaves no output folder behind.
    std::error_code ec;
    // Checked now, created only once the inputs are known good: a rejected
    // input leaves no folder behind (and no plan in the cache).
    if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
        throw InputError(located(out_dir.string(), 0, "output folder is a file"));
    min_built_for(options.min_built, 0);  // a bad value is an input error before any work
    if (!options.shard.empty()) parse_shard(options.shard);
    // Scratch of killed runs goes first; a TMPDIR that cannot take a file
    // fails the run here, before anything is planned or replaced.
    remove_dead_scratch();
    check_tmpdir();
    auto planning = solver_planning(options);
    if (planning) planning->options.record_coverage = false;  // coverage is kdbgen plan's report
    Plan plan = make_plan(options, targets, planning);

    if (!options.shard.empty()) {
        const ShardSpec spec = parse_shard(options.shard);
        std::vector<const KernelBuild*> all;
        for (const auto& planned : plan.builds) all.push_back(&planned.build);
        const auto shards = assign_shards(all, spec.count);
        std::vector<PlannedBuild> mine;
        for (std::size_t i = 0; i < plan.builds.size(); ++i)
            if (shards[i] == spec.index) mine.push_back(std::move(plan.builds[i]));
        plan.builds = std::move(mine);
    }
    // A plan with nothing for a kdb would write an empty kdb over a good one.
    std::map<std::string, std::size_t> planned_per_kdb;
    for (const auto& planned : plan.builds) ++planned_per_kdb[planned.build.target.kdb_filename()];
    if (!options.dry_run)
        for (const auto& target : targets)
            if (!planned_per_kdb.count(target.kdb_filename()))
                throw InputError(fmt::format("the plan has no kernel for {} ({}){}: nothing written", target.kdb_filename(),
                                             target.spec(), options.shard.empty() ? "" : " in shard " + options.shard));

    // The builds to compile, in plan.builds (which stays as it is from here on).
    std::vector<const KernelBuild*> unique;
    std::vector<std::size_t> unique_index(plan.builds.size());
    {
        std::unordered_map<std::string, std::size_t> index_of;
        for (std::size_t i = 0; i < plan.builds.size(); ++i) {
            auto [it, added] = index_of.emplace(compile_identity(plan.builds[i].build), unique.size());
            if (added) unique.push_back(&plan.builds[i].build);
            unique_index[i] = it->second;
        }
    }
    clock.mark("plan");
    auto cache = options.cache.open();
    // With --no-cache the toolchain's derived files go to a private mkdtemp folder.
    const fs::path work = cache ? cache->dir() / "toolchain" : fs::path();
    // A dry run starts no worker: it prints the commands, which are the same either way.
    const Compiler compiler(options.toolchain.discover(work), cache.get(),
                            options.dry_run ? InProcess::Off : options.toolchain.in_process_mode());
    if (compiler.in_process()) spdlog::debug("compiling in-process with {}", compiler.worker_path().string());
    else if (!compiler.not_in_process_reason().empty())
        spdlog::debug("compiling with clang processes, not in-process: {}", compiler.not_in_process_reason());
    clock.mark("toolchain");

    if (options.dry_run) {
        if (!cache && !options.quiet)
            spdlog::warn("with --no-cache the commands name the toolchain's derived files in {}, a private folder "
                         "removed when kdbgen exits; give --cache-dir to keep them for running the commands",
                         compiler.toolchain().work_dir.string());
        // The exact commands a build runs, with {OUT} and {SCRATCH} for the
        // per-kernel output file and scratch folder (tools/bench replays them).
        // Printed as they are formed: a whole architecture has 10^5 of them.
        if (options.json) fmt::print("{{\"compiles\": [");
        for (std::size_t i = 0; i < unique.size(); ++i) {
            const auto commands = compiler.commands(*unique[i], "{OUT}", "{SCRATCH}");
            if (options.json)
                fmt::print("{}{}", i ? ",\n" : "\n",
                           json_text(nlohmann::json{{"kernel", unique[i]->describe()}, {"commands", commands}}));
            else
                for (const auto& argv : commands) fmt::print("{}\n", shell_quote(argv));
        }
        if (spdlog::should_log(spdlog::level::debug)) fmt::print(stderr, "kdbgen: phases: {}\n", clock.summary(plan));
        if (options.json) fmt::print("],\n\"phases\": {}}}\n", json_text(clock.json(plan)));
        return kExitOk;
    }

    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir))
        throw InputError(located(out_dir.string(), 0, "cannot create output folder" + (ec ? ": " + ec.message() : "")));
    if (::access(out_dir.c_str(), W_OK) != 0) throw InputError(located(out_dir.string(), 0, "output folder is not writable"));

    // Every kdb of the build is staged; the compiles stream into them.
    KdbTransaction transaction(out_dir);
    std::map<std::string, std::size_t> stage_of;  // kdb file name -> stage
    for (const auto& target : targets)
        stage_of[target.kdb_filename()] = transaction.add_kdb(out_dir / target.kdb_filename(), options.update, target);
    std::vector<std::vector<std::size_t>> plan_builds_of(unique.size());
    for (std::size_t i = 0; i < plan.builds.size(); ++i) plan_builds_of[unique_index[i]].push_back(i);

    JobOptions jobs;
    jobs.jobs = options.jobs;
    jobs.fail_fast = options.fail_fast;
    jobs.quiet = options.quiet || options.json;
    jobs.progress_bar = options.progress == "always" || (options.progress == "auto" && ::isatty(STDERR_FILENO));
    if (options.progress == "never") jobs.quiet = true;
    jobs.on_result = [&](std::size_t index, const CompileResult& result) {
        if (!result.ok) return;
        for (const std::size_t i : plan_builds_of[index]) {
            const auto& build = plan.builds[i].build;
            transaction.add(stage_of.at(build.target.kdb_filename()), {{build.kdb_name(), build.kdb_args()}, result.code});
        }
    };
    if (!jobs.quiet)
        fmt::print(stderr, "kdbgen: {} kernels for {} targets ({} compiles after dedup), {} jobs, {}{}\n", plan.builds.size(),
                   targets.size(), unique.size(), jobs.jobs ? jobs.jobs : default_job_count(), compiler.toolchain().clang_version,
                   compiler.in_process() ? ", in-process" : "");
    std::vector<CompileResult> results;
    {
        const CooperativeInterrupts cooperative;
        results = run_builds(compiler, unique, jobs, g_interrupted, std::cerr);
    }
    if (cache) cache->flush_counters();
    compiler.stop_workers();
    clock.mark("compile");
    if (g_interrupted.load()) {
        fmt::print(stderr, "kdbgen: interrupted; no kdb written\n");
        return kExitInterrupted;
    }

    std::size_t failed = 0, cached = 0;
    // What the compiles cost, by language and by kernel file (a solver family's source),
    // for tools/bench and docs/performance.md: cache hits are left out.
    struct Cost {
        std::size_t compiles = 0;
        double seconds = 0, cpu_seconds = 0;
        nlohmann::json json() const {
            return {{"compiles", compiles}, {"seconds", seconds}, {"cpu_seconds", cpu_seconds},
                    {"cpu_seconds_per_compile", compiles ? cpu_seconds / static_cast<double>(compiles) : 0.0}};
        }
    };
    std::map<std::string, Cost> cost_by_language, cost_by_file;
    for (std::size_t i = 0; i < unique.size(); ++i) {
        if (!results[i].cache_hit && results[i].ok) {
            for (auto* cost : {&cost_by_language[std::string(language_name(unique[i]->language()))],
                               &cost_by_file[unique[i]->kernel_file]}) {
                ++cost->compiles;
                cost->seconds += results[i].seconds;
                cost->cpu_seconds += results[i].cpu_seconds;
            }
        }
        if (results[i].cache_hit) ++cached;
        if (results[i].ok) continue;
        ++failed;
        if (!options.json)
            fmt::print(stderr, "kdbgen: error: {} failed\n  command: {}\n{}\n", unique[i]->describe(),
                       results[i].command.empty() ? "(none run)" : results[i].command, first_lines(results[i].log, 40));
    }
    if (failed && options.fail_fast) {
        fmt::print(stderr, "kdbgen: --fail-fast: {} kernel(s) failed; no kdb written\n", failed);
        return kExitSomeFailed;
    }
    // A compile that failed for TMPDIR (full, gone, read-only) says nothing
    // about its kernel: the kdbs would lose kernels that build. Nothing is
    // replaced, and the run is an environment error (exit 2) naming TMPDIR.
    {
        std::size_t for_tmpdir = 0;
        std::string first;
        for (std::size_t i = 0; i < unique.size(); ++i) {
            if (results[i].ok || !is_scratch_space_failure(results[i].log)) continue;
            if (!for_tmpdir++) first = fmt::format("{}: {}", unique[i]->describe(), first_lines(results[i].log, 3));
        }
        if (for_tmpdir)
            throw InputError(fmt::format("TMPDIR {}: {} compile(s) failed for lack of scratch space or access (first: {}); no "
                                         "kdb written, the old ones are unchanged (free space or set TMPDIR)",
                                         fs::temp_directory_path().string(), for_tmpdir, trim(first)));
    }

    nlohmann::json report_targets = nlohmann::json::array();
    std::vector<std::string> too_few;
    std::map<std::string, nlohmann::json> failures_of;
    std::map<std::string, std::size_t> built_of;
    for (const auto& target : targets) failures_of[target.kdb_filename()] = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.builds.size(); ++i) {
        const auto& build = plan.builds[i].build;
        const auto& result = results[unique_index[i]];
        if (result.ok) ++built_of[build.target.kdb_filename()];
        else failures_of[build.target.kdb_filename()].push_back(
                 {{"kernel_name", build.kdb_name()}, {"kernel_args", build.kdb_args()}, {"origin", plan.builds[i].origin},
                  {"log", result.log}, {"command", result.command}});
    }
    // A build that compiled (nearly) nothing is an environment fault (a full
    // TMPDIR, a broken toolchain), not a kdb: it never replaces one.
    for (const auto& target : targets) {
        const auto name = target.kdb_filename();
        const std::size_t planned = planned_per_kdb[name], built = built_of[name];
        const std::size_t needed = std::max<std::size_t>(1, min_built_for(options.min_built, planned));
        if (built < needed) too_few.push_back(fmt::format("{}: {} of {} kernels built, {} needed", name, built, planned, needed));
    }
    if (!too_few.empty()) {
        fmt::print(stderr, "kdbgen: error: too few kernels built (--min-built {}); no kdb written, the old ones are "
                           "unchanged:\n  {}\n",
                   options.min_built.empty() ? "1" : options.min_built, join(too_few, "\n  "));
        return kExitSomeFailed;
    }
    const auto stats = transaction.commit([] { return g_interrupted.load(); });
    for (const auto& target : targets) {
        const auto name = target.kdb_filename();
        const auto& st = stats[stage_of.at(name)];
        const fs::path kdb = out_dir / name;
        const auto& failures = failures_of[name];
        report_targets.push_back({{"target", target_json(target)}, {"kdb", kdb.string()}, {"records", st.records},
                                  {"replaced", st.replaced}, {"kept", st.kept}, {"code_bytes", st.code_bytes},
                                  {"file_bytes", st.file_bytes}, {"failed", failures}});
        if (!options.json)
            fmt::print("{}: {} kernels, {} (code {}){}\n", kdb.string(), st.records, human_bytes(st.file_bytes),
                       human_bytes(st.code_bytes), failures.empty() ? "" : fmt::format(", {} FAILED", failures.size()));
    }
    clock.mark("write");
    if (spdlog::should_log(spdlog::level::debug)) fmt::print(stderr, "kdbgen: phases: {}\n", clock.summary(plan));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (options.json) {
        print_json({{"targets", report_targets},
                    {"kernels", plan.builds.size()},
                    {"compiles", unique.size()},
                    {"cached", cached},
                    {"failed", failed},
                    {"uncovered", plan.uncovered},
                    {"seconds", seconds},
                    {"phases", clock.json(plan)},
                    {"compile_time", {{"by_language", costs_json(cost_by_language)}, {"by_kernel_file", costs_json(cost_by_file)}}},
                    {"toolchain", compiler.toolchain().clang_version},
                    {"in_process", in_process_json(compiler)}});
    } else {
        fmt::print("{} compiles ({} from cache, {} failed) in {:.1f}s\n", unique.size(), cached, failed, seconds);
    }
    return failed ? kExitSomeFailed : kExitOk;
}

}  // namespace

Action add_build_command(CLI::App& app) {
    auto* sub = app.add_subcommand("build", "compile the planned kernels and write one kdb per target");
    auto options = std::make_shared<BuildOptions>();
    options->targets.add_to(*sub);
    options->toolchain.add_to(*sub);
    options->cache.add_to(*sub);
    add_plan_source_flags(*sub, *options);
    add_problem_source_flags(*sub, *options);
    add_miopen_flags(*sub, *options);
    options->engine.add_to(*sub);
    sub->add_option("-o,--output", options->output, "folder the kdbs are written to (created if missing)");
    sub->add_option("-j,--jobs", options->jobs, "parallel compiles (default: one per core)");
    sub->add_flag("--fail-fast", options->fail_fast,
                  "stop at the first failed kernel and write no kdb (default: keep going, write what built, exit 1)");
    sub->add_flag("-n,--dry-run", options->dry_run, "print the compile commands instead of running them");
    sub->add_option("--shard", options->shard,
                    "build slice K of N (e.g. 2/3) of the plan, balanced by estimated compile cost; combine the "
                    "shards' kdbs with `kdbgen merge`");
    sub->add_flag("--update", options->update, "write into existing kdbs: replace these keys, keep the others");
    sub->add_option("--min-built", options->min_built,
                    "write no kdb unless each gets at least N kernels, or P% of its planned kernels (e.g. 95%); "
                    "default 1: a build that compiled nothing never replaces a kdb");
    sub->add_flag("--json", options->json, "print a JSON report on standard output");
    sub->add_flag("-q,--quiet", options->quiet, "no progress output");
    sub->add_option("--progress", options->progress, "progress display")->check(CLI::IsMember({"auto", "always", "never"}));
    return [options]() { return run_build(*options); };
}

std::string_view source_name(CoverageEntry::Source source) {
    switch (source) {
        case CoverageEntry::Source::Given: return "given";
        case CoverageEntry::Source::FindDbLine: return "find_db";
        case CoverageEntry::Source::CorpusFindDb: return "corpus_find_db";
        case CoverageEntry::Source::CorpusZoo: return "corpus_zoo";
    }
    return "?";
}

// Per kdb, what a packager asks of it, counted in problems: the find-db lines of its cards
// (served: the winner's kernels, and those of items tied with it, are all in `builds`;
// no_kdb_kernel: rocBLAS or composable kernels, nothing for a kdb), the convolutions served
// through MIOpen's no-record path (every kernel of every applicable dynamic solver planned)
// and the other primitives, each by where the problem came from; and what is not covered, why.
std::map<std::string, nlohmann::json> served_summary(const Plan& plan) {
    struct ProblemState {
        CoverageEntry::Source source = CoverageEntry::Source::Given;
        std::string kind;
        bool planned = false, failed = false, none_applies = false;
    };
    std::map<std::string, std::unordered_map<std::string, ProblemState>> no_record, primitives;
    std::map<std::string, std::map<std::string, long>> not_covered;
    for (const auto& c : plan.coverage) {
        const bool conv = c.kind == "conv";
        if (conv && !c.dynamic_find) continue;  // find-db entries: counted by line below
        auto& state = (conv ? no_record : primitives)[c.target][c.problem];
        state.source = c.source;
        state.kind = c.kind;
        if (c.status == CoverageEntry::Status::NoFindDbRecord) state.none_applies = true;
        else if (c.status == CoverageEntry::Status::Planned) state.planned = true;
        else if (!coverage_status_never_asked(c.status) && !coverage_status_served(c.status)) {
            state.failed = true;
            ++not_covered[c.target][std::string(coverage_status_name(c.status))];
        }
    }
    std::map<std::string, nlohmann::json> out;
    for (const auto& target : plan.targets) out[target.kdb_filename()] = nlohmann::json::object();
    for (const auto& [target, problems] : no_record) {
        auto& summary = out[target]["no_record_path"];
        for (const auto& [key, state] : problems) {
            auto& s = summary[std::string(source_name(state.source))];
            if (s.is_null()) s = {{"problems", 0}, {"served", 0}, {"not_served", 0}, {"no_dynamic_solver", 0}};
            s["problems"] = s["problems"].get<long>() + 1;
            const char* what = state.failed ? "not_served" : state.planned ? "served" : "no_dynamic_solver";
            s[what] = s[what].get<long>() + 1;
        }
    }
    for (const auto& [target, problems] : primitives) {
        auto& summary = out[target]["primitives"];
        for (const auto& [key, state] : problems) {
            auto& s = summary[std::string(source_name(state.source))];
            if (s.is_null()) s = {{"problems", 0}, {"served", 0}, {"not_served", 0}, {"by_kind", nlohmann::json::object()}};
            s["problems"] = s["problems"].get<long>() + 1;
            const bool served = state.planned && !state.failed;
            s[served ? "served" : "not_served"] = s[served ? "served" : "not_served"].get<long>() + 1;
            auto& kind = s["by_kind"][state.kind];
            if (kind.is_null()) kind = {{"problems", 0}, {"served", 0}};
            kind["problems"] = kind["problems"].get<long>() + 1;
            if (served) kind["served"] = kind["served"].get<long>() + 1;
        }
    }
    for (const auto& line : plan.lines) {
        auto& s = out[line.target]["find_db_lines"];
        if (s.is_null())
            s = {{"lines", 0}, {"served", 0}, {"no_kdb_kernel", 0}, {"not_served", 0}, {"no_usable_item", 0},
                 {"fusion_only", 0}, {"with_ties", 0}};
        s["lines"] = s["lines"].get<long>() + 1;
        // A line with no usable item sends MIOpen down the no-record path, counted there.
        const char* what = line.winner.empty()                             ? "no_usable_item"
                           : line.status == CoverageEntry::Status::Planned ? "served"
                           : coverage_status_served(line.status)           ? "no_kdb_kernel"
                                                                           : "not_served";
        s[what] = s[what].get<long>() + 1;
        if (line.fusion_only) s["fusion_only"] = s["fusion_only"].get<long>() + 1;
        if (!line.tied.empty()) s["with_ties"] = s["with_ties"].get<long>() + 1;
    }
    for (auto& [target, reasons] : not_covered) out[target]["not_covered"] = reasons;
    return out;
}

// Per target: (problem, solver) entries by what became of them, the find-db
// lines by what became of their winner, and the shares a user feels: lines
// whose winner's kernels are all in the kdb, next to entries likewise. What
// MIOpen never asks for (default-off solvers, fusion ids) is counted apart.
nlohmann::json coverage_json(const Plan& plan) {
    std::map<std::string, std::map<std::string, long>> status;
    std::map<std::string, std::map<std::string, std::map<std::string, long>>> solvers, winners, skipped;
    // served, counted, never asked; dynamic_share: the (problem, dynamic solver) pairs of MIOpen's
    // dynamic find for problems without a usable find-db line, kept apart from find-db entries.
    std::map<std::string, std::array<long, 3>> entry_share, line_share, dynamic_share;
    for (const auto& c : plan.coverage) {
        const std::string name(coverage_status_name(c.status));
        ++status[c.target][name];
        if (!c.solver.empty()) ++solvers[c.target][c.solver][name];
        if (c.kind != "conv" || c.status == CoverageEntry::Status::NoFindDbRecord) continue;
        auto& share = (c.dynamic_find ? dynamic_share : entry_share)[c.target];
        if (coverage_status_never_asked(c.status)) ++share[2];
        else ++share[1], share[0] += c.status == CoverageEntry::Status::Planned ? 1 : 0;
    }
    std::map<std::string, std::map<std::string, long>> line_status;
    for (const auto& line : plan.lines) {
        const std::string name(coverage_status_name(line.status));
        ++line_status[line.target][name];
        // A line whose winner is served but an item tied with it is not (plan_line) says so.
        const bool tie_decides = !line.tied.empty() && line.detail.starts_with("tied with");
        ++winners[line.target][line.winner.empty() ? "(none)" : line.winner][tie_decides ? "tied item: " + name : name];
        for (const auto& skip : line.skipped) ++skipped[line.target][skip.solver][std::string(coverage_status_name(skip.status))];
        auto& share = line_share[line.target];
        if (line.winner.empty() && coverage_status_never_asked(line.status)) ++share[2];
        else ++share[1], share[0] += coverage_status_served(line.status) ? 1 : 0;
    }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [target, counts] : status) out[target]["status"] = counts;
    for (const auto& [target, per_solver] : solvers) out[target]["solvers"] = per_solver;
    const auto share_json = [](const std::array<long, 3>& share) {
        return nlohmann::json{{"served", share[0]},
                              {"counted", share[1]},
                              {"never_asked", share[2]},
                              {"share", share[1] ? static_cast<double>(share[0]) / static_cast<double>(share[1]) : 0.0}};
    };
    for (const auto& [target, share] : entry_share) out[target]["entries"] = share_json(share);
    for (const auto& [target, share] : dynamic_share) out[target]["dynamic_find"] = share_json(share);
    for (const auto& [target, share] : line_share) {
        out[target]["lines"] = share_json(share);
        out[target]["lines"]["status"] = line_status[target];
        out[target]["winners"] = winners[target];
        out[target]["skipped"] = skipped[target];  // faster items MIOpen passes over, by solver and why
    }
    // Tree find-db lines no MIOpen lookup reaches: how many, and where the first is.
    for (const auto& skipped : plan.unreadable_lines) {
        auto& u = out[skipped.target]["unreadable_lines"];
        const auto name = fs::path(skipped.find_db).filename().string();
        if (u.is_null()) {
            u = {{"count", 0},
                 {"first", fmt::format("{}:{}", name, skipped.lines.first_line)},
                 {"first_reason", skipped.lines.first_reason},
                 {"by_find_db", nlohmann::json::object()}};
        }
        u["count"] = u["count"].get<std::size_t>() + skipped.lines.count;
        u["by_find_db"][name] = skipped.lines.count;
    }
    for (const auto& [target, summary] : served_summary(plan)) out[target]["summary"] = summary;
    for (const auto& target : plan.targets) {
        auto& t = out[target.kdb_filename()];
        std::size_t kernels = 0, cu_dependent = 0;
        std::map<std::string, long> by_kind, not_covered, by_cus;
        for (const auto& b : plan.builds) {
            if (b.build.target.kdb_filename() != target.kdb_filename()) continue;
            ++kernels, ++by_kind[b.kind];
            if (b.compute_units.empty()) continue;
            ++cu_dependent;
            for (const unsigned cus : b.compute_units) ++by_cus[std::to_string(cus)];
        }
        for (const auto& c : plan.coverage)
            if (c.target == target.kdb_filename() && !coverage_status_served(c.status) &&
                !coverage_status_never_asked(c.status))
                ++not_covered[c.kind];
        t["kernels"] = kernels;
        t["kernels_by_kind"] = by_kind;
        t["not_covered_by_kind"] = not_covered;
        if (target.arch_wide())
            t["cu_dependent"] = {{"keys", cu_dependent}, {"keys_by_cus", by_cus}};
    }
    return out;
}

// Per network and kdb: kernels by problem kind (conv or another primitive)
// and the (problem, solver) pairs not covered, from one plan per network.
nlohmann::json per_network_json(const BuildOptions& options, const SolverPlanning& planning,
                                const std::vector<Target>& targets) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& network : options.networks) {
        BuildOptions one = options;
        one.networks = {network};
        one.driver_logs.clear();
        one.onnx_models.clear();
        const Plan plan = solver_plan(one, planning, targets);
        const nlohmann::json coverage = coverage_json(plan);
        for (const auto& target : targets) {
            const auto& t = coverage[target.kdb_filename()];
            long conv = 0, other = 0, missing = 0;
            for (const auto& [kind, n] : t["kernels_by_kind"].items()) (kind == "conv" ? conv : other) += n.get<long>();
            for (const auto& [kind, n] : t["not_covered_by_kind"].items()) missing += n.get<long>();
            out[fs::path(network).filename().string()][target.kdb_filename()] = {
                {"conv_kernels", conv}, {"other_kernels", other}, {"kernels_by_kind", t["kernels_by_kind"]},
                {"not_covered", missing}, {"not_covered_by_kind", t["not_covered_by_kind"]}};
        }
    }
    return out;
}

void print_per_network(const nlohmann::json& networks) {
    fmt::print("{:<22} {:<18} {:>6} {:>6}  {:<44} {}\n", "network", "kdb", "conv", "other", "other kernels by kind",
               "not covered (problem, solver) by kind");
    for (const auto& [network, kdbs] : networks.items())
        for (const auto& [kdb, t] : kdbs.items()) {
            std::vector<std::string> kinds, missing;
            for (const auto& [kind, n] : t["kernels_by_kind"].items())
                if (kind != "conv") kinds.push_back(fmt::format("{} {}", kind, n.get<long>()));
            for (const auto& [kind, n] : t["not_covered_by_kind"].items())
                missing.push_back(fmt::format("{} {}", kind, n.get<long>()));
            fmt::print("{:<22} {:<18} {:>6} {:>6}  {:<44} {}\n", network, kdb, t["conv_kernels"].get<long>(),
                       t["other_kernels"].get<long>(), join(kinds, ", "), missing.empty() ? "-" : join(missing, ", "));
        }
}

// The per-kdb summary (served_summary) as lines a packager reads.
void print_summary(const nlohmann::json& summary) {
    const auto number = [](const nlohmann::json& j, const char* key) { return j.value(key, 0L); };
    if (summary.contains("find_db_lines")) {
        const auto& l = summary["find_db_lines"];
        fmt::print("  find-db lines: {} served with kernels, {} need none (rocBLAS, composable kernels), {} not served, "
                   "{} with no usable item ({} fusion ids only), of {}; {} with items tied with the winner\n",
                   number(l, "served"), number(l, "no_kdb_kernel"), number(l, "not_served"), number(l, "no_usable_item"),
                   number(l, "fusion_only"), number(l, "lines"), number(l, "with_ties"));
    }
    for (const char* part : {"no_record_path", "primitives"}) {
        if (!summary.contains(part)) continue;
        for (const auto& [source, counts] : summary[part].items())
            fmt::print("  {} ({}): {} of {} problems served{}\n",
                       part == std::string("primitives") ? "other primitives" : "convolutions, no-record path", source,
                       number(counts, "served"), number(counts, "problems"),
                       counts.contains("no_dynamic_solver") && number(counts, "no_dynamic_solver")
                           ? fmt::format(", {} with no dynamic solver", number(counts, "no_dynamic_solver"))
                           : "");
    }
    if (summary.contains("not_covered"))
        for (const auto& [reason, count] : summary["not_covered"].items())
            fmt::print("  not covered: {} ({})\n", count.get<long>(), reason);
}

void print_coverage(const Plan& plan, const nlohmann::json& coverage) {
    const auto share_line = [](const char* what, const nlohmann::json& share) {
        fmt::print("  {}: {:.1f}% ({} of {}; {} never asked for by MIOpen as configured, not counted)\n", what,
                   100.0 * share["share"].get<double>(), share["served"].get<long>(), share["counted"].get<long>(),
                   share["never_asked"].get<long>());
    };
    for (const auto& target : plan.targets) {
        const auto& t = coverage[target.kdb_filename()];
        fmt::print("{} ({}): {} kernels, {} compiles\n", target.kdb_filename(), target.spec(),
                   t["kernels"].get<std::size_t>(), t.value("compiles", std::size_t{0}));
        if (t.contains("cu_dependent") && t["cu_dependent"]["keys"].get<long>() > 0) {
            std::vector<std::string> counts;
            for (const auto& [cus, n] : t["cu_dependent"]["keys_by_cus"].items())
                counts.push_back(fmt::format("{} CUs {}", cus, n.get<long>()));
            fmt::print("  {} keys depend on the CU count ({})\n", t["cu_dependent"]["keys"].get<long>(), join(counts, ", "));
        }
        if (t.contains("summary")) print_summary(t["summary"]);
        if (t.contains("lines")) share_line("find-db lines whose winner's kernels are all planned", t["lines"]);
        if (t.contains("entries")) share_line("find-db entries planned", t["entries"]);
        if (t.contains("dynamic_find"))
            share_line("dynamic-find entries planned (problems without a usable find-db line)", t["dynamic_find"]);
        if (!t.contains("status")) continue;
        for (const auto& [status, count] : t["status"].items()) fmt::print("  {:>8}  {}\n", count.get<long>(), status);
        // What the kdb lacks: by line winner where there are lines, else by entry.
        const auto& per_solver = t.contains("winners") ? t["winners"] : t.value("solvers", nlohmann::json::object());
        std::vector<std::pair<long, std::string>> missing;
        for (const auto& [solver, states] : per_solver.items())
            for (const auto& [status, count] : states.items())
                if (status != "planned" && status != std::string(coverage_status_name(CoverageEntry::Status::Gemm)) &&
                    status != std::string(coverage_status_name(CoverageEntry::Status::PrecompiledKernels)))
                    missing.emplace_back(count.get<long>(), fmt::format("{} ({})", solver, status));
        std::sort(missing.rbegin(), missing.rend());
        if (!missing.empty()) fmt::print("  not covered, by {}:\n", t.contains("winners") ? "line winner" : "solver");
        for (std::size_t i = 0; i < missing.size() && i < 15; ++i)
            fmt::print("  {:>8}  {}\n", missing[i].first, missing[i].second);
        if (missing.size() > 15) fmt::print("  ... {} more (--json lists them)\n", missing.size() - 15);
    }
}

Action add_solvers_command(CLI::App& app) {
    auto* sub = app.add_subcommand("solvers", "list the MIOpen solvers kdbgen knows");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "print JSON");
    return [json]() {
        nlohmann::json out = nlohmann::json::array();
        for (const auto* solver : solver_catalog())
            out.push_back({{"name", solver->name()}, {"kind", "conv"}, {"builds_kernels", solver->builds_kernels()},
                           {"key_forms", solver->uses_general_options() ? 2 : 1}, {"dynamic", solver->dynamic()}});
        for (const auto* solver : primitive_catalog())
            out.push_back({{"name", solver->name()}, {"kind", solver->kind()}, {"builds_kernels", true}, {"key_forms", 1}});
        if (*json) print_json(out);
        else
            for (const auto& s : out)
                fmt::print("{:<28} {:<11} {}\n", s["name"].get<std::string>(), s["kind"].get<std::string>(),
                           s["builds_kernels"].get<bool>() ? fmt::format("{} key form(s)", s["key_forms"].get<int>())
                                                            : std::string("GEMM: no kdb kernel"));
        return 0;
    };
}

Action add_plan_command(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "plan", "show the problem configs of networks, logs, find-dbs and ONNX models, or the kernels each kdb will hold");
    auto options = std::make_shared<BuildOptions>();
    options->entry_coverage = true;
    options->targets.add_to(*sub);
    add_plan_source_flags(*sub, *options);
    add_problem_source_flags(*sub, *options);
    add_miopen_flags(*sub, *options);
    options->engine.add_to(*sub);
    sub->add_flag("--json", options->json, "print JSON (the deterministic work list)");
    auto shards = std::make_shared<unsigned>(0);
    sub->add_option("--shards", *shards, "also show which of N shards (build --shard K/N) builds each kernel");
    return [options, shards]() {
        const auto sources = options->problem_sources();
        if (options->engine.engine == "miopen")
            return run_engine_plan(options->engine, options->targets.resolve(), gather_problems(sources),
                                   options->json);
        const bool solver_plan = !options->miopen_src.empty() || (options->targets.list_given && !sources.empty()) ||
                                 (options->targets.file_given && !sources.empty());
        if (!sources.empty() && !solver_plan) {
            const ProblemSet set = gather_problems(sources);
            if (options->json) print_json(problems_json(set));
            else print_problems(set);
            return 0;
        }
        const auto planning = solver_planning(*options);
        const Plan plan = make_plan(*options, options->targets.resolve(), planning);
        std::vector<unsigned> shard_of;
        if (*shards > 0) {
            std::vector<const KernelBuild*> all;
            for (const auto& planned : plan.builds) all.push_back(&planned.build);
            shard_of = assign_shards(all, *shards);
        }
        std::map<fs::path, double> cost_of;  // per source file (the estimate reads its size)
        const auto cost = [&](const KernelBuild& build) {
            auto it = cost_of.find(build.source);
            if (it == cost_of.end()) it = cost_of.emplace(build.source, estimated_compile_cost(build)).first;
            return it->second;
        };
        const auto build_json = [&](std::size_t i) {
            const auto& planned = plan.builds[i];
            nlohmann::json b = {{"target", planned.build.target.spec()}, {"kdb", planned.build.target.kdb_filename()},
                                {"source", planned.build.source.filename().string()},
                                {"language", language_name(planned.build.language())},
                                {"kernel_name", planned.build.kdb_name()}, {"kernel_args", planned.build.kdb_args()},
                                {"symbols", planned.build.kernels}, {"origin", planned.origin},
                                {"cost", cost(planned.build)}};
            if (!shard_of.empty()) b["shard"] = shard_of[i] + 1;
            if (!planned.compute_units.empty()) b["compute_units"] = planned.compute_units;
            return b;
        };
        nlohmann::json coverage = coverage_json(plan);
        // Compiles after the same dedup `build` does (CU counts, the two key forms).
        std::map<std::string, std::set<std::string>> identities;
        for (const auto& planned : plan.builds)
            identities[planned.build.target.kdb_filename()].insert(compile_identity(planned.build));
        for (const auto& [kdb, unique] : identities) coverage[kdb]["compiles"] = unique.size();
        const nlohmann::json networks =
            options->networks.empty() || !planning ? nlohmann::json::object()
                                                   : per_network_json(*options, *planning, plan.targets);
        if (options->json) {
            // The builds are written one by one: a whole architecture has 10^5 of them.
            fmt::print("{{\"builds\": [");
            for (std::size_t i = 0; i < plan.builds.size(); ++i) fmt::print("{}{}", i ? ",\n" : "\n", json_text(build_json(i)));
            fmt::print("],\n\"uncovered\": {},\n\"coverage\": {},\n\"networks\": {}}}\n",
                       json_text(plan.uncovered), json_text(coverage), json_text(networks));
            return 0;
        }
        if (!plan.coverage.empty()) {
            print_coverage(plan, coverage);
            if (!networks.empty()) print_per_network(networks);
            return 0;
        }
        std::string last;
        for (const auto& planned : plan.builds) {
            if (planned.build.target.kdb_filename() != last) fmt::print("{}:\n", (last = planned.build.target.kdb_filename()));
            fmt::print("  {:<28} {}\n", planned.build.kdb_name(), planned.build.kdb_args());
        }
        fmt::print("{} kernels for {} targets\n", plan.builds.size(), plan.targets.size());
        for (const auto& line : plan.uncovered) fmt::print("not covered: {}\n", line);
        return 0;
    };
}

}  // namespace kdbgen::cli
