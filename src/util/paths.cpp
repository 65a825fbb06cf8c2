#include "kdbgen/paths.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

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
