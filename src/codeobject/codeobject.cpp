#include "kdbgen/codeobject.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <stdexcept>

namespace kdbgen {

namespace {

constexpr std::uint32_t kXnackMask = 0x300, kXnackAny = 0x100, kXnackOff = 0x200, kXnackOn = 0x300;
constexpr std::uint32_t kSrameccMask = 0xc00, kSrameccAny = 0x400, kSrameccOff = 0x800,
                        kSrameccOn = 0xc00;
constexpr std::uint32_t kNoteAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA

template <typename T>
T read_at(std::span<const char> data, std::uint64_t offset) {
    if (offset > data.size() || data.size() - offset < sizeof(T))
        throw std::runtime_error(fmt::format("ELF truncated at offset {}", offset));
    T value;
    std::memcpy(&value, data.data() + offset, sizeof(T));
    return value;
}

FeatureState feature_from(std::uint32_t flags, std::uint32_t mask, std::uint32_t on,
                          std::uint32_t off) {
    const auto field = flags & mask;
    if (field == on) return FeatureState::On;
    if (field == off) return FeatureState::Off;
    return FeatureState::Unset;
}

bool notes_have_metadata(std::span<const char> data, std::uint64_t offset, std::uint64_t size) {
    std::uint64_t pos = offset;
    const std::uint64_t end = offset + size;
    while (pos + 12 <= end) {
        const auto namesz = read_at<std::uint32_t>(data, pos);
        const auto descsz = read_at<std::uint32_t>(data, pos + 4);
        const auto type = read_at<std::uint32_t>(data, pos + 8);
        const std::uint64_t name_at = pos + 12;
        if (name_at + namesz > data.size()) return false;
        const std::string name(data.data() + name_at, namesz ? namesz - 1 : 0);
        if (type == kNoteAmdgpuMetadata && name == "AMDGPU") return true;
        pos = name_at + ((namesz + 3u) & ~3u) + ((descsz + 3u) & ~3u);
    }
    return false;
}

// Clang's offload bundle (clang/docs/ClangOffloadBundler.rst): the magic, an
// entry count, then per entry offset, size, ID length and ID, all 64-bit
// little-endian. MIOpen 3.4 compiling HIP with clang offline (Debian's build)
// loads and stores the bundle as clang wrote it; the code object is the
// amdgcn entry.
constexpr std::string_view kOffloadBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

std::span<const char> bundled_code_object(std::span<const char> data) {
    std::uint64_t pos = kOffloadBundleMagic.size();
    const auto entries = read_at<std::uint64_t>(data, pos);
    pos += 8;
    for (std::uint64_t i = 0; i < entries && i < 1024; ++i) {
        const auto offset = read_at<std::uint64_t>(data, pos);
        const auto size = read_at<std::uint64_t>(data, pos + 8);
        const auto id_size = read_at<std::uint64_t>(data, pos + 16);
        pos += 24;
        if (id_size > data.size() || pos > data.size() - id_size)
            throw std::runtime_error("offload bundle truncated in an entry ID");
        const std::string_view id(data.data() + pos, id_size);
        pos += id_size;
        if (id.find("amdgcn-amd-amdhsa") == std::string_view::npos) continue;
        if (offset > data.size() || size > data.size() - offset)
            throw std::runtime_error("offload bundle entry " + std::string(id) + " lies past the end");
        return data.subspan(offset, size);
    }
    throw std::runtime_error("offload bundle without an amdgcn code object");
}

}  // namespace

FeatureState CodeObjectInfo::xnack() const {
    return feature_from(flags, kXnackMask, kXnackOn, kXnackOff);
}
FeatureState CodeObjectInfo::sramecc() const {
    return feature_from(flags, kSrameccMask, kSrameccOn, kSrameccOff);
}

CodeObjectInfo read_code_object(std::span<const char> data) {
    if (data.size() >= kOffloadBundleMagic.size() &&
        std::string_view(data.data(), kOffloadBundleMagic.size()) == kOffloadBundleMagic)
        return read_code_object(bundled_code_object(data));
    if (data.size() < sizeof(Elf64_Ehdr) || std::memcmp(data.data(), ELFMAG, SELFMAG) != 0)
        throw std::runtime_error("not an ELF file");
    const auto header = read_at<Elf64_Ehdr>(data, 0);
    if (header.e_ident[EI_CLASS] != ELFCLASS64) throw std::runtime_error("not a 64-bit ELF file");
    CodeObjectInfo info;
    info.machine = header.e_machine;
    info.flags = header.e_flags;
    info.abi_version = header.e_ident[EI_ABIVERSION];

    std::vector<Elf64_Shdr> sections;
    for (unsigned i = 0; i < header.e_shnum; ++i)
        sections.push_back(read_at<Elf64_Shdr>(data, header.e_shoff + std::uint64_t(i) * header.e_shentsize));

    for (unsigned i = 0; i < header.e_phnum; ++i) {
        const auto phdr = read_at<Elf64_Phdr>(data, header.e_phoff + std::uint64_t(i) * header.e_phentsize);
        if (phdr.p_type == PT_NOTE && notes_have_metadata(data, phdr.p_offset, phdr.p_filesz))
            info.has_metadata_note = true;
    }
    for (const auto& section : sections)
        if (section.sh_type == SHT_NOTE && notes_have_metadata(data, section.sh_offset, section.sh_size))
            info.has_metadata_note = true;

    std::vector<std::string> descriptors;
    for (const auto& section : sections) {
        if (section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM) continue;
        if (section.sh_link >= sections.size() || section.sh_entsize == 0) continue;
        const auto& strtab = sections[section.sh_link];
        for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= section.sh_size; off += section.sh_entsize) {
            const auto sym = read_at<Elf64_Sym>(data, section.sh_offset + off);
            if (sym.st_name >= strtab.sh_size) continue;
            const char* begin = data.data() + strtab.sh_offset + sym.st_name;
            const auto max = strtab.sh_size - sym.st_name;
            const std::string name(begin, strnlen(begin, max));
            if (name.empty()) continue;
            if (name.size() > 3 && name.ends_with(".kd")) descriptors.push_back(name.substr(0, name.size() - 3));
        }
    }
    std::sort(descriptors.begin(), descriptors.end());
    descriptors.erase(std::unique(descriptors.begin(), descriptors.end()), descriptors.end());
    info.kernels = descriptors;
    return info;
}

