// The MIOpen engine: instead of planning and compiling kernels itself, kdbgen
// runs an installed libMIOpen (any version: 3.4, 3.5, ...) with no GPU under
// kdbgen-hip-stub, replays each problem through MIOpen's C API as a framework's
// first run would (kdbgen-miopen-replay), and takes every kernel MIOpen compiled
// into its user kdb. The keys and code objects are MIOpen's own.
//
// Data flow: enumerate (ProblemSet) -> replay_line per problem -> replay
// processes per card -> their .ukdb rows -> kdb (as the native pipeline).
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/target.hpp"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// The line kdbgen-miopen-replay reads for a problem (src/engine/replay/main.cpp
// documents the format), or nullopt with the reason in *why when the replay
// cannot express it (e.g. a cast-type convolution).
std::optional<std::string> replay_line(const Problem& problem, std::string* why = nullptr);

struct EngineSetup {
    // The system MIOpen runs on: "/" for this one, else a root folder (e.g. a
    // debootstrapped Debian) that kdbgen enters with chroot (needs root) and
    // may change: it installs its compiler wrappers there (prepare_miopen_root).
    fs::path root = "/";
    fs::path library;      // libMIOpen.so.1 as a path inside root
    fs::path helper_dir;   // holds kdbgen-miopen-replay and stub/ (default: next to kdbgen)
    unsigned jobs = 1;     // replay processes per card
    // A folder of kdbs to install as MIOpen's system kdb folder
    // (MIOPEN_SYSTEM_DB_PATH): what MIOpen then still compiles is what they miss.
    std::optional<fs::path> system_db;
    const std::atomic<bool>* interrupted = nullptr;
};

struct ReplayOutcome {
    std::string kind, key;           // the problem
    bool ok = false;
    std::string message;             // why it failed (MIOpen's status, a crash, ...)
    std::vector<std::string> notes;  // calls that failed while the rest went on
};

struct CardReplay {
    Target card;
    std::vector<KdbRecord> records;       // every kernel MIOpen compiled, one per key
    std::vector<ReplayOutcome> outcomes;  // one per problem given
    std::size_t skipped = 0;              // problems the replay cannot express
    std::size_t compiler_starts = 0;      // compiler processes MIOpen started (wrapped compilers only)
    double seconds = 0;
};

// Finds the compilers the library starts (absolute paths of clang/clang++ in
// its strings) and, inside a root that is not "/", puts kdbgen's wrapper in
// their place: it counts starts, drops Debian's "-isystem /usr/include" pair
// and makes HIP code objects reproducible (-fuse-cuid=none). Returns the paths.
// Throws InputError naming a compiler the root lacks.
std::vector<std::string> prepare_miopen_root(const EngineSetup& setup);

// Replays the problems on one card (a target with its CU count). Throws
// InputError when the library cannot be loaded at all (naming it and why);
// a problem MIOpen throws on, or a replay that crashes, is an outcome.
CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems);

}  // namespace kdbgen
