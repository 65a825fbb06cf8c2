// For the test libraries that try to write outside their sandbox (planting_miopen.cpp,
// escaping_miopen.cpp): the folder they aim at is named in the file <this library>.victim, which
// the test writes (a library's environment is kdbgen's to set, so it cannot come from there).
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <string>

namespace kdbgen_test {

inline std::string victim_folder() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&victim_folder), &info) || !info.dli_fname) return {};
    FILE* file = std::fopen((std::string(info.dli_fname) + ".victim").c_str(), "r");
    if (!file) return {};
    char line[4096] = {};
    const bool read = std::fgets(line, sizeof line, file) != nullptr;
    std::fclose(file);
    std::string path = read ? line : "";
    while (!path.empty() && path.back() == '\n') path.pop_back();
    return path;
}

}  // namespace kdbgen_test
