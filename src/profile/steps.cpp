#include "sdscprov/profile/steps.hpp"

#include "profile/derived.hpp"
#include "profile/saturating.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

namespace sdscprov {

bool interval_of(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns) {
    auto ts = event_ts_ns(e);
    auto dur = event_dur_ns(e);
    if (!ts || !dur) {
        return false;
    }
    start_ns = *ts;
    end_ns = saturating_add(*ts, *dur);
    return true;
}

bool is_step_span(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns) {
    const CatKind kind = cat_kind(e);
    return (kind == CatKind::user_annotation || kind == CatKind::cpu_op) &&
           e.ph_state == FieldState::ok && e.ph == "X" && e.name_state == FieldState::ok &&
           e.name.starts_with("ProfilerStep#") && interval_of(e, start_ns, end_ns);
}

void StepLog::event(const TraceEvent& e) {
    Span s{};
    if (is_step_span(e, s.start, s.end)) {
        spans_.push_back(s);
    }
}

void StepLog::kernel(std::uint32_t slot, const TraceEvent& e, std::uint64_t ns) {
    kernel_at(slot, event_ts_ns(e), ns);
}

void StepLog::kernel_at(std::uint32_t slot, std::optional<std::uint64_t> start_ns,
                        std::uint64_t ns) {
    entries_.push_back({slot, 0, start_ns.value_or(no_ts), ns});
}

void StepLog::moved(std::uint32_t from, std::uint32_t to) {
    entries_.push_back({from, to + 1, 0, 0});
}

StepLog::Attributed StepLog::attribute(std::size_t slots) const {
    Attributed out;
    out.ns.assign(slots, 0);
    out.events.assign(slots, 0);
    out.summary.recorded = true;
    out.summary.spans = spans_.size();
    std::vector<Span> spans = spans_;
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    // The span started last at or before `ts`, when it has not ended by then.
    auto in_step = [&spans](std::uint64_t ts) {
        if (ts == no_ts) {
            return false;
        }
        auto it = std::upper_bound(spans.begin(), spans.end(), ts,
                                   [](std::uint64_t t, const Span& s) { return t < s.start; });
        return it != spans.begin() && ts < std::prev(it)->end;
    };
    for (const auto& e : entries_) {
        if (e.slot >= slots || (e.moved_to != 0 && e.moved_to - 1 >= slots)) {
            continue;
        }
        if (e.moved_to != 0) {
            auto to = e.moved_to - 1;
            out.ns[to] = saturating_add(out.ns[to], out.ns[e.slot]);
            out.events[to] += out.events[e.slot];
            out.ns[e.slot] = 0;
            out.events[e.slot] = 0;
        } else if (in_step(e.ts)) {
            out.ns[e.slot] = saturating_add(out.ns[e.slot], e.ns);
            ++out.events[e.slot];
            ++out.summary.events;
            out.summary.ns = saturating_add(out.summary.ns, e.ns);
        } else {
            ++out.summary.outside_events;
            out.summary.outside_ns = saturating_add(out.summary.outside_ns, e.ns);
        }
    }
    return out;
}

std::uint64_t per_step(std::uint64_t total, std::uint64_t steps) {
    if (steps == 0) {
        return 0;
    }
    std::uint64_t q = total / steps;
    std::uint64_t r = total % steps;
    return r >= steps - r ? q + 1 : q; // half up: 2r >= steps, without overflow
}

} // namespace sdscprov
