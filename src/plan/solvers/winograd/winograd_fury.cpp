// ConvWinoFuryRxS<2-3>: the "Fury" F(2,3) Winograd assembly kernels of gfx11, FP16 with FP16
// accumulation, stride 1, in a C16 and a C32 flavour that a performance model picks by the CU
// count. A dynamic solver of the Winograd finder (forward, backward data and weights).
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/conv/conv_wino_fury_RxS.cpp:
//   :39          WORKAROUND_SWDEV_453577 1 (no cooperative launch: the invoker's business, not the key's)
//   :41, :235    MIOPEN_DEBUG_AMD_WINOGRAD_FURY_RXS_F2X3, read with env::disabled: on by default
//   :72-79       GetNGroups: min(CUs, 2^8 - 1)
//   :81-105      IsShaderConstraintsMet(V2)
//   :107-112     GpuHasReducedVGPRMem: all but gfx1100, gfx1101, gfx1151
//   :114-214     ShaderModel: IsC32ModePreferable, PerfPrediction
//   :229-271     IsApplicable
//   :296-428     GetSolution: kernel file and name (:340-371), options (:379-383)
//   :466         only <2,3> is instantiated (<3,2> is commented out, :467)
// src/conv/kernel_interface/winograd_kernel_interface.cpp:64-154  WinoShaderArgsV2::SetConvParams
// src/include/miopen/conv/solvers.hpp:2256-2279  the declaration, IsDynamic at :2266
// src/include/miopen/handle.hpp:160-165  GetMaxHardwareComputeUnits: twice the WGPs on gfx1*
// src/solver.cpp:619-620  registered under miopenConvolutionAlgoWinograd;
// src/mlo_dir_conv.cpp:143 (forward/backward-data list) and :185 (WrW list) of the Winograd finder.
// The kernels: src/kernels/winograd/Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_{c16,c32}_stride1.s,
// which include their .inc bodies from the same folder and pick the 1536- or 1024-VGPR body by
// the gfx11 stepping themselves (the c32 file stops with .error on the 1024-VGPR parts).
//
// The name: SolverDbId is GetSolverDbId<ConvWinoFuryRxS<2, 3>>() (solvers.hpp:2259-2262):
// ComputeSolverDbId (src/include/miopen/solver.hpp:102-110) keeps what follows the last ':' of
// get_type_name's "miopen::solver::conv::ConvWinoFuryRxS<2, 3>" (src/include/miopen/type_name.hpp:
// 34-55; clang prints the uint32_t arguments without a U suffix), turns ',' into '-' and drops the
// spaces: "ConvWinoFuryRxS<2-3>". The tree's find-dbs name no Fury solver (no gfx11 find-db ships).
#include "kdbgen/solver.hpp"
#include "../solver_arithmetic.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace kdbgen {

