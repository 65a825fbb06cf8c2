// kdbgen-compile-worker: runs kdbgen's clang command lines in-process, one
// after another, for as long as kdbgen keeps its pipes open (the protocol and
// why: include/kdbgen/compile_worker.hpp).
//
// A command goes through clang's own Driver, so the jobs are the ones the
// clang binary would run: the cc1 job through CompilerInvocation and
// ExecuteCompilerInvocation (what clang -cc1 does), the link job through
// lld's ELF driver (what ld.lld does). The code object is the same bytes the
// external commands make; tests/unit/inprocess_test.cpp compares them.
//
// A compile that crashes takes the worker with it; kdbgen sees the pipe close,
// runs that command as a process instead, and starts a fresh worker for the
// next one. The worker never installs a crash handler of its own.
#include "kdbgen/compile_worker.hpp"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/FrontendTool/Utils.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace {

namespace protocol = kdbgen::worker_protocol;

double cpu_seconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// ld.lld for OpenCL and assembly; `lld -flavor gnu` for HIP. lld picks its
// flavour from the program name or -flavor, so the name is passed on.
bool is_linker(llvm::StringRef executable) {
    const auto name = llvm::sys::path::filename(executable);
    return name == "ld.lld" || name == "lld";
}

// What `clang -cc1 args...` does, in this process. args[0] is "-cc1".
bool run_cc1(const llvm::opt::ArgStringList& args, const char* clang_path) {
    std::vector<const char*> cc1;
    for (std::size_t i = 1; i < args.size(); ++i)
        // The clang binary leaks its compile on purpose because it exits next;
        // a worker that compiles thousands of kernels must free each one.
        if (llvm::StringRef(args[i]) != "-disable-free") cc1.push_back(args[i]);
    auto instance = std::make_unique<clang::CompilerInstance>();
    // Diagnostics of the arguments themselves are buffered until the
    // instance's own diagnostics exist, as clang's cc1_main does.
    llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
    auto* buffer = new clang::TextDiagnosticBuffer;
    // Clang 21 (sid) passes DiagnosticOptions by reference, no longer counted;
    // Clang 20 gave createDiagnostics the file system to read from.
#if CLANG_VERSION_MAJOR >= 21
    clang::DiagnosticOptions options;
    clang::DiagnosticsEngine argument_diagnostics(ids, options, buffer);
#else
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options = new clang::DiagnosticOptions();
    clang::DiagnosticsEngine argument_diagnostics(ids, &*options, buffer);
#endif
    const bool parsed = clang::CompilerInvocation::CreateFromArgs(instance->getInvocation(), cc1, argument_diagnostics, clang_path);
#if CLANG_VERSION_MAJOR >= 20
    instance->createDiagnostics(*llvm::vfs::getRealFileSystem());
#else
    instance->createDiagnostics();
#endif
    if (!instance->hasDiagnostics()) return false;
    buffer->FlushDiagnostics(instance->getDiagnostics());
    if (!parsed) return false;
    // -mllvm options are process-wide: the previous compile's must not leak
    // into this one (ExecuteCompilerInvocation parses this one's).
    llvm::cl::ResetAllOptionOccurrences();
    return clang::ExecuteCompilerInvocation(instance.get());
}

struct LinkResult {
    int exit_code;
    bool can_run_again;
};

LinkResult run_lld(const char* executable, const llvm::opt::ArgStringList& args) {
    const std::string name(llvm::sys::path::filename(executable));
    std::vector<const char*> argv{name.c_str()};
    argv.insert(argv.end(), args.begin(), args.end());
    const lld::Result result = lld::lldMain(argv, llvm::outs(), llvm::errs(), {{lld::Gnu, &lld::elf::link}});
    return {result.retCode, result.canRunAgain};
}

// Test hook: a worker that dies in the middle of a compile whose command
// mentions the given text, as a compiler crash does. Read once.
bool should_crash(const std::vector<std::string>& argv) {
    static const char* text = std::getenv("KDBGEN_COMPILE_WORKER_CRASH_ON");
    if (!text || !*text) return false;
    for (const auto& arg : argv)
        if (arg.find(text) != std::string::npos) return true;
    return false;
}

class Worker {
public:
    // Runs one command line. Sets *exit_after when lld says its state cannot be reused.
    protocol::Response run(const protocol::Request& request, bool* exit_after) {
        protocol::Response response;
        if (request.argv.empty()) {
            response.exit_code = 1;
            response.output = "kdbgen-compile-worker: empty command\n";
            return response;
        }
        ::setenv("TMPDIR", request.tmpdir.c_str(), 1);
        const std::string capture = request.tmpdir + "/worker-output.txt";
        const int capture_fd = ::open(capture.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (capture_fd < 0) {
            response.exit_code = 1;
            response.output = "kdbgen-compile-worker: cannot create " + capture + ": " + std::strerror(errno) + "\n";
            return response;
        }
        ::dup2(capture_fd, STDOUT_FILENO);
        ::dup2(capture_fd, STDERR_FILENO);
        const double start = cpu_seconds();
        if (should_crash(request.argv)) std::abort();
        std::vector<const char*> argv;
        for (const auto& arg : request.argv) argv.push_back(arg.c_str());
        if (is_linker(argv[0])) {
            const auto link = run_lld(argv[0], llvm::opt::ArgStringList(argv.begin() + 1, argv.end()));
            response.exit_code = link.exit_code;
            *exit_after = !link.can_run_again;
        } else {
            response = run_driver(argv, exit_after);
        }
        llvm::outs().flush();
        llvm::errs().flush();
        response.cpu_seconds = cpu_seconds() - start;
        // Between compiles nothing is printed, and the scratch folder (with
        // the capture file) is kdbgen's to remove.
        const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        ::dup2(null_fd, STDOUT_FILENO);
        ::dup2(null_fd, STDERR_FILENO);
        ::close(null_fd);
        response.output.insert(0, read_all(capture_fd));
        ::close(capture_fd);
        return response;
    }

private:
    static std::string read_all(int fd) {
        std::string text;
        char chunk[8192];
        ::lseek(fd, 0, SEEK_SET);
        for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(n));
        return text;
    }

