#include "common.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <csignal>
#include <iostream>
#include <set>
#include <unistd.h>

namespace kdbgen::cli {

std::atomic<bool> g_interrupted{false};

namespace {

std::atomic<bool> g_cooperative{false};

// Immediate (every phase but compiling): remove the registered temporaries
// and exit 130 at once. Cooperative (compiling): raise the flag; the workers
// stop their compilers and the command unwinds, removing its temporaries. A
// second signal while unwinding is immediate.
void on_interrupt(int) {
    const bool again = g_interrupted.exchange(true);
    if (g_cooperative.load() && !again) return;
    unlink_registered_temporaries();
    ::_exit(kExitInterrupted);
}

}  // namespace

void install_interrupt_handler() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

CooperativeInterrupts::CooperativeInterrupts() { g_cooperative.store(true); }
CooperativeInterrupts::~CooperativeInterrupts() { g_cooperative.store(false); }

void ToolchainFlags::add_to(CLI::App& app) {
    app.add_option("--llvm-root", llvm_root,
                   "LLVM install with clang, ld.lld, llvm-as and the AMDGPU backend (default: $KDBGEN_LLVM_ROOT or "
                   "/usr/lib/llvm-19; ROCm's is /opt/rocm/llvm)");
    app.add_option("--device-libs", device_libs,
                   "ROCm device-library bitcode folder (default: $KDBGEN_DEVICE_LIBS or Debian's rocm-device-libs)");
    app.add_option("--code-object-version", code_object_version,
                   "AMDGPU code object version (MIOpen with ROCm 6.2+ uses 5)")
        ->check(CLI::Range(4u, 6u));
    app.add_option("--in-process", in_process,
                   "compile with the Clang and lld libraries in kdbgen-compile-worker processes instead of a clang "
                   "process per kernel: auto (when a worker built from this toolchain's LLVM is installed), on, off; "
                   "the code objects are the same")
        ->check(CLI::IsMember({"auto", "on", "off"}));
}

InProcess ToolchainFlags::in_process_mode() const {
    return in_process == "on" ? InProcess::On : in_process == "off" ? InProcess::Off : InProcess::Auto;
}

Toolchain ToolchainFlags::discover(const fs::path& work_dir) const {
    ToolchainOptions options;
    if (!llvm_root.empty()) options.llvm_root = llvm_root;
    if (!device_libs.empty()) options.device_libs = device_libs;
    options.code_object_version = code_object_version;
    options.work_dir = work_dir;
    return discover_toolchain(options);
}

void CacheFlags::add_to(CLI::App& app) {
    app.add_option("--cache-dir", dir, "build cache folder (default: $KDBGEN_CACHE_DIR, $XDG_CACHE_HOME/kdbgen)");
    app.add_flag("--no-cache", disabled, "neither read nor write the build cache");
    app.add_option("--max-cache-size", max_size, "trim the cache to this size (e.g. 500M, 5G; 0: no limit)");
}

std::unique_ptr<BuildCache> CacheFlags::open() const {
    if (disabled) return nullptr;
    return std::make_unique<BuildCache>(dir.empty() ? BuildCache::default_dir() : fs::path(dir), parse_size(max_size));
}

void TargetFlags::add_to(CLI::App& app) {
    app.add_option("-t,--targets", list, "comma-separated targets, e.g. gfx1030_36,gfx90a:sramecc+:xnack-_110")
        ->each([this](const std::string&) { list_given = true; });
    app.add_option("--targets-file", file, "file with one target per line (configs/targets/*.txt)")
        ->each([this](const std::string&) { file_given = true; });
}

std::vector<Target> TargetFlags::resolve() const {
    std::vector<Target> targets;
    if (list_given && trim(list).empty())
        throw InputError(fmt::format("--targets '{}': no target given (write e.g. --targets gfx1030_36)", list));
    if (file_given && file.empty()) throw InputError("--targets-file '': no file given");
    if (!list.empty()) targets = parse_target_list(list);
    if (!file.empty()) {
        auto more = read_target_file(file);
        targets.insert(targets.end(), more.begin(), more.end());
    }
    if (targets.empty()) throw InputError("no targets: give --targets LIST or --targets-file FILE");
    std::set<std::string> names;
    for (const auto& target : targets)
        if (!names.insert(target.kdb_filename()).second)
            throw InputError(fmt::format("two targets would write the same kdb {} (MIOpen names kdbs by DbId and "
                                         "CUs only); give each once",
                                         target.kdb_filename()));
    return targets;
}

std::uint64_t parse_size(const std::string& text) {
    if (text.empty()) throw InputError("empty size");
    std::uint64_t multiplier = 1;
    std::string digits = text;
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
        case 'K': multiplier = 1ull << 10; digits.pop_back(); break;
        case 'M': multiplier = 1ull << 20; digits.pop_back(); break;
        case 'G': multiplier = 1ull << 30; digits.pop_back(); break;
        case 'T': multiplier = 1ull << 40; digits.pop_back(); break;
        default: break;
    }
    const auto value = parse_int(digits);
    if (!value || *value < 0) throw InputError(fmt::format("invalid size '{}' (write e.g. 500M or 5G)", text));
    std::uint64_t bytes = 0;
    // 16777216T wrapped to 0, which trim reads as "remove everything".
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(*value), multiplier, &bytes))
        throw InputError(fmt::format("size '{}' does not fit in 64 bits", text));
    return bytes;
}

// Text from input files need not be UTF-8 (a log with Latin-1 bytes): such
// bytes print as U+FFFD instead of failing the command (type_error.316).
void print_json(const nlohmann::json& value) {
    std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string json_text(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json target_json(const Target& target) {
    const auto feature = [](std::optional<bool> state) -> nlohmann::json {
        if (!state) return nullptr;
        return *state;
    };
    return {{"spec", target.spec()},
            {"processor", target.name()},
            {"compute_units", target.compute_units},
            {"db_id", target.db_id()},
            {"kdb", target.kdb_filename()},
            {"fallback_kdb", target.fallback_kdb_filename()},
            {"xnack", feature(target.miopen_xnack())},
            {"sramecc_miopen", feature(target.miopen_sramecc())},
            {"wave_size", target.processor->default_wave_size},
            {"xdlops", target.processor->xdlops},
            {"elf_mach", fmt::format("0x{:03x}", target.processor->elf_mach)},
            {"mcpu", std::string(target.name())}};
}

}  // namespace kdbgen::cli
