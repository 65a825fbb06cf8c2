// Network descriptions (TOML, docs/networks.md) into problem configs.
// Shapes propagate from the input; every layer's error names the file, the
// line of its [[layer]] table, the layer and the value.
#include "conv_spec.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <map>
#include <set>

namespace kdbgen {

namespace {

// A tensor between layers: per-sample dims C, [D,] H, W, and whether the
// gradient with respect to it is computed in training (not for the input).
struct Tensor {
    std::vector<long> dims;
    bool needs_grad = false;
    long channels() const { return dims[0]; }
    std::vector<long> spatial() const { return {dims.begin() + 1, dims.end()}; }
};

struct Variant {
    long batch = 1;
    std::string data_type = "FP32";
    std::string layout = "NCHW";
    bool training = false;
    std::string tag() const {
        return fmt::format("batch {} {} {} {}", batch, data_type, layout, training ? "training" : "inference");
    }
};

class NetworkReader {
public:
    NetworkReader(fs::path path, const Variant& variant, ProblemSet& out)
        : path_(std::move(path)), variant_(variant), out_(out) {}

    void run(const toml::table& root, const Tensor& input) {
        Tensor current = input;
        named_["@input"] = input;
        const auto* items = root.get_as<toml::array>("layer");
        if (!items || items->empty()) throw error(root, "", "no [[layer]] tables");
        std::size_t index = 0;
        for (const auto& node : *items) {
            const auto* table = node.as_table();
            if (!table) throw error(node, "", "a [[layer]] entry is not a table");
            ++index;
            if (table->contains("layers")) run_block(*table, current, index);
            else run_layer(*table, current, fmt::format("layer {}", index), named_);
        }
    }

private:
    InputError error(const toml::node& node, const std::string& layer, const std::string& message) const {
        const std::string where = layer.empty() ? message : fmt::format("layer '{}': {}", layer, message);
        return InputError(located(path_.string(), node.source().begin.line, where));
    }

    // [[layer]] with layers = [ {...}, ... ] and repeat = N: a block run N
    // times; "@in" is each iteration's input, names are local to it.
    void run_block(const toml::table& block, Tensor& current, std::size_t index) {
        const std::string block_name = block["name"].value_or(fmt::format("block {}", index));
        const long repeat = block["repeat"].value_or(1L);
        if (repeat < 1) throw error(block, block_name, fmt::format("repeat {} must be at least 1", repeat));
        const auto* layers = block.get_as<toml::array>("layers");
        if (!layers) throw error(block, block_name, "'layers' must be a list of tables");
        for (long r = 0; r < repeat; ++r) {
            std::map<std::string, Tensor> local = named_;
            local["@in"] = current;
            std::size_t i = 0;
            for (const auto& node : *layers) {
                const auto* table = node.as_table();
                if (!table) throw error(node, block_name, "a block layer is not a table");
                run_layer(*table, current, fmt::format("{}.{}[{}]", block_name, ++i, r), local);
            }
            // Names a block sets are visible after it as "<block>.<name>" of its last iteration.
            for (const auto& [name, tensor] : local)
                if (!named_.count(name) && name != "@in") named_[block_name + "." + name] = tensor;
        }
    }

    long int_param(const toml::table& t, const std::string& layer, std::string_view key, long fallback) const {
        const toml::node* node = t.get(key);
        if (!node) return fallback;
        if (const auto v = node->value<long>()) return *v;
        throw error(*node, layer, fmt::format("'{}' must be a whole number", key));
    }

    // kernel = 3 or [3, 3] (or [3, 3, 3]): one value per spatial dimension.
    std::vector<long> spatial_param(const toml::table& t, const std::string& layer, std::string_view key,
                                    std::size_t dims, long fallback, long minimum) const {
        const toml::node* node = t.get(key);
        std::vector<long> values(dims, fallback);
        if (node) {
            if (const auto v = node->value<long>()) {
                values.assign(dims, *v);
            } else if (const auto* array = node->as_array()) {
                if (array->size() != dims)
                    throw error(*node, layer, fmt::format("'{}' needs {} values, has {}", key, dims, array->size()));
                for (std::size_t i = 0; i < dims; ++i) {
                    const auto v = (*array)[i].value<long>();
                    if (!v) throw error(*node, layer, fmt::format("'{}' holds a value that is not a whole number", key));
                    values[i] = *v;
                }
            } else {
                throw error(*node, layer, fmt::format("'{}' must be a number or a list of numbers", key));
            }
        }
        for (const long v : values)
            if (v < minimum) throw error(node ? *node : t, layer, fmt::format("'{}' value {} is below {}", key, v, minimum));
        return values;
    }

