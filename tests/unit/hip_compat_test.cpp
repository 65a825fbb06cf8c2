// The HIP compatibility overlay (src/compile/hip_compat.cpp): MIOpen's static
// composable kernels declare the legacy llvm.amdgcn.buffer.* intrinsics that
// LLVM 19 removed; the overlay maps them onto the raw buffer intrinsics.
// Clang 15 and 16 still have both, so they show what the mapping changes in the
// machine code: nothing but where a large constant offset goes (HipCompat.OverlayKeepsTheMachineCode).
#include "kdbgen/compile.hpp"
#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

using namespace kdbgen;

namespace {

// static_kernel_amd_buffer_addressing.hpp:21-25 and :79-84 (MIOpen 3.3.0) in miniature.
constexpr std::string_view kLegacy = R"(namespace ck {
#pragma clang diagnostic push
__device__ float __llvm_amdgcn_buffer_load_f32(int32x4_t rsrc,
                                               index_t vindex,
                                               index_t offset,
                                               bool glc,
                                               bool slc) __asm("llvm.amdgcn.buffer.load.f32");
__device__ void __llvm_amdgcn_buffer_store_f32x2(float2_t vdata,
                                                 int32x4_t rsrc,
                                                 index_t vindex,
                                                 index_t offset,
                                                 bool glc,
                                                 bool slc) __asm("llvm.amdgcn.buffer.store.v2f32");
__device__ float
__llvm_amdgcn_buffer_atomic_add_f32(float vdata, int32x4_t rsrc, index_t vindex, index_t offset,
                                    bool slc) __asm("llvm.amdgcn.buffer.atomic.fadd.f32");
}
)";

TEST(HipCompat, LegacyBufferDeclarationsBecomeRawCalls) {
    const auto copy = rewrite_legacy_buffer_intrinsics(kLegacy);
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->find("__asm(\"llvm.amdgcn.buffer."), std::string::npos) << *copy;
    // Declarations of the raw intrinsics, before the first use.
    const auto raw_load = copy->find(
        "__device__ float kdbgen_raw_buffer_load_f32(int32x4_t rsrc, index_t voffset, index_t soffset, index_t aux) "
        "__asm(\"llvm.amdgcn.raw.buffer.load.f32\");");
    ASSERT_NE(raw_load, std::string::npos) << *copy;
    EXPECT_LT(raw_load, copy->find("#pragma clang diagnostic push"));
    EXPECT_NE(copy->find("__asm(\"llvm.amdgcn.raw.buffer.store.v2f32\")"), std::string::npos);
    EXPECT_NE(copy->find("__asm(\"llvm.amdgcn.raw.buffer.atomic.fadd.f32\")"), std::string::npos);
    // Same names and parameters, now inline definitions: offset -> voffset, soffset 0, glc/slc -> aux.
    EXPECT_NE(copy->find("return kdbgen_raw_buffer_load_f32(rsrc, offset, 0, (glc ? 1 : 0) | (slc ? 2 : 0));"),
              std::string::npos)
        << *copy;
    EXPECT_NE(copy->find("return kdbgen_raw_buffer_store_f32x2(vdata, rsrc, offset, 0, (glc ? 1 : 0) | (slc ? 2 : 0));"),
              std::string::npos);
    EXPECT_NE(copy->find("return kdbgen_raw_buffer_atomic_add_f32(vdata, rsrc, offset, 0, slc ? 2 : 0);"),
              std::string::npos);
    EXPECT_NE(copy->find("__device__ float\ninline __llvm_amdgcn_buffer_atomic_add_f32(float vdata"), std::string::npos);
    // Nothing to do without legacy declarations.
    EXPECT_FALSE(rewrite_legacy_buffer_intrinsics("__device__ float f();\n"));
}

fs::path static_ck(const fs::path& miopen) { return miopen / "src" / "kernels" / "static_composable_kernel"; }

std::vector<fs::path> ck_include_dirs(const fs::path& miopen) {
    std::vector<fs::path> dirs = {miopen / "src" / "kernels"};
    for (const char* d : {"utility", "tensor_description", "tensor_operation", "kernel_algorithm"})
        dirs.push_back(static_ck(miopen) / "include" / d);
    return dirs;
}

