// Reads just enough of an AMDGPU ELF code object to check what it is:
// machine, e_flags (processor and features), kernels with descriptors, and
// the AMDGPU metadata note. Used after every compile and by `kdbgen verify`.
#pragma once

#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

constexpr std::uint16_t kElfMachineAmdgpu = 224;  // EM_AMDGPU

struct CodeObjectInfo {
    std::uint16_t machine = 0;
    std::uint32_t flags = 0;
    std::uint8_t abi_version = 0;        // e_ident[EI_ABIVERSION]: 2=v4, 3=v5, 4=v6
    std::vector<std::string> kernels;    // symbols that have a `<name>.kd` descriptor
    bool has_metadata_note = false;      // NT_AMDGPU_METADATA from owner "AMDGPU"

    std::uint32_t mach() const { return flags & 0xffu; }
    // e_flags feature fields (code object v4+): Unset = "any", Unsupported reported as nullopt.
    FeatureState xnack() const;
    FeatureState sramecc() const;
    unsigned code_object_version() const { return abi_version + 2u; }
};

// Throws std::runtime_error describing what is wrong with the bytes.
CodeObjectInfo read_code_object(std::span<const char> elf);

// Checks a code object against a target and, where given, the kernels it must
// define. Returns one line per fault; empty means good.
std::vector<std::string> check_code_object(std::span<const char> elf, const Target& target,
                                           const std::vector<std::string>& expected_kernels = {});

}  // namespace kdbgen
