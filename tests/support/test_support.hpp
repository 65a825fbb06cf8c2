// Shared helpers for kdbgen's tests: scratch folders, the toolchain, and
// running the kdbgen binary.
#pragma once

#include "kdbgen/compile.hpp"

#include <functional>
#include <string>
#include <vector>

namespace kdbgen::test {

// A fresh folder under the system temp dir, removed on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    const fs::path& path() const { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

fs::path source_dir();
fs::path kernels_dir();
fs::path shared_db_dir();  // ../shared/miopen-db (real MIOpen find-db and perf-db files)
// The MIOpen source tree tests plan and build against: $KDBGEN_MIOPEN_SRC, or nullptr when unset
// or empty. The one place a test asks for it; a test that needs it lives in a suite named
// *WithTree or *MIOpenTree, which ctest labels miopen-tree (tests/CMakeLists.txt).
const char* miopen_src();
// The one way a test asks for the tree: declares `var` (the tree's folder) or skips the test.
#define KDBGEN_REQUIRE_MIOPEN_TREE(var)             \
    const char* var = ::kdbgen::test::miopen_src(); \
    if (!var) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree"

// dir/m.toml, a manifest of two kernels in dir/kernels: kdbgen_fill.s, which builds, and
// tests/data/broken.cl, which fails at line 4.
void write_manifest_with_a_broken_kernel(const fs::path& dir);

// The default toolchain, discovered once per test binary.
const Toolchain& toolchain();

// The kdbgen binary under test: $KDBGEN_TEST_BINARY, else the one built.
const char* kdbgen_binary();
// kdbgen-sandbox can run here: as root, or with unprivileged user namespaces.
bool namespaces_available();
// Runs the built kdbgen binary with these arguments.
ProcessResult run_kdbgen(const std::vector<std::string>& args);
// Starts it without waiting, output to /dev/null, with env_entry ("NAME=value")
// added to its environment; the caller signals and reaps the pid.
int start_kdbgen(const std::vector<std::string>& args, const std::string& env_entry = "");

// A build of one of the project's own kernels (kernels/).
KernelBuild demo_build(const std::string& file, const std::string& options, const std::string& target,
                       std::vector<std::string> kernels);
// OpenCL (with comgr's -mllvm options), HIP and assembly, in that order.
std::vector<KernelBuild> one_of_each_language(const std::string& target);

Bytes bytes_of(std::string_view text);

// The message of the InputError that action throws, or "no error".
std::string input_error_of(const std::function<void()>& action);

}  // namespace kdbgen::test
