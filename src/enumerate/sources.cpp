#include "kdbgen/enumerate.hpp"

namespace kdbgen {

ProblemSet gather_problems(const ProblemSources& sources) {
    ProblemSet set;
    for (const auto& path : sources.networks) set.merge(read_network(path, sources.expansion));
    for (const auto& path : sources.driver_logs) set.merge(read_driver_log(path));
    for (const auto& path : sources.find_dbs) set.merge(problems_of(read_find_db(path), path.string()));
    const auto& e = sources.expansion;
    for (const auto& path : sources.onnx_models) {
        const std::vector<long> batches = e.batch_sizes.empty() ? std::vector<long>{0} : e.batch_sizes;
        const std::vector<std::string> types = e.data_types.empty() ? std::vector<std::string>{"FP32"} : e.data_types;
        for (const long batch : batches)
            for (const auto& type : types) {
                OnnxOptions options;
                options.batch_size = batch;
                options.data_type = type;
                if (!e.modes.empty()) options.modes = e.modes;
                set.merge(read_onnx_model(path, options));
            }
    }
    return set;
}

}  // namespace kdbgen
