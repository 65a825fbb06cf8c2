#include "kdbgen/plan_cache.hpp"

#include "kdbgen/cache_entry.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace kdbgen {

namespace {

constexpr std::string_view kMagic = "kdbgen-plan 3\n";

long long mtime_ns(const fs::directory_entry& entry, std::error_code& ec) {
    const auto time = entry.last_write_time(ec);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

// The running kdbgen: its version and its executable's size and time.
std::string kdbgen_identity() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    std::string text = "kdbgen plan format 2\n" + exe.string();
    if (!ec) {
        const fs::directory_entry entry(exe, ec);
        text += fmt::format("\n{}\n{}", entry.file_size(ec), mtime_ns(entry, ec));
    }
    return text;
}

// Path, size and time of every file planning can read from the tree: src/ (kernels,
// find-dbs, perf-dbs, tuning nets, solver sources) and the CMakeLists.txt that gives
// the version. Sorted, so the walk order does not matter. Once per tree and process.
std::string tree_fingerprint(const MiopenTree& tree) {
    static std::mutex mutex;
    static std::map<fs::path, std::string> memo;
    std::lock_guard lock(mutex);
    if (const auto it = memo.find(tree.root()); it != memo.end()) return it->second;
    std::vector<std::string> files;
    std::error_code ec;
    const auto add = [&](const fs::directory_entry& entry) {
        files.push_back(fmt::format("{}\t{}\t{}", fs::relative(entry.path(), tree.root(), ec).string(),
                                    entry.file_size(ec), mtime_ns(entry, ec)));
    };
    add(fs::directory_entry(tree.root() / "CMakeLists.txt", ec));
    for (auto it = fs::recursive_directory_iterator(tree.root() / "src", ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) add(*it);
    std::sort(files.begin(), files.end());
    Sha256 hash;
    hash.add(tree.root().string()).add(tree.version().text()).add(tree.detected_version().text());
    for (const auto& file : files) hash.add(file);
    return memo[tree.root()] = hash.hex();
}

std::string file_content_hash(const fs::path& path) {
    const Bytes data = read_file(path);
    return Sha256().add(std::string_view(data.data(), data.size())).hex();
}

// Plan bytes: strings once, in a table; the records refer to them by number.
class Writer {
public:
    void u8(unsigned v) {
        const char byte = static_cast<char>(v);
        raw(&byte, 1);
    }
    void u32(std::uint32_t v) { raw(&v, sizeof v); }
    void u64(std::uint64_t v) { raw(&v, sizeof v); }
    void str(std::string_view s) {
        if (2 * (table_.size() + 1) > slots_.size()) grow();
        const std::uint64_t hash = std::hash<std::string_view>()(s);
        const std::size_t mask = slots_.size() - 1;
        std::size_t at = hash & mask;
        for (; slots_[at].id; at = (at + 1) & mask)
            if (slots_[at].hash == hash && table_[slots_[at].id - 1] == s) return u32(slots_[at].id - 1);
        table_.emplace_back(s);
        slots_[at] = {hash, static_cast<std::uint32_t>(table_.size())};
        u32(static_cast<std::uint32_t>(table_.size() - 1));
    }
    // Option strings as their space-separated words, each in the table: a HIP
    // implicit-GEMM kernel's 3 KB of -D defines share most words with the others.
    void words(std::string_view text) {
        u64(static_cast<std::uint64_t>(std::count(text.begin(), text.end(), ' ')) + 1);
        for (std::size_t start = 0;;) {
            const std::size_t space = text.find(' ', start);
            str(text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
            if (space == std::string_view::npos) break;
            start = space + 1;
        }
    }
    template <typename List, typename Each>
    void list(const List& items, Each each) {
        u64(items.size());
        for (const auto& item : items) each(item);
    }
    // The string table (with the magic before it) and the records: written one after the
    // other, they are the payload, with no copy of the records made.
    std::string head() const {
        std::string out(kMagic);
        const auto put32 = [&](std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
        put32(static_cast<std::uint32_t>(table_.size()));
        for (const auto& s : table_) {
            put32(static_cast<std::uint32_t>(s.size()));
            out += s;
        }
        return out;
    }
    // The records, in the blocks they were written to.
    std::vector<std::string_view> body() const { return {blocks_.begin(), blocks_.end()}; }
    // One copy of the body at a time: a plan of all 25 architectures is hundreds of megabytes.
    Bytes finish() {
        std::size_t size = kMagic.size() + 4;
        for (const auto& block : blocks_) size += block.size();
        for (const auto& s : table_) size += 4 + s.size();
        Bytes out;
        out.reserve(size);
        const auto append = [&](std::string_view bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); };
        const auto put32 = [&](std::uint32_t v) { append({reinterpret_cast<const char*>(&v), sizeof v}); };
        append(kMagic);
        put32(static_cast<std::uint32_t>(table_.size()));
        for (const auto& s : table_) {
            put32(static_cast<std::uint32_t>(s.size()));
            append(s);
        }
        for (auto& block : blocks_) {
            append(block);
            std::string().swap(block);
        }
        return out;
    }

private:
    // Written in blocks of a fixed size, not one string: one that grows by doubling holds up
    // to half its size unused, and its old and new buffer at once when it grows (90 MB for
    // gfx908's 33 MB of records).
    void raw(const void* data, std::size_t size) {
        constexpr std::size_t kBlock = std::size_t{4} << 20;
        if (blocks_.empty() || blocks_.back().size() + size > kBlock) blocks_.emplace_back().reserve(kBlock);
        blocks_.back().append(static_cast<const char*>(data), size);
    }
    void grow() {
        std::vector<Slot> slots(std::max<std::size_t>(1024, 2 * slots_.size()));
        const std::size_t mask = slots.size() - 1;
        for (const Slot& slot : slots_) {
            if (!slot.id) continue;
            std::size_t at = slot.hash & mask;
            while (slots[at].id) at = (at + 1) & mask;
            slots[at] = slot;
        }
        slots_ = std::move(slots);
    }
    std::vector<std::string> blocks_;
    // The strings by number, found by open addressing on their hash: storing a plan of all
    // 25 architectures looks up 10^7 words, and a node-based map was most of its time.
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t id = 0;  // table index + 1; 0: empty
    };
    std::vector<std::string> table_;
    std::vector<Slot> slots_;
};

class Reader {
public:
    explicit Reader(std::string_view data) : data_(data) {
        if (!data.starts_with(kMagic)) throw std::runtime_error("not a kdbgen plan");
        at_ = kMagic.size();
        const std::uint32_t count = u32();
        if (count > (data_.size() - at_) / sizeof(std::uint32_t)) throw std::runtime_error("bad string count");
        table_.reserve(count);
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t size = u32();
            table_.push_back(take(size));
        }
    }
    unsigned u8() { return static_cast<unsigned char>(take(1)[0]); }
    std::uint32_t u32() { return pod<std::uint32_t>(); }
    std::uint64_t u64() { return pod<std::uint64_t>(); }
    std::string str() { return std::string(view()); }
    std::string words() {
        std::string out;
        bool first = true;
        list([&] {
            if (!first) out += ' ';
            out += view();
            first = false;
        });
        return out;
    }
    std::string_view view() {
        const std::uint32_t id = u32();
        if (id >= table_.size()) throw std::runtime_error("bad string id");
        return table_[id];
    }
    template <typename Each>
    void list(Each each) {
        const std::uint64_t count = u64();
        if (count > data_.size()) throw std::runtime_error("bad count");
        for (std::uint64_t i = 0; i < count; ++i) each();
    }
    bool done() const { return at_ == data_.size(); }

private:
    std::string_view take(std::size_t size) {
        if (size > data_.size() - at_) throw std::runtime_error("truncated");
        const auto out = data_.substr(at_, size);
        at_ += size;
        return out;
    }
    template <typename T>
    T pod() {
        T v;
        std::memcpy(&v, take(sizeof v).data(), sizeof v);
        return v;
    }
    std::string_view data_;
    std::size_t at_ = 0;
    std::vector<std::string_view> table_;
};

// An exclusive flock on a lock file next to the entry, held for the object's life
// (and dropped by the kernel if kdbgen dies). No lock, no wait: where the
// folder cannot hold one, planning twice is the only cost.
class EntryLock {
public:
    // Never through a link (it would create a file wherever the link points).
    explicit EntryLock(const fs::path& path)
        : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) {
        if (fd_ < 0 && errno == ELOOP)
            throw InputError(located(path.string(), 0, "a link where kdbgen keeps a lock: kdbgen opens nothing in its "
                                                       "cache through a link; remove it"));
        if (fd_ >= 0)
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~EntryLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    EntryLock(const EntryLock&) = delete;
    EntryLock& operator=(const EntryLock&) = delete;

private:
    int fd_;
};

void remove_if_unlocked(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) ::unlink(path.c_str());
    ::close(fd);
}

