// kdbgen build: options -> BuildRequest -> build() -> the report as text or JSON.
#include "commands.hpp"
#include "common.hpp"
#include "engine_build.hpp"
#include "pipeline_options.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/pipeline.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>

namespace kdbgen::cli {

namespace {

nlohmann::json phases_json(const std::vector<PhaseClock::Phase>& phases, const Plan::Timings& plan) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& p : phases)
        out[p.name] = {{"seconds", p.seconds},
                       {"user_seconds", p.user_seconds},
                       {"system_seconds", p.system_seconds},
                       {"kdbgen_cpu_seconds", p.own_seconds},
                       {"kdbgen_peak_rss_bytes", p.peak_rss_bytes}};
    // Planning's own split (wall seconds), inside "plan".
    if (out.contains("plan"))
        out["plan"]["parts"] = {{"read_find_db", plan.read_databases},
                                {"evaluate", plan.evaluate},
                                {"deduplicate", plan.deduplicate},
                                {"plan_cache", plan.cache},
                                {"plan_cache_hit", plan.cache_hit}};
    return out;
}

std::string phases_summary(const std::vector<PhaseClock::Phase>& phases, const Plan::Timings& plan) {
    std::vector<std::string> parts;
    for (const auto& p : phases) {
        std::string part = fmt::format("{} {:.2f}s (cpu {:.2f}s user, {:.2f}s sys, {:.2f}s of it kdbgen's own; "
                                       "peak RSS {} MB)",
                                       p.name, p.seconds, p.user_seconds, p.system_seconds, p.own_seconds,
                                       p.peak_rss_bytes >> 20);
        if (p.name == "plan" && plan.cache_hit)
            part += fmt::format(" [from the plan cache {:.2f}s]", plan.cache);
        else if (p.name == "plan")
            part += fmt::format(" [read find-db {:.2f}s, evaluate {:.2f}s, dedup {:.2f}s, plan cache {:.2f}s]",
                                plan.read_databases, plan.evaluate, plan.deduplicate, plan.cache);
        parts.push_back(part);
    }
    return join(parts, "; ");
}

// How the compiles ran: in kdbgen-compile-worker processes or as clang processes, and why.
nlohmann::json in_process_json(const BuildReport& report) {
    const auto& stats = report.in_process_stats;
    return {{"enabled", report.in_process},
            {"worker", report.worker.string()},
            {"reason", report.not_in_process_reason},
            {"workers_started", stats.workers_started},
            {"commands", stats.commands},
            {"run_as_process", stats.not_in_process},
            {"worker_deaths", stats.worker_deaths},
            {"worker_peak_rss_bytes", stats.worker_peak_rss_bytes}};
}

// What the compiles cost, by language and by kernel file (a solver family's source), for
// tools/bench and docs/performance.md.
nlohmann::json costs_json(const std::map<std::string, CompileCost>& costs) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, cost] : costs)
        out[name] = {{"compiles", cost.compiles},
                     {"seconds", cost.seconds},
                     {"cpu_seconds", cost.cpu_seconds},
                     {"cpu_seconds_per_compile", cost.compiles ? cost.cpu_seconds / static_cast<double>(cost.compiles) : 0.0}};
    return out;
}

