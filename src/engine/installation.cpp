// The installed MIOpen, resolved once (include/kdbgen/installation.hpp).
#include "kdbgen/installation.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace kdbgen {

namespace {

// Bumped when the same library and problem would be stored differently (engine_cache.cpp keys by it too).
constexpr std::string_view kIdentityRules = "kdbgen engine cache 2: handle per problem, settled lookups, unbuildable keys";

// Digests of files hashed in an earlier run, by what stat says of them
// (device, inode, size, modification and change times): any write changes the
// change time, which no caller can set, so a file that stats the same holds
// the same bytes. Kept in the build cache (remember_digests); a rerun then
// reads neither the library nor 784 MB of find-dbs again.
struct DigestMemo {
    fs::path file;
    std::map<std::string, std::string> digests;  // stat words -> SHA-256
    bool changed = false;
};
DigestMemo& digest_memo() {
    static DigestMemo memo;
    return memo;
}

std::string stat_key(const struct stat& st) {
    return fmt::format("{} {} {} {}.{} {}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                       st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

// Absolute compiler paths in the library's read-only data: the HIP compiler
// (/usr/bin/clang++-21) and, in Debian's 3.4.0, an OpenCL compiler in the
// package's build tree that no installed system has.
// Read whole and scanned for runs of printable bytes; only a run naming clang
// goes to the regex (a rerun's fixed cost: 29 MB read a byte at a time through
// an istream took a quarter of a warm run).
std::vector<std::string> scan_compiler_paths(const fs::path& library) {
    Bytes bytes;
    try {
        bytes = read_file(library);
    } catch (const std::exception&) {
        throw InputError(located(library.string(), 0, "cannot read the MIOpen library"));
    }
    static const std::regex compiler(R"(/[A-Za-z0-9_.+/-]*/clang(\+\+)?(-[0-9]+)?)");
    std::set<std::string> found;
    const std::string_view text(bytes.data(), bytes.size());
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] >= 0x20 && text[i] < 0x7f) continue;
        const std::string_view run = text.substr(start, i - start);
        start = i + 1;
        if (run.size() < 8 || run.size() >= 256 || run.find("clang") == std::string_view::npos) continue;
        if (std::regex_match(run.begin(), run.end(), compiler)) found.emplace(run);
    }
    return {found.begin(), found.end()};
}

