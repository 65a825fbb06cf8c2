#include "gtc_common.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>

namespace kdbgen::gtc {

namespace {

// ---- a reader for brace-initialized C++ tables ----------------------------

// The source with comments blanked out (newlines kept, so offsets map to lines).
std::string without_comments(const std::string& text) {
    std::string out = text;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '"') {
            for (++i; i < out.size() && out[i] != '"'; ++i)
                if (out[i] == '\\') ++i;
        } else if (out.compare(i, 2, "//") == 0) {
            for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
        } else if (out.compare(i, 2, "/*") == 0) {
            const std::size_t end = out.find("*/", i + 2);
            const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
            for (; i < stop; ++i)
                if (out[i] != '\n') out[i] = ' ';
            --i;
        }
    }
    return out;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Positions of `word` as a whole identifier.
std::size_t find_word(const std::string& text, const std::string& word, std::size_t from, std::size_t to) {
    for (std::size_t at = text.find(word, from); at != std::string::npos && at < to; at = text.find(word, at + 1)) {
        const bool left = at == 0 || !word_char(text[at - 1]);
        const bool right = at + word.size() >= text.size() || !word_char(text[at + word.size()]);
        if (left && right) return at;
    }
    return std::string::npos;
}

std::size_t skip_blanks(const std::string& text, std::size_t i) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
}

// The index of the bracket closing the one at `open`, or npos.
std::size_t matching(const std::string& text, std::size_t open) {
    const char o = text[open], c = o == '{' ? '}' : o == '(' ? ')' : ']';
    int depth = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
        if (text[i] == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            continue;
        }
        if (text[i] == o) ++depth;
        if (text[i] == c && --depth == 0) return i;
    }
    return std::string::npos;
}

struct Source {
    std::string path, text;
    std::size_t line_of(std::size_t offset) const {
        return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n')) + 1;
    }
    [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
        throw InputError(located(path, line_of(offset), message));
    }
};

// The body ({ .. }) of the definition of `function`: the first `function(...)` followed by `{`.
std::pair<std::size_t, std::size_t> function_body(const Source& s, const std::string& function) {
    for (std::size_t at = find_word(s.text, function, 0, s.text.size()); at != std::string::npos;
         at = find_word(s.text, function, at + 1, s.text.size())) {
        std::size_t i = skip_blanks(s.text, at + function.size());
        if (i >= s.text.size() || s.text[i] != '(') continue;
        const std::size_t close = matching(s.text, i);
        if (close == std::string::npos) continue;
        i = skip_blanks(s.text, close + 1);
        while (i < s.text.size() && word_char(s.text[i])) i = skip_blanks(s.text, i + 1);  // const, noexcept
        if (i < s.text.size() && s.text[i] == '{') {
            const std::size_t end = matching(s.text, i);
            if (end == std::string::npos) s.fail(i, "unbalanced braces in " + function);
            return {i, end};
        }
    }
    throw InputError(located(s.path, 0, "no definition of " + function + " (is this a MIOpen 3.2/3.3 tree?)"));
}

class RowParser {
public:
    RowParser(const Source& s, std::size_t pos, std::size_t end) : s_(s), pos_(pos), end_(end) {}

    // `{ row, row, ... }` at pos.
    std::vector<TableRow> rows() {
        expect('{');
        std::vector<TableRow> out;
        while (true) {
            skip();
            if (peek() == '}') {
                ++pos_;
                return out;
            }
            out.push_back(row());
            skip();
            if (peek() == ',') {
                ++pos_;
            } else if (peek() != '}') {
                s_.fail(pos_, fmt::format("expected ',' or '}}' between table rows, found '{}'", peek()));
            }
        }
    }

    // `{ v, v, ... }` or `std::make_tuple(v, v, ...)`.
    TableRow row() {
        skip();
        TableRow r;
        r.file = s_.path;
        r.line = s_.line_of(pos_);
        char close = '}';
        if (s_.text.compare(pos_, 15, "std::make_tuple") == 0) {
            pos_ += 15;
            skip();
            expect('(');
            close = ')';
        } else {
            expect('{');
        }
        while (true) {
            skip();
            if (peek() == close) {
                ++pos_;
                return r;
            }
            r.values.push_back(value());
            skip();
            if (peek() == ',') {
                ++pos_;
            } else if (peek() != close) {
                s_.fail(pos_, fmt::format("expected ',' or '{}' in a table row, found '{}'", close, peek()));
            }
        }
    }

private:
    TableValue value() {
        skip();
        TableValue v;
        const char c = peek();
        if (c == '"') {
            const std::size_t stop = s_.text.find('"', pos_ + 1);
            if (stop == std::string::npos || stop > end_) s_.fail(pos_, "unterminated string in a table row");
            v.kind = TableValue::Kind::String;
            v.text = s_.text.substr(pos_ + 1, stop - pos_ - 1);
            pos_ = stop + 1;
        } else if (c == '{') {
            v.kind = TableValue::Kind::IntList;
            ++pos_;
            while (true) {
                skip();
                if (peek() == '}') {
                    ++pos_;
                    break;
                }
                v.list.push_back(integer());
                skip();
                if (peek() == ',') ++pos_;
                else if (peek() != '}') s_.fail(pos_, fmt::format("expected ',' or '}}' in a list, found '{}'", peek()));
            }
        } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
            v.kind = TableValue::Kind::Int;
            v.number = integer();
        } else if (word_char(c)) {
            v.kind = TableValue::Kind::Name;
            while (pos_ < end_ && (word_char(s_.text[pos_]) || s_.text[pos_] == ':')) v.text += s_.text[pos_++];
        } else {
            s_.fail(pos_, fmt::format("unexpected '{}' in a table row", c));
        }
        return v;
    }
    long long integer() {
        skip();
        const std::size_t start = pos_;
        if (peek() == '-') ++pos_;
        while (pos_ < end_ && std::isdigit(static_cast<unsigned char>(s_.text[pos_]))) ++pos_;
        const auto n = parse_int(std::string_view(s_.text).substr(start, pos_ - start));
        if (!n) s_.fail(start, fmt::format("expected an integer, found '{}'", s_.text.substr(start, 12)));
        return *n;
    }
    void skip() { pos_ = skip_blanks(s_.text, pos_); }
    char peek() const {
        if (pos_ >= end_) s_.fail(end_, "table ends early");
        return s_.text[pos_];
    }
    void expect(char c) {
        skip();
        if (peek() != c) s_.fail(pos_, fmt::format("expected '{}', found '{}'", c, peek()));
        ++pos_;
    }
    const Source& s_;
    std::size_t pos_, end_;
};

