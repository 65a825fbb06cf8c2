// build(BuildRequest): plan -> compile -> one kdb per target.
#include "kdbgen/pipeline.hpp"

#include "kdbgen/cache.hpp"
#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/jobs.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/shard.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <map>
#include <unordered_map>
#include <unistd.h>

namespace kdbgen {

namespace {

// min_built: N kernels per kdb, or P% of the kernels planned for it.
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

// What a compiler prints when its scratch folder fails it rather than the kernel.
bool is_scratch_space_failure(const std::string& log) {
    for (const char* text : {"No space left on device", "Disk quota exceeded", "Read-only file system", "TMPDIR "})
        if (log.find(text) != std::string::npos) return true;
    return false;
}

void record_toolchain(BuildReport& report, const Compiler& compiler) {
    report.toolchain = compiler.toolchain().clang_version;
    report.in_process = compiler.in_process();
    report.worker = compiler.worker_path();
    report.not_in_process_reason = compiler.not_in_process_reason();
    report.in_process_stats = compiler.in_process_stats();
}

}  // namespace

BuildReport build(const BuildRequest& request) {
    const auto started = std::chrono::steady_clock::now();
    PhaseClock clock;
    BuildReport report;
    const auto& targets = request.plan.targets;
    const bool dry_run = static_cast<bool>(request.dry_run);
    if (request.output.empty()) throw InputError("no output folder: give -o DIR");
    const fs::path& out_dir = request.output;
    // Every input is read and checked before anything is written: a rejected input leaves no
    // output folder behind (and no plan in the cache).
    std::error_code ec;
    if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
        throw InputError(located(out_dir.string(), 0, "output folder is a file"));
    min_built_for(request.min_built, 0);  // a bad value is an input error before any work
    if (!request.shard.empty()) parse_shard(request.shard);
    // Scratch of killed runs goes first; a TMPDIR that cannot take a file
    // fails the run here, before anything is planned or replaced.
    remove_dead_scratch();
    check_tmpdir();
    PlanRequest plan_request = request.plan;
    plan_request.record_coverage = false;  // coverage is kdbgen plan's report
    plan_request.keep_databases = false;   // planned once
    Plan plan = Planner(std::move(plan_request)).plan();
    if (!request.shard.empty()) keep_shard(plan, parse_shard(request.shard));

    // A plan with nothing for a kdb would write an empty kdb over a good one.
    std::map<std::string, std::size_t> planned_per_kdb;
    for (const auto& planned : plan.builds) ++planned_per_kdb[planned.build.target.kdb_filename()];
    if (!dry_run)
        for (const auto& target : targets)
            if (!planned_per_kdb.count(target.kdb_filename()))
                throw InputError(fmt::format("the plan has no kernel for {} ({}){}: nothing written", target.kdb_filename(),
                                             target.spec(), request.shard.empty() ? "" : " in shard " + request.shard));

    // The builds to compile, in plan.builds (which stays as it is from here on).
    std::vector<const KernelBuild*> unique;
    std::vector<std::size_t> unique_index(plan.builds.size());
    {
        // Indexed by the identity's hash, the identity itself formed again only to confirm a
        // match: 10^5 identities of 1.3 KB each held as keys were the peak of planning all 25
        // architectures (0.6 GB). The hashes are made on two threads (forming an identity
        // canonicalizes the options).
        const std::size_t count = plan.builds.size();
        std::vector<std::size_t> hashes(count);
        const auto hash_range = [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                hashes[i] = std::hash<std::string>{}(compile_identity(plan.builds[i].build));
        };
        if (count > 10000) {
            auto first_half = std::async(std::launch::async, hash_range, 0, count / 2);
            hash_range(count / 2, count);
            first_half.get();
        } else {
            hash_range(0, count);
        }
        std::unordered_multimap<std::size_t, std::size_t> unique_by_hash;
        unique_by_hash.reserve(count);
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t hash = hashes[i];
            const auto [first, last] = unique_by_hash.equal_range(hash);
            std::string identity;
            const auto same = std::find_if(first, last, [&](const auto& candidate) {
                if (identity.empty()) identity = compile_identity(plan.builds[i].build);
                return compile_identity(*unique[candidate.second]) == identity;
            });
            if (same != last) {
                unique_index[i] = same->second;
                continue;
            }
            unique_index[i] = unique.size();
            unique_by_hash.emplace(hash, unique.size());
            unique.push_back(&plan.builds[i].build);
        }
    }
    report.kernels = plan.builds.size();
    report.compiles = unique.size();
    report.uncovered = plan.uncovered;
    report.plan_timings = plan.timings;
    clock.mark("plan");
    std::unique_ptr<BuildCache> cache;
    if (!request.plan.cache_disabled)
        cache = std::make_unique<BuildCache>(
            request.plan.cache_dir.empty() ? BuildCache::default_dir() : fs::path(request.plan.cache_dir),
            request.max_cache_bytes);
    // Without a cache the toolchain's derived files go to a private mkdtemp folder.
    ToolchainOptions toolchain = request.toolchain;
    toolchain.work_dir = cache ? cache->dir() / "toolchain" : fs::path();
    // A dry run starts no worker: it prints the commands, which are the same either way.
    const Compiler compiler(discover_toolchain(toolchain), cache.get(), dry_run ? InProcess::Off : request.in_process);
    if (compiler.in_process()) spdlog::debug("compiling in-process with {}", compiler.worker_path().string());
    else if (!compiler.not_in_process_reason().empty())
        spdlog::debug("compiling with clang processes, not in-process: {}", compiler.not_in_process_reason());
    clock.mark("toolchain");

