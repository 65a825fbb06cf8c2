#include "kdbgen/cleanup.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fstream>
#include <regex>
#include <sys/stat.h>

#include <atomic>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace kdbgen {

namespace {

constexpr int kSlots = 512;
constexpr int kChildSlots = 256;
std::atomic<int> g_children[kChildSlots];  // pid, or 0
std::atomic<bool> g_child_graceful[kChildSlots];
constexpr std::size_t kPathMax = 4096;

struct Slot {
    std::atomic<int> state{0};  // 0 free, 1 being filled, 2 in use
    bool folder = false;
    char path[kPathMax];
};
Slot g_slots[kSlots];

struct LinuxDirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

// Removes what is in the folder open at fd, `depth` levels down, then the
// caller removes the folder. Only system calls: safe in a signal handler.
void remove_contents(int fd, int depth) {
    alignas(8) char buffer[4096];
    while (true) {
        const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (n <= 0) return;
        for (long at = 0; at < n;) {
            auto* entry = reinterpret_cast<LinuxDirent64*>(buffer + at);
            at += entry->d_reclen;
            const char* name = entry->d_name;
            if ((name[0] == '.' && name[1] == 0) || (name[0] == '.' && name[1] == '.' && name[2] == 0)) continue;
            // DT_UNKNOWN (some file systems): a file unless unlink says it is a folder.
            if (entry->d_type == DT_UNKNOWN && ::unlinkat(fd, name, 0) == 0) continue;
            if ((entry->d_type == DT_DIR || entry->d_type == DT_UNKNOWN) && depth > 0) {
                const int child = ::openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child >= 0) {
                    remove_contents(child, depth - 1);
                    ::close(child);
                }
                ::unlinkat(fd, name, AT_REMOVEDIR);
            } else {
                ::unlinkat(fd, name, 0);
            }
        }
    }
}

int add_slot(const std::string& text, bool folder) {
    if (text.size() >= kPathMax) return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
        g_slots[i].folder = folder;
        g_slots[i].state.store(2);
        return i;
    }
    return -1;
}

}  // namespace

int register_child(int pid, bool graceful) {
    for (int i = 0; i < kChildSlots; ++i) {
        int expected = 0;
        if (g_children[i].compare_exchange_strong(expected, pid)) {
            g_child_graceful[i].store(graceful);
            return kSlots + i;
        }
    }
    return -1;
}

int register_temporary(const std::filesystem::path& path) { return add_slot(path.string(), false); }
int register_temporary_folder(const std::filesystem::path& path) { return add_slot(path.string(), true); }

void unregister_temporary(int slot) {
    if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(0);
    if (slot >= kSlots && slot < kSlots + kChildSlots) g_children[slot - kSlots].store(0);
}

void unlink_registered_temporaries() noexcept {
    for (int i = 0; i < kChildSlots; ++i) {
        const int pid = g_children[i].load();
        if (pid <= 0) continue;
        if (g_child_graceful[i].load()) {
            // kdbgen-sandbox stops its namespace and returns once the kernel has
            // reaped every process in there: nothing writes into the run folder
            // after this. Five seconds at most, then as any child.
            ::kill(pid, SIGTERM);
            for (int tries = 0; tries < 500; ++tries) {
                if (::waitpid(pid, nullptr, WNOHANG) == pid) break;
                const timespec pause{0, 10'000'000};
                ::nanosleep(&pause, nullptr);
            }
        }
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    for (auto& slot : g_slots) {
        if (slot.state.load() != 2) continue;
        if (!slot.folder) {
            ::unlink(slot.path);
            continue;
        }
        const int fd = ::open(slot.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        remove_contents(fd, 12);
        ::close(fd);
        ::rmdir(slot.path);
    }
}

}  // namespace kdbgen

// --- scratch folders in TMPDIR --------------------------------------------


namespace kdbgen {

namespace {

namespace fs = std::filesystem;

fs::path tmpdir_path() {
    const char* env = std::getenv("TMPDIR");
    return env && *env ? fs::path(env) : fs::path("/tmp");
}

InputError tmpdir_error(const fs::path& tmp, const std::string& why) {
    return InputError(fmt::format("TMPDIR {}: {}; nothing was written (set TMPDIR to a writable folder with free space)",
                                  tmp.string(), why));
}

}  // namespace

fs::path make_scratch_folder(const char* kind) {
    const fs::path tmp = tmpdir_path();
    std::string pattern = (tmp / fmt::format("kdbgen-{}-{}-XXXXXX", kind, ::getpid())).string();
    if (!::mkdtemp(pattern.data())) throw tmpdir_error(tmp, std::string("cannot make a scratch folder: ") + std::strerror(errno));
    return pattern;
}

std::size_t remove_dead_scratch() {
    static const std::regex pattern(R"(^(kdbgen-[a-z]+-([0-9]+)-[A-Za-z0-9]{6}|\.kdbgen-[a-z-]+\.tmp\.([0-9]+)\.[0-9]+\.[0-9a-f]+)$)");
    std::size_t removed = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(tmpdir_path(), ec)) {
        const std::string name = entry.path().filename().string();
        std::smatch m;
        if (!std::regex_match(name, m, pattern)) continue;
        const long pid = std::stol(m[2].matched ? m[2].str() : m[3].str());
        struct stat st {};
        if (::lstat(entry.path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
        if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;  // alive
        std::error_code remove_ec;
        if (fs::remove_all(entry.path(), remove_ec) > 0) ++removed;
    }
    return removed;
}

void check_tmpdir() {
    const fs::path tmp = tmpdir_path();
    std::error_code ec;
    const auto status = fs::status(tmp, ec);
    if (!fs::exists(status)) throw tmpdir_error(tmp, "no such folder");
    if (!fs::is_directory(status)) throw tmpdir_error(tmp, "is not a folder");
    const fs::path probe = make_scratch_folder("check");
    // One page of real data: a full file system takes the folder but not this.
    const std::string page(4096, 'k');
    bool written = false;
    {
        std::ofstream out(probe / "probe", std::ios::binary);
        written = static_cast<bool>(out.write(page.data(), static_cast<std::streamsize>(page.size()))) &&
                  static_cast<bool>(out.flush());
    }
    fs::remove_all(probe, ec);
    if (!written) throw tmpdir_error(tmp, "a 4 KiB file cannot be written (full or read-only?)");
}

}  // namespace kdbgen