struct TableCache {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<const Source>> sources;
    std::map<std::string, std::unique_ptr<std::vector<TableRow>>> tables;
};
TableCache& cache() {
    static TableCache c;
    return c;
}

// Under the cache's lock.
const Source& source(const MiopenTree& tree, const std::string& relative) {
    const fs::path path = tree.root() / relative;
    auto& slot = cache().sources[path.string()];
    if (!slot) {
        if (!fs::exists(path)) throw InputError(located(path.string(), 0, "missing from the MIOpen tree"));
        slot = std::make_shared<Source>(Source{path.string(), without_comments(read_text_file(path))});
    }
    return *slot;
}

Precision parse_precision(const TableRow& row, std::size_t i) {
    const std::string& name = row.name_at(i);
    if (name == "miopenFloat") return Precision::Fp32;
    if (name == "miopenHalf") return Precision::Fp16;
    if (name == "miopenBFloat16") return Precision::Bf16;
    throw InputError(located(row.file, row.line, fmt::format("field {}: unknown data type '{}'", i + 1, name)));
}

// The 17 integers between the precision and the four lengths, in table and perf-db order.
std::array<int*, 17> int_fields(Config& c) {
    return {&c.nxb,         &c.nxe,         &c.m_per_block,   &c.n_per_block,   &c.k_per_block,
            &c.wave_tile_m, &c.wave_tile_n, &c.wave_tile_k,   &c.wave_step_m,   &c.wave_step_n,
            &c.wave_repeat_m, &c.wave_repeat_n, &c.multihead, &c.vector_store, &c.gemm_k_global_split,
            &c.merge_e,     &c.tensor_a_pass_through};
}

Config config_of(const TableRow& row) {
    row.expect_size(24, "performance config");
    Config c;
    c.direction = row.string_at(0);
    c.layout = row.string_at(1);
    c.precision = precision_name(parse_precision(row, 2));
    const auto fields = int_fields(c);
    for (std::size_t i = 0; i < fields.size(); ++i) *fields[i] = row.int_at(3 + i);
    c.ta_thread = row.quad_at(20);
    c.ta_cluster = row.quad_at(21);
    c.tb_thread = row.quad_at(22);
    c.tb_cluster = row.quad_at(23);
    return c;
}

// MIOpen's Parse<int>: `stringstream >> int` (leading blanks, sign, digits; 0 when none).
int stream_int(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    long long v = 0;
    bool any = false;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
        any = true;
        v = v * 10 + (s[i] - '0');
        if (v > std::numeric_limits<int>::max()) return negative ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();
    }
    if (!any) return 0;
    return static_cast<int>(negative ? -v : v);
}
std::string stream_word(std::string_view s) {
    const auto t = trim(s);
    const auto space = t.find_first_of(" \t\r\n");
    return std::string(t.substr(0, space));
}

}  // namespace

// ---- TableRow --------------------------------------------------------------

void TableRow::expect_size(std::size_t n, const char* what) const {
    if (values.size() != n)
        throw InputError(located(file, line, fmt::format("a {} row has {} fields, expected {}", what, values.size(), n)));
}
const std::string& TableRow::string_at(std::size_t i) const {
    if (i >= values.size() || values[i].kind != TableValue::Kind::String)
        throw InputError(located(file, line, fmt::format("field {}: expected a string literal", i + 1)));
    return values[i].text;
}
const std::string& TableRow::name_at(std::size_t i) const {
    if (i >= values.size() || values[i].kind != TableValue::Kind::Name)
        throw InputError(located(file, line, fmt::format("field {}: expected a name", i + 1)));
    return values[i].text;
}
int TableRow::int_at(std::size_t i) const {
    if (i >= values.size() || values[i].kind != TableValue::Kind::Int)
        throw InputError(located(file, line, fmt::format("field {}: expected an integer", i + 1)));
    return static_cast<int>(values[i].number);
}
std::array<int, 4> TableRow::quad_at(std::size_t i) const {
    if (i >= values.size() || values[i].kind != TableValue::Kind::IntList || values[i].list.size() != 4)
        throw InputError(located(file, line, fmt::format("field {}: expected a list of 4 integers", i + 1)));
    return {static_cast<int>(values[i].list[0]), static_cast<int>(values[i].list[1]),
            static_cast<int>(values[i].list[2]), static_cast<int>(values[i].list[3])};
}

