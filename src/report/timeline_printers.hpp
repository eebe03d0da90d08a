// Internal: what profile's text and JSON reports show of the time between kernels
// (profile/timeline.hpp): the step table and the idle breakdown at the top of the text report,
// the rows' idle, host wait and launch delay columns, and the JSON members of the same.
#pragma once

#include "core/json_out.hpp"
#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <string>

namespace sdscprov::timeline_printers {

// Whether a report shows the timeline: the trace has runtime launch events, or it was asked for
// (--by idle).
bool shown(const ProfileReport& r, bool asked);

// The text report's lines: the steps, slowest first (at most `top`, 0: all), and the idle
// breakdown, launch and queue delays.
std::string text(const ProfileReport& r, std::size_t top, std::size_t width, bool color);

// The rows' extra column heads and one row's columns: idle, wait and launch, or idle alone
// (`idle_only`: a terminal too narrow for the three and a label of some length).
std::string columns_head(bool idle_only);
std::string columns(const IdleTime& idle, const LaunchDelays& launch, bool idle_only);

template <class W> void idle_json(W& w, const IdleTime& t) {
    w.StartObject();
    json_out::member(w, "gaps", t.gaps);
    json_out::member(w, "idle_ns", t.ns);
    json_out::member(w, "host_wait_ns", t.host_wait_ns);
    json_out::member(w, "launch_latency_ns", t.launch_latency_ns);
    json_out::member(w, "unattributed_ns", t.unattributed_ns);
    w.EndObject();
}

template <class W> void launch_json(W& w, const LaunchDelays& l) {
    w.StartObject();
    json_out::member(w, "launched", l.launched);
    json_out::member(w, "skewed", l.skewed);
    json_out::member(w, "total_ns", l.total_ns);
    json_out::member(w, "median_ns", l.median_ns);
    w.EndObject();
}

// A row's or a bundle's members: "idle" and "launch".
template <class W> void row_json(W& w, const IdleTime& idle, const LaunchDelays& launch) {
    json_out::key(w, "idle");
    idle_json(w, idle);
    json_out::key(w, "launch");
    launch_json(w, launch);
}

template <class W> void step_json(W& w, const StepTimeline& s) {
    w.StartObject();
    json_out::member(w, "name", s.name);
    json_out::member(w, "start_ns", s.start_ns);
    json_out::member(w, "wall_ns", s.wall_ns);
    json_out::member(w, "kernels", s.kernels);
    json_out::member(w, "transfers", s.transfers);
    json_out::member(w, "kernel_busy_ns", s.kernel_busy_ns);
    json_out::member(w, "transfer_ns", s.transfer_ns);
    json_out::member(w, "transfer_bytes", s.transfer_bytes);
    json_out::member(w, "transfer_active_ns", s.transfer_active_ns);
    json_out::key(w, "transfer_gb_per_s");
    if (s.transfer_active_ns > 0) {
        w.Double(static_cast<double>(s.transfer_bytes) / static_cast<double>(s.transfer_active_ns));
    } else {
        w.Null();
    }
    row_json(w, s.idle, s.launch);
    w.EndObject();
}

// The report's "timeline" member.
template <class W> void timeline_json(W& w, const TimelineSummary& t) {
    json_out::key(w, "timeline");
    w.StartObject();
    json_out::member(w, "devices", t.devices);
    json_out::member(w, "activities", t.activities);
    json_out::member(w, "launch_events", t.launch_events);
    json_out::member(w, "steps_from", t.step_spans ? "ProfilerStep spans" : "whole trace");
    json_out::key(w, "step_ns");
    w.StartObject();
    json_out::member(w, "min", t.step_min_ns);
    json_out::member(w, "median", t.step_median_ns);
    json_out::member(w, "max", t.step_max_ns);
    w.EndObject();
    json_out::key(w, "steps");
    w.StartArray();
    for (const auto& s : t.steps) {
        step_json(w, s);
    }
    w.EndArray();
    json_out::key(w, "outside_steps");
    w.StartObject();
    json_out::member(w, "activities", t.outside_activities);
    json_out::key(w, "idle");
    idle_json(w, t.outside_idle);
    w.EndObject();
    json_out::key(w, "idle");
    idle_json(w, t.idle);
    json_out::key(w, "transfers_idle");
    idle_json(w, t.transfers_idle);
    json_out::key(w, "unbundled_idle");
    idle_json(w, t.unbundled_idle);
    json_out::key(w, "launch");
    launch_json(w, t.launch);
    json_out::member(w, "out_of_order", t.out_of_order);
    json_out::key(w, "queue");
    w.StartObject();
    json_out::member(w, "kernels", t.queue.kernels);
    json_out::member(w, "inconsistent", t.queue.inconsistent);
    json_out::member(w, "consistent", t.queue.consistent());
    json_out::key(w, "total_ns");
    t.queue.consistent() ? w.Uint64(t.queue.total_ns) : w.Null();
    json_out::key(w, "median_ns");
    t.queue.consistent() ? w.Uint64(t.queue.median_ns) : w.Null();
    w.EndObject();
    w.EndObject();
}

} // namespace sdscprov::timeline_printers
