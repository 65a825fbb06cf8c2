// Golden kdb keys for the GEMM helper kernels (3-D, INT8), the dynamic V4R1
// implicit-GEMM solvers, fft and the fixed-shape assembly solvers, written by
// hand from MIOpen's source (file:line, MIOpen 3.3.0 develop 2d1fd997; the
// same code in rocm-6.2.0 unless a test says otherwise), never by the code
// under test. Each new solver and helper: two problems on two targets. A key
// is {file + ".o", comp_options + " -mcpu=<gfx>"} (src/hip/handlehip.cpp:536-560,
// WORKAROUND_ISSUE_3001 on). Tests that need the MIOpen tree skip without
// KDBGEN_MIOPEN_SRC.
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

using namespace kdbgen;

namespace {

// GetDataTypeKernelParams (src/include/miopen/datatype.hpp:135-190) per type, with the
// src/CMakeLists.txt:41-43 defaults (RNE bfloat16 on, FP8 IEEE bias off, FP8 clipping on).
const std::string kFp32 =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kFp16 =
    " -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kBf16 =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=1 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kInt8 =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=1 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kInt32 =
    " -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=1 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
// SetTensor's SubTensorOpWithScalar1d options (src/ocl/tensorocl.cpp:1541-1547).
std::string zeroing(const std::string& block, int work) {
    return "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET" + block + " -DWORK_LENGTH_0=" + std::to_string(work);
}
// GenerateClangDefsym (src/ocl/gcn_asm_utils.cpp:305-310), code object v3+: 5.
const std::string kMetadata = " -Wa,-defsym,ROCM_METADATA_VERSION=5";

struct Key {
    std::string name, args;
    std::vector<std::string> symbols;
    bool operator==(const Key&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Key& k) {
    return os << "{" << k.name << ", \"" << k.args << "\", [" << fmt::format("{}", fmt::join(k.symbols, ",")) << "]}";
}

const Solver& solver(std::string_view name) {
    const Solver* s = find_solver(name);
    if (!s) throw std::runtime_error("no solver " + std::string(name));
    return *s;
}

std::vector<Key> keys(std::string_view name, const std::string& problem_key, const std::string& target_spec) {
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, {3, 3, 0}, data_type_options(view), nullptr};
    std::vector<Key> out;
    for (const auto& k : solver(name).kernels(view, ctx))
        out.push_back({k.file + ".o", k.options + target.mcpu_suffix(), k.symbols});
    return out;
}

bool applicable(std::string_view name, const std::string& problem_key, const std::string& target_spec) {
    const auto problem = parse_conv_problem_key(problem_key);
    const SolverContext ctx{parse_target(target_spec), {3, 3, 0}, "", nullptr};
    return solver(name).applicable(ConvView{problem}, ctx, nullptr);
}

const char* kGfx908 = "gfx908:sramecc+:xnack-_120";
const char* kGfx90a = "gfx90a:sramecc+:xnack-_110";

}  // namespace

// --- GEMM helpers of 3-D problems ---------------------------------------------------------

// GemmFwdRest on NCDHW: Im2ColGPU -> Im3d2ColGPU (src/ocl/utilocl.cpp:620-687, :282-401):
// program MIOpenIm3d2Col.cl, kernel Im3d2Col, options only GetDataTypeKernelParams(x) (:364).
TEST(GemmHelperKeys, FwdRestIm3d2Col) {
    // find-db gfx90878: 3-1-224-224-1x7x7-64-1-112-112-114-0x3x3-1x2x2-1x1x1-0-NCDHW-FP32-F
    EXPECT_EQ(keys("GemmFwdRest", "3-1-224-224-1x7x7-64-1-112-112-114-0x3x3-1x2x2-1x1x1-0-NCDHW-FP32-F", kGfx908),
              (std::vector<Key>{{"MIOpenIm3d2Col.cl.o", kFp32 + " -mcpu=gfx908", {"Im3d2Col"}}}));
    // find-db gfx90a6e: a BF16 1x1 with stride 2 (3-D, so no GemmFwd1x1_0_2).
    EXPECT_EQ(keys("GemmFwdRest", "1024-1-14-14-1x1x1-2048-1-7-7-100-0x0x0-1x2x2-1x1x1-0-NCDHW-BF16-F", kGfx90a),
              (std::vector<Key>{{"MIOpenIm3d2Col.cl.o", kBf16 + " -mcpu=gfx90a", {"Im3d2Col"}}}));
}

// GemmBwdRest on NCDHW: Col2ImGPU -> Col2Im3dGPU (utilocl.cpp:689-758, :502-618): the data-type
// block of dy, then -DMIOPEN_USE_64BIT_INDEX = (dx channels x dy's D*H*W x Z*Y*X x 8 > 0xffffffff)
// (:580-587; sizeof(ConstData_t) is 8).
TEST(GemmHelperKeys, BwdRestCol2Im3d) {
    // find-db gfx90878: dx 512 channels, dy 8x8, 3x3 filter: 512 * 64 * 9 * 8 = 2359296.
    EXPECT_EQ(keys("GemmBwdRest", "512-1-8-8-1x3x3-512-1-15-15-64-0x1x1-1x2x2-1x1x1-0-NCDHW-BF16-B", kGfx908),
              (std::vector<Key>{
                  {"MIOpenCol2Im3d.cl.o", kBf16 + " -DMIOPEN_USE_64BIT_INDEX=0 -mcpu=gfx908", {"Col2Im3dU"}}}));
    // 128 * (16 * 128 * 128) * 27 * 8 = 7247757312 > 2^32 - 1.
    EXPECT_EQ(keys("GemmBwdRest", "64-16-128-128-3x3x3-128-16-128-128-1-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-B", kGfx90a),
              (std::vector<Key>{
                  {"MIOpenCol2Im3d.cl.o", kFp32 + " -DMIOPEN_USE_64BIT_INDEX=1 -mcpu=gfx90a", {"Col2Im3dU"}}}));
}

