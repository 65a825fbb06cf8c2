// Pieces every kdbgen subcommand shares: toolchain and cache options,
// output helpers, the interrupt flag.
#pragma once

#include "kdbgen/cache.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/target.hpp"

#include <algorithm>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

namespace kdbgen::cli {

extern std::atomic<bool> g_interrupted;
// SIGINT, SIGTERM, SIGHUP: exit 130 in every phase, temporaries removed.
void install_interrupt_handler();
// For its scope a signal only raises g_interrupted: the compile phase polls
// it, stops its children and returns, and the command exits 130 after its
// temporaries are removed. Outside such a scope a signal exits at once.
class CooperativeInterrupts {
public:
    CooperativeInterrupts();
    ~CooperativeInterrupts();
    CooperativeInterrupts(const CooperativeInterrupts&) = delete;
    CooperativeInterrupts& operator=(const CooperativeInterrupts&) = delete;
};

struct ToolchainFlags {
    std::string llvm_root, device_libs;
    unsigned code_object_version = 5;
    std::string in_process = "auto";
    void add_to(CLI::App& app);
    Toolchain discover(const fs::path& work_dir) const;
    InProcess in_process_mode() const;
};

struct CacheFlags {
    std::string dir;
    bool disabled = false;
    std::string max_size = "5G";
    void add_to(CLI::App& app);
    std::unique_ptr<BuildCache> open() const;  // nullptr with --no-cache
};

struct TargetFlags {
    std::string list, file;
    bool list_given = false, file_given = false;  // given even if empty: --targets '' is an error, not "none"
    void add_to(CLI::App& app);
    std::vector<Target> resolve() const;  // InputError when none given or two share a kdb name
};

std::uint64_t parse_size(const std::string& text);  // 500M, 5G, 1024
void print_json(const nlohmann::json& value);
// One line of JSON (invalid UTF-8 replaced), for output written piece by piece.
std::string json_text(const nlohmann::json& value);
nlohmann::json target_json(const Target& target);

}  // namespace kdbgen::cli
