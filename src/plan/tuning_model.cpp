// frugally-deep JSON models and MIOpen's kernel-tuning net, evaluated in
// float32 as frugally-deep evaluates them (FDEEP_FLOAT_TYPE float). The layer
// semantics are Keras's: Dense y = x W (+ b) over the last axis; Embedding
// row lookup by the integer value; LSTM gates i, f, c, o with
// c' = f c + i tanh(g), h' = o tanh(c').
#include "kdbgen/tuning_model.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

namespace kdbgen::nn {

using nlohmann::json;

struct FdeepModel::Layer {
    enum class Kind { Input, Dense, Embedding, Lstm } kind = Kind::Input;
    std::string name;
    std::vector<std::pair<std::size_t, std::size_t>> sources;  // (layer, output tensor)
    std::size_t units = 0, in_features = 0;
    bool use_bias = false, return_sequences = false;
    std::vector<float> weights, recurrent_weights, bias;  // Keras kernel [in][out], recurrent [units][4 units]
};

namespace {

[[noreturn]] void bad(const std::string& origin, const std::string& message) {
    throw InputError(located(origin, 0, message));
}

// origin and where by value: GCC 14's -Wdangling-reference takes a reference
// returned from a call with a temporary std::string argument for a dangling one.
const json& member(const json& object, const char* key, std::string_view origin, std::string_view where) {
    if (!object.is_object() || !object.contains(key))
        bad(std::string(origin), fmt::format("{}: no key '{}'", where, key));
    return object.at(key);
}

// frugally-deep's base64 float arrays: one string or a list of chunks.
std::vector<float> decode_floats(const json& value, const std::string& origin, const std::string& where) {
    std::string text;
    if (value.is_string()) {
        text = value.get<std::string>();
    } else if (value.is_array()) {
        for (const auto& chunk : value) {
            if (!chunk.is_string()) bad(origin, fmt::format("{}: base64 chunk is not a string", where));
            text += chunk.get<std::string>();
        }
    } else {
        bad(origin, fmt::format("{}: value '{}' is not base64 text", where, value.dump().substr(0, 40)));
    }
    auto sextet = [&](char ch) -> int {
        if (ch >= 'A' && ch <= 'Z') return ch - 'A';
        if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
        if (ch >= '0' && ch <= '9') return ch - '0' + 52;
        if (ch == '+') return 62;
        if (ch == '/') return 63;
        bad(origin, fmt::format("{}: character '{}' is not base64", where, ch));
    };
    std::vector<unsigned char> bytes;
    bytes.reserve(text.size() / 4 * 3);
    unsigned buffer = 0;
    int bits = 0;
    for (char ch : text) {
        if (ch == '=') break;
        buffer = (buffer << 6) | static_cast<unsigned>(sextet(ch));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes.push_back(static_cast<unsigned char>((buffer >> bits) & 0xff));
        }
    }
    if (bytes.size() % sizeof(float) != 0)
        bad(origin, fmt::format("{}: {} bytes is not a whole number of float32 values", where, bytes.size()));
    std::vector<float> out(bytes.size() / sizeof(float));
    std::memcpy(out.data(), bytes.data(), bytes.size());  // little-endian, as the converter writes
    return out;
}

Tensor decode_tensor(const json& value, const std::string& origin, const std::string& where) {
    Tensor t;
    for (const auto& d : member(value, "shape", origin, where)) {
        if (!d.is_number_unsigned()) bad(origin, fmt::format("{}: shape entry '{}' is not a size", where, d.dump()));
        t.shape.push_back(d.get<std::size_t>());
    }
    t.values = decode_floats(member(value, "values", origin, where), origin, where);
    std::size_t count = 1;
    for (auto d : t.shape) count *= d;
    if (count != t.values.size())
        bad(origin, fmt::format("{}: shape holds {} values, data {}", where, count, t.values.size()));
    return t;
}

std::string string_of(const json& config, const char* key, const std::string& origin, const std::string& where) {
    const auto& v = member(config, key, origin, where);
    if (!v.is_string()) bad(origin, fmt::format("{}: '{}' is not a string", where, key));
    return v.get<std::string>();
}

std::size_t size_of(const json& config, const char* key, const std::string& origin, const std::string& where) {
    const auto& v = member(config, key, origin, where);
    if (!v.is_number_unsigned() || v.get<std::size_t>() == 0)
        bad(origin, fmt::format("{}: '{}' = {} is not a positive size", where, key, v.dump()));
    return v.get<std::size_t>();
}

bool flag_of(const json& config, const char* key, const std::string& origin, const std::string& where) {
    const auto& v = member(config, key, origin, where);
    if (!v.is_boolean()) bad(origin, fmt::format("{}: '{}' = {} is not a boolean", where, key, v.dump()));
    return v.get<bool>();
}

void require_value(const json& config, const char* key, const char* wanted, const std::string& origin,
                   const std::string& where) {
    const auto value = string_of(config, key, origin, where);
    if (value != wanted)
        bad(origin, fmt::format("{}: {} '{}' is not modelled (only '{}')", where, key, value, wanted));
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// out[j] += sum_i x[i] * w[i][j], w row-major [in][out].
void multiply_add(const float* x, std::size_t in, const std::vector<float>& w, std::size_t out_size, float* out) {
    for (std::size_t i = 0; i < in; ++i) {
        const float xi = x[i];
        const float* row = w.data() + i * out_size;
        for (std::size_t j = 0; j < out_size; ++j) out[j] += xi * row[j];
    }
}

}  // namespace

FdeepModel::FdeepModel() = default;
FdeepModel::~FdeepModel() = default;
FdeepModel::FdeepModel(FdeepModel&&) noexcept = default;
FdeepModel& FdeepModel::operator=(FdeepModel&&) noexcept = default;

FdeepModel FdeepModel::parse(std::string_view json_text, const std::string& origin) {
    json doc;
    try {
        doc = json::parse(json_text);
    } catch (const json::exception& e) {
        bad(origin, fmt::format("not JSON: {}", e.what()));
    }
    FdeepModel model;
    model.origin_ = origin;
    const auto& config = member(member(doc, "architecture", origin, "model"), "config", origin, "architecture");
    const auto& params = member(doc, "trainable_params", origin, "model");
    std::map<std::string, std::size_t> index_of;
    auto source = [&](const json& ref, const std::string& where) -> std::pair<std::size_t, std::size_t> {
        if (!ref.is_array() || ref.size() < 3 || !ref[0].is_string() || !ref[1].is_number_unsigned() ||
            !ref[2].is_number_unsigned())
            bad(origin, fmt::format("{}: node reference {} is not [layer, node, tensor]", where, ref.dump()));
        const auto it = index_of.find(ref[0].get<std::string>());
        if (it == index_of.end())
            bad(origin, fmt::format("{}: layer '{}' is not defined before use", where, ref[0].get<std::string>()));
        if (ref[1].get<std::size_t>() != 0)
            bad(origin, fmt::format("{}: node index {} (shared layers are not modelled)", where, ref[1].dump()));
        return {it->second, ref[2].get<std::size_t>()};
    };
    // Feature counts flowing out of each layer's first output, to shape the weights.
    std::vector<std::size_t> features_out;
    for (const auto& layer_json : member(config, "layers", origin, "architecture")) {
        Layer layer;
        layer.name = string_of(layer_json, "name", origin, "layer");
        const std::string where = "layer '" + layer.name + "'";
        const std::string kind = string_of(layer_json, "class_name", origin, where);
        const auto& cfg = member(layer_json, "config", origin, where);
        std::size_t out_features = 0;
        if (kind == "InputLayer") {
            const auto& shape = member(cfg, "batch_input_shape", origin, where);
            if (!shape.is_array() || shape.size() < 2 || !shape.back().is_number_unsigned())
                bad(origin, fmt::format("{}: batch_input_shape {} is not modelled", where, shape.dump()));
            out_features = shape.back().get<std::size_t>();
        } else {
            const auto& nodes = member(layer_json, "inbound_nodes", origin, where);
            if (!nodes.is_array() || nodes.size() != 1 || !nodes[0].is_array() || nodes[0].empty())
                bad(origin, fmt::format("{}: inbound_nodes {} is not one node", where, nodes.dump().substr(0, 80)));
            for (const auto& ref : nodes[0]) layer.sources.push_back(source(ref, where));
            const auto& p = member(params, layer.name.c_str(), origin, "trainable_params");
            layer.in_features = features_out[layer.sources[0].first];
            if (kind == "Dense") {
                layer.kind = Layer::Kind::Dense;
                require_value(cfg, "activation", "linear", origin, where);
                layer.units = size_of(cfg, "units", origin, where);
                layer.use_bias = flag_of(cfg, "use_bias", origin, where);
                layer.weights = decode_floats(member(p, "weights", origin, where), origin, where + " weights");
                if (layer.weights.size() != layer.in_features * layer.units)
                    bad(origin, fmt::format("{}: {} weights for {} x {}", where, layer.weights.size(),
                                            layer.in_features, layer.units));
                if (layer.use_bias) {
                    layer.bias = decode_floats(member(p, "bias", origin, where), origin, where + " bias");
                    if (layer.bias.size() != layer.units)
                        bad(origin, fmt::format("{}: {} biases for {} units", where, layer.bias.size(), layer.units));
                }
                out_features = layer.units;
            } else if (kind == "Embedding") {
                layer.kind = Layer::Kind::Embedding;
                layer.in_features = size_of(cfg, "input_dim", origin, where);  // rows
                layer.units = size_of(cfg, "output_dim", origin, where);
                layer.weights = decode_floats(member(p, "weights", origin, where), origin, where + " weights");
                if (layer.weights.size() != layer.in_features * layer.units)
                    bad(origin, fmt::format("{}: {} weights for {} x {}", where, layer.weights.size(),
                                            layer.in_features, layer.units));
                out_features = layer.units;
            } else if (kind == "LSTM") {
                layer.kind = Layer::Kind::Lstm;
                require_value(cfg, "activation", "tanh", origin, where);
                require_value(cfg, "recurrent_activation", "sigmoid", origin, where);
                if (flag_of(cfg, "go_backwards", origin, where) || flag_of(cfg, "stateful", origin, where))
                    bad(origin, fmt::format("{}: go_backwards / stateful LSTMs are not modelled", where));
                if (layer.sources.size() != 1 && layer.sources.size() != 3)
                    bad(origin, fmt::format("{}: {} inputs (1, or 3 with initial states)", where,
                                            layer.sources.size()));
                layer.units = size_of(cfg, "units", origin, where);
                layer.use_bias = flag_of(cfg, "use_bias", origin, where);
                layer.return_sequences = flag_of(cfg, "return_sequences", origin, where);
                const std::size_t gates = 4 * layer.units;
                layer.weights = decode_floats(member(p, "weights", origin, where), origin, where + " weights");
                layer.recurrent_weights =
                    decode_floats(member(p, "recurrent_weights", origin, where), origin, where + " recurrent_weights");
                if (layer.weights.size() != layer.in_features * gates ||
                    layer.recurrent_weights.size() != layer.units * gates)
                    bad(origin, fmt::format("{}: {} / {} weights for {} inputs and {} units", where,
                                            layer.weights.size(), layer.recurrent_weights.size(), layer.in_features,
                                            layer.units));
                if (layer.use_bias) {
                    layer.bias = decode_floats(member(p, "bias", origin, where), origin, where + " bias");
                    if (layer.bias.size() != gates)
                        bad(origin, fmt::format("{}: {} biases for {} gates", where, layer.bias.size(), gates));
                }
                out_features = layer.units;
            } else {
                bad(origin, fmt::format("{}: layer class '{}' is not modelled", where, kind));
            }
        }
        index_of[layer.name] = model.layers_.size();
        features_out.push_back(out_features);
        model.layers_.push_back(std::move(layer));
    }
    for (const auto& ref : member(config, "input_layers", origin, "architecture")) {
        const auto [layer, tensor] = source(ref, "input_layers");
        if (model.layers_[layer].kind != Layer::Kind::Input || tensor != 0)
            bad(origin, fmt::format("input_layers: {} is not an input layer", ref.dump()));
        model.input_layers_.push_back(layer);
    }
    for (const auto& ref : member(config, "output_layers", origin, "architecture"))
        model.outputs_.push_back(source(ref, "output_layers"));
    if (doc.contains("tests")) {
        std::size_t n = 0;
        for (const auto& test : doc.at("tests")) {
            const std::string where = fmt::format("tests[{}]", n++);
            TestVector v;
            for (const auto& t : member(test, "inputs", origin, where)) v.inputs.push_back(decode_tensor(t, origin, where));
            for (const auto& t : member(test, "outputs", origin, where))
                v.outputs.push_back(decode_tensor(t, origin, where));
            model.tests_.push_back(std::move(v));
        }
    }
    return model;
}

std::shared_ptr<const FdeepModel> FdeepModel::load(const fs::path& path) {
    // The plan asks for the same few models for thousands of problems.
    static std::mutex mutex;
    static std::map<fs::path, std::shared_ptr<const FdeepModel>> cache;
    std::lock_guard lock(mutex);
    if (const auto it = cache.find(path); it != cache.end()) return it->second;
    auto model = std::make_shared<const FdeepModel>(parse(read_text_file(path), path.string()));
    cache.emplace(path, model);
    return model;
}

std::vector<Tensor> FdeepModel::predict(const std::vector<Tensor>& inputs) const {
    if (inputs.size() != input_layers_.size())
        throw InputError(located(origin_, 0, fmt::format("{} inputs given, the model takes {}", inputs.size(),
                                                         input_layers_.size())));
    std::vector<std::vector<Tensor>> results(layers_.size());
    for (std::size_t i = 0; i < input_layers_.size(); ++i) results[input_layers_[i]] = {inputs[i]};
    auto input_of = [&](const Layer& layer, std::size_t k) -> const Tensor& {
        const auto [l, t] = layer.sources[k];
        if (t >= results[l].size())
            throw InputError(located(origin_, 0, fmt::format("layer '{}': input {} of '{}' does not exist", layer.name,
                                                             t, layers_[l].name)));
        return results[l][t];
    };
    for (std::size_t li = 0; li < layers_.size(); ++li) {
        const Layer& layer = layers_[li];
        if (layer.kind == Layer::Kind::Input) continue;
        const Tensor& x = input_of(layer, 0);
        const std::size_t width = x.shape.empty() ? 1 : x.shape.back();
        auto& out = results[li];
        if (layer.kind == Layer::Kind::Dense) {
            if (width != layer.in_features)
                throw InputError(located(origin_, 0, fmt::format("layer '{}': {} features, expected {}", layer.name,
                                                                 width, layer.in_features)));
            const std::size_t rows = x.values.size() / width;
            Tensor y{x.shape, std::vector<float>(rows * layer.units, 0.0f)};
            y.shape.back() = layer.units;
            for (std::size_t r = 0; r < rows; ++r) {
                float* dst = y.values.data() + r * layer.units;
                if (layer.use_bias) std::copy(layer.bias.begin(), layer.bias.end(), dst);
                multiply_add(x.values.data() + r * width, width, layer.weights, layer.units, dst);
            }
            out = {std::move(y)};
        } else if (layer.kind == Layer::Kind::Embedding) {
            Tensor y{x.shape, {}};
            y.shape.push_back(layer.units);
            for (float v : x.values) {
                const auto row = static_cast<std::size_t>(v);
                if (!(v >= 0.0f) || row >= layer.in_features)
                    throw InputError(located(origin_, 0, fmt::format("layer '{}': index {} outside [0, {})",
                                                                     layer.name, v, layer.in_features)));
                const float* src = layer.weights.data() + row * layer.units;
                y.values.insert(y.values.end(), src, src + layer.units);
            }
            out = {std::move(y)};
        } else {  // LSTM over x [steps][features]
            const std::size_t u = layer.units;
            if (width != layer.in_features)
                throw InputError(located(origin_, 0, fmt::format("layer '{}': {} features, expected {}", layer.name,
                                                                 width, layer.in_features)));
            std::vector<float> h(u, 0.0f), c(u, 0.0f);
            if (layer.sources.size() == 3) {
                h = input_of(layer, 1).values;
                c = input_of(layer, 2).values;
                if (h.size() != u || c.size() != u)
                    throw InputError(located(origin_, 0, fmt::format("layer '{}': initial state of {} / {} values "
                                                                     "for {} units", layer.name, h.size(), c.size(), u)));
            }
            const std::size_t steps = x.values.size() / width;
            Tensor sequence{{steps, u}, {}};
            std::vector<float> z(4 * u);
            for (std::size_t t = 0; t < steps; ++t) {
                if (layer.use_bias) std::copy(layer.bias.begin(), layer.bias.end(), z.begin());
                else std::fill(z.begin(), z.end(), 0.0f);
                multiply_add(x.values.data() + t * width, width, layer.weights, 4 * u, z.data());
                multiply_add(h.data(), u, layer.recurrent_weights, 4 * u, z.data());
                for (std::size_t j = 0; j < u; ++j) {
                    const float in_gate = sigmoid(z[j]), forget = sigmoid(z[u + j]);
                    const float candidate = std::tanh(z[2 * u + j]), out_gate = sigmoid(z[3 * u + j]);
                    c[j] = forget * c[j] + in_gate * candidate;
                    h[j] = out_gate * std::tanh(c[j]);
                }
                sequence.values.insert(sequence.values.end(), h.begin(), h.end());
            }
            Tensor first = layer.return_sequences ? std::move(sequence) : Tensor{{u}, h};
            out = {std::move(first), Tensor{{u}, h}, Tensor{{u}, c}};
        }
    }
    std::vector<Tensor> outputs;
    for (const auto& [l, t] : outputs_) {
        if (t >= results[l].size())
            throw InputError(located(origin_, 0, fmt::format("output_layers: '{}' has no output {}", layers_[l].name, t)));
        outputs.push_back(results[l][t]);
    }
    return outputs;
}

// --- KernelTuningNet ---------------------------------------------------------------------------

std::shared_ptr<const KernelTuningNet> KernelTuningNet::load(const fs::path& kernels_dir, const std::string& arch,
                                                             const std::string& solver) {
    // Per process, as GetModel (ai_heuristics.cpp:673-687) keeps them.
    static std::mutex mutex;
    static std::map<fs::path, std::shared_ptr<const KernelTuningNet>> cache;
    const fs::path stem = kernels_dir / (arch + "_" + solver);
    {
        std::lock_guard lock(mutex);
        if (const auto it = cache.find(stem); it != cache.end()) return it->second;
    }
    const fs::path encoder_path = kernels_dir / (arch + "_" + solver + "_encoder.ktn.model");
    if (!fs::exists(encoder_path)) return nullptr;
    auto net = std::make_shared<KernelTuningNet>();
    net->encoder_ = FdeepModel::load(encoder_path);
    net->decoder_ = FdeepModel::load(kernels_dir / (arch + "_" + solver + "_decoder.ktn.model"));
    // Metadata (ai_heuristics.cpp:581-590): predict_type, num_tuning_params, decodings.tunings.
    const fs::path meta_path = kernels_dir / (arch + "_" + solver + "_metadata.ktn.model");
    const std::string origin = meta_path.string();
    net->metadata_origin_ = origin;
    json meta;
    try {
        meta = json::parse(read_text_file(meta_path));
    } catch (const json::exception& e) {
        bad(origin, fmt::format("not JSON: {}", e.what()));
    }
    const auto& predict_type = member(meta, "predict_type", origin, "metadata");
    if (!predict_type.is_number_unsigned())
        bad(origin, fmt::format("metadata: predict_type = {} is not a number", predict_type.dump()));
    net->predict_type_ = predict_type.get<std::size_t>();
    for (const auto& [key, value] : member(meta, "num_tuning_params", origin, "metadata").items()) {
        if (!value.is_number_unsigned())
            bad(origin, fmt::format("num_tuning_params: '{}' = {} is not a count", key, value.dump()));
        net->num_tuning_params_.emplace_back(key, value.get<std::size_t>());
    }
    const auto& tunings = member(member(meta, "decodings", origin, "metadata"), "tunings", origin, "decodings");
    for (const auto& [key, value] : tunings.items()) {
        std::size_t token = 0;
        try {
            std::size_t used = 0;
            token = std::stoul(key, &used);
            if (used != key.size()) throw std::invalid_argument(key);
        } catch (const std::exception&) {
            bad(origin, fmt::format("decodings.tunings: token '{}' is not a number", key));
        }
        if (!value.is_string()) bad(origin, fmt::format("decodings.tunings: '{}' = {} is not a string", key, value.dump()));
        net->decodings_.emplace_back(token, value.get<std::string>());
    }
    std::sort(net->decodings_.begin(), net->decodings_.end());
    std::lock_guard lock(mutex);
    return cache.emplace(stem, std::move(net)).first->second;
}

std::size_t KernelTuningNet::tuning_params_for(const std::string& key) const {
    for (const auto& [k, n] : num_tuning_params_)
        if (k == key) return n;
    bad(metadata_origin_, fmt::format("num_tuning_params: no entry '{}'", key));
}

const std::string& KernelTuningNet::decoding_of(std::size_t token) const {
    const auto it = std::lower_bound(decodings_.begin(), decodings_.end(), std::pair<std::size_t, std::string>{token, ""});
    if (it == decodings_.end() || it->first != token)
        bad(metadata_origin_, fmt::format("decodings.tunings: no value for token {}", token));
    return it->second;
}

bool KernelTuningNet::set_params(std::string_view direction, const std::vector<float>& features,
                                 bool transform_features,
                                 const std::function<bool(std::size_t, const std::string&)>& validator) const {
    // :711-717, Encode :611-620: a dim x dim matrix when transformed, else dim x 1.
    const auto dim = transform_features ? static_cast<std::size_t>(std::sqrt(static_cast<double>(features.size())))
                                        : features.size();
    std::vector<Tensor> context = encoder_->predict({Tensor{{dim, transform_features ? dim : 1}, features}});
    float decoder_input = 0.0f;  // :718
    const std::string dir(direction);
    // :731-735 (predict_type 0): as many parameters as the direction has; otherwise as the first value says.
    std::size_t num_tuning_params = 1;
    for (std::size_t i = 0; i < num_tuning_params; ++i) {
        if (i == 0 && predict_type_ == 0) num_tuning_params = tuning_params_for(dir);
        std::vector<Tensor> inputs{Tensor{{1}, {decoder_input}}};
        inputs.insert(inputs.end(), context.begin(), context.end());
        std::vector<Tensor> output = decoder_->predict(inputs);
        if (output.empty()) bad(decoder_->origin(), "the decoder has no outputs");
        const auto& scores = output[0].values;
        // :741-743: std::priority_queue<std::pair<float, int>>: highest score first, ties higher index first.
        std::vector<std::size_t> order(scores.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return scores[a] != scores[b] ? scores[a] > scores[b] : a > b;
        });
        long chosen = -1;
        for (const std::size_t token : order) {
            const std::string& value = decoding_of(token);
            if (value == "-1") return false;  // :754-760: decoding ended before every parameter was set
            if (validator(i, value)) {        // :761-768
                chosen = static_cast<long>(token);
                if (i == 0 && predict_type_ != 0) num_tuning_params = tuning_params_for(value);
                break;
            }
        }
        decoder_input = static_cast<float>(chosen);                // :770
        context.assign(output.begin() + 1, output.end());          // :771; Decode :633-641
    }
    return true;
}

}  // namespace kdbgen::nn
