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
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kdbgen {

class EngineCache;  // engine_cache.hpp

// The line kdbgen-miopen-replay reads for a problem (src/engine/replay/main.cpp
// documents the format), or nullopt with the reason in *why when the replay
// cannot express it (e.g. a cast-type convolution).
std::optional<std::string> replay_line(const Problem& problem, std::string* why = nullptr);

// kdbgen's wrapper for a compiler the library starts (plan_compiler_wrappers).
struct CompilerWrapper {
    std::string path;    // as the library names it, inside the root
    std::string script;  // what the client finds there instead
    std::string real;    // the compiler it runs, inside the root
};

// Measured worst cases (docs/safety.md): over two random sets and ResNet-50
// on Debian's 3.4.0 and 3.5.1, the slowest problem took 8.7 s (a 3x3
// backward-data convolution's Find on 3.4.0, its kernels compiled one after
// another), the slowest single compile 10.3 s. The limits are about 200 and
// 60 times those: MIOpen builds with composable-kernel solvers (not in
// Debian's) compile single kernels for minutes, and a loaded build machine
// is slower; a hang is still ended within the hour.
constexpr unsigned kDefaultProblemTimeout = 1800;
constexpr unsigned kDefaultCompileTimeout = 600;

struct EngineSetup {
    // The system MIOpen runs on: "/" for this one, else a root folder (e.g. a
    // debootstrapped Debian). kdbgen never writes into it: each client runs
    // in kdbgen-sandbox, namespaces of its own where the root's entries are
    // bound read-only and kdbgen's compiler wrappers are put in the view only.
    fs::path root = "/";
    fs::path library;      // libMIOpen.so.1 as a path inside root
    fs::path helper_dir;   // holds kdbgen-miopen-replay and stub/ (default: next to kdbgen)
    unsigned jobs = 1;     // replay processes per card
    // A folder of kdbs to install as MIOpen's system kdb folder
    // (MIOPEN_SYSTEM_DB_PATH): what MIOpen then still compiles is what they miss.
    std::optional<fs::path> system_db;
    // MIOpen's system db folder (find-dbs, perf-dbs, tuning models) as this
    // system names it, e.g. a package's staging tree: used instead of the
    // one installed with the library.
    std::optional<fs::path> miopen_db;
    const std::atomic<bool>* interrupted = nullptr;
    // Told of each problem a replay finished (its first process), from the
    // replay threads: how many kernels MIOpen compiled for it there.
    std::function<void(std::size_t compiled)> on_problem_done;
    // Told when replay_card_to_fixpoint starts a round of this many problems.
    std::function<void(unsigned round, std::size_t problems)> on_round_start;
    // The watchdog: seconds a client may take over one problem (its load
    // counts towards the first) and one compile may run; 0 = no limit.
    unsigned problem_timeout = kDefaultProblemTimeout;
    unsigned compile_timeout = kDefaultCompileTimeout;
    // The compiler wrappers; plan_compiler_wrappers(*this) when not given.
    std::optional<std::vector<CompilerWrapper>> compilers;
};

// The problem -> MIOpenDriver command (the program Debian ships in
// libmiopen1-tests, run the way a user runs it): its arguments after the
// program name, for the Find way ("conv ... -F 1") and, for convolutions, the
// immediate way (the same with "-S 0"); nullopt with the reason in *why where
// MIOpenDriver has no command for it (tensor ops, mixed-type convolutions).
struct DriverCommands {
    std::vector<std::string> find;
    std::optional<std::vector<std::string>> immediate;
};
std::optional<DriverCommands> driver_commands(const Problem& problem, std::string* why = nullptr);

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

struct ReplayOutcome {
    std::string kind, key;           // the problem
    bool ok = false;
    std::string message;             // why it failed (MIOpen's status, a crash, a failed compile, ...)
    std::vector<std::string> notes;  // calls that failed while the rest went on
    std::vector<std::string> miopen_errors;  // MIOpen's own error lines while on this problem (its log)
    std::vector<KdbKey> failed_compiles;     // kernels MIOpen started to build and did not
    std::vector<KdbKey> without_source;      // kernels MIOpen asked for but has no source for
    // Stopped by the watchdog (--problem-timeout), or one of its compiles
    // was (--compile-timeout).
    bool timed_out = false;
    double seconds = 0;  // the longest a process took over it
    // Every key MIOpen looked up for it (each process on a handle of its own
    // for it), and those it did not find: a problem with none missed is
    // settled, another round with more kernels installed changes nothing.
    std::set<KdbKey> asked, missed;
    bool from_cache = false;  // settled in an earlier run (EngineCache): not replayed
};

struct CardReplay {
    Target card;
    std::vector<KdbRecord> records;       // every kernel MIOpen compiled, one per key
    std::vector<ReplayOutcome> outcomes;  // one per problem given
    std::size_t skipped = 0;              // problems the replay cannot express
    std::size_t compiler_starts = 0;      // compiler processes MIOpen started (wrapped compilers only)
    double slowest_compile_seconds = 0;   // the longest of them (wrapped compilers, with a time limit)
    double compile_seconds = 0;           // all of them (wrapped compilers; MIOpen 3.5 compiles in-process)
    double logged_compile_seconds = 0;    // every compile, as MIOpen's log times them (in-process ones too)
    double seconds = 0;
    // replay_card_to_fixpoint: kernels new in each round (the first round has
    // no kdb installed, each later one the kdb of all kernels so far), and
    // what MIOpen still compiled in the last round with that kdb installed:
    // empty when the kdb serves every key it asks for. A key there that is
    // new again in every round holds a value that changes from run to run.
    std::vector<std::size_t> new_per_round;
    // Per round: problems replayed, kernels MIOpen compiled, wall seconds.
    struct Round {
        std::size_t problems = 0, compiled = 0, processes = 0, compiler_starts = 0;
        double seconds = 0, compile_seconds = 0, logged_compile_seconds = 0;
    };
    std::vector<Round> rounds;
    std::size_t from_cache = 0;        // problems settled in an earlier run, not replayed
    std::size_t kernels_installed = 0; // kernels installed before the first round (cache, earlier cards)
    std::vector<KdbKey> still_compiled;
    // Keys built from values that change between processes: never written,
    // not counted in still_compiled.
    std::vector<UnstableKey> unstable;
    // The last round's kernel lookups (every process, every problem): how
    // many keys MIOpen asked for, how many it compiled.
    std::size_t lookups = 0, compiled = 0;
    std::set<KdbKey> asked;                     // every key asked for
    std::vector<std::string> kdb_unreadable;    // MIOpen could not open an installed kdb
    std::vector<std::string> bad_rows;          // rows of MIOpen's user kdbs that fail kdbgen's checks
    std::set<KdbKey> without_source;            // keys MIOpen asked for and has no source to build
    std::size_t processes = 0;                  // replay (or driver) processes run
    std::string client = "kdbgen-miopen-replay";  // or MIOpenDriver (check_card_with_driver)
};

// Finds the compilers the library starts (absolute paths of clang/clang++ in
// its strings, the library read through the root's own links) and the
// wrapper each client sees in their place: it counts starts, drops Debian's
// "-isystem /usr/include" pair, makes HIP code objects reproducible
// (-fuse-cuid=none) and stops a compile past the time limit. Writes nothing.
// Throws InputError naming a library or a compiler the root lacks.
std::vector<CompilerWrapper> plan_compiler_wrappers(const EngineSetup& setup);

// The rows of a user kdb MIOpen wrote, each checked as `kdbgen verify` checks
// a kdb's (a name ending in .o, MD5 and sizes, a code object for the card's
// processor): good ones into kernels, each bad one named in bad_rows with the
// library and the file.
void read_user_kdb(const fs::path& ukdb, const Target& card, const fs::path& library,
                   std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows);

// MIOpen's own system db folder inside the root (find-dbs, perf-dbs, tuning
// models), as a path inside it; nullopt when the installation has none.
std::optional<fs::path> installed_system_db(const EngineSetup& setup);

// What a replay is for. A build takes every key each problem asks for, so
// every problem runs on a MIOpen handle of its own: a handle keeps the
// programs and invokers it made, and a later problem needing one would not
// look it up. A check asks only whether MIOpen compiles anything with the kdbs
// installed, so its processes run their problems on one handle each, as a
// framework's process does: what a handle holds came from the kdb (else the
// compile was seen), and the problems that compiled anything are replayed
// again on handles of their own to tell unstable keys.
enum class ReplayPurpose { Build, Check };

// Replays the problems on one card (a target with its CU count). Throws
// InputError when the library cannot be loaded at all (naming it and why);
// a problem MIOpen throws on, or a replay that crashes, is an outcome.
CardReplay replay_card(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                       ReplayPurpose purpose = ReplayPurpose::Build);

// What MIOpen compiles depends on what it finds: with some kernels in its
// system kdb, its Find goes on to solutions it had not reached (MIOpen 3.5.1
// compiles naive_conv for a 3x3 convolution only once the direct and
// implicit-GEMM kernels load from a kdb). So a problem is replayed with every
// kernel known so far installed as the system kdb until it is settled: MIOpen
// found every key it looked up for it. Its lookups then follow the same path
// whatever else the kdb holds, so only unsettled problems are replayed again
// (at most max_rounds rounds; what the last still compiled is reported).
//
// known: the kernels of the card's code-object target known before the card
// (an earlier card of the processor, the cache); grows with what MIOpen
// compiles. cache (may be null): problems settled in an earlier run are not
// replayed when every key they asked for is known; new kernels and settled
// problems are stored. The card's records are the keys its settled problems
// asked for.
CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds, std::map<KdbKey, Bytes>& known, EngineCache* cache = nullptr);
CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds);

// MIOpenDriver inside the installation (Debian: libmiopen1-tests), as a path
// inside the root; nullopt when it has none.
std::optional<fs::path> installed_driver(const EngineSetup& setup);

// The end-to-end check with a client kdbgen did not write: every problem run
// through MIOpenDriver, one process per problem and way (Find, and -S 0 for
// convolutions), with setup.system_db's kdbs installed and an empty user db
// each; what MIOpen compiled is read from its log. A problem that fails with
// the kdbs is run again without them: one that then passes is a failure the
// kdbs caused. Problems MIOpenDriver cannot run fall back to the replay.
CardReplay check_card_with_driver(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                  const fs::path& driver);

}  // namespace kdbgen
