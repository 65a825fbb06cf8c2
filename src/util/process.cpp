#include "kdbgen/process.hpp"
#include "kdbgen/cleanup.hpp"

#include <algorithm>
#include <cctype>
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

namespace {

// The environment of a child: kdbgen's, with TMPDIR pointing at tmpdir when one is given.
std::vector<std::string> child_environment(const fs::path& tmpdir) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
        if (tmpdir.empty() || std::strncmp(*e, "TMPDIR=", 7) != 0) env.emplace_back(*e);
    if (!tmpdir.empty()) env.push_back("TMPDIR=" + tmpdir.string());
    return env;
}

}  // namespace

pid_t spawn_child(const std::vector<std::string>& argv, int stdin_fd, int stdout_fd, int stderr_fd,
                  const fs::path& tmpdir, std::string* error, bool die_with_calling_thread) {
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    // The environment is made before vfork: the child of a threaded process
    // may only call async-signal-safe functions.
    auto env_strings = child_environment(tmpdir);
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
    // that; it is sent when the thread that made the child ends, so a child
    // that outlives its thread ends itself). Between vfork and exec the
    // child makes system calls only.
    // Its own process group: Ctrl-C reaches kdbgen, which then stops the
    // children itself. stdin_fd -1: input from /dev/null.
    const pid_t pid = ::vfork();
    if (pid < 0) {
        if (error) *error = std::string("vfork: ") + std::strerror(errno);
        return -1;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        if (die_with_calling_thread) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        // A new name, not the parameter: the child writes into the frame the parent returns through.
        const int input = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY);
        if (input >= 0) ::dup2(input, STDIN_FILENO);
        ::dup2(stdout_fd, STDOUT_FILENO);
        ::dup2(stderr_fd, STDERR_FILENO);
        ::execve(args[0], args.data(), env.data());
        // Only write() is safe after vfork: the message is put together from pieces.
        static const char head[] = "cannot run ", tail[] = " (execve failed)\n";
        [[maybe_unused]] auto ignored = ::write(STDERR_FILENO, head, sizeof head - 1);
        ignored = ::write(STDERR_FILENO, args[0], std::strlen(args[0]));
        ignored = ::write(STDERR_FILENO, tail, sizeof tail - 1);
        ::_exit(127);
    }
    return pid;
}

ChildExit reap_child(int pid) {
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    ChildExit exit;
    exit.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    exit.peak_rss_bytes = usage.ru_maxrss * 1024L;  // Linux reports KiB
    if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) exit.exit_code = -WTERMSIG(status);
    return exit;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::atomic<bool>* cancel, const fs::path& tmpdir) {
    ProcessResult result;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        result.output = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    // Output to the pipe, input from /dev/null.
    const pid_t pid = spawn_child(argv, -1, pipe_fds[1], pipe_fds[1], tmpdir, &result.output);
    if (pid < 0) {
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return result;
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
    const auto exit = reap_child(pid);
    unregister_temporary(child_slot);
    result.exit_code = exit.exit_code;
    result.cpu_seconds = exit.cpu_seconds;
    return result;
}

std::string shell_quote(const std::vector<std::string>& argv) {
    std::vector<std::string> quoted;
    for (const auto& arg : argv) {
        const bool safe = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=+:,@%").find(c) != std::string_view::npos;
        });
        if (safe) {
            quoted.push_back(arg);
            continue;
        }
        // Inside single quotes nothing is special; a quote itself is closed,
        // escaped and reopened: it's -> 'it'\''s'.
        std::string q = "'";
        for (const char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        quoted.push_back(q + "'");
    }
    return join(quoted, " ");
}

}  // namespace kdbgen
