#include "kdbgen/paths.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

namespace kdbgen {

fs::path executable_dir() {
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path data_path(std::string_view name) {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("KDBGEN_DATA_DIR"); env && *env) candidates.push_back(fs::path(env) / name);
    // Installed: <prefix>/bin/kdbgen and <prefix>/share/kdbgen. The build tree has the same
    // layout (cmake/KdbgenBuildTree.cmake), so no source path is compiled in.
    if (const auto dir = executable_dir(); !dir.empty())
        candidates.push_back(dir.parent_path() / "share" / "kdbgen" / name);
    // Resolved: the build tree's links name the source folders, as kdbgen reports them.
    std::error_code ec;
    for (const auto& candidate : candidates)
        if (fs::is_directory(candidate)) {
            const auto resolved = fs::canonical(candidate, ec);
            return ec ? candidate : resolved;
        }
    throw InputError(fmt::format("kdbgen data folder '{}' not found (set KDBGEN_DATA_DIR)", name));
}

}  // namespace kdbgen

namespace kdbgen {

namespace {

std::vector<std::string> split_parts(const fs::path& path) {
    std::vector<std::string> parts;
    for (const auto& p : path.relative_path()) parts.push_back(p.string());
    return parts;
}

// Walks `parts` below root; `inside` is the path so far as the root names it.
std::optional<fs::path> walk_in_root(const fs::path& root, std::vector<std::string> parts, bool follow_last) {
    std::vector<std::string> inside;
    unsigned links = 0;
    std::reverse(parts.begin(), parts.end());  // a stack: the next part at the back
    while (!parts.empty()) {
        std::string part = std::move(parts.back());
        parts.pop_back();
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            if (!inside.empty()) inside.pop_back();
            continue;
        }
        if (parts.empty() && !follow_last) {
            inside.push_back(part);
            break;
        }
        fs::path host = root;
        for (const auto& p : inside) host /= p;
        host /= part;
        std::error_code ec;
        const auto status = fs::symlink_status(host, ec);
        if (ec || !fs::exists(status)) return std::nullopt;
        if (fs::is_symlink(status)) {
            if (++links > 40) return std::nullopt;  // as the kernel's ELOOP
            const fs::path target = fs::read_symlink(host, ec);
            if (ec) return std::nullopt;
            if (target.is_absolute()) inside.clear();
            const auto more = split_parts(target);
            parts.insert(parts.end(), more.rbegin(), more.rend());
            continue;
        }
        inside.push_back(part);
    }
    fs::path host = root;
    for (const auto& p : inside) host /= p;
    return host;
}

}  // namespace

std::optional<fs::path> resolve_in_root(const fs::path& root, const fs::path& path) {
    return walk_in_root(root, split_parts(path), true);
}

std::optional<fs::path> resolve_parent_in_root(const fs::path& root, const fs::path& path) {
    return walk_in_root(root, split_parts(path), false);
}

}  // namespace kdbgen
