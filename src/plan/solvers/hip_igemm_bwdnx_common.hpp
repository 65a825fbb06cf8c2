// What the non-xdlops HIP backward-data implicit-GEMM solvers share
// (ConvHipImplicitGemmBwdDataV1R1, ConvHipImplicitGemmBwdDataV4R1): the
// ProblemInterpreter view of a backward-data problem, the six-field tuning
// configuration both tune (same fields, same IsValidValue, same block-GEMM
// cluster table, same HeuristicInit order), the -DCK_PARAM_* pieces their
// options have in common, and the zeroing helper their invokers launch.
//
// MIOpen 3.3.0 (develop 2d1fd997); rocm-6.2.0 has the same code under src/solver/:
//   src/include/miopen/solver/problem_description_interpreter.hpp:40-296  ProblemInterpreter
//   src/include/miopen/conv/solvers.hpp:650-660, :713-723  the perf-db fields (Visit order)
//   src/solver/conv/conv_hip_implicit_gemm_bwd_v1r1.cpp:118-182, :397-442, :444-454, :512-568  block GEMM,
//     LDS size, IsValidValue, HeuristicInit (conv_hip_implicit_gemm_bwd_v4r1.cpp:115-179, :409-455,
//     :457-467, :529-584 the same)
//   src/include/miopen/solver/implicitgemm_util.hpp:471-542  buffer/LDS vector lengths (4 for float), 64 KiB LDS
//   src/conv/invokers/impl_gemm.cpp:13-213  the backward-data invoker: SetTensor / CastTensor around the kernel
#pragma once

#include "hip_implicit_gemm.hpp"

#include <array>
#include <optional>
#include <string>

namespace kdbgen::hip_igemm::bwdnx {

// ProblemInterpreter for backward data: the forward problem's sizes (K = dy's channels, C = dx's),
// strides of a 1-wide output and dilations of a 1-wide filter set to 1, right pads as the filter needs.
// D, Z and the depth strides, dilations and pads are 1, 1, 1, 1, 0, 0 for a 2-D problem.
struct Shape {
    bool is3d = false;
    long n = 0, k = 0, c = 0;
    long di = 1, hi = 0, wi = 0;   // dx, the forward input
    long dout = 1, ho = 0, wo = 0; // dy, the forward output
    long z = 1, y = 0, x = 0;
    long stride_d = 1, stride_h = 1, stride_w = 1;
    long dilation_d = 1, dilation_h = 1, dilation_w = 1;
    long left_pad_d = 0, left_pad_h = 0, left_pad_w = 0;
    long right_pad_d = 0, right_pad_h = 0, right_pad_w = 0;
};
Shape interpret(const ConvView& p);

// PerformanceImplicitGemmBwdDataV1R1 / ...V4R1: a perf-db record is these six ints in this order.
struct Config {
    int BlockSize = 0, GemmMPerBlock = 0, GemmNPerBlock = 0, GemmKPerBlock = 0, GemmMPerThread = 0,
        GemmNPerThread = 0;

    static std::optional<Config> parse(const std::string& text);
    std::string text() const;
    // IsValidValue: BlockSize 64..256, GemmM/NPerBlock 32..128, GemmKPerBlock 4..16,
    // GemmM/NPerThread 2..4, each a power of two.
    bool valid_value() const;
    bool operator==(const Config&) const = default;
};

// CalculateBlockGemmPerformanceParameters: the level-0/1 thread clusters of BlockSize 64, 128 or
// 256, valid when the per-thread tiles make exactly 2 x 2 clusters per block.
struct BlockGemm {
    int m_level0 = -1, n_level0 = -1, m_level1 = -1, n_level1 = -1;
    bool valid = false;
};
BlockGemm block_gemm(const Config& c);

// The copy parameters one CalculateGemm{A,B}BlockCopyPerformanceParameters returns.
struct Copy {
    int cluster_k = -1, cluster_mn = -1, src_read = -1, dst_write = -1;
    bool valid = false;
};

// CalculateLdsNumberOfByte: double-buffered A and B tiles of floats, each row padded to the
// least common multiple of the copies' LDS writes and the threadwise reads.
std::size_t lds_bytes(const Config& c, int a_dst_write, int b_dst_write, int thread_read_m, int thread_read_n);
constexpr std::size_t kLdsMaxBytes = 65536;  // get_lds_max_number_of_byte

// HeuristicInit's candidates in order (both solvers); MIOpen keeps the last one when none is valid.
extern const std::array<Config, 21> kHeuristicOrder;

// " -DCK_PARAM_PROBLEM_N=... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_W=...": the problem block both GetSolutions open with.
std::string problem_defines(const Shape& s);
// " -DCK_PARAM_TUNABLE_BLOCK_SIZE=... -DCK_PARAM_TUNABLE_GEMM_N_LEVEL1_CLUSTER=...": the tunables both write next.
std::string block_gemm_defines(const Config& c, const BlockGemm& g);
// " -DCK_PARAM_PROBLEM_DI=... -DCK_PARAM_PROBLEM_IN_RIGHT_PAD_D=...": what both append for a 3-D problem.
std::string depth_defines(const Shape& s);

// Elements of dx (the tensor the kernels write), packed: N * C * [Di *] Hi * Wi.
long dx_elements(const ConvView& p);
// impl_gemm.cpp:55-67, :172-181: a filter step that leaves no gap between the windows (dilation 1 and
// stride <= filter size, every spatial dimension), with the problem's own strides and dilations.
bool every_pixel_is_written(const ConvView& p);
// impl_gemm.cpp:61-62: windows overlap somewhere (stride < dilation * (filter - 1) + 1).
bool need_atomic_add(const ConvView& p);

}  // namespace kdbgen::hip_igemm::bwdnx
