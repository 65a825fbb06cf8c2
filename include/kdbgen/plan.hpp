// The plan stage: which kernels each target's kdb must hold, as a
// deduplicated list of kernel builds. Today's source of kernels is a kernel
// manifest (the built-in demo: configs/demo/kernels.toml over kernels/);
// solvers add theirs through the same KernelBuild list.
#pragma once

#include "kdbgen/compile.hpp"
#include "kdbgen/target.hpp"

#include <string>
#include <vector>

namespace kdbgen {

struct PlannedBuild {
    KernelBuild build;
    std::string origin;  // where the need came from: manifest file:line, or problem and solver
};

struct Plan {
    std::vector<Target> targets;
    std::vector<PlannedBuild> builds;  // unique per (target, kdb key), in a stable order
    std::vector<std::string> uncovered;  // what could not be planned, and why
};

// Reads a kernel manifest: [[kernel]] tables with file, symbols, options
// (one string per variant) and optional targets (processor prefixes the
// kernel is for). Errors name the manifest, line and value.
Plan plan_from_manifest(const fs::path& manifest, const fs::path& kernel_dir, const std::vector<Target>& targets);

// Drops repeated (target, kdb key) pairs, keeping the first; sorts by target
// then key so output never depends on input order.
void deduplicate(Plan& plan);

}  // namespace kdbgen
