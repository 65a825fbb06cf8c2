// What MIOpen's log says of its kernel database, and keys that change from
// process to process (include/kdbgen/miopen_engine.hpp).
#include "kdbgen/miopen_engine.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace kdbgen {

namespace {

// "<name>; args: <args>" after the marker, as src/binary_cache.cpp:166-194 (MIOpen 3.3.0) writes it.
std::optional<KdbKey> key_after(std::string_view line, std::string_view marker) {
    const auto at = line.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = line.substr(at + marker.size());
    constexpr std::string_view separator = "; args: ";
    const auto split = rest.find(separator);
    if (split == std::string_view::npos) return std::nullopt;
    std::string_view args = rest.substr(split + separator.size());
    while (!args.empty() && (args.back() == '\r' || args.back() == '\n')) args.remove_suffix(1);
    // MIOpen 3.4 streams the name as a std::filesystem::path: in double quotes.
    std::string_view name = rest.substr(0, split);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    return KdbKey{std::string(name), std::string(args)};
}

// The key without its trailing " -mcpu=..." option: LoadProgram looks a kernel up
// with the target ID, then falls back on the processor's name (src/hip/handlehip.cpp:563-575).
std::pair<std::string, std::string> without_mcpu(const KdbKey& key) {
    const auto at = key.kernel_args.rfind(" -mcpu=");
    return {key.kernel_name, at == std::string::npos ? key.kernel_args : key.kernel_args.substr(0, at)};
}

std::vector<std::string_view> tokens(std::string_view text) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto end = std::min(text.find(' ', at), text.size());
        if (end > at) out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// "-DNAME=VALUE" -> NAME; empty for any other option.
std::string_view define_name(std::string_view token) {
    if (!token.starts_with("-D")) return {};
    const auto equals = token.find('=');
    return equals == std::string_view::npos ? std::string_view{} : token.substr(2, equals - 2);
}

// With MIOPEN_ENABLE_LOGGING_ELAPSED_TIME the prefix carries the milliseconds
// since MIOpen's previous log line ("MIOpen(HIP)   812.345: ...",
// src/logger.cpp:192-196, MIOpen 3.3.0). 0 without the prefix.
double elapsed_ms(std::string_view line) {
    if (!line.starts_with("MIOpen")) return 0;
    const auto close = line.find(')');
    const auto colon = line.find(':');
    if (close == std::string_view::npos || colon == std::string_view::npos || colon < close) return 0;
    const std::string number(line.substr(close + 1, colon - close - 1));
    char* end = nullptr;
    const double ms = std::strtod(number.c_str(), &end);
    return end == number.c_str() ? 0 : ms;
}

}  // namespace

bool read_miopen_log_line(std::string_view line, KernelLookups& lookups) {
    // Between a miss and its save MIOpen compiles; nothing it logs meanwhile takes time of its own.
    if (lookups.compiling) lookups.compiling_ms += elapsed_ms(line);
    if (auto key = key_after(line, "Loading binary for: ")) {
        lookups.asked.insert(std::move(*key));
        return true;
    }
    if (auto key = key_after(line, "Unable to load binary for: ")) {
        lookups.missed.insert(std::move(*key));
        if (!lookups.compiling) lookups.compiling_ms = 0;
        lookups.compiling = true;
        return true;
    }
    if (auto key = key_after(line, "Saving binary for: ")) {
        lookups.saved.insert(std::move(*key));
        lookups.compile_seconds += lookups.compiling_ms / 1000;
        lookups.compiling = false;
        return true;
    }
    if (key_after(line, "Successfully loaded binary for: ")) return true;
    // src/kernels/kernel.cpp.in:55 (MIOpen 3.3.0): MIOPEN_THROW("Failed to load kernel source: " + name).
    constexpr std::string_view no_source = "Failed to load kernel source: ";
    if (const auto at = line.find(no_source); at != std::string_view::npos) {
        std::string_view name = line.substr(at + no_source.size());
        while (!name.empty() && (name.back() == '\r' || name.back() == '\n' || name.back() == ' ')) name.remove_suffix(1);
        lookups.missing_sources.emplace(name);
    }
    // SQLite's words when MIOpen opens a kdb that is no database (src/sqlite_db.cpp logs them).
    for (const std::string_view refused : {"file is not a database", "database disk image is malformed",
                                           "malformed database schema"})
        if (line.find(refused) != std::string_view::npos) {
            if (lookups.kdb_unreadable.size() < 12) lookups.kdb_unreadable.emplace_back(line.substr(0, 2000));
            return true;
        }
    const bool error = line.find("Error") != std::string_view::npos || line.find("error:") != std::string_view::npos;
    if (!error) return false;
    if (lookups.errors.size() < 12)
        lookups.errors.push_back(line.size() > 2000 ? std::string(line.substr(0, 2000)) + " ..." : std::string(line));
    return true;
}

