#include "kdbgen/util.hpp"
#include "kdbgen/cleanup.hpp"

#include "kdbgen/error.hpp"

#include <bzlib.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <system_error>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdbgen {

std::string located(const std::string& file, std::size_t line, const std::string& message) {
    if (line == 0) return fmt::format("{}: {}", file, message);
    return fmt::format("{}:{}: {}", file, line, message);
}

namespace {

std::string to_hex(const unsigned char* digest, unsigned length) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(length * 2, '0');
    for (unsigned i = 0; i < length; ++i) {
        out[2 * i] = kDigits[digest[i] >> 4];
        out[2 * i + 1] = kDigits[digest[i] & 0xf];
    }
    return out;
}

std::string digest_hex(const EVP_MD* md, std::span<const char> data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned length = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &length, md, nullptr) != 1)
        throw std::runtime_error("OpenSSL digest failed");
    return to_hex(digest, length);
}

const char* bz2_error_text(int code) {
    switch (code) {
        case BZ_MEM_ERROR: return "out of memory";
        case BZ_OUTBUFF_FULL: return "the data is larger than its recorded size";
        case BZ_PARAM_ERROR: return "bad parameters";
        case BZ_DATA_ERROR: return "data integrity error in the compressed stream";
        case BZ_DATA_ERROR_MAGIC: return "not a bzip2 stream (bad magic bytes)";
        case BZ_UNEXPECTED_EOF: return "the compressed stream ends unexpectedly";
        default: return "unknown bzip2 error";
    }
}

}  // namespace

std::string md5_hex(std::span<const char> data) { return digest_hex(EVP_md5(), data); }
std::string sha256_hex(std::span<const char> data) { return digest_hex(EVP_sha256(), data); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL SHA-256 init failed");
}
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
Sha256& Sha256::add(std::string_view part) {
    auto* ctx = static_cast<EVP_MD_CTX*>(ctx_);
    const std::string length = std::to_string(part.size()) + ":";
    EVP_DigestUpdate(ctx, length.data(), length.size());
    EVP_DigestUpdate(ctx, part.data(), part.size());
    return *this;
}
Sha256& Sha256::add(std::span<const std::string_view> pieces) {
    auto* ctx = static_cast<EVP_MD_CTX*>(ctx_);
    std::size_t size = 0;
    for (const auto piece : pieces) size += piece.size();
    const std::string length = std::to_string(size) + ":";
    EVP_DigestUpdate(ctx, length.data(), length.size());
    for (const auto piece : pieces) EVP_DigestUpdate(ctx, piece.data(), piece.size());
    return *this;
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned length = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest, &length);
    return to_hex(digest, length);
}

std::optional<Bytes> bz2_compress_like_miopen(std::span<const char> data) {
    Bytes out(data.size());
    auto length = static_cast<unsigned>(out.size());
    const int rc = BZ2_bzBuffToBuffCompress(out.data(), &length, const_cast<char*>(data.data()),
                                            static_cast<unsigned>(data.size()), 9, 0, 30);
    if (rc == BZ_OUTBUFF_FULL) return std::nullopt;
    if (rc != BZ_OK) throw std::runtime_error(std::string("bzip2 compress: ") + bz2_error_text(rc));
    out.resize(length);
    return out;
}

Bytes bz2_decompress(std::span<const char> data, std::size_t expected_size) {
    // The recorded size is a claim of the file, not a fact: the buffer grows
    // with what the stream really yields, never past the claim, so a small
    // file that claims gigabytes costs no gigabytes.
    if (expected_size > kMaxCodeObjectBytes)
        throw std::runtime_error(fmt::format("uncompressed_size {} is more than the {} bytes kdbgen accepts for a "
                                             "code object",
                                             expected_size, kMaxCodeObjectBytes));
    bz_stream stream{};
    if (BZ2_bzDecompressInit(&stream, 0, 0) != BZ_OK) throw std::runtime_error("bzip2 init failed");
    Bytes out(std::min<std::size_t>(expected_size, std::max<std::size_t>(data.size() * 8, 1 << 16)));
    stream.next_in = const_cast<char*>(data.data());
    stream.avail_in = static_cast<unsigned>(data.size());
    std::size_t produced = 0;
    int rc = BZ_OK;
    while (rc == BZ_OK) {
        if (produced == out.size()) {
            if (out.size() >= expected_size) {
                rc = BZ_OUTBUFF_FULL;
                break;
            }
            out.resize(std::min(expected_size, out.size() * 2));
        }
        stream.next_out = out.data() + produced;
        stream.avail_out = static_cast<unsigned>(out.size() - produced);
        rc = BZ2_bzDecompress(&stream);
        produced = out.size() - stream.avail_out;
        if (rc == BZ_OK && stream.avail_in == 0 && stream.avail_out != 0) rc = BZ_UNEXPECTED_EOF;
    }
    const unsigned left = stream.avail_in;
    BZ2_bzDecompressEnd(&stream);
    if (rc != BZ_STREAM_END) throw std::runtime_error(std::string("bzip2: ") + bz2_error_text(rc));
    if (left != 0) throw std::runtime_error(fmt::format("bzip2: {} bytes of trailing data after the stream", left));
    out.resize(produced);
    return out;
}

