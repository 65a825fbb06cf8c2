// The engine's records (src/engine/records.cpp): what MIOpen wrote into its
// user kdbs and what the engine cache kept, turned into kernels for a kdb only
// through the checks `kdbgen verify` makes of a kdb's rows. One check, used by
// the build, the cache and --check-kdbs.
#pragma once

#include "kdbgen/kdb.hpp"
#include "kdbgen/target.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdbgen {

// Why a kernel may not go into the card's kdb (a name that does not end in
// .o, a code object that is none or not for the card's processor), or nullopt.
std::optional<std::string> kernel_fault(const KdbKey& key, const Bytes& code, const Target& card);

// The rows of a user kdb MIOpen wrote, each checked as `kdbgen verify` checks
// a kdb's (MD5 and sizes, then kernel_fault): good ones into kernels, each bad
// one named in bad_rows with the library and the file (as `shown`, where the
// client wrote it, when ukdb is kdbgen's copy).
void read_user_kdb(const fs::path& ukdb, const Target& card, const fs::path& library,
                   std::map<KdbKey, Bytes>& kernels, std::vector<std::string>& bad_rows, const fs::path& shown = {});

// --check-kdbs: every entry of the folder whose name ends in .kdb, checked as
// `kdbgen verify` checks it (its target from its name); an entry that is a
// link or no regular file is a fault itself, and is never read. Each fault
// names the file.
std::vector<std::string> verify_kdb_folder(const fs::path& folder);

}  // namespace kdbgen
