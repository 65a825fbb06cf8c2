// In-process compilation: kdbgen-compile-worker is a long-lived process that
// links Clang, LLVM and lld as libraries (the ones the toolchain's own clang
// and ld.lld are made of) and runs kdbgen's unchanged clang command lines
// without starting a process per compile. What it saves, per OpenCL compile,
// is the start of three processes (clang, clang -cc1, ld.lld) and the warm-up
// of 100+ MB of LLVM code in each (tools/inprocess-bench/RESULTS.md).
//
// One worker serves one job slot and runs one compile at a time, because
// `-mllvm` options are process-wide state. kdbgen talks to it over two pipes
// with the frames below; its stdout and stderr belong to the compiles.
//
// This header is the protocol only, shared by the worker (src/compile/worker)
// and kdbgen's side (src/compile/inprocess.cpp); it needs nothing but POSIX.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace kdbgen::worker_protocol {

// Bump on any change to the frames: kdbgen refuses a worker of another version.
inline constexpr std::uint32_t kVersion = 1;
inline constexpr const char* kWorkerName = "kdbgen-compile-worker";
// Frames above this size are a broken peer, not a message.
inline constexpr std::uint32_t kMaxFrameBytes = 1u << 30;

// The worker's first frame: who it is, so that kdbgen uses it only for the
// compiler it was built from.
struct Hello {
    std::uint32_t version = kVersion;
    std::string clang_version;  // as the first line of `clang --version` prints it
    std::string llvm_root;      // the LLVM installation it was built against
};

// One command line of Compiler::commands, as it would be run as a process.
struct Request {
    std::vector<std::string> argv;  // argv[0] is the clang (or ld.lld) path
    std::string tmpdir;             // the compile's scratch folder: TMPDIR for its temporaries
};

enum class Status : std::uint32_t {
    Ran = 0,          // exit_code and output are the command's
    Unsupported = 1,  // a job the worker does not run in-process: kdbgen runs the command itself
};

struct Response {
    Status status = Status::Ran;
    std::int32_t exit_code = 0;
    double cpu_seconds = 0;  // the worker's user + system time for this command
    std::string output;      // what the compile printed (stdout and stderr)
};

// Frames are a sequence of fields: u32 little-endian lengths and integers, raw bytes.
class Writer {
public:
    Writer& u32(std::uint32_t value) {
        for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
        return *this;
    }
    Writer& str(const std::string& text) {
        u32(static_cast<std::uint32_t>(text.size()));
        bytes_.append(text);
        return *this;
    }
    // Whole frame with its length in front; false when the peer is gone.
    bool send(int fd) const {
        std::string frame;
        const auto size = static_cast<std::uint32_t>(bytes_.size());
        for (int i = 0; i < 4; ++i) frame.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
        frame += bytes_;
        for (std::size_t done = 0; done < frame.size();) {
            const ssize_t n = ::write(fd, frame.data() + done, frame.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    }

private:
    std::string bytes_;
};

class Reader {
public:
    explicit Reader(std::string frame) : bytes_(std::move(frame)) {}
    bool u32(std::uint32_t& value) {
        if (bytes_.size() - at_ < 4) return false;
        value = 0;
        for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
        at_ += 4;
        return true;
    }
    bool str(std::string& text) {
        std::uint32_t size = 0;
        if (!u32(size) || bytes_.size() - at_ < size) return false;
        text.assign(bytes_, at_, size);
        at_ += size;
        return true;
    }
    bool done() const { return at_ == bytes_.size(); }

private:
    std::string bytes_;
    std::size_t at_ = 0;
};

// Reads one frame; false at end of file (the peer exited) or on a broken frame.
inline bool receive(int fd, std::string& frame) {
    const auto read_exactly = [fd](char* out, std::size_t size) {
        for (std::size_t done = 0; done < size;) {
            const ssize_t n = ::read(fd, out + done, size - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    };
    unsigned char head[4];
    if (!read_exactly(reinterpret_cast<char*>(head), 4)) return false;
    const std::uint32_t size = head[0] | head[1] << 8 | head[2] << 16 | static_cast<std::uint32_t>(head[3]) << 24;
    if (size > kMaxFrameBytes) return false;
    frame.resize(size);
    return read_exactly(frame.data(), size);
}

inline Writer encode(const Hello& hello) { return std::move(Writer().u32(hello.version).str(hello.clang_version).str(hello.llvm_root)); }
inline bool decode(Reader in, Hello& hello) {
    return in.u32(hello.version) && in.str(hello.clang_version) && in.str(hello.llvm_root) && in.done();
}

inline Writer encode(const Request& request) {
    Writer out;
    out.u32(static_cast<std::uint32_t>(request.argv.size()));
    for (const auto& arg : request.argv) out.str(arg);
    out.str(request.tmpdir);
    return out;
}
inline bool decode(Reader in, Request& request) {
    std::uint32_t count = 0;
    if (!in.u32(count) || count > 100000) return false;
    request.argv.resize(count);
    for (auto& arg : request.argv)
        if (!in.str(arg)) return false;
    return in.str(request.tmpdir) && in.done();
}

// cpu_seconds travels as whole microseconds.
inline Writer encode(const Response& response) {
    const auto micros = static_cast<std::uint64_t>(response.cpu_seconds * 1e6 + 0.5);
    return std::move(Writer()
                         .u32(static_cast<std::uint32_t>(response.status))
                         .u32(static_cast<std::uint32_t>(response.exit_code))
                         .u32(static_cast<std::uint32_t>(micros & 0xffffffffu))
                         .u32(static_cast<std::uint32_t>(micros >> 32))
                         .str(response.output));
}
inline bool decode(Reader in, Response& response) {
    std::uint32_t status = 0, exit_code = 0, low = 0, high = 0;
    if (!in.u32(status) || !in.u32(exit_code) || !in.u32(low) || !in.u32(high) || !in.str(response.output) || !in.done())
        return false;
    if (status > static_cast<std::uint32_t>(Status::Unsupported)) return false;
    response.status = static_cast<Status>(status);
    response.exit_code = static_cast<std::int32_t>(exit_code);
    response.cpu_seconds = static_cast<double>(static_cast<std::uint64_t>(high) << 32 | low) / 1e6;
    return true;
}

}  // namespace kdbgen::worker_protocol
