// The profiler's step spans: torch.profiler marks each iteration it records with a complete event
// `ProfilerStep#N` on the host (cat "user_annotation", "cpu_op" in older releases), from
// `prof.step()`. With them a trace's device time can be told per step, so that runs of different
// lengths compare fairly (`profile --baseline`). docs/profile.md states the rules:
//  - a step is one such span, [ts, ts + dur); spans are counted, not step numbers;
//  - a kernel event belongs to the step whose span contains its start (ts), whatever its pid: the
//    profiler writes device events on the host's clock; a kernel that starts in no span (before
//    the first step, between steps, after the last) is in no step;
//  - the device-side copies of the spans (cat "gpu_user_annotation") are not steps.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace sdscprov {

struct TraceEvent;

// A trace's steps and what of its device time they hold.
struct StepSummary {
    bool recorded = false;            // the builder was asked to attribute kernels to steps
    std::uint64_t spans = 0;          // the ProfilerStep# spans
    std::uint64_t events = 0;         // kernel events that start in a step
    std::uint64_t ns = 0;             // their device time
    std::uint64_t outside_events = 0; // kernel events in no step (or without a usable ts)
    std::uint64_t outside_ns = 0;
};

// A complete event's [ts, ts + dur) in ns; false when either is missing or unusable.
bool interval_of(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns);

// Whether `e` is a step span (a complete ProfilerStep# event of the host with a usable ts and
// dur); its [start, end) in ns when it is.
bool is_step_span(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns);

// The log the profile builder keeps when asked: the step spans and, per counted kernel event,
// its slot (the builder's bundle), its start and its device time, and the moves of a slot's time
// to another (an unpaired group that left the table for the overflow group). The spans may come
// anywhere in the trace, so kernels are attributed once the whole trace was read. 24 bytes per
// kernel event.
class StepLog {
public:
    void event(const TraceEvent& e); // a step span is kept, anything else ignored
    void kernel(std::uint32_t slot, const TraceEvent& e, std::uint64_t ns);
    void kernel_at(std::uint32_t slot, std::optional<std::uint64_t> start_ns, std::uint64_t ns);
    void moved(std::uint32_t from, std::uint32_t to); // from's time so far now belongs to `to`

    // Per slot (`slots` of them): the time and events that started in a step; the summary.
    struct Attributed {
        std::vector<std::uint64_t> ns;
        std::vector<std::uint64_t> events;
        StepSummary summary;
    };
    Attributed attribute(std::size_t slots) const;

private:
    struct Span {
        std::uint64_t start;
        std::uint64_t end;
    };
    struct Entry {
        std::uint32_t slot;
        std::uint32_t moved_to; // + 1; 0: a kernel event
        std::uint64_t ts;       // its start in ns; no_ts when it had none usable
        std::uint64_t ns;
    };
    static constexpr std::uint64_t no_ts = ~std::uint64_t{0};
    std::vector<Span> spans_;
    std::vector<Entry> entries_;
};

// A per-step figure: `total` over `steps` steps, rounded half up to the ns (0 without steps).
std::uint64_t per_step(std::uint64_t total, std::uint64_t steps);

} // namespace sdscprov
