#include "kdbgen/kdb.hpp"

#include "kdbgen/cleanup.hpp"
#include "kdbgen/codeobject.hpp"
#include "kdbgen/error.hpp"
#include "sqlite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fstream>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <random>
#include <regex>
#include <set>
#include <sys/file.h>
#include <unistd.h>

namespace kdbgen {

namespace {

const std::vector<std::string> kMiopenColumns = {"kernel_name", "kernel_args", "kernel_blob",
                                                 "kernel_hash", "uncompressed_size"};

void check_schema(sqlite::Database& db) {
    // A view or virtual table named kern_db can yield rows without end (a
    // recursive CTE in a 4 KiB file): only a stored table, whose rows the file
    // holds, is read.
    {
        sqlite::Statement kind(db, "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE lower(name) = 'kern_db';");
        if (kind.step()) {
            const std::string type = kind.text(0), sql = to_lower(trim(kind.text(1)));
            if (type != "table" || sql.starts_with("create virtual"))
                throw InputError(located(db.path(), 0,
                                         fmt::format("not a MIOpen kdb: kern_db is a {}, not a table",
                                                     type == "table" ? "virtual table" : type)));
        }
    }
    sqlite::Statement info(db, "PRAGMA table_info(kern_db);");
    std::set<std::string> columns;
    while (info.step()) columns.insert(info.text(1));
    if (columns.empty())
        throw InputError(located(db.path(), 0, "not a MIOpen kdb: no kern_db table"));
    std::vector<std::string> missing;
    for (const auto& column : kMiopenColumns)
        if (!columns.count(column)) missing.push_back(column);
    if (!missing.empty())
        throw InputError(located(db.path(), 0,
                                 fmt::format("kern_db columns differ from MIOpen's: missing {} "
                                             "(MIOpen disables such a file)",
                                             join(missing, ", "))));
}

std::string row_name(const StoredRow& row) {
    return fmt::format("record id {} ({} | {})", row.id, row.key.kernel_name, row.key.kernel_args);
}

}  // namespace

const std::string& kdb_create_sql() {
    // KernelConfig::CreateQuery(), src/include/miopen/kern_db.hpp:57-72 (MIOpen 3.3.0).
    static const std::string sql =
        "CREATE TABLE IF NOT EXISTS `kern_db` ("
        "`id` INTEGER PRIMARY KEY ASC"
        ",`kernel_name` TEXT NOT NULL"
        ",`kernel_args` TEXT NOT NULL"
        ",`kernel_blob` BLOB NOT NULL"
        ",`kernel_hash` TEXT NOT NULL"
        ",`uncompressed_size` INT NOT NULL"
        ");"
        "CREATE UNIQUE INDEX IF NOT EXISTS `idx_kern_db` ON kern_db(kernel_name, kernel_args);";
    return sql;
}

StoredRow encode_row(const KdbRecord& record) {
    StoredRow row;
    row.key = record.key;
    row.hash = md5_hex(record.code);
    if (auto compressed = bz2_compress_like_miopen(record.code)) {
        row.blob = std::move(*compressed);
        row.uncompressed_size = static_cast<std::int64_t>(record.code.size());
    } else {
        row.blob = record.code;
        row.uncompressed_size = 0;
    }
    return row;
}

Bytes decode_row(const StoredRow& row) {
    Bytes code = row.blob;
    if (row.uncompressed_size < 0) throw std::runtime_error("negative uncompressed_size");
    if (row.uncompressed_size != 0) {
        code = bz2_decompress(row.blob, static_cast<std::size_t>(row.uncompressed_size));
        if (code.size() != static_cast<std::size_t>(row.uncompressed_size))
            throw std::runtime_error(fmt::format("decompressed to {} bytes, uncompressed_size says {}",
                                                 code.size(), row.uncompressed_size));
    }
    if (md5_hex(code) != row.hash)
        throw std::runtime_error(fmt::format("MD5 {} does not match kernel_hash {}: MIOpen reports "
                                             "\"Possible database corruption\"",
                                             md5_hex(code), row.hash));
    return code;
}

std::vector<StoredRow> read_kdb_rows(const fs::path& path) {
    require_regular_input(path);  // SQLite would block on a FIFO forever
    auto db = sqlite::Database::read_only(path);
    check_schema(db);
    sqlite::Statement select(
        db, "SELECT id, kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size "
            "FROM kern_db ORDER BY id;");
    std::vector<StoredRow> rows;
    // The rows of a stored table cannot hold more bytes than its file: a read
    // that does is refused, whatever the file claims.
    std::error_code ec;
    const std::uintmax_t file_bytes = fs::file_size(path, ec);
    std::uintmax_t read_bytes = 0;
    while (select.step()) {
        StoredRow row;
        row.id = select.integer(0);
        row.key = {select.text(1), select.text(2)};
        row.blob = select.blob(3);
        row.hash = select.text(4);
        row.uncompressed_size = select.integer(5);
        read_bytes += row.blob.size() + row.key.kernel_name.size() + row.key.kernel_args.size() + row.hash.size();
        if (ec || read_bytes > file_bytes)
            throw InputError(located(path.string(), 0, "kern_db yields more data than the file holds: not a kdb"));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::map<KdbKey, Bytes> read_kdb(const fs::path& path) {
    std::map<KdbKey, Bytes> records;
    for (const auto& row : read_kdb_rows(path)) {
        try {
            records[row.key] = decode_row(row);
        } catch (const std::runtime_error& e) {
            throw InputError(located(path.string(), 0, row_name(row) + ": " + e.what()));
        }
    }
    return records;
}

namespace {

constexpr const char* kLegacyLockName = ".kdbgen.lock";  // kdbgen 0.x locked this file; now the folder itself
constexpr const char* kJournalName = ".kdbgen-commit";

std::string random_suffix() {
    static std::atomic<unsigned> counter{0};
    std::random_device rd;
    return fmt::format("{}.{:x}{:x}", ::getpid(), counter++, rd());
}

// .NAME.kdbgen-spool.PID.X, .NAME.kdbgen-stage.PID.X and the temporaries of
// earlier versions (.NAME.tmp.PID.N.X): the pid of their maker, or 0.
long temporary_owner(const std::string& name) {
    static const std::regex pattern(R"(^\..+\.(kdbgen-spool|kdbgen-stage|kdbgen-old|tmp)\.([0-9]+)\.[0-9a-f.]+$)");
    std::smatch m;
    if (!std::regex_match(name, m, pattern)) return 0;
    return std::stol(m[2].str());
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

void sync_path(const fs::path& path, bool directory) {
    const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) return;
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0 && !directory)
        throw std::runtime_error(fmt::format("{}: fsync: {}", path.string(), std::strerror(errno)));
}

}  // namespace

// The folder's advisory lock, held from reading an old kdb (or a merge input
// in the folder) to the last rename. flock on the folder itself: nothing is
// left in it for a packager's `install out/*` to ship.
class FolderLock {
public:
    explicit FolderLock(const fs::path& dir) {
        fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) throw InputError(located(dir.string(), 0, std::string("cannot open output folder: ") + std::strerror(errno)));
        if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
        fmt::print(stderr, "kdbgen: waiting for another kdbgen writing to {}\n", dir.string());
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR) throw InputError(located(dir.string(), 0, std::string("flock: ") + std::strerror(errno)));
    }
    ~FolderLock() { ::close(fd_); }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

namespace {

// Blocks SIGINT, SIGTERM and SIGHUP for the renames: they then complete.
class SignalsHeld {
public:
    SignalsHeld() {
        sigset_t set;
        sigemptyset(&set);
        for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
        pthread_sigmask(SIG_BLOCK, &set, &old_);
    }
    ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

private:
    sigset_t old_;
};

// One line of the commit journal: staged file, final name, and the hard link
// that keeps the old kdb until the commit is done ("-" when there was none).
struct JournalLine {
    fs::path staged, final_path, backup;
};

// The journal names files of this folder only, each of the kind kdbgen wrote
// there: "<kdb>", ".<kdb>.kdbgen-stage.<pid>.<x>", ".<kdb>.kdbgen-old.<pid>.<x>"
// or "-". Anything else (a path, "..", another file's name: a journal someone
// else planted) is refused before anything is renamed or removed.
std::vector<JournalLine> read_journal(const fs::path& dir) {
    const fs::path journal = dir / kJournalName;
    std::vector<JournalLine> lines;
    std::size_t number = 0;
    for (const auto& line : split(read_text_file(journal), '\n')) {
        ++number;
        if (line.empty()) continue;
        const auto fields = split(line, '\t');
        const auto refuse = [&](const std::string& why) {
            return InputError(located(journal.string(), number,
                                      fmt::format("{}: not a journal kdbgen wrote; nothing was renamed or removed "
                                                  "(remove the file if no kdbgen is committing here)",
                                                  why)));
        };
        if (fields.size() != 3) throw refuse(fmt::format("{} fields, not 3", fields.size()));
        const auto plain = [](std::string_view name) {
            return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
                   name.find('\0') == std::string_view::npos;
        };
        const std::string& staged = fields[0], &final_name = fields[1], &backup = fields[2];
        if (!plain(final_name)) throw refuse(fmt::format("'{}' is not a file name of this folder", final_name));
        const auto of_kind = [&](const std::string& name, std::string_view kind) {
            return plain(name) && name.starts_with("." + final_name + "." + std::string(kind) + ".") &&
                   temporary_owner(name) != 0;
        };
        if (!of_kind(staged, "kdbgen-stage"))
            throw refuse(fmt::format("'{}' is not the staged copy of {}", staged, final_name));
        if (backup != "-" && !of_kind(backup, "kdbgen-old"))
            throw refuse(fmt::format("'{}' is not the backup of {}", backup, final_name));
        lines.push_back({dir / staged, dir / final_name, backup == "-" ? fs::path() : dir / backup});
    }
    return lines;
}

// Puts every kdb of the journal back as it was: the renamed ones from their
// backups, the staged ones removed. Returns the first failure's message.
std::string roll_back(const std::vector<JournalLine>& lines) {
    std::string failure;
    for (const auto& line : lines) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(line.staged, ec))) {
            fs::remove(line.staged, ec);
            continue;  // never renamed: the old kdb is in place
        }
        if (!line.backup.empty()) fs::rename(line.backup, line.final_path, ec);
        else fs::remove(line.final_path, ec);
        if (ec && failure.empty()) failure = line.final_path.string() + ": " + ec.message();
    }
    return failure;
}

