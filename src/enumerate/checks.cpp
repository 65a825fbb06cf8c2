// Strict input checking (include/kdbgen/checks.hpp, toml_checks.hpp).
#include "kdbgen/checks.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/toml_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kdbgen::checks {

// Optimal string alignment distance: a swap of two neighbours ("cnov") counts as one edit.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    const auto same = [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    };
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
    if (word.size() > 64) return {};  // no key is that long; keeps the distance cheap on garbage
    const std::size_t allowed = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    std::string_view best;
    std::size_t best_distance = allowed + 1;
    for (const auto candidate : candidates) {
        const std::size_t d = edit_distance(word, candidate);
        if (d < best_distance) best = candidate, best_distance = d;
    }
    return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

std::string one_of(const std::vector<std::string_view>& words) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i) out += i + 1 == words.size() ? " or " : ", ";
        out += fmt::format("'{}'", words[i]);
    }
    return out;
}

std::int64_t element_bytes(DataType type) {
    switch (type) {
        case DataType::Half:
        case DataType::BFloat16: return 2;
        case DataType::Int8: return 1;
        case DataType::Double: return 8;
        case DataType::Float:
        case DataType::Int32: return 4;
    }
    return 8;
}

void check_tensor(std::span<const long> dims, DataType type, std::string_view what) {
    std::int64_t bytes = element_bytes(type);
    for (const long d : dims) {
        if (d <= 0) throw InputError(fmt::format("{} {}: size {} is not positive", what, fmt::join(dims, "x"), d));
        if (d > kMaxDimension)
            throw InputError(fmt::format("{} {}: size {} does not fit in an int, as MIOpen keeps lengths",
                                         what, fmt::join(dims, "x"), d));
        // Checked before multiplying, so the product cannot overflow.
        if (bytes > kMaxTensorBytes / d)
            throw InputError(fmt::format("{} {}: more than {} GiB, larger than any GPU's memory", what,
                                         fmt::join(dims, "x"), kMaxTensorBytes >> 30));
        bytes *= d;
    }
}

namespace {

DataType key_type(const std::string& types) {
    if (types.starts_with("FP16")) return DataType::Half;
    if (types.starts_with("BF16")) return DataType::BFloat16;
    if (types.starts_with("INT8")) return DataType::Int8;
    if (types.starts_with("FP64")) return DataType::Double;
    return DataType::Float;
}

void at_least(std::span<const long> values, long minimum, std::string_view what) {
    for (const long v : values)
        if (v < minimum) throw InputError(fmt::format("{} {} is below {}", what, fmt::join(values, "x"), minimum));
}

}  // namespace

void check_conv_problem(const ConvProblem& p) {
    const auto positive = [](long v, std::string_view what) {
        if (v < 1) throw InputError(fmt::format("{} {} is not positive", what, v));
    };
    positive(p.batch, "batch size");
    positive(p.in_channels, "input channels");
    positive(p.out_channels, "output channels");
    positive(p.groups, "group count");
    at_least(p.in_spatial, 1, "input size");
    at_least(p.out_spatial, 1, "output size");
    at_least(p.weights_spatial, 1, "filter size");
    at_least(p.strides, 1, "stride");
    at_least(p.dilations, 1, "dilation");
    at_least(p.pads, 0, "padding");
    if (p.bias != 0 && p.bias != 1) throw InputError(fmt::format("bias {} is not 0 or 1", p.bias));
    // In forward terms the channels of the "in" tensor of the key divide by the groups in every direction.
    if (p.in_channels % p.groups != 0 || p.out_channels % p.groups != 0)
        throw InputError(fmt::format("channels {} and {} are not divisible by {} groups", p.in_channels,
                                     p.out_channels, p.groups));
    const DataType type = key_type(p.data_types);
    std::vector<long> in{p.batch, p.in_channels}, out{p.batch, p.out_channels}, w{p.out_channels, p.in_channels};
    in.insert(in.end(), p.in_spatial.begin(), p.in_spatial.end());
    out.insert(out.end(), p.out_spatial.begin(), p.out_spatial.end());
    w.insert(w.end(), p.weights_spatial.begin(), p.weights_spatial.end());
    check_tensor(in, type, "input tensor");
    check_tensor(out, type, "output tensor");
    check_tensor(w, type, "weights tensor");
}

