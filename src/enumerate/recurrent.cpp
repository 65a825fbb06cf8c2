// The MIOpenDriver lines for recurrent layers, CTC loss and dropout
// (include/kdbgen/recurrent.hpp). Flags as the drivers define them (MIOpen
// 3.3.0): driver/rnn_driver.hpp:232-293, driver/ctc_driver.hpp:158-187,
// driver/dropout_driver.hpp:152-181; main.cpp runs the forward for forw 0 or
// an odd forw, the backward for any forw but 1.
#include "kdbgen/recurrent.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kdbgen {

namespace {
std::string word(long value) { return std::to_string(value); }
bool float_or_half(DataType type) { return type == DataType::Float || type == DataType::Half; }
}  // namespace

std::optional<DriverCommandProblem> rnn_problem(const RecurrentLayer& layer) {
    if (!float_or_half(layer.data_type)) return std::nullopt;
    DriverCommandProblem p;
    p.command = layer.data_type == DataType::Half ? "rnnfp16" : "rnn";
    p.arguments = {"-n", word(layer.batch), "-W", word(layer.input), "-H", word(layer.hidden),
                   "-l", word(layer.layers), "-k", word(layer.steps), "-m", layer.mode,
                   "-r", layer.bidirectional ? "1" : "0", "-b", layer.bias ? "1" : "0",
                   "-F", layer.training ? "0" : "1", "-c", layer.training ? "0" : "1"};
    if (layer.training && layer.dropout > 0)
        p.arguments.insert(p.arguments.end(), {"-U", "1", "-P", fmt::format("{}", layer.dropout)});
    return p;
}

std::optional<DriverCommandProblem> ctc_problem(long batch, long classes, long steps, long label_length, long blank,
                                                DataType data_type, bool training) {
    if (!training || data_type != DataType::Float) return std::nullopt;
    DriverCommandProblem p;
    p.command = "ctc";
    // num_class does not count the blank; -m 1: the softmax applied in the call (the driver's default).
    p.arguments = {"-n", word(batch), "-c", word(classes - 1), "-k", word(steps), "-l", word(label_length),
                   "-b", word(blank), "-m", "1", "-F", "1"};
    return p;
}

std::optional<DriverCommandProblem> dropout_problem(const std::vector<long>& dims, double rate, DataType data_type,
                                                    bool training) {
    if (!training || !float_or_half(data_type) || dims.empty() || dims.size() > 5) return std::nullopt;
    DriverCommandProblem p;
    p.command = data_type == DataType::Half ? "dropoutfp16" : "dropout";
    p.arguments = {"-d", fmt::format("{}", fmt::join(dims, ",")), "-p", fmt::format("{}", rate), "-F", "0"};
    return p;
}

}  // namespace kdbgen
