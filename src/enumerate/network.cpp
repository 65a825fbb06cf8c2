// Network descriptions (TOML, docs/networks.md) into problem configs.
// Shapes propagate from the input; every layer's error names the file, the
// line of its [[layer]] table, the layer and the value.
#include "conv_spec.hpp"
#include "kdbgen/checks.hpp"
#include "kdbgen/recurrent.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/toml_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <climits>
#include <map>
#include <set>

namespace kdbgen {

namespace {

using checks::StrictTable;

// The keys each layer type reads (docs/networks.md); any other key is a typo
// that would silently plan a different problem (`strides = 2` for `stride`).
const std::vector<std::string_view> kCommonKeys = {"name", "type", "from", "repeat"};
const std::map<std::string, std::vector<std::string_view>, std::less<>> kLayerKeys = {
    {"conv", {"out", "kernel", "stride", "pad", "dilation", "groups", "bias"}},
    {"convtranspose", {"out", "kernel", "stride", "pad", "dilation", "groups", "bias", "output_pad"}},
    {"batchnorm", {"mode"}},
    {"maxpool", {"kernel", "stride", "pad"}},
    {"avgpool", {"kernel", "stride", "pad", "count_include_pad"}},
    {"globalavgpool", {}},
    {"activation", {"mode"}},
    {"relu", {}}, {"leaky_relu", {}}, {"sigmoid", {}}, {"tanh", {}}, {"elu", {}}, {"clipped_relu", {}},
    {"relu6", {}}, {"abs", {}},
    {"softmax", {}},
    {"lrn", {"size", "alpha", "beta", "k", "mode"}},
    {"add", {"with"}},
    {"concat", {"with", "crop"}},
    {"upsample", {"scale"}},
    {"linear", {"out"}},
    {"dropout", {"rate", "miopen"}}, {"flatten", {}},
    {"lstm", {"hidden", "num_layers", "seq_len", "bidirectional", "dropout", "bias"}},
    {"gru", {"hidden", "num_layers", "seq_len", "bidirectional", "dropout", "bias"}},
    {"rnn_tanh", {"hidden", "num_layers", "seq_len", "bidirectional", "dropout", "bias"}},
    {"rnn_relu", {"hidden", "num_layers", "seq_len", "bidirectional", "dropout", "bias"}},
    {"ctc_loss", {"label_len", "blank"}},
};
// MIOpenDriver rnn's -m word for each recurrent layer (driver/rnn_driver.hpp:389-412, MIOpen 3.3.0).
const std::map<std::string, std::string, std::less<>> kRnnModes = {
    {"lstm", "lstm"}, {"gru", "gru"}, {"rnn_tanh", "tanh"}, {"rnn_relu", "relu"}};
const std::vector<std::string_view> kBlockKeys = {"name", "repeat", "layers"};
const std::vector<std::string_view> kNetworkKeys = {"name", "input", "batch", "data_types", "layouts", "modes"};
const std::vector<std::string_view> kActivationModes = {"identity", "sigmoid", "logistic", "tanh", "relu", "softrelu",
                                                        "abs", "power", "clipped_relu", "relu6", "leaky_relu", "elu"};

std::vector<std::string_view> layer_types() {
    std::vector<std::string_view> out;
    for (const auto& [type, keys] : kLayerKeys) out.push_back(type);
    return out;
}

std::vector<std::string_view> keys_of_layer(const std::string& type) {
    std::vector<std::string_view> keys = kCommonKeys;
    const auto it = kLayerKeys.find(type);
    if (it != kLayerKeys.end()) keys.insert(keys.end(), it->second.begin(), it->second.end());
    return keys;
}

// A tensor between layers: per-sample dims C, [D,] H, W, and whether the
// gradient with respect to it is computed in training (not for the input).
struct Tensor {
    std::vector<long> dims;
    bool needs_grad = false;
    // A recurrent layer's output: dims are {features, time steps}; 'linear' maps the features of
    // each step and keeps the steps.
    bool sequence = false;
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
        const std::string fallback = fmt::format("block {}", index);
        const std::string block_name = StrictTable(block, path_.string(), fallback).string("name").value_or(fallback);
        const StrictTable checked(block, path_.string(), fmt::format("block '{}'", block_name));
        checked.allow_only(kBlockKeys, "a block (a [[layer]] with 'layers')");
        const long repeat = checked.integer("repeat", 1, 1, checks::kMaxRepeat);
        const auto* layers = block.get_as<toml::array>("layers");
        if (!layers) throw error(block, block_name, "'layers' must be a list of tables");
        if (!block_names_.insert(block_name).second || named_.count(block_name))
            throw error(block, block_name, "a block or layer of this name comes earlier; names must be unique");
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

