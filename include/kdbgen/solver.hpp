// The solver catalog: for a convolution problem on a target, whether a
// MIOpen solver applies and which kernels it builds with which options,
// exactly as MIOpen's IsApplicable and GetSolution form them. One small file
// per solver under src/plan/solvers/ registers itself; nothing else changes
// when one is added.
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/target.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// What a solver may look at besides the problem.
struct SolverContext {
    const Target& target;
    MiopenVersion version;
    // ExecutionContext::general_compile_options as the API path left it:
    // the data-type block (ProblemDescription::SetupFloats), once or twice.
    std::string general_options;
    const PerfDb* perf_db = nullptr;
    // The MIOpen tree, for solvers whose tables live in its sources (read, never copied).
    const MiopenTree* tree = nullptr;
};

// A perf-db record as its solver parsed it. MIOpen falls back to the default
// tuning when a record does not parse (find_solution.hpp:80-120, MIOpen 3.3.0);
// for kdbgen that record is damaged input, so it is an error naming the
// perf-db row, never a silently different configuration.
template <typename Config>
std::optional<Config> checked_perf_record(std::optional<Config> parsed, const PerfDb* perf_db, const ConvProblem& problem,
                                          const std::string& solver, const std::string& params) {
    if (!parsed && perf_db) perf_db->malformed(problem, solver, params);
    return parsed;
}

// One kernel a solution builds. The kdb key is {file + ".o", options + " -mcpu=<gfx>"}.
struct SolverKernel {
    std::string file;                  // as MIOpen names it: naive_conv.cpp
    std::vector<std::string> symbols;  // kernels the code object must define
    std::string options;               // comp_options
};

// MIOpen's ProblemDescription getters over kdbgen's ConvProblem, named as
// MIOpen names them so that solver files read like their MIOpen originals.
struct ConvView {
    // The key's type word is classified once: heuristics ask for it inside
    // searches over thousands of configurations per problem.
    ConvView(const ConvProblem& problem)  // NOLINT(google-explicit-constructor): ConvView{problem} reads as MIOpen's
        : p(problem), type_(classify(problem.data_types)) {}

    const ConvProblem& p;
    bool Is2d() const { return p.spatial_dims == 2; }
    bool Is3d() const { return p.spatial_dims == 3; }
    bool IsFp32() const { return type_ == KeyType::Fp32; }
    bool IsFp16() const { return type_ == KeyType::Fp16; }
    bool IsBfp16() const { return type_ == KeyType::Bf16; }
    bool IsInt8() const { return type_ == KeyType::Int8; }
    bool IsTensorsCasted() const { return !p.cast_suffix.empty(); }
    // With the convolution attribute at its default (src/include/miopen/convolution.hpp:83-85,
    // MIOpen 3.3.0): FP16-alt is not asked for forward, is for backward data and weights.
    bool IsGfx90aFp16altRequired() const { return IsFp16() && p.direction != ConvDirection::Forward; }
    bool IsDirectionForward() const { return p.direction == ConvDirection::Forward; }
    bool IsDirectionBackwardData() const { return p.direction == ConvDirection::BackwardData; }
    bool IsDirectionBackwardWrW() const { return p.direction == ConvDirection::BackwardWeights; }
    bool IsLayoutDefault() const;
    bool IsLayoutNHWC() const;
    long GetInChannels() const { return p.in_channels; }
    long GetOutChannels() const { return p.out_channels; }
    long GetBatchSize() const { return p.batch; }
    long GetGroupCount() const { return p.groups; }
    long GetBias() const { return p.bias; }
    // H and W are the last two spatial entries; D the first of three.
    long GetInHeight() const { return p.in_spatial[p.in_spatial.size() - 2]; }
    long GetInWidth() const { return p.in_spatial.back(); }
    long GetOutHeight() const { return p.out_spatial[p.out_spatial.size() - 2]; }
    long GetOutWidth() const { return p.out_spatial.back(); }
    long GetWeightsHeight() const { return p.weights_spatial[p.weights_spatial.size() - 2]; }
    long GetWeightsWidth() const { return p.weights_spatial.back(); }
    long GetPadH() const { return p.pads[p.pads.size() - 2]; }
    long GetPadW() const { return p.pads.back(); }
    long GetKernelStrideH() const { return p.strides[p.strides.size() - 2]; }
    long GetKernelStrideW() const { return p.strides.back(); }
    long GetDilationH() const { return p.dilations[p.dilations.size() - 2]; }
    long GetDilationW() const { return p.dilations.back(); }
    long GetBackwardPadH() const { return GetWeightsHeight() - GetPadH() - 1; }
    long GetBackwardPadW() const { return GetWeightsWidth() - GetPadW() - 1; }
    const std::string& GetInLayout() const { return p.in_layout; }
    // Keys describe packed tensors: every length and stride fitting an int (not the element count).
    bool AllTensorsDimsFitIntoInt() const;

private:
    enum class KeyType : unsigned char { Fp32, Fp16, Bf16, Int8, Other };
    static KeyType classify(const std::string& word) {
        if (word == "FP32") return KeyType::Fp32;
        if (word == "FP16") return KeyType::Fp16;
        if (word == "BF16") return KeyType::Bf16;
        // ProblemDescription::IsInt8 (src/include/miopen/conv/problem_description.hpp:278-282,
        // MIOpen 3.3.0): int8 x and w with an int32 or float y. A key of one "INT8" has an int8 y.
        if (word == "INT8INT8INT32" || word == "INT8INT8FP32") return KeyType::Int8;
        return KeyType::Other;
    }
    KeyType type_;
};

