// Running programs: each child in a process group of its own, killed when kdbgen dies,
// its temporaries in a folder kdbgen removes (src/util/process.cpp).
#pragma once

#include "kdbgen/util.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace kdbgen {

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

// argv as one line a POSIX shell runs as exactly these arguments: every
// argument that is not made only of safe characters is single-quoted.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace kdbgen
