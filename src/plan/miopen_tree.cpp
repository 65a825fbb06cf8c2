#include "kdbgen/miopen_tree.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

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
    const auto at = [&](const std::vector<long>& v, int i2, int i3) { return three_d ? v[i3] : v[i2]; };
    const char dir = p.direction == ConvDirection::Forward ? 'F' : p.direction == ConvDirection::BackwardData ? 'B' : 'W';
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", p.in_layout,
                       p.data_types, dir, p.spatial_dims, p.in_channels, at(p.in_spatial, 0, 1), at(p.in_spatial, 1, 2),
                       three_d ? p.in_spatial[0] : 1, at(p.weights_spatial, 0, 1), at(p.weights_spatial, 1, 2),
                       three_d ? p.weights_spatial[0] : 1, p.out_channels, p.batch, at(p.pads, 0, 1), at(p.pads, 1, 2),
                       three_d ? p.pads[0] : 0, at(p.strides, 0, 1), at(p.strides, 1, 2), three_d ? p.strides[0] : 0,
                       at(p.dilations, 0, 1), at(p.dilations, 1, 2), three_d ? p.dilations[0] : 0, p.bias, p.groups);
}

PerfDb::PerfDb(const fs::path& path) {
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
    if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw InputError(located(path.string(), 0, "cannot open perf-db"));
    }
    const char* sql =
        "SELECT c.layout, c.data_type, c.direction, c.spatial_dim, c.in_channels, c.in_h, c.in_w, c.in_d, c.fil_h, "
        "c.fil_w, c.fil_d, c.out_channels, c.batchsize, c.pad_h, c.pad_w, c.pad_d, c.conv_stride_h, c.conv_stride_w, "
        "c.conv_stride_d, c.dilation_h, c.dilation_w, c.dilation_d, c.bias, c.group_count, p.solver, p.params "
        "FROM perf_db p JOIN config c ON p.config = c.id;";
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
        const std::string why = sqlite3_errmsg(db);
        sqlite3_close(db);
        throw InputError(located(path.string(), 0, "not a MIOpen perf-db: " + why));
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::vector<std::string> columns;
        for (int i = 0; i < 24; ++i) columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, i)));
        records_[{join(columns, "|"), reinterpret_cast<const char*>(sqlite3_column_text(stmt, 24))}] =
            reinterpret_cast<const char*>(sqlite3_column_text(stmt, 25));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

PerfDb::~PerfDb() = default;

std::optional<std::string> PerfDb::find(const ConvProblem& problem, const std::string& solver) const {
    const auto it = records_.find({config_key(problem), solver});
    if (it == records_.end()) return std::nullopt;
    return it->second;
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
    tree.sources_ = std::make_shared<std::map<std::string, fs::path>>();
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

std::optional<fs::path> MiopenTree::kernel_source(const std::string& file_name) const {
    const auto it = sources_->find(file_name);
    if (it == sources_->end()) return std::nullopt;
    return it->second;
}

std::optional<fs::path> MiopenTree::find_db(const Target& target) const {
    for (const auto& name : {target.db_basename() + ".HIP.fdb.txt.bz2", target.db_basename() + ".HIP.fdb.txt"})
        if (fs::exists(kernels_dir() / name)) return kernels_dir() / name;
    return std::nullopt;
}

std::optional<fs::path> MiopenTree::perf_db(const Target& target) const {
    for (const auto& name : {target.db_basename() + ".db.bz2", target.db_basename() + ".db"})
        if (fs::exists(kernels_dir() / name)) return kernels_dir() / name;
    return std::nullopt;
}

}  // namespace kdbgen
