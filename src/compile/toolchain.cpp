#include "kdbgen/cache_entry.hpp"
#include "kdbgen/compile.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sys/stat.h>
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
    // source_filename fixed: else llvm-as records the (work folder) path of
    // the text file, and the library's bytes, so the cache key, would
    // depend on where the cache is.
    return fmt::format(
        "source_filename = \"oclc_isa_version\"\n"
        "target triple = \"amdgcn-amd-amdhsa\"\n"
        "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) "
        "constant i32 {}, align 4\n",
        isa_version);
}

std::mutex g_overlay_mutex;
std::map<fs::path, std::string> g_verified_libraries;  // checked in this process: path -> size:time

std::string file_sha256(const fs::path& path) {
    const Bytes data = read_file(path);
    return sha256_hex(data);
}

fs::path digest_path_of(const fs::path& library) {
    return library.parent_path() / ("." + library.filename().string() + ".sha256");
}

std::string tool_identity(const fs::path& tool);

// A synthesized library is reused only when its bytes still have the digest
// recorded when kdbgen made it, in an entry sealed under the generator (the IR
// text and llvm-as): a truncated, edited or linked file is made again.
std::string generator_key(const Toolchain& toolchain, const std::string& ir_text) {
    return Sha256().add("oclc_isa_version generator").add(ir_text).add(tool_identity(toolchain.llvm_as())).hex();
}

bool library_intact(const fs::path& library, const std::string& generator) {
    std::error_code ec;
    const auto digest = digest_path_of(library);
    if (!fs::is_regular_file(fs::symlink_status(library, ec)) || !fs::is_regular_file(fs::symlink_status(digest, ec)))
        return false;
    try {
        const Bytes stored = read_file(digest);
        const auto recorded =
            open_cache_entry("synthesized-device-library", generator, std::string_view(stored.data(), stored.size()));
        return recorded && *recorded == file_sha256(library);
    } catch (const std::exception&) {
        return false;
    }
}

