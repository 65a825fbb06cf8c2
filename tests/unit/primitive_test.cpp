// Golden kdb keys for the non-convolution primitives, written by hand from
// MIOpen's source (file:line and version with each), never by the code under
// test. Primitive kernels have one key form: ExecutePrimitive's context
// carries no general options (src/include/miopen/find_solution.hpp:477-503).
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/primitive.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

using namespace kdbgen;

namespace {

// GetDataTypeKBP (src/include/miopen/datatype.hpp:135-183, MIOpen 3.3.0) through GenerateFor(OpenCL).
const std::string kFp32Defines =
    "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";
const std::string kFp16Defines =
    "-DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP16x4=0 -DMIOPEN_USE_FP16x8=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_INT8=0 "
    "-DMIOPEN_USE_BFP16=0 -DMIOPEN_USE_INT32=0 -DMIOPEN_USE_RNE_BFLOAT16=1 -DMIOPEN_FP8_IEEE_EXPONENT_BIAS=0 "
    "-DMIOPEN_FP8_CLIPPING=1";

struct Key {
    std::string solver, name, args;
    std::vector<std::string> symbols;
};

std::vector<Key> keys(const Problem& problem, const std::string& target_spec, MiopenVersion version = {3, 3, 0}) {
    const Target target = parse_target(target_spec);
    const PrimitiveContext ctx{target, version};
    std::string why;
    const PrimitiveSolver* solver = choose_primitive_solver(problem, ctx, &why);
    if (!solver) return {{"none: " + why, "", "", {}}};
    std::vector<Key> out;
    for (const auto& k : solver->kernels(problem, ctx))
        out.push_back({std::string(solver->name()), k.file + ".o", k.options + target.mcpu_suffix(), k.symbols});
    return out;
}

TensorShape shape(std::vector<long> dims) { return TensorShape{std::move(dims)}; }

}  // namespace

// ActivFwdSolver0 / ActivBwdSolver0: src/solver/activ/fwd_0.cpp:68-131, bwd_0.cpp:103-160
// (MIOpen 3.3.0 and rocm-6.2.0); chosen first by src/ocl/activ_ocl.cpp:72, :123.
TEST(PrimitiveGoldenKeys, Activation) {
    // ResNet-50's ReLU after conv1, batch 32 FP32: 25690112 elements, read unit 4.
    ActivationProblem relu;
    relu.mode = 3;
    relu.x = shape({32, 64, 112, 112});
    auto k = keys(relu, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "ActivFwdSolver0");
    EXPECT_EQ(k[0].name, "MIOpenNeuron.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenActiveFwdLite"}));
    EXPECT_EQ(k[0].args,
              "-DLITE -DMIOPEN_READ_UNIT=4 -DMIOPEN_READ_TYPE=_FLOAT4 -DMIOPEN_NRN_OP_ID=3 -DMIOPEN_USE_FP16=0 "
              "-DMIOPEN_USE_FP32=1 -mcpu=gfx906");
    // Backward logistic, FP16, 105 elements: read unit 1 ("_FLOAT").
    ActivationProblem logistic;
    logistic.direction = ActivationProblem::Direction::Backward;
    logistic.mode = 1;
    logistic.x = shape({1, 3, 5, 7});
    logistic.data_type = DataType::Half;
    k = keys(logistic, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "ActivBwdSolver0");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenActiveBwdLite"}));
    EXPECT_EQ(k[0].args,
              "-DLITE -DMIOPEN_READ_UNIT=1 -DMIOPEN_READ_TYPE=_FLOAT -DMIOPEN_NRN_OP_ID=1 -DMIOPEN_USE_FP16=1 "
              "-DMIOPEN_USE_FP32=0 -mcpu=gfx1030");
    // BF16 forward: ActivFwdSolver0 returns no solution (fwd_0.cpp:104-110).
    relu.data_type = DataType::BFloat16;
    EXPECT_TRUE(keys(relu, "gfx90a_110")[0].solver.starts_with("none"));
}

// Softmax: src/solver/softmax/softmax.cpp:64-256; AttnSoftmax: attn_softmax.cpp:67-117
// (MIOpen 3.3.0 and rocm-6.2.0); SolverContainer<AttnSoftmax, Softmax> at src/softmax.cpp:125.
TEST(PrimitiveGoldenKeys, Softmax) {
    // The classifier's softmax over 1000 channels: one batch per group.
    SoftmaxProblem classifier;
    classifier.x = shape({32, 1000, 1, 1});
    auto k = keys(classifier, "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "Softmax");
    EXPECT_EQ(k[0].name, "MIOpenSoftmax.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SoftmaxForward"}));
    EXPECT_EQ(k[0].args,
              "-DNUM_BATCH=1 -DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DUSE_SOFTMAX_ACCURATE=1 "
              "-DUSE_SOFTMAX_MODE_CHANNEL=1 -DRUN_FORWARD=1 -DIS_INPUT_PACKED=1 -DIS_OUTPUT_PACKED=1 -mcpu=gfx90a");
    // Backward log-softmax over 10 channels, FP16: NUM_BATCH nextPow2(25) = 32, BATCH_SIZE 8,
    // U_BATCH_SIZE nextPow2(1) = 2 (nextPow2 maps 1 to 2, softmax.cpp:41-57).
    SoftmaxProblem log_softmax;
    log_softmax.direction = SoftmaxProblem::Direction::Backward;
    log_softmax.algorithm = 2;
    log_softmax.x = shape({8, 10, 1, 1});
    log_softmax.data_type = DataType::Half;
    k = keys(log_softmax, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SoftmaxBackward"}));
    EXPECT_EQ(k[0].args,
              "-DNUM_BATCH=32 -DBATCH_SIZE=8 -DU_BATCH_SIZE=2 -DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP32=0 "
              "-DUSE_SOFTMAX_LOG=1 -DUSE_SOFTMAX_MODE_CHANNEL=1 -DRUN_FORWARD=0 -DIS_OUTPUT_PACKED=1 "
              "-DIS_DOUTPUT_PACKED=1 -DIS_DINPUT_PACKED=1 -mcpu=gfx1030");
    // FP32 accurate instance mode: AttnSoftmax (HIP). 100 per row: 128 threads, SoftMaxBlock.
    SoftmaxProblem instance;
    instance.mode = 0;
    instance.x = shape({4, 1, 1, 100});
    k = keys(instance, "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "AttnSoftmax");
    EXPECT_EQ(k[0].name, "MIOpenSoftmaxAttn.cpp.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SoftMaxBlock"}));
    EXPECT_EQ(k[0].args, "-DTHREADS=128 -mcpu=gfx90a");
    // 20 per row: clamp(32, wave, 256) -- 32 on wave32 gfx1030, 64 on gfx906; SoftMaxWarp.
    instance.x = shape({4, 1, 1, 20});
    k = keys(instance, "gfx1030_36");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SoftMaxWarp"}));
    EXPECT_EQ(k[0].args, "-DTHREADS=32 -mcpu=gfx1030");
    EXPECT_EQ(keys(instance, "gfx906_60")[0].args, "-DTHREADS=64 -mcpu=gfx906");
}

