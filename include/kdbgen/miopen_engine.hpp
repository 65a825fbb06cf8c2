// The MIOpen engine: instead of planning and compiling kernels itself, kdbgen
// runs an installed libMIOpen (any version: 3.4, 3.5, ...) with no GPU under
// kdbgen-hip-stub, replays each problem through MIOpen's C API as a framework's
// first run would (kdbgen-miopen-replay), and takes every kernel MIOpen compiled
// into its user kdb. The keys and code objects are MIOpen's own.
//
// Data flow, one way through the engine's rooms (ARCHITECTURE.md):
//   installation.hpp  the installed MIOpen, resolved once
//   client.hpp        one process in the sandbox, its output read (src/engine)
//   passes.cpp        replay_card: the passes of each slice of a card's problems
//   rounds.cpp        replay_card_to_fixpoint: a card's rounds, kernels so far installed
//   engine_records.hpp rows MIOpen wrote and cache entries, checked as verify checks
//   driver_check.cpp  check_card_with_driver: --check-kdbs through MIOpenDriver
// and then the kdb (as the native pipeline).
#pragma once

#include "kdbgen/engine_records.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/installation.hpp"
#include "kdbgen/miopen_log.hpp"
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
    // The MIOpen it runs (resolve_installation): every client runs in
    // kdbgen-sandbox, namespaces of its own where the root's entries are bound
    // read-only and kdbgen's compiler wrappers are put in the view only.
    Installation installation;
    unsigned jobs = 1;     // replay processes per card
    // A folder of kdbs to install as MIOpen's system kdb folder
    // (MIOPEN_SYSTEM_DB_PATH): what MIOpen then still compiles is what they miss.
    std::optional<fs::path> installed_kdbs;
    const std::atomic<bool>* interrupted = nullptr;
    // Progress, one set of counts (src/pipeline/replay_progress.hpp). A card's
    // work comes in phases (replay_card_to_fixpoint's confirmation and
    // rounds, the replay that tells MIOpen's own failures, a check), each of
    // problems; a phase's replays run each problem through passes (A and B,
    // then C and D for some): on_passes tells how many problem-passes are
    // added as that is known, on_pass_done each one finished (from the replay
    // threads) with the keys MIOpen compiled there.
    std::function<void(const std::string& phase, std::size_t problems)> on_phase_start;
    std::function<void(std::size_t problem_passes)> on_passes;
    std::function<void(const std::set<KdbKey>& compiled)> on_pass_done;
    // The watchdog: seconds a client may take over one problem (its load
    // counts towards the first) and one compile may run; 0 = no limit.
    unsigned problem_timeout = kDefaultProblemTimeout;
    unsigned compile_timeout = kDefaultCompileTimeout;
    // The tests' fault injection (KDBGEN_REPLAY_CRASH_ON, ..._HANG_ON,
    // KDBGEN_COMPILER_FAIL_ON, ..._HANG_ON) reaches the clients; off for the
    // replay that tells MIOpen's own failures (name_miopens_own_failures).
    bool fault_injection = true;
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

struct ReplayOutcome {
    std::string kind, key;           // the problem
    bool ok = false;
    std::string message;             // why it failed (MIOpen's status, a crash, a failed compile, ...)
    // A failure that is MIOpen's own: the problem fails the same way with no
    // kdb installed and none of kdbgen's fault injection, as in a user's
    // process without kdbgen. Its cause (kernel sources MIOpen lacks, a kernel
    // it fails to compile, its error with file:line). Empty for a failure
    // under kdbgen (the build's exit 1).
    std::string miopen_own;
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
    // The keys it asked for that are built from values that change between
    // processes (CardReplay::unstable; not in asked), as this run saw them.
    std::vector<UnstableKey> unstable_asked;
    bool settled = false;     // replay_card_to_fixpoint: asked is its whole set of keys
    bool from_cache = false;  // settled in an earlier run (EngineCache): not replayed
    // A later card of a processor whose confirmation asked only for keys the
    // first card settled this problem with, found them all, and ended the
    // same way: settled as the first card was (replay_card_to_fixpoint).
    bool confirmed = false;
    // Reads of the CU count that may decide what MIOpen builds (kdbgen-hip-stub
    // tells them from reads that only name db files), summed over the processes
    // that ran the problem, and how many processes told and did not: a problem
    // no process read it for takes the same path on every card of a processor
    // that reads the same db files (replay_card_to_fixpoint).
    std::size_t deciding_cu_reads = 0, cu_told = 0, cu_untold = 0;
    bool blind_to_cu() const { return cu_told > 0 && cu_untold == 0 && deciding_cu_reads == 0; }
    void add_cu_reads(const ReplayOutcome& other) {
        deciding_cu_reads += other.deciding_cu_reads;
        cu_told += other.cu_told;
        cu_untold += other.cu_untold;
    }
};

