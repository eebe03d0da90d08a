// Internal: what profile --baseline shows of the time between kernels: each run's mean step
// (profile/compare.hpp MeanStep) side by side, in text and in JSON.
#pragma once

#include "core/json_out.hpp"
#include "report/timeline_printers.hpp"
#include "sdscprov/profile/compare.hpp"

#include <cstddef>
#include <string>

namespace sdscprov::steps_compared {

// "Mean step compared (...)" and a table of base ms, new ms, change ms and change per figure.
std::string text(const StepsCompared& s, std::size_t width, bool color);

template <class W> void mean_step_json(W& w, const MeanStep& m) {
    w.StartObject();
    json_out::member(w, "steps", m.steps);
    json_out::member(w, "steps_from", m.step_spans ? "ProfilerStep spans" : "whole trace");
    json_out::member(w, "wall_ns", m.wall_ns);
    json_out::key(w, "step_ns");
    w.StartObject();
    json_out::member(w, "min", m.min_ns);
    json_out::member(w, "median", m.median_ns);
    json_out::member(w, "max", m.max_ns);
    w.EndObject();
    json_out::member(w, "kernel_busy_ns", m.kernel_busy_ns);
    json_out::member(w, "transfer_ns", m.transfer_ns);
    json_out::key(w, "idle");
    timeline_printers::idle_json(w, m.idle);
    json_out::member(w, "launches", m.launches);
    json_out::member(w, "launch_median_ns", m.launch_median_ns);
    w.EndObject();
}

// "mean_step": {"base": MEAN_STEP, "new": MEAN_STEP}, or null when not compared.
template <class W> void json(W& w, const std::optional<StepsCompared>& s) {
    json_out::key(w, "mean_step");
    if (!s) {
        w.Null();
        return;
    }
    w.StartObject();
    json_out::key(w, "base");
    mean_step_json(w, s->base);
    json_out::key(w, "new");
    mean_step_json(w, s->now);
    w.EndObject();
}

} // namespace sdscprov::steps_compared