// A kernel as kdbgen plans it (the solver's heuristic configuration, no perf-db),
// its options without the trailing -mcpu.
struct Sample {
    std::string what;  // for messages
    std::string file;
    std::string options;
};

std::optional<Sample> planned(const MiopenTree& tree, std::string_view solver, const std::string& problem_key,
                              const std::string& target_spec) {
    const Solver* s = find_solver(solver);
    if (!s) return std::nullopt;
    const auto problem = parse_conv_problem_key(problem_key);
    const ConvView view{problem};
    const Target target = parse_target(target_spec);
    const SolverContext ctx{target, tree.version(), data_type_options(view), nullptr, &tree};
    if (!s->applicable(view, ctx, nullptr)) return std::nullopt;
    const auto kernels = s->kernels(view, ctx);
    if (kernels.size() != 1) return std::nullopt;
    return Sample{fmt::format("{} {}", solver, problem_key), kernels[0].file, kernels[0].options};
}

// `clang -x hip` as kdbgen's driver runs it (src/compile/compiler.cpp), against the
// device libraries the older Clang can read, with utility/ or its overlay.
std::vector<std::string> older_clang_command(const fs::path& clang, const std::string& target, const Sample& sample,
                                             const fs::path& miopen, const fs::path& utility, const fs::path& out) {
    std::vector<std::string> argv = {clang.string(), "-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output",
                                     "--offload-arch=" + target, "-mcode-object-version=4",
                                     "--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                     "-D__HIPCC_RTC__", "-nogpuinc", "-isystem", hiprtc_include_dir().string(),
                                     "-include", "__clang_hip_runtime_wrapper.h", "-include",
                                     "kdbgen_hiprtc_builtins.h"};
    for (const auto& part : split_spaces(sample.options)) argv.push_back(part);
    for (const char* o : {"-Wno-everything", "-D__HIP_PLATFORM_AMD__=1", "-DMIOPEN_DONT_USE_HIP_RUNTIME_HEADERS",
                          "-fno-gpu-rdc", "-O3"})
        argv.emplace_back(o);
    const auto source = static_ck(miopen) / "src" / "kernel_wrapper" / sample.file;
    argv.push_back("-I" + source.parent_path().string());
    for (const auto& dir : ck_include_dirs(miopen))
        argv.push_back("-I" + (dir.filename() == "utility" ? utility : dir).string());
    argv.insert(argv.end(), {source.string(), "-o", out.string()});
    return argv;
}

// The bytes of an ELF file's .text section ("" when it has none).
std::string text_section(const fs::path& path) {
    const Bytes data = read_file(path);
    const auto at = [&](std::uint64_t offset, std::size_t size) {
        if (offset + size > data.size()) throw std::runtime_error("truncated ELF " + path.string());
        return data.data() + offset;
    };
    Elf64_Ehdr header;
    std::memcpy(&header, at(0, sizeof header), sizeof header);
    const auto section = [&](unsigned i) {
        Elf64_Shdr s;
        std::memcpy(&s, at(header.e_shoff + std::uint64_t(i) * header.e_shentsize, sizeof s), sizeof s);
        return s;
    };
    const auto names = section(header.e_shstrndx);
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        const auto s = section(i);
        if (std::string_view(at(names.sh_offset + s.sh_name, 1)) == ".text")
            return std::string(at(s.sh_offset, s.sh_size), s.sh_size);
    }
    return {};
}

// Where the legacy and the raw buffer intrinsics part ways. Both reach SelectionDAG
// with one 32-bit byte offset that LLVM's optimizer has folded into `base + C`
// (the thread's offset plus a constant from unrolled loops). The raw one (LLVM 15/16
// SITargetLowering::splitBufferOffsets) keeps C & 4095 as the instruction's offset
// and adds C & ~4095 to the VGPR offset (v_add_u32, soffset 0). The legacy one
// (SITargetLowering::setBufferOffsets, which asks AMDGPU::splitMUBUFOffset with
// alignment 4) leaves the VGPR offset at `base`, keeps up to 4092 as the offset and
// puts the rest into soffset: C - 4092 as an inline constant when that is at most 64,
// else (C + 4) & ~4095 minus 4 in an SGPR (s_mov_b32/s_movk_i32) with (C + 4) & 4095
// as the offset. The same address; a different encoding, register use and schedule.
struct LegacySplit {
    std::uint32_t soffset = 0, offset = 0;
};
LegacySplit legacy_split(std::uint32_t c) {
    constexpr std::uint32_t max_imm = 4092;  // alignDown(4095, 4)
    if (c <= max_imm + 64) return {c - max_imm, max_imm};
    return {((c + 4) & ~4095u) - 4, (c + 4) & 4095u};
}