// GemmWrw1x1_stride1: SetTensor(dw, 0) (gemm_wrw.cpp:247-249); a packed 5-D dw flattens to one
// dimension (tensorocl.cpp:1508), work length min(2^ceil(log2 n), 65536) (:1470-1495).
TEST(GemmHelperKeys, Wrw1x1ZeroesFiveDimensionalDw) {
    // find-db gfx90878: dw 144 x 512 = 73728 values -> 131072, capped at 65536.
    EXPECT_EQ(keys("GemmWrw1x1_stride1", "144-1-14-14-1x1x1-512-1-14-14-16-0x0x0-1x1x1-1x1x1-0-NCDHW-FP16-W", kGfx908),
              (std::vector<Key>{{"MIOpenSubTensorOpWithScalarKernel.cl.o", zeroing(kFp16, 65536) + " -mcpu=gfx908",
                                 {"SubTensorOpWithScalar1d"}}}));
    // find-db gfx90a6e: 64 x 256 = 16384 values.
    EXPECT_EQ(keys("GemmWrw1x1_stride1", "64-1-256-256-1x1x1-256-1-256-256-4-0x0x0-1x1x1-1x1x1-0-NCDHW-BF16-W", kGfx90a),
              (std::vector<Key>{{"MIOpenSubTensorOpWithScalarKernel.cl.o", zeroing(kBf16, 16384) + " -mcpu=gfx90a",
                                 {"SubTensorOpWithScalar1d"}}}));
}

// GemmWrwUniversal: SetTensor(dw, 0), then Im2ColGPU(x) in dy's type (gemm_wrw.cpp:447-470).
TEST(GemmHelperKeys, WrwUniversalZeroAndIm3d2Col) {
    // find-db gfx90878: dw 54 x 54 x 1x3x3 = 26244 -> 32768.
    EXPECT_EQ(keys("GemmWrwUniversal", "54-1-28-28-1x3x3-54-1-55-55-128-0x1x1-1x2x2-1x1x1-0-NCDHW-BF16-W", kGfx908),
              (std::vector<Key>{{"MIOpenSubTensorOpWithScalarKernel.cl.o", zeroing(kBf16, 32768) + " -mcpu=gfx908",
                                 {"SubTensorOpWithScalar1d"}},
                                {"MIOpenIm3d2Col.cl.o", kBf16 + " -mcpu=gfx908", {"Im3d2Col"}}}));
    // dw 64 x 32 x 3x3x3 = 55296 -> 65536.
    EXPECT_EQ(keys("GemmWrwUniversal", "64-8-28-28-3x3x3-32-8-28-28-16-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-W", kGfx90a),
              (std::vector<Key>{{"MIOpenSubTensorOpWithScalarKernel.cl.o", zeroing(kFp32, 65536) + " -mcpu=gfx90a",
                                 {"SubTensorOpWithScalar1d"}},
                                {"MIOpenIm3d2Col.cl.o", kFp32 + " -mcpu=gfx90a", {"Im3d2Col"}}}));
}

// --- INT8 GEMM helpers --------------------------------------------------------------------

// transpose_packed_MN2NM (utilocl.cpp:1151-1200): MIOpenUtilKernels4.cl with the INT8 block.
// CastTensor (tensorocl.cpp:2006-2130): " -DMIOPEN_SRC_TYPE=1 -DMIOPEN_DST_TYPE=3" (INT32 -> FP32)
// and the work length, kernel SubTensorOpWithCastTensor1d.
TEST(GemmHelperKeys, FwdRestInt8) {
    // gemm.cpp:966-996: Im2d2Col in x's type (3x3 over 56x56: one channel per group, 2 x 7 blocks of
    // 32x8, local memory (31 + 3) * (7 + 3) = 340), then the packed transpose. An INT32 y needs no cast.
    const std::string im2col = " -DLOCAL_MEM_SIZE=340 -DSTRIDE_GT_1=0 -DNUM_IM_BLKS_EQ_1=0 -DUSE_IM_OFF_GUARD=1";
    EXPECT_EQ(keys("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8INT8INT32-F", "gfx906_60"),
              (std::vector<Key>{{"MIOpenIm2d2Col.cl.o", im2col + kInt8 + " -mcpu=gfx906", {"Im2d2Col_v2"}},
                                {"MIOpenUtilKernels4.cl.o", kInt8 + " -mcpu=gfx906", {"transpose_packed_MN2NM_off64"}}}));
    // A float y: CastTensor from the INT32 GEMM result (gemm.cpp:1039-1047), 3-D here:
    // 8 * 16 * 4*14*14 = 100352 values -> 65536.
    EXPECT_EQ(keys("GemmFwdRest", "32-4-14-14-3x3x3-16-4-14-14-8-1x1x1-1x1x1-1x1x1-0-NCDHW-INT8INT8FP32-F", "gfx1030_36"),
              (std::vector<Key>{{"MIOpenIm3d2Col.cl.o", kInt8 + " -mcpu=gfx1030", {"Im3d2Col"}},
                                {"MIOpenUtilKernels4.cl.o", kInt8 + " -mcpu=gfx1030", {"transpose_packed_MN2NM_off64"}},
                                {"MIOpenSubTensorOpWithCastTensorKernel.cl.o",
                                 " -DMIOPEN_SRC_TYPE=1 -DMIOPEN_DST_TYPE=3 -DWORK_LENGTH_0=65536 -mcpu=gfx1030",
                                 {"SubTensorOpWithCastTensor1d"}}}));
}

