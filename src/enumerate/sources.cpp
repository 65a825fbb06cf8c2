#include "kdbgen/enumerate.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

// A source that yields nothing (an empty or unrelated log, a model with no
// node kdbgen knows) is never silently dropped: with other sources it would
// vanish from the build, alone it would plan nothing (issue #17, 1).
void require_problems(const ProblemSet& set, const fs::path& path, const char* what) {
    if (!set.entries().empty()) return;
    std::vector<std::string> left_out;
    for (const auto& [why, count] : set.left_out()) left_out.push_back(fmt::format("{} x {}", count, why));
    throw InputError(located(path.string(), 0, fmt::format("yields no problem to plan ({})",
                                                           left_out.empty() ? what : join(left_out, "; "))));
}

}  // namespace

ProblemSet gather_problems(const ProblemSources& sources) {
    ProblemSet set;
    for (const auto& path : sources.networks) {
        const ProblemSet one = read_network(path, sources.expansion);
        require_problems(one, path, "no layer kdbgen can plan");
        set.merge(one);
    }
    for (const auto& path : sources.driver_logs) {
        const ProblemSet one = read_driver_log(path);
        require_problems(one, path, "no MIOpenDriver command line in it");
        set.merge(one);
    }
    for (const auto& path : sources.find_dbs) set.merge(problems_of(read_find_db(path), path.string()));
    const auto& e = sources.expansion;
    for (const auto& path : sources.onnx_models) {
        const std::vector<long> batches = e.batch_sizes.empty() ? std::vector<long>{0} : e.batch_sizes;
        const std::vector<std::string> types = e.data_types.empty() ? std::vector<std::string>{"FP32"} : e.data_types;
        ProblemSet model;
        for (const long batch : batches)
            for (const auto& type : types) {
                OnnxOptions options;
                options.batch_size = batch;
                options.data_type = type;
                if (!e.modes.empty()) options.modes = e.modes;
                model.merge(read_onnx_model(path, options));
            }
        require_problems(model, path, "no node of a kind kdbgen plans: Conv, BatchNormalization, pooling, activations, "
                                      "Softmax, LRN, elementwise ops");
        set.merge(model);
    }
    return set;
}

}  // namespace kdbgen
