// A library that plants links in its run folder for kdbgen to write through
// (tests/unit/miopen_engine_test.cpp, HostileMiopen): on its first miopenCreate
// in the first pass (HOME .../slice-0/a/p0) it leaves a file in its user kdb
// folder and makes the next pass's process folder with its cache folder a link
// to VICTIM, the folder named in the file <this library>.victim. kdbgen then
// seeds the next pass's cache from this one: through the link, VICTIM would get
// the file. Every other call fails (hanging_miopen_exports.cpp's weak stubs),
// so each problem fails and the passes go on.
#include <sys/stat.h>
#include <unistd.h>

#include "victim_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
int g_handle;

void plant() {
    const char* home = std::getenv("HOME");
    if (!home || !std::string(home).ends_with("/slice-0/a/p0")) return;
    const std::string own = std::string(home) + "/cache", next = std::string(home) + "/../../b";
    mkdir(own.c_str(), 0755);
    if (FILE* file = std::fopen((own + "/authorized_keys").c_str(), "w")) {
        std::fputs("planted by the library\n", file);
        std::fclose(file);
    }
    mkdir(next.c_str(), 0755);
    mkdir((next + "/p0").c_str(), 0755);
    symlink(kdbgen_test::victim_folder().c_str(), (next + "/p0/cache").c_str());
}
}  // namespace

extern "C" int miopenCreate(void** handle) {
    plant();
    *handle = &g_handle;
    return 0;
}
extern "C" int miopenDestroy(void*) { return 0; }
extern "C" const char* miopenGetErrorString(int) { return "kdbgen test library: no MIOpen here"; }
