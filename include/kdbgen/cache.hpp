// Content-addressed build cache, in the manner of ccache: a code object is
// stored under the SHA-256 of everything that decides its bytes (see
// Compiler::cache_key), next to the MD5 it had when stored. An entry whose
// bytes no longer match is corrupt: it is removed and rebuilt, never used.
// Entries are written to a temporary file and renamed, so concurrent kdbgen
// processes (shards on one NFS cache) never see half an entry.
#pragma once

#include "kdbgen/util.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace kdbgen {

struct CacheStats {
    std::uint64_t hits = 0, misses = 0, corrupt = 0, stores = 0;
    std::uint64_t entries = 0, bytes = 0;
};

// A build creates its cache folder (and tags it with CACHEDIR.TAG); `cache
// clean` and `cache stats` open only a folder that kdbgen tagged.
enum class CacheOpen { CreateIfMissing, ExistingOnly };

class BuildCache {
public:
    // max_bytes 0: no limit.
    BuildCache(fs::path dir, std::uint64_t max_bytes, CacheOpen mode = CacheOpen::CreateIfMissing);
    static fs::path default_dir();  // $KDBGEN_CACHE_DIR, $XDG_CACHE_HOME/kdbgen, ~/.cache/kdbgen

    std::optional<Bytes> load(const std::string& key);
    void store(const std::string& key, const Bytes& code);

    // Counters of this process, and what is on disk.
    CacheStats stats() const;
    // Adds this process's counters to the totals kept in the folder.
    void flush_counters();
    CacheStats totals() const;
    // Removes least-recently-used entries until the folder fits max_bytes
    // (everything when max_bytes is 0 and all is true).
    std::uint64_t trim(std::uint64_t max_bytes);
    std::uint64_t clear();
    const fs::path& dir() const { return dir_; }

private:
    fs::path entry_path(const std::string& key, const char* suffix) const;
    bool is_entry(const fs::path& path) const;
    fs::path dir_;
    std::uint64_t max_bytes_;
    CacheStats session_;
};

}  // namespace kdbgen