// PoolingForward2d: src/solver/pooling/forward2d.cpp:40-190 (MIOpen 3.3.0 and rocm-6.2.0);
// first in src/ocl/pooling_ocl.cpp:42-46.
TEST(PrimitiveGoldenKeys, PoolingForward) {
    // ResNet-50's 3x3/2 max pool in training: out 56 rows -> 8 rows per item, then
    // min(16, prePow2(8 * 2)) = 16 (56 % 32 > 16); groups 32 x (64 / 16).
    PoolingProblem maxpool;
    maxpool.x = shape({32, 64, 112, 112});
    maxpool.y = shape({32, 64, 56, 56});
    maxpool.window = {3, 3};
    maxpool.strides = {2, 2};
    maxpool.pads = {1, 1};
    auto k = keys(maxpool, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "PoolingForward2d");
    EXPECT_EQ(k[0].name, "MIOpenPooling.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingG"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=1 -DMLO_POOLING_KERNEL_SZ1=3 -DMLO_POOLING_STRIDE1=2 -DMLO_POOLING_KERNEL_SZ0=3 "
              "-DMLO_POOLING_STRIDE0=2 -DMLO_POOLING_N_HORIZ_OUT_PIX=1 -DMLO_POOLING_N_VERT_OUT_PIX=16 "
              "-DMLO_POOLING_GROUP_SZ0=32 -DMLO_POOLING_GROUP_SZ1=4 -DMLO_POOLING_INDEX_TYPE=uchar "
              "-DMLO_POOLING_INDEX_MAX=UCHAR_MAX -DMLO_POOLING_SAVE_INDEX -DUSE_IMG_INDEX=0 " +
                  kFp32Defines + " -mcpu=gfx906");
    // Global 7x7 average pool in inference, FP16: 8x8 groups, no index saved.
    PoolingProblem avgpool;
    avgpool.mode = PoolingProblem::Mode::Average;
    avgpool.x = shape({1, 2048, 7, 7});
    avgpool.y = shape({1, 2048, 1, 1});
    avgpool.window = {7, 7};
    avgpool.strides = {1, 1};
    avgpool.pads = {0, 0};
    avgpool.data_type = DataType::Half;
    avgpool.save_index = false;
    k = keys(avgpool, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=0 -DMLO_POOLING_KERNEL_SZ1=7 -DMLO_POOLING_STRIDE1=1 -DMLO_POOLING_KERNEL_SZ0=7 "
              "-DMLO_POOLING_STRIDE0=1 -DMLO_POOLING_N_HORIZ_OUT_PIX=1 -DMLO_POOLING_N_VERT_OUT_PIX=1 "
              "-DMLO_POOLING_GROUP_SZ0=8 -DMLO_POOLING_GROUP_SZ1=8 -DMLO_POOLING_INDEX_TYPE=uchar "
              "-DMLO_POOLING_INDEX_MAX=UCHAR_MAX " +
                  kFp16Defines + " -mcpu=gfx1030");
}

// 3-D pooling: src/solver/pooling/forwardNd.cpp:86-170, forwardNaive.cpp:63-125, backwardNd.cpp:39-170
// (MIOpen 3.3.0; the same options in rocm-6.2.0). Worked by hand.
TEST(PrimitiveGoldenKeys, PoolingNd) {
    PoolingProblem pool3d;
    pool3d.x = shape({2, 8, 16, 16, 16});
    pool3d.y = shape({2, 8, 8, 8, 8});
    pool3d.window = pool3d.strides = {2, 2, 2};
    pool3d.pads = {0, 0, 0};
    pool3d.workspace_index_mode = 1;  // image indices, as 3-D pooling uses
    const std::string window =
        "-DKERNEL_SZ_D=2 -DKERNEL_SZ_H=2 -DKERNEL_SZ_W=2 -DSTRIDE_D=2 -DSTRIDE_H=2 -DSTRIDE_W=2 ";
    auto k = keys(pool3d, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "PoolingForwardNd");
    EXPECT_EQ(k[0].name, "MIOpenPoolingND.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingNDFwd"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=1 -DMAX_ACTIV_WORKITEM=65536 -DMLO_POOLING_GROUP_SZ0=64 -DMLO_POOLING_GROUP_SZ1=1 "
              "-DMLO_POOLING_GROUP_SZ2=1 -DTOP_W_PER_WORK=1 -DTOP_H_PER_WORK=4 -DTOP_D_PER_WORK=2 " +
                  window +
                  "-DMLO_POOLING_INDEX_TYPE=uchar -DMLO_POOLING_INDEX_MAX=UCHAR_MAX -DMLO_POOLING_SAVE_INDEX " +
                  kFp32Defines + " -mcpu=gfx906");
    // Mask indices in training: not PoolingForwardNd's (:103-106); the naive kernel takes it.
    PoolingProblem masked = pool3d;
    masked.workspace_index_mode = 0;
    k = keys(masked, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "PoolingForwardNaive");
    EXPECT_EQ(k[0].name, "MIOpenPoolingForwardNaive.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingForwardNaive"}));
    EXPECT_EQ(k[0].args, "-DMLO_POOLING_OP_ID=1 -DMLO_POOLING_INDEX_TYPE=uchar -DMLO_POOLING_IS2D_KERNEL=0 " +
                             kFp32Defines + " -mcpu=gfx1030");
    // Backward: max pooling with image indices; 64-wide groups (WORKAROUND_ISSUE_MIFIN_80).
    PoolingProblem back = pool3d;
    back.direction = PoolingProblem::Direction::Backward;
    k = keys(back, "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "PoolingBackwardNd");
    EXPECT_EQ(k[0].name, "MIOpenPoolingBwdND.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingNDMaxBwd"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=1 -DMAX_ACTIV_WORKITEM=65536 -DMLO_POOLING_GROUP_SZ0=64 -DMLO_POOLING_GROUP_SZ1=1 "
              "-DMLO_POOLING_GROUP_SZ2=1 -DPIX_W_PER_WORK=1 -DPIX_H_PER_WORK=4 -DPIX_D_PER_WORK=2 " +
                  window +
                  "-DTERRITORY_OVERLAP=0 -DMLO_POOLING_INDEX_TYPE=uchar -DMLO_POOLING_INDEX_MAX=UCHAR_MAX " +
                  kFp32Defines + " -mcpu=gfx90a");
    // Average, overlapping 3x3x3 windows, FP16 on gfx1030.
    PoolingProblem avg = back;
    avg.mode = PoolingProblem::Mode::Average;
    avg.window = {3, 3, 3};
    avg.strides = {1, 1, 1};
    avg.y = shape({2, 8, 14, 14, 14});
    avg.data_type = DataType::Half;
    k = keys(avg, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingNDAveBwd"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=0 -DMAX_ACTIV_WORKITEM=65536 -DMLO_POOLING_GROUP_SZ0=64 -DMLO_POOLING_GROUP_SZ1=1 "
              "-DMLO_POOLING_GROUP_SZ2=1 -DPIX_W_PER_WORK=1 -DPIX_H_PER_WORK=4 -DPIX_D_PER_WORK=2 -DKERNEL_SZ_D=3 "
              "-DKERNEL_SZ_H=3 -DKERNEL_SZ_W=3 -DSTRIDE_D=1 -DSTRIDE_H=1 -DSTRIDE_W=1 -DTERRITORY_OVERLAP=1 "
              "-DMLO_POOLING_INDEX_TYPE=uchar -DMLO_POOLING_INDEX_MAX=UCHAR_MAX " +
                  kFp16Defines + " -mcpu=gfx1030");
    // Max pooling backward with mask indices in 3-D: MIOpen has no solver for it either (:59-61).
    back.workspace_index_mode = 0;
    EXPECT_TRUE(keys(back, "gfx90a_110")[0].solver.starts_with("none"));
}

