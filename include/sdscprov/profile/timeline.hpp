// The time between kernels: where each device worked, where it waited, and for what. From a
// trace's device activities (complete events of cat "kernel", "gpu_memcpy", "gpu_memset", and
// every kernel event profile pairs), the host's runtime events that launched them (a complete
// event of a "*runtime*" cat with args.correlation) and the profiler's step spans. docs/profile.md
// states the rules; in short:
//  - a device is args.device, else the event's pid;
//  - on each device, activities in start order: the gap before activity A is the time from the
//    latest end of the activities before it to A's start (0 when they overlap, none before the
//    device's first activity); it is charged to A (its bundle; a gap before a transfer to
//    "[transfers]");
//  - host wait: the part of the gap before A's launch started, min(gap, max(0, launch start -
//    previous end)); the rest is launch latency; without a launch event the gap is unattributed;
//  - launch delay: A's start minus its launch's start (negative: clock skew, counted, taken as 0);
//    a runtime event given twice for one correlation: the earliest start counts;
//  - queue delay of a kernel: its start minus args.submitted, only when every kernel's queued and
//    submitted are consistent with its ts (0 < queued <= submitted <= start), else not given;
//  - steps: a device activity belongs to the ProfilerStep# span that contains its launch's start,
//    else its own start; with no step span the whole trace is one step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

struct TraceEvent;
class SpanFilter;
struct SpanSummary;

// Idle time: the gaps before a set of device activities, split by what the device waited for.
struct IdleTime {
    std::uint64_t gaps = 0; // gaps longer than 0
    std::uint64_t ns = 0;   // host_wait_ns + launch_latency_ns + unattributed_ns
    std::uint64_t host_wait_ns = 0;
    std::uint64_t launch_latency_ns = 0;
    std::uint64_t unattributed_ns = 0;
    void add(const IdleTime& other); // each sum saturates at 2^64 - 1
    bool operator==(const IdleTime&) const = default;
};

// The launch delays of a set of device activities.
struct LaunchDelays {
    std::uint64_t launched = 0; // activities with a launch event
    std::uint64_t skewed = 0;   // of those, starting before their launch (clock skew: taken as 0)
    std::uint64_t total_ns = 0;
    std::uint64_t median_ns = 0; // of the launched ones (median_of)
    bool operator==(const LaunchDelays&) const = default;
};

// A bundle's kernels in one step: how many, their device time (durations summed) and the gaps
// before them.
struct StepBundleTime {
    std::uint32_t bundle = 0; // TimelineLog: the slot; a ProfileReport's: an index into its bundles
    std::uint64_t events = 0;
    std::uint64_t ns = 0;
    std::uint64_t idle_ns = 0;
    void add(const StepBundleTime& other);
    bool operator==(const StepBundleTime&) const = default;
};

// One step (or the whole trace, without step spans).
struct StepTimeline {
    std::string name;           // "ProfilerStep#3", or "(whole trace)"
    std::uint64_t start_ns = 0; // the span's start (the first activity's, for the whole trace)
    std::uint64_t wall_ns = 0;  // the span's length (first start to last end, for the whole trace)
    std::uint64_t kernels = 0;
    std::uint64_t transfers = 0;
    std::uint64_t kernel_busy_ns = 0; // the union of its kernels' intervals, summed over devices
    std::uint64_t transfer_ns = 0;    // the union of its transfers' not overlapping its kernels
    std::uint64_t transfer_bytes = 0; // args.bytes of its transfers
    std::uint64_t transfer_active_ns = 0; // its transfers' durations summed (for the bandwidth)
    IdleTime idle;
    LaunchDelays launch;
    // Its kernels' device time and idle per bundle, by bundle (kernels with no bundle are left
    // out): at most one entry per bundle, whatever the events.
    std::vector<StepBundleTime> bundles;
};

// Kernel queue delay: its start minus args.submitted.
struct QueueDelay {
    std::uint64_t kernels = 0;      // kernels with both queued and submitted not 0
    std::uint64_t inconsistent = 0; // of those, not 0 < queued <= submitted <= start
    bool consistent() const { return kernels > 0 && inconsistent == 0; }
    std::uint64_t total_ns = 0;  // when consistent
    std::uint64_t median_ns = 0; // when consistent
};

struct TimelineSummary {
    std::uint64_t devices = 0;
    std::uint64_t activities = 0;         // device activities with a usable ts and dur
    std::uint64_t launch_events = 0;      // runtime events with args.correlation
    bool step_spans = false;              // false: the whole trace is one step
    std::vector<StepTimeline> steps;      // slowest (longest wall) first, then by start
    std::uint64_t outside_activities = 0; // with step spans: activities in no step
    IdleTime outside_idle;                // and their gaps
    std::uint64_t step_min_ns = 0, step_median_ns = 0, step_max_ns = 0; // of steps' wall
    IdleTime idle;                                                      // every gap
    IdleTime transfers_idle;        // of it, the gaps before transfers ("[transfers]")
    IdleTime unbundled_idle;        // the gaps before kernels profile pairs with no bundle
    std::uint64_t out_of_order = 0; // activities that came after their window (TimelineLog)
    LaunchDelays launch;
    QueueDelay queue;
    bool shown() const { return launch_events > 0; } // the trace has host lanes
};