TEST(GemmHelperKeys, Fwd1x1_0_2Int8) {
    // gemm.cpp:320-432: x (INT8) to CNHW with stride 2 -> V2; the packed transpose, same program and
    // options; y back: FP32 without stride -> V1, 28*28 % 4 == 0 -> float4, 196 * 256 = 50176 >=
    // 64*4*64 -> 1-D (utilocl.cpp:913-940), FP32 block; then the cast of 32 * 256 * 784 values.
    EXPECT_EQ(keys("GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-INT8INT8FP32-F", "gfx906_60"),
              (std::vector<Key>{
                  {"MIOpenUtilKernels4.cl.o",
                   kInt8 + " -mcpu=gfx906",
                   {"transpose_NCHW2CNHW_V2_2D_WG_off64", "transpose_packed_MN2NM_off64"}},
                  {"MIOpenUtilKernels4.cl.o", kFp32 + " -mcpu=gfx906", {"transpose_CNHW2NCHW_V1_1D_WG_float4_off64"}},
                  {"MIOpenSubTensorOpWithCastTensorKernel.cl.o",
                   " -DMIOPEN_SRC_TYPE=1 -DMIOPEN_DST_TYPE=3 -DWORK_LENGTH_0=65536 -mcpu=gfx906",
                   {"SubTensorOpWithCastTensor1d"}}}));
    // An INT32 y: its transpose is V2 with the INT32 block, and no cast.
    EXPECT_EQ(keys("GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-INT8INT8INT32-F", "gfx1030_36"),
              (std::vector<Key>{{"MIOpenUtilKernels4.cl.o",
                                 kInt8 + " -mcpu=gfx1030",
                                 {"transpose_NCHW2CNHW_V2_2D_WG_off64", "transpose_packed_MN2NM_off64"}},
                                {"MIOpenUtilKernels4.cl.o", kInt32 + " -mcpu=gfx1030", {"transpose_CNHW2NCHW_V2_2D_WG_off64"}}}));
}

TEST(GemmHelperKeys, Fwd1x1_0_1_int8) {
    // gemm.cpp:598-614: the packed transpose per image; CastTensor of an INT32 y is a plain copy
    // (tensorocl.cpp:2070-2074), of a float y the cast kernel: 16 * 64 * 3136 values.
    EXPECT_EQ(keys("GemmFwd1x1_0_1_int8", "256-56-56-1x1-64-56-56-16-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F", "gfx906_60"),
              (std::vector<Key>{{"MIOpenUtilKernels4.cl.o", kInt8 + " -mcpu=gfx906", {"transpose_packed_MN2NM_off64"}}}));
    EXPECT_EQ(keys("GemmFwd1x1_0_1_int8", "256-56-56-1x1-64-56-56-16-0x0-1x1-1x1-0-NCHW-INT8INT8FP32-F", kGfx90a),
              (std::vector<Key>{{"MIOpenUtilKernels4.cl.o", kInt8 + " -mcpu=gfx90a", {"transpose_packed_MN2NM_off64"}},
                                {"MIOpenSubTensorOpWithCastTensorKernel.cl.o",
                                 " -DMIOPEN_SRC_TYPE=1 -DMIOPEN_DST_TYPE=3 -DWORK_LENGTH_0=65536 -mcpu=gfx90a",
                                 {"SubTensorOpWithCastTensor1d"}}}));
}

// IsApplicable of the GEMM solvers (gemm.cpp:49-109, :225-248, :489-514, :638-660, :862-883;
// gemm_bwd.cpp:49-102, :198-221, :399-420, :585-600; gemm_wrw.cpp:44-97, :146-167, :341-355).
TEST(GemmApplicability, RestOfSolversLeaveTheOneByOnes) {
    const char* t = "gfx906_60";
    EXPECT_TRUE(applicable("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", t));
    EXPECT_TRUE(applicable("GemmFwd1x1_0_1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", t));
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F", t));
    // INT8 weights: GemmFwd1x1_0_1_int8 instead of GemmFwd1x1_0_1.
    EXPECT_FALSE(applicable("GemmFwd1x1_0_1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F", t));
    EXPECT_TRUE(applicable("GemmFwd1x1_0_1_int8", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F", t));
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F", t));
    // 1x1 stride 2: GemmFwd1x1_0_2 in 2-D only, GemmFwdRest in 3-D.
    EXPECT_TRUE(applicable("GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", t));
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-FP32-F", t));
    EXPECT_TRUE(applicable("GemmFwdRest", "64-1-56-56-1x1x1-256-1-28-28-32-0x0x0-1x2x2-1x1x1-0-NCDHW-FP32-F", t));
    EXPECT_FALSE(applicable("GemmFwd1x1_0_2", "64-1-56-56-1x1x1-256-1-28-28-32-0x0x0-1x2x2-1x1x1-0-NCDHW-FP32-F", t));
    // rocBLAS needs a 32-bit output for INT8 (gemm.cpp:59-63); NHWC is not the default layout.
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F", t));
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP32-F", t));
    // Directions.
    EXPECT_TRUE(applicable("GemmBwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-B", t));
    EXPECT_FALSE(applicable("GemmBwdRest", "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-B", t));
    EXPECT_TRUE(applicable("GemmBwd1x1_stride1", "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP16-B", t));
    EXPECT_TRUE(applicable("GemmBwd1x1_stride2", "512-28-28-1x1-256-56-56-32-0x0-2x2-1x1-0-NCHW-FP16-B", t));
    EXPECT_TRUE(applicable("GemmWrw1x1_stride1", "64-1-56-56-1x1x1-256-1-56-56-8-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W", t));
    EXPECT_FALSE(applicable("GemmWrwUniversal", "64-1-56-56-1x1x1-256-1-56-56-8-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W", t));
    EXPECT_FALSE(applicable("GemmWrwUniversal", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", t));
    // Casted tensors only with rocBLAS FP8 (gfx94).
    EXPECT_FALSE(applicable("GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP16-F_ciFP8_cwFP8", t));
}

TEST(GemmApplicability, WorkspaceLimit) {
    // MaxMemAllocSz = 7287183769 (gemm_common.cpp:38, :55-68), doubled for FP32 in the rest-of
    // forward and backward-data solvers. 256 * 9 * 1024*1024 * 4 = 9663676416 fits the doubled limit;
    // GemmWrwUniversal's own 4 * 256 * 1024*1024 * 9 (gemm_wrw.cpp:302-339) is not doubled.
    EXPECT_TRUE(applicable("GemmFwdRest", "256-1024-1024-3x3-64-1024-1024-1-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx90a_110"));
    EXPECT_FALSE(applicable("GemmWrwUniversal", "64-1024-1024-3x3-256-1024-1024-1-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx90a_110"));
    EXPECT_TRUE(applicable("GemmWrwUniversal", "64-512-512-3x3-256-512-512-1-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx90a_110"));
}

// --- ConvAsmImplicitGemmV4R1Dynamic* ------------------------------------------------------

// Forward: the first valid of seven tunables (conv_asm_implicit_gemm_v4r1_dynamic.cpp:71-86,
// IsValid :183-281) names the symbol (:93-122); file igemm_v4r1_dynamic.s, options the metadata
// version only (:394, :409-411).
TEST(V4R1DynamicKeys, Fwd) {
    // N 32, K 128, C 64, 56x56, 3x3: the first tunable (16,128,16,...) divides K, B = 4*56*56 and
    // E = 576 by 16; 256 threads; LDS (16 + 128) * 16 * 4 * 2 + 8.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-128-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"),
              (std::vector<Key>{{"igemm_v4r1_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx906",
                                 {"igemm_v4r1_dynamic_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_4x64"}}}));
    // K 64: the three K=128 tunables fail; the fourth (8,64,8, clusters 4x4x2 / 4x2x4, copies
    // 8x1x8x1 and 4x16) is the first valid.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx900_56"),
              (std::vector<Key>{{"igemm_v4r1_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx900",
                                 {"igemm_v4r1_dynamic_64x64x8_8x8_4x4x2x4x2x4_8x1x8x1_4x16"}}}));
    EXPECT_TRUE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F",
                           "gfx900_56"));
    // gfx900/gfx906 only (:289-291), FP32 only (:308), XNACK off (:323-325), ungrouped (:317).
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F",
                            kGfx908));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP16-F",
                            "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906:xnack+_60"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F_g2",
                            "gfx906_60"));
    // No tunable divides a batch of 1 by NRepeat x NPerThreadSubC.
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-1-1x1-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906_60"));
}

