// `profile --annotate-trace OUT`: a copy of the trace in which every paired kernel event gains
// `args.sdscprov` (its source lines, ATen ops, kernels, kernel directories and handle ids), so
// that Perfetto or chrome://tracing shows the model line when a kernel is hovered. Every other
// byte is the trace's own: the member is inserted as args' first member (or an `args` object is
// added as the event's last member). The copy is written to a temporary file beside OUT and
// renamed over it only when it is complete; OUT is never the trace itself, a symbolic link or a
// read-only file. OUT ending in `.gz` is written gzip-compressed.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace sdscprov {

class AnnotatedTrace final : public TraceHandler {
public:
    // Feeds every event to `builder` (the report is made in the same pass) and writes the copy.
    AnnotatedTrace(ProfileBuilder& builder, std::string out);
    ~AnnotatedTrace() override; // removes the temporary file unless committed
    AnnotatedTrace(const AnnotatedTrace&) = delete;
    AnnotatedTrace& operator=(const AnnotatedTrace&) = delete;

    // Checks OUT against the trace at `input` and creates the temporary file; a problem
    // (bad-argument, write-failed) when OUT may not be written.
    std::optional<Problem> open(const std::string& input);

    void event(const TraceEvent& e) override;
    void bytes(std::string_view text) override;

    // Flushes and syncs the copy and renames it over OUT; a write-failed problem otherwise (the
    // temporary file is removed, OUT is as it was).
    std::optional<Problem> commit();

    std::uint64_t annotated_events() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
