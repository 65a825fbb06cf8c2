// GEMM-based solvers: the convolution itself runs as rocBLAS (or hipBLASLt)
// GEMMs, which are not MIOpen kernels and never go into a kdb. Around the
// GEMM, MIOpen launches its own helper kernels, and those are kdb records:
// im2col (GemmFwdRest, GemmWrwUniversal), col2im (GemmBwdRest) and the
// zeroing of dw (GemmWrw1x1_stride1, GemmWrwUniversal), NCHW<->CNHW transposes
// (GemmFwd1x1_0_2; GemmBwd1x1_stride2, which zeroes dx too). Planned from the
// find-db only (`--solvers applicable` leaves GEMM solvers out).
//
// MIOpen 3.3.0 (develop 2d1fd997); the helpers are the same in rocm-6.2.0:
//   src/solver/conv/gemm.cpp:885-990        GemmFwdRest: Im2ColGPU(x) per image
//   src/solver/conv/gemm_bwd.cpp:602-745    GemmBwdRest: Col2ImGPU into dx per image
//   src/solver/conv/gemm_wrw.cpp:169-250    GemmWrw1x1_stride1: SetTensor(dw, 0)
//   src/solver/conv/gemm_wrw.cpp:357-470    GemmWrwUniversal: SetTensor(dw, 0), Im2ColGPU(x) per image
//   src/ocl/utilocl.cpp:39, :43-280         Im2d2ColGPU (MAX_LOCAL_MEM 65536, type size taken as 4)
//   src/ocl/utilocl.cpp:403-500             Col2Im2dGPU
//   src/ocl/tensorocl.cpp:44-48, :1451-1495, :1498-1560  SetTensor on a packed tensor (flattened to 1-D)
//   src/solver/conv/gemm.cpp:250-420        GemmFwd1x1_0_2: NCHW2CNHW(x, conv strides), CNHW2NCHW(y)
//   src/solver/conv/gemm_bwd.cpp:223-380    GemmBwd1x1_stride2: SetTensor(dx), NCHW2CNHW(dy), CNHW2NCHW(dx, strides)
//   src/ocl/utilocl.cpp:37-38, :760-1000    the transposes: MIOpenUtilKernels4.cl with only the
//                                           data-type block, kernel names by variant
// Not reproduced: 3-D im2col/col2im and INT8's extra transposes and casts: those problems are reported.
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <cmath>

