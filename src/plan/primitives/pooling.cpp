// Pooling: PoolingForward2d (MIOpenPooling.cl), PoolingForwardNd
// (MIOpenPoolingND.cl), PoolingForwardNaive (MIOpenPoolingForwardNaive.cl),
// PoolingBackward2d (MIOpenPoolingBwd.cl) and PoolingBackwardNd
// (MIOpenPoolingBwdND.cl), tried in MIOpen's order. The transposed (NHWC)
// solvers that end the lists are not in kdbgen's catalog yet.
//
// MIOpen 3.3.0 (develop 2d1fd997), src/solver/pooling/forward2d.cpp (same in rocm-6.2.0):
//   src/ocl/pooling_ocl.cpp:42-46   SolverContainer<PoolingForward2d, PoolingForwardNd, ...>
//   :40-66    kernel_params (out_pix_tile1 from the output height, prePow2 of src/include/miopen/pooling.hpp:39-47)
//   :68-112   private-memory size;  :114-126 IsApplicable
//              (<= MaxWaveScratchSize / wave size, src/target_properties.cpp:71-72)
//   :128-190  GetSolution: group tiles, the defines in order, SAVE_INDEX when training,
//             then GetDataTypeKBP (src/include/miopen/datatype.hpp:135-183)
//   src/solver/pooling/backward2d.cpp (same in rocm-6.2.0):
//   src/ocl/pooling_ocl.cpp:51-54   SolverContainer<PoolingBackward2d, PoolingBackwardNd, ...>
//   :55-92    kernel_params (tiles from the input width, max pooling only)
//   :110-150  local-memory size (<= 64 KiB, src/target_properties.cpp:74);  :144-155 IsApplicable
//   :157-205  GetSolution: the defines, then GetDataTypeKBP; mloPoolingMaxBwd / mloPoolingAveBwd
//   src/solver/pooling/forwardNd.cpp (rocm-6.2.0: same options):
//   :41-43    1 x 4 x 2 outputs per work item;  :69-84 private memory;  :86-107 IsApplicable
//             (not max pooling with mask indices in training);  :109-170 GetSolution
//   src/solver/pooling/forwardNaive.cpp (same in rocm-6.2.0): :63-85 IsApplicable, :87-190 GetSolution
//   src/solver/pooling/backwardNd.cpp (same in rocm-6.2.0): :35 WORKAROUND_ISSUE_MIFIN_80 (wave 64),
//   :39-62 IsApplicable (not max pooling with mask indices), :64-170 GetSolution (2-D lifted to 3-D)
//   src/include/miopen/mlo_internal.hpp:284-287  MLO_POOLING_OP_AVE 0, MAX 1, AVE_INCLUSIVE 3
//   src/include/miopen/pooling.hpp:49-90          index type names and maxima
#include "kdbgen/primitive.hpp"
#include "../solvers/solver_arithmetic.hpp"

#include <algorithm>

