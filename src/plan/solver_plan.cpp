// Joins problem configs, targets and the solver catalog into kernel builds.
//
// In the default find-db mode each find-db line gets the kernels of the one
// solver MIOpen uses for it. MIOpen 3.3.0, src/ocl/convolutionocl.cpp:
//   :698-714  GetSolutions reads the line's items, dropping disabled algorithms and invalid ids;
//   :742-755  sorts them by time (SolutionTimeComparator, :549-565) and keeps the first whose
//             solver IsApplicable (which holds the env::enabled default-off switches);
//   :143-172  FindConvolution (Fast/Hybrid find, the default DynamicHybrid among them) and
//             immediate mode use that front() and compile only it (CompileSolution).
//
// Without a usable line (no record, or no item applicable: GetSolutions comes back
// empty and sets fallbackPathTaken, :771-787) the default find mode, DynamicHybrid
// (src/CMakeLists.txt:44, src/include/miopen/find_controls.hpp:122, :152-161), does not
// take the immediate-mode fallback's guess (:154-163: only with
// MIOPEN_DEBUG_FORCE_IMMED_MODE_FALLBACK) but runs FindCore with
// use_dynamic_solutions_only (:174-190): every finder's solvers that are dynamic and
// applicable (src/include/miopen/find_solution.hpp:283-330, SearchForAllSolutions) are
// compiled together (src/conv/solver_finders.cpp:316-358, PrecompileSolutions), each with
// its perf-db record or default configuration. When IsWinograd3x3SupportedAndFast
// (src/convolution.cpp:385-401: K >= 16, K even, ConvBinWinograd3x3U applicable) only the
// Winograd finder runs (solver_finders.cpp:60-195). The immediate-mode fallback
// (GetSolutionsFallback, :579-680) also picks among applicable dynamic solvers only, so
// the dynamic find's set covers it.
#include "kdbgen/corpus.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/primitive.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <iterator>
#include <atomic>
#include <future>
#include <thread>
#include <tuple>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>

#include <malloc.h>

