// What the tests of the HIP static implicit-GEMM solvers share (tests/unit/hip_implicit_gemm_*_test.cpp): the
// MIOpen tree named by KDBGEN_MIOPEN_SRC, the value of one -D option, the option blocks written down
// from MIOpen 3.3.0 (develop 2d1fd997), and the compile step of the PlannedKernelsCompile tests.
#pragma once

#include "kdbgen/compile.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/target.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace kdbgen::test::igemm {

// The MIOpen source tree of KDBGEN_MIOPEN_SRC, or nullptr when it is unset.
inline const char* tree_dir() { return ::kdbgen::test::miopen_src(); }

inline const MiopenTree& tree() {
    static const MiopenTree t = MiopenTree::open(tree_dir());
    return t;
}

// For tests that need no tree: the solvers read neither the tree nor the version.
inline MiopenVersion version() { return tree_dir() ? tree().version() : MiopenVersion{3, 3, 0}; }
inline const MiopenTree* tree_or_null() { return tree_dir() ? &tree() : nullptr; }

#define NEEDS_TREE() \
    if (!::kdbgen::test::igemm::tree_dir()) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree"

inline const Solver& solver(std::string_view name) {
    const Solver* s = find_solver(name);
    if (!s) throw std::runtime_error(std::string(name) + " is not registered");
    return *s;
}

// The tree's perf-db of a target, or nullptr where the tree has none (gfx908 and gfx90a: too large for the mirror).
inline std::unique_ptr<PerfDb> tree_perf_db(const Target& target) {
    const auto path = tree().perf_db(target);
    return path ? std::make_unique<PerfDb>(*path) : nullptr;
}

// The context a find-db problem is planned in: the tree, its version, the data-type block once.
inline SolverContext tree_context(const Target& target, const ConvView& view, const PerfDb* perf = nullptr) {
    return {target, tree().version(), data_type_options(view), perf, &tree()};
}

// The value of -D<name>= in an option string ("" when absent).
inline std::string define(const std::string& options, const std::string& name) {
    const std::string needle = " -D" + name + "=";
    const auto at = options.find(needle);
    if (at == std::string::npos) return "";
    const auto start = at + needle.size();
    return options.substr(start, options.find(' ', start) - start);
}

// GetDataTypeKernelParams (src/include/miopen/datatype.hpp:136-187) as SetupFloats appends it, with
// src/CMakeLists.txt:41-43's defaults: ctx.general_compile_options of an FP32, FP16 or BF16 problem.
inline const std::string kFp32Block =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0"
    " -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0"
    " -DMIOPEN_FP8_CLIPPING=1";
inline const std::string kFp16Block =
    " -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0"
    " -DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0"
    " -DMIOPEN_FP8_CLIPPING=1";
inline const std::string kBf16Block =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0"
    " -DMIOPEN_USE_BFP16=1 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0"
    " -DMIOPEN_FP8_CLIPPING=1";

// get_static_ck_common_compiler_flag (src/include/miopen/solver/implicitgemm_util.hpp:544-584): the
// atomic-add flag is 1 on gfx908 only (:465-468), buffer addressing on everywhere but gfx103x
// (WORKAROUND_MIOPEN_ISSUE_557), v_fmac on gfx103x only. kCkFlagsGfx9 is gfx900, gfx906 and gfx90a's.
inline const std::string kCkFlagsGfx9 =
    " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
    " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
    " -DCK_USE_AMD_V_FMAC_F32=0";
inline const std::string kCkFlagsGfx908 =
    " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=1 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
    " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=1"
    " -DCK_USE_AMD_V_FMAC_F32=0";
inline const std::string kCkFlagsGfx1030 =
    " --std=c++14 -DCK_USE_AMD_BUFFER_ATOMIC_FADD=0 -DCK_BLOCK_SYNC_LDS_WITHOUT_SYNC_VMEM=1"
    " -DCK_WORKAROUND_SWDEV_229564=1 -DCK_WORKAROUND_SWDEV_231101=1 -DCK_USE_AMD_BUFFER_ADDRESSING=0"
    " -DCK_USE_AMD_V_FMAC_F32=1";
// The xdlops solvers' flags before the common ones (MIOPEN_DEBUG_IMPLICIT_GEMM_XDLOPS_INLINE_ASM and
// _EMULATE unset).
inline const std::string kXdlopsFlags =
    " -DCK_USE_AMD_XDLOPS=1 -DCK_USE_AMD_XDLOPS_INLINE_ASM=0 -DCK_USE_AMD_XDLOPS_EMULATE=0";

// A PlannedKernelsCompile sample: its name (solver, or solver and shape) -> (find-db problem key, build).
using Samples = std::map<std::string, std::pair<std::string, KernelBuild>>;

struct CompileCount {
    std::size_t built = 0, failed = 0;
};

// Compiles every sample of one target, expects each to compile and prints a line per sample.
inline void compile_samples(const Compiler& compiler, const std::string& spec, const Samples& samples,
                            CompileCount& count) {
    for (const auto& [name, sample] : samples) {
        const auto& [key, build] = sample;
        const auto result = compiler.compile(build);
        ++count.built;
        if (!result.ok) ++count.failed;
        EXPECT_TRUE(result.ok) << name << " " << key << ": " << build.describe() << "\n" << result.log.substr(0, 3000);
        std::cout << spec << " " << name << " " << key << ": " << (result.ok ? "ok" : "FAILED") << " "
                  << result.seconds << " s\n";
    }
}

}  // namespace kdbgen::test::igemm
