// In-process compilation (kdbgen-compile-worker): the same code objects as
// the clang and ld.lld processes, on kdbgen's own kernels and on MIOpen's;
// a compile error, a worker that dies and a missing or foreign worker each
// cost nothing but what they must.
#include "kdbgen/compile.hpp"
#include "kdbgen/compile_worker.hpp"
#include "test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdbgen;

namespace {

bool have_worker() { return compile_worker_path().has_value(); }

#define NEEDS_WORKER()                                                                                  \
    do {                                                                                                \
        if (!have_worker()) GTEST_SKIP() << "kdbgen was built without the in-process compile worker"; \
    } while (0)


// Sets an environment variable for one scope (workers inherit kdbgen's environment when they start).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string first_error_line(const std::string& log) {
    const auto at = log.find("error:");
    if (at == std::string::npos) return "";
    const auto start = log.rfind('\n', at);
    const auto end = log.find('\n', at);
    return log.substr(start == std::string::npos ? 0 : start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

}  // namespace

// One worker compiles every language for seven processors in a row, so each
// compile follows others with other -mllvm options and targets: every code
// object is the bytes the clang processes make.
TEST(InProcess, DemoKernelsAreTheBytesOfTheClangProcesses) {
    NEEDS_WORKER();
    const Compiler external(test::toolchain(), nullptr, InProcess::Off);
    const Compiler in_process(test::toolchain(), nullptr, InProcess::On);
    ASSERT_TRUE(in_process.in_process());
    std::size_t compared = 0;
    for (const char* target : {"gfx900_56", "gfx906_60", "gfx908_120", "gfx90a:sramecc+:xnack-_110", "gfx942_304",
                               "gfx1030_36", "gfx1100_48"}) {
        for (const auto& build : test::one_of_each_language(target)) {
            const auto a = external.compile(build);
            const auto b = in_process.compile(build);
            ASSERT_TRUE(a.ok) << build.describe() << "\n" << a.log;
            ASSERT_TRUE(b.ok) << build.describe() << "\n" << b.log;
            EXPECT_TRUE(a.code == b.code) << build.describe() << ": in-process code object differs";
            ++compared;
        }
    }
    const auto stats = in_process.in_process_stats();
    EXPECT_EQ(stats.workers_started, 1u) << "one compile at a time: one worker serves them all";
    EXPECT_EQ(stats.worker_deaths, 0u);
    // OpenCL and HIP whole; of assembly the ld.lld step (its -cc1as job runs as a process).
    EXPECT_EQ(stats.commands, compared);
    EXPECT_EQ(stats.not_in_process, compared / 3);
}

// MIOpen's own kernels, end to end: a shard of gfx1030_36's find-db (OpenCL
// and assembly) and of gfx90a_110's (HIP implicit GEMM, OpenCL, assembly)
// built by kdbgen both ways gives kdbs with the same records.
TEST(InProcessWithTree, MiopenShardsAreTheBytesOfTheClangProcesses) {
    NEEDS_WORKER();
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    test::TempDir dir;
    for (const auto& [target, shard, kdb] : {std::tuple{"gfx1030_36", "1/1000", "gfx1030_36.kdb"},
                                             std::tuple{"gfx90a_110", "1/3000", "gfx90a6e.kdb"}}) {
        std::map<std::string, nlohmann::json> reports;
        for (const char* mode : {"off", "on"}) {
            const auto out = dir / fmt::format("{}-{}", target, mode);
            const auto run = test::run_kdbgen({"build", "--miopen-src", src, "--targets", target, "--shard", shard,
                                               "--no-cache", "--in-process", mode, "--json", "-o", out.string()});
            ASSERT_EQ(run.exit_code, 0) << target << " --in-process " << mode << "\n" << run.output.substr(0, 3000);
            reports[mode] = nlohmann::json::parse(run.output.substr(run.output.find('{')));
            EXPECT_EQ(reports[mode]["failed"], 0) << target << " " << mode;
        }
        const auto& on = reports["on"]["in_process"];
        EXPECT_TRUE(on["enabled"].get<bool>());
        EXPECT_GT(on["commands"].get<int>(), 0) << target;
        EXPECT_EQ(on["worker_deaths"], 0) << target;
        EXPECT_FALSE(reports["off"]["in_process"]["enabled"].get<bool>());
        const auto diff = test::run_kdbgen({"diff", "--json", (dir / fmt::format("{}-off", target) / kdb).string(),
                                            (dir / fmt::format("{}-on", target) / kdb).string()});
        const auto json = nlohmann::json::parse(diff.output.substr(diff.output.find('{')));
        EXPECT_TRUE(json["only_a"].empty() && json["only_b"].empty()) << target << ": " << diff.output.substr(0, 2000);
        EXPECT_TRUE(json["different_code"].empty()) << target << ": " << diff.output.substr(0, 2000);
        EXPECT_GT(reports["on"]["targets"][0]["records"].get<int>(), 0) << target;
        std::cout << target << " --shard " << shard << ": " << reports["on"]["compiles"] << " compiles, "
                  << reports["on"]["targets"][0]["records"] << " records, identical; " << on["commands"]
                  << " commands in-process\n";
    }
}

// A kernel that does not compile fails with clang's own message, and the
// worker serves the next compile.
TEST(InProcess, CompileErrorIsClangsMessageAndTheWorkerLivesOn) {
    NEEDS_WORKER();
    const Compiler external(test::toolchain(), nullptr, InProcess::Off);
    const Compiler in_process(test::toolchain(), nullptr, InProcess::On);
    KernelBuild broken = test::demo_build("kdbgen_tensor_op.cl", "", "gfx1030_36", {"Broken"});
    broken.source = test::source_dir() / "tests" / "data" / "broken.cl";
    broken.kernel_file = "broken.cl";
    const auto a = external.compile(broken);
    const auto b = in_process.compile(broken);
    EXPECT_FALSE(b.ok);
    EXPECT_TRUE(b.code.empty());
    EXPECT_NE(b.log.find("broken.cl:4:"), std::string::npos) << b.log;
    EXPECT_NE(b.log.find("undeclared_value"), std::string::npos) << b.log;
    EXPECT_EQ(first_error_line(b.log), first_error_line(a.log)) << "external:\n" << a.log << "\nin-process:\n" << b.log;
    EXPECT_FALSE(b.command.empty());
    const auto next = in_process.compile(test::one_of_each_language("gfx1030_36")[0]);
    EXPECT_TRUE(next.ok) << next.log;
    EXPECT_EQ(in_process.in_process_stats().workers_started, 1u);
    EXPECT_EQ(in_process.in_process_stats().worker_deaths, 0u);
}

// A crash inside clang or LLVM takes the worker down: that compile runs again
// as clang processes (and succeeds where they do), the next one in a new worker.
TEST(InProcess, WorkerThatDiesCostsNoKernel) {
    NEEDS_WORKER();
    const ScopedEnv crash("KDBGEN_COMPILE_WORKER_CRASH_ON", "kdbgen_activation.cpp");
    const Compiler external(test::toolchain(), nullptr, InProcess::Off);
    const Compiler in_process(test::toolchain(), nullptr, InProcess::On);
    const auto builds = test::one_of_each_language("gfx90a:sramecc+:xnack-_110");
    const auto before = in_process.compile(builds[0]);
    const auto crashed = in_process.compile(builds[1]);
    const auto after = in_process.compile(builds[0]);
    ASSERT_TRUE(before.ok && after.ok) << before.log << after.log;
    ASSERT_TRUE(crashed.ok) << crashed.log;
    EXPECT_TRUE(crashed.code == external.compile(builds[1]).code);
    EXPECT_NE(crashed.log.find("compile worker died (killed by signal 6"), std::string::npos) << crashed.log;
    EXPECT_GT(crashed.cpu_seconds, 0.0) << "the rerun's clang processes are counted";
    const auto stats = in_process.in_process_stats();
    EXPECT_EQ(stats.worker_deaths, 1u);
    EXPECT_EQ(stats.workers_started, 2u);
    EXPECT_EQ(stats.commands, 2u);
}

// No worker (kdbgen built without libclang-19-dev, or a wrong path): auto
// compiles as processes and says why; on is an error naming the worker.
TEST(InProcess, WithoutAWorkerAutoCompilesAsProcesses) {
    test::TempDir dir;
    const auto missing = dir / "no-such-worker";
    const ScopedEnv env("KDBGEN_COMPILE_WORKER", missing.string());
    const Compiler compiler(test::toolchain(), nullptr, InProcess::Auto);
    EXPECT_FALSE(compiler.in_process());
    EXPECT_NE(compiler.not_in_process_reason().find(missing.string()), std::string::npos) << compiler.not_in_process_reason();
    const auto result = compiler.compile(test::one_of_each_language("gfx1030_36")[0]);
    EXPECT_TRUE(result.ok) << result.log;
    const auto error = test::input_error_of([] { Compiler(test::toolchain(), nullptr, InProcess::On); });
    EXPECT_NE(error.find("in-process compilation"), std::string::npos) << error;
    EXPECT_NE(error.find(missing.string()), std::string::npos) << error;
    // The CLI: --in-process on fails before anything is compiled or written.
    const auto run = test::run_kdbgen({"build", "--targets", "gfx1030_36", "--no-cache", "--in-process", "on", "-q", "-o",
                                       (dir / "out").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find(missing.string()), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(dir / "out" / "gfx1030_36.kdb"));
}

// A worker runs the libraries it was linked with; for any other compiler
// (here one reached through another LLVM folder) kdbgen runs that compiler's
// processes, because only they make that compiler's bytes.
TEST(InProcess, AnotherToolchainIsNotServed) {
    NEEDS_WORKER();
    test::TempDir dir;
    const auto bin = dir / "llvm" / "bin";
    fs::create_directories(bin);
    for (const char* tool : {"clang", "ld.lld", "llvm-as"}) {
        std::ofstream(bin / tool) << "#!/bin/sh\nexec " << (test::toolchain().llvm_root / "bin" / tool).string() << " \"$@\"\n";
        fs::permissions(bin / tool, fs::perms::owner_all);
    }
    ToolchainOptions options;
    options.llvm_root = dir / "llvm";
    options.work_dir = dir / "work";
    const auto other = discover_toolchain(options);
    ASSERT_EQ(other.clang_version, test::toolchain().clang_version) << "the same version, another installation";
    const Compiler compiler(other, nullptr, InProcess::Auto);
    EXPECT_FALSE(compiler.in_process());
    EXPECT_NE(compiler.not_in_process_reason().find("built against the LLVM in"), std::string::npos)
        << compiler.not_in_process_reason();
    EXPECT_TRUE(compiler.compile(test::one_of_each_language("gfx1030_36")[0]).ok);
    const auto error = test::input_error_of([&] { Compiler(other, nullptr, InProcess::On); });
    EXPECT_NE(error.find("cannot compile for this toolchain"), std::string::npos) << error;
}

// The protocol's frames survive a round trip and reject what is not one.
TEST(InProcess, ProtocolFramesRoundTrip) {
    namespace protocol = worker_protocol;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const protocol::Request request{{"/usr/bin/clang", "-DX=a b", "", std::string("\0z", 2)}, "/tmp/x"};
    const protocol::Response response{protocol::Status::Ran, -6, 12.345678, "out\nput"};
    ASSERT_TRUE(protocol::encode(request).send(fds[1]));
    ASSERT_TRUE(protocol::encode(response).send(fds[1]));
    ::close(fds[1]);
    std::string frame;
    protocol::Request request_back;
    ASSERT_TRUE(protocol::receive(fds[0], frame));
    ASSERT_TRUE(protocol::decode(protocol::Reader(frame), request_back));
    EXPECT_EQ(request_back.argv, request.argv);
    EXPECT_EQ(request_back.tmpdir, request.tmpdir);
    protocol::Response response_back;
    ASSERT_TRUE(protocol::receive(fds[0], frame));
    ASSERT_TRUE(protocol::decode(protocol::Reader(frame), response_back));
    EXPECT_EQ(response_back.exit_code, -6);
    EXPECT_NEAR(response_back.cpu_seconds, 12.345678, 1e-6);
    EXPECT_EQ(response_back.output, "out\nput");
    EXPECT_FALSE(protocol::receive(fds[0], frame)) << "end of file";
    ::close(fds[0]);
    // A response read as a request, a truncated frame, an unknown status: all refused.
    protocol::Request wrong;
    EXPECT_FALSE(protocol::decode(protocol::Reader(std::string("\x05\0\0\0", 4)), wrong));
    protocol::Response bad_status;
    protocol::Writer writer;
    writer.u32(7).u32(0).u32(0).u32(0).str("");
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_TRUE(writer.send(fds[1]));
    ::close(fds[1]);
    ASSERT_TRUE(protocol::receive(fds[0], frame));
    EXPECT_FALSE(protocol::decode(protocol::Reader(frame), bad_status));
    ::close(fds[0]);
}

namespace {

// Processes whose environment holds this entry (a worker inherits kdbgen's environment).
std::vector<int> processes_with_env(const std::string& entry) {
    std::vector<int> pids;
    const std::string needle = entry + '\0';
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        std::ifstream in(entry.path() / "environ", std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.find(needle) != std::string::npos) pids.push_back(std::stoi(name));
    }
    return pids;
}

}  // namespace

// kill -9 of kdbgen in the middle of in-process compiles: no handler runs,
// and still no worker outlives it (each ends when its request pipe hangs up).
TEST(InProcess, KilledKdbgenTakesItsWorkersAlong) {
    NEEDS_WORKER();
    test::TempDir dir;
    const auto tmp = dir / "tmp";
    fs::create_directories(tmp);
    const std::string tmpdir = "TMPDIR=" + tmp.string();
    const pid_t pid = test::start_kdbgen({"build", "--targets", "gfx900_56,gfx906_60,gfx1030_36,gfx90a_110", "--no-cache",
                                          "--in-process", "on", "-q", "-j", "2", "-o", (dir / "out").string()},
                                         tmpdir);
    // Two workers (-j2) running, then a moment into their compiles.
    std::size_t seen = 0;
    for (int i = 0; i < 300 && seen < 3; ++i) {  // kdbgen itself and two workers
        ::usleep(20'000);
        seen = processes_with_env(tmpdir).size();
    }
    EXPECT_GE(seen, 3u) << "the workers never started";
    ::usleep(300'000);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "kdbgen finished before the kill";
    std::vector<int> left;
    for (int i = 0; i < 100; ++i) {
        left = processes_with_env(tmpdir);
        if (left.empty()) break;
        ::usleep(20'000);
    }
    EXPECT_TRUE(left.empty()) << left.size() << " processes of the killed kdbgen still run 2 s later, e.g. pid "
                              << (left.empty() ? 0 : left.front());
}

// A worker that dies while idle (OOM killer, a stray kill): the next compile
// finds its pipe closed. That costs kdbgen nothing (no SIGPIPE ends it) and
// the kernel nothing (it runs as processes; the one after in a new worker).
TEST(InProcess, WorkerKilledBetweenCompilesCostsNothing) {
    NEEDS_WORKER();
    const std::string mark = fmt::format("KDBGEN_TEST_MARK={}", ::getpid());
    const ScopedEnv env("KDBGEN_TEST_MARK", std::to_string(::getpid()));
    const Compiler compiler(test::toolchain(), nullptr, InProcess::On);
    const auto builds = test::one_of_each_language("gfx1030_36");
    ASSERT_TRUE(compiler.compile(builds[0]).ok);
    const auto workers = processes_with_env(mark);
    ASSERT_EQ(workers.size(), 1u);
    ::kill(workers.front(), SIGKILL);
    for (int i = 0; i < 100 && !processes_with_env(mark).empty(); ++i) ::usleep(10'000);
    const auto after_kill = compiler.compile(builds[0]);
    EXPECT_TRUE(after_kill.ok) << after_kill.log;
    EXPECT_NE(after_kill.log.find("compile worker died"), std::string::npos) << after_kill.log;
    const auto next = compiler.compile(builds[1]);
    EXPECT_TRUE(next.ok) << next.log;
    const auto stats = compiler.in_process_stats();
    EXPECT_EQ(stats.worker_deaths, 1u);
    EXPECT_EQ(stats.workers_started, 2u);
}