TEST(V4R1DynamicKeys, Fwd1x1) {
    // The same program as the general forward; the 1x1 symbols (:104-105).
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F",
                   "gfx900_56"),
              (std::vector<Key>{{"igemm_v4r1_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx900",
                                 {"igemm_v4r1_1x1_dynamic_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_4x64"}}}));
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F",
                   "gfx906_60"),
              (std::vector<Key>{{"igemm_v4r1_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx906",
                                 {"igemm_v4r1_1x1_dynamic_64x64x8_8x8_4x4x2x4x2x4_8x1x8x1_4x16"}}}));
    EXPECT_TRUE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "256-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F",
                           "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "64-56-56-3x3-128-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
                            "gfx906_60"));
}

// Backward data: FindImplicitGemmDynamicKernelBwd (conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp:42-131),
// file igemm_bwd_gtc_dynamic.s (:198); the invoker zeroes dx when a filter side is below its stride
// or the filter is dilated (src/conv/invokers/impl_gemm_dynamic.cpp:182-196).
TEST(V4R1DynamicKeys, Bwd) {
    // dy 256 channels, dx 128, 56x56, 1x1, batch 128: GEMM 128 x 128*3136, K 256, plain 1x1 with
    // N % 128 == 0 -> the bt128x128x16 kernel (:90-97); no zeroing.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicBwd", "256-56-56-1x1-128-56-56-128-0x0-1x1-1x1-0-NCHW-FP32-B", "gfx900_56"),
              (std::vector<Key>{{"igemm_bwd_gtc_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx900",
                                 {"igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_16x1x1x16x1_tb1x1x1x2x4x1x1_"
                                  "16x1x1x16x1x1x1"}}}));
    // 1x1 with stride 2 into 56x56: h_tilda 28, slices 28x28, GEMM 128 x 128*784 -> igemm_bwd_gtc
    // (:99-105); 1 < stride 2, so dx (128 * 128 * 56 * 56 values -> 65536) is zeroed first.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicBwd", "256-28-28-1x1-128-56-56-128-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx906_60"),
              (std::vector<Key>{{"igemm_bwd_gtc_dynamic.s.o", kMetadata + " -mcpu=gfx906", {"igemm_bwd_gtc"}},
                                {"MIOpenSubTensorOpWithScalarKernel.cl.o", zeroing(kFp32, 65536) + " -mcpu=gfx906",
                                 {"SubTensorOpWithScalar1d"}}}));
    // 3x3 stride 2, batch 32: GEMM N 32 * 29 * 29 = 26912 is no multiple of 128, and it is no 1x1.
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicBwd", "128-28-28-3x3-128-56-56-32-1x1-2x2-1x1-0-NCHW-FP32-B",
                            "gfx906_60"));
    EXPECT_TRUE(applicable("ConvAsmImplicitGemmV4R1DynamicBwd", "128-28-28-3x3-128-56-56-128-1x1-2x2-1x1-0-NCHW-FP32-B",
                           "gfx906_60"));
}

