#include "kdbgen/compile.hpp"
#include "kdbgen/cleanup.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" char** environ;

namespace kdbgen {

ProcessResult run_process(const std::vector<std::string>& argv, const std::atomic<bool>* cancel, const fs::path& tmpdir) {
    ProcessResult result;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        result.output = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    // The environment is made before fork: the child of a threaded process
    // may only call async-signal-safe functions.
    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e)
        if (tmpdir.empty() || std::strncmp(*e, "TMPDIR=", 7) != 0) env_strings.emplace_back(*e);
    if (!tmpdir.empty()) env_strings.push_back("TMPDIR=" + tmpdir.string());
    std::vector<char*> env;
    for (auto& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    const pid_t parent = ::getpid();

    // vfork, not fork: the child shares kdbgen's memory until it execs, so no
    // page tables are copied (fork copied kdbgen's whole address space per
    // compile, most of the system time kdbgen spent above a plain clang loop;
    // glibc's posix_spawn does the same clone(CLONE_VM | CLONE_VFORK)). It is
    // done by hand for PR_SET_PDEATHSIG, which posix_spawn cannot set: a
    // compiler never outlives kdbgen, even after kill -9 (no handler sees
    // that). Between vfork and exec the child makes system calls only.
    // Its own process group: Ctrl-C reaches kdbgen, which then stops the
    // children itself; output to the pipe, input from /dev/null.
    const pid_t pid = ::vfork();
    if (pid < 0) {
        result.output = std::string("vfork: ") + std::strerror(errno);
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return result;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        ::dup2(pipe_fds[1], STDERR_FILENO);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
        ::execve(args[0], args.data(), env.data());
        // Only write() is safe after vfork: the message is put together from pieces.
        static const char head[] = "cannot run ", tail[] = " (execve failed)\n";
        [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, head, sizeof head - 1);
        ignored = ::write(STDERR_FILENO, args[0], std::strlen(args[0]));
        ignored = ::write(STDERR_FILENO, tail, sizeof tail - 1);
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    const int child_slot = register_child(pid);
    char buffer[8192];
    bool killed = false;
    while (true) {
        pollfd fd{pipe_fds[0], POLLIN, 0};
        const int ready = ::poll(&fd, 1, 100);
        if (cancel && cancel->load() && !killed) {
            ::kill(-pid, SIGTERM);
            killed = true;
        }
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        result.output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    result.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    unregister_temporary(child_slot);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.exit_code = -WTERMSIG(status);
    return result;
}

}  // namespace kdbgen
