// Problem -> the line kdbgen-miopen-replay reads (format in src/engine/replay/main.cpp).
#include "kdbgen/miopen_engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

namespace kdbgen {

namespace {

std::string dims(std::span<const long> values) { return fmt::format("{}", fmt::join(values, ",")); }

std::vector<long> tensor(long n, long c, std::span<const long> spatial) {
    std::vector<long> all{n, c};
    all.insert(all.end(), spatial.begin(), spatial.end());
    return all;
}

// The type names of a convolution key (EncodeDataTypesForKey): one name when
// the three tensors agree, else input, weights and output spelled together.
std::optional<std::vector<int>> conv_types(const std::string& encoded) {
    static const std::pair<std::string_view, int> names[] = {{"FP32", 1}, {"FP16", 0}, {"BF16", 5}, {"INT8", 3},
                                                             {"INT32", 2}, {"FP64", 6}, {"FP8", 7}, {"BFP8", 8}};
    std::vector<int> types;
    std::string_view rest = encoded;
    while (!rest.empty()) {
        bool matched = false;
        // Longest name first, so that INT32 is not read as INT8-less garbage.
        std::size_t best = 0;
        int best_type = 0;
        for (const auto& [name, type] : names)
            if (rest.starts_with(name) && name.size() > best) best = name.size(), best_type = type, matched = true;
        if (!matched) return std::nullopt;
        types.push_back(best_type);
        rest.remove_prefix(best);
    }
    if (types.size() == 1) types = {types[0], types[0], types[0]};
    if (types.size() != 3) return std::nullopt;
    return types;
}

bool replayable_layout(const std::string& layout) {
    return layout == "NCHW" || layout == "NHWC" || layout == "NCDHW" || layout == "NDHWC";
}

std::optional<std::string> conv_line(const ConvProblem& p, std::string* why) {
    if (!p.cast_suffix.empty()) {
        if (why) *why = "cast-type convolutions (" + p.cast_suffix + ") are not replayed";
        return std::nullopt;
    }
    auto types = conv_types(p.data_types);
    if (!types) {
        if (why) *why = "data types " + p.data_types + " are not replayed";
        return std::nullopt;
    }
    for (const auto* layout : {&p.in_layout, &p.weights_layout, &p.out_layout})
        if (!replayable_layout(*layout)) {
            if (why) *why = "layout " + *layout + " is not replayed";
            return std::nullopt;
        }
    // The key's "in" fields hold the convolution's dy for both backward directions: MIOpen
    // forms their ProblemDescription as {dy, w, x} (src/ocl/convolutionocl.cpp:1090,1211,1250
    // for backward weights, MIOpen 3.3.0), so x, the forward input, is the key's "out".
    const bool backward = p.direction != ConvDirection::Forward;
    const long x_channels = backward ? p.out_channels : p.in_channels;
    const long y_channels = backward ? p.in_channels : p.out_channels;
    const auto& x_spatial = backward ? p.out_spatial : p.in_spatial;
    const auto& y_spatial = backward ? p.in_spatial : p.out_spatial;
    const std::string& x_layout = backward ? p.out_layout : p.in_layout;
    const std::string& y_layout = backward ? p.in_layout : p.out_layout;
    if (backward) std::swap((*types)[0], (*types)[2]);
    const char direction = p.direction == ConvDirection::Forward ? 'F'
                           : p.direction == ConvDirection::BackwardData ? 'B'
                                                                        : 'W';
    return fmt::format("conv dir={} x={} w={} y={} pad={} stride={} dil={} groups={} types={},{},{} layouts={},{},{}",
                       direction, dims(tensor(p.batch, x_channels, x_spatial)),
                       dims(tensor(y_channels, x_channels / p.groups, p.weights_spatial)),
                       dims(tensor(p.batch, y_channels, y_spatial)), dims(p.pads), dims(p.strides), dims(p.dilations),
                       p.groups, (*types)[0], (*types)[1], (*types)[2], x_layout, p.weights_layout, y_layout);
}

int type_code(DataType type) { return static_cast<int>(type); }

// A MIOpenDriver line's flags by long name, as its InputFlags reads them
// (driver/InputFlags.cpp, MIOpen 3.3.0): a short letter means the flag it
// names, a flag given twice takes its last value, one not given its default.
class DriverFlags {
public:
    explicit DriverFlags(const DriverCommandProblem& problem) {
        const auto& table = driver_flag_table();
        const auto flags = table.find(problem.command);
        for (std::size_t i = 0; flags != table.end() && i + 1 < problem.arguments.size(); i += 2) {
            const std::string& flag = problem.arguments[i];
            for (const auto& f : flags->second)
                if (flag.starts_with("--") ? flag.substr(2) == f.name
                                           : flag.size() == 2 && f.shorts.find(flag[1]) != std::string::npos) {
                    values_[f.name] = problem.arguments[i + 1];
                    break;
                }
        }
    }
    std::string text(const std::string& name, std::string fallback) const {
        const auto found = values_.find(name);
        return found == values_.end() ? std::move(fallback) : found->second;
    }
    // InputFlags::GetValueInt is atoi: "" and words read as 0.
    long integer(const std::string& name, long fallback) const {
        const auto found = values_.find(name);
        return found == values_.end() ? fallback : std::atol(found->second.c_str());
    }
    // A "vector" flag: numbers split by ',' or ' ' (the drivers' GetInputTensorLengthsFromCmdLine).
    std::vector<long> numbers(const std::string& name, const std::string& fallback) const {
        std::vector<long> values;
        std::string text = this->text(name, fallback);
        std::replace(text.begin(), text.end(), ',', ' ');
        std::istringstream stream(text);
        for (long value = 0; stream >> value;) values.push_back(value);
        return values;
    }

