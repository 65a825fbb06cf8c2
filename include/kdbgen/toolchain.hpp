// The compiler kdbgen drives (clang, ld.lld, llvm-as of an LLVM with the AMDGPU backend)
// and the device libraries it links: found, checked and prepared once per run.
#pragma once

#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// The compiler kdbgen drives, and the device libraries it links.
struct Toolchain {
    fs::path llvm_root;        // holds bin/clang, bin/ld.lld, bin/llvm-as
    fs::path device_libs;      // ROCm device-library bitcode as given
    fs::path device_libs_overlay;  // device_libs plus synthesized oclc control libraries
    std::string clang_version; // first line of `clang --version`
    unsigned code_object_version = 5;
    std::vector<std::string> synthesized_libs;  // oclc_isa_version_*.bc kdbgen made
    fs::path work_dir;         // where overlays kdbgen derives are kept
    // A folder holding only rocrand/ (a link to rocRAND's headers), searched by HIP builds:
    // hiprtc finds them in the ROCm include folder; MIOpenSoftmaxAttn.cpp and the dropout
    // kernels include <rocrand/rocrand_xorwow.h>. Empty when no rocRAND headers are found.
    fs::path rocrand_overlay;
    fs::path rocrand_headers;  // the rocrand/ folder it links to
    // Keeps a private work folder (made with mkdtemp when no work_dir is given) alive
    // as long as a copy of the toolchain is; the last copy removes it.
    std::shared_ptr<const fs::path> owned_work_dir;

    fs::path clang() const { return llvm_root / "bin" / "clang"; }
    fs::path lld() const { return llvm_root / "bin" / "ld.lld"; }
    fs::path llvm_as() const { return llvm_root / "bin" / "llvm-as"; }
    // Everything about the toolchain that changes a code object: the compiler's
    // identity (its --version text, and size and time of clang, ld.lld, llvm-as),
    // the device libraries' contents and the synthesized libraries' contents.
    // Never a path kdbgen chose (cache or work folder), so keys survive a moved cache.
    std::string identity() const;
    std::string compiler_version_text;  // the whole `clang --version` output
};

struct ToolchainOptions {
    std::optional<fs::path> llvm_root;
    // Folder that holds rocrand/rocrand_xorwow.h (default: $KDBGEN_ROCRAND_INCLUDE, then
    // /opt/rocm/include, then /usr/include as Debian's librocrand-dev installs it).
    std::optional<fs::path> rocrand_include;
    std::optional<fs::path> device_libs;
    unsigned code_object_version = 5;
    // Where the device-library overlay is made. Empty: a private folder made
    // with mkdtemp, removed with the last copy of the toolchain.
    fs::path work_dir;
};

// Finds clang/lld (KDBGEN_LLVM_ROOT, --llvm-root, the configured default),
// checks they run, and prepares the device-library overlay. Throws InputError.
Toolchain discover_toolchain(const ToolchainOptions& options);
// Makes oclc_isa_version_<N>.bc for a target the device libraries lack.
// Returns false (and says why in *why) when it cannot.
bool ensure_isa_library(const Toolchain& toolchain, const Target& target, std::string* why);

// kdbgen's stand-in for the headers hiprtc provides without a HIP runtime.
fs::path hiprtc_include_dir();

}  // namespace kdbgen
