// Files beneath a folder, no link followed (beneath.hpp).
#include "beneath.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kdbgen::engine {

namespace {

// A descriptor closed when it goes.
struct Fd {
    int fd = -1;
    explicit Fd(int f = -1) : fd(f) {}
    Fd(Fd&& other) noexcept : fd(other.fd) { other.fd = -1; }
    Fd& operator=(Fd&& other) noexcept {
        std::swap(fd, other.fd);
        return *this;
    }
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

[[noreturn]] void refuse(const fs::path& base, const fs::path& relative, const std::string& why) {
    throw InputError(fmt::format("{}: {} (written by the MIOpen client kdbgen ran there; kdbgen follows no link "
                                 "in a run folder)",
                                 (base / relative).string(), why));
}

// The parts of a relative path kdbgen made: no "..", no absolute path.
std::vector<std::string> parts_of(const fs::path& base, const fs::path& relative) {
    std::vector<std::string> parts;
    for (const auto& part : relative) {
        const std::string name = part.string();
        if (name.empty() || name == ".") continue;
        if (name == ".." || name == "/") refuse(base, relative, "not a path beneath the run folder");
        parts.push_back(name);
    }
    return parts;
}

// Opens the folder `name` in `dir` without following a link; -1 with errno.
int open_folder_at(int dir, const std::string& name) {
    return openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

Fd walk(int base_fd, const fs::path& base, const fs::path& relative, bool make) {
    Fd dir(fcntl(base_fd, F_DUPFD_CLOEXEC, 0));
    fs::path so_far;
    for (const auto& name : parts_of(base, relative)) {
        so_far /= name;
        int next = open_folder_at(dir.fd, name);
        if (next < 0 && errno == ENOENT && make) {
            if (mkdirat(dir.fd, name.c_str(), 0755) != 0 && errno != EEXIST)
                refuse(base, so_far, std::string("cannot make it: ") + std::strerror(errno));
            next = open_folder_at(dir.fd, name);
        }
        if (next < 0) {
            if (errno == ENOENT) return Fd(-1);
            refuse(base, so_far,
                   errno == ELOOP || errno == ENOTDIR ? "a link or a file where kdbgen keeps a folder"
                                                      : std::string("cannot open it: ") + std::strerror(errno));
        }
        dir = Fd(next);
    }
    return dir;
}

std::pair<Fd, std::string> parent_and_name(int base_fd, const fs::path& base, const fs::path& relative, bool make) {
    const auto parts = parts_of(base, relative);
    if (parts.empty()) refuse(base, relative, "no file name");
    fs::path parent;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) parent /= parts[i];
    return {walk(base_fd, base, parent, make), parts.back()};
}

// The regular file `name` in `dir`, opened without following a link.
Fd open_regular(int dir, const std::string& name, const fs::path& base, const fs::path& shown) {
    Fd file(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.fd < 0) {
        if (errno == ENOENT) return file;
        refuse(base, shown, errno == ELOOP ? "a link where kdbgen reads a file" : std::strerror(errno));
    }
    struct stat st {};
    if (fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse(base, shown, "not a regular file");
    return file;
}

Bytes read_all(int fd, std::size_t max_bytes, const fs::path& base, const fs::path& shown) {
    Bytes data;
    char buffer[65536];
    for (;;) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) refuse(base, shown, std::string("cannot read it: ") + std::strerror(errno));
        if (n == 0) return data;
        if (data.size() + static_cast<std::size_t>(n) > max_bytes)
            refuse(base, shown, fmt::format("larger than the {} bytes kdbgen reads of it", max_bytes));
        data.insert(data.end(), buffer, buffer + n);
    }
}

void write_all(int fd, const char* data, std::size_t size, const fs::path& base, const fs::path& shown) {
    while (size > 0) {
        const ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) refuse(base, shown, std::string("cannot write it: ") + std::strerror(errno));
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

// Every entry of a folder but . and .., with its kind as lstat sees it.
std::vector<std::pair<std::string, mode_t>> entries_of(int dir_fd) {
    std::vector<std::pair<std::string, mode_t>> entries;
    const int copy = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    DIR* dir = copy >= 0 ? fdopendir(copy) : nullptr;
    if (!dir) {
        if (copy >= 0) close(copy);
        return entries;
    }
    rewinddir(dir);
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        struct stat st {};
        if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) entries.emplace_back(name, st.st_mode);
    }
    closedir(dir);
    return entries;
}

