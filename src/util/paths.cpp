#include "kdbgen/paths.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <unistd.h>

namespace kdbgen {

namespace {

// The source tree keeps the hiprtc headers with the compile stage.
std::string_view source_relative(std::string_view name) {
    return name == "hiprtc" ? std::string_view("src/compile/hiprtc") : name;
}

}  // namespace

fs::path executable_dir() {
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path data_path(std::string_view name) {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("KDBGEN_DATA_DIR"); env && *env) candidates.push_back(fs::path(env) / name);
    if (const auto dir = executable_dir(); !dir.empty())
        candidates.push_back(dir.parent_path() / "share" / "kdbgen" / name);
#ifdef KDBGEN_SOURCE_DIR
    candidates.push_back(fs::path(KDBGEN_SOURCE_DIR) / source_relative(name));
#endif
    for (const auto& candidate : candidates)
        if (fs::is_directory(candidate)) return candidate;
    throw InputError(fmt::format("kdbgen data folder '{}' not found (set KDBGEN_DATA_DIR)", name));
}

}  // namespace kdbgen
