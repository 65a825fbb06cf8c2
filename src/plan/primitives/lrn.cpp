// LRN: MIOpen builds these kernels outside the solver framework, through
// mlo_construct_norm (no solver name; kdbgen calls them LrnForward and
// LrnBackward). The forward kernel's read unit depends on the CU count.
//
// MIOpen 3.3.0 (develop 2d1fd997), same in rocm-6.2.0:
//   src/ocl/lrn_ocl.cpp:47-102, :194-160   top = y, bot = x (dy, dx for the df tensors), packed only
//   src/include/miopen/problem_description.hpp:122-200  setTopDescr -> out_*, setBotDescr -> in_*
//   src/mlo_dir_conv.cpp:327-343   setupFloats: " -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FP16=0" (or FP16)
//   src/ocl/mloNorm.cpp:46-250     mloConstructFwd: tiles, MAP_SZ4/read unit (n_waves <= CUs * 8
//                                  halves it; gfx9 FP16 workaround #1057), the option string
//   src/ocl/mloNorm.cpp:252-380    mloConstructBwd
//   src/include/miopen/mlo_internal.hpp:529-530  MLO_LRN_WITHIN_CHANNEL 0, MLO_LRN_ACROSS_CHANNELS 1
#include "kdbgen/primitive.hpp"

#include <cmath>
#include <fmt/format.h>

