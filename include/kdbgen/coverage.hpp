// What a plan serves, per kdb: the reports `kdbgen plan` prints and writes as JSON.
#pragma once

#include "kdbgen/plan.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace kdbgen {

// Per kdb, what a packager asks of it, counted in problems: the find-db lines of its cards
// (served: the winner's kernels, and those of items tied with it, are all in `builds`;
// no_kdb_kernel: rocBLAS or composable kernels, nothing for a kdb), the convolutions served
// through MIOpen's no-record path and the other primitives, each by where the problem came
// from ("given", "find_db", "corpus_find_db", "corpus_zoo"); and what is not covered, why.
std::map<std::string, nlohmann::json> served_summary(const Plan& plan);

// Per kdb: (problem, solver) entries by status and by solver, the find-db lines by what became
// of their winner, the shares a user feels (lines whose winner's kernels are all in the kdb,
// entries likewise; what MIOpen never asks for counted apart), unreadable tree lines, the
// served_summary, and kernels by problem kind and by CU count.
nlohmann::json coverage_json(const Plan& plan);

}  // namespace kdbgen