// PoolingBackward2d: src/solver/pooling/backward2d.cpp:55-205 (MIOpen 3.3.0 and rocm-6.2.0);
// first in src/ocl/pooling_ocl.cpp:51-54. Worked by hand.
TEST(PrimitiveGoldenKeys, PoolingBackward) {
    // ResNet-50's max pool backward: input width 112 -> 1x8 pixels per item, 16x16 groups.
    PoolingProblem maxpool;
    maxpool.direction = PoolingProblem::Direction::Backward;
    maxpool.x = shape({32, 64, 112, 112});
    maxpool.y = shape({32, 64, 56, 56});
    maxpool.window = {3, 3};
    maxpool.strides = {2, 2};
    maxpool.pads = {1, 1};
    auto k = keys(maxpool, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "PoolingBackward2d");
    EXPECT_EQ(k[0].name, "MIOpenPoolingBwd.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingMaxBwd"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=1 -DMLO_POOLING_KERNEL_SZ1=3 -DMLO_POOLING_STRIDE1=2 -DMLO_POOLING_KERNEL_SZ0=3 "
              "-DMLO_POOLING_STRIDE0=2 -DMLO_POOLBWD_N_HORIZ_OUT_PIX=1 -DMLO_POOLBWD_N_VERT_OUT_PIX=8 "
              "-DMLO_POOLBWD_GROUP_SZ0=16 -DMLO_POOLBWD_GROUP_SZ1=16 -DMLO_POOLING_INDEX_TYPE=uchar "
              "-DMLO_POOLING_INDEX_MAX=UCHAR_MAX -DUSE_IMG_INDEX=0 " +
                  kFp32Defines + " -mcpu=gfx906");
    // Average pooling backward, FP16: the default 1x1 pixels and 8x8 groups.
    PoolingProblem avgpool;
    avgpool.direction = PoolingProblem::Direction::Backward;
    avgpool.mode = PoolingProblem::Mode::Average;
    avgpool.x = shape({1, 2048, 7, 7});
    avgpool.y = shape({1, 2048, 1, 1});
    avgpool.window = {7, 7};
    avgpool.strides = {1, 1};
    avgpool.pads = {0, 0};
    avgpool.data_type = DataType::Half;
    k = keys(avgpool, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"mloPoolingAveBwd"}));
    EXPECT_EQ(k[0].args,
              "-DMLO_POOLING_OP_ID=0 -DMLO_POOLING_KERNEL_SZ1=7 -DMLO_POOLING_STRIDE1=1 -DMLO_POOLING_KERNEL_SZ0=7 "
              "-DMLO_POOLING_STRIDE0=1 -DMLO_POOLBWD_N_HORIZ_OUT_PIX=1 -DMLO_POOLBWD_N_VERT_OUT_PIX=1 "
              "-DMLO_POOLBWD_GROUP_SZ0=8 -DMLO_POOLBWD_GROUP_SZ1=8 -DMLO_POOLING_INDEX_TYPE=uchar "
              "-DMLO_POOLING_INDEX_MAX=UCHAR_MAX -DUSE_IMG_INDEX=0 " +
                  kFp16Defines + " -mcpu=gfx1030");
}

namespace {
BatchNormProblem bn(BatchNormProblem::Direction direction, std::vector<long> dims, DataType type = DataType::Float,
                    DataType params = DataType::Float) {
    BatchNormProblem p;
    p.direction = direction;
    p.x = shape(std::move(dims));
    p.data_type = type;
    p.param_type = params;
    return p;
}
using BnDir = BatchNormProblem::Direction;
}  // namespace

