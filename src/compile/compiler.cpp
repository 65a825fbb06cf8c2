#include "kdbgen/cleanup.hpp"
#include "kdbgen/compile.hpp"

#include "kdbgen/cache.hpp"
#include "kdbgen/codeobject.hpp"
#include "kdbgen/compile_worker.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <unistd.h>

namespace kdbgen {

namespace {

// Version of the cache key layout; bump when the commands below change.
constexpr std::string_view kCacheSchema = "kdbgen-cache-v1";

// HIP_PACKAGE_VERSION_FLAT of the HIP MIOpen 3.3 ships with (ROCm 6.3.0,
// HIP 6.3.42131); only conditional code in MIOpen's kernels reads it.
constexpr std::string_view kHipPackageVersionFlat = "6003042131";

std::vector<std::string> without_mcpu(std::vector<std::string> options) {
    // RemoveOptionsUnwanted (src/comgr.cpp:156,185,718): -mcpu is the caller's.
    options.erase(std::remove_if(options.begin(), options.end(),
                                 [](const std::string& o) { return o.starts_with("-mcpu="); }),
                  options.end());
    return options;
}

bool has_option(const std::vector<std::string>& options, std::string_view option) {
    return std::find(options.begin(), options.end(), option) != options.end();
}

// comgr's AddCompilerOptions for OpenCL, src/comgr.cpp:163-186 (MIOpen 3.3.0).
void add_opencl_options(std::vector<std::string>& args) {
    for (const char* option : {"-cl-std=CL2.0", "-cl-kernel-arg-info", "-D__IMAGE_SUPPORT__=1",
                               "-D__OPENCL_VERSION__=200", "-mllvm", "-amdgpu-early-inline-all", "-mllvm",
                               "-amdgpu-prelink", "-O3", "-mllvm", "-amdgpu-internalize-symbols"})
        args.emplace_back(option);
}

// hiprtc BuildHip, src/comgr.cpp:940-980 (MIOpen 3.3.0, HIP >= 6.2).
void add_hiprtc_options(std::vector<std::string>& args, const Target& target) {
    args.emplace_back("-D__HIP_PLATFORM_AMD__=1");
    if (target.name().starts_with("gfx908")) args.emplace_back("-DCK_AMD_BUFFER_ATOMIC_FADD_RETURNS_FLOAT=1");
    args.push_back(fmt::format("-DHIP_PACKAGE_VERSION_FLAT={}", kHipPackageVersionFlat));
    args.emplace_back("-DMIOPEN_DONT_USE_HIP_RUNTIME_HEADERS");
    // WORKAROUND_ISSUE_1431: HIP precompiled headers fix warpSize at 64.
    if ((target.name().starts_with("gfx10") || target.name().starts_with("gfx11")) &&
        !has_option(args, "-mwavefrontsize64"))
        args.emplace_back("-DWORKAROUND_ISSUE_1431=1");
    for (const char* option : {"-Wno-newline-eof", "-Wno-reserved-identifier", "-Wno-old-style-cast",
                               "-Wno-extra-semi-stmt", "-Wno-gnu-line-marker", "-Wno-pass-failed",
                               "-Wno-cuda-compat", "-fno-gpu-rdc", "-O3", "-fno-offload-uniform-block"})
        args.emplace_back(option);
    if (std::none_of(args.begin(), args.end(),
                     [](const std::string& s) { return s.starts_with("-std=") || s.starts_with("--std="); }))
        args.emplace_back("-std=c++17");
}

// hip_compat_of: the toolchain of a HIP build whose LLVM lacks the legacy buffer intrinsics.
void add_includes(std::vector<std::string>& args, const KernelBuild& build, const Toolchain* hip_compat_of = nullptr) {
    args.push_back("-I" + build.source.parent_path().string());
    for (const auto& dir : build.include_dirs) {
        // The folder with the legacy buffer intrinsics is searched as its compat copy.
        const auto overlay = hip_compat_of ? hip_compat_overlay(dir, hip_compat_of->work_dir) : std::nullopt;
        args.push_back("-I" + (overlay ? *overlay : dir).string());
    }
}

// Hash of every file under the folders a kernel can include from. Coarse on
// purpose: a change anywhere there rebuilds its kernels, which is always
// correct, and one hash per folder per run is cheap.
std::string include_tree_hash(const fs::path& dir) {
    static std::mutex mutex;
    static std::map<fs::path, std::string> memo;
    std::lock_guard lock(mutex);
    if (const auto it = memo.find(dir); it != memo.end()) return it->second;
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    Sha256 hash;
    for (const auto& file : files) {
        const auto ext = file.extension().string();
        if (ext == ".bz2" || ext == ".db" || ext == ".txt" || ext == ".md") continue;  // never included
        hash.add(fs::relative(file, dir).string());
        const Bytes data = read_file(file);
        hash.add(std::string_view(data.data(), data.size()));
    }
    return memo[dir] = hash.hex();
}

class ScratchDir {
public:
    ScratchDir() {
        path_ = make_scratch_folder("compile");  // a later run removes it if kdbgen is killed
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

}  // namespace


fs::path hiprtc_include_dir() {
    // Once per process: every HIP compile names it (data_path searches the file system).
    static const fs::path dir = data_path("hiprtc") / "include";
    return dir;
}

Compiler::Compiler(Toolchain toolchain, BuildCache* cache, InProcess in_process)
    : toolchain_(std::move(toolchain)), identity_(toolchain_.identity()), cache_(cache) {
    if (in_process == InProcess::Off) return;
    const auto worker = compile_worker_path();
    try {
        if (!worker)
            throw InputError(fmt::format("no {} (kdbgen was built without libclang-19-dev and liblld-19-dev; "
                                         "set KDBGEN_COMPILE_WORKER to one)",
                                         worker_protocol::kWorkerName));
        workers_ = std::make_shared<WorkerPool>(*worker, toolchain_);
    } catch (const InputError& e) {
        if (in_process == InProcess::On) throw InputError(fmt::format("in-process compilation: {}", e.what()));
        not_in_process_reason_ = e.what();
    }
}

InProcessStats Compiler::in_process_stats() const { return workers_ ? workers_->stats() : InProcessStats{}; }

void Compiler::stop_workers() const {
    if (workers_) workers_->stop_idle();
}

std::vector<std::vector<std::string>> Compiler::commands(const KernelBuild& build, const fs::path& output,
                                                         const fs::path& scratch) const {
    const auto& tc = toolchain_;
    const auto options = without_mcpu(split_spaces(build.options));
    const std::string cov = fmt::format("-mcode-object-version={}", tc.code_object_version);
    std::vector<std::string> args{tc.clang().string()};
    switch (build.language()) {
        case Language::OpenCL: {
            args.insert(args.end(), {"-x", "cl", "-target", "amdgcn-amd-amdhsa",
                                     "-mcpu=" + build.target.ocl_target_id(), cov,
                                     "--rocm-device-lib-path=" + tc.device_libs_overlay.string()});
            args.insert(args.end(), options.begin(), options.end());
            args.emplace_back("-Wno-everything");
            add_opencl_options(args);
            add_includes(args, build);
            args.insert(args.end(), {build.source.string(), "-o", output.string()});
            return {args};
        }
        case Language::Hip: {
            args.insert(args.end(), {"-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output",
                                     "--offload-arch=" + build.target.hip_target_id(), cov,
                                     "--rocm-device-lib-path=" + tc.device_libs_overlay.string(),
                                     "-D__HIPCC_RTC__",
                                     // Clang names a __hip_cuid_<hash> symbol after the
                                     // (scratch) output path; without it objects are reproducible.
                                     "-fuse-cuid=none"});
            // hiprtc supplies its runtime declarations itself; so does kdbgen.
            if (!tc.rocrand_overlay.empty()) args.insert(args.end(), {"-isystem", tc.rocrand_overlay.string()});
            args.insert(args.end(), {"-nogpuinc", "-isystem", hiprtc_include_dir().string(), "-include",
                                     "__clang_hip_runtime_wrapper.h", "-include", "kdbgen_hiprtc_builtins.h"});
            args.insert(args.end(), options.begin(), options.end());
            args.emplace_back("-Wno-everything");
            add_hiprtc_options(args, build.target);
            add_includes(args, build, has_legacy_buffer_intrinsics(tc) ? nullptr : &tc);
            args.insert(args.end(), {build.source.string(), "-o", output.string()});
            return {args};
        }
        case Language::Assembly: {
            const auto object = scratch / "kernel.o";
            args.insert(args.end(), {"-x", "assembler", "-target", "amdgcn-amd-amdhsa",
                                     "-mcpu=" + build.target.asm_target_id(), cov});
            args.insert(args.end(), options.begin(), options.end());
            // comgr BuildAsm adds -mno-xnack when xnack is off (WORKAROUND_ISSUE_3001,
            // src/comgr.cpp:666-669). Upstream Clang dropped that flag; the same
            // request is the ":xnack-" of the target ID above.
            if (const auto overlay = assembler_compat_overlay(build.source.parent_path(), tc.work_dir))
                args.push_back("-I" + overlay->string());
            add_includes(args, build);
            args.insert(args.end(), {"-c", build.source.string(), "-o", object.string()});
            return {args, {tc.lld().string(), "-shared", object.string(), "-o", output.string()}};
        }
    }
    return {};
}

std::string Compiler::cache_key(const KernelBuild& build) const {
    Sha256 key;
    key.add(kCacheSchema).add(identity_).add(language_name(build.language()));
    key.add(build.target.reported_target_id()).add(build.options).add(build.kernel_file);
    // The command without the folders kdbgen chose (the device-library
    // overlay and rocRAND link folder live under the cache or a private temp
    // folder): their contents are in identity_ and below, so a cache reached
    // through another spelling of its path, or moved, still hits.
    const auto argv = commands(build, "OUT", "SCRATCH");
    const auto unplaced = [&](std::string arg) {
        for (const auto& [dir, name] : {std::pair{toolchain_.device_libs_overlay.string(), "{DEVLIBS}"},
                                        std::pair{toolchain_.rocrand_overlay.string(), "{ROCRAND}"}}) {
            if (dir.empty()) continue;
            for (auto at = arg.find(dir); at != std::string::npos; at = arg.find(dir, at + 1)) arg.replace(at, dir.size(), name);
        }
        return arg;
    };
    for (const auto& arg : argv.front())
        if (!arg.starts_with("-I") && !arg.ends_with(build.source.filename().string())) key.add(unplaced(arg));
    const Bytes source = read_file(build.source);
    key.add(std::string_view(source.data(), source.size()));
    key.add(include_tree_hash(build.source.parent_path()));
    for (const auto& dir : build.include_dirs) key.add(include_tree_hash(dir));
    if (build.language() == Language::Hip) {
        key.add(include_tree_hash(hiprtc_include_dir()));
        key.add(kHipCompatVersion);
        if (!toolchain_.rocrand_headers.empty()) key.add(include_tree_hash(toolchain_.rocrand_headers));
    }
    if (build.language() == Language::Assembly)
        key.add(kAssemblerCompatVersion).add(assembler_compat_identity(build.source.parent_path(), toolchain_.work_dir));
    return key.hex();
}

CompileResult Compiler::compile(const KernelBuild& build, const std::atomic<bool>* cancel) const {
    const auto start = std::chrono::steady_clock::now();
    CompileResult result;
    const auto finish = [&]() {
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return result;
    };
    std::string key;
    try {
        if (!fs::is_regular_file(build.source)) {
            result.log = fmt::format("{}: kernel source not found", build.source.string());
            return finish();
        }
        std::string why;
        if (build.language() != Language::Assembly && !ensure_isa_library(toolchain_, build.target, &why)) {
            result.log = fmt::format("{} cannot be built: {}", build.target.name(), why);
            return finish();
        }
        if (cache_) {
            key = cache_key(build);
            if (auto cached = cache_->load(key)) {
                const auto faults = check_code_object(*cached, build.target, build.kernels);
                if (faults.empty()) {
                    result.ok = true;
                    result.cache_hit = true;
                    result.code = std::move(*cached);
                    return finish();
                }
            }
        }
        const ScratchDir scratch;
        const auto output = scratch.path() / "kernel.co";
        std::vector<std::string> lines;
        for (const auto& argv : commands(build, output, scratch.path())) {
            lines.push_back(shell_quote(argv));
            std::optional<ProcessResult> in_process;
            if (workers_) {
                std::string why;
                in_process = workers_->run(argv, scratch.path(), cancel, &why);
                if (!in_process && !why.empty()) result.log += why + "\n";
            }
            const auto run = in_process ? std::move(*in_process) : run_process(argv, cancel, scratch.path());
            result.cpu_seconds += run.cpu_seconds;
            result.log += run.output;
            if (run.exit_code != 0) {
                result.command = join(lines, "\n");
                if (run.exit_code < 0) result.log += fmt::format("\n(stopped by signal {})", -run.exit_code);
                return finish();
            }
        }
        result.command = join(lines, "\n");
        result.code = read_file(output);
        const auto faults = check_code_object(result.code, build.target, build.kernels);
        if (!faults.empty()) {
            result.log += "code object check failed: " + join(faults, "; ");
            result.code.clear();
            return finish();
        }
        result.ok = true;
        if (cache_) cache_->store(key, result.code);
    } catch (const std::exception& e) {
        result.ok = false;
        result.log += e.what();
    }
    return finish();
}

}  // namespace kdbgen
