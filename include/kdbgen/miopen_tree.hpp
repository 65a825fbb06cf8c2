// A MIOpen source tree the user points at (--miopen-src): its version, its
// kernel sources and include files, and its shipped find-db and perf-db.
// kdbgen reads it; nothing from it is part of kdbgen.
#pragma once

#include "kdbgen/kernel_build.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace kdbgen {

struct MiopenVersion {
    int major = 0, minor = 0, patch = 0;
    std::string text() const;  // "3.3.0"
    auto operator<=>(const MiopenVersion&) const = default;
};
// The CU count a database file name gives for a DbId, parsed as MIOpen's
// inexact searches parse it (execution_context.hpp:224-236): "_<decimal>"
// after the DbId, or hex digits right after it; nullopt when the name is not
// "<db_id>" + CUs + "." + anything.
std::optional<unsigned> db_file_compute_units(std::string_view file_name, std::string_view db_id);

// "3.3" or "3.3.0"; throws InputError.
MiopenVersion parse_miopen_version(std::string_view text);

// MIOpen versions whose option strings kdbgen has written down:
// 3.2.0 (the rocm-6.2.x tags) and 3.3.0 (develop of late 2024).
bool is_supported_miopen_version(const MiopenVersion& version);

// Tuned parameters from a perf-db (src/kernels/<basename>.db.bz2, SQLite
// tables `config` and `perf_db`), looked up by problem key and solver.
class PerfDb {
public:
    explicit PerfDb(const fs::path& path);  // .db or .db.bz2; throws InputError
    ~PerfDb();
    PerfDb(const PerfDb&) = delete;
    PerfDb& operator=(const PerfDb&) = delete;
    // params for (problem, solver), e.g. "8,8,16,32,2,4,8,1,1"
    std::optional<std::string> find(const ConvProblem& problem, const std::string& solver) const;
    // Throws the InputError for a record of (problem, solver) that the solver's
    // parser refuses: the file, the perf_db row and the value (exit 2).
    [[noreturn]] void malformed(const ConvProblem& problem, const std::string& solver, const std::string& params) const;
    std::size_t size() const { return records_.size(); }
    // The config row a problem is stored under, as one string.
    static std::string config_key(const ConvProblem& problem);

private:
    struct Record {
        std::string params;
        long long row = 0;  // perf_db rowid, for messages
    };
    fs::path path_;
    std::map<std::pair<std::string, std::string>, Record> records_;
};

class MiopenTree {
public:
    // Throws InputError when dir is not a MIOpen tree, or its version is
    // unsupported and no assume_version is given.
    static MiopenTree open(const fs::path& dir, const std::optional<std::string>& assume_version = std::nullopt);

    const fs::path& root() const { return root_; }
    const MiopenVersion& version() const { return version_; }
    const MiopenVersion& detected_version() const { return detected_; }
    // Made once: every planned build names it (a whole find-db plans ~10^5).
    const fs::path& kernels_dir() const { return kernels_dir_; }
    // The path of a kernel MIOpen names by its file name (kernels live in
    // subfolders too: gpu_reference_kernel/naive_conv.cpp); nullopt when the tree has none.
    // The tree's own copy, shared: every planned build names one.
    std::optional<SharedPath> kernel_source(const std::string& file_name) const;
    // The folders a kernel source of this tree includes from, besides its own: the kernels
    // folder, and for the static composable kernels every folder of their headers (MIOpen
    // embeds each under its bare name, src/CMakeLists.txt:365, MIOpen 3.3.0).
    const SharedPaths& include_dirs(const fs::path& source) const;
    // The system find-db MIOpen installs from this tree and reads for a card
    // (FindDbRecord_t::GetInstalledPathFile, src/find_db.cpp:124-201, MIOpen 3.3.0):
    // <DbBasename>.HIP.fdb.txt[.bz2], else its inexact search. nullopt for arch-wide targets.
    std::optional<fs::path> find_db(const Target& target) const;
    // The system perf-db for a card (ExecutionContext::GetPerfDbPathFile,
    // src/include/miopen/execution_context.hpp:183-262): <DbBasename>.db[.bz2], else the
    // file of the same DbId with the closest CU count.
    std::optional<fs::path> perf_db(const Target& target) const;
    // Every find-db of the target's DbId in the tree with the CU count its name
    // gives (gfx906_60, gfx906_64; gfx90a68, gfx90a6e), by CU count: what an
    // arch-wide kdb is built from.
    std::vector<std::pair<fs::path, unsigned>> find_dbs_of(const Target& target) const;

private:
    fs::path root_;
    fs::path kernels_dir_;
    std::string composable_kernel_dir_;  // kernels_dir_/static_composable_kernel/, as text
    SharedPaths include_dirs_, composable_kernel_include_dirs_;
    MiopenVersion version_, detected_;
    // By file name, hashed: every build an evaluation forms looks its file up here.
    std::shared_ptr<std::unordered_map<std::string, fs::path>> sources_;
};

}  // namespace kdbgen