// Writes into LLVM IR (the module in front of a `-stop-before=amdgpu-isel` MIR file)
// every raw buffer load and store whose byte offset has a constant part C > 4092 the
// way the legacy lowering would have split it: voffset = base + offset, soffset = the
// legacy soffset, so that splitBufferOffsets then selects exactly what setBufferOffsets
// did. `base + C` is found as SelectionDAG finds it (SelectionDAG::isBaseWithConstantOffset
// after DAGCombiner's reassociation): within the call's basic block, through chains of
// `add x, C` and `shl (add x, C), k` (which DAGCombiner::visitSHL turns into
// `add (shl x, k), C << k`). Returns how many calls it changed.
int apply_legacy_offset_split(std::string& ir) {
    static const std::regex def(R"(^\s+(%[\w.]+) = (add|shl)(?: nuw)?(?: nsw)? i32 (%[\w.]+), (-?\d+)$)");
    static const std::regex label(R"(^\s*[\w.]+:\s*(;.*)?$)");
    struct Def {
        std::string op, operand;
        std::int64_t constant;
    };
    std::map<std::string, Def> defs;  // of the current basic block
    // (base, C): base is a value, or a value shifted left k times (kept as the shift list).
    struct Split {
        std::string base;
        std::vector<int> shifts;
        std::uint32_t constant = 0;
    };
    std::function<Split(const std::string&)> constant_part = [&](const std::string& value) -> Split {
        const auto it = defs.find(value);
        if (it == defs.end()) return {value, {}, 0};
        const auto& d = it->second;
        Split inner = constant_part(d.operand);
        if (d.op == "add") {
            inner.constant += static_cast<std::uint32_t>(d.constant);
            return inner;
        }
        if (inner.constant == 0 || d.constant < 0 || d.constant > 31) return {value, {}, 0};  // shl of a plain value
        inner.shifts.push_back(static_cast<int>(d.constant));
        inner.constant <<= d.constant;
        return inner;
    };
    std::istringstream in(ir);
    std::string out, line;
    int changed = 0, names = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        if (line.find("define ") != std::string::npos || std::regex_match(line, label)) defs.clear();
        if ((line.find(" = add ") != std::string::npos || line.find(" = shl ") != std::string::npos) &&
            std::regex_match(line, m, def))
            defs[m[1]] = {m[2], m[3], std::stoll(m[4])};
        const auto call = line.find("@llvm.amdgcn.raw.buffer.");
        const bool load = call != std::string::npos && line.compare(call + 24, 5, "load.") == 0;
        const bool store = call != std::string::npos && line.compare(call + 24, 6, "store.") == 0;
        if (load || store) {
            const auto open = line.find('(', call), close = line.find(')', open);
            // Arguments: [vdata,] rsrc, voffset, soffset, aux; commas inside <4 x i32> do not split.
            std::vector<std::pair<std::size_t, std::size_t>> args;  // [begin, end) in line
            int depth = 0;
            std::size_t begin = open + 1;
            for (std::size_t i = open + 1; i <= close; ++i) {
                if (line[i] == '<') ++depth;
                if (line[i] == '>') --depth;
                if ((line[i] == ',' && depth == 0) || i == close) {
                    args.emplace_back(begin, i);
                    begin = i + 1;
                }
            }
            const std::size_t v = store ? 2 : 1;
            const auto value = [&](std::size_t a) {
                const std::string text = line.substr(args[a].first, args[a].second - args[a].first);
                return text.substr(text.find_last_of(' ') + 1);
            };
            if (args.size() == v + 3 && value(v + 1) == "0" && value(v).starts_with("%")) {
                const Split split = constant_part(value(v));
                if (split.constant > 4092 && split.constant < 0x80000000u) {  // setBufferOffsets wants C >= 0
                    const auto indent = line.substr(0, line.find_first_not_of(' '));
                    std::string base = split.base;
                    for (const int k : split.shifts) {
                        const std::string name = fmt::format("%kdbgen.split.{}", ++names);
                        out += fmt::format("{}{} = shl i32 {}, {}\n", indent, name, base, k);
                        base = name;
                    }
                    const auto legacy = legacy_split(split.constant);
                    const std::string voffset = fmt::format("%kdbgen.split.{}", ++names);
                    out += fmt::format("{}{} = add i32 {}, {}\n", indent, voffset, base, legacy.offset);
                    line = line.substr(0, args[v].first) + " i32 " + voffset + ", i32 " +
                           std::to_string(legacy.soffset) + line.substr(args[v + 1].second);
                    ++changed;
                }
            }
        }
        out += line + "\n";
    }
    ir = std::move(out);
    return changed;
}

