// The assembly implicit-GEMM GTC family (ConvAsmImplicitGemmGTCDynamic*):
// kernels picked from fixed tables of src/kernels/dynamic_igemm/*.s. The
// tables are read at run time from the MIOpen tree's solver sources (once per
// process), never copied into kdbgen.
//
// MIOpen 3.3.0 (develop 2d1fd997); identical in rocm-6.2.0 (3.2.0) but for includes:
//   src/include/miopen/conv/asm_implicit_gemm.hpp:54-110   TunableImplicitGemmGTCDynamic_t, GetKernelName
//   src/include/miopen/conv/asm_implicit_gemm.hpp:115-296  the split/pad/tile helpers
//   src/include/miopen/conv/solvers.hpp:3080-3281         PerformanceConfigAsmImplicitGemmGTC (Visit order)
//   src/solver/conv/conv_asm_implicit_gemm_gtc_perf_config.cpp:35-264  constructors, ==, ToKernelName, BlockSize
//   src/solver/conv/conv_asm_implicit_gemm_gtc_perf_config.cpp:266-527 the NCHWc (vector) config
//   src/include/miopen/serializable.hpp:41-112            perf-db record parsing (`ss >> field` per comma part)
#pragma once

#include "kdbgen/solver.hpp"
#include "../solver_arithmetic.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen::gtc {

// ---- tables read from the MIOpen tree -------------------------------------

// One value of a brace-initialized table row.
struct TableValue {
    enum class Kind { String, Name, Int, IntList } kind = Kind::Int;
    std::string text;  // String (without quotes) and Name
    long long number = 0;
    std::vector<long long> list;
};
struct TableRow {
    std::string file;  // the path, for messages
    std::size_t line = 0;
    std::vector<TableValue> values;
    // Typed access; InputError naming file:line and the field otherwise.
    const std::string& string_at(std::size_t i) const;
    const std::string& name_at(std::size_t i) const;
    int int_at(std::size_t i) const;
    std::array<int, 4> quad_at(std::size_t i) const;
    void expect_size(std::size_t n, const char* what) const;
};

// The rows of the brace-initialized `list` (`std::vector<T> list {...}` or
// `list = {...}`; rows `{...}` or `std::make_tuple(...)`) inside the
// definition of `function` in `relative` (a path under the tree's root).
// Parsed once per process; InputError naming file and line when unreadable.
const std::vector<TableRow>& source_table(const MiopenTree& tree, std::string_view relative_name,
                                          std::string_view function_name, std::string_view list_name);
// The braced row that `function` returns (`return {...};`).
const TableRow& returned_row(const MiopenTree& tree, std::string_view relative_name, std::string_view function_name);
// Rows of three integers (std::make_tuple(m, n, k) tile lists).
const std::vector<std::array<int, 3>>& tile_table(const MiopenTree& tree, std::string_view relative_name,
                                           std::string_view function_name, std::string_view list_name);

// ---- the problem as the GTC solvers read it --------------------------------

enum class Precision { Fp32, Fp16, Bf16 };
Precision precision_of(const ConvView& p);
const char* precision_name(Precision precision);  // fp32, fp16, bf16 (the perf-config spelling)
int type_size(const ConvView& p);                 // GetTypeSize(GetInDataType())
DataType data_type(const ConvView& p);

long long gcd(long long a, long long b);

// asm_implicit_gemm.hpp:115-140, :159-167, :169-239, :243-296.
std::size_t log2_gemm_k_global_splits_2d_merge(std::size_t grid, std::size_t max_grid, std::size_t dim0,
                                               std::size_t dim1, std::size_t k_per_block, std::size_t max_log2);
std::size_t matrix_pad_size(std::size_t col, std::size_t col_per_block, std::size_t row, std::size_t row_per_block);
std::array<int, 3> macro_tile_no_pad_gemm_k(std::size_t m, std::size_t n, std::size_t k,
                                            const std::vector<std::array<int, 3>>& tiles);
int split_batch_size(int hi, int wi, int ho, int wo, int n, int k, int c, int data_byte);

// The backward-data geometry (conv_asm_implicit_gemm_gtc_bwd.cpp:796-836).
struct BwdGeometry {
    long long hi, wi, n, k, c, ho, wo, stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, y, x;
    long long y_tilda, x_tilda, y_dot, x_dot, h_tilda_slice, w_tilda_slice;
    bool unit_conv;
};
BwdGeometry bwd_geometry(const ConvView& p, long long group);

