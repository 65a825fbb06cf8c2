// kdbgen: builds MIOpen kernel databases offline, for any list of AMD GPUs.
#include "commands.hpp"
#include "common.hpp"
#include "kdbgen/error.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <map>

#ifndef KDBGEN_VERSION
#define KDBGEN_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
    using namespace kdbgen;
    cli::install_interrupt_handler();  // first: a signal in any phase exits 130
    CLI::App app{"kdbgen: build MIOpen kernel databases (.kdb) offline, with no GPU, for any AMD GPU targets"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("kdbgen ") + KDBGEN_VERSION);
    bool verbose = false;
    app.add_flag("-v,--verbose", verbose, "log what kdbgen does, to standard error");

    std::map<CLI::App*, cli::Action> actions;
    const auto add = [&](cli::Action (*add_command)(CLI::App&)) {
        const auto before = app.get_subcommands({}).size();
        cli::Action action = add_command(app);
        CLI::App* sub = app.get_subcommands({})[before];
        sub->set_version_flag("--version", std::string("kdbgen ") + KDBGEN_VERSION);
        actions[sub] = std::move(action);
    };
    add(cli::add_build_command);
    add(cli::add_plan_command);
    add(cli::add_inspect_command);
    add(cli::add_verify_command);
    add(cli::add_diff_command);
    add(cli::add_merge_command);
    add(cli::add_cache_command);
    add(cli::add_targets_command);
    add(cli::add_solvers_command);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitBadInput;
    }
    // Diagnostics go to standard error: standard output is the result (--json a script parses).
    spdlog::set_default_logger(spdlog::stderr_color_mt("kdbgen"));
    spdlog::set_pattern("kdbgen: %v");
    spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
    try {
        for (const auto& [sub, action] : actions)
            if (sub->parsed()) return action();
    } catch (const Interrupted&) {
        fmt::print(stderr, "kdbgen: interrupted; every old kdb is unchanged\n");
        return kExitInterrupted;
    } catch (const InputError& e) {
        fmt::print(stderr, "kdbgen: error: {}\n", e.what());
        return kExitBadInput;
    } catch (const std::filesystem::filesystem_error& e) {
        // A path kdbgen was given or writes (a link loop, a folder it cannot read): the file is named.
        const auto where = e.path1().empty() ? std::string("a path") : e.path1().string();
        fmt::print(stderr, "kdbgen: error: {}: {}\n", where, e.code().message());
        return kExitBadInput;
    } catch (const std::exception& e) {
        fmt::print(stderr, "kdbgen: error: {}\n", e.what());
        return kExitSomeFailed;
    }
    return kExitBadInput;
}
