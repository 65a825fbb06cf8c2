// kdbgen's side of in-process compilation (the protocol and why:
// include/kdbgen/compile_worker.hpp; the worker: src/compile/worker/main.cpp).
#include "kdbgen/cleanup.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/compile_worker.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace kdbgen {

namespace protocol = worker_protocol;

namespace {

// A worker is replaced after this many commands, so that whatever a long run
// of compiles leaves behind in one process (clang and LLVM keep some caches
// for the life of a process) stays bounded. Starting one costs ~0.1 CPU s.
constexpr std::size_t kCommandsPerWorker = 1000;

std::string exit_text(int exit_code) {
    return exit_code < 0 ? fmt::format("killed by signal {} ({})", -exit_code, ::strsignal(-exit_code))
                         : fmt::format("exit code {}", exit_code);
}

// Sends a frame to a worker that may have died: a write to its closed pipe
// must be an error for this compile, not a SIGPIPE that ends kdbgen. The
// signal is blocked in this thread for the write and a pending one taken.
bool send_to_worker(const protocol::Writer& frame, int fd) {
    sigset_t pipe_signal, old_mask;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
    const bool sent = frame.send(fd);
    if (!sent) {
        const timespec no_wait{0, 0};
        while (sigtimedwait(&pipe_signal, nullptr, &no_wait) > 0) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    return sent;
}

}  // namespace

std::optional<fs::path> compile_worker_path() {
    if (const char* env = std::getenv("KDBGEN_COMPILE_WORKER"); env && *env) return fs::path(env);
    std::vector<fs::path> candidates;
    if (const auto dir = executable_dir(); !dir.empty()) {
        candidates.push_back(dir / protocol::kWorkerName);
        candidates.push_back(dir.parent_path() / "libexec" / "kdbgen" / protocol::kWorkerName);
    }
    for (const auto& candidate : candidates)
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    return std::nullopt;
}

struct WorkerPool::Worker {
    int pid = -1;
    int to = -1, from = -1;  // pipes to its stdin and from its stdout
    int child_slot = -1;     // in the interrupt handler's table: killed with kdbgen
    std::size_t commands = 0;
    protocol::Hello hello;
};

WorkerPool::WorkerPool(const fs::path& worker, const Toolchain& toolchain) : path_(worker) {
    if (::access(worker.c_str(), X_OK) != 0)
        throw InputError(fmt::format("{}: no such program ({})", worker.string(), std::strerror(errno)));
    auto first = start();
    const auto& hello = first->hello;
    std::string mismatch;
    std::error_code ec;
    const auto root_of_worker = fs::weakly_canonical(hello.llvm_root, ec);
    const auto root_of_toolchain = fs::weakly_canonical(toolchain.llvm_root, ec);
    if (hello.version != protocol::kVersion)
        mismatch = fmt::format("it speaks protocol {}, this kdbgen {}", hello.version, protocol::kVersion);
    else if (root_of_worker != root_of_toolchain)
        mismatch = fmt::format("it was built against the LLVM in {}, the toolchain is {}", hello.llvm_root,
                               toolchain.llvm_root.string());
    else if (hello.clang_version != toolchain.clang_version)
        mismatch = fmt::format("it is '{}', the toolchain's clang is '{}'", hello.clang_version, toolchain.clang_version);
    if (!mismatch.empty()) {
        retire(std::move(first), true);
        throw InputError(fmt::format("{} cannot compile for this toolchain: {}", path_.string(), mismatch));
    }
    idle_.push_back(std::move(first));
}

WorkerPool::~WorkerPool() { stop_idle(); }

void WorkerPool::stop_idle() {
    std::vector<std::unique_ptr<Worker>> idle;
    {
        std::lock_guard lock(mutex_);
        idle.swap(idle_);
    }
    // Idle workers hold nothing worth keeping: closing their pipe ends them at once.
    for (auto& worker : idle) retire(std::move(worker), false);
}

std::unique_ptr<WorkerPool::Worker> WorkerPool::start() {
    int to_worker[2], from_worker[2];
    if (::pipe2(to_worker, O_CLOEXEC) != 0) throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
    if (::pipe2(from_worker, O_CLOEXEC) != 0) {
        ::close(to_worker[0]);
        ::close(to_worker[1]);
        throw InputError(fmt::format("pipe: {}", std::strerror(errno)));
    }
    std::string error;
    // Its stderr is kdbgen's until it is running: a worker that cannot load its libraries says so there.
    // Not killed with the thread that starts it (PR_SET_PDEATHSIG follows threads, and a job thread may
    // end while another uses the worker): it ends itself when its request pipe closes, as it does when
    // kdbgen dies in any way.
    const int pid = spawn_child({path_.string()}, to_worker[0], from_worker[1], STDERR_FILENO, {}, &error,
                                /*die_with_calling_thread=*/false);
    ::close(to_worker[0]);
    ::close(from_worker[1]);
    auto worker = std::make_unique<Worker>();
    worker->to = to_worker[1];
    worker->from = from_worker[0];
    if (pid < 0) {
        ::close(worker->to);
        ::close(worker->from);
        throw InputError(fmt::format("cannot start {}: {}", path_.string(), error));
    }
    worker->pid = pid;
    worker->child_slot = register_child(pid);
    std::string frame;
    if (!protocol::receive(worker->from, frame) || !protocol::decode(protocol::Reader(std::move(frame)), worker->hello)) {
        const auto exit = retire(std::move(worker), false);
        throw InputError(fmt::format("{} did not start ({})", path_.string(), exit_text(exit.exit_code)));
    }
    std::lock_guard lock(mutex_);
    ++stats_.workers_started;
    return worker;
}

ChildExit WorkerPool::retire(std::unique_ptr<Worker> worker, bool kill) {
    ::close(worker->to);  // end of file: it exits
    ::close(worker->from);
    if (kill) ::kill(-worker->pid, SIGKILL);
    const auto exit = reap_child(worker->pid);
    unregister_temporary(worker->child_slot);
    std::lock_guard lock(mutex_);
    stats_.worker_peak_rss_bytes = std::max(stats_.worker_peak_rss_bytes, exit.peak_rss_bytes);
    return exit;
}

std::optional<ProcessResult> WorkerPool::run(const std::vector<std::string>& argv, const fs::path& tmpdir,
                                             const std::atomic<bool>* cancel, std::string* why) {
    std::unique_ptr<Worker> worker;
    {
        std::lock_guard lock(mutex_);
        if (!idle_.empty()) {
            worker = std::move(idle_.back());
            idle_.pop_back();
        }
    }
    try {
        if (!worker) worker = start();
    } catch (const InputError& e) {
        *why = e.what();
        return std::nullopt;
    }
    ++worker->commands;
    bool answered = false;
    std::string frame;
    if (send_to_worker(protocol::encode(protocol::Request{argv, tmpdir.string()}), worker->to)) {
        // Wait in short steps so that an interrupt stops the compile as it stops a clang process.
        while (true) {
            if (cancel && cancel->load()) {
                retire(std::move(worker), true);
                return ProcessResult{-SIGTERM, "interrupted", 0};
            }
            pollfd fd{worker->from, POLLIN, 0};
            const int ready = ::poll(&fd, 1, 100);
            if (ready < 0 && errno != EINTR) break;
            if (ready <= 0) continue;
            answered = protocol::receive(worker->from, frame);
            break;
        }
    }
    protocol::Response response;
    if (!answered || !protocol::decode(protocol::Reader(std::move(frame)), response)) {
        // It died in the compile (a crash in clang or LLVM, or killed): this
        // command runs as a process, the next one in a new worker.
        const auto exit = retire(std::move(worker), true);
        std::lock_guard lock(mutex_);
        ++stats_.worker_deaths;
        *why = fmt::format("the in-process compile worker died ({}); the command ran as a process", exit_text(exit.exit_code));
        return std::nullopt;
    }
    {
        std::lock_guard lock(mutex_);
        if (response.status == protocol::Status::Unsupported) ++stats_.not_in_process;
        else ++stats_.commands;
    }
    if (worker->commands >= kCommandsPerWorker) retire(std::move(worker), false);
    else {
        std::lock_guard lock(mutex_);
        idle_.push_back(std::move(worker));
    }
    if (response.status == protocol::Status::Unsupported) return std::nullopt;
    return ProcessResult{response.exit_code, std::move(response.output), response.cpu_seconds};
}

InProcessStats WorkerPool::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

}  // namespace kdbgen
