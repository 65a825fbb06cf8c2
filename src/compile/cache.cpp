#include "kdbgen/cache.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <sys/file.h>
#include <unistd.h>

namespace kdbgen {

namespace {

std::mutex g_counter_mutex;

// Holds an exclusive flock on a file for the scope, across processes.
class FileLock {
public:
    explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT, 0644)) {
        if (fd_ >= 0) ::flock(fd_, LOCK_EX);
    }
    ~FileLock() {
        if (fd_ >= 0) {
            ::flock(fd_, LOCK_UN);
            ::close(fd_);
        }
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_;
};

}  // namespace

BuildCache::BuildCache(fs::path dir, std::uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
    std::error_code ec;
    if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
        throw InputError(located(dir_.string(), 0, "cache folder is a file (give --cache-dir DIR or --no-cache)"));
    fs::create_directories(dir_, ec);
    if (ec) throw InputError(located(dir_.string(), 0, "cannot create cache folder: " + ec.message()));
}

namespace {

bool all_hex(const std::string& text, std::size_t length) {
    return text.size() == length &&
           std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}

}  // namespace

// Entries are <2 hex>/<62 hex>.co next to .md5 (entry_path of a SHA-256 key):
// trim and clean touch nothing else, whatever folder they are pointed at.
bool BuildCache::is_entry(const fs::path& path) const {
    if (path.extension() != ".co" && path.extension() != ".md5") return false;
    if (path.parent_path().parent_path() != dir_) return false;
    return all_hex(path.parent_path().filename().string(), 2) && all_hex(path.stem().string(), 62);
}

fs::path BuildCache::default_dir() {
    if (const char* env = std::getenv("KDBGEN_CACHE_DIR"); env && *env) return env;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kdbgen";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kdbgen";
    return fs::temp_directory_path() / "kdbgen-cache";
}

fs::path BuildCache::entry_path(const std::string& key, const char* suffix) const {
    return dir_ / key.substr(0, 2) / (key.substr(2) + suffix);
}

std::optional<Bytes> BuildCache::load(const std::string& key) {
    const auto object = entry_path(key, ".co");
    const auto digest = entry_path(key, ".md5");
    std::error_code ec;
    if (!fs::exists(object, ec) || !fs::exists(digest, ec)) {
        std::lock_guard lock(g_counter_mutex);
        ++session_.misses;
        return std::nullopt;
    }
    try {
        Bytes code = read_file(object);
        const std::string expected(kdbgen::trim(read_text_file(digest)));
        if (md5_hex(code) == expected && !code.empty()) {
            fs::last_write_time(object, fs::file_time_type::clock::now(), ec);  // LRU order for trim()
            std::lock_guard lock(g_counter_mutex);
            ++session_.hits;
            return code;
        }
    } catch (const std::exception&) {
    }
    fs::remove(object, ec);
    fs::remove(digest, ec);
    std::lock_guard lock(g_counter_mutex);
    ++session_.corrupt;
    ++session_.misses;
    return std::nullopt;
}

void BuildCache::store(const std::string& key, const Bytes& code) {
    const auto object = entry_path(key, ".co");
    std::error_code ec;
    fs::create_directories(object.parent_path(), ec);
    if (ec) return;  // a cache that cannot be written costs speed, never a kernel
    try {
        const std::string digest = md5_hex(code);
        // The object first: a reader that finds the .md5 finds a whole object.
        write_file_atomic(object, code);
        write_file_atomic(entry_path(key, ".md5"), std::span<const char>(digest.data(), digest.size()));
    } catch (const std::exception&) {
        return;
    }
    {
        std::lock_guard lock(g_counter_mutex);
        ++session_.stores;
    }
    if (max_bytes_ && (session_.stores % 64) == 0) trim(max_bytes_);
}

CacheStats BuildCache::stats() const {
    CacheStats out;
    {
        std::lock_guard lock(g_counter_mutex);
        out = session_;
    }
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".co" && is_entry(it->path())) {
            ++out.entries;
            out.bytes += it->file_size(ec);
        }
    }
    return out;
}

void BuildCache::flush_counters() {
    const FileLock lock(dir_ / "stats.lock");
    nlohmann::json totals = nlohmann::json::object();
    try {
        std::ifstream in(dir_ / "stats.json");
        if (in) totals = nlohmann::json::parse(in);
    } catch (const std::exception&) {
        totals = nlohmann::json::object();
    }
    CacheStats now;
    {
        std::lock_guard guard(g_counter_mutex);
        now = session_;
        session_.hits = session_.misses = session_.corrupt = session_.stores = 0;
    }
    const auto add = [&](const char* name, std::uint64_t value) {
        totals[name] = totals.value(name, std::uint64_t{0}) + value;
    };
    add("hits", now.hits);
    add("misses", now.misses);
    add("corrupt", now.corrupt);
    add("stores", now.stores);
    const std::string text = totals.dump(2) + "\n";
    try {
        write_file_atomic(dir_ / "stats.json", std::span<const char>(text.data(), text.size()));
    } catch (const std::exception&) {
    }
}

CacheStats BuildCache::totals() const {
    CacheStats out = stats();
    try {
        std::ifstream in(dir_ / "stats.json");
        if (in) {
            const auto totals = nlohmann::json::parse(in);
            out.hits += totals.value("hits", std::uint64_t{0});
            out.misses += totals.value("misses", std::uint64_t{0});
            out.corrupt += totals.value("corrupt", std::uint64_t{0});
            out.stores += totals.value("stores", std::uint64_t{0});
        }
    } catch (const std::exception&) {
    }
    return out;
}

std::uint64_t BuildCache::trim(std::uint64_t max_bytes) {
    const FileLock lock(dir_ / "trim.lock");
    struct Entry {
        fs::path path;
        fs::file_time_type time;
        std::uint64_t size;
    };
    std::vector<Entry> entries;
    std::uint64_t total = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".co" || !is_entry(it->path())) continue;
        const auto size = it->file_size(ec);
        entries.push_back({it->path(), it->last_write_time(ec), size});
        total += size;
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
    std::uint64_t removed = 0;
    for (const auto& entry : entries) {
        if (total <= max_bytes) break;
        fs::remove(entry.path, ec);
        auto digest = entry.path;
        fs::remove(digest.replace_extension(".md5"), ec);
        total -= entry.size;
        ++removed;
    }
    return removed;
}

std::uint64_t BuildCache::clear() {
    std::error_code ec;
    fs::remove_all(dir_ / "find-db", ec);  // unpacked find-dbs (read_find_db)
    fs::remove_all(dir_ / "plan", ec);     // plans (plan_cache.hpp)
    return trim(0);
}

}  // namespace kdbgen
