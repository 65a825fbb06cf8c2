// kdbgen-sandbox: runs one MIOpen client (kdbgen-miopen-replay, MIOpenDriver)
// over a system root that it never changes, in namespaces of its own.
//
//   kdbgen-sandbox ROOT VIEW MOUNTPOINT [--wrap PATH WRAPPER]... [--bind FOLDER /NAME]... -- PROGRAM [ARG]...
//
// ROOT     the system the client runs on ("/" for this one, or a debootstrapped root)
// VIEW     a folder of kdbgen's (the run folder) the client sees as /.kdbgen-run
// MOUNTPOINT an empty folder where the client's root is put together
// --wrap   PATH (as the client sees it) becomes a copy of WRAPPER (a path
//          inside VIEW, as the client sees it): kdbgen's compiler wrapper in
//          place of the compiler the library starts. A regular file that stood
//          there stays beside it as PATH.kdbgen-real.
// --bind   FOLDER of this system, read-only at /NAME (a new top-level name)
//          in the client's view: a system db given with --miopen-db.
//
// Why namespaces: the client's root is a tmpfs whose entries are bind mounts
// of ROOT's, so putting a wrapper at a compiler path (or creating the
// build-tree folder Debian's 3.4.0 names) changes only this mount namespace's
// view: the root's files are never written, a link in the root is resolved
// inside the root (the client's view is entered with chroot before any path of
// the library is touched), and the view vanishes with the last process. The
// root's binds are made read-only but for VIEW and /tmp (a private one in a root). The
// client runs as PID 1's child in a PID namespace of its own: when it ends,
// or this process is killed, every process left in there (a compiler, a
// setsid child holding the output pipe) is killed by the kernel. A plain user gets a user namespace
// (its own uid mapped to itself); root needs none.
//
// Exit: the client's own status (a signal is raised again, so kdbgen sees the
// same wait status); 125 with a "kdbgen-sandbox: " line when the sandbox
// cannot be made, 127 when PROGRAM cannot be started.
#include <dirent.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr const char* kViewInside = "/.kdbgen-run";
constexpr const char* kStashInside = "/.kdbgen-stash";

[[noreturn]] void fail(const char* format, ...) {
    std::va_list args;
    va_start(args, format);
    std::fputs("kdbgen-sandbox: ", stdout);
    std::vprintf(format, args);
    va_end(args);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    _exit(125);
}

void write_file(const char* path, const std::string& text) {
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        fail("cannot write %s: %s", path, std::strerror(errno));
    close(fd);
}

void enter_namespaces() {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNS | CLONE_NEWPID) != 0)
            fail("cannot make a private mount and PID namespace (unshare: %s)", std::strerror(errno));
        return;
    }
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0)
        fail("cannot make a user namespace as a plain user (unshare: %s): unprivileged user namespaces are off "
             "on this system (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces, or an AppArmor "
             "or container policy); run kdbgen as root or allow them",
             std::strerror(errno));
    write_file("/proc/self/setgroups", "deny");
    write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
    write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
}

