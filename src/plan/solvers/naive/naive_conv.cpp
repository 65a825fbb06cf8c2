// ConvDirectNaiveConvFwd / Bwd / Wrw: the GPU reference convolution, HIP.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/:
//   conv_direct_naive_conv.cpp:129-236  kernel name ("naive_conv_ab_nonpacked_<dir>_<layout>_<in>_<acc>_<out>")
//   conv_direct_naive_conv.cpp:238-254  kernel file "naive_conv.cpp" (fp8/cast: "fp8_naive_conv.cpp")
//   conv_direct_naive_conv.cpp:256-287  options = ctx.general_compile_options
//   conv_direct_naive_conv_fwd.cpp:40-83, _bwd.cpp:40-82, _wrw.cpp:40-82  IsApplicable
// MIOpen 3.2.0 (rocm-6.2.0), src/solver/conv_direct_naive_conv.cpp: the same,
// but kernel names start "naive_conv_nonpacked_" (:129-134).
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

namespace kdbgen {

namespace {

class NaiveConv : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:2836, :2856, :2876
    explicit NaiveConv(ConvDirection direction) : direction_(direction) {}

    bool uses_general_options() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext&, std::string* why) const override {
        if (p.p.direction != direction_) return reject(why, "other direction");
        if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor lengths do not fit into int");
        if (!p.IsLayoutDefault() && !p.IsLayoutNHWC()) return reject(why, "layout is neither NC(D)HW nor N(D)HWC");
        const bool int8_ok = direction_ == ConvDirection::Forward && p.IsInt8();
        if (!(p.IsFp32() || p.IsFp16() || p.IsBfp16() || int8_ok)) return reject(why, "data type");
        if (p.IsTensorsCasted()) return reject(why, "casted tensors use fp8_naive_conv.cpp, not in the catalog");
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const std::string prefix = ctx.version >= MiopenVersion{3, 3, 0} ? "naive_conv_ab_nonpacked_" : "naive_conv_nonpacked_";
        const char* dir = direction_ == ConvDirection::Forward ? "fwd_" : direction_ == ConvDirection::BackwardData ? "bwd_" : "wrw_";
        const char* layout = p.IsLayoutDefault() ? (p.Is2d() ? "nchw_" : "ncdhw_") : (p.Is2d() ? "nhwc_" : "ndhwc_");
        std::string types;
        if (p.IsFp32()) types = "float_double_float";
        else if (p.IsFp16()) types = "half_double_half";
        else if (p.IsBfp16()) types = "ushort_double_ushort";
        else if (p.p.data_types == "INT8INT8INT32") types = "int8_t_int32_t_int32_t";
        else types = "int8_t_int32_t_float";  // INT8INT8FP32: IsInt8 admits no other int8 key
        return {{"naive_conv.cpp", {prefix + dir + layout + types}, ctx.general_options}};
    }

protected:
    ConvDirection direction_;
};

class ConvDirectNaiveConvFwd : public NaiveConv {
public:
    ConvDirectNaiveConvFwd() : NaiveConv(ConvDirection::Forward) {}
    std::string_view name() const override { return "ConvDirectNaiveConvFwd"; }
};
class ConvDirectNaiveConvBwd : public NaiveConv {
public:
    ConvDirectNaiveConvBwd() : NaiveConv(ConvDirection::BackwardData) {}
    std::string_view name() const override { return "ConvDirectNaiveConvBwd"; }
};
class ConvDirectNaiveConvWrw : public NaiveConv {
public:
    ConvDirectNaiveConvWrw() : NaiveConv(ConvDirection::BackwardWeights) {}
    std::string_view name() const override { return "ConvDirectNaiveConvWrw"; }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvDirectNaiveConvFwd)
KDBGEN_REGISTER_SOLVER(ConvDirectNaiveConvBwd)
KDBGEN_REGISTER_SOLVER(ConvDirectNaiveConvWrw)

}  // namespace kdbgen
