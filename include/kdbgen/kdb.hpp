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

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
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

// The kdbs one command writes, as one transaction (docs/safety.md):
//  - each kdb is staged in its output folder (.NAME.kdbgen-spool.PID.RAND);
//    records go there as they come (add() is thread-safe), so memory does not
//    grow with the number of code objects;
//  - commit() takes the folder's advisory lock (flock on the folder itself: no lock file is
//    left for `install out/*` to ship; an old .kdbgen.lock is removed), completes
//    every staged kdb (with update, the old file's rows not replaced, each
//    checked as `verify` does), writes each in key order and syncs it; only
//    when all are complete are they renamed into place, under a commit journal
//    (.kdbgen-commit) that the next run rolls forward if the renames were cut
//    short by kill -9;
//  - destroyed without commit() (an error, an interrupt): every staged file is
//    removed and every old kdb is as it was.
// Temporaries of earlier runs whose process is gone are removed under the
// lock. The same records give a byte-identical file: rows go in key order.
class FolderLock;

class KdbTransaction {
public:
    explicit KdbTransaction(fs::path out_dir);
    ~KdbTransaction();
    KdbTransaction(const KdbTransaction&) = delete;
    KdbTransaction& operator=(const KdbTransaction&) = delete;

    // A kdb to write; target (when known) is checked against every record's
    // kernel_args and code object. Returns its index.
    std::size_t add_kdb(const fs::path& path, bool update, const std::optional<Target>& target = std::nullopt);
    // Thread-safe. Encodes the code object as MIOpen does and stages it.
    void add(std::size_t kdb, const KdbRecord& record);
    // Stages a row as stored in another kdb (merge), after checking it
    // decodes; a key staged before with different code is an InputError
    // naming both origins.
    void add_row(std::size_t kdb, const StoredRow& row, const std::string& origin);
    const fs::path& kdb_path(std::size_t kdb) const;
    // Takes the output folder's lock now (commit takes it otherwise), for a
    // command that reads kdbs of the folder it writes (merge OUT OUT shard):
    // then no other writer can change them between the read and the renames.
    void lock_folder();

    // interrupted() is asked between rows; true aborts before any rename
    // (throws Interrupted). Returns one WriteStats per kdb, in add_kdb order.
    std::vector<WriteStats> commit(const std::function<bool()>& interrupted = {});

    struct Stage;

private:
    fs::path out_dir_;
    std::vector<std::unique_ptr<Stage>> stages_;
    std::unique_ptr<FolderLock> lock_;
    bool committed_ = false;
};

// Rolls forward a commit journal left by a killed run and removes
// temporaries of runs whose process is gone. Takes the folder's lock.
// Returns the number of files removed or renamed.
std::size_t recover_output_folder(const fs::path& dir);
// Whether a file name is one of kdbgen's temporaries or lock files.
bool is_kdbgen_temporary(const std::string& filename);

// Writes `records` to `path` as a one-kdb transaction.
// With update, rows already in `path` whose key is not in `records` are kept.
WriteStats write_kdb(const fs::path& path, const std::vector<KdbRecord>& records, bool update = false);

// A kdb only kdbgen's own replays read (a round's or a confirmation's system
// kdb in a scratch folder): code objects stored as they are, with
// uncompressed_size 0, which MIOpen reads without bzip2
// (KernDb::FindRecordUnsafe, src/include/miopen/kern_db.hpp:122-141, MIOpen
// 3.3.0; the same in 3.5); no journal, no sync, no lock. The keys and the code
// MIOpen finds are those write_kdb would give it; neither side spends bzip2 on
// a file that lives for one pass. Never for a kdb a user gets.
void write_scratch_kdb(const fs::path& path, const std::vector<KdbRecord>& records);

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
// InputError naming both files, never a silent pick. Records for another
// target than out's (by its name, else the first record's -mcpu) are an
// InputError: the merged kdb always verifies.
WriteStats merge_kdbs(const fs::path& out, const std::vector<fs::path>& inputs);
// The same into a kdb of a transaction (merging folders: one transaction).
void stage_merge(KdbTransaction& transaction, std::size_t kdb, const std::vector<fs::path>& inputs);

}  // namespace kdbgen
