// Assembler compatibility overlay.
//
// MIOpen's conv_common.inc defines `.macro s_wait vmcnt=..., lgkmcnt=...`
// with altmacro off and expands it after `.altmacro`. Its body writes
// `s_waitcnt vmcnt(0 + vm_cnt)`, meaning the counter, not the parameter.
// LLVM 15 and later substitute parameters by bare name in altmacro mode at
// expansion time, so `vmcnt(` becomes `<argument>(` and the assembler
// rejects conv1x1u.s, conv1x1wrw.s and the other users; LLVM 14 and GNU as
// read it as written. The overlay holds copies of such include files in
// which the shadowing parameters are renamed (and only their `\name`
// references follow), which keeps the meaning the author had and works
// under both rules: LLVM 14 assembles the original and the copy to
// identical objects (tests/unit/compile_test.cpp).
#include "kdbgen/compile.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

namespace kdbgen {

namespace {

std::string trim_left(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    return std::string(s.substr(i));
}

bool starts_with_directive(std::string_view line, std::string_view directive) {
    const std::string t = trim_left(line);
    if (!t.starts_with(directive)) return false;
    return t.size() == directive.size() || t[directive.size()] == ' ' || t[directive.size()] == '\t' ||
           t[directive.size()] == ';' || t[directive.size()] == '\r';
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `word` occurs in `text` as a whole word not introduced by a backslash.
bool has_bare_word(std::string_view text, std::string_view word) {
    for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const bool left_ok = at == 0 || (!is_word_char(text[at - 1]) && text[at - 1] != '\\');
        const bool right_ok = at + word.size() >= text.size() || !is_word_char(text[at + word.size()]);
        if (left_ok && right_ok) return true;
    }
    return false;
}

// `\name` (not `\name_more`) -> `\replacement`.
std::string replace_reference(std::string_view text, std::string_view name, std::string_view replacement) {
    std::string out;
    const std::string needle = "\\" + std::string(name);
    std::size_t pos = 0;
    for (std::size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
        const std::size_t end = at + needle.size();
        if (end < text.size() && is_word_char(text[end])) continue;
        out.append(text.substr(pos, at - pos)).append("\\").append(replacement);
        pos = end;
    }
    out.append(text.substr(pos));
    return out;
}

struct MacroParameter {
    std::string name;
    std::size_t offset;  // in the .macro line
};

std::vector<MacroParameter> macro_parameters(const std::string& line, std::string* macro_name) {
    static const std::regex head(R"(^\s*\.macro\s+([A-Za-z_.$][\w.$]*)[\s,]*)");
    std::smatch m;
    if (!std::regex_search(line, m, head)) return {};
    *macro_name = m[1];
    std::vector<MacroParameter> params;
    std::size_t i = static_cast<std::size_t>(m.length(0));
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == ',')) ++i;
        if (i >= line.size() || line[i] == ';' || line[i] == '/') break;
        const std::size_t start = i;
        while (i < line.size() && is_word_char(line[i])) ++i;
        if (i == start) break;
        params.push_back({line.substr(start, i - start), start});
        // Skip a default value or qualifier up to the next separator.
        while (i < line.size() && line[i] != ',' && line[i] != ' ' && line[i] != '\t') ++i;
    }
    return params;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

bool is_symbol_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

bool is_symbol_char(char c) { return is_word_char(c) || c == '.' || c == '$'; }

// One line's "macro param" pairs: a line `<symbol> <args>` whose args hold `param=`.
void add_line_keyword_calls(std::string_view line, std::set<std::string>& out) {
    if (line.find('=') == std::string_view::npos) return;
    std::size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size() || !is_symbol_start(line[i])) return;
    const std::size_t name_start = i;
    while (i < line.size() && is_symbol_char(line[i])) ++i;
    const std::string_view name = line.substr(name_start, i - name_start);
    if (i >= line.size() || !is_space(line[i])) return;
    while (i < line.size() && is_space(line[i])) ++i;
    const std::string_view args = line.substr(i);
    // The whole line is the call: no line break inside its arguments.
    if (args.find_first_of("\r\n") != std::string_view::npos) return;
    for (std::size_t k = 0; k < args.size();) {
        if (!(std::isalpha(static_cast<unsigned char>(args[k])) || args[k] == '_')) {
            ++k;
            continue;
        }
        const std::size_t start = k;
        while (k < args.size() && is_word_char(args[k])) ++k;
        std::size_t after = k;
        while (after < args.size() && is_space(args[after])) ++after;
        if (after < args.size() && args[after] == '=') {
            out.insert(std::string(name) + " " + std::string(args.substr(start, k - start)));
            k = after + 1;
        }
    }
}

}  // namespace