namespace kdbgen {

namespace {

int pre_pow2(int v) {
    v |= v >> 1, v |= v >> 2, v |= v >> 4, v |= v >> 8, v |= v >> 16;
    return (v + 1) >> 1;
}
const char* index_type_name(int t) { return t == 0 ? "uchar" : t == 1 ? "ushort" : t == 2 ? "uint" : "ulong"; }
const char* index_type_max(int t) { return t == 0 ? "UCHAR_MAX" : t == 1 ? "USHRT_MAX" : t == 2 ? "UINT_MAX" : "ULONG_MAX"; }

struct Tiles {
    int kernel_h, kernel_w, stride_h, stride_w, out_h, out_w, out_pix_tile0 = 1, out_pix_tile1;
    explicit Tiles(const PoolingProblem& p)
        : kernel_h(static_cast<int>(p.window[0])), kernel_w(static_cast<int>(p.window[1])),
          stride_h(static_cast<int>(p.strides[0])), stride_w(static_cast<int>(p.strides[1])),
          out_h(static_cast<int>(p.y.dims[2])), out_w(static_cast<int>(p.y.dims[3])) {
        out_pix_tile1 = out_h <= 8 ? 1 : out_h <= 32 ? 4 : 8;
        if (out_h > 16 && out_h % 32 > 16) out_pix_tile1 = std::min(16, std::max(1, pre_pow2(out_pix_tile1 * stride_h)));
    }
};

std::size_t private_memory(const PoolingProblem& p) {
    const Tiles t(p);
    const std::size_t type_size = p.data_type == DataType::Float ? 4 : 2;
    const std::size_t bot0 = static_cast<std::size_t>(t.out_pix_tile0 - 1) * t.stride_w + t.kernel_w;
    const std::size_t bot1 = static_cast<std::size_t>(t.out_pix_tile1 - 1) * t.stride_h + t.kernel_h;
    return solvers::integer_least_multiple<std::size_t>(type_size * bot1 * bot0, 16) +
           solvers::integer_least_multiple<std::size_t>(std::size_t{4} * t.out_pix_tile1 * t.out_pix_tile0, 16);  // FP16 accumulates in float
}

// Every 3.3 pooling solver takes channels-first tensors only (IsPossibleLayout4D5D("NCHW") or
// ("NCDHW"): src/solver/pooling/forward2d.cpp:144-145, forwardNd.cpp:113-114, forwardNaive.cpp:81-86,
// backward2d.cpp:179-180, backwardNd.cpp:55-60, MIOpen 3.3.0): NHWC pooling has no solver there.
bool channels_first(const PoolingProblem& p) { return p.layout == "NCHW" || p.layout == "NCDHW"; }

class PoolingForward2d : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingForward2d"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext& ctx, std::string* why) const override {
        if (!channels_first(p)) return reject(why, "channels-last layout");
        if (p.direction != PoolingProblem::Direction::Forward) return reject(why, "backward");
        if (p.x.dims.size() != 4) return reject(why, "not 2-D");
        if (!(p.data_type == DataType::Float || p.data_type == DataType::Half)) return reject(why, "data type");
        const std::size_t scratch = 256 * 4 * ((1 << 13) - 1);
        if (private_memory(p) > scratch / ctx.target.processor->default_wave_size)
            return reject(why, "window too large for private memory");
        return true;
    }
    std::vector<SolverKernel> kernels(const PoolingProblem& p, const PrimitiveContext&) const override {
        const Tiles t(p);
        int grp_tile0 = t.out_w <= 8 ? 8 : (t.out_w % 32 <= 16 ? 16 : 32);
        int grp_tile1 = t.out_h <= 8 ? 8 : t.out_h < 16 ? 16 : t.out_h <= 32 ? 32 : t.out_h <= 64 ? 64 : 128;
        grp_tile1 /= t.out_pix_tile1;
        while (grp_tile0 * grp_tile1 > 256 && grp_tile0 > 1) grp_tile0 >>= 1;
        const int method = p.mode == PoolingProblem::Mode::Max ? 1 : p.mode == PoolingProblem::Mode::Average ? 0 : 3;
        const auto s = [](int v) { return std::to_string(v); };
        std::vector<std::pair<std::string, std::string>> d = {
            {"MLO_POOLING_OP_ID", s(method)},
            {"MLO_POOLING_KERNEL_SZ1", s(t.kernel_h)},
            {"MLO_POOLING_STRIDE1", s(t.stride_h)},
            {"MLO_POOLING_KERNEL_SZ0", s(t.kernel_w)},
            {"MLO_POOLING_STRIDE0", s(t.stride_w)},
            {"MLO_POOLING_N_HORIZ_OUT_PIX", s(t.out_pix_tile0)},
            {"MLO_POOLING_N_VERT_OUT_PIX", s(t.out_pix_tile1)},
            {"MLO_POOLING_GROUP_SZ0", s(grp_tile0)},
            {"MLO_POOLING_GROUP_SZ1", s(grp_tile1)},
            {"MLO_POOLING_INDEX_TYPE", index_type_name(p.index_type)},
            {"MLO_POOLING_INDEX_MAX", index_type_max(p.index_type)},
        };
        if (p.save_index) {
            d.push_back({"MLO_POOLING_SAVE_INDEX", ""});
            d.push_back({"USE_IMG_INDEX", p.workspace_index_mode == 1 ? "1" : "0"});
        }
        return {{"MIOpenPooling.cl", {"mloPoolingG"}, generate_defines(d, "D") + " " + data_type_defines(p.data_type)}};
    }
};