namespace kdbgen {

using Status = CoverageEntry::Status;

namespace {

CoverageEntry::Source source_of(const ProblemSet::Entry& entry) {
    const std::string_view origin = entry.origins.empty() ? std::string_view() : entry.origins.front();
    if (origin.starts_with(kCorpusFindDbOrigin)) return CoverageEntry::Source::CorpusFindDb;
    if (origin.starts_with(kCorpusZooOrigin)) return CoverageEntry::Source::CorpusZoo;
    // A target's own find-db lines as its problem list carry the bare file name (plan_from_problems).
    if (origin.find(':') == std::string_view::npos && origin.find(".fdb.txt") != std::string_view::npos)
        return CoverageEntry::Source::FindDbLine;
    return CoverageEntry::Source::Given;
}

}  // namespace

std::string_view coverage_status_name(Status status) {
    switch (status) {
        case Status::Planned: return "planned";
        case Status::Gemm: return "gemm (no kdb kernel)";
        case Status::NotInCatalog: return "solver not in the catalog";
        case Status::NotApplicable: return "not applicable";
        case Status::NoFindDbRecord: return "no find-db record";
        case Status::SourceMissing: return "kernel source not in the MIOpen tree";
        case Status::NoConfiguration: return "no reproducible configuration";
        case Status::Excluded: return "excluded (--exclude-solvers)";
        case Status::DefaultOff: return "off by default in MIOpen";
        case Status::NotConvolution: return "not a convolution solver";
        case Status::PrecompiledKernels: return "precompiled in libMIOpen (no kdb kernel)";
    }
    return "?";
}

bool coverage_status_served(Status status) {
    return status == Status::Planned || status == Status::Gemm || status == Status::PrecompiledKernels;
}

bool coverage_status_never_asked(Status status) {
    return status == Status::DefaultOff || status == Status::NotConvolution;
}

namespace {

// The problem itself is not kept: the key names it (parse_conv_problem_key), and a parsed
// problem per line was half of an architecture's find-dbs in memory (200 MB for gfx90a).
struct FindDbLine {
    std::vector<FindDbSolver> items;  // as listed, duplicates dropped
};

struct FindDbFile {
    fs::path path;
    unsigned compute_units = 0;  // from its name
    std::map<std::string, FindDbLine> lines;
    UnreadableFindDbLines unreadable;  // tree files only: lines no MIOpen lookup can reach, skipped
};

// A card the kdb serves: one for a per-CU target, one per known CU count for
// an arch-wide one, each with the perf-db MIOpen would read on it.
struct CardContext {
    Target target;
    const PerfDb* perf_db = nullptr;
};

struct TargetDatabases {
    std::vector<FindDbFile> find_dbs;
    std::map<fs::path, std::unique_ptr<PerfDb>> perf_dbs;
    std::vector<CardContext> cards;
};

// A find-db the user gave is read strictly: any line that does not parse is
// an error. One kdbgen picked from the MIOpen tree is what MIOpen ships and
// reads as is; lines whose key MIOpen can never form are skipped (counted,
// reported as unreadable_lines), as MIOpen's own lookups never reach them.
enum class FindDbOrigin { Given, MiopenTree };

FindDbFile read_find_db_file(const fs::path& path, unsigned compute_units, FindDbOrigin origin,
                              const fs::path& decoded_dir) {
    FindDbFile file{path, compute_units, {}, {}};
    read_find_db_entries(path, decoded_dir, origin == FindDbOrigin::MiopenTree ? &file.unreadable : nullptr,
                         [&](FindDbEntry&& entry) {
                             auto& items = file.lines[std::move(entry.key)].items;
                             // DbRecord::ParseContents keeps the first of duplicate ids (src/db_record.cpp:155-159).
                             for (auto& s : entry.solvers)
                                 if (std::none_of(items.begin(), items.end(),
                                                  [&](const FindDbSolver& have) { return have.solver == s.solver; }))
                                     items.push_back(std::move(s));
                         });
    return file;
}

// The find-dbs a target's kdb is built from: the given files named after it,
// else the tree's (its own for a card; every one of its DbId when arch-wide).
std::vector<FindDbFile> target_find_dbs(const Target& target, const SolverPlanOptions& options) {
    std::vector<FindDbFile> out;
    for (const auto& path : options.find_dbs) {
        const std::string name = path.filename().string();
        if (!target.arch_wide()) {
            if (name.starts_with(target.db_basename() + "."))
                out.push_back(
                    read_find_db_file(path, target.compute_units, FindDbOrigin::Given, options.decoded_find_db_dir));
        } else if (const auto cus = db_file_compute_units(name, target.db_id())) {
            out.push_back(read_find_db_file(path, *cus, FindDbOrigin::Given, options.decoded_find_db_dir));
        }
    }
    if (!out.empty() || !options.tree) return out;
    if (!target.arch_wide()) {
        if (const auto path = options.tree->find_db(target))
            out.push_back(
                read_find_db_file(*path, target.compute_units, FindDbOrigin::MiopenTree, options.decoded_find_db_dir));
    } else {
        // An architecture's find-dbs (one per CU count) are parsed side by side; errors
        // surface in file order, as one at a time.
        std::vector<std::future<FindDbFile>> files;
        for (const auto& [path, cus] : options.tree->find_dbs_of(target))
            files.push_back(std::async(std::launch::async, [&options, path = path, cus = cus] {
                return read_find_db_file(path, cus, FindDbOrigin::MiopenTree, options.decoded_find_db_dir);
            }));
        for (auto& file : files) out.push_back(file.get());
    }
    return out;
}

std::vector<unsigned> card_compute_units(const Target& target, const SolverPlanOptions& options,
                                         const std::vector<FindDbFile>& find_dbs) {
    if (!target.arch_wide()) return {target.compute_units};
    std::set<unsigned> cus;
    if (const auto it = options.compute_units.find(std::string(target.name())); it != options.compute_units.end())
        cus.insert(it->second.begin(), it->second.end());
    for (const auto& file : find_dbs) cus.insert(file.compute_units);
    if (cus.empty())
        throw InputError(fmt::format("{}: no CU counts known for {} (configs/targets/products.toml lists none and the "
                                     "MIOpen tree has no find-db for it): give --cus, e.g. --cus 30,36,40",
                                     target.spec(), target.name()));
    return {cus.begin(), cus.end()};
}

// Stands for ExecutionContext::general_compile_options while a solver forms its kernels
// (no option string holds a unit separator).
constexpr std::string_view kGeneralOptionsMarker = "\x1f";

void replace_all(std::string& text, std::string_view from, std::string_view to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

struct Evaluation {
    Status status = Status::Planned;
    std::string detail;
    std::vector<PlannedBuild> builds;
};

}  // namespace

class TargetDatabaseCache {
public:
    const TargetDatabases& get(const Target& target, const SolverPlanOptions& options) {
        // Keyed by what decides the contents too, so a copy of the options
        // pointed at another tree or find-db reads its own.
        std::string key = fmt::format("{}\n{}", target.spec(), static_cast<const void*>(options.tree));
        for (const auto& path : options.find_dbs) key += "\n" + path.string();
        for (const auto& [processor, cus] : options.compute_units)
            if (processor == target.name()) key += "\n" + join_numbers(cus);
        auto [it, inserted] = by_target_.try_emplace(std::move(key));
        if (inserted) {
            auto& databases = it->second;
            databases.find_dbs = target_find_dbs(target, options);
            for (const unsigned cus : card_compute_units(target, options, databases.find_dbs)) {
                CardContext card{target, nullptr};
                card.target.compute_units = cus;
                if (const auto path = options.tree->perf_db(card.target)) {
                    auto& db = databases.perf_dbs[*path];
                    if (!db) db = std::make_unique<PerfDb>(*path);
                    card.perf_db = db.get();
                }
                databases.cards.push_back(std::move(card));
            }
        }
        return it->second;
    }