TEST(HipCompatWithTree, OverlayOfTheMIOpenTree) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto utility = static_ck(src) / "include" / "utility";
    if (!fs::exists(utility)) GTEST_SKIP() << "no static_composable_kernel in this tree";
    const test::TempDir work;
    const auto overlay = hip_compat_overlay(utility, work.path());
    ASSERT_TRUE(overlay);
    // Every header of the folder is there, only the buffer header differs.
    std::size_t files = 0, changed = 0;
    for (const auto& entry : fs::directory_iterator(utility)) {
        ++files;
        const auto copy = *overlay / entry.path().filename();
        ASSERT_TRUE(fs::exists(copy)) << copy;
        if (read_file(copy) != read_file(entry.path())) {
            ++changed;
            EXPECT_EQ(entry.path().filename(), "static_kernel_amd_buffer_addressing.hpp");
        }
    }
    EXPECT_GT(files, 10u);
    EXPECT_EQ(changed, 1u);
    const Bytes header = read_file(*overlay / "static_kernel_amd_buffer_addressing.hpp");
    const std::string text(header.data(), header.size());
    EXPECT_EQ(text.find("__asm(\"llvm.amdgcn.buffer."), std::string::npos);
    EXPECT_NE(text.find("__asm(\"llvm.amdgcn.raw.buffer.load.f32\")"), std::string::npos);
    // Other folders need no overlay.
    EXPECT_FALSE(hip_compat_overlay(static_ck(src) / "include" / "tensor_operation", work.path()));
}

// The overlay is for compilers without the legacy intrinsics only: Clang 19 (the default) gets it;
// an LLVM that still has them (Debian's clang-15/16 where installed; ROCm 6.2's LLVM 18 the same
// way) compiles MIOpen's headers as they are, as MIOpen's own build would.
TEST(HipCompat, OverlayOnlyWhereTheCompilerLacksTheLegacyIntrinsics) {
    const char* src = ::kdbgen::test::miopen_src();
    const auto include_args = [&](const Toolchain& toolchain) {
        KernelBuild build;
        build.source = fs::path(src ? src : "/nonexistent") / "src/kernels/static_composable_kernel/kernel.cpp";
        build.kernel_file = "kernel.cpp";
        build.target = parse_target("gfx906_60");
        build.include_dirs = SharedPaths{static_ck(src ? src : "/nonexistent") / "include" / "utility"};
        std::string joined;
        const auto commands = Compiler(toolchain, nullptr).commands(build, "out.o", "scratch");
        for (const auto& arg : commands.front()) joined += arg + " ";
        return joined;
    };
    EXPECT_FALSE(has_legacy_buffer_intrinsics(test::toolchain())) << "the default toolchain is Clang 19";
    if (!src || !*src || !fs::exists(static_ck(src))) return;
    EXPECT_NE(include_args(test::toolchain()).find("hip-compat-"), std::string::npos);
    for (const char* llvm : {"/usr/lib/llvm-15", "/usr/lib/llvm-16"}) {
        if (!fs::exists(fs::path(llvm) / "bin" / "clang")) continue;
        const test::TempDir work;
        ToolchainOptions options;
        options.llvm_root = llvm;
        options.work_dir = work.path();
        const Toolchain old = discover_toolchain(options);
        EXPECT_TRUE(has_legacy_buffer_intrinsics(old)) << llvm;
        const auto args = include_args(old);
        EXPECT_EQ(args.find("hip-compat-"), std::string::npos) << llvm << ": " << args;
        EXPECT_NE(args.find("static_composable_kernel/include/utility "), std::string::npos) << args;
    }
}

