#include "kdbgen/miopen_tree.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <regex>

namespace kdbgen {

std::string MiopenVersion::text() const { return fmt::format("{}.{}.{}", major, minor, patch); }

MiopenVersion parse_miopen_version(std::string_view text) {
    const auto parts = split(trim(text), '.');
    MiopenVersion v;
    const auto number = [&](std::size_t i) {
        const auto n = parse_int(parts[i]);
        if (!n || *n < 0) throw InputError(fmt::format("invalid MIOpen version '{}'", text));
        return static_cast<int>(*n);
    };
    if (parts.size() < 2 || parts.size() > 3) throw InputError(fmt::format("invalid MIOpen version '{}'", text));
    v.major = number(0);
    v.minor = number(1);
    if (parts.size() == 3) v.patch = number(2);
    return v;
}

bool is_supported_miopen_version(const MiopenVersion& v) {
    return v.major == 3 && (v.minor == 2 || v.minor == 3);
}

std::string PerfDb::config_key(const ConvProblem& p) {
    // Columns of the perf-db `config` table, in order. 2-D problems store
    // depth 1 and zero pad, stride and dilation in depth.
    const bool three_d = p.spatial_dims == 3;
    const auto at = [&](std::span<const long> v, int i2, int i3) { return three_d ? v[i3] : v[i2]; };
    const char dir = p.direction == ConvDirection::Forward ? 'F' : p.direction == ConvDirection::BackwardData ? 'B' : 'W';
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", p.in_layout,
                       p.data_types, dir, p.spatial_dims, p.in_channels, at(p.in_spatial, 0, 1), at(p.in_spatial, 1, 2),
                       three_d ? p.in_spatial[0] : 1, at(p.weights_spatial, 0, 1), at(p.weights_spatial, 1, 2),
                       three_d ? p.weights_spatial[0] : 1, p.out_channels, p.batch, at(p.pads, 0, 1), at(p.pads, 1, 2),
                       three_d ? p.pads[0] : 0, at(p.strides, 0, 1), at(p.strides, 1, 2), three_d ? p.strides[0] : 0,
                       at(p.dilations, 0, 1), at(p.dilations, 1, 2), three_d ? p.dilations[0] : 0, p.bias, p.groups);
}

namespace {

// A path as an SQLite URI's path: the characters URIs give a meaning escaped.
std::string uri_escape(const std::string& path) {
    std::string out;
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#' || static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e)
            out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out;
}

}  // namespace

