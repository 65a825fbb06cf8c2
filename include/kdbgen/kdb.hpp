// The last stage: MIOpen kernel databases. Writes one SQLite .kdb per target
// exactly as MIOpen's KernDb stores records, and reads, verifies, diffs and
// merges existing ones.
//
// MIOpen facts (3.3.0 develop 2d1fd997 and rocm-6.2.0 alike):
//  - table and index: src/include/miopen/kern_db.hpp KernelConfig::CreateQuery()
//  - record encoding: KernDb::StoreRecordUnsafe / FindRecordUnsafe (same file)
//  - bzip2 parameters: src/bz2.cpp compress()
#pragma once

#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// The SQL MIOpen runs to create a kdb, byte for byte.
const std::string& kdb_create_sql();

// The key MIOpen looks a kernel up by.
struct KdbKey {
    std::string kernel_name;  // e.g. naive_conv.cpp.o
    std::string kernel_args;  // compile options + " -mcpu=gfx1030"
    auto operator<=>(const KdbKey&) const = default;
};

// A kernel to store: its key and its uncompressed code object.
struct KdbRecord {
    KdbKey key;
    Bytes code;
};

// A row as it is in the file.
struct StoredRow {
    std::int64_t id = 0;
    KdbKey key;
    Bytes blob;
    std::string hash;
    std::int64_t uncompressed_size = 0;
};

// Encodes a code object as MIOpen's StoreRecord does.
StoredRow encode_row(const KdbRecord& record);
// Decodes a row as MIOpen's FindRecord does; throws std::runtime_error with
// MIOpen's reason ("Possible database corruption" on an MD5 mismatch).
Bytes decode_row(const StoredRow& row);

struct WriteStats {
    std::size_t records = 0;
    std::size_t replaced = 0;   // keys that were in the old file (--update)
    std::size_t kept = 0;       // old keys carried over unchanged (--update)
    std::uint64_t code_bytes = 0;
    std::uint64_t file_bytes = 0;
};

// Writes `records` to `path` through a temporary file renamed into place.
// With update, rows already in `path` whose key is not in `records` are kept.
// The same records give a byte-identical file: rows go in sorted key order.
WriteStats write_kdb(const fs::path& path, const std::vector<KdbRecord>& records, bool update = false);

// Throws InputError when the file is not a kdb MIOpen would open (not SQLite,
// no kern_db table, columns differ from MIOpen's).
std::vector<StoredRow> read_kdb_rows(const fs::path& path);
std::map<KdbKey, Bytes> read_kdb(const fs::path& path);  // decoded; throws on a bad row

// The system kdb MIOpen opens on a card with these CUs in `dir`
// (GetDb, src/binary_cache.cpp:128-142, MIOpen 3.3.0): <DbBasename>.kdb, else
// the arch-wide <DbId>.kdb, else none.
std::optional<fs::path> system_kdb_for(const fs::path& dir, const Target& card);

// What a kdb's file name says about its target (gfx90a6e.kdb -> gfx90a, 110 CUs).
std::optional<Target> target_from_kdb_filename(const fs::path& path);

struct VerifyReport {
    std::size_t records = 0;
    std::vector<std::string> faults;  // each names the record (id, kernel_name, kernel_args)
    bool ok() const { return faults.empty(); }
};
// Schema, SQLite integrity, journal mode, decompression, MD5, ELF checks.
VerifyReport verify_kdb(const fs::path& path, const std::optional<Target>& target);

struct KdbDiff {
    std::vector<KdbKey> only_a, only_b, different_code;
    std::size_t same = 0;
};
KdbDiff diff_kdbs(const fs::path& a, const fs::path& b);

// Merges inputs into out; a key present twice with different code is an
// InputError naming both files, never a silent pick.
WriteStats merge_kdbs(const fs::path& out, const std::vector<fs::path>& inputs);

}  // namespace kdbgen