Bytes bz2_decompress_stream(std::span<const char> data) {
    // Every stream of the file, as bzip2 -d does: pbzip2 and `cat a.bz2 b.bz2`
    // write several. After a stream's end only another stream ("BZh") may
    // follow; anything else is an error, not silently dropped.
    Bytes out;
    std::vector<char> chunk(1 << 20);
    std::size_t offset = 0;
    std::size_t streams = 0;
    while (offset < data.size() || streams == 0) {
        if (streams > 0 && (data.size() - offset < 3 || std::memcmp(data.data() + offset, "BZh", 3) != 0))
            throw std::runtime_error(fmt::format("bzip2: {} bytes of trailing garbage after stream {} (at byte {})",
                                                 data.size() - offset, streams, offset));
        bz_stream stream{};
        if (BZ2_bzDecompressInit(&stream, 0, 0) != BZ_OK) throw std::runtime_error("bzip2 init failed");
        stream.next_in = const_cast<char*>(data.data() + offset);
        stream.avail_in = static_cast<unsigned>(data.size() - offset);
        int rc = BZ_OK;
        while (rc == BZ_OK) {
            stream.next_out = chunk.data();
            stream.avail_out = static_cast<unsigned>(chunk.size());
            rc = BZ2_bzDecompress(&stream);
            out.insert(out.end(), chunk.data(), chunk.data() + (chunk.size() - stream.avail_out));
            if (rc == BZ_OK && stream.avail_in == 0 && stream.avail_out != 0) rc = BZ_UNEXPECTED_EOF;
            if (out.size() > kMaxDecompressedBytes) rc = BZ_OUTBUFF_FULL;
        }
        const std::size_t consumed = (data.size() - offset) - stream.avail_in;
        BZ2_bzDecompressEnd(&stream);
        if (rc == BZ_OUTBUFF_FULL)
            throw std::runtime_error(fmt::format("bzip2: decompresses to more than {} bytes", kMaxDecompressedBytes));
        if (rc != BZ_STREAM_END)
            throw std::runtime_error(streams ? fmt::format("bzip2: stream {} (at byte {}): {}", streams + 1, offset,
                                                           bz2_error_text(rc))
                                             : std::string("bzip2: ") + bz2_error_text(rc));
        offset += consumed;
        ++streams;
    }
    return out;
}

void require_regular_input(const fs::path& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status)) {
        if (fs::is_symlink(fs::symlink_status(path, ec)))
            throw InputError(located(path.string(), 0, "is a link to nothing (or a loop of links)"));
        throw InputError(located(path.string(), 0, "no such file"));
    }
    if (fs::is_directory(status)) throw InputError(located(path.string(), 0, "is a folder, not a file"));
    if (!fs::is_regular_file(status))
        throw InputError(located(path.string(), 0, "is not a regular file (a FIFO, socket or device): refused"));
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        if (length == 0 || (length == 2 && c < 0xc2) || (length == 4 && c > 0xf4) || i + length > text.size()) return i;
        for (std::size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
        if (length == 3) {
            const auto c1 = static_cast<unsigned char>(text[i + 1]);
            if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) return i;  // overlong, surrogate
        }
        if (length == 4) {
            const auto c1 = static_cast<unsigned char>(text[i + 1]);
            if ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90)) return i;
        }
        i += length;
    }
    return std::nullopt;
}

Bytes read_file(const fs::path& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; whatever the open
    // gives is then checked to be a regular file, so a FIFO or device planted
    // after a check is refused too.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ELOOP || err == EISDIR) require_regular_input(path);
        throw InputError(located(path.string(), 0, std::string("cannot open file for reading: ") + std::strerror(err)));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        require_regular_input(path);
        throw InputError(located(path.string(), 0, "is not a regular file"));
    }
    Bytes data(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    // One read of the whole file: find-dbs and cached objects are megabytes,
    // and a character-by-character copy was a tenth of a warm build.
    while (done < data.size()) {
        const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            throw InputError(located(path.string(), 0, std::string("read error: ") + std::strerror(err)));
        }
        if (n == 0) break;  // shrank while read
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    data.resize(done);
    return data;
}