// The engine's counts, each named once and shown under that name in the
// progress, the card and final lines and the JSON (docs/engine.md, "The
// counts"). A card's count problems; a run's add the cards' up (problem-cards)
// and count each kernel once per kdb.
struct EngineCounts {
    std::size_t problems = 0;
    std::size_t problems_settled = 0;     // every key it asks for found, or no kernel anyone can build
    std::size_t problems_from_cache = 0;  // of the settled: in an earlier run, not replayed
    std::size_t problems_confirmed = 0;   // of the settled: as the processor's first card (ReplayOutcome::confirmed)
    std::size_t problems_failed_by_miopen = 0;     // fail the same with no kdb installed: MIOpen's own, no fault
    std::size_t problems_failed_under_kdbgen = 0;  // the build's fault: exit 1
    std::size_t problems_not_replayed = 0;         // the replay cannot express them
    std::size_t kernels_asked = 0;       // distinct keys MIOpen looked up
    std::size_t kernels_compiled = 0;    // compiled by MIOpen in this run (with a check: with the kdbs installed)
    std::size_t kernels_from_cache = 0;  // written from the cache, compiled in an earlier run
    std::size_t kernels_written = 0;     // rows for the kdb (a run: the kdbs' rows)

    void add_problems(const EngineCounts& card);
    std::string describe() const;
};

struct CardReplay {
    Target card;
    EngineCounts counts;  // count_card_replay
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
    // A later card of a processor: its confirmation pass (replay_card_to_fixpoint)
    // and the problems it settled as the first card had.
    std::optional<Round> confirmation;
    std::size_t confirmed = 0;
    std::size_t confirmed_unreplayed = 0;  // of them: blind to the CU count on the first card, not replayed
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

// What a replay is for. A build takes every key each problem asks for, so
// every problem runs on a MIOpen handle of its own: a handle keeps the
// programs and invokers it made, and a later problem needing one would not
// look it up. A check asks only whether MIOpen compiles anything with the kdbs
// installed, so its processes run their problems on one handle each, as a
// framework's process does: what a handle holds came from the kdb (else the
// compile was seen), and the problems that compiled anything are replayed
// again on handles of their own to tell unstable keys.
// A confirmation (a later card of a processor, every kernel known installed)
// runs a check's first two passes: a problem's lookups there are a subset
// of what it asks on a handle of its own, which is all it is compared with.
enum class ReplayPurpose { Build, Check, Confirm };

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
//
// first_card (may be null): the same problems' replay on the processor's
// first card. The cards of a processor differ only where MIOpen reads the CU
// count (its heuristics, the find-db and perf-db of that count), so a later
// card is first confirmed: every problem replayed once, on one handle per
// process, with every known kernel installed (ReplayPurpose::Confirm). One
// that looked up only keys the first card settled it with, missed none and
// ended the same way is settled as there; only the others go through rounds.
CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds, std::map<KdbKey, Bytes>& known, EngineCache* cache = nullptr,
                                   const CardReplay* first_card = nullptr);
CardReplay replay_card_to_fixpoint(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                                   unsigned max_rounds);

// The card's counts from its outcomes and records (all but
// kernels_from_cache, which only the run knows): once its replay has ended.
void count_card_replay(CardReplay& replay, bool checking);

// Tells MIOpen's own failures from failures under kdbgen (ReplayOutcome::
// miopen_own): each failed problem (a timeout is kdbgen's) that last ran with
// kdbs installed or under fault injection is replayed once with neither, as a
// user's process without kdbgen runs it; one that fails there too is MIOpen's
// own. One that failed with neither already is MIOpen's own without a replay.
// ran_with_kdbs: per outcome, whether its last run had kdbs installed.
void name_miopens_own_failures(const EngineSetup& setup, const Target& card, const ProblemSet& problems,
                               std::vector<ReplayOutcome>& outcomes, const std::vector<bool>& ran_with_kdbs);
// The cause of a failure, in words: kernel sources MIOpen lacks, a kernel it
// fails to compile, or its error with file:line.
std::string failure_cause(const ReplayOutcome& outcome);

// The end-to-end check with a client kdbgen did not write: every problem run
// through MIOpenDriver, one process per problem and way (Find, and -S 0 for
// convolutions), with setup.system_db's kdbs installed and an empty user db
// each; what MIOpen compiled is read from its log. A problem that fails with
// the kdbs is run again without them: one that then passes is a failure the
// kdbs caused. Problems MIOpenDriver cannot run fall back to the replay.
// Needs setup.installation.driver.
CardReplay check_card_with_driver(const EngineSetup& setup, const Target& card, const ProblemSet& problems);

}  // namespace kdbgen
