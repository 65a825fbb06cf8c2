// The MIOpen engine's cache between runs (include/kdbgen/engine_cache.hpp).
#include "kdbgen/engine_cache.hpp"

#include "kdbgen/cache_entry.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/engine_records.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>

namespace kdbgen {

namespace {

constexpr std::string_view kKernelKind = "engine-kernel";
constexpr std::string_view kProblemKind = "engine-problem";
// Bumped when the same library and problem would be stored differently.
constexpr std::string_view kEngineCacheRules = "kdbgen engine cache 2: handle per problem, settled lookups, unbuildable keys";

std::string key_digest(const KdbKey& key) {
    Sha256 hash;
    return hash.add(kEngineCacheRules).add(key.kernel_name).add(key.kernel_args).hex();
}

std::optional<std::string> read_entry(const fs::path& path, std::string_view kind, const std::string& key) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return std::nullopt;
    const Bytes data = read_file(path);
    std::string why;
    const auto payload = open_cache_entry(kind, key, std::string_view(data.data(), data.size()), &why);
    if (!payload) {
        report_refused_cache_entry(kind, path, why);
        return std::nullopt;
    }
    return std::string(*payload);
}

}  // namespace

EngineCache::EngineCache(const fs::path& cache_dir, std::string identity, std::string system_db_fingerprint)
    : dir_(cache_dir / "engine" / identity), identity_(std::move(identity)),
      db_fingerprint_(std::move(system_db_fingerprint)) {
    fs::create_directories(dir_);
}

// The identity is sealed into each entry with its digest: an entry found under
// another identity's folder (a CI cache restored under another name) is a miss.
std::string EngineCache::sealed_key(const std::string& digest) const { return identity_ + "/" + digest; }

fs::path EngineCache::kernel_dir(const Target& target) const { return dir_ / "kernels" / target.db_id(); }

fs::path EngineCache::problem_path(const Target& card, const std::string& line) const {
    Sha256 hash;
    const std::string digest = hash.add(kEngineCacheRules).add(db_fingerprint_).add(line).hex();
    return dir_ / "problems" / card.spec() / (digest + ".p");
}

std::map<KdbKey, Bytes> EngineCache::kernels(const Target& target) const {
    std::map<KdbKey, Bytes> kernels;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernel_dir(target), ec)) {
        if (entry.path().extension() != ".k") continue;
        const std::string digest = entry.path().stem().string();
        const auto payload = read_entry(entry.path(), kKernelKind, sealed_key(digest));
        if (!payload) continue;
        // name \n args \n code
        const auto first = payload->find('\n');
        const auto second = first == std::string::npos ? first : payload->find('\n', first + 1);
        if (second == std::string::npos) continue;
        KdbKey key{payload->substr(0, first), payload->substr(first + 1, second - first - 1)};
        if (key_digest(key) != digest) continue;
        Bytes code(payload->begin() + static_cast<std::ptrdiff_t>(second + 1), payload->end());
        // What goes into a kdb from here gets the checks a row MIOpen wrote gets.
        if (const auto fault = kernel_fault(key, code, target)) {
            report_refused_cache_entry(kKernelKind, entry.path(), *fault);
            continue;
        }
        kernels.emplace(std::move(key), std::move(code));
    }
    return kernels;
}

void EngineCache::store_kernel(const Target& target, const KdbKey& key, const Bytes& code) {
    const fs::path dir = kernel_dir(target);
    fs::create_directories(dir);
    const std::string digest = key_digest(key);
    write_cache_entry(dir / (digest + ".k"), kKernelKind, sealed_key(digest),
                      {key.kernel_name, "\n", key.kernel_args, "\n", std::string_view(code.data(), code.size())});
}

std::optional<EngineCache::Settled> EngineCache::problem(const Target& card, const std::string& line) const {
    const fs::path path = problem_path(card, line);
    const auto payload = read_entry(path, kProblemKind, sealed_key(path.stem().string()));
    if (!payload) return std::nullopt;
    // The line first (a digest collision is no hit), then "name \t args" per key found,
    // "!name \t args" per key no one can build, "#fail why" for a failure that repeats,
    // "#own cause" when that failure is MIOpen's own, "#cu-blind" when no process read the CU count
    // for anything but a db file's name, "#unstable \t name \t defines \t problem \t args" per key
    // built from values that change between processes.
    const auto lines = split(*payload, '\n');
    if (lines.empty() || lines.front() != line) return std::nullopt;
    Settled settled;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        std::string_view text = lines[i];
        if (text.empty()) continue;
        if (text.starts_with("#fail ")) {
            settled.failure = std::string(text.substr(6));
            continue;
        }
        if (text.starts_with("#own ")) {
            settled.miopen_own = std::string(text.substr(5));
            continue;
        }
        if (text == "#cu-blind") {
            settled.blind_to_cu = true;
            continue;
        }
        if (text.starts_with("#unstable\t")) {
            const auto fields = split(std::string(text.substr(10)), '\t');
            if (fields.size() != 4) return std::nullopt;
            UnstableKey key{fields[0], split(fields[1], ','), {fields[3]}, fields[2]};
            std::erase(key.varying_defines, std::string());
            settled.unstable.push_back(std::move(key));
            continue;
        }
        const bool unbuildable = text.front() == '!';
        if (unbuildable) text.remove_prefix(1);
        const auto tab = text.find('\t');
        if (tab == std::string_view::npos) return std::nullopt;
        (unbuildable ? settled.unbuildable : settled.asked)
            .push_back({std::string(text.substr(0, tab)), std::string(text.substr(tab + 1))});
    }
    return settled;
}

void EngineCache::store_problem(const Target& card, const std::string& line, const Settled& settled) {
    const fs::path path = problem_path(card, line);
    fs::create_directories(path.parent_path());
    std::string text = line + "\n";
    for (const auto& key : settled.asked) text += key.kernel_name + "\t" + key.kernel_args + "\n";
    for (const auto& key : settled.unbuildable) text += "!" + key.kernel_name + "\t" + key.kernel_args + "\n";
    if (!settled.failure.empty()) text += "#fail " + settled.failure + "\n";
    if (!settled.miopen_own.empty()) text += "#own " + settled.miopen_own + "\n";
    if (settled.blind_to_cu) text += "#cu-blind\n";
    for (const auto& key : settled.unstable)
        for (const auto& example : key.examples)
            text += fmt::format("#unstable\t{}\t{}\t{}\t{}\n", key.kernel_name, fmt::join(key.varying_defines, ","),
                                key.problem, example);
    write_cache_entry(path, kProblemKind, sealed_key(path.stem().string()), {text});
}

}  // namespace kdbgen
