// The engine build's progress (engine_build.cpp): per card and phase, in the
// counts' own names (EngineCounts, include/kdbgen/miopen_engine.hpp).
#pragma once

#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/target.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <mutex>
#include <ostream>
#include <set>
#include <string>

namespace kdbgen {

// A phase of a card (its confirmation, a round, the replay that tells
// MIOpen's own failures, a check) is done when every pass of every problem
// in it is: the passes are counted as the replay adds them (A and B at once,
// C and D once A and B tell which problems need them), so 100% is the
// phase's end. Kernels compiled: the distinct keys MIOpen compiled on the
// card so far; the card's last line gives its counts as the report does.
// One redrawn line on a terminal, else a line every kLogEvery.
class ReplayProgress {
public:
    ReplayProgress(std::ostream& out, bool bar, bool quiet) : out_(out), bar_(bar), quiet_(quiet) {}

    void start_card(const Target& card) {
        const std::lock_guard lock(mutex_);
        end_line();
        card_ = card.spec();
        compiled_.clear();
    }

    void start_phase(const std::string& phase, std::size_t problems) {
        const std::lock_guard lock(mutex_);
        end_line();
        phase_ = phase;
        total_ = done_ = 0;
        started_ = last_line_ = std::chrono::steady_clock::now();
        if (!quiet_ && !bar_) fmt::print(out_, "kdbgen: {}: {}: {} problems\n", card_, phase_, problems);
    }

    void add_passes(std::size_t passes) {
        const std::lock_guard lock(mutex_);
        total_ += passes;
    }

    void pass_done(const std::set<KdbKey>& compiled) {
        const std::lock_guard lock(mutex_);
        ++done_;
        compiled_.insert(compiled.begin(), compiled.end());
        if (quiet_) return;
        const auto now = std::chrono::steady_clock::now();
        if (bar_) {
            draw(now);
            return;
        }
        if (now - last_line_ >= kLogEvery || done_ == total_) {
            last_line_ = now;
            fmt::print(out_, "kdbgen: {}: {}: {}/{} problem-passes, {} kernels compiled, ETA {}\n", card_, phase_,
                       done_, total_, compiled_.size(), eta(now));
        }
    }

    // The card's counts, under the names the card line and the JSON use.
    void end_card(const EngineCounts& counts) {
        const std::lock_guard lock(mutex_);
        end_line();
        if (!quiet_) fmt::print(out_, "kdbgen: {}: done: {}\n", card_, counts.describe());
    }

    void end_line() {
        if (drawn_) fmt::print(out_, "\n");
        drawn_ = false;
    }

    ~ReplayProgress() { end_line(); }

private:
    static constexpr auto kLogEvery = std::chrono::seconds(30);

    std::string eta(std::chrono::steady_clock::time_point now) const {
        if (!done_) return "?";
        const double elapsed = std::chrono::duration<double>(now - started_).count();
        const auto left = static_cast<long>(elapsed / static_cast<double>(done_) *
                                            static_cast<double>(total_ > done_ ? total_ - done_ : 0));
        return left >= 3600 ? fmt::format("{}h{:02}m", left / 3600, left / 60 % 60)
                            : fmt::format("{}m{:02}s", left / 60, left % 60);
    }

    void draw(std::chrono::steady_clock::time_point now) {
        constexpr std::size_t kWidth = 24;
        const std::size_t filled = total_ ? std::min(kWidth, kWidth * done_ / total_) : kWidth;
        fmt::print(out_, "\r{} {} [{:=<{}}{: <{}}] {}/{} problem-passes, {} kernels compiled, ETA {}   ", card_, phase_,
                   "", filled, "", kWidth - filled, done_, total_, compiled_.size(), eta(now));
        out_.flush();
        drawn_ = true;
    }

    std::ostream& out_;
    const bool bar_, quiet_;
    std::mutex mutex_;
    std::string card_, phase_;
    std::size_t total_ = 0, done_ = 0;
    std::set<KdbKey> compiled_;
    std::chrono::steady_clock::time_point started_, last_line_;
    bool drawn_ = false;
};

}  // namespace kdbgen
