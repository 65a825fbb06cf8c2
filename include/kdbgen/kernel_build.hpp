// What the plan stage hands the compile stage: one kernel build {source, options,
// target} and the kdb key it is stored under. Its own header (and library,
// kdbgen_model) so that plan depends on the contract, not on the compiler:
// data flows plan -> compile, and plan links no compile code (src/CMakeLists.txt
// checks it).
#pragma once

#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen {

enum class Language { OpenCL, Hip, Assembly };
std::string_view language_name(Language language);
// By extension, as MIOpen's HIPOCProgramImpl dispatches: .cpp HIP, .s
// assembly, anything else OpenCL. Throws InputError for an unknown one.
Language language_of(const fs::path& source);

// Folders many builds share (a whole find-db plans 10^5 builds with the same
// few include folders): one list, shared between copies, copied on write.
class SharedPaths {
public:
    SharedPaths() = default;
    SharedPaths(std::initializer_list<fs::path> paths) : SharedPaths(std::vector<fs::path>(paths)) {}
    explicit SharedPaths(std::vector<fs::path> paths)
        : paths_(std::make_shared<const std::vector<fs::path>>(std::move(paths))) {}
    std::vector<fs::path>::const_iterator begin() const { return list().begin(); }
    std::vector<fs::path>::const_iterator end() const { return list().end(); }
    std::size_t size() const { return list().size(); }
    bool empty() const { return list().empty(); }
    const fs::path& operator[](std::size_t i) const { return list()[i]; }
    void push_back(fs::path path) {
        auto copy = list();
        copy.push_back(std::move(path));
        *this = SharedPaths(std::move(copy));
    }

private:
    const std::vector<fs::path>& list() const {
        static const std::vector<fs::path> none;
        return paths_ ? *paths_ : none;
    }
    std::shared_ptr<const std::vector<fs::path>> paths_;
};

// One code object to build.
struct KernelBuild {
    fs::path source;                      // the kernel source file
    std::string kernel_file;              // name in MIOpen's kernel list, e.g. MIOpenNeuron.cl
    std::string options;                  // the solver's options: the kdb key's args without -mcpu
    Target target;
    std::vector<std::string> kernels;     // symbols the code object must define
    SharedPaths include_dirs;             // searched after the source's own folder

    Language language() const { return language_of(source); }
    std::string kdb_name() const { return kernel_file + ".o"; }
    std::string kdb_args() const { return options + target.mcpu_suffix(); }
    std::string describe() const;  // "MIOpenNeuron.cl for gfx1030 [-DX=1]"
};

}  // namespace kdbgen