    // A plan that does not keep databases reads the target it plans next on a thread of its
    // own while it evaluates one, across plans made with copies of the same options too (a
    // build plans each group of targets alone): reading an architecture's find-dbs otherwise
    // leaves a core idle for seconds.
    void read_ahead(const Target& target, const SolverPlanOptions& options) {
        if (ahead_.valid() && ahead_spec_ == target.spec()) return;
        SolverPlanOptions copy = options;
        copy.databases.reset();  // the reading thread must not keep this cache alive
        ahead_spec_ = target.spec();
        ahead_ = std::async(std::launch::async, [copy = std::move(copy), target] {
            auto databases = std::make_unique<TargetDatabaseCache>();
            databases->get(target, copy);
            return databases;
        });
    }
    // The databases read ahead for target, or read now.
    std::unique_ptr<TargetDatabaseCache> take_read_ahead(const Target& target, const SolverPlanOptions& options) {
        read_ahead(target, options);
        ahead_spec_.clear();
        return ahead_.get();
    }

private:
    static std::string join_numbers(const std::vector<unsigned>& values) {
        std::string out;
        for (const auto v : values) out += std::to_string(v) + ",";
        return out;
    }
    std::map<std::string, TargetDatabases> by_target_;
    std::string ahead_spec_;
    std::future<std::unique_ptr<TargetDatabaseCache>> ahead_;
};

std::shared_ptr<TargetDatabaseCache> make_target_database_cache() { return std::make_shared<TargetDatabaseCache>(); }

std::optional<KernelBuild> miopen_kernel_build(const SolverKernel& kernel, const Target& target, const MiopenTree& tree) {
    return miopen_kernel_build(SolverKernel(kernel), target, tree);
}

std::optional<KernelBuild> miopen_kernel_build(SolverKernel&& kernel, const Target& target, const MiopenTree& tree) {
    auto source = tree.kernel_source(kernel.file);
    if (!source) return std::nullopt;
    KernelBuild build;
    build.source = std::move(*source);
    build.kernel_file = std::move(kernel.file);
    build.options = std::move(kernel.options);
    // Options grow by appends, so up to half their buffer is slack: held by 10^5 builds.
    build.options.shrink_to_fit();
    build.target = target;
    build.kernels = std::move(kernel.symbols);
    build.include_dirs = tree.include_dirs(build.source);
    return build;
}

namespace {

// The builds added to a plan for one target, one per kdb key: a repeated key is merged into
// the build already there, as deduplicate() would merge it later. A whole find-db asks for
// the same helper and dynamic kernels thousands of times, and holding every copy until then
// was most of planning's memory.
class UniqueBuilds {
public:
    explicit UniqueBuilds(std::vector<PlannedBuild>& builds)
        : builds_(builds), index_(0, SameKey{&builds}, SameKey{&builds}) {}
    void add(PlannedBuild&& build) {
        const std::size_t index = builds_.size();
        builds_.push_back(std::move(build));
        const auto [at, added] = index_.insert(index);
        if (added) return;
        merge_duplicate_build(builds_[*at], builds_.back());
        builds_.pop_back();
    }

private:
    // Indexes of builds_ added here, by kdb key (all of one target).
    struct SameKey {
        const std::vector<PlannedBuild>* builds;
        const KernelBuild& at(std::size_t i) const { return (*builds)[i].build; }
        std::size_t operator()(std::size_t i) const {
            return std::hash<std::string_view>()(at(i).options) ^ (std::hash<std::string_view>()(at(i).kernel_file) << 1);
        }
        bool operator()(std::size_t a, std::size_t b) const {
            return at(a).options == at(b).options && at(a).kernel_file == at(b).kernel_file;
        }
    };
    std::vector<PlannedBuild>& builds_;
    std::unordered_set<std::size_t, SameKey, SameKey> index_;
};

// One target's share of the plan.
class TargetPlanner {
public:
    TargetPlanner(const Target& target, const SolverPlanOptions& options, const TargetDatabases& databases, Plan& plan)
        : target_(target), options_(options), databases_(databases), plan_(plan) {}

    // Entries [begin, end) of the problem list, in order.
    void plan(const ProblemSet& problems, std::size_t begin, std::size_t end) {
        const auto& entries = problems.entries();
        for (std::size_t i = begin; i < end && i < entries.size(); ++i) {
            const auto& entry = entries[i];
            if (const auto* conv = std::get_if<ConvProblem>(&entry.problem)) plan_convolution(entry, *conv);
            else if (const auto* command = std::get_if<DriverCommandProblem>(&entry.problem))
                add_coverage(entry, "", Status::NotApplicable,
                             fmt::format("kdbgen's planner has no solvers for MIOpenDriver {} (issue #50): "
                                         "--engine miopen replays it through the installed MIOpenDriver",
                                         command->command));
            else plan_primitive(entry);
        }
    }

private:
    // Solvers in the catalog, unless --exclude-solvers leaves them out.
    const Solver* catalog_solver(std::string_view name) const {
        const Solver* solver = find_solver(name);
        if (solver && excluded(name)) return nullptr;
        return solver;
    }
    bool excluded(std::string_view name) const {
        return std::find(options_.excluded_solvers.begin(), options_.excluded_solvers.end(), name) !=
               options_.excluded_solvers.end();
    }

    void add_coverage(const ProblemSet::Entry& entry, std::string solver, Status status, std::string detail,
                      bool dynamic_find = false) {
        if (!options_.record_coverage) return;
        plan_.coverage.push_back({target_.kdb_filename(), entry.key, std::string(problem_kind(entry.problem)),
                                  std::move(solver), status, std::move(detail), dynamic_find, source_of(entry)});
    }

    SolverContext context_for(const CardContext& card, const std::string& general) const {
        return SolverContext{card.target, options_.tree->version(), general, card.perf_db, options_.tree};
    }

    const CardContext& card_with(unsigned compute_units) const {
        for (const auto& card : databases_.cards)
            if (card.target.compute_units == compute_units) return card;
        return databases_.cards.front();
    }

    // The builds of one solver kernel list, or nullopt (with the file) when a source is missing.
    // The kernels are taken apart: their option strings (a kilobyte each) move into the builds.
    std::optional<std::vector<PlannedBuild>> builds_for(const ProblemSet::Entry& entry, std::string_view name,
                                                        std::vector<SolverKernel> kernels, std::string* missing) const {
        std::vector<PlannedBuild> builds;
        builds.reserve(kernels.size());
        for (auto& kernel : kernels) {
            auto build = miopen_kernel_build(std::move(kernel), target_, *options_.tree);
            if (!build) {
                *missing = kernel.file;  // left as it was: nothing is taken from a kernel without a source
                return std::nullopt;
            }
            const std::string& first_origin = entry.origins.front();
            std::string origin;
            origin.reserve(entry.key.size() + name.size() + first_origin.size() + 4);
            origin.append(entry.key).append(" ").append(name).append(" (").append(first_origin).append(")");
            builds.push_back({std::move(*build), std::move(origin), std::string(problem_kind(entry.problem)), {}});
        }
        return builds;
    }