// A folder kdbgen keeps derived files in must be a real folder of this user,
// writable by no one else: files planted by others are never compiled in.
std::string tool_identity(const fs::path& tool) {
    std::error_code ec;
    const auto real = fs::canonical(tool, ec);
    struct stat st {};
    if (ec || ::stat(real.c_str(), &st) != 0) return tool.string();
    return fmt::format("{}:{}:{}.{}", real.string(), st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

}  // namespace

std::string Toolchain::identity() const {
    // The libraries as given, and the contents of the ones kdbgen made (each
    // is placed by rename, so a reader never sees half of one).
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
    for (const auto& name : synthesized_libs) {
        libs.add("synthesized " + name);
        std::error_code exists_ec;
        const auto path = device_libs_overlay / name;
        if (fs::is_regular_file(path, exists_ec)) libs.add(file_sha256(path));
    }
    Sha256 tools;
    tools.add(compiler_version_text.empty() ? clang_version : compiler_version_text);
    for (const auto& tool : {clang(), lld(), llvm_as()}) tools.add(tool_identity(tool));
    return fmt::format("{}|tools:{}|cov{}|devlibs:{}", clang_version, tools.hex(), code_object_version, libs.hex());
}

bool ensure_isa_library(const Toolchain& toolchain, const Target& target, std::string* why) {
    const auto library = toolchain.device_libs_overlay / isa_library_name(target);
    std::lock_guard lock(g_overlay_mutex);
    std::error_code ec;
    // Verified once per process while its size and time stay as they were.
    const auto stamp = [&]() -> std::string {
        std::error_code stamp_ec;
        const auto size = fs::file_size(library, stamp_ec);
        const auto time = fs::last_write_time(library, stamp_ec);
        return stamp_ec ? std::string() : fmt::format("{}:{}", size, time.time_since_epoch().count());
    };
    if (const auto it = g_verified_libraries.find(library); it != g_verified_libraries.end() && it->second == stamp())
        return true;
    const std::string text = isa_library_ir(target.isa_version());
    const std::string generator = generator_key(toolchain, text);
    if (fs::exists(library, ec) && library_intact(library, generator)) {
        g_verified_libraries[library] = stamp();
        return true;
    }
    // Not there, or not what kdbgen made (a link included): made again.
    if (fs::is_symlink(fs::symlink_status(library, ec))) fs::remove(library, ec);
    const auto text_path = toolchain.device_libs_overlay / fmt::format(".isa_{}.ll.{}", target.isa_version(), getpid());
    write_file_atomic(text_path, std::span<const char>(text.data(), text.size()));
    const auto temp = fs::path(library.string() + fmt::format(".{}.tmp", getpid()));
    const auto run = run_process({toolchain.llvm_as().string(), text_path.string(), "-o", temp.string()});
    fs::remove(text_path, ec);
    if (run.exit_code != 0) {
        if (why) *why = fmt::format("llvm-as could not make {}: {}", library.string(), run.output);
        fs::remove(temp, ec);
        return false;
    }
    std::string digest;
    try {
        digest = file_sha256(temp);
        write_file_atomic(digest_path_of(library), seal_cache_entry("synthesized-device-library", generator, digest));
    } catch (const std::exception& e) {
        if (why) *why = fmt::format("cannot record the hash of {}: {}", library.string(), e.what());
        fs::remove(temp, ec);
        return false;
    }
    fs::rename(temp, library, ec);
    if (ec) {
        if (why) *why = fmt::format("cannot place {}: {}", library.string(), ec.message());
        fs::remove(temp, ec);
        return false;
    }
    g_verified_libraries[library] = stamp();
    return true;
}

namespace {

// dst as a regular file with src's bytes: kept when it already is one, else
// written again (a link at dst is removed, never written through).
void mirror_file(const fs::path& src, const fs::path& dst) {
    std::error_code ec;
    const Bytes wanted = read_file(src);
    if (fs::is_regular_file(fs::symlink_status(dst, ec)) && fs::file_size(dst, ec) == wanted.size() && read_file(dst) == wanted)
        return;
    fs::remove(dst, ec);
    write_file_atomic(dst, wanted);
}

}  // namespace

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
    toolchain.compiler_version_text = version.output;

    if (!fs::is_directory(toolchain.device_libs) || !fs::exists(toolchain.device_libs / "ocml.bc"))
        throw InputError(fmt::format(
            "{}: no ROCm device libraries (ocml.bc) here; install rocm-device-libs (Debian) or give "
            "--device-libs / KDBGEN_DEVICE_LIBS",
            toolchain.device_libs.string()));

    // The overlay: the given libraries by link, plus any oclc_isa_version
    // library kdbgen has to make. Named by what it holds, so concurrent runs
    // and shards share it safely.
    // With no work folder given (--no-cache) the overlay lives in a folder of
    // this process made by mkdtemp (mode 0700), never a fixed name in the
    // shared temp folder another user could plant files in.
    std::error_code ec;
    fs::path base = options.work_dir;
    if (base.empty()) {
        base = make_scratch_folder("toolchain");
        const int slot = register_temporary_folder(base);  // an interrupt removes it too
        toolchain.owned_work_dir = std::shared_ptr<const fs::path>(new fs::path(base), [slot](const fs::path* p) {
            std::error_code ignored;
            fs::remove_all(*p, ignored);
            unregister_temporary(slot);
            delete p;
        });
    }
    make_private_folder(base, "toolchain work folder");
    const auto overlay = base / fmt::format("devlibs-{}", sha256_hex(std::span<const char>(
                                                               toolchain.device_libs.string().data(),
                                                               toolchain.device_libs.string().size())).substr(0, 16));
    make_private_folder(overlay, "toolchain work folder");
    // Copies, not links: the work folder is usually the cache, which holds only
    // its own files, so nothing written there can reach a system library.
    for (const auto& entry : fs::directory_iterator(toolchain.device_libs, ec)) {
        if (entry.path().extension() != ".bc") continue;
        mirror_file(entry.path(), overlay / entry.path().filename());
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
        make_private_folder(rocrand, "toolchain work folder");
        if (fs::is_symlink(fs::symlink_status(rocrand / "rocrand", ec))) fs::remove(rocrand / "rocrand", ec);  // kdbgen 0.x
        make_private_folder(rocrand / "rocrand", "toolchain work folder");
        for (const auto& header : fs::directory_iterator(toolchain.rocrand_headers, ec))
            if (header.is_regular_file(ec)) mirror_file(header.path(), rocrand / "rocrand" / header.path().filename());
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