void add_keyword_calls(std::string_view text, std::set<std::string>& keyword_calls) {
    // Lines as std::getline splits them.
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        add_line_keyword_calls(text.substr(start, end - start), keyword_calls);
        start = end + 1;
    }
}

std::string rename_shadowing_macro_parameters(std::string_view text, const std::set<std::string>& keyword_calls) {
    std::vector<std::string> lines;
    {
        std::string line;
        std::istringstream in{std::string(text)};
        while (std::getline(in, line)) lines.push_back(line);
    }
    bool altmacro = false;
    bool changed = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (starts_with_directive(lines[i], ".altmacro")) altmacro = true;
        if (starts_with_directive(lines[i], ".noaltmacro")) altmacro = false;
        if (altmacro || !starts_with_directive(lines[i], ".macro")) continue;
        std::string name;
        auto params = macro_parameters(lines[i], &name);
        std::size_t end = i + 1;
        while (end < lines.size() && !starts_with_directive(lines[end], ".endm")) ++end;
        std::string body;
        for (std::size_t j = i + 1; j < end; ++j) body += lines[j] + "\n";
        // Right to left, so the offsets of earlier parameters stay valid.
        for (auto it = params.rbegin(); it != params.rend(); ++it) {
            if (!has_bare_word(body, it->name) || keyword_calls.count(name + " " + it->name)) continue;
            const std::string renamed = "kdbgen_" + it->name;
            lines[i].replace(it->offset, it->name.size(), renamed);
            for (std::size_t j = i + 1; j < end; ++j) lines[j] = replace_reference(lines[j], it->name, renamed);
            changed = true;
        }
        i = end;
    }
    if (!changed) return std::string(text);
    std::string out;
    for (const auto& line : lines) out += line + "\n";
    if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

namespace {

struct CompatOverlay {
    std::string identity;                        // "" when no file needs a rewrite
    std::map<std::string, std::string> files;    // name -> rewritten text
    std::optional<fs::path> dir;
};

// The rewrite of source_dir's include files and where it is placed, made
// once per (source folder, work folder) in a process. Files already in the
// folder are compared with the rewrite byte for byte and replaced when they
// differ: an edited or planted file is never assembled in.
const CompatOverlay& compat_overlay(const fs::path& source_dir, const fs::path& work_dir) {
    static std::mutex mutex;
    static std::map<std::pair<fs::path, fs::path>, CompatOverlay> memo;
    std::lock_guard lock(mutex);
    const auto memo_key = std::make_pair(source_dir, work_dir);
    if (const auto it = memo.find(memo_key); it != memo.end()) return it->second;

    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(source_dir, ec)) {
        const auto ext = entry.path().extension();
        if (entry.is_regular_file(ec) && (ext == ".inc" || ext == ".s")) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    // "name param=" anywhere means a caller passes that parameter by keyword: leave it alone.
    std::set<std::string> keyword_calls;
    std::map<fs::path, std::string> texts;
    for (const auto& file : files) {
        const Bytes data = read_file(file);
        std::string text(data.data(), data.size());
        add_keyword_calls(text, keyword_calls);
        texts[file] = std::move(text);
    }
    CompatOverlay overlay;
    Sha256 identity;
    for (const auto& [file, text] : texts) {
        if (file.extension() != ".inc") continue;  // only included files can be overlaid
        std::string copy = rename_shadowing_macro_parameters(text, keyword_calls);
        if (copy == text) continue;
        identity.add(file.filename().string()).add(copy);
        overlay.files[file.filename().string()] = std::move(copy);
    }
    if (!overlay.files.empty()) {
        overlay.identity = identity.hex();
        const auto base = work_dir.empty() ? fs::temp_directory_path() / "kdbgen-toolchain" : work_dir;
        const auto dir = base / fmt::format("asm-compat-{}", overlay.identity.substr(0, 16));
        // Never written through a link: a linked folder would have its target's files rewritten.
        make_private_folder(dir, "toolchain work folder");
        for (const auto& [name, text] : overlay.files) {
            const auto path = dir / name;
            bool intact = false;
            try {
                intact = fs::is_regular_file(fs::symlink_status(path, ec)) && read_text_file(path) == text;
            } catch (const std::exception&) {
            }
            if (!intact) {
                fs::remove(path, ec);
                write_file_atomic(path, std::span<const char>(text.data(), text.size()));
            }
        }
        overlay.dir = dir;
    }
    return memo[memo_key] = std::move(overlay);
}

}  // namespace

std::optional<fs::path> assembler_compat_overlay(const fs::path& source_dir, const fs::path& work_dir) {
    return compat_overlay(source_dir, work_dir).dir;
}

std::string assembler_compat_identity(const fs::path& source_dir, const fs::path& work_dir) {
    return compat_overlay(source_dir, work_dir).identity;
}

}  // namespace kdbgen
