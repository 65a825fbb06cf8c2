// The GPU-less compiler driver: every language, every target, the ELF facts,
// failure isolation.
#include "kdbgen/cache.hpp"
#include "kdbgen/codeobject.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/jobs.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

using namespace kdbgen;

class EveryLanguage : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryLanguage, BuildsAndPassesElfChecks) {
    const Compiler compiler(test::toolchain(), nullptr);
    for (const auto& build : test::one_of_each_language(GetParam())) {
        const auto result = compiler.compile(build);
        ASSERT_TRUE(result.ok) << build.describe() << "\n" << result.command << "\n" << result.log;
        const auto info = read_code_object(result.code);
        EXPECT_EQ(info.machine, kElfMachineAmdgpu);
        EXPECT_EQ(info.mach(), build.target.processor->elf_mach) << build.describe();
        EXPECT_TRUE(info.has_metadata_note) << build.describe();
        for (const auto& kernel : build.kernels)
            EXPECT_NE(std::find(info.kernels.begin(), info.kernels.end(), kernel), info.kernels.end()) << kernel;
        EXPECT_EQ(info.code_object_version(), 5u) << build.describe();
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryLanguage,
                         ::testing::Values("gfx900_56", "gfx906_60", "gfx908_120", "gfx90a_110", "gfx942_304",
                                           "gfx1030_36", "gfx1100_48", "gfx1200_32"));

TEST(Compile, EveryProcessorInTheTableGetsItsElfMachine) {
    // Checks the table's e_flags numbers against what LLVM writes.
    const Compiler compiler(test::toolchain(), nullptr);
    for (const auto& processor : processor_table()) {
        const auto build = test::demo_build("kdbgen_fill.s", "", std::string(processor.name) + "_8", {"KdbgenFill"});
        const auto result = compiler.compile(build);
        ASSERT_TRUE(result.ok) << processor.name << "\n" << result.log;
        EXPECT_EQ(read_code_object(result.code).mach(), processor.elf_mach) << processor.name;
    }
}

TEST(Compile, OpenClBuildsForEveryProcessorIncludingSynthesizedDeviceLibs) {
    const Compiler compiler(test::toolchain(), nullptr);
    for (const auto& processor : processor_table()) {
        const auto build = test::demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1", std::string(processor.name) + "_8",
                                      {"KdbgenTensorOp"});
        const auto result = compiler.compile(build);
        EXPECT_TRUE(result.ok) << processor.name << "\n" << result.log;
    }
    // Debian's rocm-device-libs 5.2.3 has no gfx11/gfx12 ISA library: kdbgen made it.
    const auto& made = test::toolchain().synthesized_libs;
    if (!fs::exists(test::toolchain().device_libs / "oclc_isa_version_1100.bc")) {
        EXPECT_NE(std::find(made.begin(), made.end(), "oclc_isa_version_1100.bc"), made.end());
    }
}

TEST(Compile, TargetFeaturesReachTheCodeObject) {
    const Compiler compiler(test::toolchain(), nullptr);
    const auto builds = test::one_of_each_language("gfx90a:sramecc+:xnack-_110");
    const auto ocl = compiler.compile(builds[0]);
    const auto hip = compiler.compile(builds[1]);
    const auto asm_ = compiler.compile(builds[2]);
    ASSERT_TRUE(ocl.ok && hip.ok && asm_.ok) << ocl.log << hip.log << asm_.log;
    // comgr's OpenCL ISA name carries xnack only (src/comgr.cpp:233-235): sramecc stays "any".
    EXPECT_EQ(read_code_object(ocl.code).xnack(), FeatureState::Off);
    EXPECT_EQ(read_code_object(ocl.code).sramecc(), FeatureState::Unset);
    EXPECT_EQ(read_code_object(hip.code).xnack(), FeatureState::Off);
    EXPECT_EQ(read_code_object(hip.code).sramecc(), FeatureState::On);
    EXPECT_EQ(read_code_object(asm_.code).xnack(), FeatureState::Off);
    EXPECT_EQ(read_code_object(asm_.code).sramecc(), FeatureState::On);
    const auto xnack_on = compiler.compile(test::one_of_each_language("gfx90a:xnack+_110")[1]);
    ASSERT_TRUE(xnack_on.ok) << xnack_on.log;
    EXPECT_EQ(read_code_object(xnack_on.code).xnack(), FeatureState::On);
    // gfx906 with nothing reported: MIOpen assumes sramecc+ for assembly.
    const auto gfx906 = compiler.compile(test::one_of_each_language("gfx906_60")[2]);
    EXPECT_EQ(read_code_object(gfx906.code).sramecc(), FeatureState::On);
}