CoverageEntry::Status status_of(unsigned value) {
    if (value > static_cast<unsigned>(CoverageEntry::Status::PrecompiledKernels)) throw std::runtime_error("bad status");
    return static_cast<CoverageEntry::Status>(value);
}

}  // namespace

std::string problem_set_fingerprint(const ProblemSet& problems) {
    Sha256 key;
    for (const auto& entry : problems.entries()) {
        key.add(problem_kind(entry.problem)).add(entry.key);
        for (const auto& origin : entry.origins) key.add(origin);
    }
    return key.hex();
}

namespace {

std::string plan_cache_key_for(std::string_view problems_fingerprint, const std::vector<Target>& targets,
                               const SolverPlanOptions& options) {
    if (!options.tree) return "";
    Sha256 key;
    key.add(kdbgen_identity()).add(tree_fingerprint(*options.tree));
    for (const auto& path : options.find_dbs) key.add(path.string()).add(file_content_hash(path));
    key.add(fmt::format("mode {} mlir {} ck {} find-db-problems {} entries {} coverage {} families {}",
                        static_cast<int>(options.mode), options.build.mlir, options.build.composable_kernel,
                        options.find_db_problems_when_empty, options.entry_coverage, options.record_coverage,
                        options.complete_key_families));
    for (const auto& name : options.excluded_solvers) key.add("exclude " + name);
    for (const auto& [processor, cus] : options.compute_units) {
        // Only the cards of these targets: a build plans each architecture alone, and
        // `--targets gfx1100` meets the entry `--targets-file arch.txt` stored.
        if (std::none_of(targets.begin(), targets.end(), [&](const Target& t) { return t.name() == processor; }))
            continue;
        std::string line = "cus " + processor;
        for (const unsigned c : cus) line += fmt::format(" {}", c);
        key.add(line);
    }
    for (const auto& target : targets) key.add("target " + target.spec());
    key.add("problems " + std::string(problems_fingerprint));
    return key.hex();
}

}  // namespace