class Solver {
public:
    virtual ~Solver() = default;
    // The name MIOpen writes in find-dbs and perf-dbs.
    virtual std::string_view name() const = 0;
    // GEMM solvers run rocBLAS/hipBLASLt kernels: nothing for a kdb (unless they launch helpers).
    virtual bool builds_kernels() const { return true; }
    // Why kernels() can come back empty for an applicable problem.
    virtual std::string_view missing_kernels_reason() const {
        return "no perf-db record and a default kdbgen cannot reproduce";
    }
    // Whether the options copy ExecutionContext::general_compile_options,
    // so that MIOpen can ask for the kernel under more than one key.
    virtual bool uses_general_options() const { return false; }
    // Whether applicability or options depend on ctx.target.compute_units (a
    // heuristic that reads the CU count, a grid sized by it): an arch-wide kdb
    // (a target written without _<CUs>) then holds this solver's keys for
    // every known CU count of the architecture.
    virtual bool uses_compute_units() const { return false; }
    // MIOpen solvers that IsApplicable turns off unless an environment
    // variable enables them (env::enabled(MIOPEN_DEBUG_...)): MIOpen never asks
    // for their kernels by default, and a find-db line they head falls through
    // to its next item. The reason names the variable and MIOpen's file:line.
    virtual std::optional<std::string> disabled_by_default(const ConvView& problem, const SolverContext& ctx) const {
        (void)problem, (void)ctx;
        return std::nullopt;
    }
    // SolverBase::IsDynamic (src/include/miopen/solver.hpp:86, MIOpen 3.3.0; the overrides in
    // src/include/miopen/conv/solvers.hpp): the kernels take the problem's sizes as arguments.
    // For a problem without a find-db record MIOpen's default find (DynamicHybrid) builds every
    // applicable dynamic solver and nothing else (src/ocl/convolutionocl.cpp:154-190,
    // src/include/miopen/find_solution.hpp:297).
    virtual bool dynamic() const { return false; }
    // Registered under miopenConvolutionAlgoWinograd (src/solver.cpp), so that FindCore's
    // WinogradSolverFinder lists it (src/mlo_dir_conv.cpp:126-164, src/conv/solver_finders.cpp:165-195):
    // the one finder left when IsWinograd3x3SupportedAndFast holds (src/convolution.cpp:385-401).
    virtual bool winograd() const { return false; }
    // Whether applicable() is MIOpen's IsApplicable in full. Solvers whose
    // applicability hangs on what kdbgen does not model (workspace limits,
    // rocBLAS) return false: in the find-db modes the find-db's listing stands
    // in for IsApplicable, and `--solvers applicable` leaves them out.
    virtual bool applicability_modelled() const { return true; }
    // A composable-kernel solver: its main kernels are CK instances compiled into
    // libMIOpen, and a MIOpen built without CK (MIOPEN_USE_COMPOSABLEKERNEL off,
    // --ck off) has none of it.
    virtual bool composable_kernel() const { return false; }
    // Where the problem runs nothing but kernels compiled into libMIOpen (a CK
    // solver on a layout its invoker needs no MIOpen kernel around): why, and
    // the problem is served with nothing in the kdb. nullopt: kernels() plans.
    virtual std::optional<std::string> kernels_in_library(const ConvView& problem) const {
        (void)problem;
        return std::nullopt;
    }
    // As MIOpen's IsApplicable; why says what failed.
    virtual bool applicable(const ConvView& problem, const SolverContext& ctx, std::string* why) const = 0;
    // As MIOpen's GetSolution: the kernels and their options.
    virtual std::vector<SolverKernel> kernels(const ConvView& problem, const SolverContext& ctx) const = 0;
    // Every kernel the solver can build on the context's target for problems like `problem`
    // (its direction; its data type, or each type where the options take few values), where
    // MIOpen picks them from a fixed table (the GTC solvers' kernel lists) or a small set
    // (the multipass transforms' type); empty where the set is the problem's to decide. The built-in corpus
    // plans them all once the solver applies, so a problem it never met finds its kernel.
    virtual std::vector<SolverKernel> table_kernels(const ConvView& problem, const SolverContext& ctx) const {
        (void)problem, (void)ctx;
        return {};
    }
};

