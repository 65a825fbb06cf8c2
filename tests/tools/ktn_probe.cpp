// For tests/ktn_reference.py: reads problem keys (one a line) from stdin and
// prints, for each, the tuning config kdbgen's ConvAsm1x1U solver plans on
// gfx908 with no perf-db: "<key> read_size,k_mult,...,waves_k_in_group", or
// "<key> none" when it plans nothing. Goes through the solver as the plan
// does, reading the values back out of the -Wa,-defsym options.
#include "kdbgen/error.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/solver.hpp"

#include <iostream>
#include <string>

using namespace kdbgen;

namespace {

std::string defsym_value(const std::string& options, const std::string& name) {
    const std::string marker = "-Wa,-defsym," + name + "=";
    const auto at = options.find(marker);
    if (at == std::string::npos) return "?";
    const auto begin = at + marker.size();
    return options.substr(begin, options.find(' ', begin) - begin);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: ktn_probe <miopen-src> < keys\n";
        return kExitBadInput;
    }
    try {
        const MiopenTree tree = MiopenTree::open(argv[1]);
        const Target target = parse_target("gfx908_120");
        const Solver* solver = find_solver("ConvAsm1x1U");
        std::string key;
        while (std::getline(std::cin, key)) {
            if (key.empty()) continue;
            const ConvProblem problem = parse_conv_problem_key(key);
            const ConvView view{problem};
            const SolverContext ctx{target, tree.version(), data_type_options(view), nullptr, &tree};
            std::string config = "none";
            if (solver->applicable(view, ctx, nullptr)) {
                const auto kernels = solver->kernels(view, ctx);
                if (!kernels.empty()) {
                    config.clear();
                    for (const char* field : {"read_size", "k_mult", "chunks_per_wave", "chunk_size", "n_mult",
                                              "c_mult", "waves_c_in_group", "waves_k_in_group"})
                        config += (config.empty() ? "" : ",") + defsym_value(kernels[0].options, field);
                }
            } else {
                config = "not-applicable";
            }
            std::cout << key << ' ' << config << '\n';
        }
    } catch (const InputError& e) {
        std::cerr << "ktn_probe: " << e.what() << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}