std::vector<std::string> check_code_object(std::span<const char> elf, const Target& target,
                                           const std::vector<std::string>& expected_kernels) {
    std::vector<std::string> faults;
    CodeObjectInfo info;
    try {
        info = read_code_object(elf);
    } catch (const std::exception& e) {
        return {e.what()};
    }
    if (info.machine != kElfMachineAmdgpu)
        faults.push_back(fmt::format("e_machine is {}, not EM_AMDGPU ({})", info.machine, kElfMachineAmdgpu));
    if (info.mach() != target.processor->elf_mach)
        faults.push_back(fmt::format("e_flags machine is 0x{:03x}, {} is 0x{:03x}", info.mach(),
                                     target.name(), target.processor->elf_mach));
    if (!info.has_metadata_note) faults.push_back("no AMDGPU metadata note");
    if (info.kernels.empty()) faults.push_back("no kernel descriptors (.kd symbols)");
    for (const auto& kernel : expected_kernels) {
        if (std::binary_search(info.kernels.begin(), info.kernels.end(), kernel)) continue;
        constexpr std::size_t kShown = 6;
        const std::vector<std::string> shown(info.kernels.begin(),
                                             info.kernels.begin() + static_cast<long>(std::min(kShown, info.kernels.size())));
        faults.push_back(fmt::format("kernel '{}' missing (has {}: {}{})", kernel, info.kernels.size(),
                                     fmt::join(shown, ", "), info.kernels.size() > kShown ? ", ..." : ""));
    }
    return faults;
}

}  // namespace kdbgen