// Backward weights: FindImplicitGemmWrwV4R1DynamicKernel (conv_asm_implicit_gemm_wrw_v4r1_dynamic.cpp:164-249),
// file igemm_v4r1_wrw_dynamic.s (:372); wrw_reduction_hip.cpp with "-Wno-old-style-cast -Wno-cast-align"
// when the GEMM-K groups (:48-72, :283-296) are more than one (:395-420).
TEST(V4R1DynamicKeys, Wrw) {
    // dy 64 channels, x 64, 56x56, 3x3, batch 1: GEMM 64 x 576 -> the 32x32x4 kernel; one group.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicWrw", "64-56-56-3x3-64-56-56-1-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx900_56"),
              (std::vector<Key>{{"igemm_v4r1_wrw_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx900",
                                 {"igemm_v4r1_dynamic_wrw_32x32x4_4x4_2x2x4x2x4x2_4x2x8x1_4x16"}}}));
    // 128 -> 128 channels, 28x28, batch 32: GEMM 128 x 1152, K per block 16; 32 * 784 splits into
    // 2^5 groups, 784 % 16 == 0 -> the _4x64 kernel, and the reduction.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicWrw", "128-28-28-3x3-128-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W", "gfx906_60"),
              (std::vector<Key>{{"igemm_v4r1_wrw_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx906",
                                 {"igemm_v4r1_dynamic_wrw_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_4x64"}},
                                {"wrw_reduction_hip.cpp.o",
                                 "-Wno-old-style-cast -Wno-cast-align -mcpu=gfx906",
                                 {"wrw_reduction_hip"}}}));
    // find-db gfx900_56: 13x13, batch 128: 128 * 169 is no multiple of 128 * 16, so one group and no
    // reduction; 169 % 16 != 0 -> the _16x16 kernel.
    EXPECT_EQ(keys("ConvAsmImplicitGemmV4R1DynamicWrw", "1024-13-13-3x3-512-13-13-128-1x1-1x1-1x1-0-NCHW-FP32-W",
                   "gfx900_56"),
              (std::vector<Key>{{"igemm_v4r1_wrw_dynamic.s.o",
                                 kMetadata + " -mcpu=gfx900",
                                 {"igemm_v4r1_dynamic_wrw_128x128x16_8x8_4x4x4x4x4x4_16x1x16x1_16x16"}}}));
    EXPECT_FALSE(applicable("ConvAsmImplicitGemmV4R1DynamicWrw", "64-56-56-3x3-64-56-56-1-1x1-1x1-1x1-0-NCHW-FP32-W",
                            "gfx1030_36"));
}

// --- fft ----------------------------------------------------------------------------------