TEST(HipCompat, LegacyOffsetSplitOfRawBufferCalls) {
    // The thread offset plus 0x31000 (a constant from an unrolled loop): the legacy lowering
    // gave soffset 0x30ffc and offset 4 (s_mov_b32 s17, 0x30ffc; buffer_load_dword v9, v17,
    // s[8:11], s17 offen offset:4 from clang-15 for the V4R1 FP32 kernel below).
    EXPECT_EQ(legacy_split(0x31000).soffset, 0x30ffcu);
    EXPECT_EQ(legacy_split(0x31000).offset, 4u);
    EXPECT_EQ(legacy_split(4100).soffset, 8u);  // an inline constant
    EXPECT_EQ(legacy_split(4100).offset, 4092u);
    EXPECT_EQ(legacy_split(0x1000 + 512).soffset, 0xffcu);
    EXPECT_EQ(legacy_split(0x1000 + 512).offset, 516u);
    std::string ir = R"(define void @f(<4 x i32> %r, i32 %t, float %v) {
  %1 = shl i32 %t, 2
  %2 = add i32 %1, 200704
  %3 = tail call float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32> noundef %r, i32 noundef %2, i32 noundef 0, i32 noundef 0) #6
  %4 = add i32 %t, 12544
  %5 = shl i32 %4, 2
  tail call void @llvm.amdgcn.raw.buffer.store.f32(float noundef %v, <4 x i32> noundef %r, i32 noundef %5, i32 noundef 0, i32 noundef 0) #6
  %6 = add i32 %1, 4092
  %7 = tail call float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32> noundef %r, i32 noundef %6, i32 noundef 0, i32 noundef 0) #6
  br label %8

8:
  %9 = tail call float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32> noundef %r, i32 noundef %2, i32 noundef 0, i32 noundef 0) #6
  ret void
}
)";
    EXPECT_EQ(apply_legacy_offset_split(ir), 2);
    EXPECT_NE(ir.find("  %kdbgen.split.1 = add i32 %1, 4\n  %3 = tail call float @llvm.amdgcn.raw.buffer.load.f32("
                      "<4 x i32> noundef %r, i32 %kdbgen.split.1, i32 200700, i32 noundef 0) #6\n"),
              std::string::npos)
        << ir;
    // shl (add t, 12544), 2 = (t << 2) + 50176: soffset 0xbffc, offset 0x404.
    EXPECT_NE(ir.find("  %kdbgen.split.2 = shl i32 %t, 2\n  %kdbgen.split.3 = add i32 %kdbgen.split.2, 1028\n"
                      "  tail call void @llvm.amdgcn.raw.buffer.store.f32(float noundef %v, <4 x i32> noundef %r, "
                      "i32 %kdbgen.split.3, i32 49148, i32 noundef 0) #6\n"),
              std::string::npos)
        << ir;
    // 4092 fits both ways; %2 is from another block, where SelectionDAG sees a register.
    EXPECT_NE(ir.find("i32 noundef %6, i32 noundef 0"), std::string::npos);
    EXPECT_NE(ir.find("%9 = tail call float @llvm.amdgcn.raw.buffer.load.f32(<4 x i32> noundef %r, i32 noundef %2, "
                      "i32 noundef 0"),
              std::string::npos);
}