std::size_t recover_locked(const fs::path& dir) {
    std::size_t changed = 0;
    std::error_code ec;
    const auto journal = dir / kJournalName;
    if (fs::is_regular_file(journal, ec)) {
        // Complete: it was renamed into place before the first kdb was. Roll
        // forward; if a rename cannot be done, roll every kdb back instead,
        // so the folder is one generation either way.
        const auto lines = read_journal(dir);
        std::string failure;
        for (const auto& line : lines) {
            if (!fs::exists(line.staged, ec)) continue;  // renamed already
            fs::rename(line.staged, line.final_path, ec);
            if (ec) {
                failure = line.final_path.string() + ": " + ec.message();
                break;
            }
            ++changed;
        }
        if (!failure.empty()) {
            const std::string back = roll_back(lines);
            if (!back.empty())
                throw InputError(located(dir.string(), 0, fmt::format("cannot complete an interrupted commit ({}) nor "
                                                                      "undo it ({}); the journal {} is kept",
                                                                      failure, back, journal.string())));
        }
        sync_path(dir, true);
        for (const auto& line : lines)
            if (!line.backup.empty()) fs::remove(line.backup, ec);
        fs::remove(journal, ec);
    }
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const long owner = temporary_owner(name);
        if (owner == 0 || process_alive(owner)) continue;
        if (fs::remove(entry.path(), ec)) ++changed;
    }
    // kdbgen 0.x's lock file: unused now, and never something to ship.
    fs::remove(dir / kLegacyLockName, ec);
    return changed;
}

