#include "kdbgen/compile.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

#ifndef KDBGEN_DEFAULT_LLVM_ROOT
#define KDBGEN_DEFAULT_LLVM_ROOT "/usr/lib/llvm-19"
#endif
#ifndef KDBGEN_DEFAULT_DEVICE_LIBS
#define KDBGEN_DEFAULT_DEVICE_LIBS "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#endif

namespace kdbgen {

namespace {

std::optional<fs::path> env_path(const char* name) {
    const char* value = std::getenv(name);
    if (value && *value) return fs::path(value);
    return std::nullopt;
}

std::string isa_library_name(const Target& target) {
    // Named by the processor's digits (gfx90a -> 90a), holding the numeric ISA version.
    return fmt::format("oclc_isa_version_{}.bc", target.name().substr(3));
}

// Same text as the device libraries' own oclc_isa_version_*.bc hold (a
// single constant the ockl/ocml code branches on), so that a target newer
// than the packaged device libraries can still link them.
std::string isa_library_ir(unsigned isa_version) {
    return fmt::format(
        "target triple = \"amdgcn-amd-amdhsa\"\n"
        "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) "
        "constant i32 {}, align 4\n",
        isa_version);
}

std::mutex g_overlay_mutex;

}  // namespace

std::string Toolchain::identity() const {
    // The libraries as given, and the names of the ones kdbgen makes (their
    // content follows from the name and the LLVM version). Not the overlay
    // folder itself: concurrent processes may be filling it in.
    Sha256 libs;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(device_libs, ec))
        if (entry.path().extension() == ".bc") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        libs.add(file.filename().string());
        const Bytes data = read_file(file);
        libs.add(std::string_view(data.data(), data.size()));
    }
    for (const auto& name : synthesized_libs) libs.add("synthesized " + name);
    return fmt::format("{}|{}|cov{}|devlibs:{}", clang_version, fs::weakly_canonical(clang()).string(),
                       code_object_version, libs.hex());
}

bool ensure_isa_library(const Toolchain& toolchain, const Target& target, std::string* why) {
    const auto library = toolchain.device_libs_overlay / isa_library_name(target);
    std::lock_guard lock(g_overlay_mutex);
    std::error_code ec;
    if (fs::exists(library, ec)) return true;
    const auto text_path = toolchain.device_libs_overlay / fmt::format(".isa_{}.ll.{}", target.isa_version(), getpid());
    const std::string text = isa_library_ir(target.isa_version());
    write_file_atomic(text_path, std::span<const char>(text.data(), text.size()));
    const auto temp = fs::path(library.string() + fmt::format(".{}.tmp", getpid()));
    const auto run = run_process({toolchain.llvm_as().string(), text_path.string(), "-o", temp.string()});
    fs::remove(text_path, ec);
    if (run.exit_code != 0) {
        if (why) *why = fmt::format("llvm-as could not make {}: {}", library.string(), run.output);
        fs::remove(temp, ec);
        return false;
    }
    fs::rename(temp, library, ec);
    if (ec && !fs::exists(library)) {
        if (why) *why = fmt::format("cannot place {}: {}", library.string(), ec.message());
        return false;
    }
    return true;
}

