// The options `kdbgen build` and `kdbgen plan` share, and how they become the
// library's requests (include/kdbgen/pipeline.hpp).
#pragma once

#include "common.hpp"
#include "engine_build.hpp"

#include "kdbgen/enumerate.hpp"
#include "kdbgen/pipeline.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kdbgen::cli {

struct PipelineOptions {
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
    // The options as library requests (include/kdbgen/pipeline.hpp).
    PlanRequest plan_request() const;
    BuildRequest build_request() const;
};

void add_problem_source_flags(CLI::App& sub, PipelineOptions& options);
void add_miopen_flags(CLI::App& sub, PipelineOptions& options);
void add_plan_source_flags(CLI::App& sub, PipelineOptions& options);

}  // namespace kdbgen::cli
