// The progress line: on standard error, only when standard error is a terminal, never with
// --quiet. It says what is done of what there is (files, or bytes of a trace), the share and the
// rate, is rewritten at most ten times a second from the thread that delivers the work, and is
// erased before the report (clear()) and at the end.
#pragma once

#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/profile/trace.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace sdscprov::cli {

class Progress {
public:
    // `verb`: what is done ("scanned", "annotated"). `report_streams`: the report is written to
    // standard output as the work goes (--all, --diff, JSON): the line is then left out when
    // standard output is the same terminal, as it would break the report's lines.
    Progress(std::string verb, bool report_streams);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    bool enabled() const { return enabled_; }
    // `source`, counting the files of each kernel directory it gives (the total, known once the
    // walk is over; "12,000+" until then). Counts on the walking thread.
    KernelSource counting(KernelSource source);
    // The total, when the walk was over before the work began (annotate's).
    void total(std::uint64_t files);
    // One kernel directory done, of `files` files.
    void kernel(std::size_t files);
    // `done` bytes of `total` read (0: the total is not known, e.g. a gzip trace or a pipe).
    void bytes(std::uint64_t done, std::uint64_t total);
    // Erases the line (before the report is written).
    void clear();

private:
    bool due();
    void show(const std::string& line);

    std::string verb_;
    bool enabled_;
    bool shown_ = false;
    std::size_t shown_columns_ = 0; // of the line on the terminal (ASCII: bytes)
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_;
    std::uint64_t files_ = 0;
    std::atomic<std::uint64_t> found_{0};
    std::atomic<bool> walked_{false};
};

// A trace's handler that also shows the bytes of the trace read so far (every byte passes
// bytes() once), of the file's size when that is what is read (not gzip, not a pipe).
class TraceProgress final : public TraceHandler {
public:
    TraceProgress(TraceHandler& inner, Progress& progress, const std::string& trace);
    void event(const TraceEvent& e) override { inner_.event(e); }
    void bytes(std::string_view text) override;

private:
    TraceHandler& inner_;
    Progress& progress_;
    std::uint64_t total_ = 0;
    std::uint64_t done_ = 0;
};

} // namespace sdscprov::cli
