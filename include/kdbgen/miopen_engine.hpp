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
    std::vector<std::string> miopen_errors;  // MIOpen's own error lines while on this problem (its log)
};

struct CardReplay {
    Target card;
    std::vector<KdbRecord> records;       // every kernel MIOpen compiled, one per key
    std::vector<ReplayOutcome> outcomes;  // one per problem given
    std::size_t skipped = 0;              // problems the replay cannot express
    std::size_t compiler_starts = 0;      // compiler processes MIOpen started (wrapped compilers only)
    double seconds = 0;
    // replay_card_to_fixpoint: kernels new in each round (the first round has
    // no kdb installed, each later one the kdb of all kernels so far), and
    // what MIOpen still compiled in the last round with that kdb installed:
    // empty when the kdb serves every key it asks for. A key there that is
    // new again in every round holds a value that changes from run to run.
    std::vector<std::size_t> new_per_round;
    std::vector<KdbKey> still_compiled;
};

// Finds the compilers the library starts (absolute paths of clang/clang++ in
// its strings) and, inside a root that is not "/", puts kdbgen's wrapper in
// their place: it counts starts, drops Debian's "-isystem /usr/include" pair
// and makes HIP code objects reproducible (-fuse-cuid=none). Returns the paths.
// Throws InputError naming a compiler the root lacks.
std::vector<std::string> prepare_miopen_root(const EngineSetup& setup);

// MIOpen's own system db folder inside the root (find-dbs, perf-dbs, tuning
// models), as a path inside it; nullopt when the installation has none.
std::optional<fs::path> installed_system_db(const EngineSetup& setup);

// Replays the problems on one card (a target with its CU count). Throws
// InputError when the library cannot be loaded at all (naming it and why);
// a problem MIOpen throws on, or a replay that crashes, is an outcome.
CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems);

// What MIOpen compiles depends on what it finds: with some kernels in its
// system kdb, its Find goes on to solutions it had not reached (MIOpen 3.5.1
// compiles naive_conv for a 3x3 convolution only once the direct and
// implicit-GEMM kernels load from a kdb). So the problems are replayed again
// with the kernels so far installed as the system kdb, until MIOpen compiles
// it compiles nothing with that kdb installed, or max_rounds is reached; the
// last round is the end-to-end check.
CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds);

}  // namespace kdbgen
