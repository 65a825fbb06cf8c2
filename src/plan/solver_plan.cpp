// Joins problem configs, targets and the solver catalog into kernel builds.
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/primitive.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace kdbgen {

std::string_view coverage_status_name(CoverageEntry::Status status) {
    switch (status) {
        case CoverageEntry::Status::Planned: return "planned";
        case CoverageEntry::Status::Gemm: return "gemm (no kdb kernel)";
        case CoverageEntry::Status::NotInCatalog: return "solver not in the catalog";
        case CoverageEntry::Status::NotApplicable: return "not applicable";
        case CoverageEntry::Status::NoFindDbRecord: return "no find-db record";
        case CoverageEntry::Status::SourceMissing: return "kernel source not in the MIOpen tree";
        case CoverageEntry::Status::NoConfiguration: return "no reproducible configuration";
        case CoverageEntry::Status::Excluded: return "excluded (--exclude-solvers)";
    }
    return "?";
}

namespace {

// find-db records of one target: problem key -> solvers, best first.
std::map<std::string, std::vector<std::string>> find_db_solvers(const Target& target, const SolverPlanOptions& options) {
    std::map<std::string, std::vector<std::string>> out;
    const auto load = [&](const fs::path& path) {
        for (const auto& entry : read_find_db(path)) {
            auto& solvers = out[entry.key];
            for (const auto& s : entry.solvers)
                if (std::find(solvers.begin(), solvers.end(), s.solver) == solvers.end()) solvers.push_back(s.solver);
        }
    };
    bool given = false;
    for (const auto& path : options.find_dbs) {
        const std::string name = path.filename().string();
        if (name.starts_with(target.db_basename() + ".")) {
            load(path);
            given = true;
        }
    }
    if (!given && options.tree)
        if (const auto path = options.tree->find_db(target)) load(*path);
    return out;
}

struct TargetDatabases {
    std::map<std::string, std::vector<std::string>> find_db;  // problem key -> solvers, best first
    std::unique_ptr<PerfDb> perf_db;
};

}  // namespace

class TargetDatabaseCache {
public:
    const TargetDatabases& get(const Target& target, const SolverPlanOptions& options) {
        // Keyed by what decides the contents too, so a copy of the options
        // pointed at another tree or find-db reads its own.
        std::string key = fmt::format("{}\n{}", target.spec(), static_cast<const void*>(options.tree));
        for (const auto& path : options.find_dbs) key += "\n" + path.string();
        auto [it, inserted] = by_target_.try_emplace(std::move(key));
        if (inserted) {
            it->second.find_db = find_db_solvers(target, options);
            if (const auto path = options.tree->perf_db(target)) it->second.perf_db = std::make_unique<PerfDb>(*path);
        }
        return it->second;
    }

private:
    std::map<std::string, TargetDatabases> by_target_;
};

std::shared_ptr<TargetDatabaseCache> make_target_database_cache() { return std::make_shared<TargetDatabaseCache>(); }

std::optional<KernelBuild> miopen_kernel_build(const SolverKernel& kernel, const Target& target, const MiopenTree& tree) {
    const auto source = tree.kernel_source(kernel.file);
    if (!source) return std::nullopt;
    KernelBuild build;
    build.source = *source;
    build.kernel_file = kernel.file;
    build.options = kernel.options;
    build.target = target;
    build.kernels = kernel.symbols;
    build.include_dirs = {tree.kernels_dir()};
    return build;
}

Plan plan_from_problems(const ProblemSet& problems, const std::vector<Target>& targets, const SolverPlanOptions& options) {
    if (!options.tree) throw InputError("planning MIOpen's solvers needs a MIOpen source tree (--miopen-src)");
    Plan plan;
    plan.targets = targets;
    const auto catalog = solver_catalog();
    for (const auto& target : targets) {
        TargetDatabaseCache uncached;
        const TargetDatabases& databases = (options.databases ? *options.databases : uncached).get(target, options);
        const auto& records = databases.find_db;

        // The problems for this target: the ones given, or else its find-db's.
        ProblemSet own;
        const ProblemSet* set = &problems;
        if (problems.entries().empty()) {
            if (records.empty())
                throw InputError(fmt::format("no problems given and no find-db for {} ({}.HIP.fdb.txt.bz2 in {} or "
                                             "--find-db)",
                                             target.spec(), target.db_basename(), options.tree->kernels_dir().string()));
            for (const auto& [key, solvers] : records) own.add(parse_conv_problem_key(key), target.db_basename() + " find-db");
            set = &own;
        }
        const auto add_coverage = [&](const ProblemSet::Entry& entry, std::string solver, CoverageEntry::Status status,
                                      std::string detail) {
            plan.coverage.push_back({target.kdb_filename(), entry.key, std::string(problem_kind(entry.problem)),
                                     std::move(solver), status, std::move(detail)});
        };
        // The builds for a solver's kernels, or nullopt (and a coverage entry) when a source is missing.
        const auto builds_for = [&](const ProblemSet::Entry& entry, const std::string& name,
                                    const std::vector<SolverKernel>& kernels) -> std::optional<std::vector<PlannedBuild>> {
            std::vector<PlannedBuild> builds;
            for (const auto& kernel : kernels) {
                auto build = miopen_kernel_build(kernel, target, *options.tree);
                if (!build) {
                    add_coverage(entry, name, CoverageEntry::Status::SourceMissing, kernel.file);
                    return std::nullopt;
                }
                builds.push_back({std::move(*build), fmt::format("{} {} ({})", entry.key, name, entry.origins.front()),
                                  std::string(problem_kind(entry.problem))});
            }
            return builds;
        };
        for (const auto& entry : set->entries()) {
            const auto* conv = std::get_if<ConvProblem>(&entry.problem);
            if (!conv) {
                const PrimitiveContext ctx{target, options.tree->version()};
                std::string why;
                const PrimitiveSolver* solver = choose_primitive_solver(entry.problem, ctx, &why);
                if (!solver) {
                    add_coverage(entry, "", CoverageEntry::Status::NotApplicable, why);
                    continue;
                }
                const std::string name(solver->name());
                if (std::find(options.excluded_solvers.begin(), options.excluded_solvers.end(), name) !=
                    options.excluded_solvers.end()) {
                    add_coverage(entry, name, CoverageEntry::Status::Excluded, "");
                    continue;
                }
                const auto kernels = solver->kernels(entry.problem, ctx);
                if (kernels.empty()) {
                    add_coverage(entry, name, CoverageEntry::Status::NoConfiguration, "the solver builds no kernel here");
                    continue;
                }
                auto builds = builds_for(entry, name, kernels);
                if (!builds) continue;
                add_coverage(entry, name, CoverageEntry::Status::Planned, "");
                for (auto& b : *builds) plan.builds.push_back(std::move(b));
                continue;
            }
            const ConvView view{*conv};
            std::vector<std::pair<const Solver*, std::string>> chosen;  // solver, or its missing name
            if (options.mode == SolverMode::FindDb) {
                const auto it = records.find(entry.key);
                if (it == records.end()) {
                    add_coverage(entry, "", CoverageEntry::Status::NoFindDbRecord,
                                 "the find-db has no record; --solvers applicable plans it anyway");
                    continue;
                }
                for (const auto& name : it->second) chosen.emplace_back(find_solver(name), name);
            } else {
                for (const auto* solver : catalog) chosen.emplace_back(solver, std::string(solver->name()));
            }
            const std::string general = data_type_options(view);
            for (const auto& [solver, name] : chosen) {
                if (!solver) {
                    add_coverage(entry, name, CoverageEntry::Status::NotInCatalog, "");
                    continue;
                }
                if (std::find(options.excluded_solvers.begin(), options.excluded_solvers.end(), name) !=
                    options.excluded_solvers.end()) {
                    add_coverage(entry, name, CoverageEntry::Status::Excluded, "");
                    continue;
                }
                if (!solver->builds_kernels()) {
                    if (options.mode == SolverMode::FindDb) add_coverage(entry, name, CoverageEntry::Status::Gemm, "");
                    continue;
                }
                SolverContext ctx{target, options.tree->version(), general, databases.perf_db.get()};
                std::string why;
                if (options.mode == SolverMode::Applicable && !solver->applicable(view, ctx, &why)) continue;
                // MIOpen asks for the data-type block once or twice (see DESIGN.md):
                // solvers that copy the general options get both keys.
                std::vector<std::string> forms{general};
                if (solver->uses_general_options()) forms.push_back(general + general);
                bool missing = false;
                std::vector<PlannedBuild> builds;
                for (const auto& form : forms) {
                    ctx.general_options = form;
                    const auto kernels = solver->kernels(view, ctx);
                    if (kernels.empty()) {
                        // e.g. ConvAsm1x1U on gfx908 without a perf-db record: MIOpen's AI-tuned default.
                        add_coverage(entry, name, CoverageEntry::Status::NoConfiguration,
                                     std::string(solver->missing_kernels_reason()));
                        missing = true;
                        break;
                    }
                    auto more = builds_for(entry, name, kernels);
                    if (!more) {
                        missing = true;
                        break;
                    }
                    for (auto& b : *more) builds.push_back(std::move(b));
                }
                if (missing) continue;
                add_coverage(entry, name, CoverageEntry::Status::Planned, "");
                for (auto& b : builds) plan.builds.push_back(std::move(b));
            }
        }
    }
    deduplicate(plan);
    return plan;
}

}  // namespace kdbgen
