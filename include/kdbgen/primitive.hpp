// Solvers for MIOpen's non-convolution primitives (batch norm, pooling,
// activation, softmax, LRN, tensor ops): for a problem on a target, which
// kernels MIOpen builds and with which options. MIOpen runs these through
// SolverContainer::ExecutePrimitive (src/include/miopen/find_solution.hpp:477-503,
// MIOpen 3.3.0), which takes the first applicable solver of a fixed list, so
// each solver says where it stands in that list. The ExecutionContext there
// carries no general options: every primitive kernel has one key form.
// One file per solver (family) under src/plan/primitives/, self-registering.
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/solver.hpp"
#include "kdbgen/target.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace kdbgen {

struct PrimitiveContext {
    const Target& target;
    MiopenVersion version;
};

class PrimitiveSolver {
public:
    virtual ~PrimitiveSolver() = default;
    virtual std::string_view name() const = 0;  // MIOpen's solver (or routine) name
    virtual std::string_view kind() const = 0;  // problem_kind(): "activation", "pooling", ...
    // Position in the SolverContainer MIOpen tries for this kind and direction.
    virtual int order() const = 0;
    virtual bool applicable(const Problem& problem, const PrimitiveContext& ctx, std::string* why) const = 0;
    virtual std::vector<SolverKernel> kernels(const Problem& problem, const PrimitiveContext& ctx) const = 0;
};

// A solver for one problem type: `class ActivFwdSolver0 : public PrimitiveSolverFor<ActivationProblem>`.
template <typename P>
class PrimitiveSolverFor : public PrimitiveSolver {
public:
    bool applicable(const Problem& problem, const PrimitiveContext& ctx, std::string* why) const final {
        const auto* p = std::get_if<P>(&problem);
        if (!p) return reject(why, "another primitive");
        return applicable(*p, ctx, why);
    }
    std::vector<SolverKernel> kernels(const Problem& problem, const PrimitiveContext& ctx) const final {
        const auto* p = std::get_if<P>(&problem);
        return p ? kernels(*p, ctx) : std::vector<SolverKernel>{};
    }
    virtual bool applicable(const P& problem, const PrimitiveContext& ctx, std::string* why) const = 0;
    virtual std::vector<SolverKernel> kernels(const P& problem, const PrimitiveContext& ctx) const = 0;
};

// Every registered primitive solver, by kind, then MIOpen's order.
std::vector<const PrimitiveSolver*> primitive_catalog();
// The solver MIOpen would use: the first applicable one of the problem's kind,
// or nullptr with *why saying what each candidate lacked.
const PrimitiveSolver* choose_primitive_solver(const Problem& problem, const PrimitiveContext& ctx, std::string* why);

void register_primitive_solver(std::unique_ptr<PrimitiveSolver> solver);
#define KDBGEN_REGISTER_PRIMITIVE_SOLVER(Type)                                                       \
    namespace {                                                                                      \
    const bool registered_##Type = (::kdbgen::register_primitive_solver(std::make_unique<Type>()), true); \
    }

// "_FLOAT", "_FLOAT2", "_FLOAT4": MIOpen's READ_TYPE spelling for a vector width.
inline std::string read_type_for(int unit) { return unit == 1 ? "_FLOAT" : "_FLOAT" + std::to_string(unit); }

}  // namespace kdbgen