TEST(Compile, CodeObjectVersionIsSelectable) {
    test::TempDir work;
    ToolchainOptions options;
    options.work_dir = work.path();
    options.code_object_version = 4;
    const Compiler compiler(discover_toolchain(options), nullptr);
    const auto result = compiler.compile(test::one_of_each_language("gfx1030_36")[0]);
    ASSERT_TRUE(result.ok) << result.log;
    EXPECT_EQ(read_code_object(result.code).code_object_version(), 4u);
}

TEST(Compile, OptionsAreMIOpensBuildTimeOptions) {
    const Compiler compiler(test::toolchain(), nullptr);
    const auto builds = test::one_of_each_language("gfx1030_36");
    const auto joined = [&](const KernelBuild& b) { return join(compiler.commands(b, "o", "s").front(), " "); };
    // src/comgr.cpp:163-186 (MIOpen 3.3.0) AddCompilerOptions, after the key's options and -Wno-everything
    // (src/hipoc/hipoc_program.cpp:296-297).
    EXPECT_NE(joined(builds[0]).find("-DMIOPEN_USE_FP32=1 -DMLO_GRP_SZ0=256 -Wno-everything -cl-std=CL2.0 "
                                     "-cl-kernel-arg-info -D__IMAGE_SUPPORT__=1 -D__OPENCL_VERSION__=200 -mllvm "
                                     "-amdgpu-early-inline-all -mllvm -amdgpu-prelink -O3 -mllvm "
                                     "-amdgpu-internalize-symbols"),
              std::string::npos)
        << joined(builds[0]);
    // src/comgr.cpp:940-980 (MIOpen 3.3.0) hiprtc BuildHip; WORKAROUND_ISSUE_1431 on gfx10/gfx11.
    const auto hip = joined(builds[1]);
    for (const char* option : {"-D__HIP_PLATFORM_AMD__=1", "-DMIOPEN_DONT_USE_HIP_RUNTIME_HEADERS",
                               "-DWORKAROUND_ISSUE_1431=1", "-fno-gpu-rdc", "-O3", "-std=c++17", "-Wno-cuda-compat"})
        EXPECT_NE(hip.find(option), std::string::npos) << option << " in " << hip;
    EXPECT_EQ(join(compiler.commands(test::one_of_each_language("gfx906_60")[1], "o", "s").front(), " ")
                  .find("WORKAROUND_ISSUE_1431"),
              std::string::npos);
    // src/comgr.cpp:666-669: -mno-xnack when xnack is off, which upstream Clang spells as the target ID.
    EXPECT_NE(join(compiler.commands(test::one_of_each_language("gfx90a:xnack-_110")[2], "o", "s").front(), " ")
                  .find("-mcpu=gfx90a:xnack-"),
              std::string::npos);
    // -mcpu in the key's options is the caller's and is removed (src/comgr.cpp:156).
    auto with_mcpu = builds[0];
    with_mcpu.options += " -mcpu=gfx900";
    EXPECT_EQ(joined(with_mcpu).find("-mcpu=gfx900"), std::string::npos);
}

TEST(Compile, ErrorNamesFileAndLineAndOthersStillBuild) {
    const Compiler compiler(test::toolchain(), nullptr);
    auto builds = test::one_of_each_language("gfx1030_36");
    KernelBuild broken = builds[0];
    broken.source = test::source_dir() / "tests/data/broken.cl";
    broken.kernel_file = "broken.cl";
    broken.kernels = {"Broken"};
    builds.insert(builds.begin() + 1, broken);
    std::atomic<bool> cancel{false};
    std::ostringstream log;
    JobOptions options;
    options.jobs = 2;
    const auto results = run_builds(compiler, builds, options, cancel, log);
    ASSERT_EQ(results.size(), 4u);
    EXPECT_FALSE(results[1].ok);
    EXPECT_NE(results[1].log.find("broken.cl:4:"), std::string::npos) << results[1].log;
    EXPECT_NE(results[1].log.find("undeclared_value"), std::string::npos) << results[1].log;
    EXPECT_NE(results[1].command.find("broken.cl"), std::string::npos);
    EXPECT_TRUE(results[0].ok && results[2].ok && results[3].ok);
    EXPECT_NE(log.str().find("FAILED broken.cl"), std::string::npos) << log.str();
}

