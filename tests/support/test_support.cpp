#include "test_support.hpp"

#include "kdbgen/error.hpp"

#include <cstdlib>
#include <stdexcept>

namespace kdbgen::test {

TempDir::TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kdbgen-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
}

fs::path source_dir() { return KDBGEN_TEST_SOURCE_DIR; }
fs::path kernels_dir() { return source_dir() / "kernels"; }
fs::path shared_db_dir() {
    if (const char* env = std::getenv("KDBGEN_SHARED_DB_DIR"); env && *env) return env;
    return fs::weakly_canonical(KDBGEN_TEST_SHARED_DB_DIR);
}

const Toolchain& toolchain() {
    static const TempDir work;
    static const Toolchain tc = [] {
        ToolchainOptions options;
        options.work_dir = work.path();
        return discover_toolchain(options);
    }();
    return tc;
}

const char* kdbgen_binary() {
    // KDBGEN_TEST_BINARY runs the CLI tests against another build (an older
    // kdbgen, to see a test fail before its fix).
    if (const char* env = std::getenv("KDBGEN_TEST_BINARY"); env && *env) return env;
    return KDBGEN_TEST_BINARY;
}

ProcessResult run_kdbgen(const std::vector<std::string>& args) {
    std::vector<std::string> argv{kdbgen_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
}

Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

std::string input_error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace kdbgen::test
