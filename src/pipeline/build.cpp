// build(BuildRequest): plan -> compile -> one kdb per target.
#include "kdbgen/pipeline.hpp"
#include "pipeline_internal.hpp"

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

// Targets that can share a compile: the same code-object target (processor and features), in
// the order they first appear. A build plans, compiles and stages one group at a time, so it
// holds one architecture's plan, not every architecture's; no compile is shared between
// groups (a compile identity starts with the target ID).
std::vector<std::vector<Target>> compile_groups(const std::vector<Target>& targets) {
    std::vector<std::vector<Target>> groups;
    std::map<std::string, std::size_t> group_of;
    for (const auto& target : targets) {
        const auto [it, added] = group_of.try_emplace(target.hip_target_id(), groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back(target);
    }
    return groups;
}

// Compile identities of a plan's builds, each formed once: the builds to compile and, per
// build, the index of its compile.
struct UniqueCompiles {
    std::vector<const KernelBuild*> unique;
    std::vector<std::size_t> index_of;
};

UniqueCompiles unique_compiles(const Plan& plan) {
    UniqueCompiles out;
    out.index_of.resize(plan.builds.size());
    // Indexed by the identity's hash, the identity itself formed again only to confirm a
    // match: 10^5 identities of 1.3 KB each held as keys were the peak of planning a whole
    // architecture. The hashes are made on two threads (forming an identity canonicalizes
    // the options).
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
            return compile_identity(*out.unique[candidate.second]) == identity;
        });
        if (same != last) {
            out.index_of[i] = same->second;
            continue;
        }
        out.index_of[i] = out.unique.size();
        unique_by_hash.emplace(hash, out.unique.size());
        out.unique.push_back(&plan.builds[i].build);
    }
    return out;
}

// The output folder, created for the staged kdbs, goes again when the build writes nothing
// there: a group planned late can still reject an input.
class OutputFolder {
public:
    explicit OutputFolder(fs::path dir) : dir_(std::move(dir)) {}
    ~OutputFolder() {
        std::error_code ec;
        if (created_ && !kept_) fs::remove(dir_, ec);  // only if empty
    }
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;
    void create() {
        std::error_code ec;
        created_ = !fs::exists(dir_, ec);
        fs::create_directories(dir_, ec);
        if (ec || !fs::is_directory(dir_))
            throw InputError(located(dir_.string(), 0, "cannot create output folder" + (ec ? ": " + ec.message() : "")));
        if (::access(dir_.c_str(), W_OK) != 0) throw InputError(located(dir_.string(), 0, "output folder is not writable"));
    }
    void keep() { kept_ = true; }

private:
    fs::path dir_;
    bool created_ = false, kept_ = false;
};

// Groups of targets planned, compiled and staged one after another (compile_groups), the
// kdbs written together at the end.
class GroupedBuild {
public:
    explicit GroupedBuild(const BuildRequest& request)
        : request_(request), dry_run_(static_cast<bool>(request.dry_run)), output_(request.output) {
        if (!request.shard.empty()) shard_ = parse_shard(request.shard);
        interrupted_ = request.interrupted ? request.interrupted : &never_;
    }

    // Returns false when the build stops here (report_.outcome says why). The plan is read
    // only (its cache entry may be being written meanwhile).
    bool add(const Plan& whole, std::size_t group, std::size_t groups) {
        const Plan shard = shard_ ? shard_of(whole, *shard_) : Plan{};
        const Plan& plan = shard_ ? shard : whole;
        // A plan with nothing for a kdb would write an empty kdb over a good one. A shard's slice
        // may hold nothing for a target (K/N with N near its kernel count): that shard's kdb for it
        // is empty, and the merge takes nothing from it.
        for (const auto& planned : plan.builds) ++planned_per_kdb_[planned.build.target.kdb_filename()];
        if (!dry_run_ && !shard_)
            for (const auto& target : plan.targets)
                if (!planned_per_kdb_.count(target.kdb_filename()))
                    throw InputError(fmt::format("the plan has no kernel for {} ({}){}: nothing written",
                                                 target.kdb_filename(), target.spec(),
                                                 request_.shard.empty() ? "" : " in shard " + request_.shard));
        const UniqueCompiles compiles = unique_compiles(plan);
        report_.kernels += plan.builds.size();
        report_.compiles += compiles.unique.size();
        report_.uncovered.insert(report_.uncovered.end(), plan.uncovered.begin(), plan.uncovered.end());
        add_timings(plan.timings);
        clock_.mark("plan");
        if (!compiler_) start_toolchain();
        if (dry_run_) {
            // Handed over as they are formed: a whole architecture has 10^5 of them.
            for (const auto* build : compiles.unique)
                request_.dry_run(*build, compiler_->commands(*build, "{OUT}", "{SCRATCH}"));
            clock_.mark("commands");
            return true;
        }
        if (!transaction_) stage_kdbs();
        return compile(plan, compiles, group, groups);
    }

