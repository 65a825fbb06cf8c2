// HIP compatibility overlay for the legacy buffer intrinsics.
//
// MIOpen's static composable kernels (src/kernels/static_composable_kernel/,
// the ConvHipImplicitGemm* solvers) declare the buffer loads and stores they
// use as functions bound to LLVM intrinsic names:
//   __device__ float __llvm_amdgcn_buffer_load_f32(int32x4_t rsrc, index_t vindex, index_t offset,
//                                                  bool glc, bool slc) __asm("llvm.amdgcn.buffer.load.f32");
// (include/utility/static_kernel_amd_buffer_addressing.hpp:21-154, MIOpen 3.3.0 and rocm-6.2.0).
// LLVM removed those legacy llvm.amdgcn.buffer.* intrinsics (llvm-project#93801,
// LLVM 19): Clang 19 then emits calls to undefined functions and lld stops at
// "undefined hidden symbol: llvm.amdgcn.buffer.load.f32" on every target that
// uses buffer addressing (gfx900/906/908/90a; gfx103x builds with
// CK_USE_AMD_BUFFER_ADDRESSING=0).
//
// The overlay is a copy of the folder holding that header (the header's
// includers sit next to it and include it by quoted name, which searches
// their own folder first, so the whole folder is replaced in the include
// path) in which every such declaration becomes an inline function of the
// same name and signature calling the raw buffer intrinsic that replaced it:
//   legacy  buffer.load(rsrc, vindex, offset, glc, slc)
//   raw     raw.buffer.load(rsrc, voffset = offset, soffset = 0, aux = glc | slc << 1)
// and likewise for stores (data first) and atomic fadd (no glc). The raw
// form has no index operand: every call in the header passes vindex 0, for
// which the legacy intrinsic selected offen-only addressing, as the raw one
// does (struct.buffer with vindex 0 would select idxen+offen with a VGPR pair:
// clang-15 V4R1 FP32 gfx906 .text 17872 -> 18064 bytes). Kernel sources,
// options and kdb keys are MIOpen's; only the compiler sees the copy.
//
// What changes in the machine code (Debian's clang-15 and clang-16, which
// still have the legacy intrinsics; tests/unit/hip_compat_test.cpp,
// HipCompat.OverlayKeepsTheMachineCode): the LLVM IR reaching instruction
// selection is the same up to the intrinsic calls (and inline asm !srcloc
// positions), and the .text is byte-identical unless a buffer
// access's offset, as LLVM folded it, is `base + C` with C > 4092. There the
// two lowerings split C differently (same address): the legacy one
// (SITargetLowering::setBufferOffsets -> AMDGPU::splitMUBUFOffset, alignment
// 4, LLVM 15/16) keeps the VGPR offset at `base` and puts C's high part in
// soffset (s_mov_b32 sN, 0x30ffc; ... sN offen offset:4 for C = 0x31000);
// the raw one (SITargetLowering::splitBufferOffsets) adds C & ~4095 to the
// VGPR offset (v_add_u32 vN, 0x31000, vM; ... 0 offen). Registers and the
// schedule follow. Rewriting just those accesses the legacy way in the IR at
// instruction selection makes the overlay's .text byte-identical to the
// original's (V4R1 FP32 and BF16 on gfx906/gfx90a, V4R4 xdlops FP32 on
// gfx90a, both compilers). The inline function cannot do that split itself:
// it receives the folded sum, whose constant part LLVM forms only after
// inlining (unrolled-loop constants, DAGCombiner folding shl/add chains);
// MIOpen's callers pass a constant offset of 0 (static_kernel_in_memory_
// operation.hpp:68,81,125) and no offset is a compile-time constant as a
// whole. Measured .text (original -> overlay, bytes): V4R1 FP32 clang-15
// gfx906 17872 -> 17896, gfx90a 19008 -> 19008; clang-16 gfx906 12968 ->
// 13040, gfx90a 14016 -> 14080; V4R4 xdlops FP32 gfx90a 3200 -> 3200
// (clang-15), 3328 -> 3328 (clang-16), not identical; V4R1 BF16 identical.
// The overlay is used only where the compiler lacks the legacy intrinsics
// (has_legacy_buffer_intrinsics probes it once per compiler): with an LLVM
// that still has them (--llvm-root at ROCm 6.2's LLVM 18, or Debian's
// clang-15/16) MIOpen's headers are compiled as they are, and the code object
// is the one that LLVM makes at run time inside MIOpen.
// MIOpen's descriptors set num_records to 0xffffffff (range[2] = -1,
// static_kernel_amd_buffer_addressing.hpp:193), so the bounds check, which
// on gfx9 covers the VGPR offset and the immediate but not soffset, cannot
// fire either way.
#include "kdbgen/cache_entry.hpp"
#include "kdbgen/cleanup.hpp"
#include "kdbgen/compile.hpp"

#include "kdbgen/util.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>