    StrictTable strict(const toml::table& t, const std::string& layer) const {
        return StrictTable(t, path_.string(), fmt::format("layer '{}'", layer));
    }
    long int_param(const toml::table& t, const std::string& layer, std::string_view key, long fallback,
                   long minimum = 1) const {
        return strict(t, layer).integer(key, fallback, minimum, checks::kMaxDimension);
    }

    // kernel = 3 or [3, 3] (or [3, 3, 3]): one value per spatial dimension.
    std::vector<long> spatial_param(const toml::table& t, const std::string& layer, std::string_view key,
                                    std::size_t dims, long fallback, long minimum) const {
        const toml::node* node = t.get(key);
        std::vector<long> values(dims, fallback);
        const auto bad = [&](const std::string& why) { return strict(t, layer).error(node, key, why); };
        if (node) {
            // Whole numbers only: `kernel = 3.0` or "3" is refused, not rounded.
            if (const auto* v = node->as_integer()) {
                values.assign(dims, static_cast<long>(std::clamp<int64_t>(v->get(), LONG_MIN, LONG_MAX)));
            } else if (const auto* array = node->as_array()) {
                if (array->size() != dims) throw bad(fmt::format("needs {} values, has {}", dims, array->size()));
                for (std::size_t i = 0; i < dims; ++i) {
                    const auto* v = (*array)[i].as_integer();
                    if (!v) throw bad("holds a value that is not a whole number");
                    values[i] = static_cast<long>(v->get());
                }
            } else {
                throw bad("must be a whole number or a list of whole numbers");
            }
        }
        for (const long v : values) {
            if (v < minimum) throw bad(fmt::format("value {} is below {}", v, minimum));
            if (v > checks::kMaxDimension) throw bad(fmt::format("value {} is beyond {}", v, checks::kMaxDimension));
        }
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

    // Every problem is checked (positive sizes, tensors within limits) where the layer is known.
    template <typename P>
    void add(const toml::table& t, const std::string& layer, const P& problem) {
        try {
            checks::check_problem(problem);
        } catch (const InputError& e) {
            throw error(t, layer, e.what());
        }
        // A tensor of 2^31 elements or more: MIOpen's kernels index in int (3.5.1's spatial batch norm
        // overflows MIO_BN_NCHW at n64 c64 hw1835008 and fails to compile), and frameworks split such
        // work before they call MIOpen. Not generated; counted.
        if (largest_tensor(Problem(problem)) > std::numeric_limits<std::int32_t>::max()) {
            out_.leave_out("a tensor of 2^31 elements or more (MIOpen indexes tensors in int)");
            return;
        }
        out_.add(problem, origin(layer));
    }

    static long elements(long batch, long channels, const Dims& spatial) {
        long n = batch * channels;
        for (const long d : spatial) n *= d;
        return n;
    }
    static long largest_tensor(const Problem& problem) {
        return std::visit(
            [](const auto& p) -> long {
                using T = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<T, ConvProblem>)
                    return std::max({elements(p.batch, p.in_channels, p.in_spatial),
                                     elements(p.batch, p.out_channels, p.out_spatial),
                                     elements(p.out_channels, p.in_channels / std::max(1L, p.groups), p.weights_spatial)});
                else if constexpr (std::is_same_v<T, PoolingProblem>)
                    return std::max(p.x.elements(), p.y.elements());
                else if constexpr (std::is_same_v<T, TensorOpProblem>)
                    return std::max(p.a.elements(), p.b.elements());
                else if constexpr (std::is_same_v<T, DriverCommandProblem>)
                    return 0;  // networks make none
                else
                    return p.x.elements();
            },
            problem);
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
        if (const auto* g = t.get("groups"); g && g->is_string()) {
            if (g->value<std::string>() != "depthwise")
                throw strict(t, layer).error(g, "groups", "must be a whole number or \"depthwise\"");
            s.groups = s.c;
        } else {
            s.groups = int_param(t, layer, "groups", 1);
        }
        if (s.c % s.groups != 0 || s.k % s.groups != 0)
            throw error(t, layer, fmt::format("channels {} -> {} are not divisible by {} groups", s.c, s.k, s.groups));
        s.bias = strict(t, layer).boolean("bias", false);
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
        for (auto& p : conv_problems(s, true, train && current.needs_grad, train)) add(t, layer, p);
        current.dims[0] = s.k;
        for (std::size_t i = 0; i < dims; ++i) current.dims[i + 1] = s.out[i];
        current.needs_grad = true;
    }

