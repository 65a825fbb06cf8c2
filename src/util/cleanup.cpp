#include "kdbgen/cleanup.hpp"

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

int register_child(int pid) {
    for (int i = 0; i < kChildSlots; ++i) {
        int expected = 0;
        if (g_children[i].compare_exchange_strong(expected, pid)) return kSlots + i;
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
    for (auto& child : g_children) {
        const int pid = child.load();
        if (pid <= 0) continue;
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
        remove_contents(fd, 4);
        ::close(fd);
        ::rmdir(slot.path);
    }
}

}  // namespace kdbgen