    const Tensor& lookup(const toml::table& t, const std::string& layer, const std::string& name,
                         const std::map<std::string, Tensor>& scope) const {
        const auto it = scope.find(name);
        if (it == scope.end()) throw error(t, layer, fmt::format("no earlier layer named '{}'", name));
        return it->second;
    }

    TensorShape batched(const Tensor& t) const {
        std::vector<long> dims{variant_.batch};
        dims.insert(dims.end(), t.dims.begin(), t.dims.end());
        return TensorShape{dims};
    }

    DataType data_type() const { return parse_data_type(variant_.data_type); }
    std::string origin(const std::string& layer) const {
        return fmt::format("{}:{} ({})", path_.filename().string(), layer, variant_.tag());
    }

    std::string conv_layout(std::size_t spatial) const {
        if (spatial == 3) return variant_.layout == "NHWC" || variant_.layout == "NDHWC" ? "NDHWC" : "NCDHW";
        return variant_.layout == "NHWC" || variant_.layout == "NDHWC" ? "NHWC" : "NCHW";
    }

    void run_conv(const toml::table& t, const std::string& layer, const std::string& type, Tensor& current) {
        const std::size_t dims = current.dims.size() - 1;
        ConvSpec s;
        s.dims = static_cast<unsigned>(dims);
        s.n = variant_.batch;
        s.c = current.channels();
        s.k = int_param(t, layer, "out", 0);
        if (s.k <= 0) throw error(t, layer, "'out' (output channels) must be a positive number");
        s.filter = spatial_param(t, layer, "kernel", dims, 1, 1);
        s.strides = spatial_param(t, layer, "stride", dims, 1, 1);
        s.pads = spatial_param(t, layer, "pad", dims, 0, 0);
        s.dilations = spatial_param(t, layer, "dilation", dims, 1, 1);
        if (const auto* g = t.get("groups"); g && g->value<std::string>() == "depthwise") s.groups = s.c;
        else s.groups = int_param(t, layer, "groups", 1);
        if (s.groups < 1) throw error(t, layer, fmt::format("groups {} must be at least 1", s.groups));
        if (s.c % s.groups != 0 || s.k % s.groups != 0)
            throw error(t, layer, fmt::format("channels {} -> {} are not divisible by {} groups", s.c, s.k, s.groups));
        s.bias = t["bias"].value_or(false);
        s.in = current.spatial();
        s.transpose = type == "convtranspose";
        const auto output_pad = spatial_param(t, layer, "output_pad", dims, 0, 0);
        for (std::size_t i = 0; i < dims; ++i) {
            const long size = s.transpose
                                  ? s.strides[i] * (s.in[i] - 1) + 1 + s.dilations[i] * (s.filter[i] - 1) - 2 * s.pads[i] +
                                        output_pad[i]
                                  : (s.in[i] + 2 * s.pads[i] - s.dilations[i] * (s.filter[i] - 1) - 1) / s.strides[i] + 1;
            if (size <= 0)
                throw error(t, layer, fmt::format("output size {} in dimension {} (input {}, kernel {}, pad {}, stride {})",
                                                  size, i, s.in[i], s.filter[i], s.pads[i], s.strides[i]));
            s.out.push_back(size);
        }
        s.in_layout = s.w_layout = s.out_layout = conv_layout(dims);
        const std::string types = variant_.data_type == "INT8" ? "INT8INT8INT32" : variant_.data_type;
        s.types = types;
        // PyTorch computes no gradient for the network input: no backward-data there.
        const bool train = variant_.training;
        for (auto& p : conv_problems(s, true, train && current.needs_grad, train)) out_.add(p, origin(layer));
        current.dims[0] = s.k;
        for (std::size_t i = 0; i < dims; ++i) current.dims[i + 1] = s.out[i];
        current.needs_grad = true;
    }