namespace kdbgen {

namespace {

constexpr int kAcrossChannels = 1;

struct Dims {
    long n, c, h, w;
    explicit Dims(const LrnProblem& p) : n(p.x.dims[0]), c(p.x.dims[1]), h(p.x.dims[2]), w(p.x.dims[3]) {}
    long batch_stride() const { return c * h * w; }
    long channel_stride() const { return h * w; }
};

int lg2(double v) { return static_cast<int>(std::ceil(std::log(v) / std::log(2.))); }

std::string float_defines(const LrnProblem& p) {
    return p.data_type == DataType::Half ? " -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FP16=1" : " -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FP16=0";
}

bool lrn_applicable(const LrnProblem& p, std::string* why) {
    if (p.x.dims.size() != 4) return reject(why, "not 4-D");
    if (!(p.data_type == DataType::Float || p.data_type == DataType::Half)) return reject(why, "data type");
    if (p.size < 1) return reject(why, "window size");
    return true;
}

class LrnForward : public PrimitiveSolverFor<LrnProblem> {
public:
    std::string_view name() const override { return "LrnForward"; }
    std::string_view kind() const override { return "lrn"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const LrnProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != LrnProblem::Direction::Forward) return reject(why, "backward");
        return lrn_applicable(p, why);
    }
    std::vector<SolverKernel> kernels(const LrnProblem& p, const PrimitiveContext& ctx) const override {
        const Dims d(p);
        const long area = p.size, pre_pad = (area - 1) / 2, pad = area - pre_pad - 1;
        const bool across = p.mode == kAcrossChannels;
        long grp0 = d.w <= 16 ? 8 : 16, grp1 = 8, pix0 = 1, pix1 = 1;
        long map_sz4 = d.w * d.h;  // packed
        int read_unit = 4;
        if (across) {
            grp0 = d.w <= 8 ? 8 : 16;
            grp1 = d.h <= 8 ? 8 : 16;
            read_unit = map_sz4 % 4 == 0 ? 4 : map_sz4 % 2 == 0 ? 2 : 1;
            map_sz4 /= read_unit;
        } else {
            pix0 = d.w <= 8 ? 1 : 2;
            pix1 = d.h <= 8 ? 1 : 2;
            map_sz4 = (map_sz4 + 3) / 4;
        }
        const int lg2sz0 = lg2(static_cast<double>(pix0)), lg2sz1 = lg2(static_cast<double>(pix1));
        if (across) {
            grp0 = 64, grp1 = 1;
            const long n_waves = (d.n * map_sz4 + 63) / 64;
            if (n_waves <= static_cast<long>(ctx.target.compute_units) * 8) {
                map_sz4 = d.w * d.h;
                read_unit = map_sz4 % 2 == 0 ? 2 : 1;
                map_sz4 /= read_unit;
            }
            if (p.data_type == DataType::Half && read_unit > 1 &&
                std::string_view(ctx.target.name()).find("gfx9") != std::string_view::npos) {
                map_sz4 *= read_unit;  // workaround for #1057
                read_unit = 1;
            }
        }
        const long g_wk_width = (d.w + grp0 * pix0 - 1) / (grp0 * pix0);
        const long g_wk_height = (d.h + grp1 * pix1 - 1) / (grp1 * pix1);
        const int vert_aligned = g_wk_height * grp1 * pix1 == d.h ? 1 : 0;
        const int horiz_aligned = g_wk_width * grp0 * pix0 == d.w ? 1 : 0;
        const int divby4 = map_sz4 * read_unit == d.w * d.h ? 1 : 0;
        const long pixleft = divby4 == 1 ? 0 : d.w * d.h - (map_sz4 - 1) * read_unit;
        std::string o = fmt::format(
            " -DMLO_LRN_KERNEL_SZ={0} -DMLO_LRN_PAD={1} -DMLO_LRN_KERNEL_SZ1={0} -DMLO_LRN_PAD1={1}"
            " -DMLO_LRN_KERNEL_SZ0={0} -DMLO_LRN_PAD0={1} -DMLO_LRN_PRE_PAD={2} -DMLO_LRN_PRE_PAD1={2}"
            " -DMLO_LRN_PRE_PAD0={2} -DMLO_LRN_N_OUTPUTS={3} -DMLO_LRN_N_INPUTS={3} -DMLO_LRN_N_HORIZ_OUT_PIX={4}"
            " -DMLO_LRN_N_VERT_OUT_PIX={5} -DMLO_LRN_GROUP_SZ0={6} -DMLO_LRN_GROUP_SZ1={7}"
            " -DMLO_LRN_GROUP_LG2SZ0={8} -DMLO_LRN_GROUP_LG2SZ1={9}",
            area, pad, pre_pad, d.c, pix0, pix1, grp0, grp1, lg2sz0, lg2sz1);
        o += fmt::format(
            " -DMLO_LRN_BOT_BATCH_STRIDE={0} -DMLO_LRN_BOT_CHANNEL_STRIDE={1} -DMLO_LRN_BOT_STRIDE={2}"
            " -DMLO_LRN_TOP_BATCH_STRIDE={0} -DMLO_LRN_TOP_CHANNEL_STRIDE={1} -DMLO_LRN_TOP_STRIDE={2}"
            " -DMLO_LRN_BOT_WIDTH={2} -DMLO_LRN_BOT_HEIGHT={3} -DMLO_LRN_TOP_WIDTH={2} -DMLO_LRN_TOP_HEIGHT={3}"
            " -DMLO_LRN_SCALE_BATCH_STRIDE={0} -DMLO_LRN_SCALE_CHANNEL_STRIDE={1} -DMLO_LRN_SCALE_STRIDE={2}"
            " -DMLO_LRN_TOPDF_BATCH_STRIDE=1 -DMLO_LRN_TOPDF_CHANNEL_STRIDE=1 -DMLO_LRN_TOPDF_STRIDE=1"
            " -DMLO_LRN_BOTDF_BATCH_STRIDE=1 -DMLO_LRN_BOTDF_CHANNEL_STRIDE=1 -DMLO_LRN_BOTDF_STRIDE=1"
            " -DMLO_LRN_BATCH_SZ={4} -DMLO_LRN_N_INPUTS={5} -DMLO_LRN_N_OUTPUTS={5} -DMLO_LRN_DO_SCALE={6}",
            d.batch_stride(), d.channel_stride(), d.w, d.h, d.n, d.c, p.save_scale ? 1 : 0);
        o += fmt::format(
            " -DMLO_OUT_VERT_ALIGNED={} -DMLO_OUT_HORIZ_ALIGNED={} -DMLO_MAP_SZ4={} -DMLO_C1x1_PIXLEFT={}"
            " -DMLO_DIVBY4={} -DMLO_READ_TYPE={} -DMLO_READ_UNIT={}",
            vert_aligned, horiz_aligned, map_sz4, pixleft, divby4, read_type_for(read_unit), read_unit);
        o += float_defines(p);
        return {{"MIOpenLRNFwd.cl", {across ? "MIOpenLRNAcrossChannels4" : "MIOpenLRNWithinChannel_PS"}, o}};
    }
};

class LrnBackward : public PrimitiveSolverFor<LrnProblem> {
public:
    std::string_view name() const override { return "LrnBackward"; }
    std::string_view kind() const override { return "lrn"; }
    int order() const override { return 0; }
    using PrimitiveSolverFor::applicable;
    using PrimitiveSolverFor::kernels;
    bool applicable(const LrnProblem& p, const PrimitiveContext&, std::string* why) const override {
        if (p.direction != LrnProblem::Direction::Backward) return reject(why, "forward");
        return lrn_applicable(p, why);
    }
    std::vector<SolverKernel> kernels(const LrnProblem& p, const PrimitiveContext&) const override {
        const Dims d(p);
        const bool across = p.mode == kAcrossChannels;
        long grp0 = 8, grp1 = 8, pix0 = 1, pix1 = 1;
        if (across) {
            grp0 = d.w <= 8 ? 8 : 16;
            grp1 = d.h <= 8 ? 8 : 16;
        } else {
            pix0 = d.w <= 8 ? 1 : d.w <= 16 ? 2 : 4;
            pix1 = d.h <= 8 ? 1 : d.h <= 16 ? 2 : 4;
        }
        const long area = p.size, pre_pad = (area - 1) / 2, pad = area - pre_pad - 1;
        std::string o = fmt::format(
            " -DMLO_LRN_KERNEL_SZ={} -DMLO_LRN_N_OUTPUTS={} -DMLO_LRN_N_CHANNELS={} -DMLO_LRN_PAD={}"
            " -DMLO_LRN_PRE_PAD={} -DMLO_LRN_N_HORIZ_OUT_PIX={} -DMLO_LRN_N_VERT_OUT_PIX={} -DMLO_LRN_GROUP_SZ0={}"
            " -DMLO_LRN_GROUP_SZ1={} -DMLO_LRN_GROUP_LG2SZ0={} -DMLO_LRN_GROUP_LG2SZ1={}",
            area, d.c, d.c, pad, pre_pad, pix0, pix1, grp0, grp1, lg2(static_cast<double>(grp0)),
            lg2(static_cast<double>(grp1)));
        // Every tensor (x, y, dy, dx, and the scale kept in the workspace) has x's packed strides.
        o += fmt::format(
            " -DMLO_LRN_BOT_BATCH_STRIDE={0} -DMLO_LRN_BOT_CHANNEL_STRIDE={1} -DMLO_LRN_BOT_STRIDE={2}"
            " -DMLO_LRN_TOP_BATCH_STRIDE={0} -DMLO_LRN_TOP_CHANNEL_STRIDE={1} -DMLO_LRN_TOP_STRIDE={2}"
            " -DMLO_LRN_BOT_WIDTH={2} -DMLO_LRN_BOT_HEIGHT={3} -DMLO_LRN_TOP_WIDTH={2} -DMLO_LRN_TOP_HEIGHT={3}"
            " -DMLO_LRN_SCALE_BATCH_STRIDE={0} -DMLO_LRN_SCALE_CHANNEL_STRIDE={1} -DMLO_LRN_SCALE_STRIDE={2}"
            " -DMLO_LRN_TOPDF_BATCH_STRIDE={0} -DMLO_LRN_TOPDF_CHANNEL_STRIDE={1} -DMLO_LRN_TOPDF_STRIDE={2}"
            " -DMLO_LRN_BOTDF_BATCH_STRIDE={0} -DMLO_LRN_BOTDF_CHANNEL_STRIDE={1} -DMLO_LRN_BOTDF_STRIDE={2}"
            " -DMLO_LRN_BATCH_SZ={4} -DMLO_LRN_N_INPUTS={5} -DMLO_LRN_N_OUTPUTS={5}",
            d.batch_stride(), d.channel_stride(), d.w, d.h, d.n, d.c);
        o += float_defines(p);
        return {{"MIOpenLRNBwd.cl", {across ? "MIOpenLRNAcrossChannelsBwd1" : "MIOpenLRNWithinChannelBwd"}, o}};
    }
};

}  // namespace

KDBGEN_REGISTER_PRIMITIVE_SOLVER(LrnForward)
KDBGEN_REGISTER_PRIMITIVE_SOLVER(LrnBackward)

}  // namespace kdbgen