// ---- tables ----------------------------------------------------------------

const std::vector<TableRow>& source_table(const MiopenTree& tree, std::string_view relative_name,
                                          std::string_view function_name, std::string_view list_name) {
    const std::string relative(relative_name), function(function_name), list(list_name);
    const std::lock_guard lock(cache().mutex);
    const std::string key = (tree.root() / relative).string() + "\n" + function + "\n" + list;
    auto& slot = cache().tables[key];
    if (!slot) {
        const Source& s = source(tree, relative);
        const auto [begin, end] = function_body(s, function);
        const std::size_t at = find_word(s.text, list, begin, end);
        if (at == std::string::npos) s.fail(begin, fmt::format("no table '{}' in {}", list, function));
        std::size_t open = skip_blanks(s.text, at + list.size());
        if (open < end && s.text[open] == '=') open = skip_blanks(s.text, open + 1);
        if (open >= end || s.text[open] != '{') s.fail(at, fmt::format("'{}' is not a brace-initialized table", list));
        auto rows = RowParser(s, open, end).rows();
        if (rows.empty()) s.fail(open, fmt::format("table '{}' is empty", list));
        slot = std::make_unique<std::vector<TableRow>>(std::move(rows));
    }
    return *slot;
}

const TableRow& returned_row(const MiopenTree& tree, std::string_view relative_name, std::string_view function_name) {
    const std::string relative(relative_name), function(function_name);
    const std::lock_guard lock(cache().mutex);
    const std::string key = (tree.root() / relative).string() + "\n" + function + "\nreturn";
    auto& slot = cache().tables[key];
    if (!slot) {
        const Source& s = source(tree, relative);
        const auto [begin, end] = function_body(s, function);
        const std::size_t at = find_word(s.text, "return", begin, end);
        if (at == std::string::npos) s.fail(begin, "no return in " + function);
        const std::size_t open = skip_blanks(s.text, at + 6);
        if (open >= end || s.text[open] != '{') s.fail(at, function + " does not return a braced row");
        slot = std::make_unique<std::vector<TableRow>>(std::vector<TableRow>{RowParser(s, open, end).row()});
    }
    return slot->front();
}

// The typed tables, converted once per process: planning a find-db asks for
// them once per problem.
template <typename Table, typename Make>
const Table& converted(const MiopenTree& tree, const std::string& relative, const std::string& function,
                       const std::string& list, const char* kind, Make make) {
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<Table>> tables;
    const std::lock_guard lock(mutex);
    auto& slot = tables[fmt::format("{}\n{}\n{}\n{}\n{}", (tree.root() / relative).string(), function, list, kind, "")];
    if (!slot) slot = std::make_unique<Table>(make(source_table(tree, relative, function, list)));
    return *slot;
}

const std::vector<std::array<int, 3>>& tile_table(const MiopenTree& tree, std::string_view relative_name,
                                                   std::string_view function_name, std::string_view list_name) {
    const std::string relative(relative_name), function(function_name), list(list_name);
    return converted<std::vector<std::array<int, 3>>>(tree, relative, function, list, "tile", [](const auto& rows) {
        std::vector<std::array<int, 3>> out;
        for (const auto& row : rows) {
            row.expect_size(3, "tile");
            out.push_back({row.int_at(0), row.int_at(1), row.int_at(2)});
        }
        return out;
    });
}

const std::vector<Tunable>& tunable_table(const MiopenTree& tree, std::string_view relative_name,
                                          std::string_view function_name, std::string_view list_name) {
    const std::string relative(relative_name), function(function_name), list(list_name);
    return converted<std::vector<Tunable>>(tree, relative, function, list, "tunable", [](const auto& rows) {
    std::vector<Tunable> out;
    for (const auto& row : rows) {
        row.expect_size(19, "tunable");
        Tunable t;
        t.direction = row.string_at(0);
        t.precision = parse_precision(row, 1);
        int* fields[] = {&t.nxb,         &t.nxe,         &t.m_per_block, &t.n_per_block,  &t.k_per_block,
                         &t.wave_tile_m, &t.wave_tile_n, &t.wave_tile_k, &t.wave_step_m,  &t.wave_step_n,
                         &t.wave_repeat_m, &t.wave_repeat_n};
        for (std::size_t i = 0; i < std::size(fields); ++i) *fields[i] = row.int_at(2 + i);
        t.ta_thread = row.quad_at(14);
        t.ta_cluster = row.quad_at(15);
        t.tb_thread = row.quad_at(16);
        t.tb_cluster = row.quad_at(17);
        t.gemm_k_global_split = row.int_at(18);
        if (t.nxb == 0 || t.m_per_block == 0 || t.n_per_block == 0 || t.k_per_block == 0 ||
            t.wave_tile_m * t.wave_step_m * t.wave_repeat_m == 0 || t.wave_tile_n * t.wave_step_n * t.wave_repeat_n == 0)
            throw InputError(located(row.file, row.line, "a tunable with a zero block or wave size"));
        out.push_back(std::move(t));
    }
    return out;
    });
}

