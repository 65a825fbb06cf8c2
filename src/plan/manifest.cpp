#include "kdbgen/checks.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/toml_checks.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace kdbgen {

namespace {

std::string where(const fs::path& file, const toml::node& node) {
    return located(file.string(), node.source().begin.line, "");
}

std::vector<std::string> string_list(const fs::path& file, const toml::table& table, std::string_view key,
                                     bool required) {
    const toml::node* node = table.get(key);
    if (!node) {
        if (required)
            throw InputError(located(file.string(), table.source().begin.line,
                                     fmt::format("[[kernel]] needs '{}'", key)));
        return {};
    }
    std::vector<std::string> values;
    if (const auto* text = node->as_string()) return {text->get()};
    const auto* array = node->as_array();
    if (!array)
        throw InputError(located(file.string(), node->source().begin.line,
                                 fmt::format("'{}' must be a string or a list of strings", key)));
    for (const auto& item : *array) {
        const auto* text = item.as_string();
        if (!text)
            throw InputError(located(file.string(), item.source().begin.line,
                                     fmt::format("{} = {}: holds {}, not a string", key, checks::toml_value_text(*node),
                                                 checks::toml_value_text(item))));
        values.push_back(text->get());
    }
    if (required && values.empty())
        throw InputError(located(file.string(), node->source().begin.line, fmt::format("{} = []: is empty", key)));
    return values;
}

// kdb_args() order (options + mcpu_suffix()) for two builds of one target, without
// joining the strings: both end in the same suffix, which decides only when one
// options string is a prefix of the other.
int compare_args_of_one_target(const KernelBuild& x, const KernelBuild& y) {
    const std::string_view a = x.options, b = y.options;
    const std::size_t common = std::min(a.size(), b.size());
    if (const int c = a.substr(0, common).compare(b.substr(0, common))) return c;
    if (a.size() == b.size()) return 0;
    // (a + s) vs (b + s) with a a proper prefix of b: s vs (b's rest + s).
    const std::string suffix = x.target.mcpu_suffix();
    const std::string rest = std::string(a.size() < b.size() ? b.substr(common) : a.substr(common)) + suffix;
    const int c = std::string_view(suffix).compare(rest);
    return a.size() < b.size() ? c : -c;
}

}  // namespace

Plan plan_from_manifest(const fs::path& manifest, const fs::path& kernel_dir, const std::vector<Target>& targets) {
    toml::table root;
    try {
        root = toml::parse(read_text_file(manifest), manifest.string());
    } catch (const toml::parse_error& e) {
        throw InputError(located(manifest.string(), e.source().begin.line, std::string(e.description())));
    }
    checks::StrictTable(root, manifest.string(), "").allow_only({"kernel"}, "a kernel manifest ([[kernel]] tables)");
    Plan plan;
    plan.targets = targets;
    const auto* kernels = root.get_as<toml::array>("kernel");
    if (!kernels || kernels->empty())
        throw InputError(located(manifest.string(), 0, "no [[kernel]] tables"));
    for (const auto& node : *kernels) {
        const auto* table = node.as_table();
        if (!table) throw InputError(located(manifest.string(), node.source().begin.line, "kernel is not a table"));
        const auto line = table->source().begin.line;
        checks::StrictTable(*table, manifest.string(), "[[kernel]]")
            .allow_only({"file", "symbols", "options", "targets"}, "a [[kernel]] table");
        const auto file = string_list(manifest, *table, "file", true);
        if (file.size() != 1)
            throw InputError(located(manifest.string(), line, "'file' must be one file name"));
        const fs::path source = kernel_dir / file.front();
        // A kernel is a file in --kernels-dir: no absolute path, no '..', no
        // link out of it (a manifest from elsewhere must not compile /etc/...).
        {
            std::error_code ec;
            const auto root = fs::weakly_canonical(kernel_dir, ec);
            const auto real = fs::weakly_canonical(source, ec);
            const auto rel = real.lexically_relative(root);
            if (fs::path(file.front()).is_absolute() || rel.empty() || *rel.begin() == ".." )
                throw InputError(located(manifest.string(), line,
                                         fmt::format("kernel file '{}' is outside --kernels-dir {}", file.front(),
                                                     kernel_dir.string())));
        }
        if (!fs::is_regular_file(source))
            throw InputError(located(manifest.string(), line, fmt::format("kernel file '{}' not found in {}",
                                                                          file.front(), kernel_dir.string())));
        language_of(source);  // an unknown extension is an input error here, not a compile failure later
        const auto symbols = string_list(manifest, *table, "symbols", true);
        auto variants = string_list(manifest, *table, "options", true);
        const auto only = string_list(manifest, *table, "targets", false);
        for (const auto& symbol : symbols)
            if (symbol.empty() || symbol.find_first_of(" \t") != std::string::npos)
                throw InputError(located(manifest.string(), line, fmt::format("symbols: \"{}\" is not a kernel name", symbol)));
        // A prefix no processor has would silently drop the kernel from every kdb.
        for (const auto& prefix : only) {
            bool known = false;
            for (const auto& name : split(known_processor_names(), ','))
                known = known || trim(name).starts_with(prefix);
            if (!known || prefix.empty())
                throw InputError(located(manifest.string(), line,
                                         fmt::format("targets: \"{}\" is the start of no processor kdbgen knows ({})", prefix,
                                                     known_processor_names())));
        }
        for (const auto& target : targets) {
            if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& prefix) {
                    return target.name().starts_with(prefix);
                }))
                continue;
            for (const auto& options : variants) {
                KernelBuild build;
                build.source = source;
                build.kernel_file = file.front();
                build.options = options;
                build.target = target;
                build.kernels = symbols;
                build.include_dirs = {kernel_dir / "include"};
                plan.builds.push_back({std::move(build), where(manifest, *table) + " " + file.front(), "", {}});
            }
        }
    }
    deduplicate(plan);
    return plan;
}