// Forward training: forward_spatial_single.cpp:80-248 and forward_spatial_multiple.cpp:49-205
// (MIOpen 3.3.0; rocm-6.2.0 has no MIO_BN_GFX120X). Worked by hand.
TEST(PrimitiveGoldenKeys, BatchNormForwardTraining) {
    // ResNet-50's bn1, batch 32 FP32: H*W 12544 > 1024 with N*H*W < 32M -> variant 1, 1024-wide groups.
    auto k = keys(bn(BnDir::ForwardTraining, {32, 64, 112, 112}), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnFwdTrainingSpatialSingle");
    EXPECT_EQ(k[0].name, "MIOpenBatchNormFwdTrainSpatial.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormFwdTrainSpatial"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_SAVE_MEAN_VARIANCE=1 "
              "-DMIO_RUNNING_RESULT=1 -DMIO_BN_VARIANT=1 -DMIO_BN_LDS_SIZE=1024 -DMIO_BN_LDSGCN_SIZE=16 -DMIO_BN_N=32 "
              "-DMIO_BN_GRP0=1024 -DMIO_BN_GRP1=1 -DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 "
              "-DMIO_BN_GFX120X=0 -DMIO_LAYOUT_NHWC=0 -DMIO_BN_C=64 -DMIO_BN_HW=12544 -DMIO_BN_NHW=401408 "
              "-DMIO_BN_CHW=802816 -DMIO_BN_NCHW=25690112 -mcpu=gfx906");
    // Mixed FP16 (float parameters) 14x14 on gfx1030: 256-wide groups, variant 0, GFX103X=1.
    const auto mixed = bn(BnDir::ForwardTraining, {32, 256, 14, 14}, DataType::Half, DataType::Float);
    const std::string mixed_args =
        "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FPMIX=1 -DMIO_SAVE_MEAN_VARIANCE=1 "
        "-DMIO_RUNNING_RESULT=1 -DMIO_BN_VARIANT=0 -DMIO_BN_LDS_SIZE=256 -DMIO_BN_LDSGCN_SIZE=4 -DMIO_BN_N=32 "
        "-DMIO_BN_GRP0=256 -DMIO_BN_GRP1=1 -DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=1 -DMIO_BN_GFX110X=0 ";
    const std::string mixed_tail =
        "-DMIO_LAYOUT_NHWC=0 -DMIO_BN_C=256 -DMIO_BN_HW=196 -DMIO_BN_NHW=6272 -DMIO_BN_CHW=50176 "
        "-DMIO_BN_NCHW=1605632 -mcpu=gfx1030";
    EXPECT_EQ(keys(mixed, "gfx1030_36")[0].args, mixed_args + "-DMIO_BN_GFX120X=0 " + mixed_tail);
    EXPECT_EQ(keys(mixed, "gfx1030_36", {3, 2, 0})[0].args, mixed_args + mixed_tail);
    // Batch 1024 at 28x28 FP32: multi-pass (variant 2), its three kernels from one code object.
    k = keys(bn(BnDir::ForwardTraining, {1024, 64, 28, 28}), "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnFwdTrainingSpatialMultiple");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormFwdTrainSpatialMeanVariance",
                                                      "MIOpenBatchNormFwdTrainSpatialFinalMeanVariance",
                                                      "MIOpenBatchNormFwdTrainSpatialNorm"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_SAVE_MEAN_VARIANCE=1 "
              "-DMIO_RUNNING_RESULT=1 -DMIO_BN_N=1024 -DMIO_BN_C=64 -DMIO_BN_HW=784 -DMIO_BN_NHW=802816 "
              "-DMIO_BN_CHW=50176 -DMIO_BN_NCHW=51380224 -DMIO_BN_NGRPS=1 -DMIO_BN_LDS_SIZE=1024 "
              "-DMIO_BN_LDSGCN_SIZE=16 -DMIO_BN_VARIANT=2 -DMIO_BN_GRP0=1 -DMIO_BN_GRP1=1024 -DMIO_BN_GRP2=1 "
              "-DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -DMIO_LAYOUT_NHWC=0 -mcpu=gfx90a");
    // Per activation (forward_per_activation.cpp:45-120).
    auto per_act = bn(BnDir::ForwardTraining, {16, 8, 4, 4});
    per_act.mode = BatchNormProblem::Mode::PerActivation;
    k = keys(per_act, "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnFwdTrainingPerActivation");
    EXPECT_EQ(k[0].name, "MIOpenBatchNormFwdTrainPerAct.cl.o");
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_SAVE_MEAN_VARIANCE=1 "
              "-DMIO_RUNNING_RESULT=1 -DMIO_BN_N=16 -DMIO_BN_C=8 -DMIO_BN_HW=16 -DMIO_BN_NHW=256 -DMIO_BN_CHW=128 "
              "-DMIO_BN_NCHW=2048 -DMIO_BN_LDS_SIZE=256 -DMIO_BN_GRP0=1 -DMIO_BN_GRP1=256 -DMIO_BN_GRP2=1 "
              "-DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -mcpu=gfx90a");
    // NHWC is the CK solvers' (not in the catalog); 3-D is not 2-D.
    auto nhwc = bn(BnDir::ForwardTraining, {32, 64, 56, 56});
    nhwc.layout = "NHWC";
    EXPECT_TRUE(keys(nhwc, "gfx90a_110")[0].solver.starts_with("none"));
    EXPECT_TRUE(keys(bn(BnDir::ForwardTraining, {2, 8, 4, 16, 16}), "gfx90a_110")[0].solver.starts_with("none"));
}