    void run_pool(const toml::table& t, const std::string& layer, const std::string& type, Tensor& current) {
        const std::size_t dims = current.dims.size() - 1;
        PoolingProblem p;
        p.mode = type == "maxpool" ? PoolingProblem::Mode::Max : PoolingProblem::Mode::Average;
        if (type == "avgpool" && strict(t, layer).boolean("count_include_pad", false))
            p.mode = PoolingProblem::Mode::AverageInclusive;
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
        p.layout = conv_layout(dims);
        p.data_type = data_type();
        // Mask indices are 2-D only (include/miopen/miopen.h:471): 3-D pooling keeps image indices,
        // as MIOpenDriver sets them (driver/pool_driver.hpp:316-319).
        p.workspace_index_mode = p.x.dims.size() == 5 ? 1 : 0;
        p.index_type = index_type_for(p);
        if (p.data_type != DataType::Int8) {
            p.save_index = variant_.training;
            add(t, layer, p);
            if (variant_.training) {
                p.direction = PoolingProblem::Direction::Backward;
                add(t, layer, p);
            }
        }
        current = out;
    }

    // The narrowest miopenIndexType_t (Uint8 0, Uint16 1, Uint32 2, Uint64 3) MIOpen takes for a max
    // pooling that saves its indices: its maximum must exceed the window's elements (mask indices) or the
    // image's (image indices), else MIOpen throws "Index range not enough for max pooling bwd"
    // (src/ocl/pooling_ocl.cpp:89-106, get_index_max in src/include/miopen/datatype.hpp:112-126, MIOpen
    // 3.3.0). A caller picks one wide enough; 8-bit indices for a 3-D image no framework sends.
    static int index_type_for(const PoolingProblem& p) {
        if (p.mode != PoolingProblem::Mode::Max) return p.index_type;
        long indexed = 1;
        if (p.workspace_index_mode == 1)
            for (const long d : p.x.spatial()) indexed *= d;
        else
            for (const long w : p.window) indexed *= w;
        if (indexed < 255) return 0;
        if (indexed < 65535) return 1;
        return indexed < 4294967295L ? 2 : 3;
    }