int run_build(const PipelineOptions& options) {
    if (options.engine.engine == "miopen") {
        if (!options.manifest.empty() || !options.miopen_src.empty() || options.dry_run)
            throw InputError("--engine miopen takes no --manifest, --miopen-src or --dry-run: the installed MIOpen "
                             "plans and compiles");
        BuildRequest request = options.build_request();
        request.engine = Engine::Miopen;
        request.miopen = options.engine.request();
        return run_engine_build(std::move(request), options.json, options.quiet);
    }
    if (options.output.empty()) throw InputError("no output folder: give -o DIR");
    BuildRequest request = options.build_request();
    if (options.dry_run) {
        // The exact commands a build runs, with {OUT} and {SCRATCH} for the per-kernel output
        // file and scratch folder (tools/bench replays them), printed as they are formed.
        bool first = true;
        if (options.json) fmt::print("{{\"compiles\": [");
        request.dry_run = [&](const KernelBuild& build, const std::vector<std::vector<std::string>>& commands) {
            if (options.json)
                fmt::print("{}{}", first ? "\n" : ",\n",
                           json_text(nlohmann::json{{"kernel", build.describe()}, {"commands", commands}}));
            else
                for (const auto& argv : commands) fmt::print("{}\n", shell_quote(argv));
            first = false;
        };
        const BuildReport report = build(request);
        if (spdlog::should_log(spdlog::level::debug))
            fmt::print(stderr, "kdbgen: phases: {}\n", phases_summary(report.phases, report.plan_timings));
        if (options.json) fmt::print("],\n\"phases\": {}}}\n", json_text(phases_json(report.phases, report.plan_timings)));
        return kExitOk;
    }
    const BuildReport report = build(request);
    if (!options.json)
        for (const auto& failure : report.failures)
            fmt::print(stderr, "kdbgen: error: {} failed\n  command: {}\n{}\n", failure.describe, failure.command,
                       first_lines(failure.log, 40));
    switch (report.outcome) {
        case BuildReport::Outcome::Interrupted:
            fmt::print(stderr, "kdbgen: interrupted; no kdb written\n");
            return kExitInterrupted;
        case BuildReport::Outcome::FailFast:
            fmt::print(stderr, "kdbgen: --fail-fast: {} kernel(s) failed; no kdb written\n", report.failed);
            return kExitSomeFailed;
        case BuildReport::Outcome::TooFewBuilt:
            fmt::print(stderr, "kdbgen: error: too few kernels built (--min-built {}); no kdb written, the old ones are "
                               "unchanged:\n  {}\n",
                       options.min_built.empty() ? "1" : options.min_built, join(report.too_few, "\n  "));
            return kExitSomeFailed;
        case BuildReport::Outcome::Ok:
        case BuildReport::Outcome::SomeFailed: break;
    }
    nlohmann::json report_targets = nlohmann::json::array();
    for (const auto& kdb : report.kdbs) {
        nlohmann::json failures = nlohmann::json::array();
        for (const auto& f : kdb.failures)
            failures.push_back({{"kernel_name", f.kernel_name}, {"kernel_args", f.kernel_args}, {"origin", f.origin},
                                {"log", f.log}, {"command", f.command}});
        report_targets.push_back({{"target", target_json(kdb.target)}, {"kdb", kdb.kdb.string()},
                                  {"records", kdb.stats.records}, {"replaced", kdb.stats.replaced},
                                  {"kept", kdb.stats.kept}, {"code_bytes", kdb.stats.code_bytes},
                                  {"file_bytes", kdb.stats.file_bytes}, {"failed", failures}});
        if (!options.json)
            fmt::print("{}: {} kernels, {} (code {}){}\n", kdb.kdb.string(), kdb.stats.records,
                       human_bytes(kdb.stats.file_bytes), human_bytes(kdb.stats.code_bytes),
                       kdb.failures.empty() ? "" : fmt::format(", {} FAILED", kdb.failures.size()));
    }
    if (spdlog::should_log(spdlog::level::debug))
        fmt::print(stderr, "kdbgen: phases: {}\n", phases_summary(report.phases, report.plan_timings));
    if (options.json) {
        print_json({{"targets", report_targets},
                    {"kernels", report.kernels},
                    {"compiles", report.compiles},
                    {"cached", report.cached},
                    {"failed", report.failed},
                    {"uncovered", report.uncovered},
                    {"seconds", report.seconds},
                    {"phases", phases_json(report.phases, report.plan_timings)},
                    {"compile_time",
                     {{"by_language", costs_json(report.cost_by_language)},
                      {"by_kernel_file", costs_json(report.cost_by_kernel_file)}}},
                    {"toolchain", report.toolchain},
                    {"in_process", in_process_json(report)}});
    } else {
        fmt::print("{} compiles ({} from cache, {} failed) in {:.1f}s\n", report.compiles, report.cached, report.failed,
                   report.seconds);
    }
    return report.failed ? kExitSomeFailed : kExitOk;
}

}  // namespace

Action add_build_command(CLI::App& app) {
    auto* sub = app.add_subcommand("build", "compile the planned kernels and write one kdb per target");
    auto options = std::make_shared<PipelineOptions>();
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

}  // namespace kdbgen::cli
