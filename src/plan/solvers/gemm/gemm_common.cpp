// The GEMM family's shared rules and helper kernels (see gemm_common.hpp).
#include "gemm_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace kdbgen::gemm {

namespace {

constexpr std::array<const char*, 9> kTypeNames = {"FP16", "FP32", "FP64", "INT8", "INT32", "INT64", "BF16", "FP8", "BF8"};

// "INT8INT8INT32" -> {"INT8", "INT8", "INT32"}; empty when a part is no type name.
// At most three names; count 0 when a part is no type name.
struct TypeNames {
    std::array<std::string_view, 4> names{};
    std::size_t count = 0;
};
TypeNames split_type_names(std::string_view text) {
    TypeNames out;
    while (!text.empty()) {
        std::string_view best;
        for (const char* name : kTypeNames)
            if (text.starts_with(name) && std::string_view(name).size() > best.size()) best = name;
        if (best.empty() || out.count == out.names.size()) return {};
        out.names[out.count++] = best;
        text.remove_prefix(best.size());
    }
    return out;
}

// The cast type of one tensor from the key's "_ci<T>_cw<T>_co<T>" suffix.
std::optional<std::string> cast_type(const ConvView& p, std::string_view tag) {
    const std::string& s = p.p.cast_suffix;
    const auto at = s.find(tag);
    if (at == std::string::npos) return std::nullopt;
    const auto start = at + tag.size();
    const auto end = s.find('_', start);
    return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool is_fp8_kind(const std::optional<std::string>& t) { return t && (*t == "FP8" || *t == "BF8"); }

bool rocblas_fp8_supported(const SolverContext& ctx) { return ctx.target.name().starts_with("gfx94"); }

// The checks the three bases share, in MIOpen's order: int range, casts, FP8.
// `a` and `b` are the tensors the GEMM multiplies (whose casts must both be set).
bool common_checks(const ConvView& p, const SolverContext& ctx, const char* a_tag, const char* b_tag, bool wrw,
                   std::string* why) {
    if (!p.AllTensorsDimsFitIntoInt()) return reject(why, "tensor dims do not fit into int");
    const auto types = tensor_types(p);
    if (!types) return reject(why, "data types");
    if (p.IsTensorsCasted()) {
        if (!rocblas_fp8_supported(ctx)) return reject(why, "casted tensors need rocBLAS FP8 (gfx94)");
        const auto a = cast_type(p, a_tag), b = cast_type(p, b_tag);
        if (!a || !b) return reject(why, "both GEMM inputs must be casted");
        // gemm_wrw.cpp:62-73 tests "a != FP8 && b != BF8" for both: ported as written.
        const bool ok = wrw ? !(*a != "FP8" && *b != "BF8") : is_fp8_kind(a) && is_fp8_kind(b);
        if (!ok) return reject(why, "casts other than FP8/BF8");
    }
    const bool fp8 = types->in == "FP8" || types->weights == "FP8" || types->out == "FP8";
    if (fp8 && !rocblas_fp8_supported(ctx)) return reject(why, "FP8 needs gfx94");
    if (!p.IsLayoutDefault()) return reject(why, "layout");
    return true;
}

}  // namespace

std::optional<TensorTypes> tensor_types(const ConvView& p) {
    // The key types ConvView has already classified need no parse: each GEMM solver asks
    // for them on every problem of a corpus.
    if (p.IsFp32()) return TensorTypes{"FP32", "FP32", "FP32"};
    if (p.IsFp16()) return TensorTypes{"FP16", "FP16", "FP16"};
    if (p.IsBfp16()) return TensorTypes{"BF16", "BF16", "BF16"};
    const auto [names, count] = split_type_names(p.p.data_types);
    if (count == 1) return TensorTypes{names[0], names[0], names[0]};
    if (count == 3) return TensorTypes{names[0], names[1], names[2]};
    return std::nullopt;
}

std::optional<DataType> helper_type(std::string_view name) {
    if (name == "FP32") return DataType::Float;
    if (name == "FP16") return DataType::Half;
    if (name == "BF16") return DataType::BFloat16;
    if (name == "INT8") return DataType::Int8;
    if (name == "INT32") return DataType::Int32;
    return std::nullopt;
}

std::size_t type_size(std::string_view name) {
    if (name == "FP16" || name == "BF16") return 2;
    if (name == "INT8" || name == "FP8" || name == "BF8") return 1;
    if (name == "FP64" || name == "INT64") return 8;
    return 4;
}

long product(std::span<const long> values) {
    long out = 1;
    for (const long v : values) out *= v;
    return out;
}

long weights_elements(const ConvView& p) {
    // K x C/g x spatial; K is y's channels forward (Out) and dy's otherwise (In).
    const long k = p.IsDirectionForward() ? p.GetOutChannels() : p.GetInChannels();
    const long c = p.IsDirectionForward() ? p.GetInChannels() : p.GetOutChannels();
    return k * (c / p.GetGroupCount()) * product(p.p.weights_spatial);
}

bool weights_all_ones(const ConvView& p) {
    return std::all_of(p.p.weights_spatial.begin(), p.p.weights_spatial.end(), [](long v) { return v == 1; });
}
bool pads_all_zero(const ConvView& p) {
    return std::all_of(p.p.pads.begin(), p.p.pads.end(), [](long v) { return v == 0; });
}
bool strides_all(const ConvView& p, long value) {
    return std::all_of(p.p.strides.begin(), p.p.strides.end(), [&](long v) { return v == value; });
}

bool fwd_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm.cpp:52-103: x is In, w the weights.
    if (!common_checks(p, ctx, "_ci", "_cw", false, why)) return false;
    const auto types = *tensor_types(p);
    if (types.in == "INT8" && types.out != "FP32" && types.out != "INT32")
        return reject(why, "INT8 needs a 32-bit output (gemm.cpp:59-63)");
    return p.IsDirectionForward() || reject(why, "not forward");
}

