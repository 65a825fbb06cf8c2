// Every entry point kdbgen-miopen-replay resolves, as weak do-nothing symbols:
// hanging_miopen.cpp's own definitions (miopenCreate, miopenGetErrorString)
// win at link time, so the replay loads the library and calls miopenCreate.
#include "../../src/engine/replay/miopen_api.hpp"

#define KDBGEN_EXPORT_STUB(name, type) \
    extern "C" [[gnu::weak]] int name() { return 1; }
KDBGEN_MIOPEN_FUNCTIONS(KDBGEN_EXPORT_STUB)
#undef KDBGEN_EXPORT_STUB
