#include "kdbgen/error.hpp"
#include "kdbgen/primitive.hpp"
#include "kdbgen/solver.hpp"

#include <unordered_map>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace kdbgen {

namespace {

std::vector<std::unique_ptr<Solver>>& registry() {
    static std::vector<std::unique_ptr<Solver>> solvers;
    return solvers;
}

std::vector<std::unique_ptr<PrimitiveSolver>>& primitive_registry() {
    static std::vector<std::unique_ptr<PrimitiveSolver>> solvers;
    return solvers;
}

}  // namespace

void register_primitive_solver(std::unique_ptr<PrimitiveSolver> solver) {
    primitive_registry().push_back(std::move(solver));
}

std::vector<const PrimitiveSolver*> primitive_catalog() {
    std::vector<const PrimitiveSolver*> out;
    for (const auto& s : primitive_registry()) out.push_back(s.get());
    std::sort(out.begin(), out.end(), [](const PrimitiveSolver* a, const PrimitiveSolver* b) {
        return std::make_tuple(a->kind(), a->order(), a->name()) < std::make_tuple(b->kind(), b->order(), b->name());
    });
    return out;
}

const PrimitiveSolver* choose_primitive_solver(const Problem& problem, const PrimitiveContext& ctx, std::string* why) {
    std::string reasons;
    for (const auto* solver : primitive_catalog()) {
        if (solver->kind() != problem_kind(problem)) continue;
        std::string reason;
        if (solver->applicable(problem, ctx, &reason)) return solver;
        if (reason != "another primitive")
            reasons += (reasons.empty() ? "" : "; ") + std::string(solver->name()) + ": " + reason;
    }
    if (why) *why = reasons.empty() ? "no solver in the catalog" : reasons;
    return nullptr;
}

void register_solver(std::unique_ptr<Solver> solver) { registry().push_back(std::move(solver)); }

namespace {

// The catalog in name order and by name. Solvers register during static
// initialisation, before any lookup; planning asks millions of times.
struct CatalogIndex {
    std::vector<const Solver*> sorted;
    std::unordered_map<std::string_view, const Solver*> by_name;
};

const CatalogIndex& catalog_index() {
    static const CatalogIndex index = [] {
        CatalogIndex built;
        for (const auto& s : registry()) built.sorted.push_back(s.get());
        std::sort(built.sorted.begin(), built.sorted.end(),
                  [](const Solver* a, const Solver* b) { return a->name() < b->name(); });
        for (const auto* s : built.sorted) built.by_name.emplace(s->name(), s);
        return built;
    }();
    return index;
}

}  // namespace

const std::vector<const Solver*>& solver_catalog() { return catalog_index().sorted; }

const Solver* find_solver(std::string_view name) {
    const auto& by_name = catalog_index().by_name;
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
}

bool deprecated_solvers_enabled(const Target& target) {
    const std::string_view d = target.name();
    return d == "gfx803" || d == "gfx900" || d == "gfx906" || d == "gfx908" || d == "gfx90a" || d.starts_with("gfx103");
}

std::optional<std::string> deprecated_solver_off(const Target& target) {
    if (deprecated_solvers_enabled(target)) return std::nullopt;
    return "a deprecated solver, off on " + std::string(target.name()) +
           " unless MIOPEN_DEBUG_ENABLE_DEPRECATED_SOLVERS is set (src/solver.cpp:716-732)";
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
    // TensorDescriptor::AllDimsFitIntoInt (src/tensor.cpp:237-245, :777-794, MIOpen 3.3.0): every
    // length and every stride fits an int, not the element count. A packed tensor's largest
    // stride is its outermost one: channels times the spatial sizes.
    constexpr long long kMax = 2147483647LL;
    const auto fits = [](long long outer, long long channels, std::span<const long> spatial) {
        long long stride = channels, longest = std::max(outer, channels);
        for (const long d : spatial) {
            stride *= d;
            longest = std::max<long long>(longest, d);
        }
        return longest <= kMax && stride <= kMax;
    };
    // Weights are K x C/groups x spatial; K is the forward output's channels (Out forward, In otherwise).
    const long k = IsDirectionForward() ? p.out_channels : p.in_channels;
    const long c = IsDirectionForward() ? p.in_channels : p.out_channels;
    return fits(p.batch, p.in_channels, p.in_spatial) && fits(p.batch, p.out_channels, p.out_spatial) &&
           fits(k, c / std::max(1L, p.groups), p.weights_spatial);
}