bool bwd_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm_bwd.cpp:52-96: dy is In, w the weights.
    if (!common_checks(p, ctx, "_ci", "_cw", false, why)) return false;
    return p.IsDirectionBackwardData() || reject(why, "not backward data");
}

bool wrw_base_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm_wrw.cpp:47-91: x is Out, dy In; the casts checked are x's and dy's.
    if (!common_checks(p, ctx, "_co", "_ci", true, why)) return false;
    return p.IsDirectionBackwardWrW() || reject(why, "not backward weights");
}

std::uint64_t max_mem_alloc(const ConvView& p, bool double_limit_for_fp32) {
    // MIOPEN_WORKAROUND_ISSUE_2789 is on unless disabled (gemm_common.cpp:60-65).
    std::uint64_t limit = 7287183769ULL;
    if (p.IsFp32() && double_limit_for_fp32) limit *= 2;
    return limit;
}

bool fwd_1x1_0_1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm.cpp:638-660
    if (!fwd_base_applicable(p, ctx, why)) return false;
    const bool ok = weights_all_ones(p) && pads_all_zero(p) && strides_all(p, 1) && tensor_types(p)->weights != "INT8";
    return ok || reject(why, "not a non-INT8 1x1 with stride 1 and no padding");
}

bool fwd_1x1_0_1_int8_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm.cpp:489-514, workspace :450-487
    if (!fwd_base_applicable(p, ctx, why)) return false;
    const auto types = *tensor_types(p);
    if (p.IsTensorsCasted() || types.in == "FP8" || types.in == "BF8" || types.weights == "FP8" ||
        types.weights == "BF8" || types.out == "FP8" || types.out == "BF8")
        return reject(why, "casted or FP8");
    if (!(weights_all_ones(p) && pads_all_zero(p) && strides_all(p, 1) && types.weights == "INT8" &&
          p.GetGroupCount() == 1))
        return reject(why, "not an ungrouped INT8 1x1 with stride 1 and no padding");
    const std::uint64_t workspace = static_cast<std::uint64_t>(p.GetInChannels() / p.GetGroupCount()) *
                                    product(p.p.out_spatial) * type_size(types.weights) * p.GetGroupCount();
    return (workspace <= max_mem_alloc(p, false)) || reject(why, "workspace above MaxMemAllocSz");
}

