// Wall and CPU time between marks (kdbgen's own, and the compilers it ran and
// reaped), with kdbgen's peak memory at each mark: what `build --json` reports
// as "phases" and -v prints.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace kdbgen {

class PhaseClock {
public:
    struct Phase {
        std::string name;
        double seconds = 0, user_seconds = 0, system_seconds = 0;
        double own_seconds = 0;   // of user + system, kdbgen's own (the rest: the compilers)
        long peak_rss_bytes = 0;  // kdbgen's own peak resident memory by the end of the phase
    };
    PhaseClock();
    // Closes the phase that began at the previous mark; a name marked before adds to that
    // phase (a build plans and compiles one group of targets after another).
    void mark(std::string name);
    const std::vector<Phase>& phases() const { return phases_; }

private:
    struct Cpu {
        double user = 0, system = 0, own = 0;
        long peak_rss_bytes = 0;
    };
    static Cpu cpu_now();
    std::chrono::steady_clock::time_point wall_;
    Cpu cpu_;
    std::vector<Phase> phases_;
};

}  // namespace kdbgen
