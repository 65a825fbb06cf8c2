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
// The view: a tmpfs at MOUNTPOINT whose entries are bind mounts of ROOT's
// (links copied as links), entered with pivot_root, the old root detached: a
// link in the root resolves inside it, and nothing of this system is left to
// climb back to. A folder that needs a wrapper (or the build-tree folder
// Debian's 3.4.0 names) is "opened": its entries are bound again onto a tmpfs
// of this namespace, so the wrapper exists in the view only. Where the view
// holds a copy of MOUNTPOINT itself (ROOT's /tmp bound with what is mounted
// in it), that copy is detached. Its own /dev (null, zero, full, random,
// urandom and a private /dev/shm) and /proc (this PID namespace's, read-only)
// replace the system's. Everything is read-only but VIEW, /dev/shm and, in a
// root, a private /tmp; a root whose /tmp is "/" or no folder is refused.
//
// Who it confines: a plain user gets a user namespace (its uid mapped to
// itself), where the client runs without capabilities. Root keeps its uid,
// but the client runs with an empty capability bounding set and
// PR_SET_NO_NEW_PRIVS: it cannot mount, remount, clear a read-only flag, trace
// a process or regain a capability by exec, and a PID namespace of its own
// with its own /proc shows it no process outside.
//
// The client runs as PID 1's child in a PID namespace of its own: when it
// ends, or this process is killed, every process left in there (a compiler,
// a setsid child holding the output pipe) is killed by the kernel. PID 1 puts
// the view together, so that the namespace's /proc is mounted while the
// system's is still in sight (a user namespace may mount proc only then).
//
// Exit: the client's own status (a signal is raised again, so kdbgen sees the
// same wait status); 125 with a "kdbgen-sandbox: " line when the sandbox
// cannot be made, 127 when PROGRAM cannot be started.
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
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