namespace {


// The stride of dimension `dim` (one of N, C, H, W) of a packed 2-D tensor of lengths
// {n, c, h, w} stored in `layout` order: the product of the lengths named after it. A vectorized
// layout (NCHWc, CHWNc) keeps its vector innermost (CalculateStrides, src/tensor.cpp:202-216, with
// a vector length of 4 or 8): every stride, W's included, is at least that, never 1.
std::uint64_t packed_stride(std::string_view layout, char dim, const std::array<long, 4>& lens) {
    if (layout.ends_with('c')) return std::numeric_limits<std::uint64_t>::max();
    const auto length = [&](char d) -> std::uint64_t {
        switch (d) {
            case 'N': return static_cast<std::uint64_t>(lens[0]);
            case 'C': return static_cast<std::uint64_t>(lens[1]);
            case 'H': return static_cast<std::uint64_t>(lens[2]);
            default: return static_cast<std::uint64_t>(lens[3]);
        }
    };
    const auto at = layout.find(dim);
    std::uint64_t stride = 1;
    if (at == std::string_view::npos) return stride;
    for (std::size_t i = at + 1; i < layout.size(); ++i) stride *= length(layout[i]);
    return stride;
}

// WinoShaderArgsV2's main convolution parameters as SetConvParams fills them.
struct FuryArgs {
    std::uint32_t N = 0, C = 0, H = 0, W = 0, K = 0, R = 0, S = 0, out_h = 0, out_w = 0, G = 0;
    std::int32_t pad_h = 0, pad_w = 0;
};

bool fits_u32(long v) { return v >= 0 && static_cast<unsigned long>(v) <= std::numeric_limits<std::uint32_t>::max(); }
bool fits_i32(long v) { return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max(); }

// WinoShaderArgsV2::SetConvParams (winograd_kernel_interface.cpp:64-154): nullopt where it
// returns false. AssignAndCheck (:36-60) refuses a value the field's type cannot hold.
std::optional<FuryArgs> set_conv_params(const ConvView& p, std::string* why) {
    const auto fail = [why](const char* reason) -> std::optional<FuryArgs> {
        reject(why, reason);
        return std::nullopt;
    };
    if (!p.Is2d()) return fail("not 2-D (winograd_kernel_interface.cpp:66-67)");
    if (p.GetBias() != 0) return fail("bias (winograd_kernel_interface.cpp:68-69)");
    // The tensors MIOpen's ProblemDescription holds (in is dy and out is x outside forward,
    // src/include/miopen/conv/problem_description.hpp:117-119): in and out are batch x channels,
    // the weights K x C/G with K and C the forward output and input channels.
    const long k_fwd = p.IsDirectionForward() ? p.GetOutChannels() : p.GetInChannels();
    const long c_fwd = p.IsDirectionForward() ? p.GetInChannels() : p.GetOutChannels();
    const std::array<long, 4> in{p.GetBatchSize(), p.GetInChannels(), p.GetInHeight(), p.GetInWidth()};
    const std::array<long, 4> out{p.GetBatchSize(), p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth()};
    const std::array<long, 4> wei{k_fwd, c_fwd / std::max(1L, p.GetGroupCount()), p.GetWeightsHeight(),
                                  p.GetWeightsWidth()};
    const std::string& in_layout = p.p.in_layout;
    const std::string& wei_layout = p.p.weights_layout;
    const std::string& out_layout = p.p.out_layout;
    // W innermost in all three tensors (:70-74): NCHW, or NHWC with a single channel.
    if (!(packed_stride(in_layout, 'W', in) == 1 && packed_stride(wei_layout, 'W', wei) == 1 &&
          packed_stride(out_layout, 'W', out) == 1))
        return fail("a W stride is not 1: layout (winograd_kernel_interface.cpp:70-74)");

    FuryArgs a;
    if (!fits_u32(p.GetGroupCount())) return fail("group count does not fit uint32 (winograd_kernel_interface.cpp:76-77)");
    a.G = static_cast<std::uint32_t>(p.GetGroupCount());
    const long in_c_per_group = p.GetInChannels() / a.G;    // :79
    const long out_c_per_group = p.GetOutChannels() / a.G;  // :80
    // Forward and backward data (:82-102): the convolution as it runs; backward weights (:103-123):
    // x convolved with dy, the batch taking the place of the channels.
    const bool wrw = p.IsDirectionBackwardWrW();
    const std::array<long, 9> v =
        wrw ? std::array<long, 9>{out_c_per_group, p.GetBatchSize(), p.GetOutHeight(), p.GetOutWidth(), in_c_per_group,
                                  p.GetInHeight(), p.GetInWidth(), p.GetWeightsHeight(), p.GetWeightsWidth()}
            : std::array<long, 9>{p.GetBatchSize(), in_c_per_group, p.GetInHeight(), p.GetInWidth(), out_c_per_group,
                                  p.GetWeightsHeight(), p.GetWeightsWidth(), p.GetOutHeight(), p.GetOutWidth()};
    for (const long x : v)
        if (!fits_u32(x)) return fail("a size does not fit uint32 (winograd_kernel_interface.cpp:82-123)");
    a.N = static_cast<std::uint32_t>(v[0]);
    a.C = static_cast<std::uint32_t>(v[1]);
    a.H = static_cast<std::uint32_t>(v[2]);
    a.W = static_cast<std::uint32_t>(v[3]);
    a.K = static_cast<std::uint32_t>(v[4]);
    a.R = static_cast<std::uint32_t>(v[5]);
    a.S = static_cast<std::uint32_t>(v[6]);
    a.out_h = static_cast<std::uint32_t>(v[7]);
    a.out_w = static_cast<std::uint32_t>(v[8]);
    // Pads (:125-138): the backward pads R - pad - 1 for backward data (may be negative).
    const long pad_h = p.IsDirectionBackwardData() ? p.GetBackwardPadH() : p.GetPadH();
    const long pad_w = p.IsDirectionBackwardData() ? p.GetBackwardPadW() : p.GetPadW();
    if (!fits_i32(pad_h) || !fits_i32(pad_w)) return fail("padding does not fit int32 (winograd_kernel_interface.cpp:125-138)");
    a.pad_h = static_cast<std::int32_t>(pad_h);
    a.pad_w = static_cast<std::int32_t>(pad_w);
    // Batch/K, channel and H strides within uint32 (:140-151).
    constexpr std::uint64_t u32 = std::numeric_limits<std::uint32_t>::max();
    for (const char d : {'N', 'C', 'H'})
        if (packed_stride(in_layout, d, in) > u32 || packed_stride(wei_layout, d, wei) > u32 ||
            packed_stride(out_layout, d, out) > u32)
            return fail("a stride does not fit uint32 (winograd_kernel_interface.cpp:140-151)");
    return a;
}

// GetMaxHardwareComputeUnits (src/include/miopen/handle.hpp:160-165): kdbgen's count is
// GetMaxComputeUnits, the WGPs on gfx1*, two CUs each.
std::uint64_t hardware_compute_units(const SolverContext& ctx) {
    const std::uint64_t cus = ctx.target.compute_units;
    return ctx.target.name().starts_with("gfx1") ? cus * 2 : cus;
}

// GetNGroups (:72-79).
std::uint32_t n_groups_for(std::uint64_t cu_count) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(cu_count, (1U << 8) - 1));
}