    void run_activation(const toml::table& t, const std::string& layer, const std::string& type, Tensor& current) {
        static const std::map<std::string, int> kModes = {
            {"identity", 0}, {"sigmoid", 1}, {"logistic", 1}, {"tanh", 2},     {"relu", 3},       {"softrelu", 4},
            {"abs", 5},      {"power", 6},   {"clipped_relu", 7}, {"relu6", 7}, {"leaky_relu", 8}, {"elu", 9}};
        const std::string mode = type == "activation" ? strict(t, layer).word("mode", "", kActivationModes) : type;
        const auto it = kModes.find(mode);
        if (it == kModes.end()) throw error(t, layer, "'activation' needs a 'mode', one of " + checks::one_of(kActivationModes));
        ActivationProblem p;
        p.mode = it->second;
        p.x = batched(current);
        p.data_type = data_type();
        if (p.data_type == DataType::Int8) return;
        add(t, layer, p);
        if (variant_.training) {
            p.direction = ActivationProblem::Direction::Backward;
            add(t, layer, p);
        }
    }

    void run_layer(const toml::table& t, Tensor& current, const std::string& fallback_name,
                   std::map<std::string, Tensor>& scope) {
        const std::string layer = StrictTable(t, path_.string(), fallback_name).string("name").value_or(fallback_name);
        // 'from' and 'with' name one layer: a second layer of that name would
        // silently take its place.
        if (t.contains("name") && scope.count(layer))
            throw error(t, layer, "a layer of this name comes earlier; layer names must be unique");
        const StrictTable checked = strict(t, layer);
        const auto type_node = checked.string("type");
        if (!type_node) throw error(t, layer, "needs a 'type'");
        const std::string type = *type_node;
        if (!kLayerKeys.count(type))
            throw checked.error(t.get("type"), "type", "is not a layer type" + checks::did_you_mean(type, layer_types()));
        checked.allow_only(keys_of_layer(type), fmt::format("a {} layer", type));
        if (const auto from = checked.string("from")) current = lookup(t, layer, *from, scope);
        const long repeat = checked.integer("repeat", 1, 1, checks::kMaxRepeat);
        for (long r = 0; r < repeat; ++r) {
            const std::string name = repeat == 1 ? layer : fmt::format("{}[{}]", layer, r);
            if (type == "conv" || type == "convtranspose") {
                run_conv(t, name, type, current);
            } else if (type == "batchnorm") {
                BatchNormProblem p;
                const std::string mode = checked.word("mode", "spatial", {"spatial", "per_activation"});
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
                    add(t, name, p);
                    if (variant_.training) {
                        p.direction = BatchNormProblem::Direction::Backward;
                        add(t, name, p);
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
                    add(t, name, p);
                    if (variant_.training) {
                        p.direction = SoftmaxProblem::Direction::Backward;
                        add(t, name, p);
                    }
                } else {
                    LrnProblem p;
                    p.x = batched(current);
                    // miopenLRNMode_t: WITHIN_CHANNEL 0, CROSS_CHANNEL 1 (include/miopen/miopen.h, 3.3.0).
                    p.size = int_param(t, name, "size", 5);
                    p.alpha = checked.real("alpha", 1e-4, -1e30, 1e30);
                    p.beta = checked.real("beta", 0.75, -1e30, 1e30);
                    p.k = checked.real("k", 1.0, -1e30, 1e30);
                    p.mode = checked.word("mode", "cross_channel", {"cross_channel", "within_channel"}) == "within_channel"
                                 ? 0 : 1;
                    p.data_type = data_type();
                    p.save_scale = variant_.training;
                    add(t, name, p);
                    if (variant_.training) {
                        p.direction = LrnProblem::Direction::Backward;
                        add(t, name, p);
                    }
                }
            } else if (type == "add") {
                const auto with = checked.string("with");
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
                    add(t, name, p);
                }
                current.needs_grad = current.needs_grad || other.needs_grad;
            } else if (type == "concat") {
                const auto* with = t.get_as<toml::array>("with");
                if (!with) throw error(t, name, "'concat' needs 'with' = [layers to join on channels]");
                const bool crop = checked.boolean("crop", false);
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
                if (!current.sequence) current.dims.assign(current.dims.size(), 1);
                current.dims[0] = out;
                current.needs_grad = true;
            } else if (kRnnModes.count(type)) {
                run_rnn(t, name, type, current);
            } else if (type == "ctc_loss") {
                run_ctc_loss(t, name, current);
            } else if (type == "dropout") {
                run_dropout(t, name, current);
            } else if (type == "flatten") {
            } else {
                throw error(t, name, fmt::format("unknown layer type '{}'", type));
            }
            try {
                checks::check_tensor(batched(current).dims, data_type(), "output tensor");
            } catch (const InputError& e) {
                throw error(t, name, e.what());
            }
        }
        scope[layer] = current;
    }