// For IsApplicable ports: sets *why (when asked) and returns false,
// `return reject(why, "not 2-D");`
inline bool reject(std::string* why, const char* reason) {
    if (why) *why = reason;
    return false;
}

// ThisSolverIsDeprecatedStatic::IsDisabled (src/solver.cpp:716-732, MIOpen 3.3.0):
// deprecated solvers run only on gfx803, gfx900, gfx906, gfx908, gfx90a and gfx103x.
bool deprecated_solvers_enabled(const Target& target);

// ThisSolverIsDeprecatedStatic::IsDisabled as a default-off reason (nullopt where deprecated
// solvers run), for disabled_by_default().
std::optional<std::string> deprecated_solver_off(const Target& target);

// The base of MIOpen's deprecated solvers: off by default where deprecated
// solvers do not run, unless MIOPEN_DEBUG_ENABLE_DEPRECATED_SOLVERS is set.
class DeprecatedSolver : public Solver {
public:
    std::optional<std::string> disabled_by_default(const ConvView&, const SolverContext& ctx) const override {
        return deprecated_solver_off(ctx.target);
    }
};

// Every registered solver, in a stable order (by name).
const std::vector<const Solver*>& solver_catalog();
const Solver* find_solver(std::string_view name);

// Registration from a solver's own file: `KDBGEN_REGISTER_SOLVER(NaiveConvFwd);`
void register_solver(std::unique_ptr<Solver> solver);
#define KDBGEN_REGISTER_SOLVER(Type)                                              \
    namespace {                                                                   \
    const bool registered_##Type = (::kdbgen::register_solver(std::make_unique<Type>()), true); \
    }

// The data-type define block SetupFloats appends for a problem's input
// type (GetDataTypeKernelParams, src/include/miopen/datatype.hpp:136-187,
// MIOPEN_USE_RNE_BFLOAT16 ON, MIOPEN_FP8_IEEE_EXPONENT_BIAS OFF,
// MIOPEN_FP8_CLIPPING ON as src/CMakeLists.txt:41-43 default them).
std::string data_type_options(const ConvView& problem);
// GetDataTypeKBP (src/include/miopen/datatype.hpp:135-183) for one tensor type, as
// GenerateFor(OpenCL) spells it: "-DMIOPEN_USE_FP16=0 ... -DMIOPEN_FP8_CLIPPING=1", no leading space.
std::string data_type_defines(DataType type);

// SetTensor / ScaleTensor on a packed tensor of `elements` values (src/ocl/tensorocl.cpp:44-48,
// :1451-1495, :1498-1560, :1651-1720, MIOpen 3.3.0): MIOpenSubTensorOpWithScalarKernel.cl over
// the tensor flattened to one dimension of min(2^ceil(log2 n), 65536) work items.
SolverKernel sub_tensor_op_with_scalar(bool multiply, long elements, DataType type);

// CastTensor between packed tensors of `elements` values and different types (src/ocl/tensorocl.cpp:2006-2131,
// MIOpen 3.3.0; same in rocm-6.2.0): MIOpenSubTensorOpWithCastTensorKernel.cl over one dimension of
// min(2^ceil(log2 n), 65536) work items, " -DMIOPEN_SRC_TYPE=<t> -DMIOPEN_DST_TYPE=<t> -DWORK_LENGTH_0=<w>"
// (types INT8 0, INT32 1, FP16 2, FP32 3, BF16 4), then " -DMIOPEN_USE_RNE_BFLOAT16=1" for a BF16 destination.
SolverKernel cast_tensor(long elements, DataType source, DataType destination);

// KernelBuildParameters::GenerateFor (src/kernel_build_params.cpp:36-82):
// "-D<name>=<value>" for OpenCL and HIP, "-Wa,-defsym,<name>=<value>" for assembly.
std::string generate_defines(const std::vector<std::pair<std::string, std::string>>& defines, std::string_view prefix);

}  // namespace kdbgen
