#include "kdbgen/cache.hpp"

#include "kdbgen/cache_entry.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
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
    // Never through a link: a link planted at the lock's name would have kdbgen create a file wherever it points.
    explicit FileLock(const fs::path& path)
        : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) {
        if (fd_ < 0 && errno == ELOOP)
            throw InputError(located(path.string(), 0, "a link where kdbgen keeps a lock: kdbgen opens nothing in its "
                                                       "cache through a link; remove it"));
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

namespace {

// The Cache Directory Tagging Specification's tag (ccache writes one too): backup
// tools skip the folder, and kdbgen's cleaning commands touch only a folder that has it.
constexpr std::string_view kCacheTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by kdbgen.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";

// Beside the tag: other programs write the same standard tag (ccache does), so
// the folder is kdbgen's only with kdbgen's own tag text and this file too.
constexpr std::string_view kMarkerName = ".kdbgen-cache";
constexpr std::string_view kMarker = "kdbgen build cache: code objects, plans, find-db texts, toolchain files\n";

bool has_regular_file_with(const fs::path& file, std::string_view text) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return false;
    try {
        return read_text_file(file) == text;
    } catch (const std::exception&) {
        return false;
    }
}

bool has_cache_tag(const fs::path& dir) { return has_regular_file_with(dir / "CACHEDIR.TAG", kCacheTag); }
bool is_kdbgen_cache(const fs::path& dir) {
    return has_cache_tag(dir) && has_regular_file_with(dir / std::string(kMarkerName), kMarker);
}

}  // namespace

BuildCache::BuildCache(fs::path dir, std::uint64_t max_bytes, CacheOpen mode) : dir_(std::move(dir)), max_bytes_(max_bytes) {
    std::error_code ec;
    if (mode == CacheOpen::ExistingOnly) {
        // Cleaning deletes: only ever in a folder kdbgen made, and never one it makes now.
        if (!fs::exists(dir_, ec)) throw InputError(located(dir_.string(), 0, "no such cache folder"));
        check_private_folder(dir_, "cache folder");
        if (!is_kdbgen_cache(dir_))
            throw InputError(located(dir_.string(), 0,
                                     "not a kdbgen cache (no CACHEDIR.TAG and .kdbgen-cache written by kdbgen): "
                                     "nothing done; a cache folder gets them from the first build that uses it"));
        return;
    }
    if (fs::exists(dir_, ec) && !fs::is_directory(fs::symlink_status(dir_, ec)))
        throw InputError(located(dir_.string(), 0, "cache folder is a file or a link (give --cache-dir DIR or --no-cache)"));
    // The cache's entries go into kdbs as they are: only a folder this user alone can write is one.
    make_private_folder(dir_, "cache folder");
    try {
        if (!has_cache_tag(dir_))
            write_file_atomic(dir_ / "CACHEDIR.TAG", std::span<const char>(kCacheTag.data(), kCacheTag.size()));
        if (!has_regular_file_with(dir_ / std::string(kMarkerName), kMarker))
            write_file_atomic(dir_ / std::string(kMarkerName), std::span<const char>(kMarker.data(), kMarker.size()));
    } catch (const std::exception&) {
        // A cache that cannot be tagged is still a cache; only `cache clean` will refuse it.
    }
}

namespace {

bool all_hex(const std::string& text, std::size_t length) {
    return text.size() == length &&
           std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}

}  // namespace

// Entries are <2 hex>/<62 hex>.co (entry_path of a SHA-256 key), and the .md5
// files of kdbgen 0.x caches: trim and clean touch nothing else, whatever
// folder they are pointed at.
bool BuildCache::is_entry(const fs::path& path) const {
    if (path.extension() != ".co" && path.extension() != ".md5") return false;
    if (path.parent_path().parent_path() != dir_) return false;
    return all_hex(path.parent_path().filename().string(), 2) && all_hex(path.stem().string(), 62);
}

fs::path BuildCache::default_dir() {
    if (const char* env = std::getenv("KDBGEN_CACHE_DIR"); env && *env) return env;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kdbgen";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kdbgen";
    // No home (systemd units, env -i, some CI and chroots): a folder of this user's own, never one
    // shared by every user of TMPDIR (another user could plant entries there).
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
        return fs::path(runtime) / "kdbgen-cache";
    return fs::temp_directory_path() / fmt::format("kdbgen-cache-{}", ::geteuid());
}

fs::path BuildCache::entry_path(const std::string& key, const char* suffix) const {
    return dir_ / key.substr(0, 2) / (key.substr(2) + suffix);
}

// A code object entry is sealed under the key of its command (cache_entry.hpp):
// an entry moved to another key, cut, or edited with a digest recomputed over the
// object alone is a miss and is removed.
std::optional<Bytes> BuildCache::load(const std::string& key) {
    const auto object = entry_path(key, ".co");
    std::error_code ec;
    const auto status = fs::symlink_status(object, ec);
    if (!fs::exists(status)) {
        std::lock_guard lock(g_counter_mutex);
        ++session_.misses;
        return std::nullopt;
    }
    std::string why = "not a regular file";
    if (fs::is_regular_file(status)) {
        try {
            const Bytes data = read_file(object);
            if (const auto code = open_cache_entry("code-object", key, std::string_view(data.data(), data.size()), &why)) {
                if (code->empty()) {
                    why = "empty code object";
                } else {
                    fs::last_write_time(object, fs::file_time_type::clock::now(), ec);  // LRU order for trim()
                    std::lock_guard lock(g_counter_mutex);
                    ++session_.hits;
                    return Bytes(code->begin(), code->end());
                }
            }
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    report_refused_cache_entry("code-object", object, why);
    fs::remove(object, ec);
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
        const Bytes entry = seal_cache_entry("code-object", key, code);
        write_file_atomic(object, entry);
        fs::remove(entry_path(key, ".md5"), ec);  // a kdbgen 0.x digest beside it
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
    // Only kdbgen's own subfolders, and only in a tagged cache (ExistingOnly).
    fs::remove_all(dir_ / "find-db", ec);  // unpacked find-dbs (read_find_db)
    fs::remove_all(dir_ / "plan", ec);     // plans (plan_cache.hpp)
    fs::remove_all(dir_ / "engine", ec);   // the MIOpen engine's kernels and settled problems (engine_cache.hpp)
    return trim(0);
}

}  // namespace kdbgen
