// Options inside MIOpen's no-record path that take one of a small, fixed set of values,
// whatever the problem (issue #26, item 3): where the corpus plans one member of such a
// family, the kdb gets all of them, so a problem the corpus never met still finds its key.
//
// SetTensor and CastTensor over a packed tensor (MIOpen 3.3.0, src/ocl/tensorocl.cpp):
// the tensor is flattened to one dimension (:44-48), get_worker_sizes rounds its length up
// to a power of two and, above 65536, divides it back to exactly 65536 (:1470-1495), and
// -DWORK_LENGTH_0 is that size (:1498-1560, CastTensor :2029-2125): 2^0 ... 2^16, 17 values
// for each data-type block. kdbgen forms them in src/plan/solver_registry.cpp.
//
// Not families: MIOpenIm2d2Col.cl's -DLOCAL_MEM_SIZE takes any of 16384 values (and, for
// filters whose window does not fit 64 KiB, any channel count too), so the corpus covers
// what networks use and docs/solvers.md reports the share a random problem finds.
#include "kdbgen/plan.hpp"
#include "kdbgen/solver.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace kdbgen {

namespace {

// Kernels whose options are the data-type block of one tensor type (GetDataTypeKernelParams,
// src/include/miopen/datatype.hpp:136-187) and nothing the problem's sizes decide: the GEMM
// solvers' helpers (src/ocl/utilocl.cpp: Im3d2Col :364, Col2Im2d :470-479, Col2Im3d :580-587,
// the transposes of MIOpenUtilKernels4.cl :760-1203), SetTensor (src/ocl/tensorocl.cpp:1498-1560),
// im2col's block after its geometry options, and the naive convolutions, which take the
// general options (once or twice, conv_direct_naive_conv.cpp:240-270). Which types a kernel
// meets is the problem's: every one a GEMM or naive convolution takes.
struct TypeFamily {
    std::string_view kernel_file;
    std::vector<DataType> types;
};

const std::vector<TypeFamily>& type_families() {
    using enum DataType;
    static const std::vector<TypeFamily> all = {
        {"MIOpenSubTensorOpWithScalarKernel.cl", {Float, Half, BFloat16}},
        {"MIOpenUtilKernels4.cl", {Float, Half, BFloat16, Int8, Int32}},
        {"MIOpenIm2d2Col.cl", {Float, Half, BFloat16, Int8}},
        {"MIOpenIm3d2Col.cl", {Float, Half, BFloat16, Int8}},
        {"MIOpenCol2Im2d.cl", {Float, Half, BFloat16}},
        {"MIOpenCol2Im3d.cl", {Float, Half, BFloat16}},
        {"naive_conv.cpp", {Float, Half, BFloat16, Int8}},
    };
    return all;
}

// An option that takes each of a fixed list of values whatever the problem.
struct ValueFamily {
    std::string_view kernel_file;
    std::string_view option;  // " -DNAME=" as the options spell it
    std::vector<long> values;
    std::string_view why;
};

const std::vector<ValueFamily>& value_families() {
    static const std::vector<ValueFamily> all = [] {
        std::vector<long> powers;
        for (long v = 1; v <= 65536; v *= 2) powers.push_back(v);
        const std::string_view why = "WORK_LENGTH_0 is a power of two up to 65536 (src/ocl/tensorocl.cpp:1470-1560, MIOpen 3.3.0)";
        return std::vector<ValueFamily>{
            {"MIOpenSubTensorOpWithScalarKernel.cl", " -DWORK_LENGTH_0=", powers, why},
            {"MIOpenSubTensorOpWithCastTensorKernel.cl", " -DWORK_LENGTH_0=", powers, why},
        };
    }();
    return all;
}

// The options with the family's value cut out (a \x1f in its place), and the value.
std::optional<std::pair<std::string, long>> split_value(const std::string& options, std::string_view option) {
    const auto at = options.find(option);
    if (at == std::string::npos) return std::nullopt;
    const auto start = at + option.size();
    auto end = options.find(' ', start);
    if (end == std::string::npos) end = options.size();
    const auto value = parse_int(std::string_view(options).substr(start, end - start));
    if (!value) return std::nullopt;
    return std::pair{options.substr(0, start) + "\x1f" + options.substr(end), *value};
}

// The options with every copy of the type's block replaced by a \x1f; nullopt without one.
std::optional<std::string> cut_type_block(const std::string& options, const std::string& block) {
    if (options.find(block) == std::string::npos) return std::nullopt;
    std::string out = options;
    for (auto at = out.find(block); at != std::string::npos; at = out.find(block, at + 1)) out.replace(at, block.size(), "\x1f");
    return out;
}

void fill(std::string& pattern, const std::string& value) {
    for (auto at = pattern.find('\x1f'); at != std::string::npos; at = pattern.find('\x1f', at + value.size()))
        pattern.replace(at, 1, value);
}

// Adds, for every (target, pattern) the plan holds some members of, the members `all`
// names that it lacks, copied from the first member found.
using Patterns = std::map<std::pair<std::string, std::string>, std::pair<std::set<std::string>, std::size_t>>;
std::size_t add_missing(Plan& plan, const Patterns& planned, const std::vector<std::string>& all, const std::string& origin) {
    std::size_t added = 0;
    for (const auto& [key, found] : planned) {
        const auto& [values, member] = found;
        for (const auto& value : all) {
            if (values.count(value)) continue;
            PlannedBuild sibling = plan.builds[member];
            std::string options = key.second;
            fill(options, value);
            sibling.build.options = std::move(options);
            sibling.compute_units.clear();  // a family's options do not depend on the card
            sibling.origin = origin;
            plan.builds.push_back(std::move(sibling));
            ++added;
        }
    }
    return added;
}

}  // namespace

std::size_t complete_key_families(Plan& plan) {
    std::size_t added = 0;
    for (const auto& family : type_families()) {
        std::vector<std::string> blocks;
        for (const auto type : family.types) blocks.push_back(data_type_defines(type));
        Patterns planned;
        for (std::size_t i = 0; i < plan.builds.size(); ++i) {
            const auto& build = plan.builds[i].build;
            if (build.kernel_file != family.kernel_file) continue;
            for (const auto& block : blocks)
                if (const auto pattern = cut_type_block(build.options, block)) {
                    auto& [values, member] = planned[{build.target.spec(), *pattern}];
                    if (values.empty()) member = i;
                    values.insert(block);
                    break;
                }
        }
        added += add_missing(plan, planned, blocks,
                             fmt::format("{}: every data type its solvers take (src/plan/key_families.cpp)", family.kernel_file));
    }
    for (const auto& family : value_families()) {
        std::vector<std::string> all;
        for (const long v : family.values) all.push_back(std::to_string(v));
        Patterns planned;
        for (std::size_t i = 0; i < plan.builds.size(); ++i) {
            const auto& build = plan.builds[i].build;
            if (build.kernel_file != family.kernel_file) continue;
            const auto split = split_value(build.options, family.option);
            if (!split) continue;
            auto& [values, member] = planned[{build.target.spec(), split->first}];
            if (values.empty()) member = i;
            values.insert(std::to_string(split->second));
        }
        added += add_missing(plan, planned, all, fmt::format("{}{}: every value ({})", family.kernel_file,
                                                             family.option.substr(1), family.why));
    }
    if (added) deduplicate(plan);
    return added;
}

}  // namespace kdbgen
