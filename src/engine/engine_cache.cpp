// The MIOpen engine's cache between runs (include/kdbgen/engine_cache.hpp).
#include "kdbgen/engine_cache.hpp"

#include "kdbgen/cache_entry.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

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

// A file's bytes into the digest in pieces: a library is tens of megabytes, a
// compiler a hundred.
void add_file(Sha256& hash, const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(located(path.string(), 0, "cannot read it"));
    std::string chunk(1 << 20, '\0');
    Sha256 file;
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
        file.add(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
        if (in.eof()) break;
    }
    hash.add(path.filename().string()).add(file.hex());
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

std::string engine_identity(const EngineSetup& setup) {
    Sha256 hash;
    hash.add(kEngineCacheRules);
    const auto library = resolve_in_root(setup.root, setup.library);
    if (!library) throw InputError(located(setup.library.string(), 0, "no MIOpen library there"));
    add_file(hash, *library);
    std::error_code ec;
    std::vector<fs::path> beside;
    for (const auto& entry : fs::directory_iterator(library->parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if ((name.starts_with("libamd_comgr.so.") || name.starts_with("libhiprtc.so.") ||
             name.starts_with("libhiprtc-builtins.so.")) &&
            fs::is_regular_file(entry.path(), ec))
            beside.push_back(entry.path());
    }
    std::sort(beside.begin(), beside.end());
    for (const auto& path : beside) add_file(hash, path);
    const auto wrappers = setup.compilers ? *setup.compilers : plan_compiler_wrappers(setup);
    for (const auto& wrapper : wrappers) {
        hash.add(wrapper.path).add(wrapper.script);
        if (const auto real = resolve_in_root(setup.root, wrapper.real)) add_file(hash, *real);
    }
    if (const auto status = resolve_in_root(setup.root, "/var/lib/dpkg/status")) add_file(hash, *status);
    return hash.hex().substr(0, 32);
}

std::string system_db_fingerprint(const std::optional<fs::path>& folder) {
    Sha256 hash;
    hash.add("system db");
    if (!folder) return hash.hex();
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(*folder, ec))
        if (entry.path().extension() != ".kdb" && entry.is_regular_file(ec)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) add_file(hash, file);
    return hash.hex();
}

EngineCache::EngineCache(const fs::path& cache_dir, std::string identity, std::string system_db_fingerprint)
    : dir_(cache_dir / "engine" / identity), db_fingerprint_(std::move(system_db_fingerprint)) {
    fs::create_directories(dir_);
}

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
        const auto payload = read_entry(entry.path(), kKernelKind, digest);
        if (!payload) continue;
        // name \n args \n code
        const auto first = payload->find('\n');
        const auto second = first == std::string::npos ? first : payload->find('\n', first + 1);
        if (second == std::string::npos) continue;
        KdbKey key{payload->substr(0, first), payload->substr(first + 1, second - first - 1)};
        if (key_digest(key) != digest) continue;
        kernels.emplace(std::move(key), Bytes(payload->begin() + static_cast<std::ptrdiff_t>(second + 1), payload->end()));
    }
    return kernels;
}

void EngineCache::store_kernel(const Target& target, const KdbKey& key, const Bytes& code) {
    const fs::path dir = kernel_dir(target);
    fs::create_directories(dir);
    const std::string digest = key_digest(key);
    write_cache_entry(dir / (digest + ".k"), kKernelKind, digest,
                      {key.kernel_name, "\n", key.kernel_args, "\n", std::string_view(code.data(), code.size())});
}

std::optional<EngineCache::Settled> EngineCache::problem(const Target& card, const std::string& line) const {
    const fs::path path = problem_path(card, line);
    const auto payload = read_entry(path, kProblemKind, path.stem().string());
    if (!payload) return std::nullopt;
    // The line first (a digest collision is no hit), then "name \t args" per key found,
    // "!name \t args" per key no one can build, "#fail why" for a failure that repeats.
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
    write_cache_entry(path, kProblemKind, path.stem().string(), {text});
}

}  // namespace kdbgen
