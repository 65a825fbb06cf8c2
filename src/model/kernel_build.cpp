#include "kdbgen/kernel_build.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

namespace kdbgen {

std::string_view language_name(Language language) {
    switch (language) {
        case Language::OpenCL: return "OpenCL";
        case Language::Hip: return "HIP";
        case Language::Assembly: return "assembly";
    }
    return "?";
}

Language language_of(const fs::path& source) {
    const auto ext = source.extension().string();
    if (ext == ".cpp") return Language::Hip;
    if (ext == ".s") return Language::Assembly;
    if (ext == ".cl") return Language::OpenCL;
    throw InputError(fmt::format("{}: unknown kernel language (expected .cl, .cpp or .s)", source.string()));
}

std::string KernelBuild::describe() const {
    return fmt::format("{} for {} [{}]", kernel_file, target.spec(), options);
}

}  // namespace kdbgen