    void run_pool(const toml::table& t, const std::string& layer, const std::string& type, Tensor& current) {
        const std::size_t dims = current.dims.size() - 1;
        PoolingProblem p;
        p.mode = type == "maxpool" ? PoolingProblem::Mode::Max : PoolingProblem::Mode::Average;
        if (type == "avgpool" && t["count_include_pad"].value_or(false)) p.mode = PoolingProblem::Mode::AverageInclusive;
        if (type == "globalavgpool") {
            p.window = current.spatial();
            p.strides = p.window;
            p.pads.assign(dims, 0);
        } else {
            p.window = spatial_param(t, layer, "kernel", dims, 2, 1);
            p.strides = spatial_param(t, layer, "stride", dims, p.window[0], 1);
            p.pads = spatial_param(t, layer, "pad", dims, 0, 0);
        }
        Tensor out = current;
        for (std::size_t i = 0; i < dims; ++i) {
            const long size = (current.dims[i + 1] + 2 * p.pads[i] - p.window[i]) / p.strides[i] + 1;
            if (size <= 0) throw error(t, layer, fmt::format("pooling output size {} in dimension {}", size, i));
            out.dims[i + 1] = size;
        }
        p.x = batched(current);
        p.y = batched(out);
        p.data_type = data_type();
        // Mask indices are 2-D only (include/miopen/miopen.h:471): 3-D pooling keeps image indices,
        // as MIOpenDriver sets them (driver/pool_driver.hpp:316-319).
        p.workspace_index_mode = p.x.dims.size() == 5 ? 1 : 0;
        if (p.data_type != DataType::Int8) {
            p.save_index = variant_.training;
            out_.add(p, origin(layer));
            if (variant_.training) {
                p.direction = PoolingProblem::Direction::Backward;
                out_.add(p, origin(layer));
            }
        }
        current = out;
    }

    void run_activation(const toml::table& t, const std::string& layer, const std::string& type, Tensor& current) {
        static const std::map<std::string, int> kModes = {
            {"identity", 0}, {"sigmoid", 1}, {"logistic", 1}, {"tanh", 2},     {"relu", 3},       {"softrelu", 4},
            {"abs", 5},      {"power", 6},   {"clipped_relu", 7}, {"relu6", 7}, {"leaky_relu", 8}, {"elu", 9}};
        const std::string mode = type == "activation" ? t["mode"].value_or(std::string()) : type;
        const auto it = kModes.find(mode);
        if (it == kModes.end()) throw error(t, layer, fmt::format("unknown activation '{}'", mode));
        ActivationProblem p;
        p.mode = it->second;
        p.x = batched(current);
        p.data_type = data_type();
        if (p.data_type == DataType::Int8) return;
        out_.add(p, origin(layer));
        if (variant_.training) {
            p.direction = ActivationProblem::Direction::Backward;
            out_.add(p, origin(layer));
        }
    }

