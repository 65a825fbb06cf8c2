// kdbgen-miopen-replay: makes, for each problem kdbgen gives it, the calls a
// framework makes on its first run, against an installed libMIOpen under
// kdbgen-hip-stub. MIOpen then forms and compiles its own kernels into its user
// kdb, which kdbgen reads afterwards; the replay itself computes nothing.
//
//   kdbgen-miopen-replay LIBMIOPEN PROBLEMS [find|immediate [handle-each|one-handle]]
//
// A convolution is replayed one of the two ways a framework's process runs it
// (default find), and kdbgen runs each in processes of their own: what MIOpen
// asks its kdb for depends on what the process did before. After a Find,
// CompileSolution returns the invoker Find registered and builds nothing
// (LoadOrPrepareInvoker, src/ocl/convolutionocl.cpp:102-121, MIOpen 3.3.0),
// while a process that never ran Find (PyTorch without benchmark mode,
// MIOpenDriver -S 0) compiles through another path, whose keys differ (the
// data-type defines twice):
//   find       Find, then the convolution with the winner (MIOpenDriver's default)
//   immediate  GetSolutionCount/GetSolution, then for every solution
//              CompileSolution and the *Immediate call (MIOpenDriver -S 0 runs the
//              first; every one, so that a failing kernel hides no other)
// Other primitives have one way; they run in either mode.
//
// handle-each (the default) gives every problem a MIOpen handle of its own, so
// that every key it needs is looked up; one-handle runs them all on one, as a
// framework's process does (kdbgen's check: ReplayPurpose in miopen_engine.hpp).
//
// PROBLEMS has one problem a line (src/engine/replay_format.cpp writes it):
//   <id> conv dir=F|B|W x=N,C,H,W w=K,Cg,Y,X y=N,K,H,W pad=.. stride=.. dil=.. groups=G
//        types=X,W,Y layouts=X,W,Y
//   <id> bnorm dir=train|infer|back mode=0|1 x=.. type=T ptype=T layout=L saved=0|1 running=0|1
//        (saved: train writes, back reads, the saved mean and inverse variance; running:
//        train updates the running mean and variance; a buffer not given is passed as null,
//        as the caller did)
//   <id> pool dir=F|B mode=M x=.. y=.. win=.. pad=.. stride=.. type=T index=I wsmode=W save=0|1 layout=L
//   <id> activ dir=F|B mode=M alpha=A beta=B gamma=G x=.. type=T
//   <id> softmax dir=F|B algo=A mode=M alpha=A beta=B x=.. type=T
//   <id> lrn dir=F|B mode=M n=N alpha=A beta=B k=K save=0|1 x=.. type=T
//   <id> tensorop routine=op|set|scale op=O a=.. b=.. type=T
//   <id> rnn mode=0-3 layers=L hidden=H input=W batches=B1,..,Bseq bidirection=0|1 inputmode=0|1 bias=0|1
//        algo=0|1 padding=0|1 forw=F fwdtype=0|1 dropout=0|1 rate=R seed=S type=T
//        (MIOpenDriver rnn's flags: forw as the driver reads it, 0 = forward and both backwards)
//   <id> dropout x=.. rate=R seed=S mask=0|1 forw=F type=T
//   <id> ctc classes=C labels=L1,..,Lbatch inputs=I1,..,Ibatch blank=B softmax=0|1 algo=A
//        (classes without the blank; float, as MIOpenDriver ctc runs it)
// Types are miopenDataType_t numbers; layouts are NCHW, NHWC, NCDHW or NDHWC.
//
// On standard output, flushed line by line so that kdbgen knows which problem
// a crash interrupted: "start <id>", then "done <id> ok" or
// "done <id> fail <call>: <MIOpen's status text>"; "note <id> <text>" for a
// call that failed on the way while the rest went on; before the done, under
// kdbgen-hip-stub, "cu <id> <n>": n reads of the CU count since the problem
// before's done that may decide what MIOpen builds (hip_stub.cpp). kdbgen reads standard
// error (MIOpen's log) through the same pipe, so MIOpen's lines of a problem
// come between its start and done (standard error is buffered and flushed
// before each of them). Each "start" line also goes to the descriptor
// KDBGEN_PROTOCOL_FD names (kdbgen's watchdog listens there alone, so nothing
// the library prints moves its deadline); the replay moves it out of the
// library's way (a high number, closed on exec) before loading the library.
#include "replay.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace kdbgen::replay {