    BuildReport finish() {
        if (dry_run_) return stopped();
        close_toolchain();
        const auto stats = transaction_->commit([&] { return interrupted_->load(); });
        output_.keep();
        for (const auto& target : request_.plan.targets) {
            const auto name = target.kdb_filename();
            report_.kdbs.push_back({target, request_.output / name, planned_per_kdb_[name], built_of_[name],
                                    stats[stage_of_.at(name)], std::move(failures_of_[name])});
        }
        clock_.mark("write");
        report_.phases = clock_.phases();
        report_.outcome = report_.failed ? BuildReport::Outcome::SomeFailed : BuildReport::Outcome::Ok;
        return std::move(report_);
    }

    // The report of a build that stopped (interrupted, failed fast, too few built), or of a dry run.
    BuildReport stopped() {
        close_toolchain();
        report_.phases = clock_.phases();
        return std::move(report_);
    }

private:
    void close_toolchain() {
        if (!compiler_) return;
        compiler_->stop_workers();
        record_toolchain(report_, *compiler_);
    }

    void add_timings(const Plan::Timings& timings) {
        auto& sum = report_.plan_timings;
        sum.read_databases += timings.read_databases;
        sum.evaluate += timings.evaluate;
        sum.deduplicate += timings.deduplicate;
        sum.cache += timings.cache;
        sum.cache_hit = groups_planned_++ == 0 ? timings.cache_hit : sum.cache_hit && timings.cache_hit;
    }

    void start_toolchain() {
        if (!request_.plan.cache_disabled)
            cache_ = std::make_unique<BuildCache>(request_.plan.cache_dir.empty() ? BuildCache::default_dir()
                                                                                  : fs::path(request_.plan.cache_dir),
                                                  request_.max_cache_bytes);
        // Without a cache the toolchain's derived files go to a private mkdtemp folder.
        ToolchainOptions toolchain = request_.toolchain;
        toolchain.work_dir = cache_ ? cache_->dir() / "toolchain" : fs::path();
        // A dry run starts no worker: it prints the commands, which are the same either way.
        compiler_ = std::make_unique<Compiler>(discover_toolchain(toolchain), cache_.get(),
                                               dry_run_ ? InProcess::Off : request_.in_process);
        if (compiler_->in_process()) spdlog::debug("compiling in-process with {}", compiler_->worker_path().string());
        else if (!compiler_->not_in_process_reason().empty())
            spdlog::debug("compiling with clang processes, not in-process: {}", compiler_->not_in_process_reason());
        if (dry_run_ && !cache_ && !request_.plan.quiet)
            spdlog::warn("with --no-cache the commands name the toolchain's derived files in {}, a private folder "
                         "removed when kdbgen exits; give --cache-dir to keep them for running the commands",
                         compiler_->toolchain().work_dir.string());
        clock_.mark("toolchain");
    }

    // Every kdb of the build is staged before the first compile; the compiles stream into them.
    void stage_kdbs() {
        output_.create();
        transaction_ = std::make_unique<KdbTransaction>(request_.output);
        for (const auto& target : request_.plan.targets)
            stage_of_[target.kdb_filename()] =
                transaction_->add_kdb(request_.output / target.kdb_filename(), request_.update, target);
    }

