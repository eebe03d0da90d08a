// `profile --annotate-trace OUT`: a copy of the trace in which every paired kernel event gains
// `args.sdscprov`, a reference to its bundle (`{"bundle": "<provenance key>"}`), and one metadata
// event at the end of traceEvents, `sdscprov_bundles`, describes each bundle once (its source
// lines, ATen ops, kernels, kernel directories and handle ids). Each annotated event also gets
// its own timeline figures (gap_ns, host_wait_ns, launch_delay_ns: timeline.hpp) once the
// timeline settles it: the bytes after the first event still waiting are held, at most 64 MiB
// (past that the event goes without them, counted by untimed_note()). The copy stays within a few
// percent of the trace's size however many events a bundle has, and Perfetto or chrome://tracing
// load it as they load the trace. Every other byte is the trace's own: the member is inserted as
// args' first member (or an `args` object is added as the event's last member).
//
// The copy is written to a temporary file beside OUT (named and locked as replace.hpp's, so that
// a later run sweeps what a killed one left) and renamed over it only when it is complete; an
// existing OUT keeps its owner, group, mode and extended attributes, or is not replaced. OUT is
// never an input of the run (the trace, a sidecar, a file of a cache given: by device and inode),
// a symbolic link or a read-only file. OUT "-" is standard output; OUT ending in `.gz` is written
// gzip-compressed.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/walk/discover.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// What the run reads: OUT may be none of these.
struct AnnotateTraceInputs {
    std::string trace; // "-": standard input
    std::vector<std::string> sidecars;
    std::vector<std::string> caches; // their SDSC files and bundle.mlir, as discover() finds them
    DiscoverOptions discover;
};

class AnnotatedTrace final : public TraceHandler {
public:
    // Feeds every event to `builder` (the report is made in the same pass) and writes the copy.
    AnnotatedTrace(ProfileBuilder& builder, std::string out);
    ~AnnotatedTrace() override; // removes the temporary file unless committed
    AnnotatedTrace(const AnnotatedTrace&) = delete;
    AnnotatedTrace& operator=(const AnnotatedTrace&) = delete;

    // Checks OUT against the inputs, removes the temporaries of OUT that killed runs left (see
    // notes()) and creates the temporary file; a problem (bad-argument, write-failed) when OUT
    // may not be written.
    std::optional<Problem> open(const AnnotateTraceInputs& inputs);
    // What open() found beside OUT: leftover-temp warnings.
    const std::vector<Problem>& notes() const;
    // After commit(): a note (untimed-annotations) when some events were written without their
    // gap, host wait and launch delay (more than 64 MiB of the trace came before their device's
    // timeline settled them).
    std::optional<Problem> untimed_note() const;
    // OUT is "-": the copy goes to standard output.
    bool to_stdout() const;

    void event(const TraceEvent& e) override;
    void bytes(std::string_view text) override;
    void events_end(std::uint64_t offset) override;

    // Flushes and syncs the copy, gives it OUT's owner, mode and attributes and renames it over
    // OUT; a write-failed problem otherwise (the temporary file is removed, OUT is as it was).
    std::optional<Problem> commit();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