// The same, remembered with the digests by what stat says of the library.
std::vector<std::string> compiler_paths(const fs::path& library) {
    DigestMemo& memo = digest_memo();
    struct stat st {};
    if (memo.file.empty() || ::stat(library.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return scan_compiler_paths(library);
    const std::string key = "compilers " + stat_key(st);
    if (const auto known = memo.digests.find(key); known != memo.digests.end())
        return known->second == "-" ? std::vector<std::string>{} : split(known->second, ' ');
    const auto paths = scan_compiler_paths(library);
    memo.digests[key] = paths.empty() ? "-" : join(paths, " ");
    memo.changed = true;
    return paths;
}

// The real compiler inside the root for a path the library names: the root's
// LLVM of the same major version (clang-21 -> /usr/lib/llvm-21/bin/clang).
std::string real_compiler_for(const fs::path& root, const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    static const std::regex versioned(R"((clang(\+\+)?)-([0-9]+))");
    std::smatch match;
    if (!std::regex_match(name, match, versioned))
        throw InputError(fmt::format("the MIOpen library starts the compiler {}, which names no LLVM version; "
                                     "kdbgen cannot tell which of the root's compilers it is",
                                     path));
    const std::string real = fmt::format("/usr/lib/llvm-{}/bin/{}", match[3].str(), match[1].str());
    if (!resolve_in_root(root, real))
        throw InputError(fmt::format("the MIOpen library starts {}, but {} has no {}: install clang-{} (and lld-{}, "
                                     "llvm-{}, clang-tools-{}) there",
                                     path, root.string(), real, match[3].str(), match[3].str(), match[3].str(),
                                     match[3].str()));
    return real;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

EngineHelpers find_helpers(const fs::path& given) {
    // Installed: bin/kdbgen and libexec/kdbgen/; in the build tree: side by side.
    fs::path dir = given;
    if (dir.empty()) {
        dir = executable_dir().parent_path() / "libexec" / "kdbgen";
        if (!fs::exists(dir / "kdbgen-miopen-replay")) dir = executable_dir();
    }
    EngineHelpers helpers{dir / "kdbgen-miopen-replay", dir / "kdbgen-sandbox", dir / "hip-stub",
                          dir / "kdbgen-compiler-wrapper"};
    std::error_code ec;
    if (!fs::is_regular_file(helpers.replay, ec) || !fs::is_regular_file(helpers.sandbox, ec) ||
        !fs::is_directory(helpers.stubs, ec) || !fs::is_regular_file(helpers.compiler_wrapper, ec))
        throw InputError(fmt::format("kdbgen-miopen-replay, kdbgen-sandbox, kdbgen-compiler-wrapper or hip-stub/ is "
                                     "missing from {} (built with kdbgen; installed to libexec/kdbgen)",
                                     dir.string()));
    return helpers;
}

// MIOpen's system db folder is <prefix>/share/miopen/db, fixed when it was
// built: 3.5.1 (Debian 7.2.4) names /usr/share/miopen/db, 3.4.0 (6.4.3)
// finds share/miopen/db next to its library's prefix.
std::optional<SystemDbFolder> installed_system_db(const fs::path& root, const fs::path& library) {
    std::vector<fs::path> candidates{"/usr/share/miopen/db"};
    for (fs::path dir = library.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        candidates.push_back(dir / "share" / "miopen" / "db");
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (const auto host = resolve_in_root(root, candidate); host && fs::is_directory(*host, ec))
            return SystemDbFolder{*host, candidate, false, {}};
    }
    return std::nullopt;
}

// Debian ships MIOpenDriver in libmiopen1-tests; MIOpen's own install puts it in <prefix>/bin.
std::optional<fs::path> installed_driver(const fs::path& root, const fs::path& library) {
    std::vector<fs::path> candidates{"/usr/libexec/rocm/libmiopen1-tests/MIOpenDriver"};
    for (fs::path dir = library.parent_path(); dir.has_relative_path(); dir = dir.parent_path())
        candidates.push_back(dir / "bin" / "MIOpenDriver");
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (const auto host = resolve_in_root(root, candidate); host && fs::is_regular_file(*host, ec))
            return candidate;
    }
    return std::nullopt;
}

// A file's bytes into the digest in pieces: a library is tens of megabytes, a
// compiler a hundred. Only a regular file on a real file system, and no more
// than the size it states: a root's link to /proc/self/pagemap (size 0,
// endless bytes) or a device is refused, naming it, before any client starts.
void add_file(Sha256& hash, const fs::path& path, const std::string& name = {}) {
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError(located(path.string(), 0, std::string("cannot read it: ") + std::strerror(errno)));
    struct stat st {};
    struct statfs fs_info {};
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool pseudo = fstatfs(fd, &fs_info) == 0 &&
                        (fs_info.f_type == PROC_SUPER_MAGIC || fs_info.f_type == SYSFS_MAGIC ||
                         fs_info.f_type == DEBUGFS_MAGIC || fs_info.f_type == TRACEFS_MAGIC);
    if (!regular || pseudo || st.st_size > (std::int64_t{16} << 30)) {
        close(fd);
        throw InputError(located(path.string(), 0, "not a regular file of the installation (a device, a file of "
                                                    "/proc or /sys, or over 16 GiB): kdbgen will not read it"));
    }
    const std::string key = stat_key(st);
    DigestMemo& memo = digest_memo();
    if (const auto known = memo.digests.find(key); !memo.file.empty() && known != memo.digests.end()) {
        close(fd);
        hash.add(name.empty() ? path.filename().string() : name).add(known->second);
        return;
    }
    std::string chunk(1 << 20, '\0');
    Sha256 file;
    for (auto left = static_cast<std::uint64_t>(st.st_size); left > 0;) {
        const ssize_t n = read(fd, chunk.data(), std::min<std::uint64_t>(chunk.size(), left));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        file.add(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
        left -= static_cast<std::uint64_t>(n);
    }
    close(fd);
    const std::string digest = file.hex();
    if (!memo.file.empty()) {
        memo.digests[key] = digest;
        memo.changed = true;
    }
    hash.add(name.empty() ? path.filename().string() : name).add(digest);
}

}  // namespace

namespace {
bool ends_with_any(const std::string& name, std::initializer_list<std::string_view> endings) {
    return std::any_of(endings.begin(), endings.end(), [&](std::string_view end) { return name.ends_with(end); });
}
}  // namespace

std::map<std::string, std::string> db_files_read(const std::vector<std::string>& entries, const Target& card) {
    const std::string db_id = card.db_id();
    struct Closest {
        std::string file;
        long distance = -1;
        bool tie = false;
    };
    std::map<std::string, Closest> by_kind;
    for (const auto& name : entries) {
        if (!name.starts_with(db_id)) continue;
        // GetDbBasename's two spellings: _<decimal> up to 64 CUs, <hex> above.
        const std::string rest = name.substr(db_id.size());
        const bool decimal = rest.starts_with('_');
        const std::size_t digits_from = decimal ? 1 : 0;
        std::size_t end = digits_from;
        while (end < rest.size() && (decimal ? std::isdigit(static_cast<unsigned char>(rest[end]))
                                             : std::isxdigit(static_cast<unsigned char>(rest[end]))))
            ++end;
        if (end == digits_from || end - digits_from > 6 || end >= rest.size() || rest[end] != '.') continue;
        const long count = std::stol(rest.substr(digits_from, end - digits_from), nullptr, decimal ? 10 : 16);
        const long distance = std::labs(count - static_cast<long>(card.compute_units));
        Closest& closest = by_kind[rest.substr(end)];
        if (closest.distance < 0 || distance < closest.distance) closest = {name, distance, false};
        else if (distance == closest.distance) closest.tie = true;
    }
    std::map<std::string, std::string> read;
    for (const auto& [kind, closest] : by_kind) read[kind] = closest.tie ? "" : closest.file;
    return read;
}

std::size_t SystemDbFolder::find_dbs() const {
    return std::count_if(entries.begin(), entries.end(), [](const std::string& n) { return ends_with_any(n, {".fdb.txt", ".fdb.txt.bz2"}); });
}
std::size_t SystemDbFolder::perf_dbs() const {
    return std::count_if(entries.begin(), entries.end(), [](const std::string& n) { return ends_with_any(n, {".db.txt", ".db", ".db.bz2"}); });
}
std::size_t SystemDbFolder::models() const {
    return std::count_if(entries.begin(), entries.end(), [](const std::string& n) { return n.ends_with(".model"); });
}
std::string SystemDbFolder::describe() const {
    return fmt::format("{} find-dbs, {} perf-dbs, {} tuning models", find_dbs(), perf_dbs(), models());
}

std::string Installation::where() const { return root == "/" ? "" : " in " + root.string(); }

std::vector<CompilerWrapper> plan_compiler_wrappers(const fs::path& root, const fs::path& library,
                                                    const fs::path& wrapper_template) {
    const auto on_host = resolve_in_root(root, library);
    std::error_code ec;
    if (!on_host || !fs::is_regular_file(*on_host, ec))
        throw InputError(located((root / library.relative_path()).string(), 0,
                                 "no MIOpen library there (--miopen-lib, inside --miopen-root)"));
    const Bytes text = read_file(wrapper_template);
    const std::string wrapper(text.begin(), text.end());
    std::vector<CompilerWrapper> wrappers;
    for (const auto& path : compiler_paths(*on_host)) {
        // Only normal absolute paths: the sandbox puts the wrapper where the
        // root's own links lead, and a ".." part would say two things at once.
        if (fs::path(path).lexically_normal() != fs::path(path) || path.find("/./") != std::string::npos)
            throw InputError(fmt::format("{}: the compiler path {} is not a plain path; kdbgen will not put its "
                                         "wrapper there", library.string(), path));
        // A regular file at the path (no link) is the real compiler, kept
        // beside the wrapper; else the root's LLVM of the same version.
        const auto entry = resolve_parent_in_root(root, path);
        const bool own_file = entry && fs::is_regular_file(fs::symlink_status(*entry, ec));
        const std::string real = own_file ? path + ".kdbgen-real" : real_compiler_for(root, path);
        const std::string script =
            replace_all(replace_all(wrapper, "@KDBGEN_REAL_COMPILER@", real), "@KDBGEN_COMPILER@", path);
        wrappers.push_back({path, script, own_file ? path : real});
    }
    return wrappers;
}

Installation resolve_installation(const InstallationRequest& request) {
    Installation installation;
    installation.root = request.root;
    installation.library = request.library;
    std::error_code ec;
    if (request.root != "/" && !fs::is_directory(request.root, ec))
        throw InputError(located(request.root.string(), 0, "--miopen-root: not a folder"));
    installation.helpers = find_helpers(request.helper_dir);
    installation.compilers = plan_compiler_wrappers(request.root, request.library, installation.helpers.compiler_wrapper);
    installation.library_on_host = *resolve_in_root(request.root, request.library);
    if (request.miopen_db) {
        if (!fs::is_directory(*request.miopen_db, ec))
            throw InputError(located(request.miopen_db->string(), 0, "--miopen-db: not a folder"));
        installation.system_db = SystemDbFolder{fs::absolute(*request.miopen_db), "/.kdbgen-miopen-db", true, {}};
    } else {
        installation.system_db = installed_system_db(request.root, request.library);
    }
    if (auto& db = installation.system_db) {
        // A kdb installed there is left out: what the build machine had installed never hides a kernel.
        for (const auto& entry : fs::directory_iterator(db->on_host, ec))
            if (entry.path().extension() != ".kdb") db->entries.push_back(entry.path().filename().string());
        std::sort(db->entries.begin(), db->entries.end());
    }
    if (request.miopen_db && installation.system_db->files_of_miopen() == 0)
        throw InputError(located(request.miopen_db->string(), 0,
                                 fmt::format("--miopen-db: no MIOpen db file there (find-dbs *.fdb.txt, perf-dbs "
                                             "*.db.txt or *.db, tuning models *.model); it holds {}",
                                             installation.system_db->entries.empty()
                                                 ? std::string("nothing")
                                                 : fmt::format("{} other entries, the first {}",
                                                               installation.system_db->entries.size(),
                                                               installation.system_db->entries.front()))));
    installation.driver = installed_driver(request.root, request.library);
    if (request.identify) installation.identity = engine_identity(installation);
    return installation;
}

std::string engine_identity(const Installation& installation) {
    Sha256 hash;
    hash.add(kIdentityRules);
    add_file(hash, installation.library_on_host);
    std::error_code ec;
    std::vector<std::pair<std::string, fs::path>> beside;  // the name in the folder, the file it is
    // Links among them are resolved in the root, as the library's loader sees them there.
    const fs::path folder_inside = installation.library.parent_path();
    for (const auto& entry : fs::directory_iterator(installation.library_on_host.parent_path(), ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with("libamd_comgr.so.") && !name.starts_with("libhiprtc.so.") &&
            !name.starts_with("libhiprtc-builtins.so."))
            continue;
        if (const auto resolved = resolve_in_root(installation.root, folder_inside / name))
            beside.emplace_back(name, *resolved);
    }
    std::sort(beside.begin(), beside.end());
    for (const auto& [name, path] : beside) add_file(hash, path, name);
    for (const auto& wrapper : installation.compilers) {
        hash.add(wrapper.path).add(wrapper.script);
        if (const auto real = resolve_in_root(installation.root, wrapper.real)) add_file(hash, *real);
    }
    if (const auto status = resolve_in_root(installation.root, "/var/lib/dpkg/status")) add_file(hash, *status);
    return hash.hex().substr(0, 32);
}

std::string system_db_fingerprint(const std::optional<fs::path>& folder) {
    Sha256 hash;
    hash.add("system db");
    if (!folder) return hash.hex();
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(*folder, ec))
        if (entry.path().extension() != ".kdb" && entry.is_regular_file(ec)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) add_file(hash, file);
    return hash.hex();
}

void remember_digests(const fs::path& file) {
    DigestMemo& memo = digest_memo();
    memo = DigestMemo{file, {}, false};
    std::string text;
    try {
        text = read_text_file(file);
    } catch (const std::exception&) {
        return;  // none yet
    }
    for (const auto& line : split(text, '\n')) {
        const auto tab = line.find('\t');
        // A line this kdbgen wrote: stat words, a tab, 64 hex digits (or for "compilers ..." the
        // paths, none holding a space or a tab); anything else is left out.
        if (tab == std::string::npos || (!line.starts_with("compilers ") && line.size() - tab - 1 != 64)) continue;
        memo.digests[line.substr(0, tab)] = line.substr(tab + 1);
    }
}

void save_digests() {
    DigestMemo& memo = digest_memo();
    if (memo.file.empty() || !memo.changed) return;
    std::string text;
    for (const auto& [key, digest] : memo.digests) text += key + "\t" + digest + "\n";
    fs::create_directories(memo.file.parent_path());
    write_file_atomic(memo.file, std::span<const char>(text.data(), text.size()));
    memo.changed = false;
}

}  // namespace kdbgen