    bool compile(const Plan& plan, const UniqueCompiles& compiles, std::size_t group, std::size_t groups) {
        const auto& unique = compiles.unique;
        std::vector<std::vector<std::size_t>> plan_builds_of(unique.size());
        for (std::size_t i = 0; i < plan.builds.size(); ++i) plan_builds_of[compiles.index_of[i]].push_back(i);
        JobOptions jobs;
        jobs.jobs = request_.jobs;
        jobs.fail_fast = request_.fail_fast;
        jobs.quiet = request_.quiet;
        jobs.progress_bar = request_.progress_bar;
        jobs.on_result = [&](std::size_t index, const CompileResult& result) {
            if (!result.ok) return;
            for (const std::size_t i : plan_builds_of[index]) {
                const auto& build = plan.builds[i].build;
                transaction_->add(stage_of_.at(build.target.kdb_filename()),
                                  {{build.kdb_name(), build.kdb_args()}, result.code});
            }
        };
        if (!jobs.quiet) {
            std::vector<std::string> specs;
            for (const auto& target : plan.targets) specs.push_back(target.spec());
            fmt::print(stderr, "kdbgen: {}{} kernels for {} ({} compiles after dedup), {} jobs, {}{}\n",
                       groups > 1 ? fmt::format("[{}/{}] ", group + 1, groups) : "", plan.builds.size(),
                       groups > 1 ? join(specs, ", ") : fmt::format("{} targets", plan.targets.size()), unique.size(),
                       jobs.jobs ? jobs.jobs : default_job_count(), compiler_->toolchain().clang_version,
                       compiler_->in_process() ? ", in-process" : "");
        }
        std::vector<CompileResult> results;
        const auto run = [&] {
            results = run_builds(*compiler_, unique, jobs, *interrupted_, request_.progress ? *request_.progress : std::cerr);
        };
        if (request_.around_compile) request_.around_compile(run);
        else run();
        if (cache_) cache_->flush_counters();
        clock_.mark("compile");
        if (interrupted_->load()) {
            report_.outcome = BuildReport::Outcome::Interrupted;
            return false;
        }
        for (std::size_t i = 0; i < unique.size(); ++i) {
            if (!results[i].cache_hit && results[i].ok) {
                for (auto* cost : {&report_.cost_by_language[std::string(language_name(unique[i]->language()))],
                                   &report_.cost_by_kernel_file[unique[i]->kernel_file]}) {
                    ++cost->compiles;
                    cost->seconds += results[i].seconds;
                    cost->cpu_seconds += results[i].cpu_seconds;
                }
            }
            if (results[i].cache_hit) ++report_.cached;
            if (results[i].ok) continue;
            ++report_.failed;
            report_.failures.push_back({unique[i]->kdb_name(), unique[i]->kdb_args(), "", results[i].log,
                                        results[i].command.empty() ? "(none run)" : results[i].command,
                                        unique[i]->describe()});
        }
        if (report_.failed && request_.fail_fast) {
            report_.outcome = BuildReport::Outcome::FailFast;
            return false;
        }
        throw_for_scratch_space_failures(unique, results);
        for (std::size_t i = 0; i < plan.builds.size(); ++i) {
            const auto& build = plan.builds[i].build;
            const auto& result = results[compiles.index_of[i]];
            if (result.ok) ++built_of_[build.target.kdb_filename()];
            else failures_of_[build.target.kdb_filename()].push_back({build.kdb_name(), build.kdb_args(),
                                                                     plan.builds[i].origin, result.log, result.command,
                                                                     build.describe()});
        }
        // A build that compiled (nearly) nothing is an environment fault (a full TMPDIR, a
        // broken toolchain), not a kdb: it never replaces one, and the groups after it are
        // not compiled for nothing.
        for (const auto& target : plan.targets) {
            const auto name = target.kdb_filename();
            const std::size_t planned = planned_per_kdb_[name], built = built_of_[name];
            if (shard_ && planned == 0) continue;  // nothing of this target in the shard's slice
            const std::size_t needed = std::max<std::size_t>(1, min_built_for(request_.min_built, planned));
            if (built < needed)
                report_.too_few.push_back(fmt::format("{}: {} of {} kernels built, {} needed", name, built, planned, needed));
        }
        if (!report_.too_few.empty()) {
            report_.outcome = BuildReport::Outcome::TooFewBuilt;
            return false;
        }
        return true;
    }

    // A compile that failed for TMPDIR (full, gone, read-only) says nothing about its kernel:
    // the kdbs would lose kernels that build. Nothing is replaced, and the run is an
    // environment error (exit 2) naming TMPDIR.
    static void throw_for_scratch_space_failures(const std::vector<const KernelBuild*>& unique,
                                                 const std::vector<CompileResult>& results) {
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

    const BuildRequest& request_;
    const bool dry_run_;
    std::optional<ShardSpec> shard_;
    std::atomic<bool> never_{false};
    std::atomic<bool>* interrupted_ = nullptr;
    PhaseClock clock_;
    BuildReport report_;
    std::size_t groups_planned_ = 0;
    std::unique_ptr<BuildCache> cache_;
    std::unique_ptr<Compiler> compiler_;
    // Declared before the transaction: the staged files go before the folder they are in.
    OutputFolder output_;
    std::unique_ptr<KdbTransaction> transaction_;
    std::map<std::string, std::size_t> stage_of_;  // kdb file name -> stage
    std::map<std::string, std::size_t> planned_per_kdb_, built_of_;
    std::map<std::string, std::vector<KernelFailure>> failures_of_;
};

}  // namespace

BuildReport build(const BuildRequest& request) {
    if (request.engine == Engine::Miopen) return build_with_engine(request);
    const auto started = std::chrono::steady_clock::now();
    const auto& targets = request.plan.targets;
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
    const Planner planner(std::move(plan_request));
    GroupedBuild grouped(request);
    // A manifest plan is small: one group, planned at once.
    const auto groups = planner.solver_plan() ? compile_groups(targets) : std::vector<std::vector<Target>>{targets};
    std::size_t group = 0;
    const bool completed =
        planner.plan_each(groups, [&](const Plan& plan) { return grouped.add(plan, group++, groups.size()); });
    if (!completed) return grouped.stopped();
    BuildReport report = grouped.finish();
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace kdbgen