bool is_mount_root(const std::string& path) {
    struct statx sx {};
    if (statx(AT_FDCWD, path.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) return false;
    return (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

// Everything read-only but the folders named, each its own mount of this
// namespace, made writable alone (not what is mounted beneath it). Kernels
// before 5.12 have no mount_setattr; the root is then still never written by
// kdbgen, but a client could write what it can reach.
void make_read_only(const std::vector<std::string>& writable) {
    mount_attr read_only{};
    read_only.attr_set = MOUNT_ATTR_RDONLY;
    if (mount_setattr_call("/", AT_RECURSIVE, &read_only) != 0) {
        if (errno == ENOSYS) return;
        fail("cannot make the view read-only: %s", std::strerror(errno));
    }
    mount_attr clear{};
    clear.attr_clr = MOUNT_ATTR_RDONLY;
    for (const auto& path : writable)
        if (mount_setattr_call(path.c_str(), 0, &clear) != 0)
            fail("cannot make %s (a mount of kdbgen's own) writable: %s", path.c_str(), std::strerror(errno));
}

// Where ROOT's /tmp (or any folder bound with what is mounted in it) holds
// MOUNTPOINT, the view holds a copy of itself, with every bind made before:
// detached, so that no way into the view leads past its read-only mounts.
void detach_view_copy(const std::string& mountpoint) {
    const std::string copy = mountpoint + mountpoint;
    if (is_mount_root(copy) && umount2(copy.c_str(), MNT_DETACH) != 0)
        fail("cannot detach the view's copy of itself at %s: %s", copy.c_str(), std::strerror(errno));
}

// The view's own /dev: the harmless character devices bound from this
// system's, the usual links, and a private /dev/shm.
void make_dev(const std::string& dev) {
    mount_tmpfs(dev, 0755);
    for (const char* name : {"null", "zero", "full", "random", "urandom"}) {
        const std::string source = std::string("/dev/") + name, target = dev + "/" + name;
        const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) fail("cannot make %s: %s", target.c_str(), std::strerror(errno));
        close(fd);
        if (mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0)
            fail("cannot bind %s on %s: %s", source.c_str(), target.c_str(), std::strerror(errno));
    }
    for (const auto& [name, to] : {std::pair{"fd", "/proc/self/fd"}, std::pair{"stdin", "/proc/self/fd/0"},
                                   std::pair{"stdout", "/proc/self/fd/1"}, std::pair{"stderr", "/proc/self/fd/2"}})
        if (symlink(to, (dev + "/" + name).c_str()) != 0) fail("cannot make %s/%s: %s", dev.c_str(), name, std::strerror(errno));
    const std::string shm = dev + "/shm";
    if (mkdir(shm.c_str(), 01777) != 0) fail("cannot make %s: %s", shm.c_str(), std::strerror(errno));
    mount_tmpfs(shm, 01777);
}

// The PID namespace's own /proc (its processes only). Mounted while this
// system's /proc is still in the namespace: a user namespace may mount proc
// only where a full one is in sight.
void mount_proc(const std::string& proc) {
    if (mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        fail("cannot mount /proc for the client's PID namespace (%s): a container that hides parts of /proc "
             "allows no other; run kdbgen where /proc is whole, or as root",
             std::strerror(errno));
}

// Into the view with pivot_root, the old root detached: unlike chroot, no
// chdir("..") leads out of it.
void enter_view(const std::string& mountpoint) {
    const std::string old_root = mountpoint + "/.kdbgen-old-root";
    if (mkdir(old_root.c_str(), 0700) != 0) fail("cannot make %s: %s", old_root.c_str(), std::strerror(errno));
    if (syscall(SYS_pivot_root, mountpoint.c_str(), old_root.c_str()) != 0 || chdir("/") != 0)
        fail("cannot enter %s (pivot_root): %s", mountpoint.c_str(), std::strerror(errno));
    if (umount2("/.kdbgen-old-root", MNT_DETACH) != 0 || rmdir("/.kdbgen-old-root") != 0)
        fail("cannot detach the old root: %s", std::strerror(errno));
}

// The client keeps no capability and gains none by exec (a set-uid program,
// file capabilities, root's own on exec): it cannot mount, remount, clear a
// read-only flag or trace a process.
void drop_privileges() {
    for (int cap = 0; cap <= 63; ++cap)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capset, &header, data) != 0) fail("cannot drop the client's capabilities: %s", std::strerror(errno));
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("cannot set no_new_privs: %s", std::strerror(errno));
}

struct Arguments {
    std::string root, view, mountpoint;
    std::vector<std::pair<std::string, std::string>> wraps, binds;
    std::set<std::string> own_names{kViewInside + 1, kStashInside + 1};
    char** program = nullptr;
};

Arguments parse(int argc, char** argv) {
    if (argc < 6) fail("usage: kdbgen-sandbox ROOT VIEW MOUNTPOINT [--wrap PATH WRAPPER]... -- PROGRAM [ARG]...");
    Arguments args;
    args.root = argv[1];
    args.view = argv[2];
    args.mountpoint = argv[3];
    int at = 4;
    for (; at < argc && std::strcmp(argv[at], "--") != 0; ++at) {
        const bool wrap = std::strcmp(argv[at], "--wrap") == 0, bind_folder = std::strcmp(argv[at], "--bind") == 0;
        if ((!wrap && !bind_folder) || at + 2 >= argc) fail("bad argument %s", argv[at]);
        (wrap ? args.wraps : args.binds).emplace_back(argv[at + 1], argv[at + 2]);
        at += 2;
    }
    for (const auto& [folder, name] : args.binds) {
        if (name.size() < 2 || name[0] != '/' || name.find('/', 1) != std::string::npos || name == "/." ||
            name == "/..")
            fail("--bind %s %s: not a top-level name", folder.c_str(), name.c_str());
        args.own_names.insert(name.substr(1));
    }
    if (at + 1 >= argc) fail("no program after --");
    args.program = argv + at + 1;
    return args;
}

// PID 1's first work: the client's view, entered.
void build_view(const Arguments& args) {
    struct stat root_stat {};
    if (stat(args.root.c_str(), &root_stat) != 0 || !S_ISDIR(root_stat.st_mode))
        fail("the root %s is not a folder", args.root.c_str());
    const std::string& mnt = args.mountpoint;
    mount_tmpfs(mnt, 0755);
    std::set<std::string> skip = args.own_names;
    skip.insert({"dev", "proc"});
    mirror_entries(args.root, mnt, skip);
    for (const auto& name : args.own_names)
        if (mkdir((mnt + "/" + name).c_str(), 0755) != 0)
            fail("cannot make %s/%s: %s", mnt.c_str(), name.c_str(), std::strerror(errno));
    bind(args.view, mnt + kViewInside);
    for (const auto& [folder, name] : args.binds) bind(folder, mnt + name);
    detach_view_copy(mnt);
    for (const char* name : {"/dev", "/proc"})
        if (mkdir((mnt + name).c_str(), 0755) != 0) fail("cannot make %s%s: %s", mnt.c_str(), name, std::strerror(errno));
    make_dev(mnt + "/dev");
    mount_proc(mnt + "/proc");
    enter_view(mnt);

    View client_view;
    for (const auto& [path, wrapper] : args.wraps) client_view.wrap(path, wrapper);
    std::vector<std::string> writable{kViewInside, "/dev/shm"};
    // In a root, a /tmp of the client's own: what a library writes there by
    // name (not through TMPDIR) stays out of the root and goes with the
    // namespace. On "/" the system's /tmp is read-only in the view (TMPDIR is
    // in the run folder). A root whose /tmp is "/" or no folder is refused.
    if (args.root != "/") {
        char tmp[PATH_MAX];
        struct stat tmp_stat {};
        if (!realpath("/tmp", tmp) || stat(tmp, &tmp_stat) != 0 || !S_ISDIR(tmp_stat.st_mode) ||
            std::strcmp(tmp, "/") == 0)
            fail("the root's /tmp is %s: not a folder of its own; kdbgen puts a private /tmp there and will not "
                 "mount over that", realpath("/tmp", tmp) ? tmp : "missing");
        mount_tmpfs(tmp, 01777);
        writable.push_back(tmp);
    }
    make_read_only(writable);
}

pid_t g_init = 0;

void kill_namespace(int) {
    // PID 1 of the namespace dies, and the kernel kills and reaps everything
    // else in there before waitpid returns it: nothing writes afterwards.
    if (g_init > 0) kill(g_init, SIGKILL);
}

// PID 1 of the namespace: puts the view together, starts the client, reaps
// what is orphaned to it, and ends (killing the rest) when the client ends.
[[noreturn]] void run_init(const Arguments& args, int status_fd, int alive_fd, const sigset_t& before) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pollfd sandbox_alive{alive_fd, POLLIN, 0};
    if (poll(&sandbox_alive, 1, 0) != 0) _exit(125);  // no writer left: the sandbox is gone
    sigprocmask(SIG_SETMASK, &before, nullptr);
    build_view(args);
    const pid_t client = fork();
    if (client < 0) _exit(125);
    if (client == 0) {
        close(status_fd);
        drop_privileges();
        execv(args.program[0], args.program);
        std::printf("kdbgen-sandbox: cannot start %s: %s\n", args.program[0], std::strerror(errno));
        _exit(127);
    }
    for (;;) {
        int status = 0;
        const pid_t ended = wait(&status);
        if (ended == client) {
            if (write(status_fd, &status, sizeof status) != sizeof status) _exit(125);
            _exit(0);
        }
        if (ended < 0 && errno == ECHILD) _exit(125);
    }
}

}  // namespace

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const Arguments args = parse(argc, argv);
    // No sandbox outlives kdbgen (its parent), even after kill -9.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    enter_namespaces();
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        fail("cannot make the mounts private: %s", std::strerror(errno));

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
        close(alive_pipe[1]);
        close(status_pipe[0]);
        run_init(args, status_pipe[1], alive_pipe[0], before);
    }
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, kill_namespace);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    close(status_pipe[1]);
    close(alive_pipe[0]);
    int client_status = 0, init_status = 0;
    const bool reported = read(status_pipe[0], &client_status, sizeof client_status) == sizeof client_status;
    while (waitpid(g_init, &init_status, 0) < 0 && errno == EINTR) {
    }
    if (!reported) {
        // PID 1 could not put the view together (it said why), or was killed
        // (SIGTERM to this sandbox, or from outside): as the client would have been.
        return WIFEXITED(init_status) && WEXITSTATUS(init_status) == 125 ? 125 : 137;
    }
    if (WIFSIGNALED(client_status)) {
        const rlimit no_core{0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(WTERMSIG(client_status), SIG_DFL);
        raise(WTERMSIG(client_status));
    }
    return WIFEXITED(client_status) ? WEXITSTATUS(client_status) : 125;
}
