// The installed MIOpen the engine runs, resolved once (src/engine/installation.cpp).
//
// Everything kdbgen learns about the MIOpen it runs is worked out here, before
// any client starts: the root, the library inside it, the compilers the library
// starts and kdbgen's wrapper for each, MIOpen's system db (the installed one or
// --miopen-db), MIOpenDriver where installed, kdbgen's own helpers, and the
// cache identity. Every later stage (client, passes, rounds, records, check,
// cache) reads this value and asks the file system nothing more about the
// installation.
#pragma once

#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// kdbgen's wrapper for a compiler the library starts.
struct CompilerWrapper {
    std::string path;    // as the library names it, inside the root
    std::string script;  // what the client finds there instead: kdbgen-compiler-wrapper for this compiler
    std::string real;    // the compiler it runs, inside the root
};

// kdbgen's programs the clients run, from libexec/kdbgen (installed) or beside
// kdbgen (the build tree). Each is copied into a run folder: the client sees
// the run folder, never kdbgen's own.
struct EngineHelpers {
    fs::path replay;            // kdbgen-miopen-replay
    fs::path sandbox;           // kdbgen-sandbox
    fs::path stubs;             // hip-stub/: the HIP runtime and rocBLAS stand-ins
    fs::path compiler_wrapper;  // kdbgen-compiler-wrapper (sh), the template of each CompilerWrapper::script
};

// MIOpen's system db folder (find-dbs, perf-dbs, tuning models).
struct SystemDbFolder {
    fs::path on_host;  // as kdbgen reads it
    fs::path inside;   // as the client sees it: a path in the root, or where --miopen-db is bound
    bool given = false;  // --miopen-db (bound into the client's view), else the installed one
    std::vector<std::string> entries;  // its files and folders but kdbs, sorted: what MIOpen is shown
    std::size_t find_dbs() const;  // *.fdb.txt
    std::size_t perf_dbs() const;  // *.db.txt, *.db
    std::size_t models() const;    // *.model: the tuning nets
    std::size_t files_of_miopen() const { return find_dbs() + perf_dbs() + models(); }
    std::string describe() const;  // "19 find-dbs, 4 perf-dbs, 57 tuning models"
};

// The db files of `entries` (a SystemDbFolder's) MIOpen reads on a card: per
// kind (the name past the CU count: ".HIP.fdb.txt", ".db"), the card's own,
// else of the processor's files that name a CU count the closest one
// (find_db.cpp:63-111, execution_context.hpp:139-160 and 196-220, MIOpen
// 3.3.0); "" for a kind whose closest is a tie (MIOpen takes the first its
// directory listing gives). Files that name no CU count are read on every card.
std::map<std::string, std::string> db_files_read(const std::vector<std::string>& entries, const Target& card);

// What the caller knows; resolve_installation finds the rest.
struct InstallationRequest {
    fs::path root = "/";
    fs::path library = "/usr/lib/x86_64-linux-gnu/libMIOpen.so.1";  // inside root
    fs::path helper_dir;                // empty: libexec/kdbgen, or beside kdbgen
    std::optional<fs::path> miopen_db;  // empty: the one installed with the library
    // Digest the library, its compilers and the root's packages (the engine
    // cache's folder): reads a few hundred megabytes, so only when a cache is used.
    bool identify = false;
};

struct Installation {
    fs::path root = "/";
    fs::path library;          // inside root
    fs::path library_on_host;  // resolved in the root
    EngineHelpers helpers;
    std::vector<CompilerWrapper> compilers;
    std::optional<SystemDbFolder> system_db;
    std::optional<fs::path> driver;  // MIOpenDriver inside the root (Debian: libmiopen1-tests)
    std::string identity;            // with InstallationRequest::identify; else empty
    // "in ROOT" for a root other than "/", for messages.
    std::string where() const;
};

// Resolves and checks the installation. Throws InputError naming the option
// and path that is wrong: a root that is no folder, a library the root lacks,
// a compiler the library starts that the root lacks, a --miopen-db that is no
// folder, kdbgen's helpers missing.
Installation resolve_installation(const InstallationRequest& request);

// The compilers the library starts and the wrapper each client sees in their
// place (counts starts, drops Debian's "-isystem /usr/include" pair, makes HIP
// code objects reproducible, stops a compile past the time limit). Writes
// nothing. Part of resolve_installation; its own function for the tests.
std::vector<CompilerWrapper> plan_compiler_wrappers(const fs::path& root, const fs::path& library,
                                                    const fs::path& wrapper_template);

// The digest of what decides a code object's bytes and the keys MIOpen asks
// for: the library's bytes, the compiler libraries beside it (libamd_comgr,
// libhiprtc: MIOpen 3.5 compiles in-process), the wrappers and the real
// compilers, and the root's package list (Debian: var/lib/dpkg/status).
std::string engine_identity(const Installation& installation);

// The fingerprint of a system db folder (the names, sizes and bytes of its
// find-dbs, perf-dbs and tuning models; kdbs left out).
std::string system_db_fingerprint(const std::optional<fs::path>& folder);

// The digests engine_identity and system_db_fingerprint take of files are
// remembered in `file` (in the build cache) by what stat says of each file
// (device, inode, size, modification and change times: any write changes the
// change time), so a rerun does not read them again; save_digests writes what
// was added. Without remember_digests every file is read.
void remember_digests(const fs::path& file);
void save_digests();

}  // namespace kdbgen