namespace {

// Missed keys no save of the same kernel followed, one per kernel; those whose
// source MIOpen lacks, or the others.
std::vector<KdbKey> never_built(const KernelLookups& lookups, bool source_missing) {
    std::set<std::pair<std::string, std::string>> built;
    for (const auto& key : lookups.saved) built.insert(without_mcpu(key));
    std::set<std::pair<std::string, std::string>> reported;
    std::vector<KdbKey> found;
    for (const auto& key : lookups.missed) {
        const auto base = without_mcpu(key);
        if (lookups.source_missing(key) != source_missing) continue;
        if (!built.count(base) && reported.insert(base).second) found.push_back(key);
    }
    return found;
}

}  // namespace

bool KernelLookups::source_missing(const KdbKey& key) const {
    // The key names the object ("X.s.o"), the error its source ("X.s").
    const std::string_view name = key.kernel_name;
    return missing_sources.count(std::string(name.ends_with(".o") ? name.substr(0, name.size() - 2) : name)) != 0;
}

std::vector<KdbKey> KernelLookups::failed_compiles() const { return never_built(*this, false); }
bool KernelLookups::missed_a_buildable_key() const {
    return std::any_of(missed.begin(), missed.end(), [&](const KdbKey& key) { return !source_missing(key); });
}
std::vector<KdbKey> KernelLookups::without_source() const { return never_built(*this, true); }

void KernelLookups::add(const KernelLookups& other) {
    asked.insert(other.asked.begin(), other.asked.end());
    missed.insert(other.missed.begin(), other.missed.end());
    saved.insert(other.saved.begin(), other.saved.end());
    compile_seconds += other.compile_seconds;
    missing_sources.insert(other.missing_sources.begin(), other.missing_sources.end());
    for (const auto& line : other.errors)
        if (errors.size() < 12) errors.push_back(line);
    for (const auto& line : other.kdb_unreadable)
        if (kdb_unreadable.size() < 12) kdb_unreadable.push_back(line);
}

std::optional<std::vector<std::string>> varying_defines(const KdbKey& a, const KdbKey& b) {
    if (a.kernel_name != b.kernel_name || a == b) return std::nullopt;
    const auto left = tokens(a.kernel_args), right = tokens(b.kernel_args);
    if (left.size() != right.size()) return std::nullopt;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < left.size(); ++i) {
        if (left[i] == right[i]) continue;
        const auto name = define_name(left[i]);
        if (name.empty() || name != define_name(right[i])) return std::nullopt;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    }
    return names;
}

bool UnstableKey::matches(const KdbKey& key) const {
    if (key.kernel_name != kernel_name) return false;
    // Each example is one problem's form of the kernel: the key is this kernel if it differs from one of
    // them in the varying defines' values only.
    return std::any_of(examples.begin(), examples.end(), [&](const std::string& example) {
        if (key.kernel_args == example) return true;
        const auto differing = kdbgen::varying_defines(KdbKey{kernel_name, example}, key);
        return differing && std::all_of(differing->begin(), differing->end(), [&](const std::string& name) {
                   return std::find(varying_defines.begin(), varying_defines.end(), name) != varying_defines.end();
               });
    });
}

}  // namespace kdbgen
