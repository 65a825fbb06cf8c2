// Error types shared by every stage. The exit code a CLI command returns is
// decided by which of these escapes: bad input is the user's to fix (2), a
// failed kernel is the toolchain's (1).
#pragma once

#include <stdexcept>
#include <string>

namespace kdbgen {

enum ExitCode : int {
    kExitOk = 0,
    kExitSomeFailed = 1,  // some kernels failed to build, or verify found faults
    kExitBadInput = 2,    // bad usage, unreadable or malformed input
    kExitInterrupted = 130,
};

// Malformed or impossible input. The message names the file, line and value.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An interrupt (SIGINT, SIGTERM) seen between steps: the command stops, and
// exits 130 with every old output as it was.
class Interrupted : public std::runtime_error {
public:
    Interrupted() : std::runtime_error("interrupted") {}
};

// Builds `file:line: message` (line 0 means "the file as a whole").
std::string located(const std::string& file, std::size_t line, const std::string& message);

}  // namespace kdbgen