// The device checks every GTC IsApplicable starts with.
bool is_gfx94(const Target& target);

// ---- NCHW tunables (TunableImplicitGemmGTCDynamic_t) ----------------------

struct Tunable {
    int block_size() const;  // asm_implicit_gemm.hpp:79-86
    std::string direction;
    Precision precision = Precision::Fp32;
    int nxb = 0, nxe = 0, m_per_block = 0, n_per_block = 0, k_per_block = 0;
    int wave_tile_m = 0, wave_tile_n = 0, wave_tile_k = 0, wave_step_m = 0, wave_step_n = 0, wave_repeat_m = 0,
        wave_repeat_n = 0;
    std::array<int, 4> ta_thread{}, ta_cluster{}, tb_thread{}, tb_cluster{};
    int gemm_k_global_split = 0;
    std::string kernel_name() const;
};
// `{ "fwd", miopenFloat, nxb, nxe, m, n, k, wtm, wtn, wtk, wsm, wsn, wrm, wrn, {ta}, {ca}, {tb}, {cb}, gks }`.
const std::vector<Tunable>& tunable_table(const MiopenTree& tree, std::string_view relative_name, std::string_view function_name,
                                   std::string_view list_name);

// ---- NHWC performance configs (PerformanceConfigAsmImplicitGemmGTC) -------

struct Config {
    std::string direction, layout, precision;
    int nxb = 1, nxe = 1, m_per_block = 1, n_per_block = 1, k_per_block = 1;
    int wave_tile_m = 1, wave_tile_n = 1, wave_tile_k = 1, wave_step_m = 1, wave_step_n = 1, wave_repeat_m = 1,
        wave_repeat_n = 1;
    int multihead = 1, vector_store = 1, gemm_k_global_split = 1, merge_e = 1, tensor_a_pass_through = 1;
    std::array<int, 4> ta_thread{1, 1, 1, 1}, ta_cluster{1, 1, 1, 1}, tb_thread{1, 1, 1, 1}, tb_cluster{1, 1, 1, 1};
    int index = 0;

    // perf_config.cpp:161-194 (gemm_k_global_split compared as zero / non-zero; index not at all).
    bool same_parameters(const Config& other) const;
    // perf_config.cpp:132-159: the default-constructed config (IsValid rejects it).
    bool is_default_constructed() const;
    int block_size() const;  // perf_config.cpp:257-264: the product of ta_cluster
    // perf_config.cpp:213-255: _gtcx_ on gfx908, _gtcx2_ on gfx90a, _gtcx3_ otherwise.
    std::string kernel_name(const Target& target) const;
};
// `{"fwd", "nhwc", miopenFloat, nxb, nxe, m, n, k, wtm, wtn, wtk, wsm, wsn, wrm, wrn, mh, vs, gks, me, pta, {4}x4}`.
const std::vector<Config>& config_table(const MiopenTree& tree, std::string_view relative_name, std::string_view function_name,
                                 std::string_view list_name);
Config returned_config(const MiopenTree& tree, const std::string& relative, const std::string& function);
// A perf-db record (Visit order: 36 parameters and the index; `ss >> x` per comma-separated part, so
// "152[2]" reads as 152), or nullopt when it has fewer parts.
std::optional<Config> parse_config_record(const std::string& record);
// IsValidValue (e.g. conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp:662-670).
bool in_table(const Config& config, const std::vector<Config>& table);

// The NHWC solutions' main kernel options (e.g. conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp:977-1021): on
// gfx90a FP16 two kernels, igemm_<dir>_fp16_alt_impl=0 and =1.
std::vector<SolverKernel> nhwc_main_kernels(const Config& config, const ConvView& p, const Target& target);

// The NCHW<->NHWC batched transposes an NCHW problem needs around an NHWC kernel.
enum class Transpose { Default2Nhwc, Nhwc2Default };
struct TransposeNeed {
    Transpose kind;
    DataType type;
    long n, c, h, w;
};
// A transpose with a height or width of 1 is left out, as the GTC solvers' IsSkippable does
// (batched_transpose_sol.cpp:405-410, MIOpen 3.3.0); the CK invokers build every one (skip_trivial false).
void add_transposes(std::vector<SolverKernel>& out, const std::vector<TransposeNeed>& needs, const SolverContext& ctx,
                    bool skip_trivial = true);

// Why a GTC solver plans nothing: its tables come from ctx.tree, or (NCHW) no table row fits.
inline constexpr std::string_view kNoKernelsReason =
    "no MIOpen tree in the solver context (the tables are read from it), or no table entry fits";

