#include "kdbgen/phase_clock.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include <sys/resource.h>

namespace kdbgen {

namespace {

// This process's own peak: VmHWM belongs to the address space, which exec replaces. Linux's
// ru_maxrss also keeps the peak of the image before exec, so a kdbgen started by a large
// process (a Python script holding a 1.4 GB plan) reported that process's size as its own.
long own_peak_rss_bytes(const rusage& usage) {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("VmHWM:")) return std::stol(line.substr(6)) * 1024L;  // "VmHWM:  123 kB"
    return usage.ru_maxrss * 1024L;  // Linux reports KiB
}

}  // namespace

PhaseClock::PhaseClock() : wall_(std::chrono::steady_clock::now()), cpu_(cpu_now()) {}

void PhaseClock::mark(std::string name) {
    const auto wall = std::chrono::steady_clock::now();
    const auto cpu = cpu_now();
    const Phase elapsed{std::move(name), std::chrono::duration<double>(wall - wall_).count(), cpu.user - cpu_.user,
                        cpu.system - cpu_.system, cpu.own - cpu_.own, cpu.peak_rss_bytes};
    const auto same = std::find_if(phases_.begin(), phases_.end(), [&](const Phase& p) { return p.name == elapsed.name; });
    if (same == phases_.end()) {
        phases_.push_back(elapsed);
    } else {
        same->seconds += elapsed.seconds;
        same->user_seconds += elapsed.user_seconds;
        same->system_seconds += elapsed.system_seconds;
        same->own_seconds += elapsed.own_seconds;
        same->peak_rss_bytes = elapsed.peak_rss_bytes;
    }
    wall_ = wall;
    cpu_ = cpu;
}

PhaseClock::Cpu PhaseClock::cpu_now() {
    Cpu cpu;
    for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage usage{};
        ::getrusage(who, &usage);
        const double user = static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
        const double system = static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) * 1e-6;
        cpu.user += user;
        cpu.system += system;
        if (who == RUSAGE_SELF) {
            cpu.own = user + system;
            cpu.peak_rss_bytes = own_peak_rss_bytes(usage);
        }
    }
    return cpu;
}

}  // namespace kdbgen
