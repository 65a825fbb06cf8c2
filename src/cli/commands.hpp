// Each subcommand registers its options and returns the action to run once
// parsing succeeded; the action returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace kdbgen::cli {

using Action = std::function<int()>;

Action add_build_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_inspect_command(CLI::App& app);
Action add_verify_command(CLI::App& app);
Action add_diff_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_cache_command(CLI::App& app);
Action add_targets_command(CLI::App& app);
Action add_solvers_command(CLI::App& app);

}  // namespace kdbgen::cli