Toolchain discover_toolchain(const ToolchainOptions& options) {
    Toolchain toolchain;
    toolchain.llvm_root = options.llvm_root.value_or(env_path("KDBGEN_LLVM_ROOT").value_or(KDBGEN_DEFAULT_LLVM_ROOT));
    toolchain.device_libs =
        options.device_libs.value_or(env_path("KDBGEN_DEVICE_LIBS").value_or(KDBGEN_DEFAULT_DEVICE_LIBS));
    toolchain.code_object_version = options.code_object_version;
    if (toolchain.code_object_version < 4 || toolchain.code_object_version > 6)
        throw InputError(fmt::format("code object version {} is not one of 4, 5, 6", toolchain.code_object_version));

    for (const auto& tool : {toolchain.clang(), toolchain.lld(), toolchain.llvm_as()}) {
        if (::access(tool.c_str(), X_OK) != 0)
            throw InputError(fmt::format(
                "{}: not found or not executable; install clang-19 lld-19 llvm-19 (Debian) or point "
                "--llvm-root / KDBGEN_LLVM_ROOT at an LLVM with the AMDGPU backend",
                tool.string()));
    }
    const auto version = run_process({toolchain.clang().string(), "--version"});
    if (version.exit_code != 0) throw InputError(fmt::format("{} --version failed: {}", toolchain.clang().string(), version.output));
    toolchain.clang_version = split(version.output, '\n').front();

    if (!fs::is_directory(toolchain.device_libs) || !fs::exists(toolchain.device_libs / "ocml.bc"))
        throw InputError(fmt::format(
            "{}: no ROCm device libraries (ocml.bc) here; install rocm-device-libs (Debian) or give "
            "--device-libs / KDBGEN_DEVICE_LIBS",
            toolchain.device_libs.string()));

    // The overlay: the given libraries by link, plus any oclc_isa_version
    // library kdbgen has to make. Named by what it holds, so concurrent runs
    // and shards share it safely.
    std::error_code ec;
    const auto base = options.work_dir.empty() ? fs::temp_directory_path() / "kdbgen-toolchain" : options.work_dir;
    const auto overlay = base / fmt::format("devlibs-{}", sha256_hex(std::span<const char>(
                                                               toolchain.device_libs.string().data(),
                                                               toolchain.device_libs.string().size())).substr(0, 16));
    fs::create_directories(overlay, ec);
    if (ec) throw InputError(fmt::format("{}: cannot create: {}", overlay.string(), ec.message()));
    for (const auto& entry : fs::directory_iterator(toolchain.device_libs, ec)) {
        if (entry.path().extension() != ".bc") continue;
        const auto link = overlay / entry.path().filename();
        if (!fs::exists(fs::symlink_status(link))) fs::create_symlink(fs::absolute(entry.path()), link, ec);
    }
    toolchain.device_libs_overlay = overlay;
    toolchain.work_dir = base;

    // rocRAND's headers through a folder of their own: adding /usr/include itself would
    // let host C headers shadow the hiprtc stand-in's.
    std::vector<fs::path> rocrand_candidates;
    if (options.rocrand_include) rocrand_candidates.push_back(*options.rocrand_include);
    if (const auto env = env_path("KDBGEN_ROCRAND_INCLUDE")) rocrand_candidates.push_back(*env);
    rocrand_candidates.insert(rocrand_candidates.end(), {"/opt/rocm/include", "/usr/include"});
    for (const auto& dir : rocrand_candidates) {
        if (!fs::exists(dir / "rocrand" / "rocrand_xorwow.h", ec)) continue;
        toolchain.rocrand_headers = fs::canonical(dir / "rocrand", ec);
        const auto rocrand = base / fmt::format("rocrand-{}", sha256_hex(std::span<const char>(
                                                                   toolchain.rocrand_headers.string().data(),
                                                                   toolchain.rocrand_headers.string().size()))
                                                                   .substr(0, 16));
        fs::create_directories(rocrand, ec);
        if (!fs::exists(fs::symlink_status(rocrand / "rocrand"))) fs::create_directory_symlink(toolchain.rocrand_headers, rocrand / "rocrand", ec);
        toolchain.rocrand_overlay = rocrand;
        break;
    }
    for (const auto& processor : processor_table()) {
        Target target;
        target.processor = &processor;
        if (fs::exists(toolchain.device_libs / isa_library_name(target))) continue;
        // Listed whether or not making it works now: compile() reports a failure per kernel.
        toolchain.synthesized_libs.push_back(isa_library_name(target));
        std::string why;
        ensure_isa_library(toolchain, target, &why);
    }
    return toolchain;
}

}  // namespace kdbgen
