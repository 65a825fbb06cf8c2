// The CK solvers' MIOpen helper kernels (ck_grouped.hpp). MIOpen 3.3.0
// (develop 2d1fd997) file:line; the same in the rocm-6.3 branch (219c1776).
#include "ck_grouped.hpp"

#include "../asm_implicit_gemm/gtc_common.hpp"

#include <fmt/format.h>

namespace kdbgen::ck {

namespace {

long product(const Dims& dims) {
    long n = 1;
    for (const long d : dims) n *= d;
    return n;
}

// The one data type of a key (the grouped solvers reject HasMixedDataTypes:
// EncodeDataTypesForKey writes one word only when x, w and y agree,
// src/conv/problem_description.cpp:40-45), as the type switch of each
// IsApplicable takes it: Half, Float, Int8, BFloat16 (e.g. grouped fwd :519-524).
std::optional<DataType> ck_data_type(const ConvView& p) {
    const std::string& word = p.p.data_types;
    if (word == "FP32") return DataType::Float;
    if (word == "FP16") return DataType::Half;
    if (word == "BF16") return DataType::BFloat16;
    if (word == "INT8") return DataType::Int8;
    return std::nullopt;
}

bool is_single_type(const std::string& word) {
    for (const char* name : {"FP32", "FP16", "BF16", "INT8", "INT32", "FP64", "FP8", "BFP8"})
        if (word == name) return true;
    return false;
}

// The cast type of one tensor in the key's suffix ("_ciFP8_coBFP8": 'i', 'w', 'o'), empty when not cast.
std::string cast_of(const ConvView& p, char tensor) {
    const std::string& suffix = p.p.cast_suffix;
    for (std::size_t at = suffix.find("_c"); at != std::string::npos; at = suffix.find("_c", at + 2)) {
        if (at + 2 >= suffix.size() || suffix[at + 2] != tensor) continue;
        const auto end = suffix.find("_c", at + 3);
        return suffix.substr(at + 3, end == std::string::npos ? std::string::npos : end - at - 3);
    }
    return {};
}

}  // namespace

bool ck_whitelisted(const Target& target) {
    for (const char* name : {"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})
        if (target.name().starts_with(name)) return true;
    return false;
}

bool CkGroupedSolver::applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const {
    // Environment gates (MIOPEN_DEBUG_*_XDLOPS, on unless set false; GroupBwd's
    // MIOPEN_DEBUG_CONV_IMPLICIT_GEMM_HIP_GROUP_BWD_XDLOPS turns it off when set,
    // grouped_bwd :476) and the deterministic attribute (off by default,
    // src/include/miopen/convolution.hpp:52, :118-133) stand as MIOpen ships them.
    // Keys describe packed tensors: HasNonPackedTensors and "default layout => packed" hold.
    if (p.p.direction != spec_.direction) return reject(why, "other direction");
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    if (!is_single_type(p.p.data_types)) return reject(why, "mixed data types (HasMixedDataTypes)");
    if (spec_.rejects_casted && p.IsTensorsCasted()) return reject(why, "casted tensors");
    if (spec_.needs_fp8_casts) {
        // F16F8F16 (e.g. f16f8f16_wrw :304-332): FP16 with casts, NHWC, In FP8 and Out BF8.
        if (!p.IsTensorsCasted()) return reject(why, "needs casted tensors");
        if (!p.IsLayoutNHWC()) return reject(why, "NHWC only");
        if (!p.IsFp16()) return reject(why, "FP16 only");
        if (cast_of(p, 'i') != "FP8" || cast_of(p, 'o') != "BFP8") return reject(why, "casts other than In FP8, Out BF8");
    } else {
        if ((spec_.spatial_dims == 2 && !p.Is2d()) || (spec_.spatial_dims == 3 && !p.Is3d()))
            return reject(why, spec_.spatial_dims == 2 ? "not 2-D" : "not 3-D");
        if (!p.IsLayoutDefault() && !p.IsLayoutNHWC()) return reject(why, "layout is neither NC(D)HW nor N(D)HWC");
    }
    if (!ck_whitelisted(ctx.target)) return reject(why, "not a CK device (is_ck_whitelist: gfx908, gfx90a, gfx94x)");
    if (!ck_data_type(p)) return reject(why, "data type other than FP16, FP32, INT8, BF16");
    return true;
}

std::optional<std::string> CkGroupedSolver::kernels_in_library(const ConvView& p) const {
    if (p.IsLayoutNHWC() && spec_.direction != ConvDirection::BackwardWeights)
        return "an N(D)HWC problem runs the CK instance alone (implicitgemm_ck_util.hpp:890-909): nothing for a kdb";
    return std::nullopt;
}

std::vector<SolverKernel> CkGroupedSolver::kernels(const ConvView& p, const SolverContext& ctx) const {
    const DataType type = *ck_data_type(p);
    // MIOpen's swapped fields (ProblemInterpreter, problem_description_interpreter.hpp:47-176):
    // forward in = x, out = y; backward in = dy, out = dx or x.
    const bool forward = spec_.direction == ConvDirection::Forward;
    const long c1 = forward ? p.GetInChannels() : p.GetOutChannels();   // GetInputChannelC
    const long k1 = forward ? p.GetOutChannels() : p.GetInChannels();   // GetOutputChannelK
    const long sx = product(forward ? p.p.in_spatial : p.p.out_spatial);
    const long sy = product(forward ? p.p.out_spatial : p.p.in_spatial);
    const long c = c1 / p.GetGroupCount(), sw = product(p.p.weights_spatial), n = p.GetBatchSize();
    if (p.IsLayoutNHWC()) {
        // SetTensor(dw) (:868-873): the weights tensor, K1 x C x spatial, in its own type (FP16 for F16F8F16).
        return {sub_tensor_op_with_scalar(false, k1 * c * sw, type)};
    }
    std::string why;
    if (gtc::tree_missing(ctx, &why)) return {};
    // TransposeOperand::MakeTransposeSolver (:238-332) over the CKArgs fields, in kernel order
    // input1, input2, output, output_init (:481-501; fwd :920-925, bwd :936-941, wrw :951-956).
    // A 3-D tensor's spatial sizes fold into one (Default2Ndhwc is (n, c, d*h*w),
    // batched_transpose_sol.hpp:116-146), as the 2-D h*w.
    using gtc::Transpose;
    const auto d2n = [&](long batch, long channels, long spatial) {
        return gtc::TransposeNeed{Transpose::Default2Nhwc, type, batch, channels, spatial, 1};
    };
    const auto n2d = [&](long batch, long channels, long spatial) {
        return gtc::TransposeNeed{Transpose::Nhwc2Default, type, batch, channels, spatial, 1};
    };
    std::vector<gtc::TransposeNeed> needs;
    switch (spec_.direction) {
        case ConvDirection::Forward: needs = {d2n(n, c1, sx), d2n(k1, c, sw), n2d(n, k1, sy), d2n(n, k1, sy)}; break;
        case ConvDirection::BackwardData: needs = {d2n(n, k1, sy), d2n(k1, c, sw), n2d(n, c1, sx), d2n(n, c1, sx)}; break;
        case ConvDirection::BackwardWeights: needs = {d2n(n, c1, sx), d2n(n, k1, sy), n2d(k1, c, sw), d2n(k1, c, sw)}; break;
    }
    std::vector<SolverKernel> out;
    gtc::add_transposes(out, needs, ctx, /*skip_trivial=*/false);
    return out;
}

}  // namespace kdbgen::ck