    // The rnn and dropout drivers' seed: seed_high << 32 | seed_low, each at least 0.
    unsigned long long seed() const {
        return static_cast<unsigned long long>(std::max(integer("seed_high", 0), 0L)) << 32 |
               static_cast<unsigned long long>(std::max(integer("seed_low", 0), 0L));
    }

private:
    std::map<std::string, std::string> values_;
};

// MIOpenDriver rnn / rnnfp16 as RNNDriver makes its calls (driver/rnn_driver.hpp, MIOpen 3.3.0):
// the defaults of AddCmdLineArgs (:232-293), the batch size of each time step
// (GetInputTensorLengthsFromCmdLine, :297-352: the list cut to seq_len, its last value repeated
// to fill it), the modes of SetRNNDescriptorFromCmdLineArgs (:389-530; an unknown value makes
// the driver exit at once), the seed (seed_high << 32 | seed_low, each at least 0). The type is
// the command's (rnnfp16: half), as driver/main.cpp picks the driver's template.
std::optional<std::string> rnn_line(const DriverCommandProblem& p, std::string* why) {
    const DriverFlags flags(p);
    static const std::map<std::string, int> modes{{"relu", 0}, {"tanh", 1}, {"lstm", 2}, {"gru", 3}};
    const std::string mode = flags.text("mode", "tanh");
    const long steps = flags.integer("seq_len", 1);
    auto batches = flags.numbers("batchsize", "4");
    const long bidirection = flags.integer("bidirection", 0), bias = flags.integer("bias", 0),
               input_mode = flags.integer("inputmode", 0), algo = flags.integer("rnnalgo", 0);
    std::string wrong;
    if (!modes.count(mode)) wrong = "mode " + mode;
    else if (steps < 1 || batches.empty()) wrong = "no time step";
    else if (bidirection < 0 || bidirection > 1 || bias < 0 || bias > 1 || input_mode < 0 || input_mode > 1 ||
             algo < 0 || algo > 1)
        wrong = "a direction, bias, input mode or algorithm other than 0 or 1";
    if (!wrong.empty()) {
        if (why) *why = fmt::format("MIOpenDriver {} takes no {}: it exits before any MIOpen call", p.command, wrong);
        return std::nullopt;
    }
    if (static_cast<long>(batches.size()) > steps) batches.resize(static_cast<std::size_t>(steps));
    while (static_cast<long>(batches.size()) < steps) batches.push_back(batches.back());
    return fmt::format("rnn mode={} layers={} hidden={} input={} batches={} bidirection={} inputmode={} bias={} "
                       "algo={} padding={} forw={} fwdtype={} dropout={} rate={} seed={} type={}",
                       modes.at(mode), flags.integer("num_layer", 1), flags.integer("hid_h", 32),
                       flags.integer("in_h", 32), dims(batches), bidirection, input_mode, bias, algo,
                       flags.integer("use_padding", 0) != 0 ? 1 : 0, flags.integer("forw", 0),
                       flags.integer("fwdtype", 0), flags.integer("use_dropout", 0) != 0 ? 1 : 0,
                       flags.text("dropout", "0.0"), flags.seed(), p.command == "rnnfp16" ? 0 : 1);
}

// MIOpenDriver dropout / dropoutfp16 as DropoutDriver makes its calls (driver/dropout_driver.hpp,
// MIOpen 3.3.0): the defaults of AddCmdLineArgs (:152-181), at most 5 dimensions
// (GetInputTensorLengthsFromCmdLine, :184-207), the seed and the mask of GetandSetData (:137-150).
std::optional<std::string> dropout_line(const DriverCommandProblem& p) {
    const DriverFlags flags(p);
    auto lengths = flags.numbers("input_dim", "4");
    if (lengths.size() > 5) lengths.resize(5);
    return fmt::format("dropout x={} rate={} seed={} mask={} forw={} type={}", dims(lengths),
                       flags.text("dropout", "0.5"), flags.seed(), flags.integer("use_mask", 0) != 0 ? 1 : 0,
                       flags.integer("forw", 0), p.command == "dropoutfp16" ? 0 : 1);
}

// MIOpenDriver ctc as CTCDriver makes its calls (driver/ctc_driver.hpp, MIOpen 3.3.0): the
// defaults of AddCmdLineArgs (:158-187), the label and input lengths one per batch entry, cut to
// the batch or their last value repeated (GetInputLengthsFromCmdLine, :189-216).
std::optional<std::string> ctc_line(const DriverCommandProblem& p, std::string* why) {
    const DriverFlags flags(p);
    const long batch = flags.integer("batchsize", 4), classes = flags.integer("num_class", 9);
    auto per_batch = [&](const std::string& name, const std::string& fallback) {
        auto values = flags.numbers(name, fallback);
        if (batch > 0 && !values.empty()) {
            const long last = values.back();
            values.resize(static_cast<std::size_t>(batch), last);
        }
        return values;
    };
    const auto labels = per_batch("label_len", "5"), inputs = per_batch("input_len", "20");
    if (batch < 1 || classes < 1 || labels.empty() || inputs.empty()) {
        if (why) *why = fmt::format("MIOpenDriver {} with no batch, class or length: no MIOpen call", p.command);
        return std::nullopt;
    }
    return fmt::format("ctc classes={} labels={} inputs={} blank={} softmax={} algo={}", classes, dims(labels),
                       dims(inputs), flags.integer("blank_label_id", 0),
                       flags.integer("apply_softmax_layer", 1) == 1 ? 1 : 0, flags.integer("ctcalgo", 0));
}

}  // namespace

std::optional<std::string> replay_line(const Problem& problem, std::string* why) {
    if (const auto* conv = std::get_if<ConvProblem>(&problem)) return conv_line(*conv, why);
    if (const auto* bn = std::get_if<BatchNormProblem>(&problem)) {
        if (!replayable_layout(bn->layout)) {
            if (why) *why = "layout " + bn->layout + " is not replayed";
            return std::nullopt;
        }
        const char* direction = bn->direction == BatchNormProblem::Direction::ForwardTraining    ? "train"
                                : bn->direction == BatchNormProblem::Direction::ForwardInference ? "infer"
                                                                                                 : "back";
        // The buffers a caller passes decide the kernel's options (MIO_SAVE_MEAN_VARIANCE,
        // MIO_RUNNING_RESULT), so the line says which ones it has.
        const bool uses_saved = bn->direction == BatchNormProblem::Direction::Backward ? bn->use_saved
                                                                                       : bn->save_results;
        return fmt::format("bnorm dir={} mode={} x={} type={} ptype={} layout={} saved={} running={}", direction,
                           static_cast<int>(bn->mode), dims(bn->x.dims), type_code(bn->data_type),
                           type_code(bn->param_type), bn->layout, uses_saved ? 1 : 0, bn->running_results ? 1 : 0);
    }
    if (const auto* pool = std::get_if<PoolingProblem>(&problem))
        return fmt::format("pool dir={} mode={} x={} y={} win={} pad={} stride={} type={} index={} wsmode={} save={} "
                           "layout={}",
                           pool->direction == PoolingProblem::Direction::Forward ? 'F' : 'B',
                           static_cast<int>(pool->mode), dims(pool->x.dims), dims(pool->y.dims), dims(pool->window),
                           dims(pool->pads), dims(pool->strides), type_code(pool->data_type), pool->index_type,
                           pool->workspace_index_mode, pool->save_index ? 1 : 0, pool->layout);
    if (const auto* activation = std::get_if<ActivationProblem>(&problem))
        return fmt::format("activ dir={} mode={} alpha={} beta={} gamma={} x={} type={}",
                           activation->direction == ActivationProblem::Direction::Forward ? 'F' : 'B', activation->mode,
                           activation->alpha, activation->beta, activation->gamma, dims(activation->x.dims),
                           type_code(activation->data_type));
    if (const auto* softmax = std::get_if<SoftmaxProblem>(&problem))
        return fmt::format("softmax dir={} algo={} mode={} alpha={} beta={} x={} type={}",
                           softmax->direction == SoftmaxProblem::Direction::Forward ? 'F' : 'B', softmax->algorithm,
                           softmax->mode, softmax->alpha, softmax->beta, dims(softmax->x.dims),
                           type_code(softmax->data_type));
    if (const auto* lrn = std::get_if<LrnProblem>(&problem))
        return fmt::format("lrn dir={} mode={} n={} alpha={} beta={} k={} save={} x={} type={}",
                           lrn->direction == LrnProblem::Direction::Forward ? 'F' : 'B', lrn->mode, lrn->size,
                           lrn->alpha, lrn->beta, lrn->k, lrn->save_scale ? 1 : 0, dims(lrn->x.dims),
                           type_code(lrn->data_type));
    if (const auto* command = std::get_if<DriverCommandProblem>(&problem)) {
        // Made by kdbgen's replay, MIOpen's API called as the driver calls it (and as
        // frameworks do): 3.5.1's rnn command runs nothing (its parser asks for a `time` flag
        // rnn does not define).
        if (command->command == "rnn" || command->command == "rnnfp16") return rnn_line(*command, why);
        if (command->command == "dropout" || command->command == "dropoutfp16") return dropout_line(*command);
        if (command->command == "ctc") return ctc_line(*command, why);
        if (why) *why = fmt::format("kdbgen's replay makes no calls for MIOpenDriver {}: an installed MIOpenDriver runs "
                                    "the line (Debian: libmiopen1-tests)", command->command);
        return std::nullopt;
    }
    const auto& op = std::get<TensorOpProblem>(problem);
    const char* routine = op.routine == TensorOpProblem::Routine::OpTensor    ? "op"
                          : op.routine == TensorOpProblem::Routine::SetTensor ? "set"
                                                                              : "scale";
    return fmt::format("tensorop routine={} op={} a={} b={} type={}", routine, op.op, dims(op.a.dims),
                       dims(op.b.dims.empty() ? op.a.dims : op.b.dims), type_code(op.data_type));
}

}  // namespace kdbgen