    // A recurrent layer as PyTorch's nn.LSTM/nn.GRU/nn.RNN runs it on MIOpen (rnn_problem,
    // include/kdbgen/recurrent.hpp); its output is the sequence of hidden states.
    void run_rnn(const toml::table& t, const std::string& name, const std::string& type, Tensor& current) {
        const StrictTable checked = strict(t, name);
        RecurrentLayer layer;
        layer.mode = kRnnModes.at(type);
        layer.hidden = int_param(t, name, "hidden", 0);
        if (layer.hidden <= 0) throw error(t, name, fmt::format("'{}' needs a positive 'hidden'", type));
        layer.layers = checked.integer("num_layers", 1, 1, 64);  // "layers" makes a [[layer]] a block
        layer.bidirectional = checked.boolean("bidirectional", false);
        layer.dropout = checked.real("dropout", 0.0, 0.0, 1.0);
        layer.bias = checked.boolean("bias", true);
        layer.input = 1;
        for (const long d : current.dims) layer.input *= d;
        if (current.sequence) {
            layer.steps = current.dims[1];
            layer.input = current.dims[0];
            if (checked.integer("seq_len", layer.steps, 1, checks::kMaxDimension) != layer.steps)
                throw error(t, name, fmt::format("'seq_len' differs from the {} steps of the sequence it reads",
                                                 layer.steps));
        } else {
            layer.steps = checked.integer("seq_len", 0, 1, checks::kMaxDimension);
            if (layer.steps == 0)
                throw error(t, name, fmt::format("'{}' on a tensor that is no sequence needs 'seq_len'", type));
            // A convolutional front end's C x F x T output (DeepSpeech2): time on the last axis, C * F per step.
            if (current.dims.size() >= 2 && current.dims.back() == layer.steps) layer.input /= layer.steps;
        }
        layer.batch = variant_.batch;
        layer.data_type = data_type();
        layer.training = variant_.training;
        if (const auto problem = rnn_problem(layer)) add(t, name, *problem);
        current.dims = {layer.hidden * (layer.bidirectional ? 2 : 1), layer.steps};
        current.sequence = true;
        current.needs_grad = true;
    }

    // CTC loss on a sequence of class scores (a recurrent layer, then 'linear' to the classes,
    // the blank among them), as PyTorch's F.ctc_loss calls miopenCTCLoss (ctc_problem).
    void run_ctc_loss(const toml::table& t, const std::string& name, const Tensor& current) {
        const StrictTable checked = strict(t, name);
        if (!current.sequence)
            throw error(t, name, "'ctc_loss' reads a sequence of class scores (a recurrent layer, then 'linear')");
        const long classes = current.dims[0], steps = current.dims[1];
        if (classes < 2) throw error(t, name, "'ctc_loss' needs at least two classes, the blank one of them");
        const long label_len = checked.integer("label_len", 0, 1, steps);
        if (label_len == 0) throw error(t, name, "'ctc_loss' needs 'label_len', the length of each target");
        const long blank = checked.integer("blank", 0, 0, classes - 1);
        if (const auto problem = ctc_problem(variant_.batch, classes, steps, label_len, blank, data_type(),
                                             variant_.training))
            add(t, name, *problem);
    }