bool fwd_1x1_0_2_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm.cpp:225-248, workspace :186-223
    if (!fwd_base_applicable(p, ctx, why)) return false;
    if (!(p.Is2d() && weights_all_ones(p) && pads_all_zero(p) && strides_all(p, 2)))
        return reject(why, "not a 2-D 1x1 with stride 2 and no padding");
    const auto types = *tensor_types(p);
    const std::uint64_t x_t = static_cast<std::uint64_t>(p.GetBatchSize()) * p.GetInChannels() *
                              (types.in == "INT8" ? 2 : 1) * product(p.p.out_spatial) * type_size(types.in);
    const std::uint64_t y_t = static_cast<std::uint64_t>(p.GetBatchSize()) * p.GetOutChannels() *
                              product(p.p.out_spatial) * type_size(types.out);
    return (x_t + y_t <= max_mem_alloc(p, false)) || reject(why, "workspace above MaxMemAllocSz");
}

bool bwd_1x1_stride1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm_bwd.cpp:399-420
    if (!bwd_base_applicable(p, ctx, why)) return false;
    return (weights_all_ones(p) && pads_all_zero(p) && strides_all(p, 1)) ||
           reject(why, "not a 1x1 with stride 1 and no padding");
}

bool bwd_1x1_stride2_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm_bwd.cpp:198-221, workspace :158-196 (dx is Out, dy In)
    if (!bwd_base_applicable(p, ctx, why)) return false;
    if (!(p.Is2d() && weights_all_ones(p) && pads_all_zero(p) && strides_all(p, 2)))
        return reject(why, "not a 2-D 1x1 with stride 2 and no padding");
    const auto types = *tensor_types(p);
    const std::uint64_t dx_t = static_cast<std::uint64_t>(p.GetBatchSize()) * p.GetOutChannels() *
                               product(p.p.in_spatial) * type_size(types.out);
    const std::uint64_t dy_t = static_cast<std::uint64_t>(p.GetBatchSize()) * p.GetInChannels() *
                               product(p.p.in_spatial) * type_size(types.in);
    return (dx_t + dy_t <= max_mem_alloc(p, false)) || reject(why, "workspace above MaxMemAllocSz");
}

bool wrw_1x1_stride1_applicable(const ConvView& p, const SolverContext& ctx, std::string* why) {
    // gemm_wrw.cpp:146-167
    if (!wrw_base_applicable(p, ctx, why)) return false;
    return (weights_all_ones(p) && strides_all(p, 1) && pads_all_zero(p)) ||
           reject(why, "not a 1x1 with stride 1 and no padding");
}