struct BackwardTiles {
    int kernel_h, kernel_w, stride_h, stride_w, out_pix_tile0 = 1, out_pix_tile1 = 1;
    std::size_t grp_tile0 = 8, grp_tile1 = 8;
    explicit BackwardTiles(const PoolingProblem& p)
        : kernel_h(static_cast<int>(p.window[0])), kernel_w(static_cast<int>(p.window[1])),
          stride_h(static_cast<int>(p.strides[0])), stride_w(static_cast<int>(p.strides[1])) {
        if (p.mode != PoolingProblem::Mode::Max) return;
        const long w = p.x.dims[3];
        out_pix_tile0 = w > 8 && w <= 24 ? 4 : 1;
        out_pix_tile1 = w <= 24 ? 1 : (w > 64 && w <= 96 ? 4 : 8);
        grp_tile0 = w <= 8 ? 8 : w <= 16 ? 4 : w <= 24 ? 8 : w <= 32 ? 32 : w <= 64 ? 8 : w <= 96 ? 16 : w <= 128 ? 16 : 32;
        grp_tile1 = w <= 8 ? 8 : w <= 16 ? 16 : w <= 24 ? 8 : w <= 32 ? 4 : w <= 64 ? 8 : w <= 96 ? 4 : w <= 128 ? 16 : 4;
    }
};

std::size_t backward_local_memory(const PoolingProblem& p) {
    const BackwardTiles t(p);
    const std::size_t width = (t.grp_tile0 * t.out_pix_tile0 + t.kernel_w + t.stride_w - 2) / t.stride_w;
    const std::size_t height = (t.grp_tile1 * t.out_pix_tile1 + t.kernel_h + t.stride_h - 2) / t.stride_h;
    const std::size_t type_size = p.data_type == DataType::Float ? 4 : 2;
    const std::size_t index_size = std::size_t{1} << p.index_type;  // uint8, 16, 32, 64
    std::size_t bytes = solvers::integer_least_multiple<std::size_t>(type_size * width * height, 16);
    if (p.mode == PoolingProblem::Mode::Max) bytes += solvers::integer_least_multiple<std::size_t>(index_size * width * height, 16);
    return bytes;
}

class PoolingBackward2d : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingBackward2d"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (!channels_first(p)) return reject(why, "channels-last layout");
        if (p.direction != PoolingProblem::Direction::Backward) return reject(why, "forward");
        if (p.x.dims.size() != 4) return reject(why, "not 2-D");
        return backward_local_memory(p) <= 64 * 1024 || reject(why, "window too large for local memory");
    }
    std::vector<SolverKernel> kernels(const PoolingProblem& p, const PrimitiveContext&) const override {
        const BackwardTiles t(p);
        const bool max = p.mode == PoolingProblem::Mode::Max;
        const int method = max ? 1 : p.mode == PoolingProblem::Mode::Average ? 0 : 3;
        const auto s = [](auto v) { return std::to_string(v); };
        const std::vector<std::pair<std::string, std::string>> d = {
            {"MLO_POOLING_OP_ID", s(method)},
            {"MLO_POOLING_KERNEL_SZ1", s(t.kernel_h)},
            {"MLO_POOLING_STRIDE1", s(t.stride_h)},
            {"MLO_POOLING_KERNEL_SZ0", s(t.kernel_w)},
            {"MLO_POOLING_STRIDE0", s(t.stride_w)},
            {"MLO_POOLBWD_N_HORIZ_OUT_PIX", s(t.out_pix_tile0)},
            {"MLO_POOLBWD_N_VERT_OUT_PIX", s(t.out_pix_tile1)},
            {"MLO_POOLBWD_GROUP_SZ0", s(t.grp_tile0)},
            {"MLO_POOLBWD_GROUP_SZ1", s(t.grp_tile1)},
            {"MLO_POOLING_INDEX_TYPE", index_type_name(p.index_type)},
            {"MLO_POOLING_INDEX_MAX", index_type_max(p.index_type)},
            {"USE_IMG_INDEX", p.workspace_index_mode == 1 ? "1" : "0"},
        };
        return {{"MIOpenPoolingBwd.cl", {max ? "mloPoolingMaxBwd" : "mloPoolingAveBwd"},
                 generate_defines(d, "D") + " " + data_type_defines(p.data_type)}};
    }
};