namespace {

// kdbgen-hip-stub's count of CU-count reads that may decide what MIOpen builds
// (hip_stub.cpp); none where the library runs on another HIP.
using CuReadCount = unsigned long (*)();
CuReadCount g_deciding_cu_reads = nullptr;

Library load_library(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load ") + path + ": " + dlerror());
    g_deciding_cu_reads = reinterpret_cast<CuReadCount>(dlsym(handle, "kdbgen_stub_deciding_cu_reads"));
    Library library;
#define KDBGEN_RESOLVE(name, type)                                                                            \
    library.name = reinterpret_cast<decltype(library.name)>(dlsym(handle, #name));                                             \
    if (!library.name) throw std::runtime_error(std::string(path) + " does not export " #name);
    KDBGEN_MIOPEN_FUNCTIONS(KDBGEN_RESOLVE)
#undef KDBGEN_RESOLVE
    return library;
}
int g_watchdog_fd = -1;

// The watchdog's channel: KDBGEN_PROTOCOL_FD moved to a high descriptor that
// compilers the library starts do not inherit, the variable gone.
void take_watchdog_channel() {
    const char* named = std::getenv("KDBGEN_PROTOCOL_FD");
    if (!named) return;
    const int given = std::atoi(named);
    g_watchdog_fd = fcntl(given, F_DUPFD_CLOEXEC, 700);
    if (g_watchdog_fd >= 0) close(given);
    unsetenv("KDBGEN_PROTOCOL_FD");
}

void tell_watchdog(const std::string& id) {
    if (g_watchdog_fd < 0) return;
    const std::string line = "start " + id + "\n";
    for (std::size_t done = 0; done < line.size();) {
        const ssize_t n = write(g_watchdog_fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

// Each problem of the file, on a handle of its own (handle_each) or all on one.
// 0, or 3 when miopenCreate fails ("load-failed").
int run_problems(const Library& library, std::ifstream& problems, Mode mode, bool handle_each) {
    // A problem's reads are those since the previous problem's done (its handle's making is its own);
    // the first's, all since the library loaded.
    unsigned long cu_reads_before = 0;
    api::Handle handle = nullptr;
    if (const auto status = library.miopenCreate(&handle); status != 0) {
        std::printf("load-failed miopenCreate: %s\n", library.miopenGetErrorString(status));
        return 3;
    }
    // handle-each: MIOpen keeps the programs a handle built (KernelCache's
    // program map) and a second problem that needs one of them would never
    // look it up in the kdb. A new handle sees every lookup the problem makes,
    // as a process running that problem alone does; the library, its dbs and
    // the stub's device stay loaded.
    bool fresh = true;
    std::string line;
    while (std::getline(problems, line)) {
        std::istringstream tokens(line);
        std::string id, kind, token;
        if (!(tokens >> id >> kind)) continue;
        Fields fields;
        while (tokens >> token) {
            const auto equals = token.find('=');
            if (equals != std::string::npos) fields[token.substr(0, equals)] = token.substr(equals + 1);
        }
        if (!fresh && handle_each) {
            library.miopenDestroy(handle);
            handle = nullptr;
            if (const auto status = library.miopenCreate(&handle); status != 0) {
                std::printf("load-failed miopenCreate: %s\n", library.miopenGetErrorString(status));
                return 3;
            }
        }
        fresh = false;
        std::fflush(stderr);
        std::printf("start %s\n", id.c_str());
        std::fflush(stdout);
        tell_watchdog(id);
        // For kdbgen's compiler wrapper: a compile it stops is logged against this problem.
        // Between problems no MIOpen thread reads the environment.
        setenv("KDBGEN_PROBLEM", id.c_str(), 1);
        // Fault injection for kdbgen's tests: a crash, or a hang, inside MIOpen on this problem.
        if (const char* crash = std::getenv("KDBGEN_REPLAY_CRASH_ON"); crash && id == crash) std::abort();
        if (const char* hang = std::getenv("KDBGEN_REPLAY_HANG_ON"); hang && id == hang)
            for (;;) pause();
        std::string failure;
        try {
            replay(handle, kind, fields, Notes{id}, mode);
        } catch (const std::exception& error) {
            failure = error.what();
            if (failure.empty()) failure = "failed";
        }
        std::fflush(stderr);
        if (g_deciding_cu_reads) {
            const unsigned long now = g_deciding_cu_reads();
            std::printf("cu %s %lu\n", id.c_str(), now - cu_reads_before);
            cu_reads_before = now;
        }
        if (failure.empty())
            std::printf("done %s ok\n", id.c_str());
        else
            std::printf("done %s fail %s\n", id.c_str(), failure.c_str());
        std::fflush(stdout);
    }
    library.miopenDestroy(handle);
    return 0;
}

}  // namespace

}  // namespace kdbgen::replay

int main(int argc, char** argv) {
    using namespace kdbgen::replay;
    const std::string mode_name = argc >= 4 ? argv[3] : "find";
    const std::string handles = argc >= 5 ? argv[4] : "handle-each";
    if (argc < 3 || argc > 5 || (mode_name != "find" && mode_name != "immediate") ||
        (handles != "handle-each" && handles != "one-handle")) {
        std::fprintf(stderr,
                     "usage: kdbgen-miopen-replay LIBMIOPEN PROBLEMS [find|immediate [handle-each|one-handle]]\n");
        return 2;
    }
    const Mode mode = mode_name == "find" ? Mode::Find : Mode::Immediate;
    // MIOpen writes each log line to std::cerr, which flushes every insertion
    // (unitbuf) into the unbuffered stderr: a write(2) a line, at
    // MIOPEN_LOG_LEVEL=6 10^3 per problem, and as many reads and wake-ups in
    // kdbgen. Buffered here (the process shares libstdc++'s std::cerr with the
    // library), a problem's log goes out in a few writes, all before its "done"
    // line (kdbgen reads the log per problem).
    static char log_buffer[1 << 16];
    std::setvbuf(stderr, log_buffer, _IOFBF, sizeof log_buffer);
    std::cerr.unsetf(std::ios_base::unitbuf);
    take_watchdog_channel();
    Library library;
    try {
        library = load_library(argv[1]);
    } catch (const std::exception& error) {
        std::printf("load-failed %s\n", error.what());
        return 3;
    }
    lib = &library;
    std::ifstream problems(argv[2]);
    if (!problems) {
        std::fprintf(stderr, "kdbgen-miopen-replay: cannot read %s\n", argv[2]);
        return 2;
    }
    return run_problems(library, problems, mode, handles == "handle-each");
}
