// Pooling, 2-D: PoolingForward2d (MIOpenPooling.cl, mloPoolingG) and
// PoolingBackward2d (MIOpenPoolingBwd.cl). The N-D, naive and transposed
// solvers that follow them in MIOpen's lists are not in kdbgen's catalog yet.
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
//   src/include/miopen/mlo_internal.hpp:284-287  MLO_POOLING_OP_AVE 0, MAX 1, AVE_INCLUSIVE 3
//   src/include/miopen/pooling.hpp:49-90          index type names and maxima
#include "kdbgen/primitive.hpp"

#include <algorithm>

namespace kdbgen {

namespace {

int pre_pow2(int v) {
    v |= v >> 1, v |= v >> 2, v |= v >> 4, v |= v >> 8, v |= v >> 16;
    return (v + 1) >> 1;
}
std::size_t round_up(std::size_t v, std::size_t m) { return ((v + m - 1) / m) * m; }
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
    return round_up(type_size * bot1 * bot0, 16) +
           round_up(std::size_t{4} * t.out_pix_tile1 * t.out_pix_tile0, 16);  // FP16 accumulates in float
}

class PoolingForward2d : public PrimitiveSolverFor<PoolingProblem> {
public:
    std::string_view name() const override { return "PoolingForward2d"; }
    std::string_view kind() const override { return "pooling"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const PoolingProblem& p, const PrimitiveContext& ctx, std::string* why) const override {
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
    std::size_t bytes = round_up(type_size * width * height, 16);
    if (p.mode == PoolingProblem::Mode::Max) bytes += round_up(index_size * width * height, 16);
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

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingForward2d)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(PoolingBackward2d)

}  // namespace kdbgen
