// Minimal RAII over the SQLite C API, private to the kdb stage.
#pragma once

#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>

#include <string>

namespace kdbgen::sqlite {

class Database {
public:
    Database(const fs::path& path, int flags) : Database(path, path.string(), flags) {}
    // name: what SQLite opens (a path, or a file: URI for it); path: what messages name.
    Database(const fs::path& path, const std::string& name, int flags) : path_(path.string()) {
        if (sqlite3_open_v2(name.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw InputError(located(path_, 0, "cannot open as SQLite: " + why));
        }
        sqlite3_extended_result_codes(db_, 1);
    }
    // Opens for reading without leaving anything beside the file: a read-only
    // connection to a WAL-mode database (MIOpen writes its own so) creates -wal
    // and -shm files it cannot remove. With no -wal there, every row is in the
    // file itself, so it is opened immutable (nothing created); with one, as is.
    static Database read_only(const fs::path& path) {
        std::error_code ec;
        if (fs::exists(fs::path(path.string() + "-wal"), ec)) return Database(path, SQLITE_OPEN_READONLY);
        return Database(path, uri_immutable(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    }
    Database(Database&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) { other.db_ = nullptr; }
    ~Database() { sqlite3_close(db_); }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string why = error ? error : sqlite3_errmsg(db_);
            sqlite3_free(error);
            throw InputError(located(path_, 0, "SQLite: " + why));
        }
    }
    sqlite3* get() const { return db_; }
    const std::string& path() const { return path_; }
    std::string error() const { return sqlite3_errmsg(db_); }

private:
    // file:<absolute path, percent-encoded>?immutable=1 (https://sqlite.org/uri.html).
    static std::string uri_immutable(const fs::path& path) {
        const std::string absolute = fs::absolute(path).string();
        std::string uri = "file:";
        for (const unsigned char c : absolute) {
            if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') uri += static_cast<char>(c);
            else uri += fmt::format("%{:02X}", c);
        }
        return uri + "?immutable=1";
    }
    std::string path_;
    sqlite3* db_ = nullptr;
};

class Statement {
public:
    Statement(Database& db, const std::string& sql) : db_(db) {
        if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
            throw InputError(located(db.path(), 0, "SQLite: " + db.error()));
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // true while rows come; throws on error.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw InputError(located(db_.path(), 0, "SQLite: " + db_.error()));
    }
    void reset() { sqlite3_reset(stmt_); sqlite3_clear_bindings(stmt_); }
    void bind(int i, const std::string& text) {
        sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    void bind(int i, std::int64_t value) { sqlite3_bind_int64(stmt_, i, value); }
    void bind_blob(int i, const Bytes& blob) {
        sqlite3_bind_blob(stmt_, i, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    }
    std::int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }
    std::string text(int col) {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
    }
    Bytes blob(int col) {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
        const auto n = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col));
        return p ? Bytes(p, p + n) : Bytes();
    }

private:
    Database& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace kdbgen::sqlite