StoredRow row_from(sqlite::Statement& select) {
    StoredRow row;
    row.id = select.integer(0);
    row.key = {select.text(1), select.text(2)};
    row.blob = select.blob(3);
    row.hash = select.text(4);
    row.uncompressed_size = select.integer(5);
    return row;
}

void insert_row(sqlite::Statement& insert, const StoredRow& row) {
    insert.reset();
    insert.bind(1, row.key.kernel_name);
    insert.bind(2, row.key.kernel_args);
    insert.bind_blob(3, row.blob);
    insert.bind(4, row.hash);
    insert.bind(5, row.uncompressed_size);
    insert.step();
}

std::int64_t code_size_of(const StoredRow& row) {
    return row.uncompressed_size ? row.uncompressed_size : static_cast<std::int64_t>(row.blob.size());
}

}  // namespace

struct KdbTransaction::Stage {
    fs::path path;        // the kdb to replace
    fs::path spool_path;  // records as they come
    bool update = false;
    std::optional<Target> target;
    std::optional<std::string> mcpu_suffix;  // every record's, when the target is known or seen
    std::mutex mutex;
    std::unique_ptr<sqlite::Database> spool;
    std::unique_ptr<sqlite::Statement> insert, lookup;
    int cleanup_slot = -1;
    fs::path final_path;  // the complete file, renamed over path
    int final_slot = -1;
    int backup_slot = -1;  // the old kdb's hard link during the renames

