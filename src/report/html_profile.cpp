// What profile puts in the HTML page (html_model.hpp): its bundles as the kernels, with their
// device time and stages; its three rankings, worst first, as the text report has them; the
// device time of each source line as a heat; and, when the trace has runtime launch events, its
// steps and each source line's idle time.
#include "report/html_model.hpp"
#include "sdscprov/report/html.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace sdscprov {

// A bundle on the page: named by its label, the kernel ranking's row (the text report's name).
HtmlKernel profile_bundle_row(const ProfileBundle& b) {
    HtmlKernel row;
    row.name = b.label;
    row.key = b.key;
    row.dir = b.kernel_dirs.empty() ? b.event_name : b.kernel_dirs.front();
    for (std::size_t i = 1; i < b.kernel_dirs.size(); ++i) {
        row.dir += " + " + b.kernel_dirs[i];
    }
    if (!b.kernel_dirs.empty()) {
        row.next = b.kernel_dirs.front(); // explain takes the label too, given the caches
    }
    row.note = std::string(to_string(b.resolution));
    if (b.reason) {
        row.note += ": " + std::string(to_string(*b.reason));
    }
    row.ns = b.time.ns;
    row.events = b.time.events;
    const auto& events = b.time.stages.events;
    if (std::any_of(events.begin(), events.end(), [](std::uint64_t n) { return n > 0; })) {
        row.stage_ticks = b.time.stages.ticks; // else no event filled its counters
    }
    return row;
}

// The bundle's direct handles as its ops.
std::vector<HtmlOp> profile_bundle_ops(const ProfileBundle& b,
                                       const std::map<std::string_view, const DebugHandle*>& by_id,
                                       HtmlKernel& row) {
    std::vector<HtmlOp> ops;
    for (const auto& id : b.handle_ids) {
        HtmlOp o;
        o.file = b.event_name;
        o.key = id;
        auto it = by_id.find(id);
        o.handle = it == by_id.end() ? nullptr : it->second;
        o.state = o.handle ? "populated" : "absent";
        ++(o.handle ? row.bar.populated : row.bar.absent);
        ops.push_back(std::move(o));
    }
    row.files = ops.size();
    return ops;
}

namespace {

// Each source line's device time, lost time and (with a timeline shown) idle time; the steps.
void line_heats(HtmlModel& model, const ProfileReport& report) {
    const bool timeline = report.timeline.shown();
    if (timeline) {
        model.steps(report.timeline);
    }
    for (const auto& r : report.rows(ProfileRanking::line)) {
        if (r.line) {
            model.line_time(r.line->file, r.line->line, r.time.ns);
            if (r.time.ideal.lost_ns > 0) {
                model.line_lost(r.line->file, r.line->line, r.time.ideal.lost_ns);
            }
            if (timeline && r.idle.ns > 0) {
                model.line_idle(r.line->file, r.line->line, r.idle.ns);
            }
        }
    }
}

} // namespace

std::string render_profile_html(const ProfileReport& report, const SourceTextOptions& source_text) {
    HtmlModel model("profile", "sdscprov profile", source_text);
    return profile_page(model, report);
}

std::string profile_page(HtmlModel& model, const ProfileReport& report) {
    model.summary("trace", report.trace);
    model.summary("bundles", std::to_string(report.bundles.size()));
    // As many as the Problems pane lists: the problems and the diagnostics.
    model.summary("problems",
                  std::to_string(report.problems.size() + report.diagnostics.size()));
    const auto& c = report.coverage;
    if (c.dirless_bundles > 0) {
        std::uint64_t us = c.dirless_ns / 1000 + (c.dirless_ns % 1000 >= 500 ? 1 : 0);
        std::string frac = std::to_string(us % 1000);
        std::string ms =
            std::to_string(us / 1000) + "." + std::string(3 - frac.size(), '0') + frac + " ms";
        model.summary(report.caches.empty() ? "bundles in no kernel directory (no cache read)"
                                            : "bundles in no kernel directory of the caches",
                      std::to_string(c.dirless_bundles) + " of " +
                          std::to_string(c.paired_bundles) + ", " + ms);
    }
    if (const SpanSummary& s = report.spans; s.filter) {
        model.summary("--span '" + *s.filter + "'",
                      std::to_string(s.kept) + " of " + std::to_string(s.seen) +
                          " device activities, in " + std::to_string(s.matching) +
                          (s.matching == 1 ? " span matching" : " spans matching"));
    }
    model.profile_totals(report.coverage, report.bundles.size());
    const bool ideal = report.ideal.any();
    const IdealTime& u = report.ideal.time;
    model.summary("core clock", std::to_string(report.ideal.core_mhz) + " MHz");
    if (ideal) {
        model.summary("with an ideal", std::to_string(u.events) + " of " +
                                           std::to_string(report.coverage.kernel_events) +
                                           " events");
        if (auto ratio = utilization(u)) {
            char util[32];
            std::snprintf(util, sizeof util, "%.1f%%", *ratio * 100.0);
            model.summary("utilization", util);
        }
    }
    std::map<std::string_view, const DebugHandle*> by_id;
    for (const auto& h : report.handles) {
        by_id.emplace(h.id, &h);
    }
    for (std::size_t i = 0; i < report.bundles.size(); ++i) {
        HtmlKernel row = profile_bundle_row(report.bundles[i]);
        auto ops = profile_bundle_ops(report.bundles[i], by_id, row);
        model.kernel(row, ops);
    }
    for (const auto& ranking : report.rankings) {
        const RankingSpec& spec = *ranking.spec;
        if (!spec.needs_ideal || ideal) {
            model.ranking(spec.word, spec.page_title, spec.page_column,
                          std::string(spec.note) + (spec.shares_whole ? " 100%" : ""),
                          ranking.rows, ideal);
        }
    }
    line_heats(model, report);
    for (const auto& p : report.problems) {
        model.problem(p);
    }
    for (const auto& d : report.diagnostics) {
        model.listed(d.path, d.pos, to_string(d.severity), to_string(d.code),
                     d.message + " (" + std::to_string(d.events) + " events)");
    }
    std::ostringstream out;
    write_html_page(out, model.title(), model.json());
    return out.str();
}

} // namespace sdscprov