// "the MIOpen tree is needed" as a reject reason when ctx.tree is null.
bool tree_missing(const SolverContext& ctx, std::string* why);

// The checks gfx908's NCHW solvers share (e.g. conv_asm_implicit_gemm_gtc_fwd.cpp:1504-1556): gfx908,
// 2-D, int-sized, FP32 or FP16 not casted, NCHW, xnack off, and a tree to read the tables from.
bool nchw_xdlops_applicable(const ConvView& p, const SolverContext& ctx, std::string* why);
// <name>.s with " -Wa,-defsym,ROCM_METADATA_VERSION=5" alone, as the NCHW and NCHWc solutions build it.
SolverKernel plain_asm_kernel(const std::string& name);
// The kernels of every tunable of the table with the problem's precision (Solver::table_kernels
// of gfx908's NCHW solvers: the kernel is a table row's, the options the same for all).
std::vector<SolverKernel> table_asm_kernels(const std::vector<Tunable>& tunables, const ConvView& p);

// ConvAsmImplicitGemmGTCDynamic{Fwd,Bwd,Wrw}XdlopsNHWC: NHWC kernels (NCHW problems
// transposed around them) on gfx908, gfx90a and gfx94x. The configuration is the
// perf-db record when IsValidPerformanceConfig accepts it (src/include/miopen/find_solution.hpp:
// 86-122), else HeuristicInit; the spare set (use_spare_set) is only GenericSearch's.
class NhwcXdlopsSolver : public Solver {
public:
    bool dynamic() const override { return true; }  // IsDynamic, src/include/miopen/conv/solvers.hpp:3481, :3685, :3895
    bool applicable(const ConvView& p, const SolverContext& ctx, std::string* why) const override;
    std::vector<SolverKernel> kernels(const ConvView& p, const SolverContext& ctx) const override;
    // Every kernel_param_list row of the problem's precision (the perf-config spelling, as the
    // table's own rows; conv_asm_implicit_gemm_gtc_*_nhwc.cpp, MIOpen 3.3.0): the kernels
    // HeuristicInit or a perf-db record can name, IsValidValue requiring table membership.
    std::vector<SolverKernel> table_kernels(const ConvView& p, const SolverContext& ctx) const override;
    std::string_view missing_kernels_reason() const override { return kNoKernelsReason; }
    // The configuration MIOpen builds, or nullopt without a tree.
    std::optional<Config> chosen_config(const ConvView& p, const SolverContext& ctx) const;

protected:
    struct Grid {
        std::size_t block = 0, grid = 0, third = 0;  // third: splits_4G (fwd, bwd) or occupancy (wrw)
    };
    virtual std::string source() const = 0;  // e.g. src/solver/conv/conv_asm_implicit_gemm_gtc_fwd_nhwc.cpp
    virtual std::string table_function() const = 0;
    virtual std::string largest_tile_function(Precision precision) const = 0;
    virtual bool direction_matches(const ConvView& p) const = 0;
    virtual int split_batch(const ConvView& p) const = 0;  // igemm_split_batch_size as IsApplicable calls it
    virtual bool workaround_rejects(const ConvView& p, std::string* why) const = 0;
    virtual Grid grid_of(const ConvView& p, const Config& c) const = 0;
    // IsValid after the default-constructed and precision checks.
    virtual bool valid(const ConvView& p, const Config& c) const = 0;
    virtual Config heuristic(const ConvView& p, const SolverContext& ctx) const = 0;
    // The SetTensor / CastTensor kernels the invoker launches.
    virtual void add_helpers(std::vector<SolverKernel>& out, const ConvView& p, const Config& c) const = 0;
    // The transposes an NCHW problem needs (input, weights, output as the solver lists them).
    virtual std::vector<TransposeNeed> transposes(const ConvView& p) const = 0;

    bool is_valid(const ConvView& p, const Config& c) const;
    const std::vector<Config>& table(const SolverContext& ctx) const;
    const std::vector<std::array<int, 3>>& tiles(const SolverContext& ctx, const std::string& list) const;
    // The first config of the problem's precision with the least padding among those with
    // ta_thread[1] == tb_thread[1] == 1 (find_with_gemm_k_pad of the fwd and bwd heuristics).
    Config least_padding(const ConvView& p, const std::vector<Config>& list, std::size_t gemm_m, std::size_t gemm_n,
                         std::size_t gemm_k) const;
};

}  // namespace kdbgen::gtc
