#include "kdbgen/target.hpp"

#include "kdbgen/error.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace kdbgen {

namespace {

// e_flags machine numbers: llvm/include/llvm/BinaryFormat/ELF.h (EF_AMDGPU_MACH_AMDGCN_*),
// checked against LLVM 19's output by tests/unit/compile_test.cpp.
const std::vector<ProcessorInfo> kProcessors = {
    // name     xnack  sramecc wave xdlops mach
    {"gfx803",  false, false, 64, false, 0x02a},
    {"gfx900",  true,  false, 64, false, 0x02c},
    {"gfx906",  true,  true,  64, false, 0x02f},
    {"gfx908",  true,  true,  64, true,  0x030},
    {"gfx90a",  true,  true,  64, true,  0x03f},
    {"gfx940",  true,  true,  64, true,  0x040},
    {"gfx941",  true,  true,  64, true,  0x04b},
    {"gfx942",  true,  true,  64, true,  0x04c},
    {"gfx1010", true,  false, 32, false, 0x033},
    {"gfx1011", true,  false, 32, false, 0x034},
    {"gfx1012", true,  false, 32, false, 0x035},
    {"gfx1030", false, false, 32, false, 0x036},
    {"gfx1031", false, false, 32, false, 0x037},
    {"gfx1032", false, false, 32, false, 0x038},
    {"gfx1034", false, false, 32, false, 0x03e},
    {"gfx1035", false, false, 32, false, 0x03d},
    {"gfx1036", false, false, 32, false, 0x045},
    {"gfx1100", false, false, 32, false, 0x041},
    {"gfx1101", false, false, 32, false, 0x046},
    {"gfx1102", false, false, 32, false, 0x047},
    {"gfx1103", false, false, 32, false, 0x044},
    {"gfx1150", false, false, 32, false, 0x043},
    {"gfx1151", false, false, 32, false, 0x04a},
    {"gfx1200", false, false, 32, false, 0x048},
    {"gfx1201", false, false, 32, false, 0x04e},
};

// MIOpen's GetDeviceNameFromMap (src/target_properties.cpp) folds these
// marketing and legacy names onto the processors above.
const std::vector<std::pair<std::string_view, std::string_view>> kDeviceAliases = {
    {"Ellesmere", "gfx803"}, {"Baffin", "gfx803"}, {"RacerX", "gfx803"},
    {"Polaris10", "gfx803"}, {"Polaris11", "gfx803"}, {"Tonga", "gfx803"},
    {"Fiji", "gfx803"},      {"gfx800", "gfx803"},   {"gfx802", "gfx803"},
    {"gfx804", "gfx803"},    {"Vega10", "gfx900"},   {"gfx901", "gfx900"},
};

std::optional<bool> as_optional(FeatureState state) {
    if (state == FeatureState::On) return true;
    if (state == FeatureState::Off) return false;
    return std::nullopt;
}

std::string feature_suffix(std::string_view feature, std::optional<bool> state) {
    if (!state) return {};
    return fmt::format(":{}{}", feature, *state ? '+' : '-');
}

unsigned hex_digit(char c) {
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
    return static_cast<unsigned>(c - 'a' + 10);
}

}  // namespace

const std::vector<ProcessorInfo>& processor_table() { return kProcessors; }

const ProcessorInfo* find_processor(std::string_view name) {
    for (const auto& [alias, canonical] : kDeviceAliases)
        if (alias == name) name = canonical;
    const auto it = std::find_if(kProcessors.begin(), kProcessors.end(),
                                 [&](const ProcessorInfo& p) { return p.name == name; });
    return it == kProcessors.end() ? nullptr : &*it;
}

std::string known_processor_names() {
    std::vector<std::string> names;
    for (const auto& p : kProcessors) names.emplace_back(p.name);
    return join(names, ", ");
}

std::string Target::spec() const {
    const std::string id = fmt::format("{}{}{}", name(), feature_suffix("sramecc", as_optional(sramecc)),
                                       feature_suffix("xnack", as_optional(xnack)));
    return arch_wide() ? id : fmt::format("{}_{}", id, compute_units);
}

std::string Target::reported_target_id() const {
    return std::string(name()) + feature_suffix("sramecc", as_optional(sramecc)) +
           feature_suffix("xnack", as_optional(xnack));
}

std::optional<bool> Target::miopen_sramecc() const {
    if (name() == "gfx906" || name() == "gfx908") return true;
    return std::nullopt;
}

std::optional<bool> Target::miopen_sramecc_reported() const {
    // WORKAROUND_ISSUE_1204: ROCm may report "sramecc-" on gfx900; MIOpen ignores it.
    if (name() == "gfx900") return std::nullopt;
    if (sramecc != FeatureState::Unset) return as_optional(sramecc);
    return miopen_sramecc();
}

std::optional<bool> Target::miopen_xnack() const { return as_optional(xnack); }

std::string Target::db_id() const {
    std::string id(name());
    const auto ecc = miopen_sramecc();
    if (name() == "gfx906" || name() == "gfx908") {
        // Legacy gfx906/908 databases carry no suffix for the default (SRAMECC on).
        if (!ecc || !*ecc) id += "_nosramecc";
    } else if (ecc && *ecc) {
        id += "_sramecc";
    }
    if (const auto x = miopen_xnack(); x && *x) id += "_xnack";
    return id;
}