    // Why MIOpen as configured never runs a solver name (nullopt: it may).
    std::optional<std::pair<Status, std::string>> never_run(std::string_view name, const ConvView& view,
                                                            const SolverContext& ctx) const {
        if (const Solver* solver = catalog_solver(name)) {
            if (solver->composable_kernel() && !options_.build.composable_kernel)
                return std::pair{Status::DefaultOff, "MIOpen built without composable kernels (--ck off; "
                                                     "MIOPEN_USE_COMPOSABLEKERNEL, CMakeLists.txt:261)"};
            if (auto reason = solver->disabled_by_default(view, ctx)) return std::pair{Status::DefaultOff, *reason};
            return std::nullopt;
        }
        const auto external = external_solver(name);
        if (!external) return std::nullopt;
        switch (external->kind) {
            case ExternalSolver::Kind::NotConvolution: return std::pair{Status::NotConvolution, external->reason};
            case ExternalSolver::Kind::DefaultOff: return std::pair{Status::DefaultOff, external->reason};
            case ExternalSolver::Kind::Mlir:
                if (!options_.build.mlir)
                    return std::pair{Status::DefaultOff, "MIOpen built without MLIR (--mlir off): " + external->reason};
                return std::nullopt;
            case ExternalSolver::Kind::PrecompiledKernels:
                if (!options_.build.composable_kernel)
                    return std::pair{Status::DefaultOff,
                                     "MIOpen built without composable kernels (--ck off): " + external->reason};
                return std::nullopt;
        }
        return std::nullopt;
    }

    // What planning a solver for a problem gives, over the cards the kdb serves.
    // `home` is the card whose status is reported (the find-db line's own);
    // with check_applicable, cards on which the solver does not apply get nothing; cards
    // `include` turns down are left out (home must be one it keeps).
    // home_known_applicable: the caller has just seen applicable() hold on home.
    Evaluation evaluate(const ProblemSet::Entry& entry, const ConvView& view, std::string_view name,
                        const CardContext& home, bool check_applicable,
                        const std::function<bool(const CardContext&)>& include = nullptr,
                        bool home_known_applicable = false) const {
        Evaluation ev;
        const std::string general = data_type_options(view);
        if (excluded(name)) return {Status::Excluded, "", {}};
        const Solver* solver = find_solver(name);
        if (!solver) {
            const auto external = external_solver(name);
            if (auto off = never_run(name, view, context_for(home, general))) return {off->first, off->second, {}};
            if (external && external->kind == ExternalSolver::Kind::PrecompiledKernels)
                return {Status::PrecompiledKernels, external->reason, {}};
            return {Status::NotInCatalog, external ? external->reason : "", {}};
        }
        if (auto off = never_run(name, view, context_for(home, general))) return {off->first, off->second, {}};
        if (!solver->builds_kernels()) return {Status::Gemm, "", {}};
        const bool check = check_applicable && solver->applicability_modelled();
        std::string why;
        if (check && !home_known_applicable && !solver->applicable(view, context_for(home, general), &why))
            return {Status::NotApplicable, why, {}};
        if (auto inside = solver->kernels_in_library(view)) return {Status::PrecompiledKernels, *inside, {}};

        // The cards to evaluate: all of them for a CU-dependent solver; else one per perf-db.
        std::vector<std::pair<const CardContext*, std::vector<unsigned>>> cards;
        for (const auto& card : databases_.cards) {
            if (include && !include(card)) continue;
            auto same = std::find_if(cards.begin(), cards.end(), [&](const auto& c) {
                return !solver->uses_compute_units() && c.first->perf_db == card.perf_db;
            });
            if (same != cards.end()) same->second.push_back(card.target.compute_units);
            else cards.push_back({&card, {card.target.compute_units}});
        }
        // The reported card first: its failure is the entry's status.
        std::stable_partition(cards.begin(), cards.end(), [&](const auto& c) {
            return std::find(c.second.begin(), c.second.end(), home.target.compute_units) != c.second.end();
        });
        // One evaluation for every card (one perf-db, a solver blind to CU counts, no card left
        // out): every key is every card's, so no key is tagged, and none needs counting.
        const bool every_card_at_once = cards.size() == 1 && cards.front().second.size() == databases_.cards.size();
        std::map<std::pair<std::string, std::string>, std::set<unsigned>> asked_by;
        std::vector<PlannedBuild> builds;
        std::vector<std::string> other_cards;
        for (std::size_t i = 0; i < cards.size(); ++i) {
            const auto& [card, cus] = cards[i];
            const bool reported = i == 0;
            SolverContext ctx = context_for(*card, general);
            if (!reported && check && !solver->applicable(view, ctx, nullptr)) continue;
            // MIOpen asks for the data-type block once or twice (DESIGN.md):
            // solvers that copy the general options get both keys. The solver runs
            // once, with a marker where the block goes (its heuristics are the
            // plan's hot spot), and each form is the marker replaced.
            std::vector<std::string> forms{general};
            if (solver->uses_general_options()) {
                forms.push_back(general + general);
                ctx.general_options = kGeneralOptionsMarker;
            }
            const auto solved = solver->kernels(view, ctx);
            std::vector<PlannedBuild> card_builds;
            bool failed = false;
            for (const auto& form : forms) {
                if (solved.empty()) {
                    // e.g. a tunable solver without a perf-db record whose default kdbgen cannot reproduce.
                    if (reported) ev = {Status::NoConfiguration, std::string(solver->missing_kernels_reason()), {}};
                    failed = true;
                    break;
                }
                auto kernels = solved;
                if (solver->uses_general_options())
                    for (auto& kernel : kernels) replace_all(kernel.options, kGeneralOptionsMarker, form);
                std::string missing;
                auto more = builds_for(entry, name, std::move(kernels), &missing);
                if (!more) {
                    if (reported) ev = {Status::SourceMissing, missing, {}};
                    failed = true;
                    break;
                }
                for (auto& b : *more) card_builds.push_back(std::move(b));
            }
            if (failed) {
                if (reported) return ev;
                other_cards.push_back(fmt::format("{} CUs", cus.front()));
                continue;
            }
            for (auto& b : card_builds) {
                if (!every_card_at_once) {
                    auto& users = asked_by[{b.build.kdb_name(), b.build.kdb_args()}];
                    users.insert(cus.begin(), cus.end());
                }
                builds.push_back(std::move(b));
            }
        }
        if (!other_cards.empty()) ev.detail = "no configuration for " + join(other_cards, ", ");
        // Tag keys that only some cards ask for; deduplicate() merges the rest.
        const std::size_t all = databases_.cards.size();
        if (!every_card_at_once)
            for (auto& b : builds) {
                const auto& users = asked_by[{b.build.kdb_name(), b.build.kdb_args()}];
                if (users.size() < all) b.compute_units.assign(users.begin(), users.end());
            }
        ev.builds = std::move(builds);
        return ev;
    }