const std::vector<Config>& config_table(const MiopenTree& tree, std::string_view relative_name, std::string_view function_name,
                                        std::string_view list_name) {
    const std::string relative(relative_name), function(function_name), list(list_name);
    return converted<std::vector<Config>>(tree, relative, function, list, "config", [](const auto& rows) {
    std::vector<Config> out;
    for (const auto& row : rows) {
        out.push_back(config_of(row));
        const Config& c = out.back();
        if (c.nxb < 0 || c.m_per_block <= 0 || c.n_per_block <= 0 || c.k_per_block <= 0 || c.tb_thread[3] <= 0 ||
            c.ta_thread[3] <= 0 || c.tb_thread[1] <= 0)
            throw InputError(located(row.file, row.line, "a performance config with a zero block or thread length"));
    }
    return out;
    });
}

Config returned_config(const MiopenTree& tree, const std::string& relative, const std::string& function) {
    return config_of(returned_row(tree, relative, function));
}

// ---- the problem -----------------------------------------------------------

Precision precision_of(const ConvView& p) {
    return p.IsFp16() ? Precision::Fp16 : p.IsBfp16() ? Precision::Bf16 : Precision::Fp32;
}
const char* precision_name(Precision precision) {
    return precision == Precision::Fp32 ? "fp32" : precision == Precision::Fp16 ? "fp16" : "bf16";
}
int type_size(const ConvView& p) { return p.IsFp32() ? 4 : 2; }
DataType data_type(const ConvView& p) {
    return p.IsFp16() ? DataType::Half : p.IsBfp16() ? DataType::BFloat16 : DataType::Float;
}

long long gcd(long long a, long long b) { return std::gcd(a, b); }

std::size_t log2_gemm_k_global_splits_2d_merge(std::size_t grid, std::size_t max_grid, std::size_t dim0,
                                               std::size_t dim1, std::size_t k_per_block, std::size_t max_log2) {
    std::size_t log2 = 0;
    for (std::size_t gs = 0; gs < max_log2; ++gs) {
        if ((grid << gs) > max_grid) break;
        if (dim0 % (std::size_t{1} << gs) != 0) break;
        if ((dim0 >> gs) * dim1 % k_per_block != 0) break;
        log2 = gs;
    }
    return log2;
}

std::size_t matrix_pad_size(std::size_t col, std::size_t col_per_block, std::size_t row, std::size_t row_per_block) {
    const std::size_t col_padded = (col + col_per_block - 1) / col_per_block * col_per_block;
    const std::size_t row_padded = (row + row_per_block - 1) / row_per_block * row_per_block;
    const std::size_t col_extra = col_padded - col, row_extra = row_padded - row;
    return col_extra * row + row_extra * col + col_extra * row_extra;
}

std::array<int, 3> macro_tile_no_pad_gemm_k(std::size_t m, std::size_t n, std::size_t k,
                                            const std::vector<std::array<int, 3>>& tiles) {
    // gemm_k % kpb with gemm_k == 0 (WrW passes 0) is always 0: every k fits.
    const auto divides = [](std::size_t v, int d) { return v % static_cast<std::size_t>(d) == 0; };
    for (const auto& [mpb, npb, kpb] : tiles)
        if (divides(m, mpb) && divides(n, npb) && divides(k, kpb)) return {mpb, npb, kpb};
    std::size_t min_pad = std::numeric_limits<std::size_t>::max();
    int mpb_pad = 0, npb_pad = 0;
    for (const auto& [mpb, npb, kpb] : tiles) {
        if (!divides(k, kpb)) continue;
        const std::size_t pad = matrix_pad_size(m, mpb, k, kpb) + matrix_pad_size(n, npb, k, kpb) + matrix_pad_size(m, mpb, n, npb);
        if (pad < min_pad) {
            min_pad = pad;
            mpb_pad = mpb;
            npb_pad = npb;
        }
    }
    for (const auto& [mpb, npb, kpb] : tiles)
        if (mpb == mpb_pad && npb == npb_pad && divides(k, kpb)) return {mpb, npb, kpb};
    return {0, 0, 0};
}

int split_batch_size(int hi, int wi, int ho, int wo, int n, int k, int c, int data_byte) {
    const std::size_t in = static_cast<std::size_t>(c) * hi * wi * data_byte;
    const std::size_t out = static_cast<std::size_t>(k) * ho * wo * data_byte;
    constexpr std::size_t kMax = 0xffffffffUL;
    const std::size_t image = std::max(in, out);
    if (image >= kMax) return 0;
    std::size_t max_n = kMax / image;
    const auto un = static_cast<std::size_t>(n);
    if (max_n > un) {
        max_n = un % max_n;
    } else if (max_n < un) {
        // MIOpen's search (asm_implicit_gemm.hpp:269-293), integer division as written there.
        std::size_t m = static_cast<std::size_t>(std::ceil(un / max_n));
        const auto sqrt_n = static_cast<std::size_t>(std::sqrt(static_cast<double>(un)));
        while (un % max_n != 0) {
            if (un % m == 0) {
                max_n = un / m;
            } else {
                m += 1;
                if (m > sqrt_n) max_n = 1;
            }
        }
    }
    return static_cast<int>(un / max_n);
}