std::string Target::db_basename() const {
    // The arch-wide kdb is the fallback Handle::GetDbBasename's callers try
    // second (src/binary_cache.cpp:128-140, MIOpen 3.3.0): DbId alone.
    if (arch_wide()) return db_id();
    if (compute_units <= 64) return fmt::format("{}_{}", db_id(), compute_units);
    return fmt::format("{}{:x}", db_id(), compute_units);
}

std::optional<bool> Target::compile_xnack() const {
    if (const auto x = miopen_xnack()) return x;
    // ROCm reports xnack- on every discrete GPU unless HSA_XNACK=1, and
    // MIOpen's assembly kernels insist on a definite xnack setting.
    if (processor->supports_xnack) return false;
    return std::nullopt;
}

std::string Target::ocl_target_id() const {
    return std::string(name()) + feature_suffix("xnack", compile_xnack());
}

std::string Target::asm_target_id() const {
    return std::string(name()) + feature_suffix("sramecc", miopen_sramecc_reported()) +
           feature_suffix("xnack", compile_xnack());
}

std::string Target::hip_target_id() const {
    return std::string(name()) + feature_suffix("sramecc", as_optional(sramecc)) +
           feature_suffix("xnack", compile_xnack());
}

unsigned Target::isa_version() const {
    // gfx<major><minor><stepping>, the last two one hex digit each.
    const std::string_view digits = name().substr(3);
    const unsigned major = static_cast<unsigned>(std::stoul(std::string(digits.substr(0, digits.size() - 2))));
    return major * 1000 + hex_digit(digits[digits.size() - 2]) * 100 + hex_digit(digits.back());
}

Target parse_target(std::string_view spec) {
    const std::string text(trim(spec));
    const auto bad = [&](const std::string& why) {
        return InputError(fmt::format(
            "invalid target '{}': {}; write gfx<arch>[:feature+|-...][_<CUs>], e.g. gfx1030 (every gfx1030 card), "
            "gfx1030_36 or gfx90a:sramecc+:xnack-_110; known processors: {}",
            text, why, known_processor_names()));
    };
    // Without _<CUs> the target is the whole architecture (the arch-wide kdb).
    const auto underscore = text.rfind('_');
    Target target;
    std::string_view id = text;
    if (underscore != std::string::npos) {
        const auto cus = parse_int(std::string_view(text).substr(underscore + 1));
        if (!cus || *cus <= 0 || *cus > 4096) throw bad("compute units must be a number from 1 to 4096");
        target.compute_units = static_cast<unsigned>(*cus);
        id = std::string_view(text).substr(0, underscore);
    }
    const auto parts = split(id, ':');
    target.processor = find_processor(parts[0]);
    if (!target.processor) throw bad(fmt::format("unknown processor '{}'", parts[0]));
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string& feature = parts[i];
        if (feature.size() < 2 || (feature.back() != '+' && feature.back() != '-'))
            throw bad(fmt::format("feature '{}' must end in + or -", feature));
        const std::string base = feature.substr(0, feature.size() - 1);
        const FeatureState state = feature.back() == '+' ? FeatureState::On : FeatureState::Off;
        // A feature given twice (xnack+:xnack-) names no single card: refused, not "last wins".
        const auto once = [&](FeatureState current) {
            if (current != FeatureState::Unset)
                throw bad(fmt::format("feature '{}' is given more than once", base));
        };
        if (base == "xnack") once(target.xnack);
        else if (base == "sramecc") once(target.sramecc);
        if (base == "xnack") {
            if (!target.processor->supports_xnack)
                throw bad(fmt::format("{} does not support xnack", target.name()));
            target.xnack = state;
        } else if (base == "sramecc") {
            if (!target.processor->supports_sramecc)
                throw bad(fmt::format("{} does not support sramecc", target.name()));
            target.sramecc = state;
        } else {
            throw bad(fmt::format("unknown feature '{}' (known: xnack, sramecc)", base));
        }
    }
    return target;
}

std::vector<Target> parse_target_list(std::string_view comma_separated) {
    std::vector<Target> targets;
    const auto items = split(comma_separated, ',');
    for (std::size_t i = 0; i < items.size(); ++i) {
        // "gfx906,,gfx1030" or a trailing comma: a target was meant there, so say so.
        if (trim(items[i]).empty())
            throw InputError(fmt::format("targets '{}': item {} is empty", comma_separated, i + 1));
        targets.push_back(parse_target(items[i]));
    }
    if (targets.empty()) throw InputError("no targets given");
    return targets;
}

std::vector<Target> read_target_file(const std::string& path) {
    std::istringstream in(read_text_file(path));
    std::vector<Target> targets;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const auto hash = line.find('#');
        const auto text = trim(std::string_view(line).substr(0, hash));
        if (text.empty()) continue;
        try {
            targets.push_back(parse_target(text));
        } catch (const InputError& e) {
            throw InputError(located(path, number, e.what()));
        }
    }
    if (targets.empty()) throw InputError(located(path, 0, "no targets in file"));
    return targets;
}

}  // namespace kdbgen