    void take(Evaluation& ev) {
        for (auto& b : ev.builds) add_build(std::move(b));
        ev.builds.clear();
    }

    void add_build(PlannedBuild&& build) { planned_.add(std::move(build)); }

    // Every find-db line for a problem key: one per find-db file that has it.
    std::vector<std::pair<const FindDbFile*, const FindDbLine*>> lines_for(const std::string& key) const {
        std::vector<std::pair<const FindDbFile*, const FindDbLine*>> out;
        for (const auto& file : databases_.find_dbs)
            if (const auto it = file.lines.find(key); it != file.lines.end()) out.emplace_back(&file, &it->second);
        return out;
    }

    // Returns whether MIOpen can use an item of the line (else its find falls back to the dynamic find).
    bool plan_line(const ProblemSet::Entry& entry, const ConvView& view, const FindDbFile& file,
                   const FindDbLine& line) {
        const CardContext& home = card_with(file.compute_units);
        auto items = line.items;
        // SolutionTimeComparator (src/ocl/convolutionocl.cpp:549-565): positive times
        // ascending, then the negative (coarse) estimates by modulus. MIOpen keeps times as
        // float (FindDbData::time, src/include/miopen/find_db.hpp) and the items of a record in
        // an std::unordered_map (src/include/miopen/db_record.hpp:167) before sorting them
        // (src/ocl/convolutionocl.cpp:706-742): among equal times its order is the map's, not
        // the file's, so every usable item tied with the winner is planned (below).
        const auto as_float = [](const FindDbSolver& item) { return static_cast<float>(item.time); };
        std::stable_sort(items.begin(), items.end(), [&](const FindDbSolver& a, const FindDbSolver& b) {
            const float ta = as_float(a), tb = as_float(b);
            if (ta < 0 && tb < 0) return ta > tb;
            if (ta > 0 && tb < 0) return true;
            if (ta < 0 && tb > 0) return false;
            return ta < tb;
        });
        LineCoverage result{target_.kdb_filename(), entry.key, file.path.filename().string(), "", Status::DefaultOff, "",
                            {}, {}, false};
        result.fusion_only = std::all_of(line.items.begin(), line.items.end(), [](const FindDbSolver& item) {
            const auto external = external_solver(item.solver);
            return external && external->kind == ExternalSolver::Kind::NotConvolution;
        });
        const std::string general = data_type_options(view);
        bool any_not_applicable = false;
        std::set<std::string_view> evaluated;  // interned names
        std::optional<float> winner_time;
        for (const auto& item : items) {
            if (winner_time && as_float(item) != *winner_time) break;
            const SolverContext ctx = context_for(home, general);
            std::optional<std::pair<Status, std::string>> skip = never_run(item.solver, view, ctx);
            const Solver* solver = catalog_solver(item.solver);
            std::string why;
            if (!skip && solver && solver->applicability_modelled() && !solver->applicable(view, ctx, &why)) {
                skip = std::pair{Status::NotApplicable, why};
                if (!winner_time) any_not_applicable = true;
            }
            if (skip) {
                if (winner_time) continue;  // a tied item MIOpen cannot run either
                result.skipped.push_back({std::string(item.solver), skip->first, skip->second});
                if (!options_.entry_coverage && options_.mode == SolverMode::FindDb) {
                    add_coverage(entry, std::string(item.solver), skip->first, skip->second);
                    evaluated.insert(item.solver);
                }
                continue;
            }
            // never_run() and applicable() above passed on home (or the solver is not in the catalog).
            Evaluation ev = evaluate(entry, view, item.solver, home, true, nullptr, true);
            if (!winner_time) {
                result.winner = std::string(item.solver);
                result.status = ev.status;
                result.detail = ev.detail;
                winner_time = as_float(item);
            } else {
                result.tied.push_back(std::string(item.solver));
                if (!coverage_status_served(ev.status) && coverage_status_served(result.status)) {
                    // MIOpen may run the tied item: the line is served only if it is too.
                    result.status = ev.status;
                    result.detail = fmt::format("tied with the winner on time: {} ({}){}", item.solver,
                                                coverage_status_name(ev.status), ev.detail.empty() ? "" : ": " + ev.detail);
                }
            }
            if (options_.mode == SolverMode::FindDb) {
                if (!options_.entry_coverage) {
                    add_coverage(entry, std::string(item.solver), ev.status, ev.detail);
                    evaluated.insert(item.solver);
                }
                take(ev);
            }
        }
        const bool usable = !result.winner.empty();
        if (!usable) {
            if (any_not_applicable) result.status = Status::NotApplicable;
            result.detail = std::string(result.fusion_only       ? "every item is a fusion id, which MIOpen 3.3 cannot run for an unfused convolution"
                                        : any_not_applicable ? "no item of the line applies"
                                                             : "no item is enabled") +
                            "; MIOpen's find falls back to the dynamic find (GetSolutions empty, "
                            "src/ocl/convolutionocl.cpp:771-787)";
        }
        if (options_.record_coverage) plan_.lines.push_back(std::move(result));
        // Every listed entry, as find-db-all plans it (and builds it in that mode).
        if (options_.entry_coverage || options_.mode == SolverMode::FindDbAll) {
            for (const auto& item : line.items) {
                if (evaluated.count(item.solver)) continue;
                Evaluation ev = evaluate(entry, view, item.solver, home, false);
                add_coverage(entry, std::string(item.solver), ev.status, ev.detail);
                if (options_.mode == SolverMode::FindDbAll) take(ev);
            }
        }
        return usable;
    }