int method_id(const PoolingProblem& p) {
    return p.mode == PoolingProblem::Mode::Max ? 1 : p.mode == PoolingProblem::Mode::Average ? 0 : 3;
}
bool fp32_or_fp16(const PoolingProblem& p) { return p.data_type == DataType::Float || p.data_type == DataType::Half; }
std::string with_types(const std::vector<std::pair<std::string, std::string>>& d, const PoolingProblem& p) {
    return generate_defines(d, "D") + " " + data_type_defines(p.data_type);
}

class PoolingForwardNd : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingForwardNd"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 1; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext& ctx, std::string* why) const override {
        if (!channels_first(p)) return reject(why, "channels-last layout");
        if (p.direction != PoolingProblem::Direction::Forward) return reject(why, "backward");
        if (p.x.dims.size() != 5) return reject(why, "not 3-D");
        if (!fp32_or_fp16(p)) return reject(why, "data type");
        const std::size_t type_size = p.data_type == DataType::Float ? 4 : 2;
        const std::size_t bot = type_size * static_cast<std::size_t>((2 - 1) * p.strides[0] + p.window[0]) *
                                static_cast<std::size_t>((4 - 1) * p.strides[1] + p.window[1]) *
                                static_cast<std::size_t>(p.window[2]);
        if (solvers::integer_least_multiple<std::size_t>(bot, 16) > 256 * 4 * ((1 << 13) - 1) / ctx.target.processor->default_wave_size)
            return reject(why, "window too large for private memory");
        if (p.mode == PoolingProblem::Mode::Max && p.workspace_index_mode == 0 && p.save_index)
            return reject(why, "max pooling with mask indices");
        return true;
    }
    std::vector<SolverKernel> kernels(const PoolingProblem& p, const PrimitiveContext&) const override {
        const auto s = [](long v) { return std::to_string(v); };
        std::vector<std::pair<std::string, std::string>> d = {
            {"MLO_POOLING_OP_ID", s(method_id(p))}, {"MAX_ACTIV_WORKITEM", "65536"}, {"MLO_POOLING_GROUP_SZ0", "64"},
            {"MLO_POOLING_GROUP_SZ1", "1"},          {"MLO_POOLING_GROUP_SZ2", "1"},  {"TOP_W_PER_WORK", "1"},
            {"TOP_H_PER_WORK", "4"},                 {"TOP_D_PER_WORK", "2"},         {"KERNEL_SZ_D", s(p.window[0])},
            {"KERNEL_SZ_H", s(p.window[1])},         {"KERNEL_SZ_W", s(p.window[2])}, {"STRIDE_D", s(p.strides[0])},
            {"STRIDE_H", s(p.strides[1])},           {"STRIDE_W", s(p.strides[2])},
            {"MLO_POOLING_INDEX_TYPE", index_type_name(p.index_type)},
            {"MLO_POOLING_INDEX_MAX", index_type_max(p.index_type)}};
        if (p.save_index) d.push_back({"MLO_POOLING_SAVE_INDEX", ""});
        return {{"MIOpenPoolingND.cl", {"mloPoolingNDFwd"}, with_types(d, p)}};
    }
};

