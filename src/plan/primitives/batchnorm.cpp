// Batch normalization, NCHW: forward training (spatial single-pass and
// multi-pass, per-activation), forward inference, backward (spatial single
// -- OpenCL or, for some mixed-precision shapes, the gcnAsmBNBwdTrainSpatial.s
// assembly kernel -- spatial multi-pass, per-activation). The CK solvers
// MIOpen tries first serve NHWC only and are not in kdbgen's catalog.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/batchnorm/ (rocm-6.2.0 is the same but for
// the MIO_BN_GFX120X define, new in 3.3, and two Is2D/type checks noted below):
//   src/ocl/batchnormocl.cpp:154-157, :253-254, :396-399   the solver lists
//   forward_spatial_single.cpp:39-78 IsApplicable, :80-248 GetSolution
//   forward_spatial_multiple.cpp:39-47 IsApplicable, :49-205 GetSolution (three kernels)
//   forward_per_activation.cpp:39-43 IsApplicable (sic: ||), :45-120 GetSolution
//   forward_inference.cpp:39-52 IsApplicable (3.3 adds the FP32/FP16 and 2-D checks), :54-130
//   backward_spatial_single.cpp:40-79 IsApplicable, :81-262 GetSolution (wave 32 on gfx10;
//                                     the assembly kernel under :228-254, WORKAROUND_ISSUE_1146)
//   backward_spatial_multiple.cpp:40-62 IsApplicable, :64-275 GetSolution
//   backward_per_activation.cpp:41-48 IsApplicable, :50-130 GetSolution
#include "kdbgen/primitive.hpp"

#include <cmath>
#include <cstring>