// fft (src/solver/conv/fft.cpp:205-436): one program, MIOpenConvFFT.cl, one option string for
// all its kernels; 7x7 skips the two front transposes (:396-402).
TEST(FftKeys, ForwardAndBackward) {
    const std::vector<std::string> seven = {"MIOpenConvFFT_fwd_in",        "MIOpenConvFFT_fwd_we",
                                            "MIOpenConvFFT_transpose_in",  "MIOpenConvFFT_transpose_we",
                                            "MIOpenConvFFT_cgemm",         "MIOpenConvFFT_transpose_out",
                                            "MIOpenConvFFT_inv_out"};
    // Forward 28x28, N 16, C 64, K 64: every transpose has 1024 or 4096 >= 64 rows, multiples of 32
    // -> no MOD16 flag (:292-297); CGEMM choice 2; tile 32 * 17 = 544; HALFW = 544 * max((1024 + 64)
    // + (4096 + 64), 1024 + 64) = 544 * 5248 = 2854912 (:165-203, :383).
    EXPECT_EQ(keys("fft", "64-28-28-5x5-64-28-28-16-2x2-1x1-1x1-0-NCHW-FP32-F", "gfx906_60"),
              (std::vector<Key>{{"MIOpenConvFFT.cl.o",
                                 " -DCFF_CGEMM_CHOICE_2=1 -DCFF_IMG_SZ_28_28 -DCFF_IMG_H=28 -DCFF_IMG_W=28 -DCFF_BATCH=16"
                                 " -DCFF_NFILTER=64 -DCFF_CHANNELS=64 -DCFF_HALFW=2854912 -mcpu=gfx906",
                                 seven}}));
    // find-db gfx1030_36: backward 14x14, dy 128 channels (In), dx 32, batch 16. 14x14 keeps
    // every MOD16 flag (the choices stay 0, :276-289); CGEMM choice 2; tile 18 * 10 = 180;
    // x is dx: HALFW = 180 * max((16*128 + 64) + (128*32 + 64), 32*16 + 64) = 180 * 6272 = 1128960.
    // GetSolution reads In's sizes: CFF_NFILTER is dx's 32 channels, CFF_CHANNELS dy's 128 (:209-214).
    EXPECT_EQ(keys("fft", "128-14-14-5x5-32-14-14-16-2x2-1x1-1x1-0-NCHW-FP32-B", "gfx1030_36"),
              (std::vector<Key>{{"MIOpenConvFFT.cl.o",
                                 " -DCFF_TRANSP_IN_MOD16=1 -DCFF_TRANSP_WT_MOD16=1 -DCFF_TRANSP_OT_MOD16=1"
                                 " -DCFF_CGEMM_CHOICE_2=1 -DCFF_IMG_SZ_14_14 -DCFF_IMG_H=14 -DCFF_IMG_W=14 -DCFF_BATCH=16"
                                 " -DCFF_NFILTER=32 -DCFF_CHANNELS=128 -DCFF_HALFW=1128960 -DCFF_BACKWARD -mcpu=gfx1030",
                                 seven}}));
    // 7x7 with a batch below 16: CGEMM choice 0 (:332-333); tile 12 * 7 = 84; HALFW = 84 *
    // max((16*8 + 64) + (32*16 + 64), 8*32 + 64) = 84 * 768 = 64512; five kernels.
    EXPECT_EQ(keys("fft", "16-7-7-5x5-32-7-7-8-2x2-1x1-1x1-0-NCHW-FP32-F", kGfx90a),
              (std::vector<Key>{{"MIOpenConvFFT.cl.o",
                                 " -DCFF_TRANSP_IN_MOD16=1 -DCFF_TRANSP_WT_MOD16=1 -DCFF_TRANSP_OT_MOD16=1"
                                 " -DCFF_CGEMM_CHOICE_0=1 -DCFF_IMG_SZ_7_7 -DCFF_IMG_H=7 -DCFF_IMG_W=7 -DCFF_BATCH=8"
                                 " -DCFF_NFILTER=32 -DCFF_CHANNELS=16 -DCFF_HALFW=64512 -mcpu=gfx90a",
                                 {"MIOpenConvFFT_fwd_in", "MIOpenConvFFT_fwd_we", "MIOpenConvFFT_cgemm",
                                  "MIOpenConvFFT_transpose_out", "MIOpenConvFFT_inv_out"}}}));
    // IsApplicable (:113-163): target-independent; not backward weights, 5x5 pad 2 stride 1 only.
    EXPECT_TRUE(applicable("fft", "128-14-14-5x5-32-14-14-16-2x2-1x1-1x1-0-NCHW-FP32-B", "gfx1030_36"));
    EXPECT_FALSE(applicable("fft", "128-14-14-5x5-32-14-14-16-2x2-1x1-1x1-0-NCHW-FP32-W", "gfx1030_36"));
    EXPECT_FALSE(applicable("fft", "128-14-14-5x5-32-14-14-16-2x2-1x1-1x1-0-NCHW-FP16-F", "gfx1030_36"));
    EXPECT_FALSE(applicable("fft", "128-15-15-5x5-32-15-15-16-2x2-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
    // (C * N) % 16: 3 * 5 channels-by-batch fails.
    EXPECT_FALSE(applicable("fft", "3-28-28-5x5-16-28-28-5-2x2-1x1-1x1-0-NCHW-FP32-F", "gfx1030_36"));
}

// --- fixed-shape assembly ---------------------------------------------------------------

// ConvAsm7x7c3h224w224k64u2v2p3q3f1 (conv_asm_7x7c3h224w224k64u2v2p3q3f1.cpp:44-135): the metadata
// version only; gfx8/gfx9 up to gfx908, never gfx90a (WORKAROUND_ISSUE_1146, :34, :71-74).
TEST(FixedAsmKeys, Conv7x7) {
    const std::string layer = "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-F";
    const Key expected{"conv7x7c3h224w224k64u2v2p3q3f1.s.o", kMetadata, {"miopenGcnAsmConv7x7c3h224w224k64u2v2p3q3f1"}};
    for (const auto& [spec, gfx] : {std::pair{"gfx900_56", "gfx900"}, std::pair{kGfx908, "gfx908"}}) {
        EXPECT_TRUE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", layer, spec)) << spec;
        Key k = expected;
        k.args += std::string(" -mcpu=") + gfx;
        EXPECT_EQ(keys("ConvAsm7x7c3h224w224k64u2v2p3q3f1", layer, spec), (std::vector<Key>{k}));
    }
    EXPECT_FALSE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", layer, kGfx90a));
    EXPECT_FALSE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", layer, "gfx1030_36"));
    EXPECT_FALSE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", layer, "gfx906:xnack+_60"));
    EXPECT_FALSE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP16-F",
                            "gfx906_60"));
    EXPECT_FALSE(applicable("ConvAsm7x7c3h224w224k64u2v2p3q3f1", "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-B",
                            "gfx906_60"));
}

// ConvAsm5x10u2v2f1 (conv_asm_5x10u2v2f1.cpp:43-158): inp_h, inp_w, wei_c, wei_k, wei_layout 0,
// pad_w, pad_h, then the metadata version (:128-136).
TEST(FixedAsmKeys, Conv5x10Forward) {
    // find-db gfx900_56 (DeepSpeech): 32 channels 79x341 -> 32, padding 0.
    EXPECT_EQ(keys("ConvAsm5x10u2v2f1", "32-79-341-5x10-32-38-166-16-0x0-2x2-1x1-0-NCHW-FP32-F", "gfx900_56"),
              (std::vector<Key>{{"conv5x10u2v2f1.s.o",
                                 " -Wa,-defsym,inp_h=79 -Wa,-defsym,inp_w=341 -Wa,-defsym,wei_c=32 -Wa,-defsym,wei_k=32"
                                 " -Wa,-defsym,wei_layout=0 -Wa,-defsym,pad_w=0 -Wa,-defsym,pad_h=0" +
                                     kMetadata + " -mcpu=gfx900",
                                 {"miopenConv5x10u2v2f1"}}}));
    EXPECT_EQ(keys("ConvAsm5x10u2v2f1", "1-161-700-5x10-32-81-351-8-2x5-2x2-1x1-0-NCHW-FP32-F", kGfx908),
              (std::vector<Key>{{"conv5x10u2v2f1.s.o",
                                 " -Wa,-defsym,inp_h=161 -Wa,-defsym,inp_w=700 -Wa,-defsym,wei_c=1 -Wa,-defsym,wei_k=32"
                                 " -Wa,-defsym,wei_layout=0 -Wa,-defsym,pad_w=5 -Wa,-defsym,pad_h=2" +
                                     kMetadata + " -mcpu=gfx908",
                                 {"miopenConv5x10u2v2f1"}}}));
    EXPECT_TRUE(applicable("ConvAsm5x10u2v2f1", "1-161-700-5x10-32-81-351-8-2x5-2x2-1x1-0-NCHW-FP32-F", kGfx908));
    // Padding above 5, K not a multiple of 16, gfx90a.
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2f1", "1-161-700-5x10-32-81-352-8-2x6-2x2-1x1-0-NCHW-FP32-F", kGfx908));
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2f1", "1-161-700-5x10-24-81-351-8-2x5-2x2-1x1-0-NCHW-FP32-F", kGfx908));
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2f1", "1-161-700-5x10-32-81-351-8-2x5-2x2-1x1-0-NCHW-FP32-F", kGfx90a));
}