    void remove_files() {
        insert.reset();
        lookup.reset();
        spool.reset();
        std::error_code ec;
        fs::remove(spool_path, ec);
        if (!final_path.empty()) fs::remove(final_path, ec);
        unregister_temporary(cleanup_slot);
        unregister_temporary(final_slot);
        unregister_temporary(backup_slot);
    }

    // kernel_args of one target only: a kdb MIOpen opens for one card.
    void check_suffix(const StoredRow& row, const std::string& origin) {
        // Args may be "-mcpu=..." alone, with no option before it.
        const std::string args = " " + row.key.kernel_args;
        const auto at = args.rfind(" -mcpu=");
        const std::string suffix = at == std::string::npos ? "" : args.substr(at);
        if (!mcpu_suffix) mcpu_suffix = suffix;
        if (suffix.empty() || suffix != *mcpu_suffix)
            throw InputError(located(origin, 0,
                                     fmt::format("record ({} | {}) is for another target than {} ('{}'): the kdb "
                                                 "would not verify",
                                                 row.key.kernel_name, row.key.kernel_args, path.filename().string(),
                                                 trim(*mcpu_suffix))));
    }
    // A row that comes from a file (merge input, the old kdb of --update)
    // is checked as verify does before it is carried.
    void check_carried(const StoredRow& row, const std::string& origin) {
        check_suffix(row, origin);
        if (!row.key.kernel_name.ends_with(".o"))
            throw InputError(located(origin, 0, fmt::format("record id {} ({} | {}): kernel_name does not end in .o: "
                                                            "the kdb would not verify",
                                                            row.id, row.key.kernel_name, row.key.kernel_args)));
        Bytes code;
        try {
            code = decode_row(row);
        } catch (const std::exception& e) {
            throw InputError(located(origin, 0, fmt::format("record id {} ({} | {}): {}", row.id, row.key.kernel_name,
                                                            row.key.kernel_args, e.what())));
        }
        if (!target) return;
        const auto faults = check_code_object(code, *target);
        if (!faults.empty())
            throw InputError(located(origin, 0, fmt::format("record id {} ({} | {}): {}", row.id, row.key.kernel_name,
                                                            row.key.kernel_args, join(faults, "; "))));
    }
};

KdbTransaction::KdbTransaction(fs::path out_dir) : out_dir_(std::move(out_dir)) {
    std::error_code ec;
    if (!fs::is_directory(out_dir_, ec)) throw InputError(located(out_dir_.string(), 0, "output folder does not exist"));
}

void KdbTransaction::lock_folder() {
    if (lock_) return;
    lock_ = std::make_unique<FolderLock>(out_dir_);
    recover_locked(out_dir_);
}

KdbTransaction::~KdbTransaction() {
    if (committed_) return;
    for (auto& stage : stages_) stage->remove_files();
}

