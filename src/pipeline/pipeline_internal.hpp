// What the pipeline's two build paths (build.cpp: kdbgen's planner;
// engine_build.cpp: an installed MIOpen) share and no caller needs.
#pragma once

#include "kdbgen/corpus.hpp"
#include "kdbgen/pipeline.hpp"

namespace kdbgen {

// Whether the built-in corpus is planned: on when no problem source is given
// (a packager's `--targets gfx1100` alone), unless the request says.
bool corpus_enabled(const PlanRequest& request, const ProblemSources& sources);
// What the problem sources left out (ProblemSet::left_out), a line each on standard error.
void print_left_out(const ProblemSet& problems);
// The corpus over the find-dbs of find_db_dir (the MIOpen tree's, or the
// installed MIOpen's system db) and the zoo as the request expands it.
CorpusOptions corpus_options_for(const PlanRequest& request, const ProblemSources& sources, const fs::path& find_db_dir,
                                 const fs::path& decoded_find_db_dir);

// build() with request.engine == Engine::Miopen.
BuildReport build_with_engine(const BuildRequest& request);

}  // namespace kdbgen
