// Problems as one line of words (include/kdbgen/corpus.hpp, encode_problem):
// every field of each primitive's struct in declaration order, so that a
// decoded problem is the one encoded (its key, its replay line). Words hold
// no space: numbers, names, and lists joined by commas ('-' for empty).
#include "kdbgen/corpus.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <variant>

namespace kdbgen {

namespace {

// Writes the fields one word each.
class Writer {
public:
    Writer& operator<<(long v) { return word(std::to_string(v)); }
    Writer& operator<<(int v) { return word(std::to_string(v)); }
    Writer& operator<<(unsigned v) { return word(std::to_string(v)); }
    Writer& operator<<(bool v) { return word(v ? "1" : "0"); }
    Writer& operator<<(double v) { return word(fmt::format("{:.17g}", v)); }
    Writer& operator<<(float v) { return word(fmt::format("{:.9g}", v)); }
    Writer& operator<<(const std::string& v) { return word(v.empty() ? "-" : v); }
    Writer& operator<<(const Dims& v) { return list(v.begin(), v.end()); }
    Writer& operator<<(const std::vector<long>& v) { return list(v.begin(), v.end()); }
    Writer& operator<<(const TensorShape& v) { return *this << v.dims; }
    // Words (a command's arguments: printable, no space) joined by a record separator.
    Writer& operator<<(const std::vector<std::string>& v) {
        return word(v.empty() ? std::string("\x1d") : fmt::format("{}", fmt::join(v, "\x1e")));
    }
    template <typename E>
        requires std::is_enum_v<E>
    Writer& operator<<(E v) {
        return *this << static_cast<int>(v);
    }
    std::string text;

private:
    template <typename It>
    Writer& list(It first, It last) {
        return word(first == last ? std::string("-") : fmt::format("{}", fmt::join(first, last, ",")));
    }
    Writer& word(const std::string& w) {
        if (!text.empty()) text += ' ';
        text += w;
        return *this;
    }
};

// Reads them back in the same order; a word that does not read is a corrupt line.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}
    Reader& operator>>(long& v) { return number(v); }
    Reader& operator>>(int& v) { return number(v); }
    Reader& operator>>(unsigned& v) { return number(v); }
    Reader& operator>>(bool& v) {
        int i = 0;
        number(i);
        v = i != 0;
        return *this;
    }
    Reader& operator>>(double& v) {
        v = std::strtod(std::string(next()).c_str(), nullptr);
        return *this;
    }
    Reader& operator>>(float& v) {
        v = std::strtof(std::string(next()).c_str(), nullptr);
        return *this;
    }
    Reader& operator>>(std::string& v) {
        const auto w = next();
        v = w == "-" ? std::string() : std::string(w);
        return *this;
    }
    Reader& operator>>(Dims& v) {
        v = Dims(longs());
        return *this;
    }
    Reader& operator>>(std::vector<long>& v) {
        v = longs();
        return *this;
    }
    Reader& operator>>(TensorShape& v) { return *this >> v.dims; }
    Reader& operator>>(std::vector<std::string>& v) {
        v.clear();
        const auto w = next();
        if (w == "\x1d") return *this;  // none
        for (std::size_t at = 0; at <= w.size();) {
            const std::size_t end = std::min(w.find('\x1e', at), w.size());
            v.emplace_back(w.substr(at, end - at));
            at = end + 1;
        }
        return *this;
    }
    template <typename E>
        requires std::is_enum_v<E>
    Reader& operator>>(E& v) {
        int i = 0;
        number(i);
        v = static_cast<E>(i);
        return *this;
    }
    std::string_view next() {
        const std::size_t end = std::min(text_.find(' ', at_), text_.size());
        if (at_ >= text_.size()) throw InputError("a problem line ends early");
        const std::string_view w = text_.substr(at_, end - at_);
        at_ = end + 1;
        return w;
    }
    bool done() const { return at_ >= text_.size(); }

private:
    template <typename T>
    Reader& number(T& v) {
        const auto w = next();
        if (std::from_chars(w.data(), w.data() + w.size(), v).ec != std::errc())
            throw InputError(fmt::format("'{}' is not a number", w));
        return *this;
    }
    std::vector<long> longs() {
        std::vector<long> out;
        const auto w = next();
        if (w == "-") return out;
        for (std::size_t at = 0; at <= w.size();) {
            const std::size_t end = std::min(w.find(',', at), w.size());
            long v = 0;
            if (std::from_chars(w.data() + at, w.data() + end, v).ec != std::errc())
                throw InputError(fmt::format("'{}' is not a list of numbers", w));
            out.push_back(v);
            at = end + 1;
        }
        return out;
    }
    std::string_view text_;
    std::size_t at_ = 0;
};

// Each primitive's fields, in declaration order, through one function for both ways.
template <typename Io>
void fields(Io& io, ConvProblem& p) {
    io % p.spatial_dims % p.in_channels % p.in_spatial % p.weights_spatial % p.out_channels % p.out_spatial % p.batch %
        p.pads % p.strides % p.dilations % p.bias % p.in_layout % p.weights_layout % p.out_layout % p.data_types %
        p.direction % p.groups % p.cast_suffix;
}
template <typename Io>
void fields(Io& io, BatchNormProblem& p) {
    io % p.direction % p.mode % p.x % p.data_type % p.param_type % p.layout % p.save_results % p.running_results %
        p.use_saved;
}
template <typename Io>
void fields(Io& io, PoolingProblem& p) {
    io % p.direction % p.mode % p.x % p.y % p.window % p.strides % p.pads % p.data_type % p.index_type %
        p.workspace_index_mode % p.save_index % p.layout;
}
template <typename Io>
void fields(Io& io, ActivationProblem& p) {
    io % p.direction % p.mode % p.x % p.data_type % p.alpha % p.beta % p.gamma;
}
template <typename Io>
void fields(Io& io, SoftmaxProblem& p) {
    io % p.direction % p.algorithm % p.mode % p.x % p.data_type % p.alpha % p.beta;
}
template <typename Io>
void fields(Io& io, LrnProblem& p) {
    io % p.direction % p.mode % p.size % p.alpha % p.beta % p.k % p.save_scale % p.x % p.data_type;
}
template <typename Io>
void fields(Io& io, TensorOpProblem& p) {
    io % p.routine % p.op % p.a % p.b % p.data_type;
}
template <typename Io>
void fields(Io& io, DriverCommandProblem& p) {
    io % p.command % p.arguments;
}

struct Encode {
    Writer w;
    template <typename T>
    Encode& operator%(T& v) {
        w << v;
        return *this;
    }
};
struct Decode {
    Reader r;
    template <typename T>
    Decode& operator%(T& v) {
        r >> v;
        return *this;
    }
};

template <std::size_t I = 0>
Problem decode_kind(std::size_t index, Decode& decode) {
    if constexpr (I < std::variant_size_v<Problem>) {
        if (index != I) return decode_kind<I + 1>(index, decode);
        std::variant_alternative_t<I, Problem> problem;
        fields(decode, problem);
        return problem;
    } else {
        throw InputError(fmt::format("no problem kind {}", index));
    }
}

}  // namespace

std::string encode_problem(const Problem& problem) {
    Encode encode;
    encode.w << static_cast<unsigned>(problem.index());
    std::visit([&](const auto& p) { fields(encode, const_cast<std::decay_t<decltype(p)>&>(p)); }, problem);
    return std::move(encode.w.text);
}

Problem decode_problem(std::string_view line) {
    Decode decode{Reader(line)};
    unsigned index = 0;
    decode.r >> index;
    Problem problem = decode_kind(index, decode);
    if (!decode.r.done()) throw InputError("a problem line has words past its fields");
    return problem;
}

}  // namespace kdbgen