std::string plan_cache_key(const ProblemSet& problems, const std::vector<Target>& targets, const SolverPlanOptions& options) {
    return plan_cache_key_for(problem_set_fingerprint(problems), targets, options);
}

namespace {

void write_plan(Writer& w, const Plan& plan) {
    std::vector<std::string> specs;
    for (const auto& target : plan.targets) specs.push_back(target.spec());
    w.list(plan.targets, [&](const Target& t) { w.str(t.spec()); });
    w.list(plan.builds, [&](const PlannedBuild& p) {
        const auto& b = p.build;
        const auto spec = b.target.spec();
        const auto at = std::find(specs.begin(), specs.end(), spec);
        if (at == specs.end()) throw std::runtime_error("a build for a target outside the plan: " + spec);
        w.u32(static_cast<std::uint32_t>(at - specs.begin()));
        w.str(b.source.native());
        w.str(b.kernel_file);
        w.words(b.options);
        w.list(b.kernels, [&](const std::string& s) { w.str(s); });
        w.list(b.include_dirs, [&](const fs::path& d) { w.str(d.native()); });
        w.str(p.origin);
        w.str(p.kind);
        w.list(p.compute_units, [&](unsigned c) { w.u32(c); });
    });
    w.list(plan.uncovered, [&](const std::string& s) { w.str(s); });
    w.list(plan.coverage, [&](const CoverageEntry& c) {
        w.str(c.target), w.str(c.problem), w.str(c.kind), w.str(c.solver);
        w.u8(static_cast<unsigned>(c.status));
        w.str(c.detail);
        w.u8(c.dynamic_find);
        w.u8(static_cast<unsigned>(c.source));
    });
    w.list(plan.lines, [&](const LineCoverage& l) {
        w.str(l.target), w.str(l.problem), w.str(l.find_db), w.str(l.winner);
        w.u8(static_cast<unsigned>(l.status));
        w.str(l.detail);
        w.list(l.skipped, [&](const LineCoverage::Skipped& s) {
            w.str(s.solver);
            w.u8(static_cast<unsigned>(s.status));
            w.str(s.detail);
        });
        w.list(l.tied, [&](const std::string& t) { w.str(t); });
        w.u8(l.fusion_only);
    });
    w.list(plan.unreadable_lines, [&](const SkippedFindDbLines& s) {
        w.str(s.target), w.str(s.find_db);
        w.u64(s.lines.count), w.u64(s.lines.first_line);
        w.str(s.lines.first_reason);
    });
}

}  // namespace