namespace kdbgen {

namespace {

constexpr std::string_view kBufferHeader = "static_kernel_amd_buffer_addressing.hpp";

// The value type of a load/store suffix as the header's vector typedefs name it.
std::optional<std::string> value_type(const std::string& suffix) {
    static const std::map<std::string, std::string> types = {
        {"f32", "float"},   {"v2f32", "float2_t"},  {"v4f32", "float4_t"},   {"f16", "half_t"},
        {"v2f16", "half2_t"}, {"v4f16", "half4_t"}, {"bf16", "ushort"},      {"v2bf16", "ushort2_t"},
        {"v4bf16", "ushort4_t"}};
    const auto it = types.find(suffix);
    if (it == types.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> parameter_names(const std::string& params) {
    std::vector<std::string> names;
    static const std::regex last_word(R"((\w+)\s*$)");
    std::size_t start = 0;
    while (start <= params.size()) {
        const auto comma = params.find(',', start);
        const std::string part = params.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::smatch m;
        if (std::regex_search(part, m, last_word)) names.push_back(m[1]);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return names;
}

}  // namespace

std::optional<std::string> rewrite_legacy_buffer_intrinsics(std::string_view text) {
    // NAME(PARAMS) __asm("llvm.amdgcn.buffer.OP.SUFFIX");
    static const std::regex decl(R"re((__llvm_amdgcn_buffer_\w+)(\s*\()([^)]*)\)\s*__asm\("llvm\.amdgcn\.buffer\.(load|store|atomic\.fadd)\.(\w+)"\)\s*;)re");
    const std::string source(text);
    std::string out, raw_declarations;
    std::size_t pos = 0;
    for (auto it = std::sregex_iterator(source.begin(), source.end(), decl); it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        const std::string name = m[1], params = m[3], op = m[4], suffix = m[5];
        const auto names = parameter_names(params);
        const std::string raw = "kdbgen_raw" + name.substr(std::string_view("__llvm_amdgcn").size());
        const std::string intrinsic = fmt::format("llvm.amdgcn.raw.buffer.{}.{}", op, suffix);
        std::string call;
        if (op == "load") {
            const auto type = value_type(suffix);
            if (!type || names.size() != 5) return std::nullopt;
            raw_declarations += fmt::format(
                "__device__ {} {}(int32x4_t rsrc, index_t voffset, index_t soffset, index_t aux) __asm(\"{}\");\n",
                *type, raw, intrinsic);
            call = fmt::format("{}({}, {}, 0, ({} ? 1 : 0) | ({} ? 2 : 0))", raw, names[0], names[2], names[3], names[4]);
        } else if (op == "store") {
            const auto type = value_type(suffix);
            if (!type || names.size() != 6) return std::nullopt;
            raw_declarations += fmt::format(
                "__device__ void {}({} vdata, int32x4_t rsrc, index_t voffset, index_t soffset, index_t aux) "
                "__asm(\"{}\");\n",
                raw, *type, intrinsic);
            call = fmt::format("{}({}, {}, {}, 0, ({} ? 1 : 0) | ({} ? 2 : 0))", raw, names[0], names[1], names[3],
                               names[4], names[5]);
        } else {  // atomic.fadd: (vdata, rsrc, vindex, offset, slc); the raw form returns the old value
            if (suffix != "f32" || names.size() != 5) return std::nullopt;
            raw_declarations += fmt::format(
                "__device__ float {}(float vdata, int32x4_t rsrc, index_t voffset, index_t soffset, index_t aux) "
                "__asm(\"{}\");\n",
                raw, intrinsic);
            call = fmt::format("{}({}, {}, {}, 0, {} ? 2 : 0)", raw, names[0], names[1], names[3], names[4]);
        }
        out.append(source, pos, static_cast<std::size_t>(m.position(0)) - pos);
        // `inline` among the decl-specifiers: defined in the header, emitted only where used.
        out += "inline " + name + m[2].str() + params + ")\n{\n    return " + call + ";\n}";
        pos = static_cast<std::size_t>(m.position(0) + m.length(0));
    }
    if (raw_declarations.empty()) return std::nullopt;
    out.append(source, pos);
    // The raw declarations go before the first legacy one, after the types they use.
    const std::string anchor = "#pragma clang diagnostic push";
    const auto at = out.find(anchor);
    if (at == std::string::npos) return std::nullopt;
    out.insert(at, "// kdbgen: the raw buffer intrinsics that replaced the legacy ones (src/compile/hip_compat.cpp)\n" +
                       raw_declarations);
    return out;
}

bool has_legacy_buffer_intrinsics(const Toolchain& toolchain) {
    static std::mutex mutex;
    static std::map<fs::path, bool> memo;  // by clang
    std::lock_guard lock(mutex);
    if (const auto it = memo.find(toolchain.clang()); it != memo.end()) return it->second;
    // The answer is kept in the toolchain's work folder under the toolchain's
    // identity, so a warm run neither compiles the probe nor writes to TMPDIR.
    const std::string identity = Sha256().add(toolchain.identity()).hex();
    const fs::path answer = toolchain.work_dir.empty()
                                ? fs::path()
                                : toolchain.work_dir / fmt::format("legacy-buffer-probe-{}", identity.substr(0, 16));
    std::error_code answer_ec;
    if (!answer.empty() && fs::is_regular_file(fs::symlink_status(answer, answer_ec))) {
        try {
            const Bytes stored = read_file(answer);
            if (const auto value = open_cache_entry("legacy-buffer-probe", identity, std::string_view(stored.data(), stored.size())))
                if (*value == "0" || *value == "1") return memo[toolchain.clang()] = *value == "1";
        } catch (const std::exception&) {
        }
    }
    // One legacy load, compiled and linked for gfx900: LLVM 19 leaves it an undefined
    // function, which the link refuses; older LLVMs select a buffer_load.
    std::string folder;
    if (toolchain.work_dir.empty()) {
        try {
            folder = make_scratch_folder("probe").string();
        } catch (const std::exception&) {
        }
    } else {
        folder = (toolchain.work_dir / "kdbgen-probe-XXXXXX").string();
        if (!::mkdtemp(folder.data())) folder.clear();
    }
    bool has = false;
    if (!folder.empty()) {
        const fs::path dir = folder;
        const std::string ir =
            "target triple = \"amdgcn-amd-amdhsa\"\n"
            "declare float @llvm.amdgcn.buffer.load.f32(<4 x i32>, i32, i32, i1, i1)\n"
            "define amdgpu_kernel void @probe(<4 x i32> %r, ptr addrspace(1) %out) {\n"
            "  %v = call float @llvm.amdgcn.buffer.load.f32(<4 x i32> %r, i32 0, i32 0, i1 false, i1 false)\n"
            "  store float %v, ptr addrspace(1) %out\n"
            "  ret void\n"
            "}\n";
        write_file_atomic(dir / "probe.ll", std::span<const char>(ir.data(), ir.size()));
        const auto object = (dir / "probe.o").string();
        has = run_process({toolchain.clang().string(), "-x", "ir", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx900",
                           "-nogpulib", "-c", (dir / "probe.ll").string(), "-o", object})
                      .exit_code == 0 &&
              run_process({toolchain.lld().string(), "-shared", "--no-undefined", object, "-o", (dir / "probe.so").string()})
                      .exit_code == 0;
        std::error_code ec;
        fs::remove_all(dir, ec);
        if (!answer.empty()) {
            try {
                const std::string value = has ? "1" : "0";
                write_file_atomic(answer, seal_cache_entry("legacy-buffer-probe", identity, value));
            } catch (const std::exception&) {
                // Not kept: the next run probes again.
            }
        }
    }
    return memo[toolchain.clang()] = has;
}

std::optional<fs::path> hip_compat_overlay(const fs::path& include_dir, const fs::path& work_dir) {
    static std::mutex mutex;
    static std::map<std::pair<fs::path, fs::path>, std::optional<fs::path>> memo;
    std::lock_guard lock(mutex);
    const auto memo_key = std::make_pair(include_dir, work_dir);
    if (const auto it = memo.find(memo_key); it != memo.end()) return it->second;
    std::optional<fs::path> overlay;
    const auto header = include_dir / kBufferHeader;
    std::error_code ec;
    if (fs::is_regular_file(header, ec)) {
        const Bytes data = read_file(header);
        if (const auto copy = rewrite_legacy_buffer_intrinsics(std::string_view(data.data(), data.size()))) {
            // Named by the folder's content, so a changed tree gets a new overlay.
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(include_dir, ec))
                if (entry.is_regular_file(ec)) files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            Sha256 identity;
            identity.add(kHipCompatVersion);
            std::map<fs::path, Bytes> texts;
            for (const auto& file : files) {
                texts[file] = read_file(file);
                identity.add(file.filename().string()).add(std::string_view(texts[file].data(), texts[file].size()));
            }
            const auto base = work_dir.empty() ? fs::temp_directory_path() / "kdbgen-toolchain" : work_dir;
            const auto dir = base / fmt::format("hip-compat-{}", identity.hex().substr(0, 16));
            // Never written through a link: a linked folder would have its target's files rewritten.
            make_private_folder(dir, "toolchain work folder");
            // Every file is checked against what kdbgen would write (the overlay's
            // name covers the tree it was made from, not the files under it): an
            // edited or replaced one is written again, so the cache key holds.
            for (const auto& [file, bytes] : texts) {
                const auto path = dir / file.filename();
                const std::string_view wanted = file.filename() == kBufferHeader
                                                    ? std::string_view(*copy)
                                                    : std::string_view(bytes.data(), bytes.size());
                bool intact = false;
                if (fs::is_regular_file(fs::symlink_status(path, ec))) {
                    const Bytes present = read_file(path);
                    intact = std::string_view(present.data(), present.size()) == wanted;
                }
                if (!intact) {
                    fs::remove(path, ec);  // a link is replaced, never written through
                    write_file_atomic(path, std::span<const char>(wanted.data(), wanted.size()));
                }
            }
            overlay = dir;
        }
    }
    return memo[memo_key] = overlay;
}

}  // namespace kdbgen
