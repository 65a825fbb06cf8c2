// plan(PlanRequest): which problems, which plan, which cache entry.
#include "kdbgen/pipeline.hpp"
#include "pipeline_internal.hpp"

#include "kdbgen/cache.hpp"
#include "kdbgen/corpus.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/plan_cache.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <set>

namespace kdbgen {

// What planning MIOpen's solvers needs, made once per Planner.
struct Planner::Solvers {
    std::unique_ptr<MiopenTree> tree;
    SolverPlanOptions options;
    fs::path plan_cache_dir;  // empty with the cache disabled
};

namespace {

std::string tree_dir_of(const PlanRequest& request) {
    std::string tree_dir = request.miopen_src;
    if (tree_dir.empty() && !request.sources.empty())
        if (const char* env = std::getenv("KDBGEN_MIOPEN_SRC"); env && *env) tree_dir = env;
    return tree_dir;
}

CorpusOptions corpus_options(const PlanRequest& request, const SolverPlanOptions& options, const MiopenTree& tree,
                             const ProblemSources& sources) {
    return corpus_options_for(request, sources, tree.kernels_dir(), options.decoded_find_db_dir);
}

// With a tree a given find-db serves the target it is named after; one named for none would be
// dropped without a word, and its lines (and any error in them) never read.
void check_find_dbs_serve_targets(const std::vector<fs::path>& find_dbs, const std::vector<Target>& targets) {
    for (const auto& path : find_dbs) {
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
}

// One warning per tree find-db with lines MIOpen can never look up (read once, however many targets share it).
void warn_unreadable_lines(const Plan& plan, std::set<std::string>& warned) {
    for (const auto& skipped : plan.unreadable_lines) {
        if (!warned.insert(skipped.find_db).second) continue;
        fmt::print(stderr,
                   "kdbgen: warning: {}: skipped {} line(s) whose key MIOpen never forms, so never looks up (first: "
                   "line {}: {})\n",
                   skipped.find_db, skipped.lines.count, skipped.lines.first_line, skipped.lines.first_reason);
    }
}

}  // namespace

Planner::Planner(PlanRequest request) : request_(std::move(request)) {
    const std::string tree_dir = tree_dir_of(request_);
    if (tree_dir.empty()) return;
    if (!request_.manifest.empty()) throw InputError("--manifest and --miopen-src are separate plans: give one");
    solvers_ = std::make_unique<Solvers>();
    solvers_->tree = std::make_unique<MiopenTree>(MiopenTree::open(tree_dir, request_.assume_version));
    SolverPlanOptions& options = solvers_->options;
    options.tree = solvers_->tree.get();
    options.mode = request_.mode;
    options.build = request_.build;
    options.entry_coverage = request_.entry_coverage;
    options.record_coverage = request_.record_coverage;
    options.keep_databases = request_.keep_databases;
    // The cards of arch-wide targets: the request's CU counts, else the product table.
    std::vector<Product> products;
    for (const auto& target : request_.targets) {
        if (!target.arch_wide()) continue;
        if (!request_.compute_units.empty()) {
            options.compute_units[std::string(target.name())] = request_.compute_units;
            continue;
        }
        if (products.empty()) products = read_products((data_path("configs") / "targets" / "products.toml").string());
        options.compute_units[std::string(target.name())] = product_compute_units(products, target.name());
    }
    options.find_dbs = request_.sources.find_dbs;
    // Unpacked find-dbs and plans live in the build cache folder (unless it is disabled).
    if (!request_.cache_disabled) {
        solvers_->plan_cache_dir = request_.cache_dir.empty() ? BuildCache::default_dir() : fs::path(request_.cache_dir);
        options.decoded_find_db_dir = solvers_->plan_cache_dir / "find-db";
    }
    for (const auto& name : request_.excluded_solvers) {
        if (!find_solver(name))
            throw InputError(fmt::format("--exclude-solvers: '{}' is not a solver kdbgen knows (kdbgen solvers)", name));
        options.excluded_solvers.push_back(name);
    }
}

Planner::~Planner() = default;

bool Planner::solver_plan() const { return solvers_ != nullptr; }

Plan Planner::plan() const {
    std::set<std::string> warned;
    Plan plan = make(request_.sources, request_.targets, nullptr, nullptr, nullptr);
    warn_unreadable_lines(plan, warned);
    return plan;
}

Plan Planner::plan(const ProblemSources& sources) const {
    return make(sources, request_.targets, nullptr, nullptr, nullptr);
}

bool Planner::plan_each(const std::vector<std::vector<Target>>& groups,
                        const std::function<bool(const Plan&)>& take) const {
    std::set<std::string> warned;
    Gathered gathered;  // the problems, read at most once for all groups
    for (std::size_t g = 0; g < groups.size(); ++g) {
        PlanCacheUse cache;
        cache.defer_store = true;
        const Target* next = g + 1 < groups.size() ? &groups[g + 1].front() : nullptr;
        const Plan plan = make(request_.sources, groups[g], next, &gathered, &cache);
        // A new plan's cache entry is written on a thread of its own while the plan is handed
        // over (it is read, never changed, by both); declared after the plan, so that it is
        // done before the plan goes, whatever happens.
        std::future<void> stored;
        if (cache.store) stored = std::async(std::launch::async, [&] { cache.store(plan); });
        warn_unreadable_lines(plan, warned);
        if (!take(plan)) return false;
    }
    return true;
}

Plan Planner::make(const ProblemSources& sources, const std::vector<Target>& targets, const Target* next_target,
                   Gathered* gathered, PlanCacheUse* cache_use) const {
    if (!solvers_) {
        if (!sources.empty())
            throw InputError("planning kernels for networks, logs, find-dbs or ONNX models needs a MIOpen source tree: "
                             "give --miopen-src DIR (or set KDBGEN_MIOPEN_SRC)");
        const fs::path manifest =
            request_.manifest.empty() ? data_path("configs") / "demo" / "kernels.toml" : request_.manifest;
        const fs::path kernels = request_.kernels_dir.empty() ? data_path("kernels") : request_.kernels_dir;
        return plan_from_manifest(manifest, kernels, targets);
    }
    Gathered once;
    if (!gathered) gathered = &once;
    // With a MIOpen tree a find-db names the solvers for the target it is named after; with no
    // other problem source, each target's find-db (given, or the tree's) is also its problem list.
    ProblemSources problem_only = sources;
    problem_only.find_dbs.clear();
    check_find_dbs_serve_targets(solvers_->options.find_dbs, targets);
    SolverPlanOptions plan_options = solvers_->options;
    if (next_target) plan_options.next_target = *next_target;
    if (corpus_enabled(request_, sources)) {
        const CorpusOptions corpus = corpus_options(request_, solvers_->options, *solvers_->tree, sources);
        plan_options.complete_key_families = true;
        if (!gathered->given) {
            gathered->given = gather_problems(problem_only);
            if (!request_.quiet) print_left_out(*gathered->given);
            if (!request_.quiet)
                fmt::print(stderr, "kdbgen: planning the built-in corpus (the find-dbs of the MIOpen tree{}){}\n",
                           request_.zoo ? " and the network zoo" : "",
                           gathered->given->entries().empty() ? "" : " and the problems given");
            gathered->fingerprint = corpus_fingerprint(corpus) + problem_set_fingerprint(*gathered->given);
        }
        // Gathered only when the plan cache has no entry: reading 1.1 million find-db lines is
        // most of a warm plan's time otherwise.
        return cached_plan_from_source(
            gathered->fingerprint,
            [&]() -> const ProblemSet& {
                if (!gathered->problems) {
                    gathered->problems = corpus_problems(corpus);
                    if (!request_.quiet) print_left_out(*gathered->problems);
                    gathered->problems->merge(*gathered->given);
                    gathered->problems->finish_adding();
                }
                return *gathered->problems;
            },
            targets, plan_options, solvers_->plan_cache_dir, cache_use);
    }
    if (!gathered->problems) {
        gathered->problems = gather_problems(problem_only);
        if (!request_.quiet) print_left_out(*gathered->problems);
        // Only with no problem source at all do the find-dbs become the problem list.
        if (problem_only.empty() && !request_.quiet)
            fmt::print(stderr, "kdbgen: no problem source given (--network, --driver-log, --onnx) and --corpus off: "
                               "the problems are every line of each target's find-db{}\n",
                       sources.find_dbs.empty() ? " in the MIOpen tree" : " given");
    }
    plan_options.find_db_problems_when_empty = problem_only.empty();
    return cached_plan_from_problems(*gathered->problems, targets, plan_options, solvers_->plan_cache_dir, cache_use);
}

// The corpus is what a packager's `--targets gfx1100` alone plans; given problem sources
// replace it unless the request asks for both.
void print_left_out(const ProblemSet& problems) {
    for (const auto& [why, count] : problems.left_out())
        fmt::print(stderr, "kdbgen: {} problems not planned: {}\n", count, why);
}

bool corpus_enabled(const PlanRequest& request, const ProblemSources& sources) {
    if (request.corpus != PlanRequest::Corpus::Auto) return request.corpus == PlanRequest::Corpus::On;
    return sources.empty();
}

CorpusOptions corpus_options_for(const PlanRequest& request, const ProblemSources& sources, const fs::path& find_db_dir,
                                 const fs::path& decoded_find_db_dir) {
    CorpusOptions corpus;
    if (request.corpus_find_dbs) corpus.find_db_dir = find_db_dir;
    corpus.decoded_find_db_dir = decoded_find_db_dir;
    if (request.zoo) {
        corpus.zoo = zoo_networks(data_path("configs") / "networks");
        const NetworkExpansion defaults = default_zoo_expansion();
        const NetworkExpansion& given = sources.expansion;
        corpus.zoo_expansion = {given.batch_sizes.empty() ? defaults.batch_sizes : given.batch_sizes,
                                given.data_types.empty() ? defaults.data_types : given.data_types,
                                given.layouts.empty() ? defaults.layouts : given.layouts,
                                given.modes.empty() ? defaults.modes : given.modes};
    }
    return corpus;
}

Plan plan(const PlanRequest& request) { return Planner(request).plan(); }

std::string compile_identity(const KernelBuild& build) { return code_identity(build) + "\n" + build.source.string(); }

}  // namespace kdbgen