// Clang 19 builds the kernels through the overlay (without it lld stops at
// "undefined hidden symbol: llvm.amdgcn.buffer.load.f32"; HipIgemmMIOpenTree.PlannedKernelsCompile).
// Clang 15 and 16 (Debian's clang-15/16 with lld-15/16, not in CI) still have the legacy
// intrinsics and compile the untouched source and the overlay. What this shows, per
// compiler, target and kernel:
//  1. The .text is byte-identical when no buffer access has a constant offset part above
//     4092 (the V4R1 BF16 kernel); such accesses are the only difference otherwise (V4R1
//     FP32: 72 of them, the V4R4 xdlops FP32 kernel: 17), and byte identity is impossible
//     there: the overlay's inline function sees only the folded sum `base + C`, which
//     LLVM forms after inlining (from loop unrolling and DAG folding), so no C++ in the
//     overlay can pass C's high part as soffset the way setBufferOffsets did; the raw
//     intrinsic's lowering adds it to the VGPR offset instead (see apply_legacy_offset_split).
//  2. The overlay's LLVM IR at instruction selection (clang -mllvm -stop-before=amdgpu-isel,
//     then llc -start-before=amdgpu-isel and ld.lld), with those accesses rewritten to
//     voffset = base + legacy offset, soffset = legacy soffset, gives byte-identical .text to
//     the original's direct compile: nothing else differs (the original's own IR through
//     the same route gives its .text too).
TEST(HipCompatWithTree, OverlayKeepsTheMachineCode) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const fs::path miopen = src;
    if (!fs::exists(static_ck(miopen))) GTEST_SKIP() << "no static_composable_kernel in this tree";
    const auto tree = MiopenTree::open(miopen);
    const test::TempDir work;
    const auto overlay = hip_compat_overlay(static_ck(miopen) / "include" / "utility", work.path());
    ASSERT_TRUE(overlay);
    // ResNet-50 layers as kdbgen plans them: a 3x3 layer of batch 64 for ConvHipImplicitGemmV4R1Fwd
    // in FP32 and BF16 (gfx906 with 60 CUs, gfx90a with 110), and a 3x3 layer of batch 1 for
    // ConvHipImplicitGemmForwardV4R4Xdlops in FP32 (gfx90a only: no xdlops on gfx906).
    struct Case {
        std::string target;
        Sample sample;
    };
    std::vector<Case> cases;
    for (const auto& [target, spec] : {std::pair{"gfx906", "gfx906_60"}, {"gfx90a", "gfx90a:sramecc+:xnack-_110"}}) {
        for (const char* type : {"FP32", "BF16"}) {
            const auto s = planned(tree, "ConvHipImplicitGemmV4R1Fwd",
                                   fmt::format("256-14-14-3x3-256-14-14-64-1x1-1x1-1x1-0-NCHW-{}-F", type), spec);
            ASSERT_TRUE(s) << type << " " << spec;
            cases.push_back({target, *s});
        }
    }
    const auto xdlops = planned(tree, "ConvHipImplicitGemmForwardV4R4Xdlops",
                                "128-28-28-3x3-128-28-28-1-1x1-1x1-1x1-0-NCHW-FP32-F", "gfx90a:sramecc+:xnack-_110");
    ASSERT_TRUE(xdlops);
    cases.push_back({"gfx90a", *xdlops});

    int compared = 0;
    for (const char* version : {"15", "16"}) {
        const fs::path bin = fmt::format("/usr/lib/llvm-{}/bin", version);
        if (!fs::exists(bin / "clang") || !fs::exists(bin / "llc") || !fs::exists(bin / "ld.lld")) continue;
        int index = 0;
        for (const auto& [target, sample] : cases) {
            const std::string what = fmt::format("clang-{} {} {}", version, target, sample.what);
            const auto path = [&](const std::string& name) {
                return work.path() / fmt::format("{}-{}-{}-{}", version, target, index, name);
            };
            ++index;
            const auto run = [&](const std::vector<std::string>& argv) {
                const auto r = run_process(argv);
                EXPECT_EQ(r.exit_code, 0) << what << ": " << argv.front() << " ... " << argv.back() << "\n"
                                          << r.output.substr(0, 3000);
                return r.exit_code == 0;
            };
            // Direct compile to a code object; the IR at instruction selection, optionally with the
            // legacy split applied, through llc and ld.lld. Returns .text, split count.
            const auto build = [&](const fs::path& utility, const std::string& side, bool split_route) {
                std::pair<std::string, std::string> text;
                int splits = -1;
                if (!run(older_clang_command(bin / "clang", target, sample, miopen, utility, path(side + ".co"))))
                    return std::tuple{text, splits};
                text.first = text_section(path(side + ".co"));
                auto argv = older_clang_command(bin / "clang", target, sample, miopen, utility, path(side + ".mir"));
                argv.insert(argv.end(), {"-S", "-mllvm", "-stop-before=amdgpu-isel"});
                if (!run(argv)) return std::tuple{text, splits};
                if (split_route) {
                    const Bytes mir = read_file(path(side + ".mir"));
                    std::string ir(mir.data(), mir.size());
                    splits = apply_legacy_offset_split(ir);
                    write_file_atomic(path(side + ".mir"), std::span<const char>(ir.data(), ir.size()));
                }
                if (!run({(bin / "llc").string(), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + target, "-O3",
                          "-relocation-model=pic", "--amdhsa-code-object-version=4", "-start-before=amdgpu-isel",
                          "-filetype=obj", path(side + ".mir").string(), "-o", path(side + ".o").string()}) ||
                    !run({(bin / "ld.lld").string(), "-shared", path(side + ".o").string(), "-o",
                          path(side + ".route.co").string()}))
                    return std::tuple{text, splits};
                text.second = text_section(path(side + ".route.co"));
                return std::tuple{text, splits};
            };
            auto original_job = std::async(std::launch::async, [&] {
                return build(static_ck(miopen) / "include" / "utility", "original", false);
            });
            const auto [overlaid, splits] = build(*overlay, "overlay", true);
            const auto [original, unused] = original_job.get();
            (void)unused;
            if (original.first.empty() || overlaid.first.empty() || original.second.empty() ||
                overlaid.second.empty()) {
                ADD_FAILURE() << what << ": no .text";
                continue;
            }
            // 1. The direct compiles: identical exactly when no access needed the split.
            EXPECT_EQ(original.first == overlaid.first, splits == 0)
                << what << ": .text " << original.first.size() << " / " << overlaid.first.size() << " bytes, "
                << splits << " accesses with a constant offset part above 4092";
            // 2. With the legacy split applied at instruction selection: identical.
            EXPECT_EQ(original.second, original.first) << what << ": the route through llc changes the original";
            EXPECT_TRUE(overlaid.second == original.first)
                << what << ": overlay with the legacy split " << overlaid.second.size() << " bytes, original "
                << original.first.size();
            std::cout << what << ": .text " << original.first.size() << " -> " << overlaid.first.size() << " bytes, "
                      << (original.first == overlaid.first ? "identical" : "differs") << "; " << splits
                      << " accesses split; identical with the legacy split: "
                      << (overlaid.second == original.first ? "yes" : "no") << "\n";
            ++compared;
        }
    }
    if (compared == 0) GTEST_SKIP() << "clang/llc/ld.lld 15 or 16 not installed: machine code not compared";
}

}  // namespace

