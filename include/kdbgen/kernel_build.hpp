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

// One file's path, shared between copies: an architecture's plan holds 10^5 builds of a few
// hundred kernel files, and a copy of an fs::path holds each of its components apart (half a
// kilobyte a build, and a dozen allocations a copy). Reads as the path it holds.
class SharedPath {
public:
    SharedPath() = default;
    SharedPath(fs::path path) : path_(std::make_shared<const fs::path>(std::move(path))) {}
    SharedPath(const std::string& path) : SharedPath(fs::path(path)) {}
    SharedPath(const char* path) : SharedPath(fs::path(path)) {}
    // A path owned by something else that `owner` keeps alive (a MIOpen tree's kernel list).
    SharedPath(std::shared_ptr<const void> owner, const fs::path& path) : path_(std::move(owner), &path) {}

    const fs::path& path() const {
        static const fs::path none;
        return path_ ? *path_ : none;
    }
    operator const fs::path&() const { return path(); }
    std::string string() const { return path().string(); }
    const fs::path::string_type& native() const { return path().native(); }
    fs::path filename() const { return path().filename(); }
    fs::path extension() const { return path().extension(); }
    fs::path parent_path() const { return path().parent_path(); }
    bool empty() const { return path().empty(); }
    friend bool operator==(const SharedPath& a, const SharedPath& b) { return a.path() == b.path(); }

private:
    std::shared_ptr<const fs::path> path_;
};

// One code object to build.
struct KernelBuild {
    SharedPath source;                    // the kernel source file
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
