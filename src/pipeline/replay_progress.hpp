// The engine build's progress (engine_build.cpp): per card and round.
#pragma once

#include "kdbgen/target.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <mutex>
#include <ostream>
#include <string>

namespace kdbgen {

// Problems done of the round's total on the card, kernels MIOpen compiled,
// and the ETA from the mean time per problem: one redrawn line on a terminal,
// else a line every kLogEvery.
class ReplayProgress {
public:
    ReplayProgress(std::ostream& out, bool bar, bool quiet) : out_(out), bar_(bar), quiet_(quiet) {}

    void start_round(const Target& card, unsigned round, std::size_t problems) {
        const std::lock_guard lock(mutex_);
        end_line();
        card_ = card.spec();
        round_ = round;
        total_ = problems;
        done_ = compiled_ = 0;
        started_ = last_line_ = std::chrono::steady_clock::now();
        if (!quiet_ && !bar_)
            fmt::print(out_, "kdbgen: {}: round {}: replaying {} problems\n", card_, round_ + 1, total_);
    }

    void problem_done(std::size_t compiled) {
        const std::lock_guard lock(mutex_);
        ++done_;
        compiled_ += compiled;
        if (quiet_) return;
        const auto now = std::chrono::steady_clock::now();
        if (bar_) {
            draw(now);
            return;
        }
        if (now - last_line_ >= kLogEvery || done_ == total_) {
            last_line_ = now;
            fmt::print(out_, "kdbgen: {}: round {}: {}/{} problems, {} kernels compiled, ETA {}\n", card_, round_ + 1,
                       done_, total_, compiled_, eta(now));
        }
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
        const auto left = static_cast<long>(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
        return left >= 3600 ? fmt::format("{}h{:02}m", left / 3600, left / 60 % 60)
                            : fmt::format("{}m{:02}s", left / 60, left % 60);
    }

    void draw(std::chrono::steady_clock::time_point now) {
        constexpr int kWidth = 24;
        const int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
        fmt::print(out_, "\r{} round {} [{:=<{}}{: <{}}] {}/{} problems, {} kernels compiled, ETA {}   ", card_,
                   round_ + 1, "", filled, "", kWidth - filled, done_, total_, compiled_, eta(now));
        out_.flush();
        drawn_ = true;
    }

    std::ostream& out_;
    const bool bar_, quiet_;
    std::mutex mutex_;
    std::string card_;
    unsigned round_ = 0;
    std::size_t total_ = 0, done_ = 0, compiled_ = 0;
    std::chrono::steady_clock::time_point started_, last_line_;
    bool drawn_ = false;
};

}  // namespace kdbgen
