// Plans kept between runs. Planning a whole find-db runs MIOpen's solver
// heuristics over ~10^5 lines (seconds to minutes); the same inputs give the
// same plan, so a solver plan is stored under the SHA-256 of everything that
// decides it, in the manner of the build cache:
//   - kdbgen itself (version; size and time of its executable, as ccache's
//     compiler_check=mtime: another build of kdbgen never meets an old plan),
//   - the MIOpen tree (its path, version, and path, size and nanosecond mtime of
//     every file under src/ — kernel sources, find-dbs, perf-dbs, tuning nets and
//     the solver sources whose tables kdbgen reads),
//   - the find-dbs given (contents), the targets, the problems (kind, key and
//     origins of each, in order) and every plan option.
// An entry is sealed under its full key (cache_entry.hpp) and opened only for
// that key: a damaged entry, or one swapped in from another key and re-sealed,
// is removed and the plan made again, never used. Entries are written to a
// temporary file and renamed; the newest kPlanCacheEntries are kept, as far as
// they fit in kPlanCacheBytes.
#pragma once

#include "kdbgen/plan.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace kdbgen {

// A build plans each architecture alone: planning all 25 stores 25 entries (195 MB in all for
// MIOpen 3.3's corpus), which a warm run must find again.
inline constexpr std::size_t kPlanCacheEntries = 64;
inline constexpr std::uintmax_t kPlanCacheBytes = std::uintmax_t{1} << 30;

// The plan's key; empty when the inputs cannot be identified (no MIOpen tree).
// What the key holds of the problems: every entry's kind, key and origins.
std::string problem_set_fingerprint(const ProblemSet& problems);
std::string plan_cache_key(const ProblemSet& problems, const std::vector<Target>& targets, const SolverPlanOptions& options);

// A plan as bytes and back. The targets are the plan's own (part of the key),
// so builds refer to them by index. deserialize_plan throws std::runtime_error
// on anything that is not a complete entry of this format sealed under key.
Bytes serialize_plan(const Plan& plan, std::string_view key);
Plan deserialize_plan(std::string_view data, const std::vector<Target>& targets, std::string_view key);

struct PlanCacheUse {
    bool hit = false;
    std::string key;
    double seconds = 0;  // reading or writing the entry
    // Set by the caller: a plan made (not found) is returned unstored, and `store` stores it
    // (its entry stays locked until then). A build stores an architecture's plan on a thread
    // of its own while it hands the plan to the compiler; the plan must not change meanwhile.
    bool defer_store = false;
    std::function<void(const Plan&)> store;
};

// plan_from_problems through the cache in cache_dir/plan/ (no cache when cache_dir is empty).
Plan cached_plan_from_problems(const ProblemSet& problems, const std::vector<Target>& targets,
                               const SolverPlanOptions& options, const fs::path& cache_dir, PlanCacheUse* use = nullptr);
// The same for problems that cost more to gather than to look up (the built-in
// corpus): the key takes `problems_fingerprint`, which must change whenever the
// problems would, and `problems` is called only when the cache has no entry.
Plan cached_plan_from_source(std::string_view problems_fingerprint, const std::function<const ProblemSet&()>& problems,
                             const std::vector<Target>& targets, const SolverPlanOptions& options,
                             const fs::path& cache_dir, PlanCacheUse* use = nullptr);

}  // namespace kdbgen
