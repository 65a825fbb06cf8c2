// What kdbgen rewrites so that MIOpen's sources build with a newer LLVM than the one
// they were written for, and the identities that put the rewrites in the cache key
// (src/compile/asm_compat.cpp, src/compile/hip_compat.cpp).
#pragma once

#include "kdbgen/toolchain.hpp"
#include "kdbgen/util.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace kdbgen {

// A folder with rewritten copies of the assembly include files in source_dir
// that LLVM 15+ misreads under .altmacro (macro parameters that shadow bare
// words of their body; see src/compile/asm_compat.cpp), to be searched before
// source_dir; nullopt when no file needs it. Made once per run under work_dir.
std::optional<fs::path> assembler_compat_overlay(const fs::path& source_dir, const fs::path& work_dir);
// The rewrite: in macros defined with altmacro off, parameters that also
// occur as bare words are renamed kdbgen_<name> along with their \name
// references. keyword_calls lists "macro parameter" pairs passed by keyword,
// which are left alone.
std::string rename_shadowing_macro_parameters(std::string_view text, const std::set<std::string>& keyword_calls = {});
// Adds the "macro parameter" pairs of text's keyword calls: every line `<symbol> <args>`
// (symbol as the assembler spells macro names) whose args hold `parameter=`.
void add_keyword_calls(std::string_view text, std::set<std::string>& keyword_calls);
// Part of the cache key of assembly builds: bump when the rewrite changes.
inline constexpr std::string_view kAssemblerCompatVersion = "asm-compat-2";
// The SHA-256 of the overlay's files (names and contents) for source_dir, or
// "" when it needs none; part of the cache key of assembly builds.
std::string assembler_compat_identity(const fs::path& source_dir, const fs::path& work_dir);

// The folder of static_kernel_amd_buffer_addressing.hpp (MIOpen's static
// composable kernels) copied with its legacy llvm.amdgcn.buffer.* declarations
// mapped onto the raw buffer intrinsics Clang 19 still has (src/compile/hip_compat.cpp),
// to be searched instead of include_dir; nullopt when include_dir holds no such
// header. Made once per run under work_dir.
std::optional<fs::path> hip_compat_overlay(const fs::path& include_dir, const fs::path& work_dir);
// The rewrite of that header; nullopt when the text has no legacy declaration
// (or one of a form the rewrite does not know).
std::optional<std::string> rewrite_legacy_buffer_intrinsics(std::string_view text);
// Part of the cache key of HIP builds: bump when the rewrite changes.
inline constexpr std::string_view kHipCompatVersion = "hip-compat-1";
struct Toolchain;
// Whether the toolchain's LLVM still has the legacy llvm.amdgcn.buffer.* intrinsics
// (LLVM 18 and older, ROCm's LLVM of ROCm 6.2): then MIOpen's headers compile as they
// are and the overlay is not used, so that the code object is the one that LLVM makes
// of MIOpen's source. Probed once per compiler and process.
bool has_legacy_buffer_intrinsics(const Toolchain& toolchain);

}  // namespace kdbgen
