// kdbgen solvers: the catalog of MIOpen solvers and primitive solvers kdbgen plans.
#include "commands.hpp"
#include "common.hpp"

#include "kdbgen/primitive.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

namespace kdbgen::cli {

Action add_solvers_command(CLI::App& app) {
    auto* sub = app.add_subcommand("solvers", "list the MIOpen solvers kdbgen knows");
    auto json = std::make_shared<bool>(false);
    sub->add_flag("--json", *json, "print JSON");
    return [json]() {
        nlohmann::json out = nlohmann::json::array();
        for (const auto* solver : solver_catalog())
            out.push_back({{"name", solver->name()}, {"kind", "conv"}, {"builds_kernels", solver->builds_kernels()},
                           {"key_forms", solver->uses_general_options() ? 2 : 1}, {"dynamic", solver->dynamic()}});
        for (const auto* solver : primitive_catalog())
            out.push_back({{"name", solver->name()}, {"kind", solver->kind()}, {"builds_kernels", true}, {"key_forms", 1}});
        if (*json) print_json(out);
        else
            for (const auto& s : out)
                fmt::print("{:<28} {:<11} {}\n", s["name"].get<std::string>(), s["kind"].get<std::string>(),
                           s["builds_kernels"].get<bool>() ? fmt::format("{} key form(s)", s["key_forms"].get<int>())
                                                            : std::string("GEMM: no kdb kernel"));
        return 0;
    };
}

}  // namespace kdbgen::cli
