// build --engine miopen: the installed libMIOpen compiles, kdbgen writes the kdbs.
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/pipeline.hpp"
#include "kdbgen/target.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kdbgen::cli {

struct EngineFlags {
    std::string engine = "native";
    std::string library = "/usr/lib/x86_64-linux-gnu/libMIOpen.so.1";
    std::string root = "/";
    std::string check_kdbs;  // a folder of kdbs to check instead of building
    std::string check_client = "auto";
    std::string miopen_db;   // MIOpen's system db folder, when not the installed one
    std::string helper_dir;
    unsigned rounds = 4;
    std::uint64_t first_problems = 0;
    // A week: past it a deadline in poll's milliseconds would overflow; no MIOpen problem needs it.
    static constexpr unsigned kMaxTimeout = 7 * 24 * 3600;
    // More problems than any corpus holds (Debian's 3.5.1: 280,437); the value is refused past it.
    static constexpr std::uint64_t kMaxFirstProblems = 1'000'000'000;
    CLI::Option* miopen_db_option = nullptr;
    unsigned problem_timeout = kDefaultProblemTimeout, compile_timeout = kDefaultCompileTimeout;
    void add_to(CLI::App& app);
    EngineRequest request() const;
};

// build --engine miopen through the pipeline's build(): prints each card as it
// ends and the report (text, or JSON with json).
int run_engine_build(BuildRequest request, bool json, bool quiet);

// plan --engine miopen: the cards each target is replayed on and the replay
// line of every problem (or why it cannot be replayed); runs no MIOpen.
int run_engine_plan(const EngineFlags& flags, const std::vector<Target>& targets, const ProblemSet& problems,
                    bool json);

}  // namespace kdbgen::cli