void check_problem(const Problem& problem) {
    std::visit(
        [](const auto& p) {
            using P = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<P, ConvProblem>) {
                check_conv_problem(p);
            } else if constexpr (std::is_same_v<P, PoolingProblem>) {
                check_tensor(p.x.dims, p.data_type, "input tensor");
                check_tensor(p.y.dims, p.data_type, "output tensor");
                at_least(p.window, 1, "window");
                at_least(p.strides, 1, "stride");
                at_least(p.pads, 0, "padding");
            } else if constexpr (std::is_same_v<P, TensorOpProblem>) {
                check_tensor(p.a.dims, p.data_type, "tensor A");
                if (p.routine == TensorOpProblem::Routine::OpTensor) check_tensor(p.b.dims, p.data_type, "tensor B");
            } else if constexpr (std::is_same_v<P, LrnProblem>) {
                check_tensor(p.x.dims, p.data_type, "input tensor");
                if (p.size < 1) throw InputError(fmt::format("LRN size {} is not positive", p.size));
                for (const double v : {p.alpha, p.beta, p.k})
                    if (!std::isfinite(v)) throw InputError(fmt::format("LRN parameter {} is not a finite number", v));
            } else if constexpr (std::is_same_v<P, DriverCommandProblem>) {
                // Words for a program's argv (no shell reads them): printable ASCII, bounded.
                if (p.arguments.size() > 256) throw InputError("more than 256 arguments to MIOpenDriver");
                for (const auto& word : p.arguments)
                    if (word.empty() || word.size() > 256 ||
                        std::any_of(word.begin(), word.end(), [](char c) { return c <= 0x20 || c >= 0x7f; }))
                        throw InputError(fmt::format("MIOpenDriver {}: the argument '{}' is not a word of printable "
                                                     "ASCII up to 256 characters",
                                                     p.command, word.substr(0, 64)));
            } else {
                check_tensor(p.x.dims, p.data_type, "input tensor");
            }
        },
        problem);
}

std::string toml_value_text(const toml::node& node) {
    if (const auto* s = node.as_string()) return fmt::format("\"{}\"", s->get());
    if (const auto* f = node.as_floating_point()) {
        const double v = f->get();
        if (std::isnan(v)) return "nan";
        if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
        std::string text = fmt::format("{}", v);
        if (text.find_first_of(".e") == std::string::npos) text += ".0";  // 2.0 stays a float when shown
        return text;
    }
    if (const auto* i = node.as_integer()) return std::to_string(i->get());
    if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
    if (const auto* a = node.as_array()) {
        std::string out = "[";
        for (std::size_t k = 0; k < a->size(); ++k) out += (k ? ", " : "") + toml_value_text((*a)[k]);
        return out + "]";
    }
    if (node.is_table()) return "{...}";
    std::ostringstream os;
    os << toml::node_view<const toml::node>(node);
    return os.str();
}

StrictTable::StrictTable(const toml::table& table, std::string file, std::string context)
    : table_(table), file_(std::move(file)), context_(std::move(context)) {}

InputError StrictTable::error(const toml::node* node, std::string_view key, const std::string& message) const {
    const std::size_t line = node && node->source().begin.line ? node->source().begin.line : this->line();
    std::string text = context_.empty() ? std::string() : context_ + ": ";
    if (!key.empty()) text += fmt::format("{} = {}: ", key, node ? toml_value_text(*node) : "(missing)");
    return InputError(located(file_, line, text + message));
}

InputError StrictTable::error(const std::string& message) const {
    return InputError(located(file_, line(), context_.empty() ? message : context_ + ": " + message));
}

void StrictTable::allow_only(const std::vector<std::string_view>& keys, std::string_view what) const {
    for (const auto& [key, node] : table_) {
        const std::string_view name = key.str();
        if (std::find(keys.begin(), keys.end(), name) != keys.end()) continue;
        const std::size_t line = node.source().begin.line ? node.source().begin.line : this->line();
        throw InputError(located(file_, line,
                                 fmt::format("{}'{}' is not a key of {}{}", context_.empty() ? "" : context_ + ": ",
                                             name, what, did_you_mean(name, keys))));
    }
}

std::optional<long> StrictTable::integer(std::string_view key, long min, long max) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    const auto value = node->value_exact<int64_t>();
    if (!node->is_integer() || !value) throw error(node, key, "must be a whole number");
    if (*value < min || *value > max)
        throw error(node, key, max == std::numeric_limits<long>::max()
                                   ? fmt::format("must be at least {}", min)
                                   : fmt::format("must be between {} and {}", min, max));
    return static_cast<long>(*value);
}

long StrictTable::integer(std::string_view key, long fallback, long min, long max) const {
    return integer(key, min, max).value_or(fallback);
}

double StrictTable::real(std::string_view key, double fallback, double min, double max) const {
    const toml::node* node = table_.get(key);
    if (!node) return fallback;
    double value = 0;
    if (const auto* i = node->as_integer()) value = static_cast<double>(i->get());
    else if (const auto* f = node->as_floating_point()) value = f->get();
    else throw error(node, key, "must be a number");
    if (!std::isfinite(value)) throw error(node, key, "must be a finite number");
    if (value < min || value > max) throw error(node, key, fmt::format("must be between {} and {}", min, max));
    return value;
}

bool StrictTable::boolean(std::string_view key, bool fallback) const {
    const toml::node* node = table_.get(key);
    if (!node) return fallback;
    if (const auto* b = node->as_boolean()) return b->get();
    throw error(node, key, "must be true or false");
}

std::optional<std::string> StrictTable::string(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    if (const auto* s = node->as_string()) return s->get();
    throw error(node, key, "must be a string");
}

std::string StrictTable::word(std::string_view key, std::string_view fallback,
                              const std::vector<std::string_view>& words) const {
    const auto value = string(key);
    if (!value) return std::string(fallback);
    if (std::find(words.begin(), words.end(), *value) == words.end())
        throw error(table_.get(key), key, fmt::format("is not {}{}", one_of(words), did_you_mean(*value, words)));
    return *value;
}

}  // namespace kdbgen::checks
