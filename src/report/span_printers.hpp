// Internal: what profile's text and JSON reports show of the host spans (profile/spans.hpp): the
// `--span` line of the header, the table of spans by the device time they launched, and the JSON
// members of the same. Span names come from the trace: printed as printable() shows them.
#pragma once

#include "core/json_out.hpp"
#include "report/timeline_printers.hpp"
#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <string>

namespace sdscprov::span_printers {

// Whether a report shows its host spans: with --span, or when it shows the timeline
// (timeline_printers::shown(): the trace has runtime launch events, or --by idle asked).
inline bool shown(const ProfileReport& r, bool timeline) {
    return r.spans.filter.has_value() || (timeline && r.spans.shown());
}

// The header's lines about --span and late spans (none when the spans are not shown).
std::string header_lines(const ProfileReport& r, bool timeline, std::size_t width);

// "Host spans by the device time they launched": at most `top` rows (0: all); empty when the
// trace has no host span or they are not shown.
std::string text(const ProfileReport& r, bool timeline, std::size_t top, std::size_t width,
                 bool color);

// A comparison's line about --span (which filters both runs alike); empty without it.
std::string comparison_line(const ProfileReport& base, const ProfileReport& now,
                            std::size_t width);

// A compared run's "span" member: what --span kept of it (nothing without --span).
template <class W> void run_json(W& w, const SpanSummary& s) {
    if (!s.filter) {
        return;
    }
    json_out::key(w, "span");
    w.StartObject();
    json_out::member(w, "pattern", *s.filter);
    json_out::member(w, "matching_spans", s.matching);
    json_out::member(w, "activities", s.seen);
    json_out::member(w, "kept_activities", s.kept);
    json_out::member(w, "late_spans", s.late);
    w.EndObject();
}

// The report's "span_filter" and "spans" members, when shown().
template <class W> void spans_json(W& w, const ProfileReport& r, bool timeline) {
    if (!shown(r, timeline)) {
        return;
    }
    const SpanSummary& s = r.spans;
    json_out::key(w, "span_filter");
    w.StartObject();
    json_out::key(w, "pattern");
    if (s.filter) {
        json_out::string(w, *s.filter);
    } else {
        w.Null();
    }
    json_out::member(w, "host_spans", s.spans);
    json_out::member(w, "matching_spans", s.matching);
    json_out::member(w, "activities", s.seen);
    json_out::member(w, "kept_activities", s.kept);
    json_out::member(w, "late_spans", s.late);
    w.EndObject();
    json_out::key(w, "spans");
    w.StartArray();
    for (const auto& row : s.rows) {
        w.StartObject();
        json_out::member(w, "name", row.name);
        json_out::member(w, "occurrences", row.occurrences);
        json_out::member(w, "matches", row.matches);
        json_out::member(w, "activities", row.activities);
        json_out::member(w, "kernels", row.kernels);
        json_out::member(w, "kernel_ns", row.kernel_ns);
        json_out::key(w, "idle");
        timeline_printers::idle_json(w, row.idle);
        w.EndObject();
    }
    w.EndArray();
}

} // namespace sdscprov::span_printers