    // PyTorch's nn.Dropout runs ATen's own kernel, not MIOpen's: a dropout layer makes no
    // problem unless it says miopen = true (a framework that calls miopenDropoutForward).
    void run_dropout(const toml::table& t, const std::string& name, const Tensor& current) {
        const StrictTable checked = strict(t, name);
        const double rate = checked.real("rate", 0.5, 0.0, 1.0);
        if (!checked.boolean("miopen", false)) return;
        const auto dims = batched(current).dims;
        if (dims.size() > 5) throw error(t, name, "MIOpen's dropout takes up to 5 dimensions");
        if (const auto problem = dropout_problem(dims, rate, data_type(), variant_.training)) add(t, name, *problem);
    }

    fs::path path_;
    Variant variant_;
    std::set<std::string> block_names_;
    ProblemSet& out_;
    std::map<std::string, Tensor> named_;
};

template <typename T>
std::vector<T> list_of(const StrictTable& table, std::string_view key, std::vector<T> fallback) {
    const toml::node* node = table.table().get(key);
    if (!node) return fallback;
    const auto item_of = [&](const toml::node& item) -> T {
        if constexpr (std::is_same_v<T, long>) {
            if (const auto* v = item.as_integer()) return static_cast<long>(v->get());
            throw table.error(node, key, fmt::format("holds {}, not a whole number", checks::toml_value_text(item)));
        } else {
            if (const auto* v = item.as_string()) return v->get();
            throw table.error(node, key, fmt::format("holds {}, not a string", checks::toml_value_text(item)));
        }
    };
    const auto* array = node->as_array();
    if (!array) return {item_of(*node)};
    if (array->empty()) throw table.error(node, key, "is an empty list");
    if (array->size() > checks::kMaxListValues)
        throw table.error(node, key, fmt::format("has {} values, more than {}", array->size(), checks::kMaxListValues));
    std::vector<T> values;
    for (const auto& item : *array) values.push_back(item_of(item));
    return values;
}

// Layers one variant of the network runs: a block's layers times its repeat,
// each layer times its own. Read before anything runs, so a repeat of 1e7
// is refused at once.
std::size_t layer_runs(const toml::table& root, const fs::path& path) {
    const auto* items = root.get_as<toml::array>("layer");
    if (!items) return 0;
    std::size_t runs = 0;
    const auto repeat_of = [&](const toml::table& t, const std::string& fallback) {
        const auto* name = t.get_as<std::string>("name");
        const std::string context = fmt::format("{} '{}'", t.contains("layers") ? "block" : "layer",
                                                name ? name->get() : fallback);
        return static_cast<std::size_t>(StrictTable(t, path.string(), context).integer("repeat", 1, 1, checks::kMaxRepeat));
    };
    std::size_t index = 0;
    for (const auto& node : *items) {
        const auto* table = node.as_table();
        if (!table) continue;
        ++index;
        std::size_t one = repeat_of(*table, fmt::format("{} {}", table->contains("layers") ? "block" : "layer", index));
        if (const auto* layers = table->get_as<toml::array>("layers")) {
            std::size_t inner = 0;
            for (const auto& layer : *layers)
                if (const auto* t = layer.as_table()) inner += repeat_of(*t, fmt::format("block {} layer", index));
            one *= inner;
        }
        runs += one;
        if (runs > checks::kMaxLayerRuns) break;  // no overflow: each term is at most 1e4 * 1e4 * layers
    }
    return runs;
}

}  // namespace

