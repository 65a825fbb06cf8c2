// Problem -> MIOpenDriver command, the way a user runs MIOpen's own client
// (include/kdbgen/miopen_engine.hpp). Flags are those src/enumerate/driver_log.cpp
// reads (MIOpenDriver of MIOpen 3.3.0, unchanged in Debian's 3.4.0 and 3.5.1 for
// these commands); every command is read back with that reader and must give
// the problem's own key, so a problem the driver cannot state is refused, not
// run as another.
#include "kdbgen/miopen_engine.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace kdbgen {

namespace {

// A quiet, single run: no verification on the CPU, no timing, one iteration.
void add_run_flags(std::vector<std::string>& args) {
    for (const char* flag : {"-V", "0", "-t", "0", "-i", "1"}) args.emplace_back(flag);
}

template <typename T>
void add(std::vector<std::string>& args, const char* flag, const T& value) {
    args.emplace_back(flag);
    args.push_back(fmt::format("{}", value));
}

std::optional<DriverCommands> conv_command(const ConvProblem& p, std::string* why) {
    std::string command;
    if (p.data_types == "FP32") command = "conv";
    else if (p.data_types == "FP16") command = "convfp16";
    else if (p.data_types == "BF16") command = "convbfp16";
    else if (p.data_types.starts_with("INT8")) command = "convint8";
    else {
        if (why) *why = "MIOpenDriver has no convolution command for data types " + p.data_types;
        return std::nullopt;
    }
    if (!p.cast_suffix.empty()) {
        if (why) *why = "cast-type convolutions are not run through MIOpenDriver";
        return std::nullopt;
    }
    // The key holds dy in its "in" fields for both backward directions (replay_format.cpp).
    const bool backward = p.direction != ConvDirection::Forward;
    const long x_channels = backward ? p.out_channels : p.in_channels;
    const long y_channels = backward ? p.in_channels : p.out_channels;
    const auto& x_spatial = backward ? p.out_spatial : p.in_spatial;
    const std::string& x_layout = backward ? p.out_layout : p.in_layout;
    const std::string& y_layout = backward ? p.in_layout : p.out_layout;
    const bool three_d = p.spatial_dims == 3;
    const std::size_t h = three_d ? 1 : 0;  // index of height in the per-dimension values
    std::vector<std::string> args{command};
    if (three_d) add(args, "--spatial_dim", 3);
    add(args, "-n", p.batch);
    add(args, "-c", x_channels);
    if (three_d) add(args, "-!", x_spatial[0]);
    add(args, "-H", x_spatial[h]);
    add(args, "-W", x_spatial[h + 1]);
    add(args, "-k", y_channels);
    if (three_d) add(args, "-@", p.weights_spatial[0]);
    add(args, "-y", p.weights_spatial[h]);
    add(args, "-x", p.weights_spatial[h + 1]);
    if (three_d) add(args, "-$", p.pads[0]);
    add(args, "-p", p.pads[h]);
    add(args, "-q", p.pads[h + 1]);
    if (three_d) add(args, "-#", p.strides[0]);
    add(args, "-u", p.strides[h]);
    add(args, "-v", p.strides[h + 1]);
    if (three_d) add(args, "-^", p.dilations[0]);
    add(args, "-l", p.dilations[h]);
    add(args, "-j", p.dilations[h + 1]);
    add(args, "-g", p.groups);
    add(args, "-m", "conv");
    add(args, "-F", p.direction == ConvDirection::Forward ? 1 : p.direction == ConvDirection::BackwardData ? 2 : 4);
    add(args, "--in_layout", x_layout);
    add(args, "--fil_layout", p.weights_layout);
    add(args, "--out_layout", y_layout);
    add_run_flags(args);
    DriverCommands commands{args, args};
    add(*commands.immediate, "-S", 0);
    return commands;
}

std::string bnorm_command_name(DataType data, DataType param) {
    if (data == DataType::Float && param == DataType::Float) return "bnorm";
    if (data == DataType::Half) return param == DataType::Half ? "bnormfp16" : "bnormfp16fp32";
    if (data == DataType::BFloat16) return param == DataType::BFloat16 ? "bnormbfp16" : "bnormbfp16fp32";
    return {};
}

std::optional<DriverCommands> bnorm_command(const BatchNormProblem& p, std::string* why) {
    const std::string command = bnorm_command_name(p.data_type, p.param_type);
    if (command.empty() || p.x.dims.size() != 4) {
        if (why) *why = "MIOpenDriver has no batch-norm command for these types or dimensions";
        return std::nullopt;
    }
    std::vector<std::string> args{command};
    add(args, "-n", p.x.dims[0]);
    add(args, "-c", p.x.dims[1]);
    add(args, "-H", p.x.dims[2]);
    add(args, "-W", p.x.dims[3]);
    add(args, "-m", static_cast<int>(p.mode));
    add(args, "--layout", p.layout);
    // MIOpenDriver reads -s as "save mean and inverse variance" (backward: use them) and -r as
    // "keep running mean and variance" (inference: use them as the estimates), driver/bn_driver.hpp:441-466.
    switch (p.direction) {
    case BatchNormProblem::Direction::ForwardTraining:
        add(args, "--forw", 1), add(args, "-b", 0), add(args, "-s", p.save_results ? 1 : 0),
            add(args, "-r", p.running_results ? 1 : 0);
        break;
    case BatchNormProblem::Direction::ForwardInference:
        add(args, "--forw", 2), add(args, "-b", 0), add(args, "-s", 0), add(args, "-r", 1);
        break;
    case BatchNormProblem::Direction::Backward:
        add(args, "--forw", 0), add(args, "-b", 1), add(args, "-s", p.use_saved ? 1 : 0), add(args, "-r", 0);
        break;
    }
    add_run_flags(args);
    return DriverCommands{args, std::nullopt};
}

std::optional<DriverCommands> pool_command(const PoolingProblem& p, std::string* why) {
    if (p.data_type != DataType::Float && p.data_type != DataType::Half) {
        if (why) *why = "MIOpenDriver pools FP32 and FP16 only";
        return std::nullopt;
    }
    static const char* kModes[] = {"max", "avg", "avg_in"};
    static const char* kIndexTypes[] = {"miopenIndexUint8", "miopenIndexUint16", "miopenIndexUint32",
                                        "miopenIndexUint64"};
    if (p.index_type < 0 || p.index_type > 3) {
        if (why) *why = "unknown pooling index type";
        return std::nullopt;
    }
    std::vector<std::string> args{p.data_type == DataType::Half ? "poolfp16" : "pool"};
    std::string dims;
    for (const long d : p.x.dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    const bool channels_last = p.layout == "NHWC" || p.layout == "NDHWC";
    add(args, "-W", dims + "," + (p.x.dims.size() == 5 ? (channels_last ? "NDHWC" : "NCDHW")
                                                         : (channels_last ? "NHWC" : "NCHW")));
    const bool three_d = p.x.dims.size() == 5;
    const std::size_t h = three_d ? 1 : 0;
    if (three_d) add(args, "-Z", p.window[0]), add(args, "-s", p.strides[0]), add(args, "-o", p.pads[0]);
    add(args, "-y", p.window[h]);
    add(args, "-x", p.window[h + 1]);
    add(args, "-v", p.strides[h]);
    add(args, "-u", p.strides[h + 1]);
    add(args, "-p", p.pads[h]);
    add(args, "-q", p.pads[h + 1]);
    add(args, "-m", kModes[static_cast<int>(p.mode)]);
    add(args, "-I", kIndexTypes[p.index_type]);
    if (!three_d) add(args, "-M", p.workspace_index_mode);
    // The driver runs the backward only after its forward, which then saves the indices.
    const bool both = p.direction == PoolingProblem::Direction::Backward || p.save_index;
    add(args, "-F", both ? 0 : 1);
    add_run_flags(args);
    return DriverCommands{args, std::nullopt};
}

// The activation, softmax and LRN commands: a 4-D FP32 tensor ("activ") or
// FP16 ("activfp16") as -n -c -H -W, then the primitive's own flags.
template <typename P, typename AddFlags>
std::optional<DriverCommands> nchw_command(const std::string& command, const P& p, AddFlags add_flags) {
    if (p.x.dims.size() != 4 || (p.data_type != DataType::Float && p.data_type != DataType::Half)) return std::nullopt;
    std::vector<std::string> args{p.data_type == DataType::Half ? command + "fp16" : command};
    add(args, "-n", p.x.dims[0]);
    add(args, "-c", p.x.dims[1]);
    add(args, "-H", p.x.dims[2]);
    add(args, "-W", p.x.dims[3]);
    add_flags(args);
    add_run_flags(args);
    return DriverCommands{args, std::nullopt};
}

}  // namespace

std::optional<DriverCommands> driver_commands(const Problem& problem, std::string* why) {
    // A MIOpenDriver command kept as given (issue #50): the line itself, run once and unverified
    // (-i 1 -V 0: every driver of MIOpen 3.3 to 3.5 defines iter as -i and verify as -V,
    // driver_flags.cpp; the reader left the line's own out).
    if (const auto* command = std::get_if<DriverCommandProblem>(&problem)) {
        std::vector<std::string> args{command->command};
        args.insert(args.end(), command->arguments.begin(), command->arguments.end());
        for (const char* flag : {"-i", "1", "-V", "0"}) args.emplace_back(flag);
        return DriverCommands{args, std::nullopt};
    }
    std::optional<DriverCommands> commands;
    if (const auto* conv = std::get_if<ConvProblem>(&problem)) commands = conv_command(*conv, why);
    else if (const auto* bn = std::get_if<BatchNormProblem>(&problem)) commands = bnorm_command(*bn, why);
    else if (const auto* pool = std::get_if<PoolingProblem>(&problem)) commands = pool_command(*pool, why);
    else if (const auto* activation = std::get_if<ActivationProblem>(&problem))
        commands = nchw_command("activ", *activation, [&](std::vector<std::string>& args) {
            add(args, "-m", activation->mode);
            add(args, "-A", activation->alpha);
            add(args, "-B", activation->beta);
            add(args, "-G", activation->gamma);
            add(args, "-F", activation->direction == ActivationProblem::Direction::Forward ? 1 : 2);
        });
    else if (const auto* softmax = std::get_if<SoftmaxProblem>(&problem))
        commands = nchw_command("softmax", *softmax, [&](std::vector<std::string>& args) {
            add(args, "-a", softmax->algorithm);
            add(args, "-m", softmax->mode);
            add(args, "-A", softmax->alpha);
            add(args, "-B", softmax->beta);
            add(args, "-F", softmax->direction == SoftmaxProblem::Direction::Forward ? 1 : 2);
        });
    else if (const auto* lrn = std::get_if<LrnProblem>(&problem))
        commands = nchw_command("lrn", *lrn, [&](std::vector<std::string>& args) {
            add(args, "-N", lrn->size);
            add(args, "-A", lrn->alpha);
            add(args, "-B", lrn->beta);
            add(args, "-K", lrn->k);
            add(args, "-m", lrn->mode == 0 ? "within" : "cross");
            // -F 1: forward alone; -F 0: forward keeping its scale, then (-b 1) the backward (lrn_driver.hpp:129).
            const bool backward = lrn->direction == LrnProblem::Direction::Backward;
            add(args, "-F", backward || lrn->save_scale ? 0 : 1);
            add(args, "-b", backward ? 1 : 0);
        });
    else if (const auto* op = std::get_if<TensorOpProblem>(&problem)) {
        // driver/tensorop_driver.hpp:133-158 (3.3.0): -o 0 SetTensor, 1 ScaleTensor, 2-5 OpTensor add..max,
        // on A (and a B of A's shape).
        const int code = op->routine == TensorOpProblem::Routine::SetTensor     ? 0
                         : op->routine == TensorOpProblem::Routine::ScaleTensor ? 1
                                                                                : 2 + op->op;
        struct AsX {
            const TensorShape& x;
            DataType data_type;
        } shape{op->a, op->data_type};
        commands = nchw_command("tensorop", shape, [&](std::vector<std::string>& args) { add(args, "-o", code); });
    }
    if (!commands) {
        if (why && why->empty()) *why = fmt::format("MIOpenDriver has no command for this {} problem", problem_kind(problem));
        return std::nullopt;
    }
    // The driver must run this very problem: read the command back as kdbgen reads MIOpenDriver lines.
    std::string line;
    for (const auto& arg : commands->find) line += (line.empty() ? "" : " ") + arg;
    try {
        const auto parsed = parse_driver_command(line);
        const std::string key = problem_key(problem);
        const bool found = std::any_of(parsed.begin(), parsed.end(), [&](const Problem& p) {
            return p.index() == problem.index() && problem_key(p) == key;
        });
        if (!found) {
            if (why) *why = "MIOpenDriver cannot state this problem (" + line + " is another)";
            return std::nullopt;
        }
    } catch (const std::exception& error) {
        if (why) *why = std::string("MIOpenDriver cannot state this problem: ") + error.what();
        return std::nullopt;
    }
    return commands;
}

}  // namespace kdbgen