PerfDb::PerfDb(const fs::path& path) : path_(path) {
    fs::path db_path = path;
    std::optional<AtomicFile> unpacked;  // removed when done
    if (path.extension() == ".bz2") {
        Bytes plain;
        try {
            plain = bz2_decompress_stream(read_file(path));
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            throw InputError(located(path.string(), 0, e.what()));
        }
        unpacked.emplace(fs::temp_directory_path() / "kdbgen-perfdb");
        write_file_atomic(unpacked->temp_path(), plain);
        db_path = unpacked->temp_path();
    }
    sqlite3* db = nullptr;
    // immutable=1: no locks, and no -wal or -shm file next to it whatever journal
    // mode its header records (MIOpen writes its dbs in WAL mode).
    if (!unpacked) require_regular_input(path);
    const std::string uri = "file:" + uri_escape(fs::absolute(db_path).string()) + "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw InputError(located(path.string(), 0, "cannot open perf-db"));
    }
    // A damaged page must not give a partial read (kernels with default
    // tunings MIOpen never asks for): SQLite's integrity check first, then
    // every row checked, and a read that stops early is an error.
    const auto fail = [&](const std::string& why) {
        sqlite3_close(db);
        return InputError(located(path.string(), 0, why));
    };
    {
        sqlite3_stmt* check = nullptr;
        if (sqlite3_prepare_v2(db, "PRAGMA integrity_check;", -1, &check, nullptr) != SQLITE_OK)
            throw fail(std::string("not a MIOpen perf-db: ") + sqlite3_errmsg(db));
        std::vector<std::string> faults;
        int rc;
        while ((rc = sqlite3_step(check)) == SQLITE_ROW) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(check, 0));
            const std::string line = text ? text : "";
            if (line != "ok" && faults.size() < 3) faults.push_back(line);
        }
        sqlite3_finalize(check);
        if (rc != SQLITE_DONE) throw fail(std::string("perf-db is damaged: ") + sqlite3_errmsg(db));
        if (!faults.empty()) throw fail("perf-db fails SQLite's integrity check: " + join(faults, "; "));
    }
    const char* sql =
        "SELECT c.layout, c.data_type, c.direction, c.spatial_dim, c.in_channels, c.in_h, c.in_w, c.in_d, c.fil_h, "
        "c.fil_w, c.fil_d, c.out_channels, c.batchsize, c.pad_h, c.pad_w, c.pad_d, c.conv_stride_h, c.conv_stride_w, "
        "c.conv_stride_d, c.dilation_h, c.dilation_w, c.dilation_d, c.bias, c.group_count, p.solver, p.params, "
        "p.rowid, c.id FROM perf_db p JOIN config c ON p.config = c.id;";
    static const char* const kColumns[] = {
        "layout", "data_type", "direction", "spatial_dim", "in_channels", "in_h", "in_w", "in_d", "fil_h",
        "fil_w", "fil_d", "out_channels", "batchsize", "pad_h", "pad_w", "pad_d", "conv_stride_h", "conv_stride_w",
        "conv_stride_d", "dilation_h", "dilation_w", "dilation_d", "bias", "group_count", "solver", "params"};
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) throw fail(std::string("not a MIOpen perf-db: ") + sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const auto bad_row = [&](const std::string& why) {
            const std::string message = fmt::format("perf_db row {} (config {}): {}", sqlite3_column_int64(stmt, 26),
                                                    sqlite3_column_int64(stmt, 27), why);
            sqlite3_finalize(stmt);
            return fail(message);
        };
        std::vector<std::string> columns;
        for (int i = 0; i < 26; ++i) {
            if (sqlite3_column_type(stmt, i) == SQLITE_NULL) throw bad_row(fmt::format("{} is NULL", kColumns[i]));
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
            std::string value = text ? text : "";
            // MIOpen's own perf-dbs hold negative sizes in some rows (gfx1030_36.db row 915, in_h -5):
            // an integer is what a row must have, not a plausible problem.
            if (i >= 3 && i < 24 && !parse_int(value))
                throw bad_row(fmt::format("{} '{}' is not an integer", kColumns[i], value));
            if (i < 3 || i >= 24) {
                const bool printable = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
                    return c >= ' ' && c < 127;  // CK params hold spaces (gfx942130.db row 20020)
                });
                if (!printable) throw bad_row(fmt::format("{} '{}' is empty or not printable text", kColumns[i], value));
            }
            if (i < 24) columns.push_back(std::move(value));
        }
        records_[{join(columns, "|"), reinterpret_cast<const char*>(sqlite3_column_text(stmt, 24))}] =
            Record{reinterpret_cast<const char*>(sqlite3_column_text(stmt, 25)), sqlite3_column_int64(stmt, 26)};
    }
    if (rc != SQLITE_DONE) {
        const std::string why = sqlite3_errmsg(db);
        sqlite3_finalize(stmt);
        throw fail("perf-db read stopped early: " + why);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

PerfDb::~PerfDb() = default;

const SharedPaths& MiopenTree::include_dirs(const fs::path& source) const {
    return source.native().starts_with(composable_kernel_dir_) ? composable_kernel_include_dirs_ : include_dirs_;
}

std::optional<std::string> PerfDb::find(const ConvProblem& problem, const std::string& solver) const {
    const auto it = records_.find({config_key(problem), solver});
    if (it == records_.end()) return std::nullopt;
    return it->second.params;
}

void PerfDb::malformed(const ConvProblem& problem, const std::string& solver, const std::string& params) const {
    const auto it = records_.find({config_key(problem), solver});
    const long long row = it == records_.end() ? 0 : it->second.row;
    throw InputError(located(path_.string(), 0,
                             fmt::format("perf_db row {}: params '{}' for {} do not parse as that solver's "
                                         "configuration (a malformed tuning is never replaced by the default)",
                                         row, params, solver)));
}

MiopenTree MiopenTree::open(const fs::path& dir, const std::optional<std::string>& assume_version) {
    const auto cmake = dir / "CMakeLists.txt";
    if (!fs::is_regular_file(cmake) || !fs::is_directory(dir / "src" / "kernels"))
        throw InputError(located(dir.string(), 0, "not a MIOpen source tree (no CMakeLists.txt and src/kernels)"));
    const std::string text = read_text_file(cmake);
    static const std::regex version_re(R"(rocm_setup_version\s*\(\s*VERSION\s+([0-9]+\.[0-9]+(\.[0-9]+)?))");
    std::smatch match;
    if (!std::regex_search(text, match, version_re))
        throw InputError(located(cmake.string(), 0, "no rocm_setup_version(VERSION x.y.z): cannot tell the MIOpen version"));
    MiopenTree tree;
    tree.root_ = dir;
    tree.kernels_dir_ = tree.root_ / "src" / "kernels";
    const auto composable_kernel = tree.kernels_dir_ / "static_composable_kernel";
    tree.composable_kernel_dir_ = (composable_kernel / "").string();
    tree.include_dirs_ = SharedPaths{tree.kernels_dir_};
    tree.composable_kernel_include_dirs_ = SharedPaths{tree.kernels_dir_};
    for (const char* dir : {"utility", "tensor_description", "tensor_operation", "kernel_algorithm"})
        tree.composable_kernel_include_dirs_.push_back(composable_kernel / "include" / dir);
    tree.detected_ = parse_miopen_version(match[1].str());
    tree.version_ = tree.detected_;
    if (assume_version) {
        tree.version_ = parse_miopen_version(*assume_version);
        if (!is_supported_miopen_version(tree.version_))
            throw InputError(fmt::format("--assume-version {} is not a version kdbgen knows (3.2, 3.3)", *assume_version));
    } else if (!is_supported_miopen_version(tree.detected_)) {
        throw InputError(fmt::format(
            "{}: MIOpen {} is not supported (kdbgen knows 3.2.x = rocm-6.2.x and 3.3.x); give --assume-version 3.3 "
            "to treat it as one of those",
            dir.string(), tree.detected_.text()));
    }
    tree.sources_ = std::make_shared<std::unordered_map<std::string, fs::path>>();
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(tree.kernels_dir(), ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const auto ext = it->path().extension().string();
        if (ext != ".cl" && ext != ".cpp" && ext != ".s") continue;
        tree.sources_->emplace(it->path().filename().string(), it->path());
    }
    return tree;
}

std::optional<SharedPath> MiopenTree::kernel_source(const std::string& file_name) const {
    const auto it = sources_->find(file_name);
    if (it == sources_->end()) return std::nullopt;
    return SharedPath(sources_, it->second);
}

std::optional<unsigned> db_file_compute_units(std::string_view file_name, std::string_view db_id) {
    if (!file_name.starts_with(db_id)) return std::nullopt;
    const auto rest = file_name.substr(db_id.size());
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0) return std::nullopt;
    const auto cus = rest.substr(0, dot);
    unsigned value = 0;
    if (cus.front() == '_') {
        const auto n = parse_int(cus.substr(1));
        if (!n || *n <= 0) return std::nullopt;
        value = static_cast<unsigned>(*n);
    } else {
        for (const char c : cus) {
            const bool digit = c >= '0' && c <= '9', hex = c >= 'a' && c <= 'f';
            if (!digit && !hex) return std::nullopt;
            value = value * 16 + static_cast<unsigned>(digit ? c - '0' : c - 'a' + 10);
        }
        // GetDbBasename writes hex only above 64 CUs.
        if (value <= 64) return std::nullopt;
    }
    return value;
}

