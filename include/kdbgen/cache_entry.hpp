// Cache entries that vouch for themselves. Every file kdbgen keeps in its cache
// (code objects, unpacked find-db text, plans) is one sealed entry: a header
// naming what kind of entry it is, the key it is stored under, the payload's
// size and the SHA-256 of all three with the payload. A reader asks for a kind
// and a key and gets the payload only when the entry says exactly that and the
// digest holds, so a swapped, cut, edited or re-sealed file is a miss: never used.
#pragma once

#include "kdbgen/util.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen {

// kind and key are single-line words (a key is a hex digest).
Bytes seal_cache_entry(std::string_view kind, std::string_view key, std::span<const char> payload);
// What seal_cache_entry puts before the payload, given in pieces.
std::string cache_entry_header(std::string_view kind, std::string_view key,
                               const std::vector<std::string_view>& payload);
// The sealed entry of the payload's pieces written to path (a temporary file renamed),
// with neither a sealed copy nor the payload whole in memory: a plan or an unpacked
// find-db is tens of megabytes.
void write_cache_entry(const fs::path& path, std::string_view kind, std::string_view key,
                       const std::vector<std::string_view>& payload);

// The payload of data when it is a whole entry of this kind sealed under this
// key, else nullopt and why (when why is given).
std::optional<std::string_view> open_cache_entry(std::string_view kind, std::string_view key, std::string_view data,
                                                 std::string* why = nullptr);

// Says on standard error, once per kind per process, that an entry was refused
// and will be rebuilt; later refusals of the kind are counted silently.
void report_refused_cache_entry(std::string_view kind, const fs::path& path, std::string_view why);

}  // namespace kdbgen