    // IsWinograd3x3SupportedAndFast (src/convolution.cpp:385-401, MIOpen 3.3.0): then FindCore
    // runs the Winograd finder alone (src/conv/solver_finders.cpp:60-195, use_winograd_only).
    bool winograd_only(const ConvView& view, const SolverContext& ctx) const {
        if (!(view.GetOutChannels() >= 16 && view.GetOutChannels() % 2 == 0)) return false;
        static const Solver* wino = find_solver("ConvBinWinograd3x3U");
        return wino && wino->applicable(view, ctx, nullptr);
    }

    // What MIOpen's default find builds on the cards `needs` keeps, which have no usable find-db
    // line for the problem: every dynamic solver that is applicable there (see the top of the file).
    void plan_dynamic_find(const ProblemSet::Entry& entry, const ConvView& view, const std::string& reason,
                           const std::function<bool(const CardContext&)>& needs) {
        // One context per card for the ~40 dynamic solvers' applicability checks below: building
        // them per check (a copy of the options block each) was a third of a corpus plan's time.
        const std::string general = data_type_options(view);
        std::vector<SolverContext> contexts;
        contexts.reserve(databases_.cards.size());
        for (const auto& card : databases_.cards) contexts.push_back(context_for(card, general));
        std::vector<char> needed(databases_.cards.size()), winograd_alone(databases_.cards.size());
        bool any_needed = false;
        for (std::size_t i = 0; i < databases_.cards.size(); ++i) {
            needed[i] = needs(databases_.cards[i]);
            if (needed[i]) winograd_alone[i] = winograd_only(view, contexts[i]), any_needed = true;
        }
        if (!any_needed) return;
        const auto card_index = [&](const CardContext& card) { return static_cast<std::size_t>(&card - databases_.cards.data()); };
        bool any = false;
        for (const auto* solver : solver_catalog()) {
            if (!solver->dynamic()) continue;
            const auto include = [&](const CardContext& card) {
                const std::size_t i = card_index(card);
                return needed[i] && (solver->winograd() || !winograd_alone[i]);
            };
            // Reported on the first card it applies to (arch-wide kdbs: the others follow in evaluate()).
            const CardContext* home = nullptr;
            for (std::size_t i = 0; i < databases_.cards.size(); ++i)
                if (include(databases_.cards[i]) && solver->applicable(view, contexts[i], nullptr)) {
                    home = &databases_.cards[i];
                    break;
                }
            if (!home) continue;
            const std::string name(solver->name());
            Evaluation ev = evaluate(entry, view, name, *home, true, include, true);
            if (ev.status == Status::NotApplicable || ev.status == Status::DefaultOff) continue;
            add_coverage(entry, name, ev.status, ev.detail.empty() ? reason : reason + "; " + ev.detail, true);
            if (options_.complete_key_families && ev.status == Status::Planned) add_table_kernels(entry, view, *solver, *home);
            take(ev);
            any = true;
        }
        if (!any)
            add_coverage(entry, "", Status::NoFindDbRecord, reason + "; no dynamic solver applies", true);
    }

    // A solver that picks its kernel from a fixed table gets every row of the problem's data
    // type and direction, once per target (Solver::table_kernels).
    void add_table_kernels(const ProblemSet::Entry& entry, const ConvView& view, const Solver& solver,
                           const CardContext& home) {
        if (!tables_planned_.emplace(&solver, view.p.data_types, view.p.direction).second) return;
        const auto kernels = solver.table_kernels(view, context_for(home, data_type_options(view)));
        if (kernels.empty()) return;
        std::string missing;
        auto builds = builds_for(entry, solver.name(), kernels, &missing);
        if (!builds) return;  // a row whose file the tree lacks: MIOpen cannot build it either
        for (auto& b : *builds) {
            b.origin = fmt::format("{}: every {} kernel of its table", solver.name(), view.p.data_types);
            add_build(std::move(b));
        }
    }