std::size_t KdbTransaction::add_kdb(const fs::path& path, bool update, const std::optional<Target>& target) {
    auto stage = std::make_unique<Stage>();
    stage->path = path;
    stage->update = update;
    stage->target = target ? target : target_from_kdb_filename(path);
    if (stage->target) stage->mcpu_suffix = stage->target->mcpu_suffix();
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw InputError(located(path.string(), 0, "is a folder: cannot write a kdb there"));
    stage->spool_path = out_dir_ / fmt::format(".{}.kdbgen-spool.{}", path.filename().string(), random_suffix());
    stage->cleanup_slot = register_temporary(stage->spool_path);
    stages_.push_back(std::move(stage));
    auto& s = *stages_.back();
    s.spool = std::make_unique<sqlite::Database>(s.spool_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    // A scratch file read once: no journal, no sync; a small page cache
    // keeps memory flat however many records come.
    s.spool->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192; PRAGMA temp_store=FILE;");
    s.spool->exec("CREATE TABLE kern_db (kernel_name TEXT NOT NULL, kernel_args TEXT NOT NULL, kernel_blob BLOB NOT NULL, "
                  "kernel_hash TEXT NOT NULL, uncompressed_size INT NOT NULL, origin TEXT NOT NULL);"
                  "CREATE UNIQUE INDEX idx_kern_db ON kern_db(kernel_name, kernel_args); BEGIN;");
    s.insert = std::make_unique<sqlite::Statement>(
        *s.spool, "INSERT OR REPLACE INTO kern_db(kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size, "
                  "origin) VALUES(?, ?, ?, ?, ?, ?);");
    s.lookup = std::make_unique<sqlite::Statement>(
        *s.spool, "SELECT kernel_hash, origin FROM kern_db WHERE kernel_name = ? AND kernel_args = ?;");
    return stages_.size() - 1;
}

const fs::path& KdbTransaction::kdb_path(std::size_t kdb) const { return stages_.at(kdb)->path; }

void KdbTransaction::add(std::size_t kdb, const KdbRecord& record) {
    const StoredRow row = encode_row(record);  // bzip2 outside the lock
    auto& stage = *stages_.at(kdb);
    std::lock_guard lock(stage.mutex);
    stage.check_suffix(row, stage.path.string());
    auto& insert = *stage.insert;
    insert.reset();
    insert.bind(1, row.key.kernel_name);
    insert.bind(2, row.key.kernel_args);
    insert.bind_blob(3, row.blob);
    insert.bind(4, row.hash);
    insert.bind(5, row.uncompressed_size);
    insert.bind(6, std::string("this build"));
    insert.step();
}

void KdbTransaction::add_row(std::size_t kdb, const StoredRow& row, const std::string& origin) {
    auto& stage = *stages_.at(kdb);
    stage.check_carried(row, origin);
    std::lock_guard lock(stage.mutex);
    auto& lookup = *stage.lookup;
    lookup.reset();
    lookup.bind(1, row.key.kernel_name);
    lookup.bind(2, row.key.kernel_args);
    if (lookup.step()) {
        if (lookup.text(0) == row.hash) return;  // the same code object twice
        throw InputError(fmt::format("key ({} | {}) has different code objects in {} and {}", row.key.kernel_name,
                                     row.key.kernel_args, lookup.text(1), origin));
    }
    auto& insert = *stage.insert;
    insert.reset();
    insert.bind(1, row.key.kernel_name);
    insert.bind(2, row.key.kernel_args);
    insert.bind_blob(3, row.blob);
    insert.bind(4, row.hash);
    insert.bind(5, row.uncompressed_size);
    insert.bind(6, origin);
    insert.step();
}

std::vector<WriteStats> KdbTransaction::commit(const std::function<bool()>& interrupted) {
    const auto check_interrupt = [&] {
        if (interrupted && interrupted()) throw Interrupted();
    };
    check_interrupt();
    lock_folder();
    std::vector<WriteStats> all;
    for (auto& stage_ptr : stages_) {
        auto& stage = *stage_ptr;
        stage.insert.reset();
        stage.lookup.reset();
        stage.spool->exec("COMMIT;");
        WriteStats stats;
        std::unique_ptr<sqlite::Database> old;
        std::error_code ec;
        if (stage.update && fs::exists(stage.path, ec)) {
            if (!fs::is_regular_file(stage.path, ec))
                throw InputError(located(stage.path.string(), 0, "is not a regular file: cannot update it"));
            old = std::make_unique<sqlite::Database>(sqlite::Database::read_only(stage.path));
            check_schema(*old);
            sqlite::Statement integrity(*old, "PRAGMA integrity_check;");
            while (integrity.step())
                if (integrity.text(0) != "ok")
                    throw InputError(located(stage.path.string(), 0, "old kdb fails SQLite's integrity check: " +
                                                                         integrity.text(0) + " (nothing written)"));
        }
        stage.final_path = out_dir_ / fmt::format(".{}.kdbgen-stage.{}", stage.path.filename().string(), random_suffix());
        stage.final_slot = register_temporary(stage.final_path);
        {
            sqlite::Database db(stage.final_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            // A fresh file, written once and renamed: no journal is needed, and
            // the header then records rollback (delete) mode, as db_sync expects.
            db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
            db.exec(kdb_create_sql());
            db.exec("BEGIN;");
            sqlite::Statement insert(db,
                                     "INSERT INTO kern_db(kernel_name, kernel_args, kernel_blob, "
                                     "kernel_hash, uncompressed_size) VALUES(?, ?, ?, ?, ?);");
            // Both sides in key order (their unique indexes): a merge join,
            // one row in memory at a time.
            sqlite::Statement fresh(*stage.spool,
                                    "SELECT 0, kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size "
                                    "FROM kern_db ORDER BY kernel_name, kernel_args;");
            std::unique_ptr<sqlite::Statement> carried;
            if (old)
                carried = std::make_unique<sqlite::Statement>(
                    *old, "SELECT id, kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size "
                          "FROM kern_db ORDER BY kernel_name, kernel_args;");
            std::optional<StoredRow> a, b;
            const auto next_fresh = [&] { a = fresh.step() ? std::optional(row_from(fresh)) : std::nullopt; };
            // A key twice in the old kdb (a file without MIOpen's unique index): named as the old kdb's
            // fault, not left to fail the insert into the staged file.
            const auto next_old = [&] {
                std::optional<StoredRow> previous = std::move(b);
                b = carried && carried->step() ? std::optional(row_from(*carried)) : std::nullopt;
                if (b && previous && b->key == previous->key)
                    throw InputError(located(stage.path.string(), 0,
                                             fmt::format("the old kdb (--update) holds {} | {} twice (rows {} and {}); "
                                                         "MIOpen's unique index allows one (nothing written)",
                                                         b->key.kernel_name, b->key.kernel_args, previous->id, b->id)));
            };
            next_fresh();
            next_old();
            std::size_t written = 0;
            while (a || b) {
                if (++written % 256 == 0) check_interrupt();
                if (a && (!b || a->key <= b->key)) {
                    if (b && a->key == b->key) {
                        ++stats.replaced;
                        next_old();
                    }
                    insert_row(insert, *a);
                    stats.code_bytes += static_cast<std::uint64_t>(code_size_of(*a));
                    next_fresh();
                } else {
                    stage.check_carried(*b, stage.path.string() + " (the old kdb, --update)");
                    insert_row(insert, *b);
                    stats.code_bytes += static_cast<std::uint64_t>(code_size_of(*b));
                    ++stats.kept;
                    next_old();
                }
                ++stats.records;
            }
            db.exec("COMMIT;");
        }
        old.reset();
        sync_path(stage.final_path, false);
        stats.file_bytes = fs::file_size(stage.final_path);
        all.push_back(stats);
    }
    check_interrupt();
    // Every kdb is complete. Each old kdb gets a hard link, so a rename that
    // fails halfway (an immutable file, a bind mount) is undone; a kdb that
    // cannot even be linked fails here, before anything is replaced.
    std::vector<JournalLine> lines;
    const auto remove_backups = [&] {
        std::error_code ec;
        for (const auto& line : lines)
            if (!line.backup.empty()) fs::remove(line.backup, ec);
    };
    for (auto& stage : stages_) {
        JournalLine line{stage->final_path, stage->path, {}};
        std::error_code ec;
        if (fs::exists(fs::symlink_status(stage->path, ec))) {
            line.backup = out_dir_ / fmt::format(".{}.kdbgen-old.{}", stage->path.filename().string(), random_suffix());
            if (::link(stage->path.c_str(), line.backup.c_str()) != 0) {
                const int err = errno;
                remove_backups();
                throw InputError(located(stage->path.string(), 0,
                                         fmt::format("cannot replace it ({}); no kdb was replaced", std::strerror(err))));
            }
            stage->backup_slot = register_temporary(line.backup);
        }
        lines.push_back(std::move(line));
    }
    std::string journal;
    for (const auto& line : lines)
        journal += fmt::format("{}\t{}\t{}\n", line.staged.filename().string(), line.final_path.filename().string(),
                               line.backup.empty() ? std::string("-") : line.backup.filename().string());
    {
        const SignalsHeld held;
        try {
            write_file_atomic(out_dir_ / kJournalName, std::span<const char>(journal.data(), journal.size()));
            sync_path(out_dir_, true);
        } catch (...) {
            std::error_code ignored;
            fs::remove(out_dir_ / kJournalName, ignored);
            remove_backups();  // nothing renamed yet: every old kdb is in place
            throw;
        }
        const char* crash = std::getenv("KDBGEN_TEST_CRASH_IN_COMMIT");  // tests: kill -9 between the renames
        const char* refuse = std::getenv("KDBGEN_TEST_FAIL_RENAME_OF");  // tests: a rename that fails (EPERM)
        std::size_t renamed = 0;
        for (auto& stage : stages_) {
            std::error_code ec;
            if (refuse && *refuse && stage->path.filename() == refuse) ec = std::make_error_code(std::errc::operation_not_permitted);
            else fs::rename(stage->final_path, stage->path, ec);
            if (ec) {
                const std::string back = roll_back(lines);
                sync_path(out_dir_, true);
                if (back.empty()) {
                    std::error_code ignored;
                    fs::remove(out_dir_ / kJournalName, ignored);
                    remove_backups();
                }
                throw InputError(located(stage->path.string(), 0,
                                         fmt::format("cannot rename into place ({}); {}", ec.message(),
                                                     back.empty() ? "every kdb was put back as it was"
                                                                  : "undoing failed too (" + back +
                                                                        "): the next run finishes it from the journal")));
            }
            unregister_temporary(stage->final_slot);
            stage->final_path.clear();
            if (crash && *crash && ++renamed == 1) ::raise(SIGKILL);
        }
        sync_path(out_dir_, true);
        std::error_code ec;
        fs::remove(out_dir_ / kJournalName, ec);
        remove_backups();
        committed_ = true;
        for (auto& stage : stages_) stage->remove_files();
    }
    return all;
}

std::size_t recover_output_folder(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return 0;
    const FolderLock lock(dir);
    return recover_locked(dir);
}

bool is_kdbgen_temporary(const std::string& filename) {
    return temporary_owner(filename) != 0 || filename == kJournalName;
}

WriteStats write_kdb(const fs::path& path, const std::vector<KdbRecord>& records, bool update) {
    const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    KdbTransaction transaction(dir);
    const auto kdb = transaction.add_kdb(path, update);
    for (const auto& record : records) transaction.add(kdb, record);
    return transaction.commit().front();
}

void write_scratch_kdb(const fs::path& path, const std::vector<KdbRecord>& records) {
    fs::remove(path);
    // A fresh file in kdbgen's own scratch folder; never through a link, whoever made it.
    sqlite::Database db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW);
    db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
    db.exec(kdb_create_sql());
    db.exec("BEGIN;");
    sqlite::Statement insert(db, "INSERT INTO kern_db(kernel_name, kernel_args, kernel_blob, kernel_hash, "
                                 "uncompressed_size) VALUES(?, ?, ?, ?, 0);");
    for (const auto& record : records) {
        insert.reset();
        insert.bind(1, record.key.kernel_name);
        insert.bind(2, record.key.kernel_args);
        insert.bind_blob(3, record.code);
        insert.bind(4, md5_hex(record.code));
        insert.step();
    }
    db.exec("COMMIT;");
}

std::optional<fs::path> system_kdb_for(const fs::path& dir, const Target& card) {
    for (const auto& name : {card.kdb_filename(), card.fallback_kdb_filename()})
        if (fs::exists(dir / name)) return dir / name;
    return std::nullopt;
}

std::optional<Target> target_from_kdb_filename(const fs::path& path) {
    std::string stem = path.stem().string();
    const ProcessorInfo* best = nullptr;
    for (const auto& processor : processor_table())
        if (stem.starts_with(processor.name) && (!best || processor.name.size() > best->name.size()))
            best = &processor;
    if (!best) return std::nullopt;
    std::string rest = stem.substr(best->name.size());
    Target target;
    target.processor = best;
    if (rest.starts_with("_xnack")) {
        target.xnack = FeatureState::On;
        rest = rest.substr(6);
    }
    if (rest.empty()) return target;  // fallback name: DbId alone
    try {
        if (rest[0] == '_') {
            const auto cus = parse_int(rest.substr(1));
            if (!cus) return std::nullopt;
            target.compute_units = static_cast<unsigned>(*cus);
        } else {
            std::size_t used = 0;
            target.compute_units = static_cast<unsigned>(std::stoul(rest, &used, 16));
            if (used != rest.size()) return std::nullopt;
        }
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return target;
}

VerifyReport verify_kdb(const fs::path& path, const std::optional<Target>& target) {
    VerifyReport report;
    require_regular_input(path);  // SQLite would block on a FIFO forever
    {
        auto db = sqlite::Database::read_only(path);
        try {
            sqlite::Statement integrity(db, "PRAGMA integrity_check;");
            while (integrity.step())
                if (integrity.text(0) != "ok") report.faults.push_back("integrity: " + integrity.text(0));
            // Of the journal modes only WAL persists in the file: its header's
            // read and write versions (bytes 18 and 19) are 2 (https://sqlite.org/fileformat2.html).
            // The header, not PRAGMA journal_mode: the file is opened immutable, which reports "delete".
            // MIOpen itself switches the dbs it writes to WAL (SQLiteBase,
            // src/include/miopen/sqlite_db.hpp:281-289, MIOpen 3.3.0): a kdb
            // taken from a user's cache is then in WAL mode.
            char header[20] = {};
            std::ifstream(path, std::ios::binary).read(header, sizeof header);
            if (header[18] == 2 || header[19] == 2)
                report.faults.push_back(fmt::format(
                    "journal mode is wal (MIOpen writes its own dbs so, src/include/miopen/sqlite_db.hpp:281-289); "
                    "a shipped kdb must be in delete mode: rewrite it with `kdbgen merge NEW.kdb {}`",
                    path.string()));
        } catch (const InputError& e) {
            report.faults.push_back(e.what());
            return report;
        }
    }
    const auto rows = read_kdb_rows(path);
    report.records = rows.size();
    std::set<KdbKey> keys;
    for (const auto& row : rows) {
        if (!keys.insert(row.key).second) report.faults.push_back(row_name(row) + ": duplicate key");
        if (!row.key.kernel_name.ends_with(".o"))
            report.faults.push_back(row_name(row) + ": kernel_name does not end in .o");
        if (target && !row.key.kernel_args.ends_with(target->mcpu_suffix()))
            report.faults.push_back(row_name(row) + ": kernel_args do not end in '" +
                                    target->mcpu_suffix() + "'");
        Bytes code;
        try {
            code = decode_row(row);
        } catch (const std::exception& e) {
            report.faults.push_back(row_name(row) + ": " + e.what());
            continue;
        }
        if (!target) continue;
        for (const auto& fault : check_code_object(code, *target))
            report.faults.push_back(row_name(row) + ": " + fault);
    }
    return report;
}

KdbDiff diff_kdbs(const fs::path& a, const fs::path& b) {
    const auto left = read_kdb(a);
    const auto right = read_kdb(b);
    KdbDiff diff;
    for (const auto& [key, code] : left) {
        const auto it = right.find(key);
        if (it == right.end()) diff.only_a.push_back(key);
        else if (it->second != code) diff.different_code.push_back(key);
        else ++diff.same;
    }
    for (const auto& [key, code] : right)
        if (!left.count(key)) diff.only_b.push_back(key);
    return diff;
}

void stage_merge(KdbTransaction& transaction, std::size_t kdb, const std::vector<fs::path>& inputs) {
    std::optional<std::string> processor;
    for (const auto& input : inputs) {
        if (const auto t = target_from_kdb_filename(input)) {
            if (processor && *processor != t->name())
                throw InputError(fmt::format("{}: target {} differs from {} of the other inputs",
                                             input.string(), t->name(), *processor));
            processor = std::string(t->name());
        }
        for (const auto& row : read_kdb_rows(input)) transaction.add_row(kdb, row, input.string());
    }
}

WriteStats merge_kdbs(const fs::path& out, const std::vector<fs::path>& inputs) {
    const auto dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
    KdbTransaction transaction(dir);
    const auto kdb = transaction.add_kdb(out, false);
    stage_merge(transaction, kdb, inputs);
    return transaction.commit().front();
}

}  // namespace kdbgen
