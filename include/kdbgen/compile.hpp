// The compile stage: a kernel build {source, options, target} in, the AMDGPU
// code object MIOpen would build at run time out, on a machine with no GPU
// and no ROCm runtime. Drives Clang/lld of the LLVM AMDGPU backend the way
// MIOpen's comgr (OpenCL, assembly) and hiprtc (HIP) paths do.
//
// Build-time options MIOpen adds that are not part of the kdb key, from
// MIOpen 3.3.0 (develop 2d1fd997):
//   src/hipoc/hipoc_program.cpp:296-297  "-Wno-everything" for .cpp and .cl
//   src/comgr.cpp:193-219                OpenCL AddCompilerOptions
//   src/comgr.cpp:650-673                BuildAsm (-mno-xnack when xnack is off)
//   src/comgr.cpp:931-981                hiprtc BuildHip
#pragma once

#include "kdbgen/kernel_build.hpp"
#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <atomic>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

// argv as one line a POSIX shell runs as exactly these arguments: every
// argument that is not made only of safe characters is single-quoted.
std::string shell_quote(const std::vector<std::string>& argv);

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

// kdbgen's stand-in for the headers hiprtc provides without a HIP runtime.
fs::path hiprtc_include_dir();

class BuildCache;

// Runs argv; output is stdout and stderr together. Exit code, or -signal.
struct ProcessResult {
    int exit_code = -1;
    std::string output;
    double cpu_seconds = 0;  // the child's user + system time
};
// The child runs in a process group of its own and is killed when kdbgen dies
// (PR_SET_PDEATHSIG); with tmpdir set, TMPDIR points there for it, so a
// compiler's temporaries land in a folder kdbgen removes.
ProcessResult run_process(const std::vector<std::string>& argv, const std::atomic<bool>* cancel = nullptr,
                          const fs::path& tmpdir = {});
// The start run_process makes (own process group, TMPDIR, killed when the
// calling thread ends, as kdbgen's death ends it), with the child's standard
// streams given: stdin_fd -1 is /dev/null. Returns the pid, or -1 with *error
// set. The caller registers and reaps the child.
int spawn_child(const std::vector<std::string>& argv, int stdin_fd, int stdout_fd, int stderr_fd, const fs::path& tmpdir,
                std::string* error, bool die_with_calling_thread = true);
struct ChildExit {
    int exit_code = -1;  // or -signal
    double cpu_seconds = 0;
    long peak_rss_bytes = 0;
};
ChildExit reap_child(int pid);

// Whether the compiles run in kdbgen-compile-worker processes, the clang and
// lld libraries of the toolchain's own LLVM (in-process compilation, see
// include/kdbgen/compile_worker.hpp), or as clang processes. Auto: in-process
// where a worker built from this toolchain's compiler is found; the code
// objects are the same bytes either way.
enum class InProcess { Off, Auto, On };

struct InProcessStats {
    std::size_t workers_started = 0;
    std::size_t commands = 0;          // run in a worker
    std::size_t not_in_process = 0;    // sent to a worker that runs them as processes (assembly's -cc1as)
    std::size_t worker_deaths = 0;     // a worker died in a compile, which then ran as a process
    long worker_peak_rss_bytes = 0;    // the largest of the workers that have ended
};

// The worker binary: $KDBGEN_COMPILE_WORKER, else next to the running
// executable, or in its ../libexec/kdbgen (the build tree links it there too).
// nullopt when none is there (kdbgen built without libclang-19-dev).
std::optional<fs::path> compile_worker_path();

// kdbgen's side of in-process compilation: workers started on demand, one
// per compile running at a time, each reused for the next compile.
class WorkerPool {
public:
    // Starts the first worker and checks it serves this toolchain's compiler
    // (the same clang version, built from the same LLVM folder); throws
    // InputError saying why not.
    WorkerPool(const fs::path& worker, const Toolchain& toolchain);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    // Runs argv in a worker. nullopt when it was not run there (a job the
    // worker runs only as a process, such as assembly's -cc1as; or, with
    // *why saying so, a worker that died or did not start): the caller then
    // runs argv as a process.
    std::optional<ProcessResult> run(const std::vector<std::string>& argv, const fs::path& tmpdir,
                                     const std::atomic<bool>* cancel, std::string* why);
    InProcessStats stats() const;
    const fs::path& path() const { return path_; }
    // Ends the idle workers (all of them once the compiles are done), so that
    // their CPU time is counted in kdbgen's children before the compile phase ends.
    void stop_idle();

private:
    struct Worker;
    std::unique_ptr<Worker> start();
    ChildExit retire(std::unique_ptr<Worker> worker, bool kill);

    fs::path path_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<Worker>> idle_;
    InProcessStats stats_;
};

struct CompileResult {
    bool ok = false;
    Bytes code;
    std::string log;          // compiler output or the fault found in the code object
    std::string command;      // the exact command line(s) run
    bool cache_hit = false;
    double seconds = 0;
    double cpu_seconds = 0;  // of the compiler processes (0 from the cache)
};

class Compiler {
public:
    // With InProcess::On, throws InputError when no worker serves the toolchain.
    Compiler(Toolchain toolchain, BuildCache* cache, InProcess in_process = InProcess::Off);
    CompileResult compile(const KernelBuild& build, const std::atomic<bool>* cancel = nullptr) const;
    // The command lines compile() runs, for logs and the benchmark.
    std::vector<std::vector<std::string>> commands(const KernelBuild& build, const fs::path& output,
                                                   const fs::path& scratch) const;
    std::string cache_key(const KernelBuild& build) const;
    const Toolchain& toolchain() const { return toolchain_; }
    bool in_process() const { return workers_ != nullptr; }
    fs::path worker_path() const { return workers_ ? workers_->path() : fs::path(); }
    // Why the compiles run as processes although in-process was asked for
    // (Auto); "" when they run in-process or Off was asked for.
    const std::string& not_in_process_reason() const { return not_in_process_reason_; }
    InProcessStats in_process_stats() const;
    // After the last compile: ends the in-process workers (see WorkerPool::stop_idle).
    void stop_workers() const;

private:
    Toolchain toolchain_;
    std::string identity_;  // hashed once: it reads every device library
    BuildCache* cache_;
    std::shared_ptr<WorkerPool> workers_;
    std::string not_in_process_reason_;
};


}  // namespace kdbgen
