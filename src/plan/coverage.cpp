// What a plan serves, per kdb, for `kdbgen plan` and scripts: see include/kdbgen/coverage.hpp.
#include "kdbgen/coverage.hpp"

#include <fmt/format.h>

#include <array>
#include <unordered_map>

namespace kdbgen {

namespace {

std::string_view source_name(CoverageEntry::Source source) {
    switch (source) {
        case CoverageEntry::Source::Given: return "given";
        case CoverageEntry::Source::FindDbLine: return "find_db";
        case CoverageEntry::Source::CorpusFindDb: return "corpus_find_db";
        case CoverageEntry::Source::CorpusZoo: return "corpus_zoo";
    }
    return "?";
}

}  // namespace

std::map<std::string, nlohmann::json> served_summary(const Plan& plan) {
    struct ProblemState {
        CoverageEntry::Source source = CoverageEntry::Source::Given;
        std::string kind;
        bool planned = false, failed = false, none_applies = false;
    };
    std::map<std::string, std::unordered_map<std::string, ProblemState>> no_record, primitives;
    std::map<std::string, std::map<std::string, long>> not_covered;
    for (const auto& c : plan.coverage) {
        const bool conv = c.kind == "conv";
        if (conv && !c.dynamic_find) continue;  // find-db entries: counted by line below
        auto& state = (conv ? no_record : primitives)[c.target][c.problem];
        state.source = c.source;
        state.kind = c.kind;
        if (c.status == CoverageEntry::Status::NoFindDbRecord) state.none_applies = true;
        else if (c.status == CoverageEntry::Status::Planned) state.planned = true;
        else if (!coverage_status_never_asked(c.status) && !coverage_status_served(c.status)) {
            state.failed = true;
            ++not_covered[c.target][std::string(coverage_status_name(c.status))];
        }
    }
    std::map<std::string, nlohmann::json> out;
    for (const auto& target : plan.targets) out[target.kdb_filename()] = nlohmann::json::object();
    for (const auto& [target, problems] : no_record) {
        auto& summary = out[target]["no_record_path"];
        for (const auto& [key, state] : problems) {
            auto& s = summary[std::string(source_name(state.source))];
            if (s.is_null()) s = {{"problems", 0}, {"served", 0}, {"not_served", 0}, {"no_dynamic_solver", 0}};
            s["problems"] = s["problems"].get<long>() + 1;
            const char* what = state.failed ? "not_served" : state.planned ? "served" : "no_dynamic_solver";
            s[what] = s[what].get<long>() + 1;
        }
    }
    for (const auto& [target, problems] : primitives) {
        auto& summary = out[target]["primitives"];
        for (const auto& [key, state] : problems) {
            auto& s = summary[std::string(source_name(state.source))];
            if (s.is_null()) s = {{"problems", 0}, {"served", 0}, {"not_served", 0}, {"by_kind", nlohmann::json::object()}};
            s["problems"] = s["problems"].get<long>() + 1;
            const bool served = state.planned && !state.failed;
            s[served ? "served" : "not_served"] = s[served ? "served" : "not_served"].get<long>() + 1;
            auto& kind = s["by_kind"][state.kind];
            if (kind.is_null()) kind = {{"problems", 0}, {"served", 0}};
            kind["problems"] = kind["problems"].get<long>() + 1;
            if (served) kind["served"] = kind["served"].get<long>() + 1;
        }
    }
    for (const auto& line : plan.lines) {
        auto& s = out[line.target]["find_db_lines"];
        if (s.is_null())
            s = {{"lines", 0}, {"served", 0}, {"no_kdb_kernel", 0}, {"not_served", 0}, {"no_usable_item", 0},
                 {"fusion_only", 0}, {"with_ties", 0}};
        s["lines"] = s["lines"].get<long>() + 1;
        // A line with no usable item sends MIOpen down the no-record path, counted there.
        const char* what = line.winner.empty()                             ? "no_usable_item"
                           : line.status == CoverageEntry::Status::Planned ? "served"
                           : coverage_status_served(line.status)           ? "no_kdb_kernel"
                                                                           : "not_served";
        s[what] = s[what].get<long>() + 1;
        if (line.fusion_only) s["fusion_only"] = s["fusion_only"].get<long>() + 1;
        if (!line.tied.empty()) s["with_ties"] = s["with_ties"].get<long>() + 1;
    }
    for (auto& [target, reasons] : not_covered) out[target]["not_covered"] = reasons;
    return out;
}

// Per target: (problem, solver) entries by what became of them, the find-db
// lines by what became of their winner, and the shares a user feels: lines
// whose winner's kernels are all in the kdb, next to entries likewise. What
// MIOpen never asks for (default-off solvers, fusion ids) is counted apart.
nlohmann::json coverage_json(const Plan& plan) {
    std::map<std::string, std::map<std::string, long>> status;
    std::map<std::string, std::map<std::string, std::map<std::string, long>>> solvers, winners, skipped;
    // served, counted, never asked; dynamic_share: the (problem, dynamic solver) pairs of MIOpen's
    // dynamic find for problems without a usable find-db line, kept apart from find-db entries.
    std::map<std::string, std::array<long, 3>> entry_share, line_share, dynamic_share;
    for (const auto& c : plan.coverage) {
        const std::string name(coverage_status_name(c.status));
        ++status[c.target][name];
        if (!c.solver.empty()) ++solvers[c.target][c.solver][name];
        if (c.kind != "conv" || c.status == CoverageEntry::Status::NoFindDbRecord) continue;
        auto& share = (c.dynamic_find ? dynamic_share : entry_share)[c.target];
        if (coverage_status_never_asked(c.status)) ++share[2];
        else ++share[1], share[0] += c.status == CoverageEntry::Status::Planned ? 1 : 0;
    }
    std::map<std::string, std::map<std::string, long>> line_status;
    for (const auto& line : plan.lines) {
        const std::string name(coverage_status_name(line.status));
        ++line_status[line.target][name];
        // A line whose winner is served but an item tied with it is not (plan_line) says so.
        const bool tie_decides = !line.tied.empty() && line.detail.starts_with("tied with");
        ++winners[line.target][line.winner.empty() ? "(none)" : line.winner][tie_decides ? "tied item: " + name : name];
        for (const auto& skip : line.skipped) ++skipped[line.target][skip.solver][std::string(coverage_status_name(skip.status))];
        auto& share = line_share[line.target];
        if (line.winner.empty() && coverage_status_never_asked(line.status)) ++share[2];
        else ++share[1], share[0] += coverage_status_served(line.status) ? 1 : 0;
    }
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [target, counts] : status) out[target]["status"] = counts;
    for (const auto& [target, per_solver] : solvers) out[target]["solvers"] = per_solver;
    const auto share_json = [](const std::array<long, 3>& share) {
        return nlohmann::json{{"served", share[0]},
                              {"counted", share[1]},
                              {"never_asked", share[2]},
                              {"share", share[1] ? static_cast<double>(share[0]) / static_cast<double>(share[1]) : 0.0}};
    };
    for (const auto& [target, share] : entry_share) out[target]["entries"] = share_json(share);
    for (const auto& [target, share] : dynamic_share) out[target]["dynamic_find"] = share_json(share);
    for (const auto& [target, share] : line_share) {
        out[target]["lines"] = share_json(share);
        out[target]["lines"]["status"] = line_status[target];
        out[target]["winners"] = winners[target];
        out[target]["skipped"] = skipped[target];  // faster items MIOpen passes over, by solver and why
    }
    // Tree find-db lines no MIOpen lookup reaches: how many, and where the first is.
    for (const auto& skipped : plan.unreadable_lines) {
        auto& u = out[skipped.target]["unreadable_lines"];
        const auto name = fs::path(skipped.find_db).filename().string();
        if (u.is_null()) {
            u = {{"count", 0},
                 {"first", fmt::format("{}:{}", name, skipped.lines.first_line)},
                 {"first_reason", skipped.lines.first_reason},
                 {"by_find_db", nlohmann::json::object()}};
        }
        u["count"] = u["count"].get<std::size_t>() + skipped.lines.count;
        u["by_find_db"][name] = skipped.lines.count;
    }
    for (const auto& [target, summary] : served_summary(plan)) out[target]["summary"] = summary;
    for (const auto& target : plan.targets) {
        auto& t = out[target.kdb_filename()];
        std::size_t kernels = 0, cu_dependent = 0;
        std::map<std::string, long> by_kind, not_covered, by_cus;
        for (const auto& b : plan.builds) {
            if (b.build.target.kdb_filename() != target.kdb_filename()) continue;
            ++kernels, ++by_kind[b.kind];
            if (b.compute_units.empty()) continue;
            ++cu_dependent;
            for (const unsigned cus : b.compute_units) ++by_cus[std::to_string(cus)];
        }
        for (const auto& c : plan.coverage)
            if (c.target == target.kdb_filename() && !coverage_status_served(c.status) &&
                !coverage_status_never_asked(c.status))
                ++not_covered[c.kind];
        t["kernels"] = kernels;
        t["kernels_by_kind"] = by_kind;
        t["not_covered_by_kind"] = not_covered;
        if (target.arch_wide())
            t["cu_dependent"] = {{"keys", cu_dependent}, {"keys_by_cus", by_cus}};
    }
    return out;
}

}  // namespace kdbgen