namespace {

// Im2d2ColGPU's build options (utilocl.cpp:99-240; MAX_LOCAL_MEM 65536 at :39,
// the type size taken as 4 whatever the type at :101).
std::string im2d2col_options(long c, long in_h, long in_w, long wei_h, long wei_w, long out_h, long out_w, long stride_h,
                             long stride_w, long dil_h, long dil_w, const std::string& type_block) {
    constexpr int kMaxLocalMem = 65536;
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

std::string block(DataType type) { return " " + data_type_defines(type); }

// transpose_NCHW2CNHW / _CNHW2NCHW share their naming (:783-815, :913-945):
// the vectorized V1 for FP32 without stride, else V2.
std::string transpose_name(const char* direction, long c, long h, long w, long h_stride, long w_stride, DataType type) {
    if (!(h_stride == 1 && w_stride == 1 && type == DataType::Float))
        return fmt::format("transpose_{}_V2_2D_WG_off64", direction);
    const long hw = h * w;
    const int rd_blck = hw % 4 == 0 ? 4 : hw % 2 == 0 ? 2 : 1;
    const long map_rd = hw / rd_blck * c;
    constexpr long kMaxActiveThreads = 64 * 4 * 64;  // :38
    return fmt::format("transpose_{}_V1_{}_WG_{}_off64", direction, map_rd < kMaxActiveThreads ? "2D" : "1D",
                       rd_blck == 1 ? std::string("float") : "float" + std::to_string(rd_blck));
}

}  // namespace

SolverKernel im2col(const ConvView& p, long channels, std::span<const long> in_spatial,
                    std::span<const long> out_spatial, DataType type) {
    if (p.Is3d()) return {"MIOpenIm3d2Col.cl", {"Im3d2Col"}, block(type)};  // :307-308, :364
    return {"MIOpenIm2d2Col.cl",
            {"Im2d2Col_v2"},
            im2d2col_options(channels, in_spatial[0], in_spatial[1], p.GetWeightsHeight(), p.GetWeightsWidth(),
                             out_spatial[0], out_spatial[1], p.GetKernelStrideH(), p.GetKernelStrideW(),
                             p.GetDilationH(), p.GetDilationW(), block(type))};
}

SolverKernel col2im(const ConvView& p, DataType type) {
    // dx is Out (C channels, the image), dy In (the columns' spatial side).
    const unsigned long long columns = 1ULL * p.GetOutChannels() * product(p.p.in_spatial) * product(p.p.weights_spatial);
    if (p.Is3d()) {
        // :580-587: the index bound counts sizeof(ConstData_t) = 8 bytes per element.
        return {"MIOpenCol2Im3d.cl",
                {"Col2Im3dU"},
                fmt::format("{} -DMIOPEN_USE_64BIT_INDEX={}", block(type), columns * 8 > 0xffffffffULL ? 1 : 0)};
    }
    // :466-479: in_c channels x out_h x out_w x wei_h x wei_w.
    return {"MIOpenCol2Im2d.cl",
            {"Col2Im2dU"},
            fmt::format("{} -DMIOPEN_USE_64BIT_INDEX={}", block(type), columns > 0xffffffffULL ? 1 : 0)};
}

std::string transpose_nchw2cnhw_name(long c, long h_in, long w_in, long h_stride, long w_stride, DataType type) {
    return transpose_name("NCHW2CNHW", c, h_in, w_in, h_stride, w_stride, type);
}

std::string transpose_cnhw2nchw_name(long c, long h_out, long w_out, long h_stride, long w_stride, DataType type) {
    return transpose_name("CNHW2NCHW", c, h_out, w_out, h_stride, w_stride, type);
}

SolverKernel util_kernels4(std::vector<std::string> symbols, DataType type) {
    return {"MIOpenUtilKernels4.cl", std::move(symbols), block(type)};
}

SolverKernel zero(long elements, DataType type) { return sub_tensor_op_with_scalar(false, elements, type); }

std::vector<SolverKernel> int8_output_cast(const ConvView& p, const TensorTypes& types) {
    if (types.weights != "INT8" || types.out == "INT32") return {};
    const auto to = helper_type(types.out);
    if (!to) return {};
    // ygemmDesc is an INT32 copy of y's descriptor; y is Out (forward).
    return {cast_tensor(p.GetBatchSize() * p.GetOutChannels() * product(p.p.out_spatial), DataType::Int32, *to)};
}

std::vector<SolverKernel> merge_programs(std::vector<SolverKernel> kernels) {
    std::vector<SolverKernel> out;
    for (auto& k : kernels) {
        const auto same = std::find_if(out.begin(), out.end(), [&](const SolverKernel& o) {
            return o.file == k.file && o.options == k.options;
        });
        if (same == out.end()) {
            out.push_back(std::move(k));
            continue;
        }
        for (auto& s : k.symbols)
            if (std::find(same->symbols.begin(), same->symbols.end(), s) == same->symbols.end())
                same->symbols.push_back(std::move(s));
    }
    return out;
}

}  // namespace kdbgen::gemm