// IsShaderConstraintsMetV2 (:81-100), in MIOpen's unsigned arithmetic: nullptr when met, else
// the condition that fails.
const char* shader_constraint_failure(const FuryArgs& a, std::uint32_t n_groups) {
    constexpr std::uint64_t l16 = 1ULL << 16, l31 = 1ULL << 31;
    constexpr long i16_min = std::numeric_limits<std::int16_t>::min(), i16_max = std::numeric_limits<std::int16_t>::max();
    if (!(a.N < l16 && a.C < l16 && a.H < l16 && a.W < l16)) return "N, C, H or W not below 2^16 (:85-88)";
    if (!(a.pad_h >= i16_min && a.pad_h <= i16_max && a.pad_w >= i16_min && a.pad_w <= i16_max))
        return "padding outside int16 (:89-90)";
    if (!(a.out_h < l16 && a.out_w < l16 - 3)) return "output size too large (:91-92)";
    if (!(a.R <= 3 && a.S <= 3)) return "R or S above 3 (the filter; dy's size for WrW) (:93-94)";
    if (!((static_cast<std::uint64_t>(a.N - 1) * a.C + 1) * a.H * a.W < l31)) return "input not below 2^31 elements (:95)";
    if (!((static_cast<std::uint64_t>(a.N - 1) * a.K + 1) * a.out_h * a.out_w < l31))
        return "output not below 2^31 elements (:96)";
    if (!(solvers::integer_divide_ceil<std::uint64_t>(a.K, 16) <= n_groups)) return "ceil(K/16) above min(hardware CUs, 255) (:97)";
    if (!(a.G == 1)) return "more than one group (:98)";
    return nullptr;
}

// GpuHasReducedVGPRMem (:107-112).
bool reduced_vgpr_mem(std::string_view device) {
    return !(device == "gfx1100" || device == "gfx1101" || device == "gfx1151");
}

// ShaderModel::PerfPrediction (:157-213): the predicted clocks of one mode. (The granularity
// loss it also works out, :187-191, plays no part in the choice.)
std::uint64_t predicted_clk(const FuryArgs& a, std::uint64_t n_groups, std::uint64_t cu_count, bool reduced_vgpr,
                            bool c32) {
    constexpr std::uint64_t t_oh = 2, t_ow = 2;                        // :161-162
    constexpr std::uint64_t nhw_factor = 62, k_factor = 16;            // :164-165
    const std::uint64_t c_factor = c32 ? 32 : 16;                      // :166
    // Rg and Sg (:169-170, rounded up to t_R = t_S = 3) enter the MAC count only.
    const std::uint64_t cg = solvers::integer_least_multiple<std::uint64_t>(a.C, c_factor);                  // :171
    const std::uint64_t kg = solvers::integer_least_multiple<std::uint64_t>(a.K, k_factor);                  // :172
    const std::uint64_t ohg = solvers::integer_least_multiple<std::uint64_t>(a.out_h, t_oh);                 // :173
    const std::uint64_t owg = solvers::integer_least_multiple<std::uint64_t>(a.out_w, t_ow) + t_ow;          // :174
    const std::uint64_t c_loops = cg / c_factor;                       // :176
    const std::uint64_t k_ways = kg / k_factor;                        // :177
    const std::uint64_t nhw_tiles = a.N * solvers::integer_divide_ceil<std::uint64_t>(ohg, t_oh) * solvers::integer_divide_ceil<std::uint64_t>(owg, t_ow);  // :181
    // K >= 1 in every key, and IsApplicable keeps k_ways <= n_groups <= cu_count: no zero divisor.
    const std::uint64_t n_groups_e = k_ways * (n_groups / k_ways);     // :182
    const std::uint64_t n_works = k_ways * solvers::integer_divide_ceil<std::uint64_t>(nhw_tiles, nhw_factor);  // :183
    const std::uint64_t n_works_per_cu = solvers::integer_divide_ceil<std::uint64_t>(n_works, n_groups_e) * solvers::integer_divide_ceil<std::uint64_t>(n_groups_e, cu_count);  // :184-185
    const std::uint64_t n_works_per_filter = reduced_vgpr ? 5 : 10;    // :193
    const std::uint64_t f_reloads = c_loops == 1 ? 1 : solvers::integer_divide_ceil<std::uint64_t>(n_works_per_cu, n_works_per_filter);  // :194
    const std::uint64_t ph_start = c32 ? 4 : 6;                        // :196
    const std::uint64_t ph_accum = n_works_per_cu * (c_loops - 1);     // :197
    const std::uint64_t ph_activ = n_works_per_cu;                     // :198
    const std::uint64_t ph_filter = f_reloads * c_loops;               // :199
    const std::uint64_t clk_start = c32 ? 2600 : 1450;                 // :204-207
    const std::uint64_t clk_accum = c32 ? 2938 : 1645;
    const std::uint64_t clk_activ = c32 ? 2989 : 1696;
    const std::uint64_t clk_filter = c32 ? 2600 : 1450;
    return ph_start * clk_start + ph_accum * clk_accum + ph_activ * clk_activ + ph_filter * clk_filter;  // :209-210
}