    void plan_convolution(const ProblemSet::Entry& entry, const ConvProblem& conv) {
        const ConvView view{conv};
        if (options_.mode == SolverMode::Applicable) {
            const std::string general = data_type_options(view);
            for (const auto* solver : solver_catalog()) {
                const std::string name(solver->name());
                if (!solver->builds_kernels() || !solver->applicability_modelled()) continue;
                // Reported on the first card it applies to; evaluate() adds the other cards it applies to.
                const CardContext* home = &databases_.cards.front();
                for (const auto& card : databases_.cards)
                    if (solver->applicable(view, context_for(card, general), nullptr)) {
                        home = &card;
                        break;
                    }
                Evaluation ev = evaluate(entry, view, name, *home, true);
                if (ev.status == Status::NotApplicable || ev.status == Status::DefaultOff) continue;
                add_coverage(entry, name, ev.status, ev.detail);
                take(ev);
            }
            return;
        }
        // Cards whose find-db has a line MIOpen can use take its winner; the others (no find-db
        // of their own, no line, or no usable item) take the dynamic find.
        std::set<unsigned> served;
        for (const auto& [file, line] : lines_for(entry.key))
            if (plan_line(entry, view, *file, *line)) served.insert(file->compute_units);
        plan_dynamic_find(entry, view,
                          served.empty() ? "no usable find-db record: MIOpen's default find (DynamicHybrid) builds "
                                           "every applicable dynamic solver"
                                         : "cards without a usable find-db line: the dynamic find",
                          [&](const CardContext& card) { return !served.count(card.target.compute_units); });
    }

    void plan_primitive(const ProblemSet::Entry& entry) {
        // MIOpen runs the first applicable solver of a fixed list; cards differ only where a
        // solver reads the CU count, so each card is planned and the keys merged.
        std::string name;
        bool planned = false;
        std::map<std::pair<std::string, std::string>, std::set<unsigned>> asked_by;
        std::vector<PlannedBuild> builds;
        for (std::size_t i = 0; i < databases_.cards.size(); ++i) {
            const auto& card = databases_.cards[i];
            const bool reported = i == 0;
            const PrimitiveContext ctx{card.target, options_.tree->version()};
            std::string why;
            const PrimitiveSolver* solver = choose_primitive_solver(entry.problem, ctx, &why);
            if (!solver) {
                if (reported) add_coverage(entry, "", Status::NotApplicable, why);
                continue;
            }
            name = solver->name();
            if (excluded(name)) {
                if (reported) add_coverage(entry, name, Status::Excluded, "");
                continue;
            }
            auto kernels = solver->kernels(entry.problem, ctx);
            if (kernels.empty()) {
                if (reported) add_coverage(entry, name, Status::NoConfiguration, "the solver builds no kernel here");
                continue;
            }
            std::string missing;
            auto more = builds_for(entry, name, std::move(kernels), &missing);
            if (!more) {
                if (reported) add_coverage(entry, name, Status::SourceMissing, missing);
                continue;
            }
            if (reported) add_coverage(entry, name, Status::Planned, "");
            planned = true;
            for (auto& b : *more) {
                asked_by[{b.build.kdb_name(), b.build.kdb_args()}].insert(card.target.compute_units);
                builds.push_back(std::move(b));
            }
        }
        if (!planned) return;
        for (auto& b : builds) {
            const auto& users = asked_by[{b.build.kdb_name(), b.build.kdb_args()}];
            if (users.size() < databases_.cards.size()) b.compute_units.assign(users.begin(), users.end());
            add_build(std::move(b));
        }
    }

