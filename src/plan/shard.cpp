#include "kdbgen/error.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>
#include <string_view>
#include <system_error>
#include <unordered_map>

namespace kdbgen {

std::string canonical_options(const std::string& options) {
    // Runs once per planned build (10^5 per find-db): views into `options` and an
    // open-addressing table kept per thread, so that nothing is allocated but the result.
    struct Slot {
        std::string_view macro, token;  // the token that last defined the macro
    };
    thread_local std::vector<Slot> table;
    std::size_t size = 64;
    while (size < options.size() / 2) size *= 2;  // a token and its space take 4 characters: half full at most
    table.assign(size, Slot{});
    const auto slot_of = [&](std::string_view macro) -> Slot& {
        std::size_t at = std::hash<std::string_view>()(macro) & (size - 1);
        while (!table[at].token.empty() && table[at].macro != macro) at = (at + 1) & (size - 1);
        return table[at];
    };
    const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    std::string out;
    out.reserve(options.size());
    const std::string_view text(options);
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && space(text[i])) ++i;
        std::size_t j = i;
        while (j < text.size() && !space(text[j])) ++j;
        if (j == i) break;
        const std::string_view token = text.substr(i, j - i);
        i = j;
        if (token.starts_with("-D")) {
            const std::size_t equals = token.find('=');
            const std::string_view macro = token.substr(2, equals == std::string_view::npos ? std::string_view::npos : equals - 2);
            Slot& slot = slot_of(macro);
            if (slot.token == token) continue;
            slot = {macro, token};
        }
        if (!out.empty()) out += ' ';
        out += token;
    }
    return out;
}

std::string code_identity(const KernelBuild& build) {
    return build.target.hip_target_id() + "\n" + build.kernel_file + "\n" + canonical_options(build.options);
}

ShardSpec parse_shard(std::string_view text) {
    const auto parts = split(text, '/');
    const auto bad = [&] { return InputError(fmt::format("invalid --shard '{}': write K/N with 1 <= K <= N", text)); };
    if (parts.size() != 2) throw bad();
    const auto k = parse_int(parts[0]), n = parse_int(parts[1]);
    if (!k || !n || *n < 1 || *k < 1 || *k > *n || *n > 100000) throw bad();
    return {static_cast<unsigned>(*k - 1), static_cast<unsigned>(*n)};
}

double estimated_compile_cost(const KernelBuild& build) {
    // Measured on the demo and MIOpen kernels: HIP front ends cost most,
    // assembly least; bigger sources cost more. Only the ratios matter.
    double language = 1.0;
    switch (build.language()) {
        case Language::Hip: language = 3.0; break;
        case Language::OpenCL: language = 2.0; break;
        case Language::Assembly: language = 1.0; break;
    }
    std::error_code ec;
    const auto size = fs::file_size(build.source, ec);
    return language * (1.0 + (ec ? 0.0 : static_cast<double>(size) / 65536.0));
}

std::vector<unsigned> assign_shards(const std::vector<KernelBuild>& builds, unsigned count) {
    std::vector<const KernelBuild*> pointers;
    pointers.reserve(builds.size());
    for (const auto& build : builds) pointers.push_back(&build);
    return assign_shards(pointers, count);
}

std::vector<unsigned> assign_shards(const std::vector<ShardUnit>& units, unsigned count) {
    std::vector<unsigned> shard(units.size(), 0);
    if (count <= 1) return shard;
    std::map<std::string_view, std::pair<double, std::vector<std::size_t>>> by_identity;
    for (std::size_t i = 0; i < units.size(); ++i) {
        auto& [cost, members] = by_identity[units[i].identity];
        if (members.empty()) cost = units[i].cost;
        members.push_back(i);
    }
    std::vector<std::pair<double, std::string_view>> order;
    order.reserve(by_identity.size());
    for (const auto& [identity, unit] : by_identity) order.emplace_back(unit.first, identity);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    // The least-loaded shard, the lowest-numbered among equals, from a heap: a
    // linear scan is units x shards, minutes for a corpus dealt to 10^5 shards.
    using Load = std::pair<double, unsigned>;
    std::priority_queue<Load, std::vector<Load>, std::greater<>> least_loaded;
    for (unsigned s = 0; s < count; ++s) least_loaded.push({0.0, s});
    for (const auto& [cost, identity] : order) {
        auto [load, target] = least_loaded.top();
        least_loaded.pop();
        least_loaded.push({load + cost, target});
        for (const auto i : by_identity[identity].second) shard[i] = target;
    }
    return shard;
}

std::vector<unsigned> assign_shards(const std::vector<const KernelBuild*>& builds, unsigned count) {
    if (count <= 1) return std::vector<unsigned>(builds.size(), 0);
    // The estimate stats the source: once per file, not once per build (10^5 on a find-db).
    std::unordered_map<std::string, double> cost_by_source;
    std::vector<ShardUnit> units;
    units.reserve(builds.size());
    for (const KernelBuild* build : builds) {
        auto [it, added] = cost_by_source.try_emplace(build->source.native(), 0.0);
        if (added) it->second = estimated_compile_cost(*build);
        units.push_back({code_identity(*build), it->second});
    }
    return assign_shards(units, count);
}

double estimated_replay_cost(const Problem& problem) {
    // A MIOpenDriver command is a driver process of its own (and a second where MIOpen compiled).
    if (std::holds_alternative<DriverCommandProblem>(problem)) return 3.0;
    const auto* conv = std::get_if<ConvProblem>(&problem);
    if (!conv) return 1.0;
    double cost = 4.0;
    bool larger_than_1x1 = false;
    for (const long size : conv->weights_spatial) larger_than_1x1 |= size > 1;
    if (larger_than_1x1) cost += 2.0;
    if (conv->direction != ConvDirection::Forward) cost *= 1.5;
    return cost;
}

Plan shard_of(const Plan& plan, const ShardSpec& spec) {
    std::vector<const KernelBuild*> all;
    for (const auto& planned : plan.builds) all.push_back(&planned.build);
    const auto shards = assign_shards(all, spec.count);
    Plan mine;
    mine.targets = plan.targets;
    mine.uncovered = plan.uncovered;
    mine.timings = plan.timings;
    for (std::size_t i = 0; i < plan.builds.size(); ++i)
        if (shards[i] == spec.index) mine.builds.push_back(plan.builds[i]);
    return mine;
}

}  // namespace kdbgen