    if (dry_run) {
        if (!cache && !request.plan.quiet)
            spdlog::warn("with --no-cache the commands name the toolchain's derived files in {}, a private folder "
                         "removed when kdbgen exits; give --cache-dir to keep them for running the commands",
                         compiler.toolchain().work_dir.string());
        // Handed over as they are formed: a whole architecture has 10^5 of them.
        for (const auto* build : unique) request.dry_run(*build, compiler.commands(*build, "{OUT}", "{SCRATCH}"));
        report.phases = clock.phases();
        record_toolchain(report, compiler);
        return report;
    }

    fs::create_directories(out_dir, ec);
    if (ec || !fs::is_directory(out_dir))
        throw InputError(located(out_dir.string(), 0, "cannot create output folder" + (ec ? ": " + ec.message() : "")));
    if (::access(out_dir.c_str(), W_OK) != 0) throw InputError(located(out_dir.string(), 0, "output folder is not writable"));

    // Every kdb of the build is staged; the compiles stream into them.
    KdbTransaction transaction(out_dir);
    std::map<std::string, std::size_t> stage_of;  // kdb file name -> stage
    for (const auto& target : targets)
        stage_of[target.kdb_filename()] = transaction.add_kdb(out_dir / target.kdb_filename(), request.update, target);
    std::vector<std::vector<std::size_t>> plan_builds_of(unique.size());
    for (std::size_t i = 0; i < plan.builds.size(); ++i) plan_builds_of[unique_index[i]].push_back(i);

    JobOptions jobs;
    jobs.jobs = request.jobs;
    jobs.fail_fast = request.fail_fast;
    jobs.quiet = request.quiet;
    jobs.progress_bar = request.progress_bar;
    jobs.on_result = [&](std::size_t index, const CompileResult& result) {
        if (!result.ok) return;
        for (const std::size_t i : plan_builds_of[index]) {
            const auto& build = plan.builds[i].build;
            transaction.add(stage_of.at(build.target.kdb_filename()), {{build.kdb_name(), build.kdb_args()}, result.code});
        }
    };
    if (!jobs.quiet)
        fmt::print(stderr, "kdbgen: {} kernels for {} targets ({} compiles after dedup), {} jobs, {}{}\n", plan.builds.size(),
                   targets.size(), unique.size(), jobs.jobs ? jobs.jobs : default_job_count(),
                   compiler.toolchain().clang_version, compiler.in_process() ? ", in-process" : "");
    std::atomic<bool> never{false};
    std::atomic<bool>& interrupted = request.interrupted ? *request.interrupted : never;
    std::vector<CompileResult> results;
    const auto compile = [&] {
        results = run_builds(compiler, unique, jobs, interrupted, request.progress ? *request.progress : std::cerr);
    };
    if (request.around_compile) request.around_compile(compile);
    else compile();
    if (cache) cache->flush_counters();
    compiler.stop_workers();
    clock.mark("compile");
    record_toolchain(report, compiler);
    report.phases = clock.phases();
    if (interrupted.load()) {
        report.outcome = BuildReport::Outcome::Interrupted;
        return report;
    }

    for (std::size_t i = 0; i < unique.size(); ++i) {
        if (!results[i].cache_hit && results[i].ok) {
            for (auto* cost : {&report.cost_by_language[std::string(language_name(unique[i]->language()))],
                               &report.cost_by_kernel_file[unique[i]->kernel_file]}) {
                ++cost->compiles;
                cost->seconds += results[i].seconds;
                cost->cpu_seconds += results[i].cpu_seconds;
            }
        }
        if (results[i].cache_hit) ++report.cached;
        if (results[i].ok) continue;
        ++report.failed;
        report.failures.push_back({unique[i]->kdb_name(), unique[i]->kdb_args(), "", results[i].log,
                                   results[i].command.empty() ? "(none run)" : results[i].command, unique[i]->describe()});
    }
    if (report.failed && request.fail_fast) {
        report.outcome = BuildReport::Outcome::FailFast;
        return report;
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

    std::map<std::string, std::vector<KernelFailure>> failures_of;
    std::map<std::string, std::size_t> built_of;
    for (std::size_t i = 0; i < plan.builds.size(); ++i) {
        const auto& build = plan.builds[i].build;
        const auto& result = results[unique_index[i]];
        if (result.ok) ++built_of[build.target.kdb_filename()];
        else failures_of[build.target.kdb_filename()].push_back(
                 {build.kdb_name(), build.kdb_args(), plan.builds[i].origin, result.log, result.command, build.describe()});
    }
    // A build that compiled (nearly) nothing is an environment fault (a full
    // TMPDIR, a broken toolchain), not a kdb: it never replaces one.
    for (const auto& target : targets) {
        const auto name = target.kdb_filename();
        const std::size_t planned = planned_per_kdb[name], built = built_of[name];
        const std::size_t needed = std::max<std::size_t>(1, min_built_for(request.min_built, planned));
        if (built < needed)
            report.too_few.push_back(fmt::format("{}: {} of {} kernels built, {} needed", name, built, planned, needed));
    }
    if (!report.too_few.empty()) {
        report.outcome = BuildReport::Outcome::TooFewBuilt;
        return report;
    }
    const auto stats = transaction.commit([&] { return interrupted.load(); });
    for (const auto& target : targets) {
        const auto name = target.kdb_filename();
        report.kdbs.push_back({target, out_dir / name, planned_per_kdb[name], built_of[name], stats[stage_of.at(name)],
                               std::move(failures_of[name])});
    }
    clock.mark("write");
    report.phases = clock.phases();
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    report.outcome = report.failed ? BuildReport::Outcome::SomeFailed : BuildReport::Outcome::Ok;
    return report;
}

}  // namespace kdbgen