    const Target& target_;
    const SolverPlanOptions& options_;
    const TargetDatabases& databases_;
    Plan& plan_;
    UniqueBuilds planned_{plan_.builds};
    // (solver, data types, direction) given every table row: asked for every dynamic solver
    // planned for every problem, so no key string is formed.
    std::set<std::tuple<const Solver*, std::string, ConvDirection>> tables_planned_;
};

}  // namespace

namespace {

// A whole find-db is ~10^5 problems, each planned on its own: contiguous
// chunks of the list are planned on two threads into plans of their own and
// folded into the plan in list order, so it is the one a single thread makes. (The
// solvers share only read-only data and the GTC tables, which are locked.)
// Eight chunks per thread, each taken by the next free thread: two halves left
// a quarter of the evaluation on one core, as problems differ in cost by orders
// of magnitude (an xdlops search against a naive kernel).
void plan_in_parts(const Target& target, const SolverPlanOptions& options, const TargetDatabases& databases,
                   const ProblemSet& problems, Plan& plan) {
    constexpr std::size_t kMinimumPerThread = 2000;
    constexpr std::size_t kChunksPerThread = 8;
    const std::size_t count = problems.entries().size();
    const unsigned threads =
        options.planning_threads
            ? static_cast<unsigned>(std::min<std::size_t>(options.planning_threads, std::max<std::size_t>(count, 1)))
            : static_cast<unsigned>(std::min<std::size_t>({std::max(1u, std::min(2u, std::thread::hardware_concurrency())),
                                                           std::max<std::size_t>(1, count / kMinimumPerThread)}));
    if (threads <= 1) {
        TargetPlanner(target, options, databases, plan).plan(problems, 0, count);
        return;
    }
    const std::size_t chunks = std::min<std::size_t>(count, threads * kChunksPerThread);
    std::vector<Plan> parts(chunks);
    std::vector<std::exception_ptr> errors(chunks);
    // Each finished chunk is folded into the plan as soon as every chunk before it is: its
    // builds merged into the ones already there by key, as deduplicate() would merge them
    // (in list order, so the same plan), while the others are evaluated. The chunks of an
    // architecture repeat many of each other's keys; holding those copies to the end was
    // 30 MiB of the peak of planning all 25 (995 -> 965 MiB).
    UniqueBuilds folded(plan.builds);
    std::mutex fold_lock;
    std::vector<bool> finished(chunks, false);
    std::size_t next_to_fold = 0;
    std::atomic<std::size_t> kept{plan.builds.size()}, kept_at_last_trim{plan.builds.size()};
    const auto fold_finished = [&](std::size_t chunk) {
        std::lock_guard lock(fold_lock);
        finished[chunk] = true;
        for (; next_to_fold < chunks && finished[next_to_fold]; ++next_to_fold) {
            Plan& part = parts[next_to_fold];
            for (auto& build : part.builds) folded.add(std::move(build));
            std::move(part.coverage.begin(), part.coverage.end(), std::back_inserter(plan.coverage));
            std::move(part.lines.begin(), part.lines.end(), std::back_inserter(plan.lines));
            part = Plan{};
        }
        kept = plan.builds.size();
    };
    constexpr std::size_t kTrimAfterBuilds = 4096;
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            for (std::size_t c = next++; c < chunks; c = next++) {
                try {
                    TargetPlanner(target, options, databases, parts[c]).plan(problems, count * c / chunks,
                                                                              count * (c + 1) / chunks);
                    fold_finished(c);
                } catch (...) {
                    errors[c] = std::current_exception();
                }
                // What the chunk's evaluation freed lies between the builds it keeps; given
                // back now, it does not add up over an architecture (300 MB of gfx90a's RSS).
                // Only once thousands of builds were kept since the last time: a trim walks
                // the whole heap, the corpus' included, and a processor without a find-db
                // keeps a few thousand builds in all (its trims were 5% of its planning).
                if (const std::size_t now = kept; now >= kept_at_last_trim + kTrimAfterBuilds) {
                    kept_at_last_trim = now;
                    ::malloc_trim(0);
                }
            }
        });
    for (auto& worker : workers) worker.join();
    for (const auto& error : errors)
        if (error) std::rethrow_exception(error);  // the first chunk's error first, as one thread would
}

}  // namespace

Plan plan_from_problems(const ProblemSet& problems, const std::vector<Target>& targets, const SolverPlanOptions& options) {
    if (!options.tree) throw InputError("planning MIOpen's solvers needs a MIOpen source tree (--miopen-src)");
    if (problems.entries().empty() && !options.find_db_problems_when_empty)
        throw InputError("the problem sources given yield no problem to plan");
    Plan plan;
    plan.targets = targets;
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point start) {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    // Databases a plan does not keep are read one target ahead (after the last, the next
    // plan's first), on a thread of their own, while the target before is evaluated.
    const bool shared = options.databases && options.keep_databases;
    TargetDatabaseCache ahead_here;  // without a shared cache to hold what is read ahead
    TargetDatabaseCache& ahead = options.databases ? *options.databases : ahead_here;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const Target& target = targets[i];
        auto started = Clock::now();
        std::unique_ptr<TargetDatabaseCache> read = shared ? nullptr : ahead.take_read_ahead(target, options);
        if (!shared && i + 1 < targets.size()) ahead.read_ahead(targets[i + 1], options);
        else if (!shared && options.next_target) ahead.read_ahead(*options.next_target, options);
        const TargetDatabases& databases = (shared ? *options.databases : *read).get(target, options);
        plan.timings.read_databases += seconds_since(started);
        started = Clock::now();

        // The problems for this target: the ones given, or else its find-dbs' lines.
        ProblemSet own;
        const ProblemSet* set = &problems;
        if (problems.entries().empty()) {
            if (databases.find_dbs.empty())
                throw InputError(fmt::format("no problems given and no find-db for {} ({}.HIP.fdb.txt.bz2 in {} or "
                                             "--find-db)",
                                             target.spec(),
                                             target.arch_wide() ? target.db_id() + "*" : target.db_basename(),
                                             options.tree->kernels_dir().string()));
            std::size_t lines = 0;
            for (const auto& file : databases.find_dbs) lines += file.lines.size();
            own.reserve(lines);  // 10^5 entries: growing by doubling would hold two copies at once
            for (const auto& file : databases.find_dbs)
                for (const auto& [key, line] : file.lines)
                    own.add(parse_conv_problem_key(key), file.path.filename().string());
            set = &own;
        }
        for (const auto& file : databases.find_dbs)
            if (file.unreadable.count)
                plan.unreadable_lines.push_back({target.kdb_filename(), file.path.string(), file.unreadable});
        plan_in_parts(target, options, databases, *set, plan);
        plan.timings.evaluate += seconds_since(started);
        // The read-ahead thread allocates in an arena of its own; what it freed would
        // otherwise stay mapped beside the builds until the end.
        if (!shared) ::malloc_trim(0);
    }
    const auto started = Clock::now();
    deduplicate(plan);
    if (options.complete_key_families) complete_key_families(plan);
    plan.timings.deduplicate = seconds_since(started);
    // Planning freed most of what it used (find-db lines stay in the database cache);
    // give the freed pages back before the compiles start.
    ::malloc_trim(0);
    return plan;
}

}  // namespace kdbgen