void bind(const std::string& from, const std::string& to) {
    if (mount(from.c_str(), to.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
        fail("cannot bind %s on %s: %s", from.c_str(), to.c_str(), std::strerror(errno));
}

std::string join(const std::string& dir, const std::string& name) {
    return dir == "/" ? "/" + name : dir + "/" + name;
}

// Makes `to` (a folder on a tmpfs of ours) hold what `from` holds: folders and
// files as bind mounts, links as links of the same text (resolved later inside
// the client's root). `skip` names entries left out.
void mirror_entries(const std::string& from, const std::string& to, const std::set<std::string>& skip) {
    DIR* dir = opendir(from.c_str());
    if (!dir) fail("cannot read %s: %s", from.c_str(), std::strerror(errno));
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == ".." || skip.count(name)) continue;
        const std::string source = join(from, name), target = join(to, name);
        struct stat st {};
        if (lstat(source.c_str(), &st) != 0) continue;  // gone since readdir
        if (S_ISLNK(st.st_mode)) {
            std::vector<char> text(static_cast<std::size_t>(PATH_MAX) + 1);
            const ssize_t n = readlink(source.c_str(), text.data(), PATH_MAX);
            if (n < 0) fail("cannot read the link %s: %s", source.c_str(), std::strerror(errno));
            text[static_cast<std::size_t>(n)] = 0;
            if (symlink(text.data(), target.c_str()) != 0)
                fail("cannot make the link %s: %s", target.c_str(), std::strerror(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (mkdir(target.c_str(), st.st_mode & 07777) != 0)
                fail("cannot make %s: %s", target.c_str(), std::strerror(errno));
        } else {
            const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd < 0) fail("cannot make %s: %s", target.c_str(), std::strerror(errno));
            close(fd);
        }
        bind(source, target);
    }
    closedir(dir);
}

void mount_tmpfs(const std::string& at, mode_t mode) {
    char options[32];
    std::snprintf(options, sizeof options, "mode=%o", static_cast<unsigned>(mode & 07777));
    if (mount("tmpfs", at.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        fail("cannot mount a tmpfs on %s: %s", at.c_str(), std::strerror(errno));
}

// The client's view after chroot: folders kdbgen may add entries to are
// tmpfs folders of this namespace ("opened"), their entries bound from a
// stash of the root's folder.
struct View {
    std::set<std::string> opened{"/"};
    unsigned stashes = 0;

    void open_folder(const std::string& folder) {
        if (opened.count(folder)) return;
        struct stat st {};
        if (stat(folder.c_str(), &st) != 0) fail("cannot read %s: %s", folder.c_str(), std::strerror(errno));
        const std::string stash = std::string(kStashInside) + "/" + std::to_string(stashes++);
        if (mkdir(stash.c_str(), 0700) != 0) fail("cannot make %s: %s", stash.c_str(), std::strerror(errno));
        bind(folder, stash);
        mount_tmpfs(folder, st.st_mode);
        mirror_entries(stash, folder, {});
        opened.insert(folder);
    }

    // The folder (as the client sees it, links resolved inside the root),
    // opened; missing folders on the way are made in the view.
    std::string open_path(const std::string& path) {
        char resolved[PATH_MAX];
        if (realpath(path.c_str(), resolved)) {
            struct stat st {};
            if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) fail("%s is not a folder in the root", path.c_str());
            open_folder(resolved);
            return resolved;
        }
        if (errno != ENOENT) fail("cannot resolve %s in the root: %s", path.c_str(), std::strerror(errno));
        const auto slash = path.find_last_of('/');
        const std::string parent = open_path(slash == 0 ? "/" : path.substr(0, slash));
        const std::string made = join(parent, path.substr(slash + 1));
        struct stat st {};
        if (lstat(made.c_str(), &st) == 0 && unlink(made.c_str()) != 0)  // a dangling link
            fail("cannot replace %s: %s", made.c_str(), std::strerror(errno));
        if (mkdir(made.c_str(), 0755) != 0) fail("cannot make %s: %s", made.c_str(), std::strerror(errno));
        opened.insert(made);
        return made;
    }

    void wrap(const std::string& path, const std::string& wrapper) {
        const auto slash = path.find_last_of('/');
        if (path.empty() || path[0] != '/' || slash == path.size() - 1) fail("not a file path: %s", path.c_str());
        const std::string folder = open_path(slash == 0 ? "/" : path.substr(0, slash));
        const std::string name = path.substr(slash + 1), at = join(folder, name);
        struct stat st {};
        if (lstat(at.c_str(), &st) == 0) {
            if (S_ISREG(st.st_mode)) {
                // Bound from the stash: the real compiler stays beside, under another name.
                const std::string beside = at + ".kdbgen-real";
                const int fd = open(beside.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
                if (fd < 0) fail("cannot make %s: %s", beside.c_str(), std::strerror(errno));
                close(fd);
                if (mount(at.c_str(), beside.c_str(), nullptr, MS_BIND, nullptr) != 0)
                    fail("cannot bind %s on %s: %s", at.c_str(), beside.c_str(), std::strerror(errno));
                if (umount2(at.c_str(), MNT_DETACH) != 0)
                    fail("cannot unmount %s: %s", at.c_str(), std::strerror(errno));
            } else if (S_ISDIR(st.st_mode)) {
                fail("%s is a folder in the root, not a compiler", path.c_str());
            }
            if (unlink(at.c_str()) != 0) fail("cannot replace %s: %s", at.c_str(), std::strerror(errno));
        }
        const int in = open(wrapper.c_str(), O_RDONLY | O_CLOEXEC);
        const int out = open(at.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (in < 0 || out < 0) fail("cannot put the wrapper %s at %s: %s", wrapper.c_str(), at.c_str(), std::strerror(errno));
        char buffer[8192];
        for (ssize_t n; (n = read(in, buffer, sizeof buffer)) > 0;)
            if (write(out, buffer, static_cast<std::size_t>(n)) != n) fail("cannot write %s", at.c_str());
        close(in);
        close(out);
    }
};

long mount_setattr_call(const char* path, unsigned flags, mount_attr* attr) {
#ifdef SYS_mount_setattr
    return syscall(SYS_mount_setattr, AT_FDCWD, path, flags, attr, sizeof *attr);
#else
    (void)path, (void)flags, (void)attr;
    errno = ENOSYS;
    return -1;
#endif
}

// Everything read-only but the run folder, the private /tmp (and the kernel's
// own /dev, /proc, /sys binds on "/"): a client can write nothing of the root's. Kernels before
// 5.12 have no mount_setattr; the root is then still never written by kdbgen.
void make_read_only() {
    mount_attr read_only{};
    read_only.attr_set = MOUNT_ATTR_RDONLY;
    if (mount_setattr_call("/", AT_RECURSIVE, &read_only) != 0) return;
    mount_attr writable{};
    writable.attr_clr = MOUNT_ATTR_RDONLY;
    char tmp[PATH_MAX];
    for (const char* path : {kViewInside, static_cast<const char*>(realpath("/tmp", tmp) ? tmp : "/tmp"), "/dev",
                             "/proc", "/sys"}) {
        struct statx sx {};
        if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) continue;
        if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) || !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) continue;
        if (mount_setattr_call(path, AT_RECURSIVE, &writable) != 0)
            fail("cannot make %s writable: %s", path, std::strerror(errno));
    }
}

pid_t g_init = 0;

void kill_namespace(int) {
    // PID 1 of the namespace dies, and the kernel kills and reaps everything
    // else in there before waitpid returns it: nothing writes afterwards.
    if (g_init > 0) kill(g_init, SIGKILL);
}

}  // namespace

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc < 6) fail("usage: kdbgen-sandbox ROOT VIEW MOUNTPOINT [--wrap PATH WRAPPER]... -- PROGRAM [ARG]...");
    const std::string root = argv[1], view = argv[2], mountpoint = argv[3];
    std::vector<std::pair<std::string, std::string>> wraps, binds;
    int at = 4;
    for (; at < argc && std::strcmp(argv[at], "--") != 0; ++at) {
        const bool wrap = std::strcmp(argv[at], "--wrap") == 0, bind_folder = std::strcmp(argv[at], "--bind") == 0;
        if ((!wrap && !bind_folder) || at + 2 >= argc) fail("bad argument %s", argv[at]);
        (wrap ? wraps : binds).emplace_back(argv[at + 1], argv[at + 2]);
        at += 2;
    }
    std::set<std::string> own_names{kViewInside + 1, kStashInside + 1};
    for (const auto& [folder, name] : binds) {
        if (name.size() < 2 || name[0] != '/' || name.find('/', 1) != std::string::npos || name == "/." ||
            name == "/..")
            fail("--bind %s %s: not a top-level name", folder.c_str(), name.c_str());
        own_names.insert(name.substr(1));
    }
    if (at + 1 >= argc) fail("no program after --");
    char** program = argv + at + 1;

    // No sandbox outlives kdbgen (its parent), even after kill -9.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    enter_namespaces();
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        fail("cannot make the mounts private: %s", std::strerror(errno));

    struct stat root_stat {};
    if (stat(root.c_str(), &root_stat) != 0 || !S_ISDIR(root_stat.st_mode))
        fail("the root %s is not a folder", root.c_str());
    mount_tmpfs(mountpoint, 0755);
    mirror_entries(root, mountpoint, own_names);
    for (const auto& name : own_names)
        if (mkdir((mountpoint + "/" + name).c_str(), 0755) != 0)
            fail("cannot make %s/%s: %s", mountpoint.c_str(), name.c_str(), std::strerror(errno));
    bind(view, mountpoint + kViewInside);
    for (const auto& [folder, name] : binds) bind(folder, mountpoint + name);
    if (chroot(mountpoint.c_str()) != 0 || chdir("/") != 0)
        fail("cannot enter %s: %s", mountpoint.c_str(), std::strerror(errno));

    View client_view;
    for (const auto& [path, wrapper] : wraps) client_view.wrap(path, wrapper);
    // In a root, a /tmp of the client's own: what a library writes there by
    // name (not through TMPDIR) stays out of the root and goes with the
    // namespace. On "/" the system's /tmp stays (the library or the build tree
    // may be there; it is the default TMPDIR, where kdbgen works anyway).
    char tmp[PATH_MAX];
    struct stat tmp_stat {};
    if (root != "/" && realpath("/tmp", tmp) && stat(tmp, &tmp_stat) == 0 && S_ISDIR(tmp_stat.st_mode))
        mount_tmpfs(tmp, 01777);
    make_read_only();

    // status: PID 1 -> this process, the client's wait status. alive: held
    // open here, so PID 1 can tell whether this process died before PID 1
    // asked the kernel to be told.
    int status_pipe[2], alive_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0 || pipe2(alive_pipe, O_CLOEXEC) != 0)
        fail("pipe: %s", std::strerror(errno));
    // Held until PID 1 exists, so that a stop that comes early still reaches it.
    sigset_t stops, before;
    sigemptyset(&stops);
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stops, sig);
    sigprocmask(SIG_BLOCK, &stops, &before);
    g_init = fork();
    if (g_init < 0) fail("fork: %s", std::strerror(errno));
    if (g_init == 0) {
        // PID 1 of the namespace: starts the client, reaps what is orphaned
        // to it, and ends (killing the rest) when the client ends.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(alive_pipe[1]);
        pollfd sandbox_alive{alive_pipe[0], POLLIN, 0};
        if (poll(&sandbox_alive, 1, 0) != 0) _exit(125);  // no writer left: the sandbox is gone
        sigprocmask(SIG_SETMASK, &before, nullptr);
        close(status_pipe[0]);
        const pid_t client = fork();
        if (client < 0) _exit(125);
        if (client == 0) {
            close(status_pipe[1]);
            execv(program[0], program);
            std::printf("kdbgen-sandbox: cannot start %s: %s\n", program[0], std::strerror(errno));
            _exit(127);
        }
        for (;;) {
            int status = 0;
            const pid_t ended = wait(&status);
            if (ended == client) {
                if (write(status_pipe[1], &status, sizeof status) != sizeof status) _exit(125);
                _exit(0);
            }
            if (ended < 0 && errno == ECHILD) _exit(125);
        }
    }
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, kill_namespace);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    close(status_pipe[1]);
    close(alive_pipe[0]);
    int client_status = 0;
    const bool reported = read(status_pipe[0], &client_status, sizeof client_status) == sizeof client_status;
    while (waitpid(g_init, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (!reported) {
        // Killed (SIGTERM to this sandbox, or from outside): as the client would have been.
        return 137;
    }
    if (WIFSIGNALED(client_status)) {
        const rlimit no_core{0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(WTERMSIG(client_status), SIG_DFL);
        raise(WTERMSIG(client_status));
    }
    return WIFEXITED(client_status) ? WEXITSTATUS(client_status) : 125;
}