namespace kdbgen {

namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;
using Direction = BatchNormProblem::Direction;
using Mode = BatchNormProblem::Mode;

std::string str(std::size_t v) { return std::to_string(v); }

struct Shape {
    unsigned n, c, hw, chw, nhw, nchw;
    explicit Shape(const BatchNormProblem& p)
        : n(static_cast<unsigned>(p.x.dims[0])), c(static_cast<unsigned>(p.x.dims[1])),
          hw(static_cast<unsigned>(p.x.dims[2] * p.x.dims[3])), chw(c * hw), nhw(n * hw), nchw(n * chw) {}
};

// bfp16parm / bfp32parm / bfpmixparm, as every solver derives them.
Defines type_defines(const BatchNormProblem& p) {
    const bool half = p.data_type == DataType::Half;
    const bool fp16 = half && p.param_type == DataType::Half;
    const bool mix = half && p.param_type == DataType::Float;
    return {{"MIOPEN_USE_FP16", fp16 ? "1" : "0"}, {"MIOPEN_USE_FP32", fp16 || mix ? "0" : "1"},
            {"MIOPEN_USE_FPMIX", mix ? "1" : "0"}};
}
bool is_mix(const BatchNormProblem& p) { return p.data_type == DataType::Half && p.param_type == DataType::Float; }
bool is_fp32parm(const BatchNormProblem& p) { return p.data_type != DataType::Half; }

Defines gfx_defines(const PrimitiveContext& ctx) {
    const std::string_view name = ctx.target.name();
    Defines d = {{"MIO_BN_GFX103X", name.starts_with("gfx103") ? "1" : "0"},
                 {"MIO_BN_GFX110X", name.starts_with("gfx110") ? "1" : "0"}};
    if (ctx.version >= MiopenVersion{3, 3, 0}) d.push_back({"MIO_BN_GFX120X", name.starts_with("gfx120") ? "1" : "0"});
    return d;
}

Defines operator+(Defines a, const Defines& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

bool nchw_2d(const BatchNormProblem& p, std::string* why) {
    if (p.layout != "NCHW") return reject(why, "NHWC batch norm is the CK solvers' (not in the catalog)");
    if (p.x.dims.size() != 4) return reject(why, "not 2-D");
    return true;
}

// Forward training, spatial: BnFwdTrainingSpatialSingle's condition, and the
// variant both spatial solvers compute (2 exactly when Single does not apply).
struct FwdGeometry {
    int variant = 1;
    std::size_t xlocal = 1024, ylocal = 1, ygrid = 1;
    unsigned ldsgcn = 0, ldsnogcn = 0;
};
FwdGeometry forward_geometry(const BatchNormProblem& p) {
    const Shape s(p);
    FwdGeometry g;
    if ((s.hw < 256 && s.n < 256) || (s.hw < 100 && s.n <= 256)) g.xlocal = 256;
    const bool mix = is_mix(p);
    const auto multipass = [&] {
        g.variant = 2, g.xlocal = 1, g.ylocal = 1024;
        g.ygrid = static_cast<std::size_t>(std::ceil(double(s.hw) / double(g.ylocal))) * g.ylocal;
    };
    if ((s.nhw < 33554432 && s.hw > 1024) || (s.n >= 256 && s.hw > 60 && mix) || (s.hw > 512 && mix)) g.variant = 1;
    else if (s.hw <= 512) g.variant = 0;
    else multipass();
    if (s.n > 768 && s.hw > 150 && is_fp32parm(p)) multipass();
    const std::size_t lds = g.variant == 2 ? g.ylocal : g.xlocal;
    g.ldsgcn = static_cast<unsigned>(lds / 64), g.ldsnogcn = static_cast<unsigned>(lds);
    return g;
}

class BnSolver : public PrimitiveSolverFor<BatchNormProblem> {
public:
    std::string_view kind() const override { return "batchnorm"; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
};

class BnFwdTrainingSpatialSingle : public BnSolver {
public:
    std::string_view name() const override { return "BnFwdTrainingSpatialSingle"; }
    int order() const override { return 1; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::ForwardTraining || p.mode != Mode::Spatial) return reject(why, "not spatial forward training");
        if (!nchw_2d(p, why)) return false;
        return forward_geometry(p).variant != 2 || reject(why, "multi-pass shape");
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const FwdGeometry g = forward_geometry(p);
        const Defines d = type_defines(p) +
                          Defines{{"MIO_SAVE_MEAN_VARIANCE", p.save_results ? "1" : "0"},
                                  {"MIO_RUNNING_RESULT", p.running_results ? "1" : "0"},
                                  {"MIO_BN_VARIANT", str(g.variant)},
                                  {"MIO_BN_LDS_SIZE", str(g.ldsnogcn)},
                                  {"MIO_BN_LDSGCN_SIZE", str(g.ldsgcn)},
                                  {"MIO_BN_N", str(s.n)},
                                  {"MIO_BN_GRP0", str(g.xlocal)},
                                  {"MIO_BN_GRP1", str(g.ylocal)},
                                  {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx) +
                          Defines{{"MIO_LAYOUT_NHWC", "0"}, {"MIO_BN_C", str(s.c)}, {"MIO_BN_HW", str(s.hw)},
                                  {"MIO_BN_NHW", str(s.nhw)}, {"MIO_BN_CHW", str(s.chw)}, {"MIO_BN_NCHW", str(s.nchw)}};
        return {{"MIOpenBatchNormFwdTrainSpatial.cl", {"MIOpenBatchNormFwdTrainSpatial"}, generate_defines(d, "D")}};
    }
};

class BnFwdTrainingSpatialMultiple : public BnSolver {
public:
    std::string_view name() const override { return "BnFwdTrainingSpatialMultiple"; }
    int order() const override { return 2; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::ForwardTraining || p.mode != Mode::Spatial) return reject(why, "not spatial forward training");
        if (!nchw_2d(p, why)) return false;
        return forward_geometry(p).variant == 2 || reject(why, "single-pass shape");
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const FwdGeometry g = forward_geometry(p);
        const Defines d = type_defines(p) +
                          Defines{{"MIO_SAVE_MEAN_VARIANCE", p.save_results ? "1" : "0"},
                                  {"MIO_RUNNING_RESULT", p.running_results ? "1" : "0"},
                                  {"MIO_BN_N", str(s.n)},
                                  {"MIO_BN_C", str(s.c)},
                                  {"MIO_BN_HW", str(s.hw)},
                                  {"MIO_BN_NHW", str(s.nhw)},
                                  {"MIO_BN_CHW", str(s.chw)},
                                  {"MIO_BN_NCHW", str(s.nchw)},
                                  {"MIO_BN_NGRPS", str(static_cast<std::size_t>(std::ceil(float(g.ygrid) / g.ylocal)))},
                                  {"MIO_BN_LDS_SIZE", str(g.ldsnogcn)},
                                  {"MIO_BN_LDSGCN_SIZE", str(g.ldsgcn)},
                                  {"MIO_BN_VARIANT", str(g.variant)},
                                  {"MIO_BN_GRP0", str(g.xlocal)},
                                  {"MIO_BN_GRP1", str(g.ylocal)},
                                  {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx) + Defines{{"MIO_LAYOUT_NHWC", "0"}};
        return {{"MIOpenBatchNormFwdTrainSpatial.cl",
                 {"MIOpenBatchNormFwdTrainSpatialMeanVariance", "MIOpenBatchNormFwdTrainSpatialFinalMeanVariance",
                  "MIOpenBatchNormFwdTrainSpatialNorm"},
                 generate_defines(d, "D")}};
    }
};

class BnFwdTrainingPerActivation : public BnSolver {
public:
    std::string_view name() const override { return "BnFwdTrainingPerActivation"; }
    int order() const override { return 3; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::ForwardTraining) return reject(why, "not forward training");
        return nchw_2d(p, why);
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const Defines d = type_defines(p) +
                          Defines{{"MIO_SAVE_MEAN_VARIANCE", p.save_results ? "1" : "0"},
                                  {"MIO_RUNNING_RESULT", p.running_results ? "1" : "0"},
                                  {"MIO_BN_N", str(s.n)},
                                  {"MIO_BN_C", str(s.c)},
                                  {"MIO_BN_HW", str(s.hw)},
                                  {"MIO_BN_NHW", str(s.nhw)},
                                  {"MIO_BN_CHW", str(s.chw)},
                                  {"MIO_BN_NCHW", str(s.nchw)},
                                  {"MIO_BN_LDS_SIZE", "256"},
                                  {"MIO_BN_GRP0", "1"},
                                  {"MIO_BN_GRP1", "256"},
                                  {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx);
        return {{"MIOpenBatchNormFwdTrainPerAct.cl", {"MIOpenBatchNormFwdTrainPerActivation"}, generate_defines(d, "D")}};
    }
};

class BnFwdInference : public BnSolver {
public:
    std::string_view name() const override { return "BnFwdInference"; }
    int order() const override { return 0; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext& ctx, std::string* why) const override {
        if (p.direction != Direction::ForwardInference) return reject(why, "not inference");
        if (p.layout != "NCHW") return reject(why, "NHWC batch norm is the CK solvers' (not in the catalog)");
        if (ctx.version >= MiopenVersion{3, 3, 0}) {
            if (!(p.data_type == DataType::Float || p.data_type == DataType::Half)) return reject(why, "data type");
            if (p.x.dims.size() != 4) return reject(why, "not 2-D");
        }
        return p.x.dims.size() == 4 || reject(why, "not 2-D");
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Defines d = type_defines(p) + Defines{{"MIO_BN_GRP0", "1"}, {"MIO_BN_GRP1", "256"}, {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx);
        const bool spatial = p.mode == Mode::Spatial;
        return {{spatial ? "MIOpenBatchNormFwdInferSpatial.cl" : "MIOpenBatchNormFwdInferPerAct.cl",
                 {spatial ? "MIOpenBatchNormFwdInferSpatialEst" : "MIOpenBatchNormFwdInferPerActivationEst"},
                 generate_defines(d, "D")}};
    }
};

bool backward_single(const Shape& s) {
    return (s.hw > 1024 && s.nhw < 32u * 1024 * 1024) || (s.hw > 512 && s.nhw < 32u * 1024 * 1024) || s.hw <= 512;
}

class BnBwdTrainingSpatialSingle : public BnSolver {
public:
    std::string_view name() const override { return "BnBwdTrainingSpatialSingle"; }
    int order() const override { return 1; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::Backward || p.mode != Mode::Spatial) return reject(why, "not spatial backward");
        if (!nchw_2d(p, why)) return false;
        return backward_single(Shape(p)) || reject(why, "multi-pass shape");
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const std::string_view name = ctx.target.name();
        const unsigned wavesize = name.starts_with("gfx10") ? 32 : 64;
        const bool mix = is_mix(p);
        int variant = 1;
        std::size_t xlocal = 1024;  // every single-pass branch (:128-171)
        if (s.nhw < 32u * 1024 * 1024 && s.hw > 1024) variant = 1;
        else if (s.nhw < 32u * 1024 * 1024 && s.hw > 512) variant = s.n >= 32 ? 1 : 3;
        else if (s.hw <= 512) variant = (s.n > 64 && s.hw > 160) ? 3 : 0;
        if (s.hw < 200 && s.hw > 60 && mix) variant = 1;
        const Defines base = type_defines(p) + Defines{{"MIO_BN_USESAVED", p.use_saved ? "1" : "0"},
                                                      {"MIO_BN_N", str(s.n)},
                                                      {"MIO_BN_C", str(s.c)},
                                                      {"MIO_BN_HW", str(s.hw)},
                                                      {"MIO_BN_NHW", str(s.nhw)},
                                                      {"MIO_BN_CHW", str(s.chw)},
                                                      {"MIO_BN_NCHW", str(s.nchw)},
                                                      {"MIO_BN_LDS_SIZE", str(xlocal)},
                                                      {"MIO_BN_LDSGCN_SIZE", str(xlocal / wavesize)},
                                                      {"MIO_BN_VARIANT", str(variant)},
                                                      {"MIO_WAVESIZE", str(wavesize)},
                                                      {"MIO_BN_GRP0", str(xlocal)},
                                                      {"MIO_BN_GRP1", "1"},
                                                      {"MIO_BN_GRP2", "1"},
                                                      {"MIO_LAYOUT_NHWC", "0"}};
        const bool asm_target = (name.starts_with("gfx8") || (name.starts_with("gfx9") && name != "gfx90a" &&
                                                               !name.starts_with("gfx94"))) &&
                                !ctx.target.miopen_xnack().value_or(false);
        if (s.n > 64 && s.n % 2 == 0 && variant == 3 && mix && p.use_saved && asm_target) {
            const float nhw = static_cast<float>(s.nhw);
            std::uint32_t bits = 0;
            std::memcpy(&bits, &nhw, sizeof bits);
            const Defines d = base + Defines{{"ROCM_METADATA_VERSION", "5"}, {"MIO_BN_NHW_FLOAT", std::to_string(bits)}};
            return {{"gcnAsmBNBwdTrainSpatial.s", {"miopenGcnAsmBNBwdTrainSpatial"}, generate_defines(d, "Wa,-defsym,")}};
        }
        return {{"MIOpenBatchNormBwdSpatial.cl", {"MIOpenBatchNormBwdSpatial"}, generate_defines(base + gfx_defines(ctx), "D")}};
    }
};

class BnBwdTrainingSpatialMultiple : public BnSolver {
public:
    std::string_view name() const override { return "BnBwdTrainingSpatialMultiple"; }
    int order() const override { return 2; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::Backward || p.mode != Mode::Spatial) return reject(why, "not spatial backward");
        if (!nchw_2d(p, why)) return false;
        return !backward_single(Shape(p)) || reject(why, "single-pass shape");
    }
    // Applicable only where the single-pass one is not (H*W > 512, N*H*W >= 32M): variant 2 (:176-186).
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const std::size_t ylocal = 1024;
        const std::size_t ygrid = static_cast<std::size_t>(std::ceil(double(s.hw) / double(ylocal))) * ylocal;
        const Defines d = type_defines(p) +
                          Defines{{"MIO_BN_USESAVED", p.use_saved ? "1" : "0"},
                                  {"MIO_BN_N", str(s.n)},
                                  {"MIO_BN_C", str(s.c)},
                                  {"MIO_BN_HW", str(s.hw)},
                                  {"MIO_BN_NHW", str(s.nhw)},
                                  {"MIO_BN_CHW", str(s.chw)},
                                  {"MIO_BN_NCHW", str(s.nchw)},
                                  {"MIO_BN_NGRPS", str(static_cast<std::size_t>(std::ceil(float(ygrid) / ylocal)))},
                                  {"MIO_BN_LDS_SIZE", str(ylocal)},
                                  {"MIO_BN_LDSGCN_SIZE", str(ylocal / 64)},
                                  {"MIO_BN_VARIANT", "2"},
                                  {"MIO_BN_GRP0", "1"},
                                  {"MIO_BN_GRP1", str(ylocal)},
                                  {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx) + Defines{{"MIO_LAYOUT_NHWC", "0"}};
        std::vector<std::string> symbols;
        if (!p.use_saved) symbols = {"MIOpenBatchNormBwdSpatialMeanVariance", "MIOpenBatchNormBwdSpatialFinalMeanVariance"};
        for (const char* s2 : {"MIOpenBatchNormBwdSpatialDScaleDBias", "MIOpenBatchNormBwdSpatialFinalDScaleDBias",
                               "MIOpenBatchNormBwdSpatialDX"})
            symbols.emplace_back(s2);
        return {{"MIOpenBatchNormBwdSpatial.cl", symbols, generate_defines(d, "D")}};
    }
};

class BnBwdTrainingPerActivation : public BnSolver {
public:
    std::string_view name() const override { return "BnBwdTrainingPerActivation"; }
    int order() const override { return 3; }
    bool applicable(const BatchNormProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != Direction::Backward || p.mode != Mode::PerActivation) return reject(why, "not per-activation backward");
        return nchw_2d(p, why);
    }
    std::vector<SolverKernel> kernels(const BatchNormProblem& p, const PrimitiveContext& ctx) const override {
        const Shape s(p);
        const std::size_t ylocal = 64 >= s.hw ? 64 : 256;
        const std::size_t ygrid = static_cast<std::size_t>(std::ceil(double(s.hw) / double(ylocal))) * ylocal;
        const Defines d = type_defines(p) +
                          Defines{{"MIO_BN_N", str(s.n)},
                                  {"MIO_BN_C", str(s.c)},
                                  {"MIO_BN_HW", str(s.hw)},
                                  {"MIO_BN_NHW", str(s.nhw)},
                                  {"MIO_BN_CHW", str(s.chw)},
                                  {"MIO_BN_NCHW", str(s.nchw)},
                                  {"MIO_BN_NGRPS", str(static_cast<std::size_t>(std::ceil(float(ygrid) / ylocal)))},
                                  {"MIO_BN_GRP0", "1"},
                                  {"MIO_BN_GRP1", str(ylocal)},
                                  {"MIO_BN_GRP2", "1"}} +
                          gfx_defines(ctx);
        return {{"MIOpenBatchNormBwdPerAct.cl",
                 {p.use_saved ? "MIOpenBatchNormBwdPerActivationSaved" : "MIOpenBatchNormBwdPerActivation"},
                 generate_defines(d, "D")}};
    }
};

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnFwdTrainingSpatialSingle)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnFwdTrainingSpatialMultiple)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnFwdTrainingPerActivation)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnFwdInference)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnBwdTrainingSpatialSingle)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnBwdTrainingSpatialMultiple)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(BnBwdTrainingPerActivation)

}  // namespace kdbgen