std::string generate_defines(const std::vector<std::pair<std::string, std::string>>& defines, std::string_view prefix) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : defines)
        parts.push_back("-" + std::string(prefix) + name + (value.empty() ? "" : "=" + value));
    return join(parts, " ");
}

namespace {
std::string type_block(bool fp16, bool fp32, bool int8, bool bfp16, bool int32) {
    const auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
    return generate_defines({{"MIOPEN_USE_FP16", flag(fp16)},
                             {"MIOPEN_USE_FP16x4", "0"},
                             {"MIOPEN_USE_FP16x8", "0"},
                             {"MIOPEN_USE_FP32", flag(fp32)},
                             {"MIOPEN_USE_INT8", flag(int8)},
                             {"MIOPEN_USE_BFP16", flag(bfp16)},
                             {"MIOPEN_USE_INT32", flag(int32)},
                             {"MIOPEN_USE_RNE_BFLOAT16", "1"},
                             {"MIOPEN_FP8_IEEE_EXPONENT_BIAS", "0"},
                             {"MIOPEN_FP8_CLIPPING", "1"}},
                            "D");
}
}  // namespace

std::string data_type_options(const ConvView& problem) {
    // Asked for several times per planned problem: the five possible blocks, made once.
    static const std::array<std::string, 5> blocks = [] {
        std::array<std::string, 5> out;
        for (int i = 0; i < 5; ++i) out[i] = " " + type_block(i == 1, i == 2, i == 3, i == 4, false);
        return out;
    }();
    // The x type decides (SetupFloats, GetInDataType): any key starting INT8, whatever its y.
    const bool int8_input = problem.p.data_types.starts_with("INT8");
    const int index = problem.IsFp16() ? 1 : problem.IsFp32() ? 2 : int8_input ? 3 : problem.IsBfp16() ? 4 : 0;
    return blocks[index];
}

SolverKernel sub_tensor_op_with_scalar(bool multiply, long elements, DataType type) {
    std::size_t work = 1;
    while (work < static_cast<std::size_t>(elements)) work *= 2;
    if (work > 65536) work = 65536;
    return {"MIOpenSubTensorOpWithScalarKernel.cl",
            {"SubTensorOpWithScalar1d"},
            "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_" + std::string(multiply ? "MULTIPLY" : "SET") + " " +
                data_type_defines(type) + " -DWORK_LENGTH_0=" + std::to_string(work)};
}

SolverKernel cast_tensor(long elements, DataType source, DataType destination) {
    const auto code = [](DataType t) {
        switch (t) {
            case DataType::Int8: return 0;
            case DataType::Int32: return 1;
            case DataType::Half: return 2;
            case DataType::Float: return 3;
            case DataType::BFloat16: return 4;
            default: throw InputError(fmt::format("CastTensor has no kernel for {}", key_name(t)));
        }
    };
    std::size_t work = 1;
    while (work < static_cast<std::size_t>(elements)) work *= 2;
    if (work > 65536) work = 65536;
    std::string options = " -DMIOPEN_SRC_TYPE=" + std::to_string(code(source)) +
                          " -DMIOPEN_DST_TYPE=" + std::to_string(code(destination)) +
                          " -DWORK_LENGTH_0=" + std::to_string(work);
    if (destination == DataType::BFloat16) options += " -DMIOPEN_USE_RNE_BFLOAT16=1";
    return {"MIOpenSubTensorOpWithCastTensorKernel.cl", {"SubTensorOpWithCastTensor1d"}, options};
}

std::string data_type_defines(DataType type) {
    // Asked for by helper kernels (GEMM's zero fill) and pooling on most problems of a corpus:
    // each type's block is made once.
    static const std::array<std::string, 7> blocks = [] {
        std::array<std::string, 7> out;
        for (int i = 0; i < 7; ++i) {
            const auto t = static_cast<DataType>(i);
            out[i] = type_block(t == DataType::Half, t == DataType::Float, t == DataType::Int8, t == DataType::BFloat16,
                                t == DataType::Int32);
        }
        return out;
    }();
    const auto index = static_cast<std::size_t>(type);
    if (index >= blocks.size()) throw std::logic_error("data_type_defines: no such data type");
    return blocks[index];
}

}  // namespace kdbgen
