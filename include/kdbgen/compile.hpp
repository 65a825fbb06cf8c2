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

#include "kdbgen/compiler_compat.hpp"
#include "kdbgen/kernel_build.hpp"
#include "kdbgen/process.hpp"
#include "kdbgen/toolchain.hpp"
#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <algorithm>
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

class BuildCache;

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
