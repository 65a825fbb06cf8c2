// A library that tries every way out of kdbgen-sandbox it can (tests/unit/miopen_engine_test.cpp,
// HostileMiopen.TheSandboxHoldsWhateverTheLibraryTries): on miopenCreate it writes a file named after
// each way into VICTIM (the folder named in <this library>.victim, a folder of the system's):
//   direct      VICTIM by its path (the view is read-only)
//   remount     after clearing the view's read-only flag (mount_setattr, AT_RECURSIVE)
//   chroot      after the classic chroot(dir); chdir("..") x 64; chroot(".")
//   proc-root   through /proc/<pid>/root of every process it sees
//   view-copy   through the view's copy of itself, /tmp/kdbgen-engine-*/mnt<VICTIM>
// None may land. Every other call fails (hanging_miopen_exports.cpp's weak stubs).
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "victim_file.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace {
int g_handle;

void leave(const std::string& folder, const char* way) {
    if (FILE* file = std::fopen((folder + "/escaped-" + way).c_str(), "w")) {
        std::fputs("the library got out\n", file);
        std::fclose(file);
    }
}

void try_everything(const std::string& target) {
    leave(target, "direct");
#ifdef SYS_mount_setattr
    mount_attr writable{};
    writable.attr_clr = MOUNT_ATTR_RDONLY;
    syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &writable, sizeof writable);
    leave(target, "remount");
#endif
    glob_t copies{};
    if (glob(("/tmp/kdbgen-engine-*/mnt" + target).c_str(), 0, nullptr, &copies) == 0)
        for (std::size_t i = 0; i < copies.gl_pathc; ++i) leave(copies.gl_pathv[i], "view-copy");
    globfree(&copies);
    if (DIR* proc = opendir("/proc")) {
        while (const dirent* entry = readdir(proc))
            if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9')
                leave(std::string("/proc/") + entry->d_name + "/root" + target, "proc-root");
        closedir(proc);
    }
    // Last: it changes this process's root for good.
    mkdir("/.kdbgen-run/escape", 0755);
    if (chroot("/.kdbgen-run/escape") == 0) {
        for (int i = 0; i < 64; ++i)
            if (chdir("..") != 0) break;
        if (chroot(".") == 0) leave(target, "chroot");
    }
}
}  // namespace

extern "C" int miopenCreate(void** handle) {
    try_everything(kdbgen_test::victim_folder());
    *handle = &g_handle;
    return 0;
}
extern "C" int miopenDestroy(void*) { return 0; }
extern "C" const char* miopenGetErrorString(int) { return "kdbgen test library: no MIOpen here"; }
