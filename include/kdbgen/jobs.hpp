// Runs many kernel builds on a pool of workers. A failed kernel is recorded
// with the compiler's message and command and never stops the others
// (unless fail_fast); Ctrl-C (cancel) stops new work and the running
// compilers, and nothing is written afterwards.
#pragma once

#include "kdbgen/compile.hpp"

#include <atomic>
#include <functional>
#include <iosfwd>
#include <vector>

namespace kdbgen {

struct JobOptions {
    unsigned jobs = 0;          // 0: one per core
    bool fail_fast = false;     // stop scheduling after the first failure
    bool progress_bar = false;  // redraw one line (a terminal); else one line per kernel
    bool quiet = false;         // neither
    // Called from the worker as each build finishes (before progress is
    // shown), outside any lock. With it set, the code object is handed over
    // here and dropped from the result afterwards: memory stays flat however
    // many kernels a build has (the kdb stage streams them to disk). An
    // exception stops the run and is rethrown by run_builds.
    std::function<void(std::size_t index, const CompileResult& result)> on_result;
};

// Progress with counts and an ETA from the mean time per finished kernel.
class Progress {
public:
    Progress(std::size_t total, bool bar, bool quiet, std::ostream& out);
    void finished(const KernelBuild& build, const CompileResult& result);
    void close();

private:
    std::size_t total_, done_ = 0, failed_ = 0, cached_ = 0;
    bool bar_, quiet_;
    std::ostream& out_;
    double started_;
};

// results[i] belongs to builds[i]. Builds never started (cancel, fail_fast)
// have ok=false and log "not built".
std::vector<CompileResult> run_builds(const Compiler& compiler, const std::vector<KernelBuild>& builds,
                                      const JobOptions& options, std::atomic<bool>& cancel, std::ostream& log);
// The same over builds held elsewhere (a whole-architecture build does not copy 10^5 of them).
std::vector<CompileResult> run_builds(const Compiler& compiler, const std::vector<const KernelBuild*>& builds,
                                      const JobOptions& options, std::atomic<bool>& cancel, std::ostream& log);

unsigned default_job_count();

}  // namespace kdbgen
