#include "pipeline_options.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace kdbgen::cli {

void add_problem_source_flags(CLI::App& sub, PipelineOptions& options) {
    sub.add_option("--network", options.networks, "network description (configs/networks/*.toml); repeatable");
    sub.add_option("--driver-log", options.driver_logs, "log with MIOpenDriver command lines (MIOPEN_ENABLE_LOGGING_CMD=1)");
    sub.add_option("--find-db", options.find_dbs, "MIOpen find-db file (*.HIP.fdb.txt[.bz2])");
    sub.add_option("--onnx", options.onnx_models, "ONNX model");
    sub.add_option("--batch", options.batch_sizes, "batch sizes to expand networks and ONNX models over")->delimiter(',');
    sub.add_option("--data-types", options.data_types, "FP32, FP16, BF16, INT8 (comma-separated)")->delimiter(',');
    sub.add_option("--layouts", options.layouts, "NCHW, NHWC, NCDHW, NDHWC (comma-separated)")->delimiter(',');
    sub.add_option("--modes", options.modes, "inference, training (comma-separated)")->delimiter(',');
}

void add_miopen_flags(CLI::App& sub, PipelineOptions& options) {
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
                   "(with --engine miopen: that the installed MIOpen ships) and the network zoo (configs/networks/), "
                   "each card served as MIOpen serves it (its own find-db line, else its no-record path); auto "
                   "(default): on when no --network, --driver-log, --onnx or --find-db is given; on = both; "
                   "find-dbs or zoo: that part alone; off with no problem source: each target's own find-db lines")
        ->check(CLI::IsMember({"auto", "on", "off", "both", "find-dbs", "zoo"}));
    sub.add_option("--zoo", options.zoo,
                   "include the network zoo in the corpus (default on; expanded over --batch, --data-types, "
                   "--layouts, --modes where given, else the documented zoo set)")
        ->check(CLI::IsMember({"on", "off"}));
    sub.add_option("--exclude-solvers", options.excluded_solvers,
                   "solvers to leave out (comma-separated), e.g. ConvAsm1x1U with an assembler that cannot build it "
                   "(docs/solvers.md)")
        ->delimiter(',');
}

void add_plan_source_flags(CLI::App& sub, PipelineOptions& options) {
    sub.add_option("--manifest", options.manifest,
                   "kernel manifest to build (default: the built-in demo, configs/demo/kernels.toml)");
    sub.add_option("--kernels-dir", options.kernel_dir, "folder the manifest's kernel files are in (default: kernels/)");
}

PlanRequest PipelineOptions::plan_request() const {
    PlanRequest request;
    request.targets = targets.resolve();
    request.manifest = manifest;
    request.kernels_dir = kernel_dir;
    request.miopen_src = miopen_src;
    if (!assume_version.empty()) request.assume_version = assume_version;
    request.sources = problem_sources();
    request.mode = solver_mode == "applicable"    ? SolverMode::Applicable
                   : solver_mode == "find-db-all" ? SolverMode::FindDbAll
                                                  : SolverMode::FindDb;
    request.build.mlir = mlir == "on";
    request.build.composable_kernel = composable_kernel == "on";
    request.compute_units = compute_units;
    request.corpus = corpus == "auto"  ? PlanRequest::Corpus::Auto
                     : corpus == "off" ? PlanRequest::Corpus::Off
                                       : PlanRequest::Corpus::On;
    if (corpus == "zoo" && zoo == "off") throw InputError("--corpus zoo with --zoo off: no corpus part left");
    request.corpus_find_dbs = corpus != "zoo";
    request.zoo = zoo == "on" && corpus != "find-dbs";
    request.excluded_solvers = excluded_solvers;
    request.entry_coverage = entry_coverage;
    request.cache_dir = cache.dir;
    request.cache_disabled = cache.disabled;
    request.quiet = quiet;
    return request;
}

BuildRequest PipelineOptions::build_request() const {
    BuildRequest request;
    request.plan = plan_request();
    if (!toolchain.llvm_root.empty()) request.toolchain.llvm_root = toolchain.llvm_root;
    if (!toolchain.device_libs.empty()) request.toolchain.device_libs = toolchain.device_libs;
    request.toolchain.code_object_version = toolchain.code_object_version;
    request.in_process = toolchain.in_process_mode();
    if (!cache.disabled) request.max_cache_bytes = parse_size(cache.max_size);
    request.output = output;
    request.jobs = jobs;
    request.fail_fast = fail_fast;
    request.update = update;
    request.min_built = min_built;
    request.shard = shard;
    // Progress: none with -q or --progress never. It goes to standard error, the report with --json to
    // standard output; the native build's compile lines stay off with --json (scripts read both streams
    // together there), the engine's progress stays on.
    request.quiet = quiet || progress == "never" || (json && engine.engine != "miopen");
    request.progress_bar = progress == "always" || (progress == "auto" && ::isatty(STDERR_FILENO));
    request.interrupted = &g_interrupted;
    request.around_compile = [](const std::function<void()>& compile) {
        const CooperativeInterrupts cooperative;
        compile();
    };
    return request;
}

}  // namespace kdbgen::cli