Bytes serialize_plan(const Plan& plan, std::string_view key) {
    Writer w;
    write_plan(w, plan);
    return seal_cache_entry("plan", key, w.finish());
}

Plan deserialize_plan(std::string_view data, const std::vector<Target>& targets, std::string_view key) {
    std::string why;
    const auto body = open_cache_entry("plan", key, data, &why);
    if (!body) throw std::runtime_error(why);
    Reader r(*body);
    Plan plan;
    plan.targets = targets;
    std::size_t target_count = 0;
    r.list([&] {
        if (target_count >= targets.size() || r.view() != targets[target_count].spec())
            throw std::runtime_error("targets differ");
        ++target_count;
    });
    if (target_count != targets.size()) throw std::runtime_error("targets differ");
    std::map<std::vector<std::string>, SharedPaths> include_lists;  // shared again, as planned
    std::map<std::string_view, SharedPath, std::less<>> sources;      // so are the source paths
    r.list([&] {
        PlannedBuild p;
        auto& b = p.build;
        const std::uint32_t target = r.u32();
        if (target >= targets.size()) throw std::runtime_error("bad target index");
        b.target = targets[target];
        const std::string_view source = r.view();
        auto known = sources.find(source);
        if (known == sources.end()) known = sources.emplace(source, SharedPath(std::string(source))).first;
        b.source = known->second;
        b.kernel_file = r.str();
        b.options = r.words();
        r.list([&] { b.kernels.push_back(r.str()); });
        std::vector<std::string> dirs;
        r.list([&] { dirs.push_back(r.str()); });
        auto [it, added] = include_lists.try_emplace(dirs);
        if (added) it->second = SharedPaths(std::vector<fs::path>(dirs.begin(), dirs.end()));
        b.include_dirs = it->second;
        p.origin = r.str();
        p.kind = r.str();
        r.list([&] { p.compute_units.push_back(r.u32()); });
        plan.builds.push_back(std::move(p));
    });
    r.list([&] { plan.uncovered.push_back(r.str()); });
    r.list([&] {
        CoverageEntry c;
        c.target = r.str(), c.problem = r.str(), c.kind = r.str(), c.solver = r.str();
        c.status = status_of(r.u8());
        c.detail = r.str();
        c.dynamic_find = r.u8() != 0;
        if (const unsigned source = r.u8(); source <= static_cast<unsigned>(CoverageEntry::Source::CorpusZoo))
            c.source = static_cast<CoverageEntry::Source>(source);
        else
            throw std::runtime_error("bad problem source");
        plan.coverage.push_back(std::move(c));
    });
    r.list([&] {
        LineCoverage l;
        l.target = r.str(), l.problem = r.str(), l.find_db = r.str(), l.winner = r.str();
        l.status = status_of(r.u8());
        l.detail = r.str();
        r.list([&] {
            LineCoverage::Skipped s;
            s.solver = r.str();
            s.status = status_of(r.u8());
            s.detail = r.str();
            l.skipped.push_back(std::move(s));
        });
        r.list([&] { l.tied.push_back(r.str()); });
        l.fusion_only = r.u8() != 0;
        plan.lines.push_back(std::move(l));
    });
    r.list([&] {
        SkippedFindDbLines s;
        s.target = r.str(), s.find_db = r.str();
        s.lines.count = r.u64(), s.lines.first_line = r.u64();
        s.lines.first_reason = r.str();
        plan.unreadable_lines.push_back(std::move(s));
    });
    if (!r.done()) throw std::runtime_error("trailing bytes");
    return plan;
}

Plan cached_plan_from_problems(const ProblemSet& problems, const std::vector<Target>& targets,
                               const SolverPlanOptions& options, const fs::path& cache_dir, PlanCacheUse* use) {
    const std::string fingerprint = cache_dir.empty() ? "" : problem_set_fingerprint(problems);
    return cached_plan_from_source(fingerprint, [&]() -> const ProblemSet& { return problems; }, targets, options,
                                   cache_dir, use);
}