// ConvAsm5x10u2v2b1 (conv_asm_5x10u2v2b1.cpp:43-141): sized by dx (Out) with the channels swapped:
// inp_h, inp_w = dx's, wei_c = dx's channels, wei_k = dy's (:115-120).
TEST(FixedAsmKeys, Conv5x10Backward) {
    // find-db gfx900_56: dy 32 channels 38x166, dx 32 channels 79x341.
    EXPECT_EQ(keys("ConvAsm5x10u2v2b1", "32-38-166-5x10-32-79-341-16-0x0-2x2-1x1-0-NCHW-FP32-B", "gfx906_60"),
              (std::vector<Key>{{"conv5x10u2v2b1.s.o",
                                 " -Wa,-defsym,inp_h=79 -Wa,-defsym,inp_w=341 -Wa,-defsym,wei_c=32 -Wa,-defsym,wei_k=32" +
                                     kMetadata + " -mcpu=gfx906",
                                 {"miopenConv5x10u2v2b1"}}}));
    EXPECT_EQ(keys("ConvAsm5x10u2v2b1", "64-30-70-5x10-48-64-148-4-0x0-2x2-1x1-0-NCHW-FP32-B", kGfx908),
              (std::vector<Key>{{"conv5x10u2v2b1.s.o",
                                 " -Wa,-defsym,inp_h=64 -Wa,-defsym,inp_w=148 -Wa,-defsym,wei_c=48 -Wa,-defsym,wei_k=64" +
                                     kMetadata + " -mcpu=gfx908",
                                 {"miopenConv5x10u2v2b1"}}}));
    EXPECT_TRUE(applicable("ConvAsm5x10u2v2b1", "64-30-70-5x10-48-64-148-4-0x0-2x2-1x1-0-NCHW-FP32-B", kGfx908));
    // dx narrower than 138 (:83, :100), dy with fewer than 16 channels (:99).
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2b1", "64-30-60-5x10-48-64-128-4-0x0-2x2-1x1-0-NCHW-FP32-B", kGfx908));
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2b1", "8-30-70-5x10-48-64-148-4-0x0-2x2-1x1-0-NCHW-FP32-B", kGfx908));
    EXPECT_FALSE(applicable("ConvAsm5x10u2v2b1", "64-30-70-5x10-48-64-148-4-0x0-2x2-1x1-0-NCHW-FP32-F", kGfx908));
}

// No new solver is off by default: each IsApplicable reads its MIOPEN_DEBUG_* variable with
// env::disabled (on unless set to 0), fft's finder too (src/conv/solver_finders.cpp:118-125).
TEST(FamilySolvers, NoneIsDisabledByDefault) {
    const auto problem = parse_conv_problem_key("64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F");
    const SolverContext ctx{parse_target("gfx906_60"), {3, 3, 0}, "", nullptr};
    for (const char* name : {"ConvAsmImplicitGemmV4R1DynamicFwd", "ConvAsmImplicitGemmV4R1DynamicFwd_1x1",
                             "ConvAsmImplicitGemmV4R1DynamicBwd", "ConvAsmImplicitGemmV4R1DynamicWrw", "fft",
                             "ConvAsm7x7c3h224w224k64u2v2p3q3f1", "ConvAsm5x10u2v2f1", "ConvAsm5x10u2v2b1", "GemmFwdRest",
                             "GemmFwd1x1_0_1_int8", "GemmBwdRest", "GemmWrw1x1_stride1", "GemmWrwUniversal"}) {
        EXPECT_FALSE(solver(name).disabled_by_default(ConvView{problem}, ctx).has_value()) << name;
        EXPECT_FALSE(solver(name).uses_compute_units()) << name;
    }
}

// --- with the MIOpen tree -----------------------------------------------------------------

namespace {

const std::vector<std::string> kFamily = {
    "ConvAsmImplicitGemmV4R1DynamicFwd", "ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "ConvAsmImplicitGemmV4R1DynamicBwd",
    "ConvAsmImplicitGemmV4R1DynamicWrw", "fft", "ConvAsm7x7c3h224w224k64u2v2p3q3f1", "ConvAsm5x10u2v2f1",
    "ConvAsm5x10u2v2b1", "GemmFwdRest", "GemmFwd1x1_0_2", "GemmBwd1x1_stride2", "GemmBwdRest", "GemmWrw1x1_stride1",
    "GemmWrwUniversal"};

}  // namespace

// MIOpen wrote a solver into a find-db line only after its IsApplicable said yes on that GPU:
// every such (line, solver) of the tree's find-dbs must be applicable in kdbgen's port too.
TEST(FamilySolversWithTree, ApplicableWhereverTheFindDbsListThem) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    std::map<std::string, int> checked;
    for (const char* spec : {"gfx900_56", "gfx906_60", "gfx908_120", "gfx90a_110", "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const auto path = tree.find_db(target);
        ASSERT_TRUE(path) << spec;
        const SolverContext ctx{target, tree.version(), "", nullptr};
        for (const auto& entry : read_find_db(*path)) {
            const auto problem = parse_conv_problem_key(entry.key);
            for (const auto& listed : entry.solvers) {
                if (std::find(kFamily.begin(), kFamily.end(), listed.solver) == kFamily.end()) continue;
                std::string why;
                EXPECT_TRUE(solver(listed.solver).applicable(ConvView{problem}, ctx, &why))
                    << spec << " " << entry.key << " " << listed.solver << ": " << why;
                ++checked[std::string(listed.solver)];
            }
        }
    }
    // Every solver was seen (the find-db counts of docs/solvers.md).
    for (const auto& name : kFamily) EXPECT_GT(checked[name], 0) << name;
}

