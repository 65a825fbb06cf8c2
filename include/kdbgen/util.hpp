// Small building blocks with no knowledge of MIOpen: hashing, bzip2, files,
// strings. Everything here is deterministic and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen {

using Bytes = std::vector<char>;
namespace fs = std::filesystem;

// Lowercase hex digests (OpenSSL EVP).
std::string md5_hex(std::span<const char> data);
std::string sha256_hex(std::span<const char> data);

// Incremental SHA-256 for cache keys built from many parts.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    // Each part is length-prefixed so ("ab","c") and ("a","bc") differ.
    Sha256& add(std::string_view part);
    // One part given in pieces: the same as add() of their concatenation.
    Sha256& add(std::span<const std::string_view> pieces);
    Sha256& add(std::initializer_list<std::string_view> pieces) { return add(std::span(pieces.begin(), pieces.size())); }
    std::string hex();

private:
    void* ctx_;
};

// bzip2 exactly as MIOpen's src/bz2.cpp does it (block size 9, work factor 30,
// output buffer the size of the input): nullopt when the compressed stream
// would not fit, which is MIOpen's signal to store the blob raw.
std::optional<Bytes> bz2_compress_like_miopen(std::span<const char> data);
// Limits on what a file's claims make kdbgen allocate: a kdb record's
// uncompressed_size, and a whole .bz2 input.
inline constexpr std::size_t kMaxCodeObjectBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxDecompressedBytes = std::size_t{16} << 30;
// One bzip2 stream that must decompress to at most expected_size bytes (a
// kdb blob); memory grows with the real output, not the claim. Trailing
// bytes after the stream are an error. Throws std::runtime_error.
Bytes bz2_decompress(std::span<const char> data, std::size_t expected_size);
// A .bz2 file: every stream in it, concatenated (pbzip2, `cat a.bz2 b.bz2`);
// trailing garbage after a stream is an error.
Bytes bz2_decompress_stream(std::span<const char> data);

// Only regular files are inputs: a FIFO would block its open forever, a folder
// reads as garbage. Throws InputError naming the file (a missing one, a link
// loop, a folder, a FIFO, socket or device).
void require_regular_input(const fs::path& path);
Bytes read_file(const fs::path& path);  // regular files only; throws InputError naming the file
std::string read_text_file(const fs::path& path);
// Reads a file, transparently decompressing it when it ends in .bz2.
std::string read_text_maybe_bz2(const fs::path& path);

// A file written next to its destination and renamed over it on commit(), so
// readers never see a half-written file. Destroyed without commit(): removed.
class AtomicFile {
public:
    explicit AtomicFile(fs::path destination);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    const fs::path& temp_path() const { return temp_; }
    const fs::path& destination() const { return destination_; }
    void commit();

private:
    fs::path destination_;
    fs::path temp_;
    bool committed_ = false;
    int cleanup_slot_ = -1;  // removed by the interrupt handler too
};
// A folder only this user can write, for kdbgen's cache and toolchain files:
// not a link, owned by the running user, not writable by group or others.
// Throws InputError naming it (what: "cache folder", ...) otherwise.
void check_private_folder(const fs::path& dir, std::string_view what);
// The same, made first where missing (mode 0700).
void make_private_folder(const fs::path& dir, std::string_view what);

void write_file_atomic(const fs::path& path, std::span<const char> data);
// The parts one after another, as one file.
void write_file_atomic(const fs::path& path, const std::vector<std::span<const char>>& parts);

std::vector<std::string> split(std::string_view text, char separator);
// Splits on runs of blanks, as MIOpen's SplitSpaceSeparated does.
std::vector<std::string> split_spaces(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// The first `count` lines of a compiler log, and how many more there are ("--json has the whole log").
std::string first_lines(const std::string& text, std::size_t count);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
std::string to_lower(std::string_view text);
// Parses a whole decimal integer or returns nullopt (no partial parses).
std::optional<long long> parse_int(std::string_view text);
// Exactly N comma-separated integers (a perf-db config's layout), or nullopt.
template <std::size_t N>
std::optional<std::array<int, N>> parse_int_fields(std::string_view text) {
    const auto parts = split(text, ',');
    if (parts.size() != N) return std::nullopt;
    std::array<int, N> values{};
    for (std::size_t i = 0; i < N; ++i) {
        const auto value = parse_int(parts[i]);
        if (!value) return std::nullopt;
        values[i] = static_cast<int>(*value);
    }
    return values;
}
std::string human_bytes(std::uint64_t bytes);
// The offset of the first byte that is not well-formed UTF-8, or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace kdbgen
