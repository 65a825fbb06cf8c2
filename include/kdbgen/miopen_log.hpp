// MIOpen's own log, read (src/engine/miopen_log.cpp): the kernel lookups,
// misses and saves of one process, and keys built from values that change
// between processes.
#pragma once

#include "kdbgen/kdb.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen {

// What MIOpen's own log (MIOPEN_LOG_LEVEL=6) says of its kernel database in
// one process, per problem: every LoadBinary lookup ("Loading binary for:",
// src/binary_cache.cpp:166, MIOpen 3.3.0), its misses (:175) and what it then
// compiled and saved (:194). A miss with no save of that key is a kernel
// MIOpen failed to build.
struct KernelLookups {
    std::set<KdbKey> asked, missed, saved;
    std::vector<std::string> errors;       // MIOpen's error lines (a dozen at most)
    // The time its compiles took as the log's elapsed-time prefix shows it
    // (MIOpen 3.5 compiles in-process, where no wrapper can time them).
    double compile_seconds = 0;
    bool compiling = false;   // between a miss and its save: the lines' elapsed times add up
    double compiling_ms = 0;
    std::vector<std::string> kdb_unreadable;  // SQLite refused a kdb: not a database, malformed
    // Kernel sources this MIOpen does not have ("Failed to load kernel source:
    // Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s": Debian's 3.5.1 ships no
    // assembly kernels). MIOpen looks such a kernel up in its kdb first.
    std::set<std::string> missing_sources;
    // Missed keys no save followed (the target-ID fallback lookup of the same
    // kernel with -mcpu=<processor> is one kernel, not two), less those whose
    // source MIOpen lacks.
    std::vector<KdbKey> failed_compiles() const;
    // Missed keys whose source MIOpen lacks: it cannot build them, a kdb that
    // held them would serve them.
    std::vector<KdbKey> without_source() const;
    // Whether it missed a key whose source MIOpen has: a compile was tried.
    bool missed_a_buildable_key() const;
    bool source_missing(const KdbKey& key) const;
    void add(const KernelLookups& other);
};
// Reads one line of MIOpen's log into lookups; false when the line is none of
// the above.
bool read_miopen_log_line(std::string_view line, KernelLookups& lookups);

// A key MIOpen builds from values that change from process to process (an
// uninitialized variable): the same problem in two processes of the same kind
// asked for the kernel with the same options but for these defines' values.
// No kdb can serve it; MIOpen compiles it in every process.
struct UnstableKey {
    std::string kernel_name;
    std::vector<std::string> varying_defines;  // names, e.g. MIO_BN_N_ELEMENTS
    std::vector<std::string> examples;         // the kernel_args seen
    std::string problem;                       // kind and key of a problem that asks for it
    // Whether key is this kernel with other values of the varying defines only.
    bool matches(const KdbKey& key) const;
};
// The two keys' varying defines when they differ only in the values of
// "-DNAME=VALUE" options; nullopt when they differ otherwise (two kernels).
std::optional<std::vector<std::string>> varying_defines(const KdbKey& a, const KdbKey& b);

}  // namespace kdbgen