BwdGeometry bwd_geometry(const ConvView& p, long long group) {
    BwdGeometry g{};
    g.hi = p.GetOutHeight(), g.wi = p.GetOutWidth(), g.n = p.GetBatchSize();
    g.k = p.GetInChannels() / group, g.c = p.GetOutChannels() / group;
    g.ho = p.GetInHeight(), g.wo = p.GetInWidth();
    g.stride_h = p.GetOutHeight() > 1 ? p.GetKernelStrideH() : 1;
    g.stride_w = p.GetOutWidth() > 1 ? p.GetKernelStrideW() : 1;
    g.dilation_h = p.GetWeightsHeight() > 1 ? p.GetDilationH() : 1;
    g.dilation_w = p.GetWeightsWidth() > 1 ? p.GetDilationW() : 1;
    g.pad_h = p.GetPadH(), g.pad_w = p.GetPadW(), g.y = p.GetWeightsHeight(), g.x = p.GetWeightsWidth();
    g.y_tilda = g.stride_h / gcd(g.stride_h, g.dilation_h);
    g.x_tilda = g.stride_w / gcd(g.stride_w, g.dilation_w);
    const long long h_tilda = g.ho + (g.dilation_h * (g.y - 1) + g.stride_h - 1) / g.stride_h;
    const long long w_tilda = g.wo + (g.dilation_w * (g.x - 1) + g.stride_w - 1) / g.stride_w;
    g.y_dot = solvers::integer_divide_ceil<long long>(g.y, g.y_tilda);
    g.x_dot = solvers::integer_divide_ceil<long long>(g.x, g.x_tilda);
    const long long h_left = std::max(0LL, g.pad_h - g.dilation_h * (g.y_tilda - 1)) / g.stride_h;
    const long long w_left = std::max(0LL, g.pad_w - g.dilation_w * (g.x_tilda - 1)) / g.stride_w;
    const long long h_right = std::min(h_tilda, (g.pad_h + g.hi - 1 + g.stride_h - 1) / g.stride_h + 1);
    const long long w_right = std::min(w_tilda, (g.pad_w + g.wi - 1 + g.stride_w - 1) / g.stride_w + 1);
    g.h_tilda_slice = h_right - h_left;
    g.w_tilda_slice = w_right - w_left;
    g.unit_conv = g.x == 1 && g.y == 1 && g.stride_h == 1 && g.stride_w == 1 && g.dilation_h == 1 &&
                  g.dilation_w == 1 && g.pad_h == 0 && g.pad_w == 0;
    return g;
}

bool is_gfx94(const Target& target) { return target.name().starts_with("gfx94"); }

bool tree_missing(const SolverContext& ctx, std::string* why) {
    if (ctx.tree) return false;
    if (why) *why = "its tables are read from the MIOpen tree, and none is given";
    return true;
}

bool nchw_xdlops_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    if (ctx.target.name() != "gfx908") return reject(why, "gfx908 only");
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (!p.IsFp32() && !p.IsFp16()) return reject(why, "FP32 and FP16 only");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (!p.IsLayoutDefault()) return reject(why, "layout is not NCHW");
    if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
    return !tree_missing(ctx, why);
}

SolverKernel plain_asm_kernel(const std::string& name) {
    return {name + ".s", {name}, " -Wa,-defsym,ROCM_METADATA_VERSION=5"};
}

// ---- NCHW tunables ---------------------------------------------------------

std::string Tunable::kernel_name() const {
    const auto quad = [](const std::array<int, 4>& q) { return fmt::format("{}x{}x{}x{}", q[0], q[1], q[2], q[3]); };
    std::string name = fmt::format("igemm_{}_gtcx_nchw_{}_bx{}_ex{}_bt{}x{}x{}_wt{}x{}x{}_ws{}x{}_wr{}x{}_ta{}_{}_tb{}_{}",
                                   direction, precision == Precision::Fp32 ? "fp32" : "fp16", nxb, nxe, m_per_block,
                                   n_per_block, k_per_block, wave_tile_m, wave_tile_n, wave_tile_k, wave_step_m,
                                   wave_step_n, wave_repeat_m, wave_repeat_n, quad(ta_thread), quad(ta_cluster),
                                   quad(tb_thread), quad(tb_cluster));
    if (gemm_k_global_split != 0) name += "_gkgs";
    return name;
}

int Tunable::block_size() const {
    return (m_per_block / (wave_tile_m * wave_step_m * wave_repeat_m)) *
           (n_per_block / (wave_tile_n * wave_step_n * wave_repeat_n)) * 64;
}

// ---- NHWC configs ----------------------------------------------------------

bool Config::same_parameters(const Config& o) const {
    return direction == o.direction && layout == o.layout && precision == o.precision && nxb == o.nxb && nxe == o.nxe &&
           m_per_block == o.m_per_block && n_per_block == o.n_per_block && k_per_block == o.k_per_block &&
           wave_tile_m == o.wave_tile_m && wave_tile_n == o.wave_tile_n && wave_tile_k == o.wave_tile_k &&
           wave_step_m == o.wave_step_m && wave_step_n == o.wave_step_n && wave_repeat_m == o.wave_repeat_m &&
           wave_repeat_n == o.wave_repeat_n && multihead == o.multihead && vector_store == o.vector_store &&
           ((gemm_k_global_split == 0 && o.gemm_k_global_split == 0) ||
            (gemm_k_global_split > 0 && o.gemm_k_global_split > 0)) &&
           merge_e == o.merge_e && tensor_a_pass_through == o.tensor_a_pass_through && ta_thread == o.ta_thread &&
           ta_cluster == o.ta_cluster && tb_thread == o.tb_thread && tb_cluster == o.tb_cluster;
}

