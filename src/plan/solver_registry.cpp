#include "kdbgen/solver.hpp"

#include <algorithm>
#include <mutex>

namespace kdbgen {

namespace {

std::vector<std::unique_ptr<Solver>>& registry() {
    static std::vector<std::unique_ptr<Solver>> solvers;
    return solvers;
}

}  // namespace

void register_solver(std::unique_ptr<Solver> solver) { registry().push_back(std::move(solver)); }

std::vector<const Solver*> solver_catalog() {
    std::vector<const Solver*> out;
    for (const auto& s : registry()) out.push_back(s.get());
    std::sort(out.begin(), out.end(), [](const Solver* a, const Solver* b) { return a->name() < b->name(); });
    return out;
}

const Solver* find_solver(std::string_view name) {
    for (const auto& s : registry())
        if (s->name() == name) return s.get();
    return nullptr;
}

bool deprecated_solvers_enabled(const Target& target) {
    const std::string_view d = target.name();
    return d == "gfx803" || d == "gfx900" || d == "gfx906" || d == "gfx908" || d == "gfx90a" || d.starts_with("gfx103");
}

bool ConvView::IsLayoutDefault() const {
    const char* layout = Is2d() ? "NCHW" : "NCDHW";
    return p.in_layout == layout && p.weights_layout == layout && p.out_layout == layout;
}

bool ConvView::IsLayoutNHWC() const {
    const char* layout = Is2d() ? "NHWC" : "NDHWC";
    return p.in_layout == layout && p.weights_layout == layout && p.out_layout == layout;
}

bool ConvView::AllTensorsDimsFitIntoInt() const {
    constexpr long long kMax = 2147483647LL;
    long long in = static_cast<long long>(p.batch) * p.in_channels, out = static_cast<long long>(p.batch) * p.out_channels;
    long long weights = static_cast<long long>(p.in_channels) * p.out_channels;
    for (const long d : p.in_spatial) in *= d;
    for (const long d : p.out_spatial) out *= d;
    for (const long d : p.weights_spatial) weights *= d;
    return in <= kMax && out <= kMax && weights <= kMax;
}

std::string generate_defines(const std::vector<std::pair<std::string, std::string>>& defines, std::string_view prefix) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : defines)
        parts.push_back("-" + std::string(prefix) + name + (value.empty() ? "" : "=" + value));
    return join(parts, " ");
}

std::string data_type_options(const ConvView& problem) {
    const int fp16 = problem.IsFp16(), fp32 = problem.IsFp32(), int8 = problem.IsInt8(), bfp16 = problem.IsBfp16();
    return " " + generate_defines({{"MIOPEN_USE_FP16", std::to_string(fp16)},
                                   {"MIOPEN_USE_FP16x4", "0"},
                                   {"MIOPEN_USE_FP16x8", "0"},
                                   {"MIOPEN_USE_FP32", std::to_string(fp32)},
                                   {"MIOPEN_USE_INT8", std::to_string(int8)},
                                   {"MIOPEN_USE_BFP16", std::to_string(bfp16)},
                                   {"MIOPEN_USE_INT32", "0"},
                                   {"MIOPEN_USE_RNE_BFLOAT16", "1"},
                                   {"MIOPEN_FP8_IEEE_EXPONENT_BIAS", "0"},
                                   {"MIOPEN_FP8_CLIPPING", "1"}},
                                  "D");
}

}  // namespace kdbgen
