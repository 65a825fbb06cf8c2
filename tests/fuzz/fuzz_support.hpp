// libFuzzer targets over kdbgen's parsers (tools/fuzz builds and runs them).
// A parser may refuse any input with InputError (bad input, exit 2); anything
// else escaping, a crash or a sanitizer report is a finding.
#pragma once

#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unistd.h>

namespace kdbgen::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Parsers that read files get the input as one (per-process scratch file, rewritten per run).
// The folder goes at exit (libFuzzer ends a timed run with exit()); a crash leaves it.
inline fs::path scratch_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
    static const struct Folder {
        fs::path path = fs::temp_directory_path() / ("kdbgen-fuzz-" + std::to_string(::getpid()));
        ~Folder() {
            std::error_code ignored;
            fs::remove_all(path, ignored);
        }
    } folder;
    const fs::path path = folder.path / name;
    fs::create_directories(path.parent_path());
    write_file_atomic(path, std::span<const char>(reinterpret_cast<const char*>(data), size));
    return path;
}

template <typename F>
void refusing_bad_input(F&& parse) {
    try {
        parse();
    } catch (const InputError&) {
    }
}

}  // namespace kdbgen::fuzz
