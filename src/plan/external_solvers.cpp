// Solver names that find-dbs list and kdbgen's catalog does not port (a ported solver
// leaves this list: ExternalSolvers.NeverOverlapTheCatalog), whose
// fate in MIOpen is known without porting them: built into libMIOpen (no kdb
// record), compiled by rocMLIR, off by default, or not a convolution solver
// at all. Everything else outside the catalog is taken as applicable and
// enabled, since the find-db that names it came from a MIOpen that ran it.
#include "kdbgen/plan.hpp"

#include <array>

namespace kdbgen {

namespace {

struct Entry {
    std::string_view name;
    ExternalSolver::Kind kind;
    std::string_view reason;
};

using Kind = ExternalSolver::Kind;

// MIOpen 3.3.0 (develop 2d1fd997) file:line; rocm-6.2.0 (3.2.0) has the same rules.
constexpr std::array kExternal = {
    // The composable-kernel solvers whose invoker runs the CK device instance
    // alone (InitInvokerFactoryNHWC's forward and backward-data branch,
    // src/include/miopen/solver/implicitgemm_ck_util.hpp:890-909): these take
    // N(D)HWC problems only, so they build nothing MIOpen looks up in a kdb. The
    // grouped ones and F16F8F16 backward weights, which run MIOpen's transposes
    // or SetTensor around it, are in the catalog (src/plan/solvers/ck/). Each
    // IsApplicable is #if MIOPEN_USE_COMPOSABLEKERNEL (CMakeLists.txt:261, default On; 3.2: :241).
    Entry{"ConvHipImplicitGemmFwdXdlops", Kind::PrecompiledKernels,
          "src/solver/conv/conv_hip_implicit_gemm_fwd_xdlops.cpp:270-318 (NHWC only, :298)"},
    Entry{"ConvHipImplicitGemmBwdXdlops", Kind::PrecompiledKernels,
          "src/solver/conv/conv_hip_implicit_gemm_bwd_data_xdlops.cpp:269-317 (NHWC only, :290)"},
    Entry{"ConvHipImplicitGemmF16F8F16FwdXdlops", Kind::PrecompiledKernels,
          "src/solver/conv/conv_hip_implicit_gemm_f16f8f16_fwd_xdlops.cpp:304-332 (NHWC only)"},
    Entry{"ConvHipImplicitGemmF16F8F16BwdXdlops", Kind::PrecompiledKernels,
          "src/solver/conv/conv_hip_implicit_gemm_f16f8f16_bwd_xdlops.cpp:307-335 (NHWC only)"},
    // rocMLIR generates these kernels inside MIOpen (MiirGenBin); each IsApplicable
    // is #if MIOPEN_USE_MLIR (CMakeLists.txt:401-402: on for shared builds; 3.2: :364-365).
    Entry{"ConvMlirIgemmFwd", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_fwd.cpp:166"},
    Entry{"ConvMlirIgemmBwd", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_bwd.cpp:46"},
    Entry{"ConvMlirIgemmWrW", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_wrw.cpp:47"},
    Entry{"ConvMlirIgemmFwdXdlops", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_fwd_xdlops.cpp:61"},
    Entry{"ConvMlirIgemmBwdXdlops", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_bwd_xdlops.cpp:47"},
    Entry{"ConvMlirIgemmWrWXdlops", Kind::Mlir, "src/solver/conv/conv_mlir_igemm_wrw_xdlops.cpp:48"},
    // Off unless an environment variable turns them on.
    Entry{"ConvCkIgemmFwdV6r1DlopsNchw", Kind::DefaultOff,
          "WORKAROUND_SWDEV_411729: IsApplicable needs MIOPEN_DEBUG_CONV_CK_IGEMM_FWD_V6R1_DLOPS_NCHW=1 "
          "(src/solver/conv/conv_ck_igemm_fwd_v6r1_dlops_nchw.cpp:37, :92-93)"},
    // WORKAROUND_SWDEV_257202 (SSD convergence) makes IS_DISABLED(x) !env::enabled(x)
    // (src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, MIOpen 3.3.0; rocm-6.2.0
    // src/solver/conv_MP_bidirectional_winograd.cpp:50-58): every instance is off unless its
    // variable is set (:344-368, xdlops :869-893). Older find-dbs (gfx803, gfx900_64, gfx906_64)
    // still list them.
    Entry{"ConvMPBidirectWinograd<2-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_WINOGRAD_F2X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :364-368)"},
    Entry{"ConvMPBidirectWinograd<3-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_WINOGRAD_F3X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :359-363)"},
    Entry{"ConvMPBidirectWinograd<4-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_WINOGRAD_F4X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :354-358)"},
    Entry{"ConvMPBidirectWinograd<5-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_WINOGRAD_F5X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :349-353)"},
    Entry{"ConvMPBidirectWinograd<6-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_WINOGRAD_F6X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :344-348)"},
    Entry{"ConvMPBidirectWinograd_xdlops<2-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_XDLOPS_WINOGRAD_F2X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :889-893)"},
    Entry{"ConvMPBidirectWinograd_xdlops<3-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_XDLOPS_WINOGRAD_F3X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :884-888)"},
    Entry{"ConvMPBidirectWinograd_xdlops<4-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_XDLOPS_WINOGRAD_F4X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :879-883)"},
    Entry{"ConvMPBidirectWinograd_xdlops<5-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_XDLOPS_WINOGRAD_F5X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :874-878)"},
    Entry{"ConvMPBidirectWinograd_xdlops<6-3>", Kind::DefaultOff,
          "WORKAROUND_SWDEV_257202: needs MIOPEN_DEBUG_AMD_MP_BD_XDLOPS_WINOGRAD_F6X3=1 "
          "(src/solver/conv/conv_MP_bidirectional_winograd.cpp:51-59, :869-873)"},
    // Fusion solvers are registered under convolution ids with no convolution
    // solver behind them (src/solver.cpp:316-320, Register without a solver):
    // old find-db lines name ConvOclDirectFwdFused, and there is nothing to build.
    Entry{"ConvOclDirectFwdFused", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:316-320)"},
    Entry{"ConvBiasActivAsm1x1U", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:303-307)"},
    Entry{"ConvBinWinogradRxSFused", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:592-596)"},
    Entry{"ConvBinWinogradRxSf2x3g1Fused", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:597-601)"},
    Entry{"ConvWinoFuryRxSFused<2-3>", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:683-687)"},
    Entry{"ConvCKIgemmFwdBiasActivFused", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:605-609)"},
    Entry{"ConvCKIgemmFwdBiasResAddActivFused", Kind::NotConvolution, "a fusion solver id (src/solver.cpp:650-654)"},
};

}  // namespace

std::vector<std::string_view> external_solver_names() {
    std::vector<std::string_view> names;
    for (const auto& entry : kExternal) names.push_back(entry.name);
    return names;
}

std::optional<ExternalSolver> external_solver(std::string_view name) {
    for (const auto& entry : kExternal)
        if (entry.name == name) return ExternalSolver{entry.kind, std::string(entry.reason)};
    return std::nullopt;
}

}  // namespace kdbgen
