#include "kdbgen/kdb.hpp"

#include "kdbgen/codeobject.hpp"
#include "kdbgen/error.hpp"
#include "sqlite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kdbgen {

namespace {

const std::vector<std::string> kMiopenColumns = {"kernel_name", "kernel_args", "kernel_blob",
                                                 "kernel_hash", "uncompressed_size"};

void check_schema(sqlite::Database& db) {
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
    if (!fs::exists(path)) throw InputError(located(path.string(), 0, "no such file"));
    sqlite::Database db(path, SQLITE_OPEN_READONLY);
    check_schema(db);
    sqlite::Statement select(
        db, "SELECT id, kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size "
            "FROM kern_db ORDER BY id;");
    std::vector<StoredRow> rows;
    while (select.step()) {
        StoredRow row;
        row.id = select.integer(0);
        row.key = {select.text(1), select.text(2)};
        row.blob = select.blob(3);
        row.hash = select.text(4);
        row.uncompressed_size = select.integer(5);
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

WriteStats write_kdb(const fs::path& path, const std::vector<KdbRecord>& records, bool update) {
    std::map<KdbKey, const Bytes*> rows;
    WriteStats stats;
    std::map<KdbKey, Bytes> old;
    if (update && fs::exists(path)) old = read_kdb(path);
    for (const auto& record : records) {
        if (old.count(record.key)) ++stats.replaced;
        rows[record.key] = &record.code;
    }
    for (const auto& [key, code] : old) {
        if (!rows.count(key)) {
            rows[key] = &code;
            ++stats.kept;
        }
    }

    const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(located(dir.string(), 0, "output folder does not exist"));
    AtomicFile file(path);
    {
        sqlite::Database db(file.temp_path(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        // A fresh file, written once and renamed: no journal is needed, and
        // the header then records rollback (delete) mode, as db_sync expects.
        db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
        db.exec(kdb_create_sql());
        db.exec("BEGIN;");
        sqlite::Statement insert(db,
                                 "INSERT OR REPLACE INTO kern_db(kernel_name, kernel_args, kernel_blob, "
                                 "kernel_hash, uncompressed_size) VALUES(?, ?, ?, ?, ?);");
        for (const auto& [key, code] : rows) {
            const StoredRow row = encode_row({key, *code});
            insert.reset();
            insert.bind(1, row.key.kernel_name);
            insert.bind(2, row.key.kernel_args);
            insert.bind_blob(3, row.blob);
            insert.bind(4, row.hash);
            insert.bind(5, row.uncompressed_size);
            insert.step();
            stats.code_bytes += code->size();
        }
        db.exec("COMMIT;");
    }
    stats.records = rows.size();
    stats.file_bytes = fs::file_size(file.temp_path());
    file.commit();
    return stats;
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
    if (!fs::exists(path)) throw InputError(located(path.string(), 0, "no such file"));
    {
        sqlite::Database db(path, SQLITE_OPEN_READONLY);
        try {
            sqlite::Statement integrity(db, "PRAGMA integrity_check;");
            while (integrity.step())
                if (integrity.text(0) != "ok") report.faults.push_back("integrity: " + integrity.text(0));
            sqlite::Statement journal(db, "PRAGMA journal_mode;");
            if (journal.step()) {
                const auto mode = journal.text(0);
                if (mode != "off" && mode != "delete")
                    report.faults.push_back("journal mode is " + mode + ", MIOpen's db_sync wants off or delete");
            }
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

WriteStats merge_kdbs(const fs::path& out, const std::vector<fs::path>& inputs) {
    std::map<KdbKey, std::pair<Bytes, fs::path>> merged;
    std::optional<std::string> processor;
    for (const auto& input : inputs) {
        if (const auto t = target_from_kdb_filename(input)) {
            if (processor && *processor != t->name())
                throw InputError(fmt::format("{}: target {} differs from {} of the other inputs",
                                             input.string(), t->name(), *processor));
            processor = std::string(t->name());
        }
        for (auto& [key, code] : read_kdb(input)) {
            const auto it = merged.find(key);
            if (it != merged.end() && it->second.first != code)
                throw InputError(fmt::format("key ({} | {}) has different code objects in {} and {}",
                                             key.kernel_name, key.kernel_args, it->second.second.string(),
                                             input.string()));
            merged.emplace(key, std::make_pair(std::move(code), input));
        }
    }
    std::vector<KdbRecord> records;
    records.reserve(merged.size());
    for (auto& [key, value] : merged) records.push_back({key, std::move(value.first)});
    return write_kdb(out, records, false);
}

}  // namespace kdbgen
