// ONNX models into problem configs. Shapes come from ONNX's own shape
// inference (libonnx); the batch size and data type can be overridden.
// One-dimensional convolutions and pools become two-dimensional ones with
// height 1, as PyTorch's MIOpen backend runs them.
#include "conv_spec.hpp"
#include "kdbgen/checks.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/recurrent.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <fstream>
#include <map>
#include <set>

namespace kdbgen {

namespace {

class OnnxReader {
public:
    OnnxReader(const fs::path& path, const OnnxOptions& options, bool training, ProblemSet& out)
        : path_(path), options_(options), training_(training), out_(out), type_(parse_data_type(options.data_type)) {}

    void run(onnx::ModelProto& model) {
        auto* graph = model.mutable_graph();
        const std::set<std::string> initializers = [&] {
            std::set<std::string> names;
            for (const auto& init : graph->initializer()) names.insert(init.name());
            return names;
        }();
        for (auto& input : *graph->mutable_input()) {
            if (initializers.count(input.name())) continue;
            auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
            if (shape->dim_size() == 0) continue;
            auto* batch = shape->mutable_dim(0);
            if (options_.batch_size > 0) batch->set_dim_value(options_.batch_size);
            else if (!batch->has_dim_value()) batch->set_dim_value(1);  // a dynamic batch defaults to 1
            graph_inputs_.insert(input.name());
        }
        // Shapes stored in the model were inferred for its own batch size: drop
        // them and let inference redo them for ours.
        check_attributes(*graph);
        graph->clear_value_info();
        for (auto& output : *graph->mutable_output()) output.mutable_type()->mutable_tensor_type()->clear_shape();
        try {
            onnx::shape_inference::InferShapes(model);
        } catch (const std::exception& e) {
            throw InputError(located(path_.string(), 0, std::string("ONNX shape inference failed: ") + e.what()));
        }
        const auto record = [&](const onnx::ValueInfoProto& value) {
            if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
            std::vector<long> dims;
            for (const auto& d : value.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
            shapes_[value.name()] = dims;
        };
        for (const auto& v : graph->input()) record(v);
        for (const auto& v : graph->value_info()) record(v);
        for (const auto& v : graph->output()) record(v);
        for (const auto& init : graph->initializer()) shapes_[init.name()] = {init.dims().begin(), init.dims().end()};
        int index = 0;
        for (const auto& node : graph->node()) visit(node, index++);
    }

private:
    // Attributes that would make ONNX's own shape inference divide by zero (a stride or group of 0
    // ends the process with SIGFPE inside libonnx) or describe no MIOpen problem: checked first.
    void check_attributes(const onnx::GraphProto& graph) const {
        int index = 0;
        for (const auto& node : graph.node()) {
            const std::string name = node_name(node, index++);
            const std::string& op = node.op_type();
            const bool conv = op == "Conv" || op == "ConvTranspose";
            const bool pool = op == "MaxPool" || op == "AveragePool";
            if (!conv && !pool) continue;
            const auto ints_at_least = [&](std::string_view attr, long minimum) {
                const auto* a = attribute(node, attr);
                if (!a) return;
                if (a->type() != onnx::AttributeProto::INTS)
                    throw error(name, fmt::format("attribute '{}' must be a list of integers", attr));
                for (const auto v : a->ints())
                    if (v < minimum || v > checks::kMaxDimension)
                        throw error(name, fmt::format("attribute {} = [{}]: {} is not between {} and {}", attr,
                                                      fmt::join(a->ints(), ", "), v, minimum, checks::kMaxDimension));
            };
            ints_at_least("strides", 1);
            ints_at_least("kernel_shape", 1);
            ints_at_least("pads", 0);
            ints_at_least("dilations", 1);
            if (const auto* g = attribute(node, "group"); g && conv) {
                if (g->type() != onnx::AttributeProto::INT)
                    throw error(name, "attribute 'group' must be an integer");
                if (g->i() < 1 || g->i() > checks::kMaxDimension)
                    throw error(name, fmt::format("attribute group = {} is not between 1 and {}", g->i(),
                                                  checks::kMaxDimension));
            }
        }
    }

    std::string node_name(const onnx::NodeProto& node, int index) const {
        return node.name().empty() ? fmt::format("{}#{}", node.op_type(), index) : node.name();
    }
    InputError error(const std::string& node, const std::string& message) const {
        return InputError(located(path_.string(), 0, fmt::format("node '{}': {}", node, message)));
    }
    std::vector<long> shape(const std::string& node, const std::string& tensor) const {
        const auto it = shapes_.find(tensor);
        if (it == shapes_.end()) throw error(node, fmt::format("no shape for tensor '{}'", tensor));
        for (const long d : it->second)
            if (d <= 0) throw error(node, fmt::format("tensor '{}' has an unknown dimension after shape inference", tensor));
        return it->second;
    }
    static const onnx::AttributeProto* attribute(const onnx::NodeProto& node, std::string_view name) {
        for (const auto& a : node.attribute())
            if (a.name() == name) return &a;
        return nullptr;
    }
    static std::vector<long> ints(const onnx::NodeProto& node, std::string_view name, std::vector<long> fallback) {
        const auto* a = attribute(node, name);
        if (!a) return fallback;
        return {a->ints().begin(), a->ints().end()};
    }
    static long integer(const onnx::NodeProto& node, std::string_view name, long fallback) {
        const auto* a = attribute(node, name);
        return a ? static_cast<long>(a->i()) : fallback;
    }
    static float real(const onnx::NodeProto& node, std::string_view name, float fallback) {
        const auto* a = attribute(node, name);
        return a ? a->f() : fallback;
    }
    template <typename P>
    void add(const std::string& node, const P& problem) {
        try {
            checks::check_problem(problem);
        } catch (const InputError& e) {
            throw error(node, e.what());
        }
        out_.add(problem, origin(node));
    }
    std::string origin(const std::string& node) const {
        const std::string batch = options_.batch_size > 0 ? std::to_string(options_.batch_size) : "of the model";
        return fmt::format("{}:{} (batch {} {} {})", path_.filename().string(), node, batch, options_.data_type,
                           training_ ? "training" : "inference");
    }
    // [N, C, L] -> [N, C, 1, L]: MIOpen has no 1-D convolution or pooling.
    static std::vector<long> as_2d(std::vector<long> dims) {
        if (dims.size() == 3) dims.insert(dims.begin() + 2, 1);
        return dims;
    }
    static std::vector<long> spatial_2d(std::vector<long> values, long fill) {
        if (values.size() == 1) values.insert(values.begin(), fill);
        return values;
    }
    std::vector<long> symmetric_pads(const onnx::NodeProto& node, const std::string& name, std::size_t dims) const {
        const auto* auto_pad = attribute(node, "auto_pad");
        if (auto_pad && auto_pad->s() != "NOTSET" && auto_pad->s() != "VALID")
            throw error(name, fmt::format("auto_pad {} is not supported; export with explicit pads", auto_pad->s()));
        auto pads = ints(node, "pads", std::vector<long>(2 * dims, 0));
        if (pads.size() != 2 * dims) throw error(name, "pads has the wrong length");
        for (std::size_t i = 0; i < dims; ++i)
            if (pads[i] != pads[i + dims])
                throw error(name, fmt::format("asymmetric padding {}/{} cannot be a MIOpen problem", pads[i], pads[i + dims]));
        return {pads.begin(), pads.begin() + static_cast<long>(dims)};
    }

    static bool is_planned_op(const std::string& op) {
        static const std::set<std::string> kPlanned = {
            "Conv", "ConvTranspose", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool",
            "GlobalMaxPool", "Softmax", "LogSoftmax", "LRN", "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Clip", "Abs",
            "LSTM", "GRU", "RNN", "Dropout"};
        return kPlanned.count(op) != 0;
    }

    void visit(const onnx::NodeProto& node, int index) {
        const std::string name = node_name(node, index);
        const std::string& op = node.op_type();
        // Every op read here names its data input first, a convolution its weights second;
        // protobuf stops the process (CHECK failed) on an index it does not hold.
        const int needed = op == "Conv" || op == "ConvTranspose" ? 2 : 1;
        if (node.input_size() < needed && is_planned_op(op))
            throw error(name, fmt::format("{} has {} input(s), it needs at least {}", op, node.input_size(), needed));
        if (op == "Conv" || op == "ConvTranspose") return visit_conv(node, name, op == "ConvTranspose");
        if (op == "LSTM" || op == "GRU" || op == "RNN") return visit_rnn(node, name);
        if (op == "Dropout") {
            // A training-mode Dropout (opset 12: its third input; earlier: the graph trains) through
            // MIOpen's dropout; its ratio an attribute before opset 12, else 0.5 unless it is a
            // constant kdbgen does not read.
            if (node.input_size() < 1) throw error(name, "Dropout has no input");
            const auto x = shape(name, node.input(0));
            if (const auto problem = dropout_problem(x, real(node, "ratio", 0.5f), type_, training_))
                add(name, *problem);
            return;
        }
        if (op == "BatchNormalization") {
            BatchNormProblem p;
            const auto x = shape(name, node.input(0));
            // MIOpen's batch norm takes 3- to 5-D tensors (miopenBatchNormalizationForward*
            // throw BadParm below 3, src/ocl/batchnormocl.cpp:227-230, MIOpen 3.3.0).
            if (x.size() < 3 || x.size() > 5)
                throw error(name, fmt::format("BatchNormalization input '{}' has rank {}, MIOpen takes 3 to 5",
                                              node.input(0), x.size()));
            p.x = TensorShape{as_2d(x)};
            p.data_type = type_;
            p.param_type = (type_ == DataType::Half || type_ == DataType::BFloat16) ? DataType::Float : type_;
            p.layout = p.x.dims.size() == 5 ? "NCDHW" : "NCHW";
            p.fold_depth();
            p.direction = training_ ? BatchNormProblem::Direction::ForwardTraining
                                    : BatchNormProblem::Direction::ForwardInference;
            add(name, p);
            if (training_) {
                p.direction = BatchNormProblem::Direction::Backward;
                add(name, p);
            }
            return;
        }
        if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool")
            return visit_pool(node, name);
        static const std::map<std::string, int> kActivations = {
            {"Relu", 3}, {"LeakyRelu", 8}, {"Sigmoid", 1}, {"Tanh", 2}, {"Elu", 9}, {"Clip", 7}, {"Abs", 5}};
        if (const auto it = kActivations.find(op); it != kActivations.end()) {
            ActivationProblem p;
            auto dims = shape(name, node.input(0));
            if (dims.size() < 2 || dims.size() > 5)
                throw error(name, fmt::format("{} input '{}' has rank {}, kdbgen plans 2 to 5", op, node.input(0),
                                              dims.size()));
            while (dims.size() < 4) dims.push_back(1);
            p.x = TensorShape{dims};
            p.mode = it->second;
            p.data_type = type_;
            add(name, p);
            if (training_) {
                p.direction = ActivationProblem::Direction::Backward;
                add(name, p);
            }
            return;
        }
        if (op == "Softmax" || op == "LogSoftmax") {
            SoftmaxProblem p;
            auto dims = shape(name, node.input(0));
            while (dims.size() < 4) dims.push_back(1);
            if (dims.size() != 4) throw error(name, "softmax over more than 4 dimensions");
            p.x = TensorShape{dims};
            p.algorithm = op == "LogSoftmax" ? 2 : 1;
            p.mode = 1;
            p.data_type = type_;
            add(name, p);
            if (training_) {
                p.direction = SoftmaxProblem::Direction::Backward;
                add(name, p);
            }
            return;
        }
        if (op == "LRN") {
            LrnProblem p;
            p.x = TensorShape{shape(name, node.input(0))};
            if (p.x.dims.size() != 4)
                throw error(name, fmt::format("LRN input '{}' has rank {}, MIOpen's LRN takes 4", node.input(0),
                                              p.x.dims.size()));
            p.size = integer(node, "size", 5);
            p.alpha = real(node, "alpha", 1e-4f);
            p.beta = real(node, "beta", 0.75f);
            p.k = real(node, "bias", 1.0f);
            p.data_type = type_;
            p.save_scale = training_;
            add(name, p);
            if (training_) {
                p.direction = LrnProblem::Direction::Backward;
                add(name, p);
            }
        }
    }

    // ONNX's LSTM, GRU and RNN (one layer each; X is [seq_length, batch, input_size], or
    // [batch, seq_length, input_size] with layout = 1) as PyTorch exports nn.LSTM/GRU/RNN
    // and runs them on MIOpen (rnn_problem).
    void visit_rnn(const onnx::NodeProto& node, const std::string& name) {
        if (node.input_size() < 3) throw error(name, fmt::format("{} needs X, W and R", node.op_type()));
        const auto x = shape(name, node.input(0));
        if (x.size() != 3) throw error(name, fmt::format("{} input '{}' has rank {}, not 3", node.op_type(),
                                                        node.input(0), x.size()));
        RecurrentLayer layer;
        const bool batch_first = integer(node, "layout", 0) == 1;
        layer.steps = batch_first ? x[1] : x[0];
        layer.batch = batch_first ? x[0] : x[1];
        layer.input = x[2];
        layer.hidden = integer(node, "hidden_size", 0);
        if (layer.hidden <= 0) throw error(name, fmt::format("{} has no positive hidden_size", node.op_type()));
        const auto* direction = attribute(node, "direction");
        const std::string way = direction ? direction->s() : "forward";
        if (way != "forward" && way != "bidirectional")
            throw error(name, fmt::format("direction {}: MIOpen's RNN runs forward or bidirectional", way));
        layer.bidirectional = way == "bidirectional";
        layer.bias = node.input_size() > 3 && !node.input(3).empty();
        // What MIOpen's RNN cannot run is refused, never planned as something else: LSTM peepholes
        // (input P), and a GRU that applies its reset gate before the linear map (MIOpen's GRU is
        // linear_before_reset = 1, as PyTorch exports nn.GRU).
        if (node.op_type() == "LSTM" && node.input_size() > 7 && !node.input(7).empty())
            throw error(name, "an LSTM with peepholes: MIOpen's LSTM has none");
        if (node.op_type() == "GRU" && integer(node, "linear_before_reset", 0) != 1)
            throw error(name, "a GRU with linear_before_reset = 0: MIOpen's GRU applies the reset gate after "
                              "the linear map (linear_before_reset = 1, as PyTorch exports nn.GRU)");
        if (node.op_type() == "LSTM") layer.mode = "lstm";
        else if (node.op_type() == "GRU") layer.mode = "gru";
        else {
            const auto* activations = attribute(node, "activations");
            const std::string first = activations && activations->strings_size() > 0 ? activations->strings(0) : "Tanh";
            if (first != "Tanh" && first != "Relu")
                throw error(name, fmt::format("RNN activation {}: MIOpen's vanilla RNN takes Tanh or Relu", first));
            layer.mode = first == "Relu" ? "relu" : "tanh";
        }
        layer.data_type = type_;
        layer.training = training_;
        if (const auto problem = rnn_problem(layer)) add(name, *problem);
    }

    void visit_conv(const onnx::NodeProto& node, const std::string& name, bool transpose) {
        const auto x = shape(name, node.input(0));
        const auto w = shape(name, node.input(1));
        if (x.size() < 3 || x.size() > 5 || w.size() != x.size())
            throw error(name, fmt::format("input rank {} / weight rank {} is not a 1-D, 2-D or 3-D convolution", x.size(), w.size()));
        const std::size_t raw_dims = x.size() - 2;
        ConvSpec s;
        s.groups = integer(node, "group", 1);
        s.n = x[0];
        s.c = x[1];
        s.k = transpose ? w[1] * s.groups : w[0];
        s.filter = spatial_2d(ints(node, "kernel_shape", {w.begin() + 2, w.end()}), 1);
        s.strides = spatial_2d(ints(node, "strides", std::vector<long>(raw_dims, 1)), 1);
        s.dilations = spatial_2d(ints(node, "dilations", std::vector<long>(raw_dims, 1)), 1);
        s.pads = spatial_2d(symmetric_pads(node, name, raw_dims), 0);
        s.dims = static_cast<unsigned>(s.filter.size());
        s.bias = node.input_size() > 2 && !node.input(2).empty();
        s.transpose = transpose;
        s.in = spatial_2d({x.begin() + 2, x.end()}, 1);
        const auto y = shape(name, node.output(0));
        s.out = spatial_2d({y.begin() + 2, y.end()}, 1);
        for (const auto* attribute : {&s.filter, &s.strides, &s.dilations, &s.pads})
            if (attribute->size() != s.in.size())
                throw error(name, fmt::format("kernel_shape, strides, dilations and pads must have one value per spatial "
                                              "dimension of the input ({})",
                                              raw_dims));
        s.in_layout = s.w_layout = s.out_layout = s.dims == 3 ? "NCDHW" : "NCHW";
        s.types = type_ == DataType::Int8 ? "INT8INT8INT32" : std::string(key_name(type_));
        if (s.c % s.groups != 0) throw error(name, fmt::format("channels {} not divisible by group {}", s.c, s.groups));
        const bool input_grad = training_ && !graph_inputs_.count(node.input(0));
        for (auto& p : conv_problems(s, true, input_grad, training_)) add(name, p);
    }

    void visit_pool(const onnx::NodeProto& node, const std::string& name) {
        const std::string& op = node.op_type();
        const auto x = shape(name, node.input(0));
        const auto y = shape(name, node.output(0));
        if (x.size() < 3 || x.size() > 5 || y.size() != x.size())
            throw error(name, fmt::format("{} input rank {} / output rank {} is not a 1-D, 2-D or 3-D pooling", op,
                                          x.size(), y.size()));
        const std::size_t raw_dims = x.size() - 2;
        PoolingProblem p;
        p.x = TensorShape{as_2d(x)};
        p.y = TensorShape{as_2d(y)};
        p.layout = p.x.dims.size() == 5 ? "NCDHW" : "NCHW";  // ONNX tensors are channels-first
        p.data_type = type_;
        p.mode = (op == "MaxPool" || op == "GlobalMaxPool") ? PoolingProblem::Mode::Max : PoolingProblem::Mode::Average;
        if (op.starts_with("Global")) {
            p.window = p.x.spatial();
            p.strides = p.window;
            p.pads.assign(p.window.size(), 0);
        } else {
            if (integer(node, "ceil_mode", 0) != 0) throw error(name, "ceil_mode pooling is not supported");
            for (const long d : ints(node, "dilations", {}))
                if (d != 1) throw error(name, "dilated pooling has no MIOpen kernel");
            if (op == "AveragePool" && integer(node, "count_include_pad", 0) == 1)
                p.mode = PoolingProblem::Mode::AverageInclusive;
            p.window = spatial_2d(ints(node, "kernel_shape", {}), 1);
            if (p.window.size() != raw_dims && !(raw_dims == 1 && p.window.size() == 2))
                throw error(name, "kernel_shape is missing or has the wrong length");
            p.strides = spatial_2d(ints(node, "strides", std::vector<long>(raw_dims, 1)), 1);
            p.pads = spatial_2d(symmetric_pads(node, name, raw_dims), 0);
        }
        p.save_index = training_;
        p.workspace_index_mode = p.x.dims.size() == 5 ? 1 : 0;  // mask indices are 2-D only
        add(name, p);
        if (training_) {
            p.direction = PoolingProblem::Direction::Backward;
            add(name, p);
        }
    }

    fs::path path_;
    OnnxOptions options_;
    bool training_;
    ProblemSet& out_;
    DataType type_;
    std::map<std::string, std::vector<long>> shapes_;
    std::set<std::string> graph_inputs_;
};

}  // namespace

ProblemSet read_onnx_model(const fs::path& path, const OnnxOptions& options) {
    // The whole file first (a folder or unreadable file is an InputError
    // naming it), and only a size protobuf can parse: above 2 GiB its
    // parser stops on a CHECK failure (abort) instead of returning false.
    const Bytes data = read_file(path);
    if (data.size() > (std::size_t{1} << 31) - 1)
        throw InputError(located(path.string(), 0, "ONNX model larger than the 2 GiB protobuf reads"));
    onnx::ModelProto model;
    if (!model.ParseFromArray(data.data(), static_cast<int>(data.size())) || !model.has_graph())
        throw InputError(located(path.string(), 0, "not a valid ONNX model (protobuf parse failed)"));
    try {
        parse_data_type(options.data_type);
    } catch (const InputError& e) {
        throw InputError(located(path.string(), 0, e.what()));
    }
    ProblemSet set;
    for (const auto& mode : options.modes) {
        if (mode != "inference" && mode != "training")
            throw InputError(fmt::format("mode '{}' is not inference or training", mode));
        onnx::ModelProto copy = model;
        OnnxReader reader(path, options, mode == "training", set);
        try {
            reader.run(copy);
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            // protobuf's and ONNX's own checks: still this file's fault.
            throw InputError(located(path.string(), 0, std::string("not a model kdbgen can read: ") + e.what()));
        }
    }
    return set;
}

}  // namespace kdbgen