void merge_duplicate_build(PlannedBuild& kept, PlannedBuild& duplicate) {
    // The code object must define every symbol any of its users asked for
    // (e.g. MIOpenNeuron.cl's forward and backward kernels share options).
    auto& symbols = kept.build.kernels;
    for (auto& s : duplicate.build.kernels)
        if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(std::move(s));
    // Asked for by every card if either user is; else by the cards of both.
    if (kept.compute_units.empty() || duplicate.compute_units.empty()) {
        kept.compute_units.clear();
        return;
    }
    // push_back, not a range insert: GCC 14 at -O2 warns (-Wstringop-overflow) about the insert's memmove.
    for (const unsigned cus : duplicate.compute_units) kept.compute_units.push_back(cus);
    std::sort(kept.compute_units.begin(), kept.compute_units.end());
    kept.compute_units.erase(std::unique(kept.compute_units.begin(), kept.compute_units.end()), kept.compute_units.end());
}

void deduplicate(Plan& plan) {
    // Sort keys made once per build: a whole-architecture plan holds hundreds of
    // thousands of builds, and building the strings per comparison dominated planning.
    // The args (options + " -mcpu=...", 1.3 KB on average over all 25 architectures) are
    // compared in place: a copy per build was 0.75 GB at the peak of planning them all.
    struct Key {
        std::string target, name;
        std::size_t index;
    };
    // The order is target spec first, so each target's keys are sorted on their own, the
    // targets shared out over two threads, largest first (one target: its two halves), and
    // joined in spec order.
    std::map<std::string, std::vector<Key>> by_target;
    for (std::size_t i = 0; i < plan.builds.size(); ++i) {
        const auto& b = plan.builds[i].build;
        std::string spec = b.target.spec();
        auto& group = by_target[spec];
        group.push_back({std::move(spec), b.kdb_name(), i});
    }
    std::vector<std::vector<Key>*> groups;
    for (auto& [spec, group] : by_target) groups.push_back(&group);
    std::stable_sort(groups.begin(), groups.end(), [](const auto* a, const auto* b) { return a->size() > b->size(); });
    const auto less = [&](const Key& a, const Key& b) {
        if (const int c = a.name.compare(b.name)) return c < 0;
        if (const int c = compare_args_of_one_target(plan.builds[a.index].build, plan.builds[b.index].build))
            return c < 0;
        return a.index < b.index;
    };
    const auto sort_group = [&](std::vector<Key>& group) { std::sort(group.begin(), group.end(), less); };
    std::atomic<std::size_t> next{0};
    const auto sort_groups = [&] {
        for (std::size_t g = next++; g < groups.size(); g = next++) sort_group(*groups[g]);
    };
    if (groups.size() == 1 && plan.builds.size() > 10000) {
        // One target (a build plans each architecture alone): its halves sorted side by side
        // and merged; the order is total (the index breaks ties), so the same as one sort.
        auto& group = *groups.front();
        const auto middle = group.begin() + static_cast<std::ptrdiff_t>(group.size() / 2);
        auto first_half = std::async(std::launch::async, [&] { std::sort(group.begin(), middle, less); });
        std::sort(middle, group.end(), less);
        first_half.get();
        std::inplace_merge(group.begin(), middle, group.end(), less);
    } else if (groups.size() > 1 && plan.builds.size() > 10000) {
        auto other = std::async(std::launch::async, sort_groups);
        sort_groups();
        other.get();
    } else {
        sort_groups();
    }
    std::vector<Key> keys;
    keys.reserve(plan.builds.size());
    for (auto& [spec, group] : by_target) {
        std::move(group.begin(), group.end(), std::back_inserter(keys));
        std::vector<Key>().swap(group);
    }
    // One record per key.
    std::vector<PlannedBuild> unique;
    unique.reserve(keys.size());
    const Key* last = nullptr;
    for (const auto& key : keys) {
        auto& b = plan.builds[key.index];
        if (last && last->target == key.target && last->name == key.name &&
            compare_args_of_one_target(unique.back().build, b.build) == 0) {
            merge_duplicate_build(unique.back(), b);
            continue;
        }
        unique.push_back(std::move(b));
        last = &key;
    }
    plan.builds = std::move(unique);
}

}  // namespace kdbgen