// One device activity's own figures, as they are charged (--annotate-trace writes them into
// the event): its gap (none before the device's first activity; 0 when it overlaps the ones
// before it), and with a launch event the part of the gap that was host wait and its launch delay
// (0 when it starts before its launch: clock skew).
struct ActivityTimes {
    std::optional<std::uint64_t> gap_ns;
    std::optional<std::uint64_t> host_wait_ns;
    std::optional<std::uint64_t> launch_delay_ns;
};

// The median of `values` (reordered): the middle one, or the mean of the two middle ones rounded
// down; 0 for none.
std::uint64_t median_of(std::vector<std::uint64_t>& values);

// Delays kept for their exact median: 4 bytes each below 2^32 ns (4.29 s), 8 bytes each above.
class DelayValues {
public:
    void add(std::uint64_t ns) {
        if (ns <= 0xffffffffU) {
            small_.push_back(static_cast<std::uint32_t>(ns));
        } else {
            large_.push_back(ns);
        }
    }
    void append(const DelayValues& other);
    std::size_t size() const { return small_.size() + large_.size(); }
    // median_of's median of the values (reordered).
    std::uint64_t median();
    // None kept, and their memory given back.
    void release();

private:
    std::vector<std::uint32_t> small_; // every large value is above every small one
    std::vector<std::uint64_t> large_;
};

// What a complete event is to the timeline, by its cat: a device activity's kind, else nullopt.
enum class ActivityKind : std::uint8_t { kernel, transfer };
std::optional<ActivityKind> activity_kind(const TraceEvent& e);

// The timeline of a trace as it is read, folded per device as the events stream: memory is bounded
// by the devices (a window of `window` activities each, in start order), the bundles, the step
// spans (with, per step, each bundle its kernels are of) and the host spans (spans.hpp), not by
// the trace's events; besides, each runtime launch event's correlation and start
// are kept, and each launched activity's delay (for the medians), for traces that have them.
// Exact when (as torch.profiler writes them) each device's activities come at most `window`
// activities out of their start order, and a step span or a launch event comes before the
// activities it holds or launched leave the window: an activity that comes later than that is
// counted (TimelineSummary::out_of_order), its gap taken as 0.
class TimelineLog {
public:
    static constexpr std::uint32_t no_slot = ~std::uint32_t{0};
    static constexpr std::size_t default_window = std::size_t{1} << 13;

    explicit TimelineLog(std::size_t window = default_window);
    ~TimelineLog();
    TimelineLog(TimelineLog&&) noexcept;
    TimelineLog& operator=(TimelineLog&&) noexcept;

    // Before the trace is read: only the activities in a host span matching `filter` count
    // (spans.hpp); each activity given a `deferred` index is told, as it leaves its window,
    // whether it counts (its slot as moved() left it, and its start).
    using Settled = std::function<void(std::uint32_t slot, std::uint32_t deferred, bool kept,
                                       std::uint64_t start_ns)>;
    void filter(const SpanFilter& filter, Settled settled);

    // Before the trace is read: each activity given a `tag` is told its own figures as it leaves
    // its window (after the activities before it on its device, and its launch, were seen).
    static constexpr std::uint64_t no_tag = ~std::uint64_t{0};
    using Timed = std::function<void(std::uint64_t tag, const ActivityTimes& times)>;
    void time_each(Timed timed);

    // A complete event: a runtime launch, a step span or a host span is kept, anything else
    // ignored.
    void event(const TraceEvent& e);
    // A device activity; `slot`: the profile builder's bundle of a kernel, else no_slot;
    // `deferred`: see filter(); `tag`: see time_each(). False when it has no usable ts and dur
    // (not an activity: neither settled nor timed).
    bool activity(const TraceEvent& e, ActivityKind kind, std::uint32_t slot,
                  std::uint32_t deferred = no_slot, std::uint64_t tag = no_tag);
    // The activities of slot `from` so far belong to `to` (an unpaired group that left the table
    // for the overflow group, which never moves).
    void moved(std::uint32_t from, std::uint32_t to);

    struct Result {
        TimelineSummary summary;
        std::vector<IdleTime> idle;                     // per slot
        std::vector<LaunchDelays> launch;               // per slot
        std::vector<DelayValues> delays;                // per slot: each launch delay (for rows)
        std::shared_ptr<SpanSummary> spans;             // the host spans (spans.hpp)
    };
    // Once the whole trace was read.
    Result finish(std::size_t slots);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