    void run_layer(const toml::table& t, Tensor& current, const std::string& fallback_name,
                   std::map<std::string, Tensor>& scope) {
        const auto type_node = t["type"].value<std::string>();
        const std::string layer = t["name"].value_or(fallback_name);
        if (!type_node) throw error(t, layer, "needs a 'type'");
        const std::string type = *type_node;
        if (const auto from = t["from"].value<std::string>()) current = lookup(t, layer, *from, scope);
        const long repeat = t["repeat"].value_or(1L);
        if (repeat < 1) throw error(t, layer, fmt::format("repeat {} must be at least 1", repeat));
        for (long r = 0; r < repeat; ++r) {
            const std::string name = repeat == 1 ? layer : fmt::format("{}[{}]", layer, r);
            if (type == "conv" || type == "convtranspose") {
                run_conv(t, name, type, current);
            } else if (type == "batchnorm") {
                BatchNormProblem p;
                const std::string mode = t["mode"].value_or(std::string("spatial"));
                if (mode != "spatial" && mode != "per_activation")
                    throw error(t, name, fmt::format("batchnorm mode '{}' is not spatial or per_activation", mode));
                p.mode = mode == "spatial" ? BatchNormProblem::Mode::Spatial : BatchNormProblem::Mode::PerActivation;
                p.x = batched(current);
                p.data_type = data_type();
                // PyTorch keeps batchnorm parameters in FP32 for FP16 and BF16 data.
                p.param_type = (p.data_type == DataType::Half || p.data_type == DataType::BFloat16) ? DataType::Float
                                                                                                    : p.data_type;
                p.layout = current.dims.size() == 4 ? conv_layout(3) : conv_layout(2);
                p.fold_depth();
                if (p.data_type != DataType::Int8) {
                    p.direction = variant_.training ? BatchNormProblem::Direction::ForwardTraining
                                                    : BatchNormProblem::Direction::ForwardInference;
                    out_.add(p, origin(name));
                    if (variant_.training) {
                        p.direction = BatchNormProblem::Direction::Backward;
                        out_.add(p, origin(name));
                    }
                }
            } else if (type == "maxpool" || type == "avgpool" || type == "globalavgpool") {
                run_pool(t, name, type, current);
            } else if (type == "activation" || type == "relu" || type == "leaky_relu" || type == "sigmoid" ||
                       type == "tanh" || type == "elu" || type == "clipped_relu" || type == "relu6" || type == "abs") {
                run_activation(t, name, type, current);
            } else if (type == "softmax" || type == "lrn") {
                if (data_type() == DataType::Int8) continue;
                if (type == "softmax") {
                    SoftmaxProblem p;
                    p.x = batched(current);
                    while (p.x.dims.size() < 4) p.x.dims.push_back(1);
                    p.data_type = data_type();
                    out_.add(p, origin(name));
                    if (variant_.training) {
                        p.direction = SoftmaxProblem::Direction::Backward;
                        out_.add(p, origin(name));
                    }
                } else {
                    LrnProblem p;
                    p.x = batched(current);
                    p.size = int_param(t, name, "size", 5);
                    p.alpha = t["alpha"].value_or(1e-4);
                    p.beta = t["beta"].value_or(0.75);
                    p.k = t["k"].value_or(1.0);
                    p.mode = t["mode"].value_or(std::string("cross_channel")) == "within_channel" ? 0 : 1;
                    p.data_type = data_type();
                    p.save_scale = variant_.training;
                    out_.add(p, origin(name));
                    if (variant_.training) {
                        p.direction = LrnProblem::Direction::Backward;
                        out_.add(p, origin(name));
                    }
                }
            } else if (type == "add") {
                const auto with = t["with"].value<std::string>();
                if (!with) throw error(t, name, "'add' needs 'with' = the layer to add");
                const Tensor& other = lookup(t, name, *with, scope);
                if (other.dims != current.dims)
                    throw error(t, name, fmt::format("cannot add shapes {} and {}", fmt::join(current.dims, "x"),
                                                     fmt::join(other.dims, "x")));
                if (data_type() != DataType::Int8) {
                    TensorOpProblem p;
                    p.a = batched(current);
                    p.b = batched(other);
                    p.data_type = data_type();
                    out_.add(p, origin(name));
                }
                current.needs_grad = current.needs_grad || other.needs_grad;
            } else if (type == "concat") {
                const auto* with = t.get_as<toml::array>("with");
                if (!with) throw error(t, name, "'concat' needs 'with' = [layers to join on channels]");
                const bool crop = t["crop"].value_or(false);
                for (const auto& item : *with) {
                    const auto other_name = item.value<std::string>();
                    if (!other_name) throw error(t, name, "'with' holds a value that is not a layer name");
                    const Tensor& other = lookup(t, name, *other_name, scope);
                    const auto a = current.spatial(), b = other.spatial();
                    bool fits = a.size() == b.size();
                    for (std::size_t i = 0; fits && i < a.size(); ++i) fits = crop ? b[i] >= a[i] : b[i] == a[i];
                    if (!fits)
                        throw error(t, name, fmt::format("cannot concatenate spatial shapes {} and {}{}",
                                                         fmt::join(a, "x"), fmt::join(b, "x"),
                                                         crop ? " (crop needs the other to be larger)" : ""));
                    current.dims[0] += other.channels();
                }
            } else if (type == "upsample") {
                const auto scale = spatial_param(t, name, "scale", current.dims.size() - 1, 2, 1);
                for (std::size_t i = 0; i < scale.size(); ++i) current.dims[i + 1] *= scale[i];
            } else if (type == "linear") {
                const long out = int_param(t, name, "out", 0);
                if (out <= 0) throw error(t, name, "'linear' needs a positive 'out'");
                // A GEMM (rocBLAS/hipBLASLt): no MIOpen kernel of its own.
                current.dims.assign(current.dims.size(), 1);
                current.dims[0] = out;
                current.needs_grad = true;
            } else if (type == "dropout" || type == "flatten") {
            } else {
                throw error(t, name, fmt::format("unknown layer type '{}'", type));
            }
        }
        scope[layer] = current;
    }

