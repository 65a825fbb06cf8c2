// The GPU target model: which processors kdbgen knows, how a target is
// written on the command line, and how MIOpen names its databases.
//
// Naming facts are MIOpen's, from src/target_properties.cpp
// (TargetProperties::Init, InitDbId) and src/include/miopen/handle.hpp
// (Handle::GetDbBasename), identical in rocm-6.2.0 and 3.3.0 (develop
// 2d1fd997, 2024-10-24).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen {

// One AMDGPU processor.
struct ProcessorInfo {
    std::string_view name;          // LLVM processor name, also MIOpen's device name
    bool supports_xnack;
    bool supports_sramecc;
    unsigned default_wave_size;     // 64 on GCN/CDNA, 32 on RDNA (wave64 selectable)
    bool xdlops;                    // MFMA instructions (gfx908, gfx90a, gfx94x)
    std::uint32_t elf_mach;         // EF_AMDGPU_MACH_* LLVM writes in e_flags
};

const std::vector<ProcessorInfo>& processor_table();
const ProcessorInfo* find_processor(std::string_view name);
std::string known_processor_names();  // comma-separated, for error messages

// A target feature as the user states it: on (+), off (-), or not stated.
enum class FeatureState { Unset, On, Off };

// A GPU as MIOpen sees it: processor, reported features, compute units.
// Written `gfx<arch>[:feature±...]_<CUs>`, e.g. gfx90a:sramecc+:xnack-_110,
// or without _<CUs> for every card of the architecture (`gfx1030`): the
// arch-wide kdb, named by DbId alone as AMD ships them (gfx1030.kdb).
struct Target {
    const ProcessorInfo* processor = nullptr;
    FeatureState xnack = FeatureState::Unset;
    FeatureState sramecc = FeatureState::Unset;  // as the device reports it
    unsigned compute_units = 0;                   // as MIOpen counts them (WGPs on gfx10+); 0: arch-wide

    bool arch_wide() const { return compute_units == 0; }

    std::string_view name() const { return processor->name; }
    // The spelling this target was parsed from (round-trips through parse_target).
    std::string spec() const;
    // Target ID as the ROCm runtime reports it (gfx90a:sramecc+:xnack-).
    std::string reported_target_id() const;

    // MIOpen's TargetProperties::Sramecc(): a computed default, not the
    // reported state (on for gfx906/gfx908, unset elsewhere).
    std::optional<bool> miopen_sramecc() const;
    // TargetProperties::SrameccReported(): what comgr is told.
    std::optional<bool> miopen_sramecc_reported() const;
    std::optional<bool> miopen_xnack() const;

    std::string db_id() const;        // InitDbId(): gfx90a_xnack
    std::string db_basename() const;  // GetDbBasename(): gfx1030_36, gfx90a6e; DbId alone when arch-wide
    std::string kdb_filename() const { return db_basename() + ".kdb"; }
    std::string fallback_kdb_filename() const { return db_id() + ".kdb"; }
    // What Handle::LoadProgram appends to every kernel's options.
    std::string mcpu_suffix() const { return " -mcpu=" + std::string(name()); }

    // xnack as the compilers see it: as reported, or off where the processor
    // has the feature but the target does not say (ROCm's default on dGPUs).
    std::optional<bool> compile_xnack() const;
    // Target IDs for the compiler, as MIOpen's build paths form them.
    std::string ocl_target_id() const;   // comgr BuildOcl: device + xnack
    std::string asm_target_id() const;   // comgr BuildAsm: device + sramecc_reported + xnack
    std::string hip_target_id() const;   // hiprtc: the runtime's reported target ID

    unsigned isa_version() const;  // 9010 for gfx90a, 11000 for gfx1100
};

// Throws InputError that lists the valid processors for an unknown one.
Target parse_target(std::string_view spec);
std::vector<Target> parse_target_list(std::string_view comma_separated);
// configs/targets/*.txt: one target per line, '#' comments. Errors name file:line.
std::vector<Target> read_target_file(const std::string& path);

}  // namespace kdbgen