TEST(Compile, FailFastStopsScheduling) {
    const Compiler compiler(test::toolchain(), nullptr);
    KernelBuild broken = test::one_of_each_language("gfx1030_36")[0];
    broken.source = test::source_dir() / "tests/data/broken.cl";
    std::vector<KernelBuild> builds(6, broken);
    std::atomic<bool> cancel{false};
    std::ostringstream log;
    JobOptions options;
    options.jobs = 1;
    options.fail_fast = true;
    const auto results = run_builds(compiler, builds, options, cancel, log);
    EXPECT_EQ(results[5].log, "not built");
}

TEST(Compile, MissingSourceAndMissingKernelAreFailuresNotCrashes) {
    const Compiler compiler(test::toolchain(), nullptr);
    auto build = test::one_of_each_language("gfx1030_36")[0];
    build.source = "/nonexistent/x.cl";
    EXPECT_FALSE(compiler.compile(build).ok);
    build = test::one_of_each_language("gfx1030_36")[2];
    build.kernels = {"NoSuchKernel"};
    const auto result = compiler.compile(build);
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.log.find("kernel 'NoSuchKernel' missing"), std::string::npos) << result.log;
}

// With a real MIOpen tree (KDBGEN_MIOPEN_SRC): one real kernel of each language.
// Options as MIOpen 3.3.0 forms them: src/solver/activ/fwd_0.cpp:103-143 (MIOpenNeuron.cl, FP32
// packed, mode 3 = RELU); the Winograd and naive-conv kernels with their solvers' defines.
TEST(CompileMIOpenTree, RealKernelsForGfx906AndGfx1030) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const fs::path kernels = fs::path(src) / "src" / "kernels";
    const Compiler compiler(test::toolchain(), nullptr);
    const auto make = [&](const char* file, const char* options, const char* target, std::vector<std::string> syms) {
        KernelBuild build;
        build.source = kernels / file;
        build.kernel_file = fs::path(file).filename().string();
        build.options = options;
        build.target = parse_target(target);
        build.kernels = std::move(syms);
        build.include_dirs = {kernels};
        return build;
    };
    // As ROCm reports these GPUs: MIOpen's assembly checks xnack against the target ID.
    for (const char* target : {"gfx906:sramecc+:xnack-_60", "gfx1030_36"}) {
        const bool gfx9 = std::string(target).starts_with("gfx9");
        const std::vector<KernelBuild> builds = {
            make("MIOpenNeuron.cl",
                 "-DLITE -DMIOPEN_READ_UNIT=4 -DMIOPEN_READ_TYPE=_FLOAT4 -DMIOPEN_NRN_OP_ID=3 -DMIOPEN_USE_FP16=0 "
                 "-DMIOPEN_USE_FP32=1",
                 target, {"MIOpenActiveFwdLite"}),
            // src/solver/conv/conv_winoRxS.cpp:862-868 (ConvBinWinoRxS<2,3>::GetSolution).
            make(gfx9 ? "Conv_Winograd_v21_1_3_fp32_f2x3_stride1.s" : "Conv_Winograd_v30_3_1_fp32_f2x3_stride1.s",
                 " -Wa,-defsym,ROCM_METADATA_VERSION=5 -Wa,-defsym,FORCE_CACHE_BYPASS_ON_STORE=0 -mcumode "
                 "-mwavefrontsize64",
                 target, {}),
            // The GPU reference convolution (ConvDirectNaiveConv*): HIP through the hiprtc stand-in.
            make("gpu_reference_kernel/naive_conv.cpp", "", target,
                 {"naive_conv_ab_packed_fwd_nchw_float_double_float", "naive_conv_ab_packed_wrw_nhwc_half_double_half"}),
        };
        for (const auto& build : builds) {
            const auto result = compiler.compile(build);
            EXPECT_TRUE(result.ok) << build.describe() << "\n" << result.command << "\n" << result.log.substr(0, 3000);
        }
    }
}

// The hiprtc stand-in: the declarations MIOpen's HIP kernels lean on
// (vector types with member references, atomics, cross-lane shuffles,
// bit casts, __launch_bounds__ with one and two arguments, printf).
TEST(Compile, HiprtcStandInCoversWhatMIOpenKernelsUse) {
    const Compiler compiler(test::toolchain(), nullptr);
    for (const char* target : {"gfx906_60", "gfx90a_110", "gfx1030_36", "gfx1100_48", "gfx1200_32"}) {
        KernelBuild build;
        build.source = test::source_dir() / "tests/data/hiprtc_features.cpp";
        build.kernel_file = "hiprtc_features.cpp";
        build.target = parse_target(target);
        build.kernels = {"UsesVectorsAndAtomics", "UsesShuffles"};
        const auto result = compiler.compile(build);
        EXPECT_TRUE(result.ok) << target << "\n" << result.command << "\n" << result.log.substr(0, 3000);
    }
}