bool Config::is_default_constructed() const {
    const std::array<int, 4> ones{1, 1, 1, 1};
    return direction == "fwd" && layout == "nchw" && precision == "fp32" && nxb == 1 && nxe == 1 && m_per_block == 1 &&
           n_per_block == 1 && k_per_block == 1 && wave_tile_m == 1 && wave_tile_n == 1 && wave_tile_k == 1 &&
           wave_step_m == 1 && wave_step_n == 1 && wave_repeat_m == 1 && wave_repeat_n == 1 && multihead == 1 &&
           vector_store == 1 && gemm_k_global_split == 1 && merge_e == 1 && tensor_a_pass_through == 1 &&
           ta_thread == ones && ta_cluster == ones && tb_thread == ones && tb_cluster == ones && index == 0;
}

int Config::block_size() const { return ta_cluster[0] * ta_cluster[1] * ta_cluster[2] * ta_cluster[3]; }

std::string Config::kernel_name(const Target& target) const {
    const auto quad = [](const std::array<int, 4>& q) { return fmt::format("{}x{}x{}x{}", q[0], q[1], q[2], q[3]); };
    const std::string_view device = target.name();
    const char* gtc = device == "gfx908" ? "_gtcx_" : device == "gfx90a" ? "_gtcx2_" : "_gtcx3_";
    std::string name = fmt::format("igemm_{}{}{}_{}_bx{}_ex{}_bt{}x{}x{}_wt{}x{}x{}_ws{}x{}_wr{}x{}_ta{}_{}_tb{}_{}",
                                   direction, gtc, layout, precision, nxb, nxe, m_per_block, n_per_block, k_per_block,
                                   wave_tile_m, wave_tile_n, wave_tile_k, wave_step_m, wave_step_n, wave_repeat_m,
                                   wave_repeat_n, quad(ta_thread), quad(ta_cluster), quad(tb_thread), quad(tb_cluster));
    if (tensor_a_pass_through != 0) name += "_pta";
    if (multihead != 0) name += "_mh";
    if (merge_e != 0) name += "_me";
    if (vector_store != 0) name += "_vs" + std::to_string(vector_store);
    if (gemm_k_global_split != 0) name += "_gkgs";
    return name;
}

std::optional<Config> parse_config_record(const std::string& record) {
    const auto parts = split(record, ',');
    if (parts.size() < 37) return std::nullopt;
    Config c;
    c.direction = stream_word(parts[0]);
    c.layout = stream_word(parts[1]);
    c.precision = stream_word(parts[2]);
    std::size_t i = 3;
    for (int* f : int_fields(c)) *f = stream_int(parts[i++]);
    for (auto* quad : {&c.ta_thread, &c.ta_cluster, &c.tb_thread, &c.tb_cluster})
        for (int& v : *quad) v = stream_int(parts[i++]);
    c.index = stream_int(parts[i]);
    return c;
}

bool in_table(const Config& config, const std::vector<Config>& table) {
    if (config.is_default_constructed()) return true;
    return std::any_of(table.begin(), table.end(), [&](const Config& c) { return config.same_parameters(c); });
}

std::vector<SolverKernel> nhwc_main_kernels(const Config& config, const ConvView& p, const Target& target) {
    const std::string name = config.kernel_name(target);
    std::vector<std::pair<std::string, std::string>> defines{{"ROCM_METADATA_VERSION", "5"}};
    const std::string_view device = target.name();
    if (device == "gfx940") defines.insert(defines.end(), {{"force_sc0_sc1", "1"}, {"atomic_add_using_cas", "0"}});
    else if (device == "gfx941") defines.insert(defines.end(), {{"force_sc0_sc1", "1"}, {"atomic_add_using_cas", "1"}});
    else if (is_gfx94(target)) defines.insert(defines.end(), {{"force_sc0_sc1", "0"}, {"atomic_add_using_cas", "0"}});
    // GenerateClangDefsym writes " -Wa,-defsym,<name>=<value>" (src/ocl/gcn_asm_utils.cpp:305-310).
    const std::string options = " " + generate_defines(defines, "Wa,-defsym,");
    if (!(device == "gfx90a" && p.IsFp16())) return {{name + ".s", {name}, options}};
    const std::string alt = " -Wa,-defsym,igemm_" + config.direction + "_fp16_alt_impl=";
    return {{name + ".s", {name}, options + alt + "0"}, {name + ".s", {name}, options + alt + "1"}};
}

// ---- batched transposes (src/hip/batched_transpose_sol.cpp, src/include/miopen/batched_transpose_sol.hpp) ----

