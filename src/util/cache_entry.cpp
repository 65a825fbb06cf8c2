#include "kdbgen/cache_entry.hpp"

#include <fmt/format.h>

#include <mutex>
#include <set>

namespace kdbgen {

namespace {

constexpr std::string_view kFormat = "kdbgen-cache-entry 1\n";

std::string entry_digest(std::string_view kind, std::string_view key, std::string_view payload) {
    return Sha256().add(kFormat).add(kind).add(key).add(payload).hex();
}

// The next "<name> <value>\n" line at `at`, or nullopt.
std::optional<std::string_view> header_field(std::string_view data, std::size_t& at, std::string_view name) {
    const auto end = data.find('\n', at);
    if (end == std::string_view::npos) return std::nullopt;
    const auto line = data.substr(at, end - at);
    if (line.size() <= name.size() || !line.starts_with(name) || line[name.size()] != ' ') return std::nullopt;
    at = end + 1;
    return line.substr(name.size() + 1);
}

}  // namespace

std::string cache_entry_header(std::string_view kind, std::string_view key,
                               const std::vector<std::string_view>& payload) {
    std::size_t size = 0;
    for (const auto piece : payload) size += piece.size();
    return fmt::format("{}kind {}\nkey {}\nsize {}\nsha256 {}\n\n", kFormat, kind, key, size,
                       Sha256().add(kFormat).add(kind).add(key).add(payload).hex());
}

Bytes seal_cache_entry(std::string_view kind, std::string_view key, std::span<const char> payload) {
    const std::string header = cache_entry_header(kind, key, {std::string_view(payload.data(), payload.size())});
    Bytes out(header.begin(), header.end());
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

void write_cache_entry(const fs::path& path, std::string_view kind, std::string_view key,
                       const std::vector<std::string_view>& payload) {
    const std::string header = cache_entry_header(kind, key, payload);
    std::vector<std::span<const char>> parts{std::span<const char>(header.data(), header.size())};
    for (const auto piece : payload) parts.emplace_back(piece.data(), piece.size());
    write_file_atomic(path, parts);
}

std::optional<std::string_view> open_cache_entry(std::string_view kind, std::string_view key, std::string_view data,
                                                 std::string* why) {
    const auto refuse = [&](std::string reason) -> std::optional<std::string_view> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    if (!data.starts_with(kFormat)) return refuse("not a kdbgen cache entry");
    std::size_t at = kFormat.size();
    const auto stored_kind = header_field(data, at, "kind");
    const auto stored_key = header_field(data, at, "key");
    const auto stored_size = header_field(data, at, "size");
    const auto stored_digest = header_field(data, at, "sha256");
    if (!stored_kind || !stored_key || !stored_size || !stored_digest || at >= data.size() || data[at] != '\n')
        return refuse("damaged header");
    ++at;
    if (*stored_kind != kind) return refuse(fmt::format("a {} entry, not a {} entry", *stored_kind, kind));
    if (*stored_key != key) return refuse(fmt::format("sealed under key {}, stored under {}", *stored_key, key));
    const auto size = parse_int(*stored_size);
    if (!size || *size < 0 || static_cast<std::size_t>(*size) != data.size() - at)
        return refuse(fmt::format("holds {} bytes, its header says {}", data.size() - at, *stored_size));
    const auto payload = data.substr(at);
    if (entry_digest(kind, key, payload) != *stored_digest) return refuse("its content does not match its digest");
    return payload;
}

void report_refused_cache_entry(std::string_view kind, const fs::path& path, std::string_view why) {
    static std::mutex mutex;
    static std::set<std::string, std::less<>> reported;
    std::lock_guard lock(mutex);
    if (!reported.emplace(kind).second) return;
    fmt::print(stderr, "kdbgen: warning: cache entry {} refused ({}); it is rebuilt, not used{}\n", path.string(), why,
               " (further refused entries of this kind are rebuilt silently)");
}

}  // namespace kdbgen
