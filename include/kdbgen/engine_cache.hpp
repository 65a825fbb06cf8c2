// What the MIOpen engine keeps between runs, so that a kernel is compiled once
// across cards, rounds, shards and runs (docs/engine.md, "Compiled once"):
//
//   <cache>/engine/<identity>/kernels/<code-object target>/<digest>.k
//       every kernel MIOpen built with this library: its key and code object
//   <cache>/engine/<identity>/problems/<card>/<digest>.p
//       a problem settled on a card (every lookup served): the keys it asked for
//
// identity is the digest of what decides a code object's bytes and which keys
// MIOpen asks for (engine_identity). A problem's entry is also keyed by the
// system db's fingerprint (find-dbs and perf-dbs decide what MIOpen builds)
// and the problem's replay line. Each file is a sealed cache entry
// (cache_entry.hpp): a damaged one is a miss, never used. Writes are a
// temporary file renamed, so shards sharing one cache folder never see half
// an entry.
#pragma once

#include "kdbgen/installation.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_log.hpp"
#include "kdbgen/target.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// identity: engine_identity (installation.hpp); system_db_fingerprint too.
class EngineCache {
public:
    // cache_dir: the build cache folder; the engine's entries go in engine/.
    EngineCache(const fs::path& cache_dir, std::string identity, std::string system_db_fingerprint);

    // Every kernel stored for this code-object target (a processor: the cards
    // of gfx1030 share them).
    std::map<KdbKey, Bytes> kernels(const Target& target) const;
    void store_kernel(const Target& target, const KdbKey& key, const Bytes& code);

    // What a problem (its replay line) asked for on this card when it was
    // last settled there: the keys MIOpen found, and those no one can build
    // (a kernel source the installation lacks); nullopt when it never was
    // with this library and db.
    struct Settled {
        std::vector<KdbKey> asked, unbuildable;
        // Why MIOpen failed the problem when that follows from the installation
        // (a source it lacks: it fails the same way every run); empty when it passed.
        std::string failure;
        std::string miopen_own;  // its cause when the failure is MIOpen's own (ReplayOutcome::miopen_own)
        bool blind_to_cu = false;  // ReplayOutcome::blind_to_cu when it settled
        std::vector<UnstableKey> unstable;  // ReplayOutcome::unstable_asked: a rerun tells them again
        bool operator==(const Settled&) const = default;
    };
    std::optional<Settled> problem(const Target& card, const std::string& line) const;
    void store_problem(const Target& card, const std::string& line, const Settled& settled);

    const fs::path& dir() const { return dir_; }

private:
    fs::path kernel_dir(const Target& target) const;
    fs::path problem_path(const Target& card, const std::string& line) const;
    std::string sealed_key(const std::string& digest) const;
    fs::path dir_;
    std::string identity_;
    std::string db_fingerprint_;
};

}  // namespace kdbgen