// The new solvers' kernels compile with Debian's clang-19 for the targets they apply to among
// gfx900, gfx906, gfx908, gfx90a and gfx1030 (the .s files through the assembler overlay when
// they need it), and define the symbols the key promises.
TEST(FamilySolversWithTree, KernelsCompile) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    const Compiler compiler(test::toolchain(), nullptr);
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"GemmFwdRest", "3-1-224-224-1x7x7-64-1-112-112-114-0x3x3-1x2x2-1x1x1-0-NCDHW-FP32-F"},
        {"GemmFwdRest", "1024-1-14-14-1x1x1-2048-1-7-7-100-0x0x0-1x2x2-1x1x1-0-NCDHW-BF16-F"},
        {"GemmFwdRest", "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8INT8INT32-F"},
        {"GemmFwdRest", "32-4-14-14-3x3x3-16-4-14-14-8-1x1x1-1x1x1-1x1x1-0-NCDHW-INT8INT8FP32-F"},
        {"GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-INT8INT8FP32-F"},
        {"GemmFwd1x1_0_2", "64-56-56-1x1-256-28-28-32-0x0-2x2-1x1-0-NCHW-INT8INT8INT32-F"},
        {"GemmBwdRest", "512-1-8-8-1x3x3-512-1-15-15-64-0x1x1-1x2x2-1x1x1-0-NCDHW-BF16-B"},
        {"GemmBwdRest", "64-16-128-128-3x3x3-128-16-128-128-1-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-B"},
        {"GemmBwdRest", "512-1-8-8-1x3x3-512-1-15-15-64-0x1x1-1x2x2-1x1x1-0-NCDHW-FP16-B"},
        {"GemmWrw1x1_stride1", "144-1-14-14-1x1x1-512-1-14-14-16-0x0x0-1x1x1-1x1x1-0-NCDHW-FP16-W"},
        {"GemmWrwUniversal", "54-1-28-28-1x3x3-54-1-55-55-128-0x1x1-1x2x2-1x1x1-0-NCDHW-BF16-W"},
        {"GemmWrwUniversal", "64-8-28-28-3x3x3-32-8-28-28-16-1x1x1-1x1x1-1x1x1-0-NCDHW-FP32-W"},
        {"ConvAsmImplicitGemmV4R1DynamicFwd", "64-56-56-3x3-64-56-56-64-1x1-1x1-1x1-0-NCHW-FP32-F"},
        {"ConvAsmImplicitGemmV4R1DynamicFwd_1x1", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F"},
        {"ConvAsmImplicitGemmV4R1DynamicBwd", "256-28-28-1x1-128-56-56-128-0x0-2x2-1x1-0-NCHW-FP32-B"},
        {"ConvAsmImplicitGemmV4R1DynamicWrw", "128-28-28-3x3-128-28-28-32-1x1-1x1-1x1-0-NCHW-FP32-W"},
        {"fft", "64-28-28-5x5-64-28-28-16-2x2-1x1-1x1-0-NCHW-FP32-F"},
        {"fft", "128-14-14-5x5-32-14-14-16-2x2-1x1-1x1-0-NCHW-FP32-B"},
        {"fft", "16-7-7-5x5-32-7-7-8-2x2-1x1-1x1-0-NCHW-FP32-F"},
        {"fft", "64-27-27-5x5-64-27-27-16-2x2-1x1-1x1-0-NCHW-FP32-F"},
        {"ConvAsm7x7c3h224w224k64u2v2p3q3f1", "3-224-224-7x7-64-112-112-32-3x3-2x2-1x1-0-NCHW-FP32-F"},
        {"ConvAsm5x10u2v2f1", "1-161-700-5x10-32-81-351-8-2x5-2x2-1x1-0-NCHW-FP32-F"},
        {"ConvAsm5x10u2v2b1", "32-38-166-5x10-32-79-341-16-0x0-2x2-1x1-0-NCHW-FP32-B"}};
    std::map<std::string, std::set<std::string>> compiled;  // solver -> targets
    int failures = 0;
    for (const char* spec : {"gfx900_56", "gfx906:sramecc+:xnack-_60", kGfx908, kGfx90a, "gfx1030_36"}) {
        const Target target = parse_target(spec);
        for (const auto& [name, key] : cases) {
            const auto problem = parse_conv_problem_key(key);
            const ConvView view{problem};
            const SolverContext ctx{target, tree.version(), data_type_options(view), nullptr};
            if (!solver(name).applicable(view, ctx, nullptr)) continue;
            for (const auto& kernel : solver(name).kernels(view, ctx)) {
                const auto build = miopen_kernel_build(kernel, target, tree);
                ASSERT_TRUE(build) << kernel.file;
                const auto result = compiler.compile(*build);
                EXPECT_TRUE(result.ok) << build->describe() << "\n" << result.log.substr(0, 3000);
                if (!result.ok) ++failures;
            }
            compiled[name].insert(std::string(target.name()));
        }
    }
    EXPECT_EQ(failures, 0);
    // Each solver compiled somewhere, on exactly the targets its IsApplicable allows.
    EXPECT_EQ(compiled["ConvAsmImplicitGemmV4R1DynamicWrw"], (std::set<std::string>{"gfx900", "gfx906"}));
    EXPECT_EQ(compiled["ConvAsm5x10u2v2b1"], (std::set<std::string>{"gfx900", "gfx906", "gfx908"}));
    EXPECT_EQ(compiled["fft"], (std::set<std::string>{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"}));
    EXPECT_EQ(compiled["GemmBwdRest"], (std::set<std::string>{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"}));
    for (const auto& [name, key] : cases) EXPECT_FALSE(compiled[name].empty()) << name;
}