namespace kdbgen {

namespace {

constexpr int kMaxLocalMem = 65536;

DataType data_type(const ConvView& p) {
    return p.IsFp16() ? DataType::Half : p.IsBfp16() ? DataType::BFloat16 : DataType::Float;
}

// Im2d2ColGPU's build options (utilocl.cpp:99-240).
std::string im2col_options(long c, long in_h, long in_w, long wei_h, long wei_w, long out_h, long out_w, long stride_h,
                           long stride_w, long dil_h, long dil_w, const std::string& type_block) {
    const int num_ch_per_wg = (out_h <= 8 && out_w <= 8) && (stride_h == 1 && stride_w == 1) && c % 4 == 0 ? 4 : 1;
    int tile_x = 32, tile_y = 8;
    const auto ceil_div = [](long a, long b) {
        return static_cast<int>(std::ceil(static_cast<float>(a) / static_cast<float>(b)));
    };
    const auto blocks = [&] { return ceil_div(out_w, tile_x) * ceil_div(out_h, tile_y); };
    const auto local_mem = [&]() -> long {
        if (num_ch_per_wg == 1)
            return ((tile_x - 1) * stride_w + (wei_w - 1) * dil_w + 1) * ((tile_y - 1) * stride_h + (wei_h - 1) * dil_h + 1);
        const long upr_x = ceil_div(tile_x, num_ch_per_wg) - 1, upr_y = ceil_div(tile_y, num_ch_per_wg) - 1;
        const long mem_x = (num_ch_per_wg * upr_x * stride_w + (wei_w - 1) * dil_w + 1) *
                           ((tile_y - 1) * stride_h + (wei_h - 1) * dil_h + 1);
        const long mem_y = num_ch_per_wg * ((tile_x - 1) * stride_w + (wei_w - 1) * dil_w + 1) *
                           (upr_y * stride_h + (wei_h - 1) * dil_h + 1);
        return std::max(mem_x, mem_y);
    };
    int num_blks = blocks();
    long local_mem_sz = local_mem();
    constexpr int type_size = 4;
    const long extreme = num_ch_per_wg * ((wei_w - 1) * dil_w + 1) * ((wei_h - 1) * dil_h + 1) * type_size;
    std::string params;
    if (extreme > kMaxLocalMem) {
        params += fmt::format(" -DEXTREME_LARGE -DNUM_CH_TOTAL={}", c);
    } else {
        while (local_mem_sz * type_size > kMaxLocalMem) {
            tile_x = tile_x == 1 ? 1 : (tile_y == 1 ? tile_x / 2 : tile_x);
            tile_y = tile_y == 1 ? 1 : tile_y / 2;
            num_blks = blocks();
            local_mem_sz = local_mem();
        }
    }
    params += fmt::format(" -DLOCAL_MEM_SIZE={} -DSTRIDE_GT_1={} -DNUM_IM_BLKS_EQ_1={} -DUSE_IM_OFF_GUARD=1",
                          local_mem_sz, stride_h * stride_w > 1 ? 1 : 0, num_blks == 1 ? 1 : 0);
    params += type_block;
    // The 64-bit index checks (:206-238).
    constexpr long long kInt32Max = 2147483647LL;
    const long long group_cnt = static_cast<long long>(std::max<long>(1, c / num_ch_per_wg)) * num_blks;
    bool wide = group_cnt > kInt32Max;
    if (extreme > kMaxLocalMem) {
        const long long global_threads = 256LL * group_cnt;
        const long long out_hw = 1LL * out_h * out_w;
        wide = wide || global_threads > kInt32Max || 1LL * in_h * in_w * c > kInt32Max || out_hw > kInt32Max ||
               1LL * wei_w * wei_h * c * out_hw > kInt32Max;
    } else if (num_blks == 1 && stride_h * stride_w == 1) {
        const long long col_y = group_cnt * num_ch_per_wg * out_h * out_w * wei_h * wei_w;
        wide = wide || group_cnt * num_ch_per_wg * in_h * in_w > kInt32Max || col_y > kInt32Max ||
               col_y + 510 + 1LL * wei_h * wei_w * out_h * out_w > kInt32Max;
    } else {
        const long long col_x = 1LL * (out_h + 256) * out_w + 256;
        const long long col_y = 1LL * c * out_h * out_w * wei_h * wei_w;
        wide = wide || (group_cnt / num_blks) * in_h * in_w > kInt32Max || col_x > kInt32Max || col_y > kInt32Max ||
               col_y + col_x + 1LL * wei_h * wei_w * out_h * out_w > kInt32Max;
    }
    if (wide) params += " -DUSE_LARGE_BUFFER_INDEX";
    return params;
}

// transpose_NCHW2CNHW / transpose_CNHW2NCHW's kernel name (utilocl.cpp:779-815, :913-985):
// the vectorized V1 for FP32 without stride, else V2.
std::string transpose_name(const char* direction, long c, long h, long w, long stride_h, long stride_w, bool fp32) {
    if (!(stride_h == 1 && stride_w == 1 && fp32)) return fmt::format("transpose_{}_V2_2D_WG_off64", direction);
    const long hw = h * w;
    const int rd_blck = hw % 4 == 0 ? 4 : hw % 2 == 0 ? 2 : 1;
    const long map_rd = hw / rd_blck * c;
    return fmt::format("transpose_{}_V1_{}_WG_{}_off64", direction, map_rd < 64 * 4 * 64 ? "2D" : "1D",
                       rd_blck == 1 ? std::string("float") : "float" + std::to_string(rd_blck));
}

enum class Helpers { None, Im2Col, Col2Im, ZeroDw, ZeroDwIm2Col, Transposes, ZeroDxTransposes };

class GemmSolver : public Solver {
public:
    GemmSolver(std::string name, Helpers helpers) : name_(std::move(name)), helpers_(helpers) {}
    std::string_view name() const override { return name_; }
    bool builds_kernels() const override { return helpers_ != Helpers::None; }
    std::string_view missing_kernels_reason() const override {
        return "helper kernels kdbgen does not reproduce (3-D im2col/col2im, INT8 casts)";
    }
    bool applicability_modelled() const override { return false; }
    bool applicable(const ConvView&, const SolverContext&, std::string* why) const override {
        return reject(why, "GEMM solvers are planned from the find-db only");
    }
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext&) const override {
        if (p.IsInt8() || !p.Is2d()) return {};
        const std::string types = data_type_options(p);
        const long weights = p.GetOutChannels() / p.GetGroupCount() * p.GetInChannels() * p.GetWeightsHeight() *
                             p.GetWeightsWidth();
        // Forward: x is the problem's in, y its out; WrW: x is its out, dy its in.
        const auto im2col_of_x = [&](bool forward) {
            const long c = forward ? p.GetInChannels() : p.GetOutChannels();
            const long in_h = forward ? p.GetInHeight() : p.GetOutHeight(), in_w = forward ? p.GetInWidth() : p.GetOutWidth();
            const long out_h = forward ? p.GetOutHeight() : p.GetInHeight(), out_w = forward ? p.GetOutWidth() : p.GetInWidth();
            return SolverKernel{"MIOpenIm2d2Col.cl",
                                {"Im2d2Col_v2"},
                                im2col_options(c, in_h, in_w, p.GetWeightsHeight(), p.GetWeightsWidth(), out_h, out_w,
                                               p.GetKernelStrideH(), p.GetKernelStrideW(), p.GetDilationH(),
                                               p.GetDilationW(), types)};
        };
        switch (helpers_) {
            case Helpers::Im2Col: return {im2col_of_x(true)};
            case Helpers::ZeroDw: return {sub_tensor_op_with_scalar(false, weights, data_type(p))};
            case Helpers::ZeroDwIm2Col: return {sub_tensor_op_with_scalar(false, weights, data_type(p)), im2col_of_x(false)};
            case Helpers::Col2Im: {
                // Backward data: dy is the problem's in, dx its out.
                const unsigned long long ch_offset_max = 1ULL * p.GetOutChannels() * p.GetInHeight() * p.GetInWidth() *
                                                         p.GetWeightsHeight() * p.GetWeightsWidth();
                return {{"MIOpenCol2Im2d.cl",
                         {"Col2Im2dU"},
                         fmt::format("{} -DMIOPEN_USE_64BIT_INDEX={}", types, ch_offset_max > 0xffffffffULL ? 1 : 0)}};
            }
            case Helpers::Transposes: {
                // Forward: x (the problem's in) to CNHW with the conv strides, y (its out) back.
                return {{"MIOpenUtilKernels4.cl",
                         {transpose_name("NCHW2CNHW", p.GetInChannels(), p.GetInHeight(), p.GetInWidth(),
                                         p.GetKernelStrideH(), p.GetKernelStrideW(), p.IsFp32()),
                          transpose_name("CNHW2NCHW", p.GetOutChannels(), p.GetOutHeight(), p.GetOutWidth(), 1, 1,
                                         p.IsFp32())},
                         types}};
            }
            case Helpers::ZeroDxTransposes: {
                // Backward data: dy (the problem's in) to CNHW, the result back into dx with the strides.
                const long dx = p.GetBatchSize() * p.GetOutChannels() * p.GetOutHeight() * p.GetOutWidth();
                return {sub_tensor_op_with_scalar(false, dx, data_type(p)),
                        {"MIOpenUtilKernels4.cl",
                         {transpose_name("NCHW2CNHW", p.GetInChannels(), p.GetInHeight(), p.GetInWidth(), 1, 1,
                                         p.IsFp32()),
                          transpose_name("CNHW2NCHW", p.GetOutChannels(), p.GetInHeight(), p.GetInWidth(),
                                         p.GetKernelStrideH(), p.GetKernelStrideW(), p.IsFp32())},
                         types}};
            }
            default: return {};
        }
    }

private:
    std::string name_;
    Helpers helpers_;
};

const bool registered = [] {
    const std::pair<const char*, Helpers> solvers[] = {
        {"GemmFwd1x1_0_1", Helpers::None},         {"GemmFwd1x1_0_2", Helpers::Transposes},
        {"GemmFwdRest", Helpers::Im2Col},          {"GemmBwd1x1_stride1", Helpers::None},
        {"GemmBwd1x1_stride2", Helpers::ZeroDxTransposes}, {"GemmBwdRest", Helpers::Col2Im},
        {"GemmWrw1x1_stride1", Helpers::ZeroDw},   {"GemmWrwUniversal", Helpers::ZeroDwIm2Col}};
    for (const auto& [name, helpers] : solvers) register_solver(std::make_unique<GemmSolver>(name, helpers));
    return true;
}();

}  // namespace

}  // namespace kdbgen