// The assembler compatibility rewrite (src/compile/asm_compat.cpp), on kdbgen's own text.
TEST(AssemblerCompat, RenamesOnlyShadowingParametersOfNonAltmacroMacros) {
    const std::string text =
        ".macro wait cnt=7, other=1\n"
        "    n = \\cnt + \\other\n"
        "    s_waitcnt cnt(n)\n"
        ".endm\n"
        ".macro plain a\n"
        "    v_mov_b32 v[\\a], 0\n"
        ".endm\n"
        ".altmacro\n"
        ".macro alt cnt\n"
        "    s_waitcnt cnt\n"
        ".endm\n";
    const std::string expected =
        ".macro wait kdbgen_cnt=7, other=1\n"
        "    n = \\kdbgen_cnt + \\other\n"
        "    s_waitcnt cnt(n)\n"
        ".endm\n"
        ".macro plain a\n"
        "    v_mov_b32 v[\\a], 0\n"
        ".endm\n"
        ".altmacro\n"
        ".macro alt cnt\n"
        "    s_waitcnt cnt\n"
        ".endm\n";
    EXPECT_EQ(rename_shadowing_macro_parameters(text), expected);
    // A caller passing the parameter by keyword keeps its name.
    EXPECT_EQ(rename_shadowing_macro_parameters(text, {"wait cnt"}), text);
    // Nothing to do: the text comes back unchanged, byte for byte.
    const std::string clean = ".macro m x\n  s_nop \\x\n.endm";
    EXPECT_EQ(rename_shadowing_macro_parameters(clean), clean);
}

// The keyword-call scan reads lines as the regular expressions it replaced did (a regex scan
// of src/kernels cost 4 s per build): `^\s*([A-Za-z_.$][\w.$]*)\s+(.*)$` per line, then every
// `([A-Za-z_]\w*)\s*=` in the arguments. The expressions stay here as the reference.
std::set<std::string> keyword_calls_by_regex(const std::string& text) {
    static const std::regex call(R"(^\s*([A-Za-z_.$][\w.$]*)\s+(.*)$)");
    static const std::regex keyword(R"(([A-Za-z_]\w*)\s*=)");
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, call) || line.find('=') == std::string::npos) continue;
        const std::string args = m[2];
        for (auto k = std::sregex_iterator(args.begin(), args.end(), keyword); k != std::sregex_iterator(); ++k)
            out.insert(m[1].str() + " " + (*k)[1].str());
    }
    return out;
}

TEST(AssemblerCompat, KeywordCallsReadAsTheRegularExpressionsRead) {
    const std::vector<std::string> texts = {
        "s_wait vmcnt=0, lgkmcnt=1\n",
        "  .macro_call a=1 b = 2 c==3 9d=4 e.f=5 g\th=6\n",
        "name\n name \nname\t x=1\r\nname x=1\rname\r y=2\n",
        "x=1\n.set y, 2\n$m k=1\n_m1 k1 = 2 k2= 3\nm, k=1\n",
        "abc d=\nabc def ghi=jk=l\n  \t\nlast k=9",
    };
    for (const auto& text : texts) {
        std::set<std::string> scanned;
        add_keyword_calls(text, scanned);
        EXPECT_EQ(scanned, keyword_calls_by_regex(text)) << text;
    }
    const char* src = ::kdbgen::test::miopen_src();
    if (!src || !*src) return;
    std::size_t files = 0, pairs = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(src) / "src" / "kernels")) {
        const auto ext = entry.path().extension();
        if (!(ext == ".s" || ext == ".inc")) continue;
        const std::string text = read_text_file(entry.path());
        std::set<std::string> scanned;
        add_keyword_calls(text, scanned);
        const auto expected = keyword_calls_by_regex(text);
        EXPECT_EQ(scanned, expected) << entry.path();
        ++files, pairs += expected.size();
    }
    EXPECT_GT(files, 20u);
    EXPECT_GT(pairs, 0u);
}

