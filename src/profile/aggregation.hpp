// Internal: profile's bundles and what their events add up to (profile.cpp): the paired bundles,
// the bounded table of unresolved groups (ProfileBuilder), the coverage, the stages, and the
// report's rankings once the trace is read.
#pragma once

#include "profile/diagnostic_log.hpp"
#include "profile/evicted_names.hpp"
#include "sdscprov/profile/profile.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace sdscprov {

// The events of one unresolved group: same reason, same name (without #<step>).
struct UnpairedGroup {
    ProblemCode reason;
    std::string name;
    std::string key;
};

struct BundleState {
    ProfileBundle bundle;
    std::vector<DebugHandle> handles;
    std::vector<std::uint32_t> diagnostics; // of the log, counted at each of its events
};

// The labels of each item joined by '+', or `none` when there is none.
template <class Items, class Label>
std::string joined(const Items& items, Label label, std::string_view none) {
    std::string s;
    for (const auto& item : items) {
        if (!s.empty()) {
            s += '+';
        }
        s += label(item);
    }
    return s.empty() ? std::string(none) : s;
}

// The frames of a bundle's folded stack: root_label, aten_label, kernel_label (profile.hpp).
void label_frames(ProfileBundle& b);

// The heavier of two times: more nanoseconds, then more events.
bool heavier(const DeviceTime& a, const DeviceTime& b);

// Rows heaviest first, then by label.
void sort_rows(std::vector<ProfileRow>& rows);

// Each bundle's row label (ProfileBundle::label): the kernel and what tells it apart.
void label_rows(std::vector<ProfileBundle>& bundles);

class Aggregation {
public:
    Aggregation(const UtilizationOptions& utilization, DiagnosticLog& log);

    KernelIdeals& ideals() { return ideals_; }
    const BundleState& bundle(std::uint32_t slot) const { return bundles_[slot]; }
    // A new paired bundle: its slot.
    std::uint32_t add_paired(BundleState state);
    // The slot of an unresolved group's events: its own while it is among the kept ones; a new
    // group takes the slot of the least one when the table is full (whose time goes to the
    // overflow group), unless its name left the table before: then, as every name that left,
    // the overflow group.
    std::uint32_t unresolved_bundle(const UnpairedGroup& g);

    void trace_event() { ++coverage_.trace_events; }
    // Attribute each kernel event to the step it starts in (ProfileBuilder::record_steps()).
    void record_steps() { step_log_ = std::make_unique<StepLog>(); }
    // Only the activities in a host span matching `filter` count: each kernel event's time is
    // held until the timeline settles it (ProfileBuilder::span_filter()).
    void span_filter(const SpanFilter& filter);
    // A complete event (ph "X"): a step's span, or a kernel event, when steps are recorded.
    void complete_event(const TraceEvent& e) {
        if (step_log_) {
            step_log_->event(e);
        }
        timeline_.event(e);
    }
    // A device activity that is not one of the bundles' kernel events (timeline.hpp).
    void device_activity(const TraceEvent& e, ActivityKind kind) {
        timeline_.activity(e, kind, TimelineLog::no_slot);
    }
    // One kernel event of the bundle at `slot` (`unpaired`: of an unresolved group): its time,
    // stages and ideal added, what its values ran into diagnosed. `tag`: the timeline tells its
    // figures by it (time_each()).
    const BundleState& add_event(std::uint32_t slot, bool unpaired, const TraceEvent& e,
                                 std::uint64_t tag = TimelineLog::no_tag);
    // Whether the timeline took the last event given to add_event() as an activity (and will
    // tell its figures, when it has a tag).
    bool last_timed() const { return last_timed_; }
    // Each tagged kernel event's own figures, as the timeline settles it.
    void time_each(TimelineLog::Timed timed) { timeline_.time_each(std::move(timed)); }

    // The report but its diagnostics: bundles sorted and labelled, rankings made.
    ProfileReport finish(const TraceReadResult& read, const std::string& trace,
                         const std::vector<SpyreProvenance>& sidecars);

private:
    using Rank = std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>;
    static Rank rank(const BundleState& b, std::uint32_t slot);
    std::uint32_t overflow(ProblemCode reason);
    std::uint32_t evict_least(ProblemCode reason);
    DeviceTime event_time(std::uint32_t slot, const TraceEvent& e);
    // A kernel event's time counted in its bundle (slot), the coverage and the steps.
    void count(std::uint32_t slot, const DeviceTime& t, std::optional<std::uint64_t> start_ns);
    void settled(std::uint32_t slot, std::uint32_t deferred, bool kept, std::uint64_t start_ns);
    void ideal_event(DeviceTime& t, std::uint32_t slot, const TraceEvent& e);
    void take_bundles(ProfileReport& r);
    void rankings(ProfileReport& r) const;
    void row_medians(ProfileReport& r) const;

    KernelIdeals ideals_;
    DiagnosticLog& log_;
    std::vector<BundleState> bundles_;
    // The unresolved groups kept apart, at most ProfileBuilder::max_unresolved_groups, and the
    // same ordered by device time (then events, then slot): the least is the first to leave for
    // the overflow group, which then takes every later event of its name (evicted_names_
    // remembers them).
    std::map<std::pair<ProblemCode, std::string>, std::uint32_t> unresolved_by_name_;
    std::set<Rank> unresolved_ranking_;
    EvictedNames evicted_names_;
    // Groups that left the table: a lower bound of the names in the overflow group (a name that
    // the filter turned away without its having left is not counted).
    std::uint64_t overflow_names_ = 0;
    std::optional<std::uint32_t> overflow_group_;
    ProfileCoverage coverage_;
    StageTotals stages_;
    IdealTime coverage_ideal_;
    std::unique_ptr<StepLog> step_log_; // record_steps()
    TimelineLog timeline_;
    // Per slot, each launch delay of its events: for the rows' medians (finish()).
    std::vector<DelayValues> delays_;
    // With span_filter(): the times of the kernel events in the timeline's windows, and the
    // free places among them.
    bool deferring_ = false;
    bool last_timed_ = false;
    std::vector<DeviceTime> held_;
    std::vector<std::uint32_t> free_held_;
};

} // namespace sdscprov