namespace {

// The tree ships databases bzip2-compressed; MIOpen's install unpacks them
// under the same name without .bz2, which is what its lookups see.
std::optional<fs::path> shipped(const fs::path& dir, const std::string& installed_name) {
    for (const auto& name : {installed_name + ".bz2", installed_name})
        if (fs::exists(dir / name)) return dir / name;
    return std::nullopt;
}

std::string installed_name(const fs::path& path) {
    const std::string name = path.filename().string();
    return name.ends_with(".bz2") ? name.substr(0, name.size() - 4) : name;
}

}  // namespace

std::optional<fs::path> MiopenTree::find_db(const Target& target) const {
    if (target.arch_wide()) return std::nullopt;
    if (auto exact = shipped(kernels_dir(), target.db_basename() + ".HIP.fdb.txt")) return exact;
    // The inexact search (src/find_db.cpp:139-195) keeps the files whose
    // path.extension() equals ".fdb.txt"; extension() is the last one only
    // (".txt"), so in 3.2 and 3.3 it keeps none and a card without a find-db of
    // its exact name gets no system find-db. Done the same way here, so that a
    // MIOpen that fixes it needs only this condition changed.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernels_dir(), ec)) {
        const fs::path installed = installed_name(entry.path());
        if (installed.extension() == ".fdb.txt") return entry.path();
    }
    return std::nullopt;
}

std::optional<fs::path> MiopenTree::perf_db(const Target& target) const {
    if (!target.arch_wide())
        if (auto exact = shipped(kernels_dir(), target.db_basename() + ".db")) return exact;
    // The closest CU count among "<db_id>*.db", ties to the first file the
    // directory lists (strict <, execution_context.hpp:238-243); sorted here so
    // the choice does not depend on the file system's order.
    const std::string db_id = target.db_id();
    // MIOpen reads the CU count after the name's first '_' (:224-229): with an
    // underscore in the DbId itself (gfx90a_xnack) that is no number, and no
    // file qualifies.
    if (db_id.find('_') != std::string::npos) return std::nullopt;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernels_dir(), ec)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::optional<fs::path> best;
    long closest = std::numeric_limits<long>::max();
    for (const auto& file : files) {
        const fs::path installed = installed_name(file);
        if (installed.extension() != ".db") continue;
        const auto cus = db_file_compute_units(installed.filename().string(), db_id);
        if (!cus) continue;
        const long distance = std::labs(static_cast<long>(*cus) - static_cast<long>(target.compute_units));
        if (distance < closest) {
            closest = distance;
            best = file;
        }
    }
    return best;
}

std::vector<std::pair<fs::path, unsigned>> MiopenTree::find_dbs_of(const Target& target) const {
    std::vector<std::pair<fs::path, unsigned>> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernels_dir(), ec)) {
        const std::string name = installed_name(entry.path());
        if (!name.ends_with(".HIP.fdb.txt")) continue;
        if (const auto cus = db_file_compute_units(name, target.db_id())) out.emplace_back(entry.path(), *cus);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
}

}  // namespace kdbgen