namespace {

struct TransposeParam {
    int tile_x = 0, tile_y = 0, pack_x = 0, pack_y = 0, ediv_x = 0, ediv_y = 0;
};

// GetKernelList (:62-153): the lists read from the tree.
std::vector<TransposeParam> transpose_kernel_list(const MiopenTree& tree, int data_size, const Target& target) {
    const char* list = data_size == 1   ? "byte_kernel_list"
                       : data_size == 4 ? "dword_kernel_list"
                       : is_gfx94(target) ? "half_kernel_list_gfx94x"
                                          : "half_kernel_list";
    std::vector<TransposeParam> out;
    for (const auto& row : source_table(tree, "src/hip/batched_transpose_sol.cpp", "GetKernelList", list)) {
        row.expect_size(6, "batched transpose");
        out.push_back({row.int_at(0), row.int_at(1), row.int_at(2), row.int_at(3), row.int_at(4), row.int_at(5)});
        if (out.back().tile_x <= 0 || out.back().tile_y <= 0 || out.back().ediv_x <= 0 || out.back().ediv_y <= 0)
            throw InputError(located(row.file, row.line, "a batched transpose with a zero tile or ediv"));
    }
    return out;
}

float normalized_ratio(float x, float y) { return y > x ? y / x : x / y; }

// HeuristicGet (:200-298).
TransposeParam transpose_heuristic(const MiopenTree& tree, int data_size, const Target& target, std::uint32_t height,
                                   std::uint32_t width) {
    const auto list = transpose_kernel_list(tree, data_size, target);
    const float hw_ratio = normalized_ratio(static_cast<float>(height), static_cast<float>(width));
    if (hw_ratio >= 12 && (height <= 8 || width <= 8)) {
        const int long_side = hw_ratio <= 48 ? 64 : hw_ratio <= 128 ? 128 : 256;
        return width <= 8 ? TransposeParam{4, long_side, 1, 1, 1, 1} : TransposeParam{long_side, 4, 1, 1, 1, 1};
    }
    TransposeParam best;
    std::size_t best_padding = std::numeric_limits<std::size_t>::max();
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
        if (it->tile_x == 4 || it->tile_y == 4) continue;
        if (!(width % static_cast<std::uint32_t>(it->ediv_x) == 0 && height % static_cast<std::uint32_t>(it->ediv_y) == 0))
            continue;
        const std::uint32_t padded_h = (height + it->tile_y - 1) / it->tile_y * it->tile_y;
        const std::uint32_t padded_w = (width + it->tile_x - 1) / it->tile_x * it->tile_x;
        const std::size_t padding =
            static_cast<std::size_t>(padded_h) * padded_w - static_cast<std::size_t>(height) * width;
        bool replace = best.tile_x == 0 && best.tile_y == 0;
        if (hw_ratio > 128) {
            const float side = width > height ? static_cast<float>(it->tile_x) / it->tile_y
                                              : static_cast<float>(it->tile_y) / it->tile_x;
            if (!(side >= 0.4f)) continue;
            const float prev = normalized_ratio(
                normalized_ratio(static_cast<float>(best.tile_y), static_cast<float>(best.tile_x)), hw_ratio);
            const float curr = normalized_ratio(
                normalized_ratio(static_cast<float>(it->tile_y), static_cast<float>(it->tile_x)), hw_ratio);
            const float a = curr * static_cast<float>(padding), b = prev * static_cast<float>(best_padding);
            if (a < b) {
                if (curr <= prev) replace = true;
            } else if (std::isfinite(a) && std::isfinite(b) && std::nextafter(a, std::numeric_limits<float>::lowest()) <= b &&
                       std::nextafter(a, std::numeric_limits<float>::max()) >= b) {
                // float_equal (src/include/miopen/float_equal.hpp:39-52): within one ulp
                if ((width > height && it->tile_x > it->tile_y && best.tile_x < best.tile_y) ||
                    (width < height && it->tile_x < it->tile_y && best.tile_x > best.tile_y))
                    replace = true;
            }
        } else if (padding < best_padding) {
            replace = true;
        }
        if (replace) {
            best_padding = padding;
            best = *it;
        }
    }
    return best;
}

}  // namespace

void add_transposes(std::vector<SolverKernel>& out, const std::vector<TransposeNeed>& needs, const SolverContext& ctx,
                    bool skip_trivial) {
    for (const auto& need : needs) {
        // Default2Nhwc is (batch n, height c, width h*w); Nhwc2Default (n, h*w, c) (batched_transpose_sol.hpp:94-124).
        const auto hw = static_cast<std::uint32_t>(need.h * need.w);
        const std::uint32_t height = need.kind == Transpose::Default2Nhwc ? static_cast<std::uint32_t>(need.c) : hw;
        const std::uint32_t width = need.kind == Transpose::Default2Nhwc ? hw : static_cast<std::uint32_t>(need.c);
        if (skip_trivial && (height == 1 || width == 1)) continue;  // IsSkippable (:413-418)
        const int data_size = need.type == DataType::Int8 ? 1 : (need.type == DataType::Half || need.type == DataType::BFloat16) ? 2 : 4;
        const TransposeParam k = transpose_heuristic(*ctx.tree, data_size, ctx.target, height, width);
        // GetKernelName (:178-190); GetKernelInfo (:335-361): batched_transpose.cpp, no options.
        std::string name = fmt::format("batched_transpose_{}x{}_", k.tile_x, k.tile_y);
        if (!(k.pack_x == 1 && k.pack_y == 1 && k.ediv_x == 1 && k.ediv_y == 1))
            name += fmt::format("pack_{}x{}_ediv_{}x{}_", k.pack_x, k.pack_y, k.ediv_x, k.ediv_y);
        name += data_size == 1 ? "byte" : data_size == 2 ? "half" : "dword";
        out.push_back({"batched_transpose.cpp", {name}, ""});
    }
}

