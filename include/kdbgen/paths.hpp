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