// Inference: forward_inference.cpp:54-130 (MIOpen 3.3.0). Worked by hand.
TEST(PrimitiveGoldenKeys, BatchNormInference) {
    auto k = keys(bn(BnDir::ForwardInference, {1, 64, 56, 56}), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnFwdInference");
    EXPECT_EQ(k[0].name, "MIOpenBatchNormFwdInferSpatial.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormFwdInferSpatialEst"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_BN_GRP0=1 -DMIO_BN_GRP1=256 "
              "-DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -mcpu=gfx906");
    auto per_act = bn(BnDir::ForwardInference, {1, 64, 56, 56}, DataType::Half, DataType::Half);
    per_act.mode = BatchNormProblem::Mode::PerActivation;
    k = keys(per_act, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenBatchNormFwdInferPerAct.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormFwdInferPerActivationEst"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=1 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FPMIX=0 -DMIO_BN_GRP0=1 -DMIO_BN_GRP1=256 "
              "-DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=1 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -mcpu=gfx1030");
    // 3.3 takes FP32 and FP16 only (:45-46).
    EXPECT_TRUE(keys(bn(BnDir::ForwardInference, {1, 64, 56, 56}, DataType::BFloat16), "gfx90a_110")[0]
                    .solver.starts_with("none"));
}

// Backward: backward_spatial_single.cpp:81-262, backward_spatial_multiple.cpp:64-275,
// backward_per_activation.cpp:50-130 (MIOpen 3.3.0). Worked by hand.
TEST(PrimitiveGoldenKeys, BatchNormBackward) {
    // FP32 56x56 on gfx1030: variant 1, wave 32 there (:84), so LDSGCN 1024/32 = 32.
    auto p = bn(BnDir::Backward, {32, 64, 56, 56});
    auto k = keys(p, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnBwdTrainingSpatialSingle");
    EXPECT_EQ(k[0].name, "MIOpenBatchNormBwdSpatial.cl.o");
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_BN_USESAVED=1 -DMIO_BN_N=32 "
              "-DMIO_BN_C=64 -DMIO_BN_HW=3136 -DMIO_BN_NHW=100352 -DMIO_BN_CHW=200704 -DMIO_BN_NCHW=6422528 "
              "-DMIO_BN_LDS_SIZE=1024 -DMIO_BN_LDSGCN_SIZE=32 -DMIO_BN_VARIANT=1 -DMIO_WAVESIZE=32 -DMIO_BN_GRP0=1024 "
              "-DMIO_BN_GRP1=1 -DMIO_BN_GRP2=1 -DMIO_LAYOUT_NHWC=0 -DMIO_BN_GFX103X=1 -DMIO_BN_GFX110X=0 "
              "-DMIO_BN_GFX120X=0 -mcpu=gfx1030");
    // Mixed FP16, batch 128 at 16x16: variant 3 with saved statistics -> the assembly kernel on gfx906,
    // MIO_BN_NHW_FLOAT = bits of 32768.0f = 0x47000000; gfx90a keeps OpenCL (WORKAROUND_ISSUE_1146).
    p = bn(BnDir::Backward, {128, 128, 16, 16}, DataType::Half, DataType::Float);
    k = keys(p, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "gcnAsmBNBwdTrainSpatial.s.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"miopenGcnAsmBNBwdTrainSpatial"}));
    EXPECT_EQ(k[0].args,
              "-Wa,-defsym,MIOPEN_USE_FP16=0 -Wa,-defsym,MIOPEN_USE_FP32=0 -Wa,-defsym,MIOPEN_USE_FPMIX=1 "
              "-Wa,-defsym,MIO_BN_USESAVED=1 -Wa,-defsym,MIO_BN_N=128 -Wa,-defsym,MIO_BN_C=128 "
              "-Wa,-defsym,MIO_BN_HW=256 -Wa,-defsym,MIO_BN_NHW=32768 -Wa,-defsym,MIO_BN_CHW=32768 "
              "-Wa,-defsym,MIO_BN_NCHW=4194304 -Wa,-defsym,MIO_BN_LDS_SIZE=1024 -Wa,-defsym,MIO_BN_LDSGCN_SIZE=16 "
              "-Wa,-defsym,MIO_BN_VARIANT=3 -Wa,-defsym,MIO_WAVESIZE=64 -Wa,-defsym,MIO_BN_GRP0=1024 "
              "-Wa,-defsym,MIO_BN_GRP1=1 -Wa,-defsym,MIO_BN_GRP2=1 -Wa,-defsym,MIO_LAYOUT_NHWC=0 "
              "-Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,MIO_BN_NHW_FLOAT=1191182336 -mcpu=gfx906");
    EXPECT_EQ(keys(p, "gfx90a_110")[0].name, "MIOpenBatchNormBwdSpatial.cl.o");
    // N*H*W = 32M exactly with H*W > 512: multi-pass, three kernels when statistics are saved.
    k = keys(bn(BnDir::Backward, {256, 16, 512, 256}), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnBwdTrainingSpatialMultiple");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormBwdSpatialDScaleDBias",
                                                      "MIOpenBatchNormBwdSpatialFinalDScaleDBias",
                                                      "MIOpenBatchNormBwdSpatialDX"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_BN_USESAVED=1 -DMIO_BN_N=256 "
              "-DMIO_BN_C=16 -DMIO_BN_HW=131072 -DMIO_BN_NHW=33554432 -DMIO_BN_CHW=2097152 -DMIO_BN_NCHW=536870912 "
              "-DMIO_BN_NGRPS=128 -DMIO_BN_LDS_SIZE=1024 -DMIO_BN_LDSGCN_SIZE=16 -DMIO_BN_VARIANT=2 -DMIO_BN_GRP0=1 "
              "-DMIO_BN_GRP1=1024 -DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 "
              "-DMIO_LAYOUT_NHWC=0 -mcpu=gfx906");
    // Per activation without saved statistics: 64-high groups for H*W <= 64.
    p = bn(BnDir::Backward, {16, 8, 4, 4});
    p.mode = BatchNormProblem::Mode::PerActivation;
    p.use_saved = false;
    k = keys(p, "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].name, "MIOpenBatchNormBwdPerAct.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormBwdPerActivation"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FPMIX=0 -DMIO_BN_N=16 -DMIO_BN_C=8 -DMIO_BN_HW=16 "
              "-DMIO_BN_NHW=256 -DMIO_BN_CHW=128 -DMIO_BN_NCHW=2048 -DMIO_BN_NGRPS=1 -DMIO_BN_GRP0=1 -DMIO_BN_GRP1=64 "
              "-DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=1 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -mcpu=gfx1030");
    EXPECT_EQ(k[0].solver, "BnBwdTrainingPerActivation");
    // Mixed FP16 with saved statistics, 32x32 > 64: 256-high groups, ceil(1024 / 256) = 4 of them (:86-113).
    p = bn(BnDir::Backward, {8, 16, 32, 32}, DataType::Half, DataType::Float);
    p.mode = BatchNormProblem::Mode::PerActivation;
    k = keys(p, "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "BnBwdTrainingPerActivation");
    EXPECT_EQ(k[0].name, "MIOpenBatchNormBwdPerAct.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenBatchNormBwdPerActivationSaved"}));
    EXPECT_EQ(k[0].args,
              "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FPMIX=1 -DMIO_BN_N=8 -DMIO_BN_C=16 -DMIO_BN_HW=1024 "
              "-DMIO_BN_NHW=8192 -DMIO_BN_CHW=16384 -DMIO_BN_NCHW=131072 -DMIO_BN_NGRPS=4 -DMIO_BN_GRP0=1 "
              "-DMIO_BN_GRP1=256 -DMIO_BN_GRP2=1 -DMIO_BN_GFX103X=0 -DMIO_BN_GFX110X=0 -DMIO_BN_GFX120X=0 -mcpu=gfx906");
}

// LRN: src/ocl/mloNorm.cpp:46-250 (forward) and :252-380 (backward), options closed by
// setupFloats (src/mlo_dir_conv.cpp:327-343); MIOpen 3.3.0 and rocm-6.2.0. Worked by hand.
TEST(PrimitiveGoldenKeys, Lrn) {
    const auto lrn = [](LrnProblem::Direction direction, std::vector<long> dims, long size, int mode) {
        LrnProblem p;
        p.direction = direction;
        p.x = shape(std::move(dims));
        p.size = size;
        p.mode = mode;
        return p;
    };
    // AlexNet's cross-channel LRN, batch 32, forward only: 55x55 = 3025 is odd -> read unit 1;
    // 1513 waves > 60 CUs * 8, so no halving.
    auto k = keys(lrn(LrnProblem::Direction::Forward, {32, 96, 55, 55}, 5, 1), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "LrnForward");
    EXPECT_EQ(k[0].name, "MIOpenLRNFwd.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenLRNAcrossChannels4"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_LRN_KERNEL_SZ=5 -DMLO_LRN_PAD=2 -DMLO_LRN_KERNEL_SZ1=5 -DMLO_LRN_PAD1=2 -DMLO_LRN_KERNEL_SZ0=5 "
              "-DMLO_LRN_PAD0=2 -DMLO_LRN_PRE_PAD=2 -DMLO_LRN_PRE_PAD1=2 -DMLO_LRN_PRE_PAD0=2 -DMLO_LRN_N_OUTPUTS=96 "
              "-DMLO_LRN_N_INPUTS=96 -DMLO_LRN_N_HORIZ_OUT_PIX=1 -DMLO_LRN_N_VERT_OUT_PIX=1 -DMLO_LRN_GROUP_SZ0=64 "
              "-DMLO_LRN_GROUP_SZ1=1 -DMLO_LRN_GROUP_LG2SZ0=0 -DMLO_LRN_GROUP_LG2SZ1=0 "
              "-DMLO_LRN_BOT_BATCH_STRIDE=290400 -DMLO_LRN_BOT_CHANNEL_STRIDE=3025 -DMLO_LRN_BOT_STRIDE=55 "
              "-DMLO_LRN_TOP_BATCH_STRIDE=290400 -DMLO_LRN_TOP_CHANNEL_STRIDE=3025 -DMLO_LRN_TOP_STRIDE=55 "
              "-DMLO_LRN_BOT_WIDTH=55 -DMLO_LRN_BOT_HEIGHT=55 -DMLO_LRN_TOP_WIDTH=55 -DMLO_LRN_TOP_HEIGHT=55 "
              "-DMLO_LRN_SCALE_BATCH_STRIDE=290400 -DMLO_LRN_SCALE_CHANNEL_STRIDE=3025 -DMLO_LRN_SCALE_STRIDE=55 "
              "-DMLO_LRN_TOPDF_BATCH_STRIDE=1 -DMLO_LRN_TOPDF_CHANNEL_STRIDE=1 -DMLO_LRN_TOPDF_STRIDE=1 "
              "-DMLO_LRN_BOTDF_BATCH_STRIDE=1 -DMLO_LRN_BOTDF_CHANNEL_STRIDE=1 -DMLO_LRN_BOTDF_STRIDE=1 "
              "-DMLO_LRN_BATCH_SZ=32 -DMLO_LRN_N_INPUTS=96 -DMLO_LRN_N_OUTPUTS=96 -DMLO_LRN_DO_SCALE=0 "
              "-DMLO_OUT_VERT_ALIGNED=1 -DMLO_OUT_HORIZ_ALIGNED=0 -DMLO_MAP_SZ4=3025 -DMLO_C1x1_PIXLEFT=0 "
              "-DMLO_DIVBY4=1 -DMLO_READ_TYPE=_FLOAT -DMLO_READ_UNIT=1 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FP16=0 "
              "-mcpu=gfx906");
    // FP16, batch 1, in training (scale kept): one wave, so the read unit drops to 2 (:122-130);
    // on gfx9 the #1057 workaround makes it 1 (:132-142).
    auto small = lrn(LrnProblem::Direction::Forward, {1, 64, 14, 14}, 5, 1);
    small.data_type = DataType::Half;
    small.save_scale = true;
    const std::string head =
        " -DMLO_LRN_KERNEL_SZ=5 -DMLO_LRN_PAD=2 -DMLO_LRN_KERNEL_SZ1=5 -DMLO_LRN_PAD1=2 -DMLO_LRN_KERNEL_SZ0=5 "
        "-DMLO_LRN_PAD0=2 -DMLO_LRN_PRE_PAD=2 -DMLO_LRN_PRE_PAD1=2 -DMLO_LRN_PRE_PAD0=2 -DMLO_LRN_N_OUTPUTS=64 "
        "-DMLO_LRN_N_INPUTS=64 -DMLO_LRN_N_HORIZ_OUT_PIX=1 -DMLO_LRN_N_VERT_OUT_PIX=1 -DMLO_LRN_GROUP_SZ0=64 "
        "-DMLO_LRN_GROUP_SZ1=1 -DMLO_LRN_GROUP_LG2SZ0=0 -DMLO_LRN_GROUP_LG2SZ1=0 -DMLO_LRN_BOT_BATCH_STRIDE=12544 "
        "-DMLO_LRN_BOT_CHANNEL_STRIDE=196 -DMLO_LRN_BOT_STRIDE=14 -DMLO_LRN_TOP_BATCH_STRIDE=12544 "
        "-DMLO_LRN_TOP_CHANNEL_STRIDE=196 -DMLO_LRN_TOP_STRIDE=14 -DMLO_LRN_BOT_WIDTH=14 -DMLO_LRN_BOT_HEIGHT=14 "
        "-DMLO_LRN_TOP_WIDTH=14 -DMLO_LRN_TOP_HEIGHT=14 -DMLO_LRN_SCALE_BATCH_STRIDE=12544 "
        "-DMLO_LRN_SCALE_CHANNEL_STRIDE=196 -DMLO_LRN_SCALE_STRIDE=14 -DMLO_LRN_TOPDF_BATCH_STRIDE=1 "
        "-DMLO_LRN_TOPDF_CHANNEL_STRIDE=1 -DMLO_LRN_TOPDF_STRIDE=1 -DMLO_LRN_BOTDF_BATCH_STRIDE=1 "
        "-DMLO_LRN_BOTDF_CHANNEL_STRIDE=1 -DMLO_LRN_BOTDF_STRIDE=1 -DMLO_LRN_BATCH_SZ=1 -DMLO_LRN_N_INPUTS=64 "
        "-DMLO_LRN_N_OUTPUTS=64 -DMLO_LRN_DO_SCALE=1 -DMLO_OUT_VERT_ALIGNED=1 -DMLO_OUT_HORIZ_ALIGNED=0 ";
    EXPECT_EQ(keys(small, "gfx1030_36")[0].args,
              head +
                  "-DMLO_MAP_SZ4=98 -DMLO_C1x1_PIXLEFT=0 -DMLO_DIVBY4=1 -DMLO_READ_TYPE=_FLOAT2 -DMLO_READ_UNIT=2 "
                  "-DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FP16=1 -mcpu=gfx1030");
    EXPECT_EQ(keys(small, "gfx906_60")[0].args,
              head +
                  "-DMLO_MAP_SZ4=196 -DMLO_C1x1_PIXLEFT=0 -DMLO_DIVBY4=1 -DMLO_READ_TYPE=_FLOAT -DMLO_READ_UNIT=1 "
                  "-DMIOPEN_USE_FP32=0 -DMIOPEN_USE_FP16=1 -mcpu=gfx906");
    // Within-channel backward: 2x4 pixels per item (width 12, height 20), 8x8 groups.
    k = keys(lrn(LrnProblem::Direction::Backward, {2, 8, 20, 12}, 3, 0), "gfx90a_110");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "LrnBackward");
    EXPECT_EQ(k[0].name, "MIOpenLRNBwd.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenLRNWithinChannelBwd"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_LRN_KERNEL_SZ=3 -DMLO_LRN_N_OUTPUTS=8 -DMLO_LRN_N_CHANNELS=8 -DMLO_LRN_PAD=1 -DMLO_LRN_PRE_PAD=1 "
              "-DMLO_LRN_N_HORIZ_OUT_PIX=2 -DMLO_LRN_N_VERT_OUT_PIX=4 -DMLO_LRN_GROUP_SZ0=8 -DMLO_LRN_GROUP_SZ1=8 "
              "-DMLO_LRN_GROUP_LG2SZ0=3 -DMLO_LRN_GROUP_LG2SZ1=3 -DMLO_LRN_BOT_BATCH_STRIDE=1920 "
              "-DMLO_LRN_BOT_CHANNEL_STRIDE=240 -DMLO_LRN_BOT_STRIDE=12 -DMLO_LRN_TOP_BATCH_STRIDE=1920 "
              "-DMLO_LRN_TOP_CHANNEL_STRIDE=240 -DMLO_LRN_TOP_STRIDE=12 -DMLO_LRN_BOT_WIDTH=12 -DMLO_LRN_BOT_HEIGHT=20 "
              "-DMLO_LRN_TOP_WIDTH=12 -DMLO_LRN_TOP_HEIGHT=20 -DMLO_LRN_SCALE_BATCH_STRIDE=1920 "
              "-DMLO_LRN_SCALE_CHANNEL_STRIDE=240 -DMLO_LRN_SCALE_STRIDE=12 -DMLO_LRN_TOPDF_BATCH_STRIDE=1920 "
              "-DMLO_LRN_TOPDF_CHANNEL_STRIDE=240 -DMLO_LRN_TOPDF_STRIDE=12 -DMLO_LRN_BOTDF_BATCH_STRIDE=1920 "
              "-DMLO_LRN_BOTDF_CHANNEL_STRIDE=240 -DMLO_LRN_BOTDF_STRIDE=12 -DMLO_LRN_BATCH_SZ=2 -DMLO_LRN_N_INPUTS=8 "
              "-DMLO_LRN_N_OUTPUTS=8 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FP16=0 -mcpu=gfx90a");
    // Cross-channel backward on gfx1030: MIOpenLRNAcrossChannelsBwd1, 8x8 groups for 4x4 images.
    k = keys(lrn(LrnProblem::Direction::Backward, {1, 16, 4, 4}, 5, 1), "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"MIOpenLRNAcrossChannelsBwd1"}));
    EXPECT_EQ(k[0].args,
              " -DMLO_LRN_KERNEL_SZ=5 -DMLO_LRN_N_OUTPUTS=16 -DMLO_LRN_N_CHANNELS=16 -DMLO_LRN_PAD=2 -DMLO_LRN_PRE_PAD=2 "
              "-DMLO_LRN_N_HORIZ_OUT_PIX=1 -DMLO_LRN_N_VERT_OUT_PIX=1 -DMLO_LRN_GROUP_SZ0=8 -DMLO_LRN_GROUP_SZ1=8 "
              "-DMLO_LRN_GROUP_LG2SZ0=3 -DMLO_LRN_GROUP_LG2SZ1=3 -DMLO_LRN_BOT_BATCH_STRIDE=256 "
              "-DMLO_LRN_BOT_CHANNEL_STRIDE=16 -DMLO_LRN_BOT_STRIDE=4 -DMLO_LRN_TOP_BATCH_STRIDE=256 "
              "-DMLO_LRN_TOP_CHANNEL_STRIDE=16 -DMLO_LRN_TOP_STRIDE=4 -DMLO_LRN_BOT_WIDTH=4 -DMLO_LRN_BOT_HEIGHT=4 "
              "-DMLO_LRN_TOP_WIDTH=4 -DMLO_LRN_TOP_HEIGHT=4 -DMLO_LRN_SCALE_BATCH_STRIDE=256 "
              "-DMLO_LRN_SCALE_CHANNEL_STRIDE=16 -DMLO_LRN_SCALE_STRIDE=4 -DMLO_LRN_TOPDF_BATCH_STRIDE=256 "
              "-DMLO_LRN_TOPDF_CHANNEL_STRIDE=16 -DMLO_LRN_TOPDF_STRIDE=4 -DMLO_LRN_BOTDF_BATCH_STRIDE=256 "
              "-DMLO_LRN_BOTDF_CHANNEL_STRIDE=16 -DMLO_LRN_BOTDF_STRIDE=4 -DMLO_LRN_BATCH_SZ=1 -DMLO_LRN_N_INPUTS=16 "
              "-DMLO_LRN_N_OUTPUTS=16 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_FP16=0 -mcpu=gfx1030");
}

// OpTensor4d: src/ocl/tensorocl.cpp:428-952 (MIOpen 3.3.0, same in rocm-6.2.0). Worked by hand.
TEST(PrimitiveGoldenKeys, TensorOp) {
    const auto op = [](int kind, std::vector<long> a, std::vector<long> b, DataType type = DataType::Float) {
        TensorOpProblem p;
        p.op = kind;
        p.a = shape(std::move(a));
        p.b = shape(std::move(b));
        p.data_type = type;
        return p;
    };
    // ResNet-50's residual add: equal packed tensors -> Op4dTensorLite, 25690112 elements -> float4.
    auto k = keys(op(0, {32, 256, 56, 56}, {32, 256, 56, 56}), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "OpTensor4d");
    EXPECT_EQ(k[0].name, "MIOpenTensorKernels.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"Op4dTensorLite"}));
    EXPECT_EQ(k[0].args, " -DMIOPEN_TYPE=float -DMAX_NUM_WG=4096 " + kFp32Defines +
                             " -DMIOPEN_TENSOR_OP=miopenAdd -DUSE_4D_TENSOR_LITE -DRD_BLCK=4 -DREAD_TYPE=float4"
                             " -mcpu=gfx906");
    // A per-channel bias (B 1xCx1x1): bitmap 4 -> OpTensorFwdBias; FP16 on gfx1030.
    k = keys(op(0, {8, 64, 7, 7}, {1, 64, 1, 1}, DataType::Half), "gfx1030_36");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"OpTensorFwdBias"}));
    EXPECT_EQ(k[0].args, " -DMIOPEN_TYPE=half -DMAX_NUM_WG=4096 " + kFp16Defines +
                             " -DMIOPEN_TENSOR_OP=miopenAdd -DUSE_FWD_BIAS -mcpu=gfx1030");
    // Squeeze-excitation scale (B NxCx1x1, multiply): bitmap 12, leading ones -> OpTensorLeadingOnes.
    k = keys(op(1, {8, 64, 7, 7}, {8, 64, 1, 1}), "gfx90a_110");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"OpTensorLeadingOnes"}));
    EXPECT_EQ(k[0].args, " -DMIOPEN_TYPE=float -DMAX_NUM_WG=4096 " + kFp32Defines +
                             " -DMIOPEN_TENSOR_OP=miopenMul -DUSE_LEADING_ONES -mcpu=gfx90a");
    // B broadcast over N and C only (1x1xHxW): bitmap 3, no leading ones -> Op4dTensorGeneric.
    k = keys(op(3, {8, 64, 7, 7}, {1, 1, 7, 7}), "gfx906_60");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"Op4dTensorGeneric"}));
    EXPECT_EQ(k[0].args, " -DMIOPEN_TYPE=float -DMAX_NUM_WG=4096 " + kFp32Defines +
                             " -DMIOPEN_TENSOR_OP=miopenMax -DUSE_4D_TENSOR_GENERIC -mcpu=gfx906");
    // MIOpenDriver tensorop lines (driver/tensorop_driver.hpp:148-153): -o 0 SetTensor, 1 ScaleTensor,
    // 2-5 OpTensor. Set/Scale: tensorocl.cpp:1498-1560, :1651-1720; 6422528 values -> 65536 work items,
    // 105 -> 128.
    k = keys(parse_driver_command("tensorop -n 32 -c 64 -H 56 -W 56 -o 1").at(0), "gfx906_60");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "ScaleTensor");
    EXPECT_EQ(k[0].name, "MIOpenSubTensorOpWithScalarKernel.cl.o");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"SubTensorOpWithScalar1d"}));
    EXPECT_EQ(k[0].args, "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_MULTIPLY " + kFp32Defines +
                             " -DWORK_LENGTH_0=65536 -mcpu=gfx906");
    k = keys(parse_driver_command("tensoropfp16 -n 1 -c 3 -H 5 -W 7 -o 0").at(0), "gfx1030_36");
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].solver, "SetTensor");
    EXPECT_EQ(k[0].args, "-DSUBTENSOR_OP_WITH_SCALAR=SUBTENSOR_OP_WITH_SCALAR_SET " + kFp16Defines +
                             " -DWORK_LENGTH_0=128 -mcpu=gfx1030");
    k = keys(parse_driver_command("tensorop -n 8 -c 64 -H 7 -W 7 -o 5").at(0), "gfx90a_110");
    EXPECT_EQ(k[0].symbols, (std::vector<std::string>{"Op4dTensorLite"}));
    EXPECT_EQ(k[0].args, " -DMIOPEN_TYPE=float -DMAX_NUM_WG=4096 " + kFp32Defines +
                             " -DMIOPEN_TENSOR_OP=miopenMax -DUSE_4D_TENSOR_LITE -DRD_BLCK=4 -DREAD_TYPE=float4"
                             " -mcpu=gfx90a");
    // 5-D (3-D U-Net's skip connections) is OpTensorOther: not in the catalog yet.
    EXPECT_TRUE(keys(op(0, {1, 8, 4, 4, 4}, {1, 8, 4, 4, 4}), "gfx906_60")[0].solver.starts_with("none"));
}

