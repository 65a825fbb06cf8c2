// Temporaries a signal handler can remove. A file kdbgen writes next to its
// destination (a staged kdb, an unpacked perf-db) is registered here while it
// exists, so that an interrupt in any phase (planning, writing) leaves none
// behind: the handler unlinks every registered path with only
// async-signal-safe calls, then exits 130. SIGKILL is seen by no handler;
// what it leaves is cleaned by the next run (see KdbTransaction).
#pragma once

#include <filesystem>

namespace kdbgen {

// Returns a slot id, or -1 when the table is full (the file is then only
// removed by its owner or the next run).
int register_temporary(const std::filesystem::path& path);
void unregister_temporary(int slot);
// A folder (the private toolchain folder) removed with everything in it,
// up to a few levels deep, by the same handler.
int register_temporary_folder(const std::filesystem::path& path);
// A running child (a compiler, llvm-as): the handler kills its process
// group and reaps it first, so it writes nothing after the cleanup. A
// graceful child (kdbgen-sandbox) is sent SIGTERM and given five seconds to
// stop what it runs first.
int register_child(int pid, bool graceful = false);
// Async-signal-safe: kill and reap every registered child, unlink(2) every registered path, remove every
// registered folder (open, getdents64, unlinkat only).
void unlink_registered_temporaries() noexcept;

}  // namespace kdbgen

namespace kdbgen {

// Scratch in TMPDIR: named kdbgen-<kind>-<pid>-XXXXXX, so a later run can tell
// the folders of a killed kdbgen (kill -9, power loss) from those of a live one.
// Throws InputError naming TMPDIR when the folder cannot be made.
std::filesystem::path make_scratch_folder(const char* kind);
// Removes this user's kdbgen scratch in TMPDIR whose process is gone; returns how many.
std::size_t remove_dead_scratch();
// TMPDIR exists, is a folder and takes a small file: else an InputError naming it
// (exit 2) before anything is planned or written.
void check_tmpdir();

}  // namespace kdbgen
