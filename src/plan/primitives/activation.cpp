// Activation: ActivFwdSolver0 and ActivBwdSolver0, the "lite" MIOpenNeuron.cl
// kernels for packed tensors (kdbgen's networks give packed tensors; the
// strided 2-D variants and ActivFwdSolver1 serve descriptors with gaps).
//
// MIOpen 3.3.0 (develop 2d1fd997), identical in rocm-6.2.0:
//   src/ocl/activ_ocl.cpp:72, :123           SolverContainer<ActivFwdSolver0, ActivFwdSolver1>, <ActivBwdSolver0>
//   src/solver/activ/fwd_0.cpp:39-66         IsApplicable (packed: true)
//   src/solver/activ/fwd_0.cpp:68-131        GetSolution: LITE, READ_UNIT/TYPE, NRN_OP_ID, FP16/FP32 defines
//                                            (other types: miopenStatusInternalError, no kernel)
//   src/solver/activ/bwd_0.cpp:38-70, :103-160  the same for backward (other types: no type defines)
//   src/kernel_build_params.cpp:36-82        GenerateFor(OpenCL): "-D<name>[=<value>]" joined by spaces
#include "kdbgen/primitive.hpp"

namespace kdbgen {

namespace {

std::vector<SolverKernel> neuron_kernel(const ActivationProblem& p, bool forward) {
    const long read_len = p.x.elements();
    const int read_unit = read_len % 4 == 0 ? 4 : read_len % 2 == 0 ? 2 : 1;
    std::vector<std::pair<std::string, std::string>> defines = {{"LITE", ""},
                                                                {"MIOPEN_READ_UNIT", std::to_string(read_unit)},
                                                                {"MIOPEN_READ_TYPE", read_type_for(read_unit)},
                                                                {"MIOPEN_NRN_OP_ID", std::to_string(p.mode)}};
    if (p.data_type == DataType::Float) {
        defines.push_back({"MIOPEN_USE_FP16", "0"});
        defines.push_back({"MIOPEN_USE_FP32", "1"});
    } else if (p.data_type == DataType::Half) {
        defines.push_back({"MIOPEN_USE_FP16", "1"});
        defines.push_back({"MIOPEN_USE_FP32", "0"});
    } else if (forward) {
        return {};  // fwd_0.cpp:104-110: unsupported type, no solution
    }
    return {{"MIOpenNeuron.cl", {forward ? "MIOpenActiveFwdLite" : "MIOpenActiveBwdLite"}, generate_defines(defines, "D")}};
}

class ActivFwdSolver0 : public PrimitiveSolverFor<ActivationProblem> {
public:
    std::string_view name() const override { return "ActivFwdSolver0"; }
    std::string_view kind() const override { return "activation"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const ActivationProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != ActivationProblem::Direction::Forward) return reject(why, "backward");
        if (!(p.data_type == DataType::Float || p.data_type == DataType::Half))
            return reject(why, "FP32 and FP16 only (fwd_0.cpp:104-110)");
        return true;
    }
    std::vector<SolverKernel> kernels(const ActivationProblem& p, const PrimitiveContext&) const override {
        return neuron_kernel(p, true);
    }
};

class ActivBwdSolver0 : public PrimitiveSolverFor<ActivationProblem> {
public:
    std::string_view name() const override { return "ActivBwdSolver0"; }
    std::string_view kind() const override { return "activation"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const ActivationProblem& p, const PrimitiveContext&, std::string* why) const override {
        return p.direction == ActivationProblem::Direction::Backward || reject(why, "forward");
    }
    std::vector<SolverKernel> kernels(const ActivationProblem& p, const PrimitiveContext&) const override {
        return neuron_kernel(p, false);
    }
};

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(ActivFwdSolver0)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(ActivBwdSolver0)

}  // namespace kdbgen
