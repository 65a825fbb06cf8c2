#include "kdbgen/jobs.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <exception>
#include <mutex>
#include <ostream>
#include <thread>

namespace kdbgen {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_duration(double seconds) {
    const auto s = static_cast<long>(seconds + 0.5);
    if (s < 60) return fmt::format("{}s", s);
    if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

unsigned default_job_count() {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores ? cores : 1;
}

Progress::Progress(std::size_t total, bool bar, bool quiet, std::ostream& out)
    : total_(total), bar_(bar), quiet_(quiet), out_(out), started_(now_seconds()) {}

void Progress::finished(const KernelBuild& build, const CompileResult& result) {
    ++done_;
    if (!result.ok) ++failed_;
    if (result.cache_hit) ++cached_;
    if (quiet_) return;
    const double elapsed = now_seconds() - started_;
    const double eta = done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
    const auto width = fmt::formatted_size("{}", total_);
    if (bar_) {
        constexpr int kBarWidth = 28;
        const int filled = total_ ? static_cast<int>(kBarWidth * done_ / total_) : kBarWidth;
        fmt::print(out_, "\r[{:=<{}}{: <{}}] {:>{}}/{} {} failed, {} cached, ETA {}   ", "", filled, "",
                   kBarWidth - filled, done_, width, total_, failed_, cached_, format_duration(eta));
    } else {
        fmt::print(out_, "[{:>{}}/{}] {} {} ({:.2f}s{})\n", done_, width, total_, result.ok ? "built" : "FAILED",
                   build.describe(), result.seconds, result.cache_hit ? ", cached" : "");
    }
    out_.flush();
}

void Progress::close() {
    if (bar_ && !quiet_) {
        fmt::print(out_, "\n");
        out_.flush();
    }
}

std::vector<CompileResult> run_builds(const Compiler& compiler, const std::vector<KernelBuild>& builds,
                                      const JobOptions& options, std::atomic<bool>& cancel, std::ostream& log) {
    std::vector<const KernelBuild*> pointers;
    pointers.reserve(builds.size());
    for (const auto& build : builds) pointers.push_back(&build);
    return run_builds(compiler, pointers, options, cancel, log);
}

std::vector<CompileResult> run_builds(const Compiler& compiler, const std::vector<const KernelBuild*>& builds,
                                      const JobOptions& options, std::atomic<bool>& cancel, std::ostream& log) {
    std::vector<CompileResult> results(builds.size());
    for (auto& result : results) result.log = "not built";
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex report_mutex;
    std::exception_ptr failure;
    Progress progress(builds.size(), options.progress_bar, options.quiet, log);

    const auto worker = [&]() {
        while (!cancel.load() && !stop.load()) {
            const std::size_t index = next.fetch_add(1);
            if (index >= builds.size()) return;
            CompileResult result = compiler.compile(*builds[index], &cancel);
            if (cancel.load() && !result.ok) return;  // interrupted: not a kernel failure
            if (options.on_result) {
                try {
                    options.on_result(index, result);
                } catch (...) {
                    std::lock_guard lock(report_mutex);
                    if (!failure) failure = std::current_exception();
                    stop = true;
                    return;
                }
                Bytes().swap(result.code);
            }
            std::lock_guard lock(report_mutex);
            if (!result.ok && options.fail_fast) stop = true;
            results[index] = std::move(result);
            progress.finished(*builds[index], results[index]);
        }
    };
    const unsigned count = std::max(1u, std::min<unsigned>(options.jobs ? options.jobs : default_job_count(),
                                                           static_cast<unsigned>(std::max<std::size_t>(builds.size(), 1))));
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < count; ++i) workers.emplace_back(worker);
    for (auto& thread : workers) thread.join();
    progress.close();
    if (failure) std::rethrow_exception(failure);
    return results;
}

}  // namespace kdbgen
