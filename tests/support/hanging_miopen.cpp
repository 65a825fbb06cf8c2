// Libraries that hang the process that loads them, each one way a foreign
// libMIOpen can (KDBGEN_TEST_HANG picks it at build time): kdbgen's watchdog
// and its namespaces must end each (tests/unit/miopen_engine_test.cpp).
//   1  sleeps in its constructor, before the replay reaches miopenCreate
//   2  sleeps in miopenCreate
//   3  leaves a child in a session of its own holding standard output (a
//      daemon it started), then fails miopenCreate: the replay ends, but
//      the pipe kdbgen reads has a writer until that child dies
//   4  hangs in the problem's first call, printing "start 0" (the replay's
//      own protocol line) once a second on standard output: the watchdog
//      must not take that for a new problem
#include <unistd.h>

#include <cstdio>

namespace {
[[gnu::constructor]] void on_load() {
#if KDBGEN_TEST_HANG == 1
    for (;;) pause();
#elif KDBGEN_TEST_HANG == 3
    if (fork() == 0) {
        setsid();
        execl("/bin/sleep", "sleep", "4243", static_cast<char*>(nullptr));
        _exit(1);
    }
#endif
}
}  // namespace

extern "C" int miopenCreate(void** handle) {
#if KDBGEN_TEST_HANG == 2
    for (;;) pause();
#elif KDBGEN_TEST_HANG == 4
    static int own;
    *handle = &own;
    return 0;
#endif
    return handle ? 7 : 1;
}
#if KDBGEN_TEST_HANG == 4
extern "C" int miopenCreateTensorDescriptor(void**) {
    for (;;) {
        std::printf("start 0\n");
        std::fflush(stdout);
        sleep(1);
    }
}
extern "C" int miopenDestroy(void*) { return 0; }
#endif
extern "C" const char* miopenGetErrorString(int) { return "kdbgen test library: no MIOpen here"; }