ProblemSet read_network(const fs::path& path, const NetworkExpansion& overrides) {
    toml::table root;
    try {
        root = toml::parse(read_text_file(path), path.string());
    } catch (const toml::parse_error& e) {
        throw InputError(located(path.string(), e.source().begin.line, std::string(e.description())));
    }
    StrictTable(root, path.string(), "").allow_only({"network", "layer"}, "a network file ([network] and [[layer]])");
    if (root.contains("network") && !root.get_as<toml::table>("network"))
        throw InputError(located(path.string(), root.get("network")->source().begin.line, "'network' must be a table"));
    if (root.contains("layer") && !root.get_as<toml::array>("layer"))
        throw InputError(located(path.string(), root.get("layer")->source().begin.line,
                                 "'layer' must be a list of tables ([[layer]])"));
    const auto* network_table = root.get_as<toml::table>("network");
    if (!network_table) throw InputError(located(path.string(), 0, "no [network] table"));
    const StrictTable network(*network_table, path.string(), "[network]");
    network.allow_only(kNetworkKeys, "[network]");
    network.string("name");
    const auto input_dims = list_of<long>(network, "input", {});
    if (input_dims.size() < 2 || input_dims.size() > 4)
        throw network.error(network_table->get("input"), "input",
                            "must be [C, H, W], [C, D, H, W] or a sequence [features, steps]");
    for (const long d : input_dims)
        if (d <= 0 || d > checks::kMaxDimension)
            throw network.error(network_table->get("input"), "input", fmt::format("size {} is not between 1 and {}", d,
                                                                                  checks::kMaxDimension));
    const auto batches = overrides.batch_sizes.empty() ? list_of<long>(network, "batch", {1}) : overrides.batch_sizes;
    const auto types = overrides.data_types.empty() ? list_of<std::string>(network, "data_types", {"FP32"})
                                                    : overrides.data_types;
    const auto layouts = overrides.layouts.empty()
                             ? list_of<std::string>(network, "layouts", {input_dims.size() == 4 ? "NCDHW" : "NCHW"})
                             : overrides.layouts;
    const auto modes = overrides.modes.empty() ? list_of<std::string>(network, "modes", {"inference"}) : overrides.modes;
    for (const long b : batches)
        if (b <= 0 || b > checks::kMaxDimension)
            throw network.error(network_table->get("batch"), "batch", fmt::format("batch size {} is not between 1 and {}", b,
                                                                                  checks::kMaxDimension));
    for (const auto& t : types) {
        try {
            parse_data_type(t);
        } catch (const InputError& e) {
            throw network.error(network_table->get("data_types"), "data_types", e.what());
        }
    }
    const std::vector<std::string_view> kLayouts = {"NCHW", "NHWC", "NCDHW", "NDHWC"};
    for (const auto& l : layouts)
        if (std::find(kLayouts.begin(), kLayouts.end(), std::string_view(l)) == kLayouts.end())
            throw network.error(network_table->get("layouts"), "layouts",
                                fmt::format("layout '{}' is not {}{}", l, checks::one_of(kLayouts),
                                            checks::did_you_mean(l, kLayouts)));
    const std::vector<std::string_view> kModes = {"inference", "training"};
    for (const auto& m : modes)
        if (std::find(kModes.begin(), kModes.end(), std::string_view(m)) == kModes.end())
            throw network.error(network_table->get("modes"), "modes",
                                fmt::format("mode '{}' is not {}{}", m, checks::one_of(kModes),
                                            checks::did_you_mean(m, kModes)));
    const std::size_t variants = batches.size() * types.size() * layouts.size() * modes.size();
    const std::size_t runs = layer_runs(root, path);
    if (runs > checks::kMaxLayerRuns || runs * variants > checks::kMaxLayerRuns)
        throw network.error(fmt::format("the network runs {}{} layers in each of its {} variant(s), more than the {} "
                                        "kdbgen plans from one file (check the repeat counts)",
                                        runs > checks::kMaxLayerRuns ? "over " : "", runs, variants,
                                        checks::kMaxLayerRuns));
    ProblemSet set;
    for (const long batch : batches)
        for (const auto& type : types)
            for (const auto& layout : layouts)
                for (const auto& mode : modes) {
                    Variant variant{batch, std::string(key_name(parse_data_type(type))), layout, mode == "training"};
                    NetworkReader reader(path, variant, set);
                    reader.run(root, Tensor{input_dims, false, input_dims.size() == 2});
                }
    return set;
}

}  // namespace kdbgen