Plan cached_plan_from_source(std::string_view problems_fingerprint, const std::function<const ProblemSet&()>& problems,
                             const std::vector<Target>& targets, const SolverPlanOptions& options,
                             const fs::path& cache_dir, PlanCacheUse* use) {
    PlanCacheUse local;
    if (!use) use = &local;
    const bool defer_store = use->defer_store;
    *use = {};
    use->defer_store = defer_store;
    const std::string key = cache_dir.empty() ? "" : plan_cache_key_for(problems_fingerprint, targets, options);
    if (key.empty()) return plan_from_problems(problems(), targets, options);
    use->key = key;
    const fs::path folder = cache_dir / "plan";
    const fs::path entry = folder / (key + ".plan");
    using Clock = std::chrono::steady_clock;
    auto started = Clock::now();
    std::error_code ec;
    // Shards started together on one cache folder (NFS) plan once: the first takes the
    // entry's lock and plans, the others wait for it and read what it stored.
    const bool had_cache = fs::exists(cache_dir, ec), had_folder = fs::exists(folder, ec);
    make_private_folder(folder, "plan cache folder");
    const fs::path lock_path = folder / (key + ".lock");
    // Held until the entry is stored, here or by whoever the store is handed to.
    auto lock = std::make_shared<std::optional<EntryLock>>(std::in_place, lock_path);
    if (fs::exists(fs::symlink_status(entry, ec))) {
        try {
            if (!fs::is_regular_file(fs::symlink_status(entry, ec))) throw std::runtime_error("not a regular file");
            const Bytes data = read_file(entry);
            Plan plan = deserialize_plan(std::string_view(data.data(), data.size()), targets, key);
            fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);  // recently used
            use->hit = true;
            use->seconds = std::chrono::duration<double>(Clock::now() - started).count();
            plan.timings.cache = use->seconds;
            plan.timings.cache_hit = true;
            return plan;
        } catch (const std::exception& e) {
            report_refused_cache_entry("plan", entry, e.what());
            fs::remove(entry, ec);  // damaged or another plan's: planned again below, never used
        }
    }
    Plan plan;
    try {
        plan = plan_from_problems(problems(), targets, options);
    } catch (...) {
        // Bad input leaves the cache as it was.
        lock->reset();
        fs::remove(lock_path, ec);
        if (!had_folder) fs::remove(folder, ec);
        if (!had_cache) fs::remove(cache_dir, ec);
        throw;
    }
    auto store = [entry, folder, key, lock](const Plan& planned) {
        try {
            Writer w;
            write_plan(w, planned);
            const std::string head = w.head();
            std::vector<std::string_view> payload{head};
            for (const auto block : w.body()) payload.push_back(block);
            write_cache_entry(entry, "plan", key, payload);
            // Keep the newest that fit the budget, and always this one: an architecture's plan is
            // megabytes, and a build of every architecture stores one entry per architecture.
            std::error_code ec;
            std::vector<std::tuple<fs::file_time_type, fs::path, std::uintmax_t>> entries;
            for (const auto& file : fs::directory_iterator(folder, ec))
                if (file.path().extension() == ".plan")
                    entries.emplace_back(file.last_write_time(ec), file.path(), file.file_size(ec));
            std::sort(entries.begin(), entries.end(), std::greater<>());
            std::uintmax_t kept_bytes = 0;
            for (std::size_t i = 0; i < entries.size(); ++i) {
                const auto& [time, path, size] = entries[i];
                kept_bytes += size;
                if (path == entry || (i < kPlanCacheEntries && kept_bytes <= kPlanCacheBytes)) continue;
                fs::remove(path, ec);
                remove_if_unlocked(fs::path(path).replace_extension(".lock"));
            }
        } catch (const std::exception&) {
            // A plan that cannot be stored only costs the next run the planning.
        }
        lock->reset();
    };
    if (use->defer_store) {
        use->store = std::move(store);
        return plan;
    }
    started = Clock::now();
    store(plan);
    use->seconds = std::chrono::duration<double>(Clock::now() - started).count();
    plan.timings.cache = use->seconds;
    return plan;
}

}  // namespace kdbgen