// ---- the NHWC solvers -------------------------------------------------------

const std::vector<Config>& NhwcXdlopsSolver::table(const SolverContext& ctx) const {
    return config_table(*ctx.tree, source(), table_function(), "kernel_param_list");
}

const std::vector<std::array<int, 3>>& NhwcXdlopsSolver::tiles(const SolverContext& ctx, const std::string& list) const {
    return tile_table(*ctx.tree, source(), "HeuristicInit", list);
}

bool NhwcXdlopsSolver::is_valid(const ConvView& p, const Config& c) const {
    if (c.is_default_constructed()) return false;
    if (c.precision != precision_name(precision_of(p))) return false;
    return valid(p, c);
}

Config NhwcXdlopsSolver::least_padding(const ConvView& p, const std::vector<Config>& list, std::size_t gemm_m,
                                       std::size_t gemm_n, std::size_t gemm_k) const {
    std::size_t min_pad = std::numeric_limits<std::size_t>::max(), selected = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Config& c = list[i];
        if (c.precision != precision_name(precision_of(p))) continue;
        if (!(c.ta_thread[1] == 1 && c.tb_thread[1] == 1)) continue;
        const auto m = static_cast<std::size_t>(c.m_per_block), n = static_cast<std::size_t>(c.n_per_block),
                   k = static_cast<std::size_t>(c.k_per_block);
        const std::size_t pad = matrix_pad_size(gemm_m, m, gemm_k, k) + matrix_pad_size(gemm_n, n, gemm_k, k) +
                                matrix_pad_size(gemm_m, m, gemm_n, n);
        if (pad < min_pad) {
            min_pad = pad;
            selected = i;
        }
    }
    return list[selected];
}

bool NhwcXdlopsSolver::applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const {
    // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_ASM_*_GTC_XDLOPS_NHWC default on; deterministic off; group > 1
    // off (WORKAROUND_ISSUE_1979); then the direction's workaround.
    if (p.GetGroupCount() > 1) return reject(why, "grouped (WORKAROUND_ISSUE_1979)");
    if (workaround_rejects(p, why)) return false;
    const std::string_view device = ctx.target.name();
    if (device != "gfx908" && device != "gfx90a" && !is_gfx94(ctx.target)) return reject(why, "gfx908, gfx90a, gfx94x only");
    if (!direction_matches(p)) return reject(why, "another direction");
    if (!p.Is2d()) return reject(why, "not 2-D");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (!p.IsFp32() && !p.IsFp16() && !(p.IsBfp16() && (device == "gfx90a" || is_gfx94(ctx.target))))
        return reject(why, "data type");
    if (p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (ctx.target.miopen_xnack().value_or(false)) return reject(why, "xnack is on");
    // MIOpen takes any layout that is not NCHW for NHWC; kdbgen plans the two it knows.
    if (!p.IsLayoutDefault() && !p.IsLayoutNHWC()) return reject(why, "layout neither NCHW nor NHWC");
    if (split_batch(p) == 0) return reject(why, "one image exceeds 4 GB");
    if (tree_missing(ctx, why)) return false;
    const Config largest = returned_config(*ctx.tree, source(), largest_tile_function(precision_of(p)));
    const Grid g = grid_of(p, largest);
    if (g.block * g.grid * g.third > 0xffffffffULL) return reject(why, "the largest tile's grid exceeds 2^32");
    return true;
}

std::optional<Config> NhwcXdlopsSolver::chosen_config(const ConvView& p, const SolverContext& ctx) const {
    if (!ctx.tree) return std::nullopt;
    if (ctx.perf_db)
        if (const auto record = ctx.perf_db->find(p.p, std::string(name())))
            if (const auto c = checked_perf_record(parse_config_record(*record), ctx.perf_db, p.p, std::string(name()), *record); c && in_table(*c, table(ctx)) && is_valid(p, *c)) return c;
    return heuristic(p, ctx);
}

std::vector<SolverKernel> NhwcXdlopsSolver::kernels(const ConvView& p, const SolverContext& ctx) const {
    const auto config = chosen_config(p, ctx);
    if (!config) return {};
    auto out = nhwc_main_kernels(*config, p, ctx.target);
    if (p.IsLayoutDefault()) add_transposes(out, transposes(p), ctx);
    add_helpers(out, p, *config);
    return out;
}

std::vector<SolverKernel> table_asm_kernels(const std::vector<Tunable>& tunables, const ConvView& p) {
    const Precision precision = p.IsFp16() ? Precision::Fp16 : Precision::Fp32;
    std::vector<SolverKernel> out;
    for (const auto& t : tunables)
        if (t.precision == precision) out.push_back(plain_asm_kernel(t.kernel_name()));
    return out;
}

std::vector<SolverKernel> NhwcXdlopsSolver::table_kernels(const ConvView& p, const SolverContext& ctx) const {
    if (!ctx.tree) return {};
    std::vector<SolverKernel> out;
    const std::string precision = precision_name(precision_of(p));
    for (const auto& config : table(ctx))
        if (config.precision == precision)
            for (auto& kernel : nhwc_main_kernels(config, p, ctx.target)) out.push_back(std::move(kernel));
    return out;
}

}  // namespace kdbgen::gtc