class ConvWinoFuryRxS23 : public Solver {
public:
    std::string_view name() const override { return "ConvWinoFuryRxS<2-3>"; }
    bool dynamic() const override { return true; }   // IsDynamic, src/include/miopen/conv/solvers.hpp:2266
    bool winograd() const override { return true; }  // src/solver.cpp:619-620; src/mlo_dir_conv.cpp:143, :185
    // The K limit (ceil(K/16) <= min(CUs, 255)) and the C16/C32 model read the CU count.
    bool uses_compute_units() const override { return true; }

    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override {
        // :233-237: MIOPEN_DEBUG_AMD_WINOGRAD_FURY_RXS_F2X3 turns it off only when set to false.
        // :244-245: ctx.use_asm_kernels, true with MIOpen's defaults and a working assembler
        // (src/execution_context.cpp:217-223), as kdbgen's other assembly solvers assume.
        if (p.IsTensorsCasted()) return reject(why, "casted tensors (:246-247)");
        if (!p.IsFp16()) return reject(why, "not FP16 (:248-249)");
        // :250-251 HasNonPackedTensors: kdbgen's keys describe packed tensors.
        if (!ctx.target.name().starts_with("gfx11")) return reject(why, "not gfx11 (:253-256)");
        if (!(p.GetKernelStrideH() == 1 && p.GetKernelStrideW() == 1)) return reject(why, "stride is not 1 (:258-259)");
        if (!(p.GetDilationH() == 1 && p.GetDilationW() == 1)) return reject(why, "dilation is not 1 (:260-261)");
        const auto args = set_conv_params(p, why);  // :263-265
        if (!args) return false;
        const auto n_groups = n_groups_for(hardware_compute_units(ctx));  // :267-268
        if (const char* failed = shader_constraint_failure(*args, n_groups)) return reject(why, failed);  // :270
        return true;
    }

    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override {
        const auto args = set_conv_params(p, nullptr);  // :316-321 (MIOpen throws where it fails)
        const std::string_view device = ctx.target.name();
        const std::uint64_t cu_count = hardware_compute_units(ctx);  // :304
        const std::uint32_t n_groups = n_groups_for(cu_count);       // :305
        // Only for what IsApplicable admits (the model divides by ceil(K/16) and n_groups).
        if (!args || shader_constraint_failure(*args, n_groups)) return {};
        const bool reduced = reduced_vgpr_mem(device);               // :306
        // :323-325: the reduced-VGPR parts have only the C16 kernel; otherwise C32 when its
        // predicted clocks are not above C16's (IsC32ModePreferable, :148-154).
        const bool c32 = !reduced && predicted_clk(*args, n_groups, cu_count, reduced, true) <=
                                         predicted_clk(*args, n_groups, cu_count, reduced, false);
        // :341-371. IsApplicable admitted gfx11 FP16 only, GetSolution's other branches throw.
        const std::string version = "_v2_4_1";
        const std::string postfix = std::string("_fp16_fp16acc") + "_f2x3" + (c32 ? "_c32" : "_c16") + "_stride1";
        const std::string kernel_name =
            "miopenSp3AsmConvFury" + version + "_gfx11" + (reduced ? "_1024vgprs" : "_1536vgprs") + postfix;
        const std::string kernel_file = "Conv_Winograd_Fury" + version + postfix + ".s";
        // :379-383: KernelBuildParameters{ROCM_METADATA_VERSION 5}.GenerateFor(kbp::GcnAsm{})
        // (src/kernel_build_params.cpp:36-77), then the wave flags.
        const std::string options =
            generate_defines({{"ROCM_METADATA_VERSION", "5"}}, "Wa,-defsym,") + " -mcumode -mwavefrontsize64";
        return {{kernel_file, {kernel_name}, options}};
    }
};

}  // namespace

KDBGEN_REGISTER_SOLVER(ConvWinoFuryRxS23)

}  // namespace kdbgen