// Issue #25: the overlay's folder is named by the tree it was made from, not by
// the files under it, so an edited overlay file was used as it was (and no key
// saw it). Each run now checks every file against the rewrite and writes back
// what differs. Each run is a fresh process here (fork): the overlay is made
// once per process.
TEST(HipCompat, EditedOverlayFileIsWrittenAgainBeforeUse) {
    const test::TempDir dir;
    const auto include = dir / "utility";
    fs::create_directories(include);
    std::ofstream(include / "static_kernel_amd_buffer_addressing.hpp") << kLegacy;
    std::ofstream(include / "other.hpp") << "// another header\n";
    const auto in_child = [&](const std::function<bool()>& check) {
        const pid_t pid = ::fork();
        if (pid == 0) ::_exit(check() ? 0 : 1);
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    };
    fs::path overlay;
    ASSERT_TRUE(in_child([&] { return hip_compat_overlay(include, dir / "work").has_value(); }));
    for (const auto& entry : fs::directory_iterator(dir / "work")) overlay = entry.path();
    ASSERT_FALSE(overlay.empty());
    const auto rewritten = read_file(overlay / "static_kernel_amd_buffer_addressing.hpp");
    std::ofstream(overlay / "static_kernel_amd_buffer_addressing.hpp", std::ios::app) << "#error planted\n";
    fs::remove(overlay / "other.hpp");
    fs::create_symlink("/etc/hostname", overlay / "other.hpp");  // a link is replaced, never written through
    ASSERT_TRUE(in_child([&] { return hip_compat_overlay(include, dir / "work") == overlay; }));
    EXPECT_EQ(read_file(overlay / "static_kernel_amd_buffer_addressing.hpp"), rewritten) << "the edited file was kept";
    EXPECT_FALSE(fs::is_symlink(overlay / "other.hpp"));
    EXPECT_EQ(read_file(overlay / "other.hpp"), read_file(include / "other.hpp"));
}
