// Records and outcomes inside the engine (records.cpp): shared by the passes,
// the rounds and the driver check.
#pragma once

#include "beneath.hpp"

#include "kdbgen/engine_records.hpp"
#include "kdbgen/miopen_engine.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace kdbgen::engine {

// Every kernel MIOpen compiled into a client's user kdb (its cache folder, a
// path in the run folder's view/), read without following a link the client
// left there: each .ukdb is copied into kdbgen's private folder first, and
// SQLite opens the copy.
void collect_user_kdb(const Beneath& files, const fs::path& cache, const fs::path& private_dir, const Target& card,
                      const fs::path& library, std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows);

// Keys one problem asked for in one process and not in the other of the same
// kind, whose counterpart there differs only in some defines' values.
void find_unstable(const KernelLookups& first, const KernelLookups& second, const std::string& problem,
                   std::vector<UnstableKey>& unstable);
bool is_unstable(const std::vector<UnstableKey>& unstable, const KdbKey& key);
// Adds found to unstable, joining the examples of a key already there.
void merge_unstable(std::vector<UnstableKey>& unstable, std::vector<UnstableKey> found);

// Problem i's outcome over its processes (or `missing` when none reached it)
// into the report: failed if any process failed it, or a kernel MIOpen started
// to build and did not.
void add_outcome(CardReplay& report, const ProblemSet::Entry& entry, const std::map<std::size_t, ReplayOutcome>& outcomes,
                 const std::map<std::size_t, KernelLookups>& lookups, std::size_t i, const char* missing);
// Where MIOpen threw to its caller, from one of its error lines: "MIOpen Error:
// <file>:<line>: ..." -> "<file>:<line>" (the message after it names temporary
// folders that differ from run to run); nullopt for any other line (its logged
// errors, "MIOpen(HIP): Error [...]", are not failures of the call).
std::optional<std::string> thrown_site(std::string_view line);

// Joins a process's outcome of a problem into what earlier ones said.
void merge_outcome(ReplayOutcome& into, const ReplayOutcome& from, bool first);

}  // namespace kdbgen::engine