std::string read_text_file(const fs::path& path) {
    const Bytes data = read_file(path);
    return {data.begin(), data.end()};
}

std::string read_text_maybe_bz2(const fs::path& path) {
    const Bytes data = read_file(path);
    if (path.extension() != ".bz2") return {data.begin(), data.end()};
    try {
        const Bytes text = bz2_decompress_stream(data);
        if (text.empty()) throw InputError(located(path.string(), 0, "bzip2 file decompresses to nothing (an empty file)"));
        return {text.begin(), text.end()};
    } catch (const std::runtime_error& e) {
        throw InputError(located(path.string(), 0, e.what()));
    }
}

AtomicFile::AtomicFile(fs::path destination) : destination_(std::move(destination)) {
    static std::atomic<unsigned> counter{0};
    std::random_device rd;
    const auto dir = destination_.has_parent_path() ? destination_.parent_path() : fs::path(".");
    temp_ = dir / fmt::format(".{}.tmp.{}.{}.{:x}", destination_.filename().string(), getpid(),
                              counter++, rd());
    cleanup_slot_ = register_temporary(temp_);
}

AtomicFile::~AtomicFile() {
    if (!committed_) {
        std::error_code ignored;
        fs::remove(temp_, ignored);
    }
    unregister_temporary(cleanup_slot_);
}

void AtomicFile::commit() {
    std::error_code ec;
    fs::rename(temp_, destination_, ec);
    if (ec)
        throw InputError(located(destination_.string(), 0, "cannot rename into place: " + ec.message()));
    committed_ = true;
}

void check_private_folder(const fs::path& dir, std::string_view what) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw InputError(fmt::format("{}: cannot stat the {}: {}", dir.string(), what, std::strerror(errno)));
    if (!S_ISDIR(st.st_mode))
        throw InputError(fmt::format("{}: the {} is not a folder (a link or a file)", dir.string(), what));
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        throw InputError(fmt::format("{}: the {} is not private (owned by user {}, mode {:o}; kdbgen runs as user {} "
                                     "and trusts only a folder it alone can write): remove it, fix its owner and "
                                     "mode, or give another --cache-dir",
                                     dir.string(), what, st.st_uid, st.st_mode & 07777, ::geteuid()));
}

void make_private_folder(const fs::path& dir, std::string_view what) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir, ec))) {
        fs::create_directories(dir.parent_path(), ec);
        if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            throw InputError(fmt::format("{}: cannot create the {}: {}", dir.string(), what, std::strerror(errno)));
    }
    check_private_folder(dir, what);
}

void write_file_atomic(const fs::path& path, std::span<const char> data) {
    write_file_atomic(path, std::vector<std::span<const char>>{data});
}

void write_file_atomic(const fs::path& path, const std::vector<std::span<const char>>& parts) {
    AtomicFile file(path);
    {
        // The reason (errno of the failed open or write, e.g. "No space left on
        // device") goes into the message, so a full disk says so.
        const auto failed = [&](const char* what) {
            const int err = errno;
            return InputError(located(path.string(), 0, err ? fmt::format("{}: {}", what, std::strerror(err)) : what));
        };
        errno = 0;
        std::ofstream out(file.temp_path(), std::ios::binary | std::ios::trunc);
        if (!out) throw failed("cannot open for writing");
        for (const auto& data : parts) out.write(data.data(), static_cast<std::streamsize>(data.size()));
        out.flush();
        if (!out) throw failed("write error");
    }
    file.commit();
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        const auto pos = text.find(separator, start);
        parts.emplace_back(text.substr(start, pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return parts;
}

std::vector<std::string> split_spaces(std::string_view text) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
        std::size_t j = i;
        while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j > i) parts.emplace_back(text.substr(i, j - i));
        i = j;
    }
    return parts;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += separator;
        out += parts[i];
    }
    return out;
}

std::string first_lines(const std::string& text, std::size_t count) {
    const auto lines = split(text, '\n');
    if (lines.size() <= count) return text;
    return join(std::vector<std::string>(lines.begin(), lines.begin() + static_cast<long>(count)), "\n") +
           fmt::format("\n... ({} more lines; --json has the whole log)", lines.size() - count);
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.starts_with(prefix); }

std::string to_lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::optional<long long> parse_int(std::string_view text) {
    long long value = 0;
    if (text.empty()) return std::nullopt;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::string human_bytes(std::uint64_t bytes) {
    if (bytes < 1024) return fmt::format("{} B", bytes);
    if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
    if (bytes < 1024ull * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
    return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

}  // namespace kdbgen