// conv1x1wrw.s (ConvAsmBwdWrW1x1) and conv1x1u.s (ConvAsm1x1U) with options
// MIOpen forms for ResNet-50 layers: LLVM 19 rejects them as written
// (conv_common.inc's s_wait under .altmacro) and assembles them through the
// overlay. Where LLVM 14 is installed, its object from the untouched source
// has the same machine code.
TEST(CompileMIOpenTree, AssemblerCompatOverlayKeepsTheMachineCode) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const fs::path kernels = fs::path(src) / "src" / "kernels";
    const test::TempDir work;
    const auto overlay = assembler_compat_overlay(kernels, work.path());
    ASSERT_TRUE(overlay);
    EXPECT_TRUE(fs::exists(*overlay / "conv_common.inc"));
    std::string wrw;
    for (const auto& [name, value] :
         std::vector<std::pair<const char*, int>>{{"stride_h", 1}, {"stride_w", 1}, {"img_h", 7}, {"img_w", 7},
                                                  {"out_h", 7}, {"out_w", 7}, {"batch_size", 32},
                                                  {"input_channels", 512}, {"output_channels", 2048}, {"wei_h", 1},
                                                  {"wei_w", 1}, {"pad_h", 0}, {"pad_w", 0}, {"weights_layout", 0},
                                                  {"reverse_weights", 0}, {"ROCM_METADATA_VERSION", 5},
                                                  {"do_not_use_default_perf_params", 1}, {"acc_type", 1},
                                                  {"buf_type", 2}, {"input_n_stride", 50176},
                                                  {"input_c_stride", 98}, {"input_h_stride", 14},
                                                  {"input_w_stride", 2}, {"output_n_stride", 200704},
                                                  {"output_k_stride", 98}, {"output_h_stride", 14},
                                                  {"output_w_stride", 2}, {"filter_k_stride", 1024},
                                                  {"filter_c_stride", 2}, {"filter_h_stride", 2},
                                                  {"filter_w_stride", 2}, {"input_buffer_size", 1605632},
                                                  {"filter_buffer_size", 2097152}, {"output_buffer_size", 6422528},
                                                  {"short_store", 0}, {"chunk_size", 4}, {"c_per_gpr", 4},
                                                  {"c_mult", 2}, {"k_per_gpr", 1}, {"k_mult", 2}, {"n_per_gpr", 1},
                                                  {"n_part_cnt", 1}, {"hw_per_gpr", 4}, {"read_size", 2},
                                                  {"data_prefetch", 1}})
        wrw += fmt::format(" -Wa,-defsym,{}={}", name, value);
    KernelBuild build;
    build.source = kernels / "conv1x1wrw.s";
    build.kernel_file = "conv1x1wrw.s";
    build.options = wrw;
    build.target = parse_target("gfx906:sramecc+:xnack-_60");
    build.kernels = {"miopenGcnAsmConv1x1WrW"};
    build.include_dirs = {kernels};
    const Compiler compiler(test::toolchain(), nullptr);
    const auto result = compiler.compile(build);
    ASSERT_TRUE(result.ok) << result.command << "\n" << result.log.substr(0, 2000);

    const fs::path llvm14 = "/usr/lib/llvm-14/bin/clang";
    if (!fs::exists(llvm14)) GTEST_SKIP() << "LLVM 14 not installed: machine code not compared";
    const test::TempDir temp;
    const fs::path& dir = temp.path();
    std::vector<std::string> argv = {llvm14.string(), "-x", "assembler", "-target", "amdgcn-amd-amdhsa",
                                     "-mcpu=gfx906:sramecc+:xnack-", "-mcode-object-version=4"};
    for (const auto& part : split(wrw.substr(1), ' ')) argv.push_back(part);
    argv.insert(argv.end(), {"-I" + kernels.string(), "-c", build.source.string(), "-o", (dir / "ref.o").string()});
    ASSERT_EQ(run_process(argv).exit_code, 0);
    const auto text_of = [&](const fs::path& object, const fs::path& out) {
        run_process({(test::toolchain().llvm_root / "bin" / "llvm-objcopy").string(), "-O", "binary",
                     "--only-section=.text", object.string(), out.string()});
        return read_file(out);
    };
    write_file_atomic(dir / "ours.co", std::span<const char>(result.code.data(), result.code.size()));
    const Bytes ours = text_of(dir / "ours.co", dir / "ours.text");
    EXPECT_FALSE(ours.empty());
    EXPECT_EQ(ours, text_of(dir / "ref.o", dir / "ref.text"));
}