// With a MIOpen tree (KDBGEN_MIOPEN_SRC): every primitive solver's kernel, on problems that
// reach each solver and kernel variant, compiles for gfx906, gfx90a and gfx1030 and
// defines the symbols MIOpen launches.
TEST(PrimitiveMIOpenTree, EverySolversKernelsCompile) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const MiopenTree tree = MiopenTree::open(src);
    std::vector<Problem> problems;
    {
        ActivationProblem a;
        a.x = shape({2, 8, 4, 4});
        problems.push_back(a);
        a.direction = ActivationProblem::Direction::Backward;
        a.data_type = DataType::Half;
        problems.push_back(a);
        SoftmaxProblem s;
        s.x = shape({4, 10, 1, 1});
        problems.push_back(s);
        s.direction = SoftmaxProblem::Direction::Backward;
        s.data_type = DataType::Half;
        problems.push_back(s);
        SoftmaxProblem attn;
        attn.mode = 0;
        attn.x = shape({4, 1, 1, 100});
        problems.push_back(attn);
        PoolingProblem p;
        p.x = shape({2, 8, 16, 16});
        p.y = shape({2, 8, 8, 8});
        p.window = p.strides = {2, 2};
        p.pads = {0, 0};
        problems.push_back(p);
        p.direction = PoolingProblem::Direction::Backward;
        problems.push_back(p);
        PoolingProblem p3 = p;
        p3.x = shape({2, 8, 8, 8, 8});
        p3.y = shape({2, 8, 4, 4, 4});
        p3.window = p3.strides = {2, 2, 2};
        p3.pads = {0, 0, 0};
        p3.workspace_index_mode = 1;
        problems.push_back(p3);
        p3.direction = PoolingProblem::Direction::Forward;
        problems.push_back(p3);
        p3.workspace_index_mode = 0;
        problems.push_back(p3);  // the naive kernel
        problems.push_back(bn(BatchNormProblem::Direction::ForwardTraining, {32, 64, 14, 14}));
        problems.push_back(bn(BatchNormProblem::Direction::ForwardTraining, {1024, 64, 28, 28}));
        problems.push_back(bn(BatchNormProblem::Direction::ForwardInference, {1, 64, 14, 14}, DataType::Half,
                              DataType::Float));
        problems.push_back(bn(BatchNormProblem::Direction::Backward, {32, 64, 14, 14}));
        problems.push_back(bn(BatchNormProblem::Direction::Backward, {128, 128, 16, 16}, DataType::Half, DataType::Float));
        problems.push_back(bn(BatchNormProblem::Direction::Backward, {256, 16, 512, 256}));
        auto per_act = bn(BatchNormProblem::Direction::ForwardTraining, {16, 8, 4, 4});
        per_act.mode = BatchNormProblem::Mode::PerActivation;
        problems.push_back(per_act);
        per_act.direction = BatchNormProblem::Direction::Backward;
        problems.push_back(per_act);
        LrnProblem l;
        l.x = shape({2, 16, 8, 8});
        problems.push_back(l);
        l.mode = 0;
        l.direction = LrnProblem::Direction::Backward;
        problems.push_back(l);
        for (const auto& [a_dims, b_dims] : std::vector<std::pair<std::vector<long>, std::vector<long>>>{
                 {{8, 64, 7, 7}, {8, 64, 7, 7}}, {{8, 64, 7, 7}, {1, 64, 1, 1}}, {{8, 64, 7, 7}, {8, 64, 1, 1}},
                 {{8, 64, 7, 7}, {1, 1, 7, 7}}}) {
            TensorOpProblem t;
            t.a = shape(a_dims);
            t.b = shape(b_dims);
            problems.push_back(t);
        }
        problems.push_back(parse_driver_command("tensorop -n 2 -c 8 -H 4 -W 4 -o 0").at(0));
        problems.push_back(parse_driver_command("tensoropfp16 -n 2 -c 8 -H 4 -W 4 -o 1").at(0));
    }
    const Compiler compiler(test::toolchain(), nullptr);
    std::set<std::string> solvers_seen;
    for (const char* spec : {"gfx906:sramecc+:xnack-_60", "gfx90a:sramecc+:xnack-_110", "gfx1030_36"}) {
        const Target target = parse_target(spec);
        const PrimitiveContext ctx{target, tree.version()};
        std::set<std::string> built;  // kdb keys
        for (const auto& problem : problems) {
            std::string why;
            const PrimitiveSolver* solver = choose_primitive_solver(problem, ctx, &why);
            ASSERT_NE(solver, nullptr) << problem_key(problem) << ": " << why;
            solvers_seen.insert(std::string(solver->name()));
            for (const auto& kernel : solver->kernels(problem, ctx)) {
                if (!built.insert(kernel.file + "\n" + kernel.options).second) continue;
                const auto planned = miopen_kernel_build(kernel, target, tree);
                ASSERT_TRUE(planned) << kernel.file;
                const KernelBuild& build = *planned;
                const auto result = compiler.compile(build);
                EXPECT_TRUE(result.ok) << build.describe() << "\n" << result.command << "\n" << result.log.substr(0, 3000);
            }
        }
    }
    // Every solver in the catalog was reached.
    for (const auto* solver : primitive_catalog()) EXPECT_TRUE(solvers_seen.count(std::string(solver->name()))) << solver->name();
}
