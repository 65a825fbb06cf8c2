// Where kdbgen finds its own data: configs/, kernels/ and the hiprtc
// stand-in headers. $KDBGEN_DATA_DIR first, then the installed share/kdbgen
// next to the binary, then the source tree kdbgen was built from.
#pragma once

#include "kdbgen/util.hpp"

namespace kdbgen {

// name is "configs", "kernels" or "hiprtc". Throws InputError when absent.
fs::path data_path(std::string_view name);
// The folder of the running executable (/proc/self/exe), or empty.
fs::path executable_dir();

}  // namespace kdbgen

namespace kdbgen {

// `path` (absolute, as a process chrooted into `root` names it) resolved the
// way that process would: every link, absolute or relative, is followed
// inside root, and ".." stops at root. Returns the host's path of what it
// names (no link left in it), or nullopt when some part does not exist. A
// file of the root is read through this, never through root / path (which
// would follow the root's absolute links out of it).
std::optional<fs::path> resolve_in_root(const fs::path& root, const fs::path& path);
// As resolve_in_root, but the last part is not followed (lstat's view):
// the host path of the entry itself.
std::optional<fs::path> resolve_parent_in_root(const fs::path& root, const fs::path& path);

}  // namespace kdbgen