    fs::path path_;
    Variant variant_;
    ProblemSet& out_;
    std::map<std::string, Tensor> named_;
};

template <typename T>
std::vector<T> list_of(const toml::table& table, std::string_view key, const fs::path& path, std::vector<T> fallback) {
    const toml::node* node = table.get(key);
    if (!node) return fallback;
    std::vector<T> values;
    if (const auto v = node->value<T>()) return {*v};
    const auto* array = node->as_array();
    if (!array) throw InputError(located(path.string(), node->source().begin.line, fmt::format("'{}' must be a list", key)));
    for (const auto& item : *array) {
        const auto v = item.value<T>();
        if (!v)
            throw InputError(located(path.string(), item.source().begin.line,
                                     fmt::format("'{}' holds a value of the wrong type", key)));
        values.push_back(*v);
    }
    return values;
}

}  // namespace

ProblemSet read_network(const fs::path& path, const NetworkExpansion& overrides) {
    toml::table root;
    try {
        root = toml::parse_file(path.string());
    } catch (const toml::parse_error& e) {
        throw InputError(located(path.string(), e.source().begin.line, std::string(e.description())));
    }
    const auto* network = root.get_as<toml::table>("network");
    if (!network) throw InputError(located(path.string(), 0, "no [network] table"));
    const auto input_dims = list_of<long>(*network, "input", path, {});
    if (input_dims.size() != 3 && input_dims.size() != 4)
        throw InputError(located(path.string(), network->source().begin.line,
                                 "[network] input must be [C, H, W] or [C, D, H, W]"));
    for (const long d : input_dims)
        if (d <= 0) throw InputError(located(path.string(), network->source().begin.line,
                                             fmt::format("[network] input size {} is not positive", d)));
    const auto batches = overrides.batch_sizes.empty() ? list_of<long>(*network, "batch", path, {1}) : overrides.batch_sizes;
    const auto types = overrides.data_types.empty() ? list_of<std::string>(*network, "data_types", path, {"FP32"})
                                                    : overrides.data_types;
    const auto layouts = overrides.layouts.empty()
                             ? list_of<std::string>(*network, "layouts", path, {input_dims.size() == 4 ? "NCDHW" : "NCHW"})
                             : overrides.layouts;
    const auto modes = overrides.modes.empty() ? list_of<std::string>(*network, "modes", path, {"inference"}) : overrides.modes;
    for (const long b : batches)
        if (b <= 0) throw InputError(located(path.string(), network->source().begin.line, fmt::format("batch size {} is not positive", b)));
    for (const auto& t : types) {
        try {
            parse_data_type(t);
        } catch (const InputError& e) {
            throw InputError(located(path.string(), network->source().begin.line, e.what()));
        }
    }
    for (const auto& l : layouts)
        if (l != "NCHW" && l != "NHWC" && l != "NCDHW" && l != "NDHWC")
            throw InputError(located(path.string(), network->source().begin.line,
                                     fmt::format("layout '{}' is not NCHW, NHWC, NCDHW or NDHWC", l)));
    for (const auto& m : modes)
        if (m != "inference" && m != "training")
            throw InputError(located(path.string(), network->source().begin.line,
                                     fmt::format("mode '{}' is not inference or training", m)));
    ProblemSet set;
    for (const long batch : batches)
        for (const auto& type : types)
            for (const auto& layout : layouts)
                for (const auto& mode : modes) {
                    Variant variant{batch, std::string(key_name(parse_data_type(type))), layout, mode == "training"};
                    NetworkReader reader(path, variant, set);
                    reader.run(root, Tensor{input_dims, false});
                }
    return set;
}

}  // namespace kdbgen