void remove_in(int dir_fd, const std::string& name) {
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        Fd inner(open_folder_at(dir_fd, name));
        if (inner.fd >= 0)
            for (const auto& [child, mode] : entries_of(inner.fd)) remove_in(inner.fd, child);
        unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR);
        return;
    }
    unlinkat(dir_fd, name.c_str(), 0);
}

}  // namespace

Beneath::Beneath(const fs::path& base) : base_(base) {
    fd_ = open(base.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) throw InputError(fmt::format("{}: cannot open kdbgen's run folder: {}", base.string(), std::strerror(errno)));
}

Beneath::~Beneath() {
    if (fd_ >= 0) close(fd_);
}

void Beneath::make_folders(const fs::path& relative) const { walk(fd_, base_, relative, true); }

void Beneath::write_new_file(const fs::path& relative, std::string_view text) const {
    auto [dir, name] = parent_and_name(fd_, base_, relative, true);
    Fd file(openat(dir.fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (file.fd < 0) refuse(base_, relative, std::string("cannot make it: ") + std::strerror(errno));
    write_all(file.fd, text.data(), text.size(), base_, relative);
}

std::optional<Bytes> Beneath::read_file(const fs::path& relative, std::size_t max_bytes) const {
    auto [dir, name] = parent_and_name(fd_, base_, relative, false);
    if (dir.fd < 0) return std::nullopt;
    const Fd file = open_regular(dir.fd, name, base_, relative);
    if (file.fd < 0) return std::nullopt;
    return read_all(file.fd, max_bytes, base_, relative);
}

std::vector<fs::path> Beneath::find_files(const fs::path& relative, std::string_view suffix,
                                          std::vector<std::string>& refused) const {
    std::vector<fs::path> found;
    const Fd top = walk(fd_, base_, relative, false);
    if (top.fd < 0) return found;
    // (folder fd, its path) still to read; depth-first.
    std::vector<std::pair<Fd, fs::path>> pending;
    pending.emplace_back(Fd(fcntl(top.fd, F_DUPFD_CLOEXEC, 0)), relative);
    while (!pending.empty()) {
        auto [dir, path] = std::move(pending.back());
        pending.pop_back();
        for (const auto& [name, mode] : entries_of(dir.fd)) {
            if (S_ISDIR(mode)) {
                Fd inner(open_folder_at(dir.fd, name));
                if (inner.fd >= 0) pending.emplace_back(std::move(inner), path / name);
                continue;
            }
            if (!name.ends_with(suffix)) continue;
            if (S_ISREG(mode)) found.push_back(path / name);
            else refused.push_back((base_ / path / name).string());
        }
    }
    return found;
}

void Beneath::copy_tree(const fs::path& from, const fs::path& to, std::vector<std::string>& refused) const {
    const Fd source = walk(fd_, base_, from, false);
    if (source.fd < 0) return;
    make_folders(to);
    for (const auto& [name, mode] : entries_of(source.fd)) {
        if (S_ISDIR(mode)) {
            copy_tree(from / name, to / name, refused);
            continue;
        }
        if (!S_ISREG(mode)) {
            refused.push_back((base_ / from / name).string());
            continue;
        }
        const Fd in = open_regular(source.fd, name, base_, from / name);
        if (in.fd < 0) continue;
        const Bytes data = read_all(in.fd, std::size_t(1) << 32, base_, from / name);
        write_new_file(to / name, std::string_view(data.data(), data.size()));
    }
}

void Beneath::remove_tree(const fs::path& relative) const {
    auto [dir, name] = parent_and_name(fd_, base_, relative, false);
    if (dir.fd >= 0) remove_in(dir.fd, name);
}

}  // namespace kdbgen::engine