    // The clang driver, with its jobs run here instead of as processes.
    protocol::Response run_driver(const std::vector<const char*>& argv, bool* exit_after) {
        protocol::Response response;
#if CLANG_VERSION_MAJOR >= 21
        const std::unique_ptr<clang::DiagnosticOptions> options = clang::CreateAndPopulateDiagOpts(argv);
        auto* printer = new clang::TextDiagnosticPrinter(llvm::errs(), *options);
#else
        llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options = clang::CreateAndPopulateDiagOpts(argv).release();
        auto* printer = new clang::TextDiagnosticPrinter(llvm::errs(), &*options);
#endif
        printer->setPrefix(std::string(llvm::sys::path::filename(argv[0])));
        llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
#if CLANG_VERSION_MAJOR >= 21
        clang::DiagnosticsEngine diagnostics(ids, *options, printer);
#else
        clang::DiagnosticsEngine diagnostics(ids, &*options, printer);
#endif
        // argv[0] is the toolchain's clang: the resource folder and ld.lld are found from it, as by the binary.
        clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(), diagnostics);
        driver.setTitle("clang LLVM compiler");
        std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
        if (!compilation || compilation->containsError() || diagnostics.hasErrorOccurred()) {
            response.exit_code = 1;
            return response;
        }
        for (const auto& job : compilation->getJobs()) {
            const auto& args = job.getArguments();
            const bool cc1 = !args.empty() && llvm::StringRef(args[0]) == "-cc1";
            if (!cc1 && !is_linker(job.getExecutable())) {
                // -cc1as, or a tool kdbgen's commands do not use: run the command as a process.
                response.status = protocol::Status::Unsupported;
                response.output = std::string("job not run in-process: ") + job.getExecutable() + " " +
                                  (args.empty() ? "" : args[0]) + "\n";
                return response;
            }
        }
        for (const auto& job : compilation->getJobs()) {
            const auto& args = job.getArguments();
            if (!args.empty() && llvm::StringRef(args[0]) == "-cc1") {
                if (!run_cc1(args, argv[0])) response.exit_code = 1;
            } else {
                const auto link = run_lld(job.getExecutable(), args);
                *exit_after = *exit_after || !link.can_run_again;
                if (link.exit_code != 0) {
                    response.exit_code = 1;
                    llvm::errs() << llvm::sys::path::filename(argv[0]) << ": error: " << llvm::sys::path::filename(job.getExecutable())
                                 << " command failed with exit code " << link.exit_code << " (use -v to see invocation)\n";
                }
            }
            if (response.exit_code != 0) break;
        }
        compilation->CleanupFileList(compilation->getTempFiles());
        return response;
    }
};

// kdbgen closes the request pipe to stop a worker, and so does its death
// (even by SIGKILL): the worker then ends at once, also in the middle of a
// compile, as a clang process of kdbgen's would.
void exit_when_kdbgen_is_gone(int from_kdbgen) {
    std::thread([from_kdbgen] {
        pollfd fd{from_kdbgen, 0, 0};  // no events asked: poll returns on hang-up only
        while (::poll(&fd, 1, -1) < 0 && errno == EINTR) {
        }
        ::_exit(0);
    }).detach();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "--version") {
        std::printf("%s %u\n%s\n%s\n", protocol::kWorkerName, protocol::kVersion,
                    clang::getClangToolFullVersion("clang").c_str(), KDBGEN_WORKER_LLVM_ROOT);
        return 0;
    }
    // The protocol has stdin and stdout; the compiles print to a capture file
    // per command, and to /dev/null in between.
    const int from_kdbgen = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    const int to_kdbgen = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (from_kdbgen < 0 || to_kdbgen < 0 || null_fd < 0) return 3;
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    ::signal(SIGPIPE, SIG_IGN);

    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    ::dup2(null_fd, STDERR_FILENO);
    ::close(null_fd);

    exit_when_kdbgen_is_gone(from_kdbgen);
    const protocol::Hello hello{protocol::kVersion, clang::getClangToolFullVersion("clang"), KDBGEN_WORKER_LLVM_ROOT};
    if (!protocol::encode(hello).send(to_kdbgen)) return 0;
    Worker worker;
    for (std::string frame; protocol::receive(from_kdbgen, frame);) {
        protocol::Request request;
        if (!protocol::decode(protocol::Reader(std::move(frame)), request)) return 3;
        bool exit_after = false;
        const auto response = worker.run(request, &exit_after);
        if (!protocol::encode(response).send(to_kdbgen) || exit_after) break;
    }
    // As the watchdog does: no static destructors of LLVM's, nothing left to flush.
    ::_exit(0);
}
