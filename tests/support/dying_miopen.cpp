// A library that dies while it is loaded (in a constructor, as a broken MIOpen
// build or a missing GPU runtime can): the engine must name the library, not
// report the first problem as interrupted (tests/unit/miopen_engine_test.cpp).
#include <cstdlib>

namespace {
[[gnu::constructor]] void die_on_load() { std::abort(); }
}  // namespace

extern "C" int miopenCreate(void** handle) { return handle ? 0 : 1; }
