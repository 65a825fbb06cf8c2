#include "kdbgen/compile.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kdbgen {

ProcessResult run_process(const std::vector<std::string>& argv, const std::atomic<bool>* cancel) {
    ProcessResult result;
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        result.output = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);

    // posix_spawn, not fork: glibc starts the child with clone(CLONE_VM |
    // CLONE_VFORK), so no page tables are copied. fork() copied kdbgen's whole
    // address space per compile (a find-db plan holds hundreds of MB), which
    // was most of the system time kdbgen spent above a plain clang loop.
    // The child gets its own process group (Ctrl-C reaches kdbgen, which then
    // stops the children itself), output to the pipe, input from /dev/null.
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawnattr_init(&attributes);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    ::posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
    if (spawned != 0) {
        result.output = std::string("cannot run ") + args[0] + ": " + std::strerror(spawned) + "\n";
        result.exit_code = 127;
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return result;
    }
    ::close(pipe_fds[1]);
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
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) result.exit_code = -WTERMSIG(status);
    return result;
}

}  // namespace kdbgen
