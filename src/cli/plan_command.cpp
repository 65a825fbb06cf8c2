// kdbgen plan: the problems of the sources given, or the plan of each kdb with what it serves.
#include "commands.hpp"
#include "common.hpp"
#include "engine_build.hpp"
#include "pipeline_options.hpp"

#include "kdbgen/coverage.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/pipeline.hpp"
#include "kdbgen/primitive.hpp"
#include "kdbgen/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace kdbgen::cli {

namespace {

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

// Per network and kdb: kernels by problem kind (conv or another primitive)
// and the (problem, solver) pairs not covered, from one plan per network.
nlohmann::json per_network_json(const PipelineOptions& options, const Planner& planner) {
    nlohmann::json out = nlohmann::json::object();
    const auto& targets = planner.request().targets;
    for (const auto& network : options.networks) {
        ProblemSources one = options.problem_sources();
        one.networks = {network};
        one.driver_logs.clear();
        one.onnx_models.clear();
        const Plan plan = planner.plan(one);
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

}  // namespace

Action add_plan_command(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "plan", "show the problem configs of networks, logs, find-dbs and ONNX models, or the kernels each kdb will hold");
    auto options = std::make_shared<PipelineOptions>();
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
        const Planner planner(options->plan_request());
        const Plan plan = planner.plan();
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
        const nlohmann::json networks = options->networks.empty() || !planner.solver_plan()
                                            ? nlohmann::json::object()
                                            : per_network_json(*options, planner);
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