class PoolingForwardNaive : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingForwardNaive"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 2; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (!channels_first(p)) return reject(why, "channels-last layout");
        if (p.direction != PoolingProblem::Direction::Forward) return reject(why, "backward");
        if (!fp32_or_fp16(p)) return reject(why, "data type");
        return p.x.dims.size() == 4 || p.x.dims.size() == 5 || reject(why, "not 2-D or 3-D");
    }
    std::vector<SolverKernel> kernels(const PoolingProblem& p, const PrimitiveContext&) const override {
        const bool is2d_kernel = p.x.dims.size() == 4 || p.y.dims[2] == 1;  // top_d == 1
        return {{"MIOpenPoolingForwardNaive.cl",
                 {"mloPoolingForwardNaive"},
                 with_types({{"MLO_POOLING_OP_ID", std::to_string(method_id(p))},
                             {"MLO_POOLING_INDEX_TYPE", index_type_name(p.index_type)},
                             {"MLO_POOLING_IS2D_KERNEL", is2d_kernel ? "1" : "0"}},
                            p)}};
    }
};

class PoolingBackwardNd : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingBackwardNd"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 1; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (!channels_first(p)) return reject(why, "channels-last layout");
        if (p.direction != PoolingProblem::Direction::Backward) return reject(why, "forward");
        if (!fp32_or_fp16(p)) return reject(why, "data type");
        if (!(p.x.dims.size() == 4 || p.x.dims.size() == 5)) return reject(why, "not 2-D or 3-D");
        if (p.mode == PoolingProblem::Mode::Max && p.workspace_index_mode == 0)
            return reject(why, "max pooling with mask indices");
        return true;
    }
    std::vector<SolverKernel> kernels(const PoolingProblem& p, const PrimitiveContext&) const override {
        // 2-D is lifted to 3-D with a depth-1 window (:125-136).
        std::vector<long> lens = p.window, strides = p.strides;
        if (p.x.dims.size() == 4) lens.insert(lens.begin(), 1), strides.insert(strides.begin(), strides[0]);
        bool overlap = false;
        for (std::size_t i = 0; i < strides.size(); ++i) overlap = overlap || strides[i] < lens[i];
        const auto s = [](long v) { return std::to_string(v); };
        const bool max = p.mode == PoolingProblem::Mode::Max;
        return {{"MIOpenPoolingBwdND.cl",
                 {max ? "mloPoolingNDMaxBwd" : "mloPoolingNDAveBwd"},
                 with_types({{"MLO_POOLING_OP_ID", s(method_id(p))},
                             {"MAX_ACTIV_WORKITEM", "65536"},
                             {"MLO_POOLING_GROUP_SZ0", "64"},
                             {"MLO_POOLING_GROUP_SZ1", "1"},
                             {"MLO_POOLING_GROUP_SZ2", "1"},
                             {"PIX_W_PER_WORK", "1"},
                             {"PIX_H_PER_WORK", "4"},
                             {"PIX_D_PER_WORK", "2"},
                             {"KERNEL_SZ_D", s(lens[0])},
                             {"KERNEL_SZ_H", s(lens[1])},
                             {"KERNEL_SZ_W", s(lens[2])},
                             {"STRIDE_D", s(strides[0])},
                             {"STRIDE_H", s(strides[1])},
                             {"STRIDE_W", s(strides[2])},
                             {"TERRITORY_OVERLAP", overlap ? "1" : "0"},
                             {"MLO_POOLING_INDEX_TYPE", index_type_name(p.index_type)},
                             {"MLO_POOLING_INDEX_MAX", index_type_max(p.index_type)}},
                            p)}};
    }
};

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingForward2d)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingForwardNd)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingForwardNaive)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingBackward2d)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingBackwardNd)

}  // namespace kdbgen
