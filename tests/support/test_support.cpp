#include "test_support.hpp"

#include "kdbgen/error.hpp"

#include <cstdlib>
#include <fstream>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

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

void write_manifest_with_a_broken_kernel(const fs::path& dir) {
    fs::create_directories(dir / "kernels");
    fs::copy_file(kernels_dir() / "kdbgen_fill.s", dir / "kernels" / "kdbgen_fill.s");
    fs::copy_file(source_dir() / "tests/data/broken.cl", dir / "kernels" / "broken.cl");
    std::ofstream(dir / "m.toml") << "[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"KdbgenFill\"]\noptions = [\"\"]\n"
                                     "[[kernel]]\nfile = \"broken.cl\"\nsymbols = [\"Broken\"]\noptions = [\"\"]\n";
}

const char* miopen_src() {
    const char* src = std::getenv("KDBGEN_MIOPEN_SRC");
    return src && *src ? src : nullptr;
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

int start_kdbgen(const std::vector<std::string>& args, const std::string& env_entry) {
    std::vector<std::string> argv{kdbgen_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    std::string entry = env_entry;
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        if (!entry.empty()) ::putenv(entry.data());
        ::execv(c[0], c.data());
        ::_exit(127);
    }
    return pid;
}

KernelBuild demo_build(const std::string& file, const std::string& options, const std::string& target,
                       std::vector<std::string> kernels) {
    KernelBuild build;
    build.source = kernels_dir() / file;
    build.kernel_file = file;
    build.options = options;
    build.target = parse_target(target);
    build.kernels = std::move(kernels);
    build.include_dirs = {kernels_dir() / "include"};
    return build;
}

std::vector<KernelBuild> one_of_each_language(const std::string& target) {
    return {demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1 -DMLO_GRP_SZ0=256", target,
                       {"KdbgenTensorOp", "KdbgenScaleTensor"}),
            demo_build("kdbgen_activation.cpp", "-DMIOPEN_USE_FP16=1 -DKDBGEN_ACTIVATION=1", target,
                       {"KdbgenActivationFwd"}),
            demo_build("kdbgen_fill.s", "-Wa,-defsym,KDBGEN_FILL_GROUP_SIZE=64", target, {"KdbgenFill"})};
}

const char* kdbgen_binary() {
    // KDBGEN_TEST_BINARY runs the CLI tests against another build (an older
    // kdbgen, to see a test fail before its fix).
    if (const char* env = std::getenv("KDBGEN_TEST_BINARY"); env && *env) return env;
    return KDBGEN_TEST_BINARY;
}

bool namespaces_available() {
    static const bool available =
        ::geteuid() == 0 || std::system("unshare --user --map-current-user --mount true > /dev/null 2>&1") == 0;
    return available;
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
