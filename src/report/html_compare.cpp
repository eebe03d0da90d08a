// What profile --baseline puts in the HTML page (html_model.hpp): the bundles of both runs as the
// kernels (a bundle is the same in both when its label is), each with its time in either run; the
// compared rankings as the comparison orders them; each source line's device time in both runs,
// for the heat of the new run and the heat by change.
#include "report/html_model.hpp"
#include "sdscprov/report/html.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace sdscprov {

namespace {

using KernelOf = std::map<std::string, std::uint32_t>; // a bundle's label -> its kernel on the page

using HandlesById = std::map<std::string_view, const DebugHandle*>;

HandlesById handles_by_id(const ProfileReport& run) {
    HandlesById by_id;
    for (const auto& h : run.handles) {
        by_id.emplace(h.id, &h);
    }
    return by_id;
}

// A bundle's times in both runs as the comparison has them (its kernel row: the whole trace's,
// or per step), over those of the bundle itself.
void compared_times(HtmlKernel& row, const RowChange& r) {
    row.ns.reset();
    row.events = 0;
    row.base.reset();
    if (r.now) {
        row.ns = r.now->ns;
        row.events = r.now->events;
    }
    if (r.base) {
        row.base = std::pair{r.base->ns, r.base->events};
    }
}

// The bundles of the new run, then those of the base run that are gone from it.
KernelOf add_kernels(HtmlModel& model, const ProfileComparison& c) {
    KernelOf kernel_of;
    std::uint32_t kernels = 0;
    std::map<std::string_view, const RowChange*> kernel_rows;
    for (const auto& r : c.rows(ProfileRanking::kernel)) {
        kernel_rows.emplace(r.label, &r);
    }
    auto add = [&](const ProfileBundle& b, const HandlesById& handles, bool gone) {
        if (!kernel_of.emplace(b.label, kernels).second) {
            return; // in the new run already
        }
        HtmlKernel row = profile_bundle_row(b);
        auto ops = profile_bundle_ops(b, handles, row);
        if (gone) {
            row.base = std::pair{b.time.ns, b.time.events};
            row.ns.reset();
            row.events = 0;
        }
        if (auto it = kernel_rows.find(b.label); it != kernel_rows.end()) {
            compared_times(row, *it->second);
        }
        ++kernels;
        model.kernel(row, ops);
    };
    const HandlesById now_handles = handles_by_id(c.now);
    for (const auto& b : c.now.bundles) {
        add(b, now_handles, false);
    }
    const HandlesById base_handles = handles_by_id(c.base);
    for (const auto& b : c.base.bundles) {
        add(b, base_handles, true);
    }
    return kernel_of;
}

// Each compared row with the kernels of its bundles in both runs (rows joined by label).
std::vector<HtmlChangeRow> change_rows(const std::vector<RowChange>& rows,
                                       const std::vector<ProfileRow>& base_rows,
                                       const std::vector<ProfileRow>& now_rows,
                                       const ProfileComparison& c, const KernelOf& kernel_of) {
    std::map<std::string_view, std::pair<const ProfileRow*, const ProfileRow*>> by_label;
    for (const auto& r : base_rows) {
        by_label[r.label].first = &r;
    }
    for (const auto& r : now_rows) {
        by_label[r.label].second = &r;
    }
    auto kernels_of = [&kernel_of](const ProfileReport& run, const ProfileRow* r,
                                   std::vector<std::uint32_t>& out) {
        if (!r) {
            return; // the row is not in this run
        }
        for (auto i : r->bundles) {
            if (i < run.bundles.size()) {
                out.push_back(kernel_of.at(run.bundles[i].label));
            }
        }
    };
    std::vector<HtmlChangeRow> out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
        HtmlChangeRow row{&r, {}};
        auto it = by_label.find(r.label);
        if (it != by_label.end()) {
            kernels_of(c.now, it->second.second, row.kernels);
            kernels_of(c.base, it->second.first, row.kernels);
        }
        std::sort(row.kernels.begin(), row.kernels.end());
        row.kernels.erase(std::unique(row.kernels.begin(), row.kernels.end()), row.kernels.end());
        out.push_back(std::move(row));
    }
    return out;
}

void summaries(HtmlModel& model, const ProfileComparison& c) {
    model.summary("base trace", c.base.trace);
    model.summary("new trace", c.now.trace);
    model.summary("bundles", std::to_string(c.base.bundles.size()) + " base, " +
                                 std::to_string(c.now.bundles.size()) + " new");
    // As many as the Problems pane lists: the problems and the diagnostics.
    model.summary("problems", std::to_string(c.base.problems.size() + c.base.diagnostics.size()) +
                                  " base, " +
                                  std::to_string(c.now.problems.size() + c.now.diagnostics.size()) +
                                  " new");
}

void problems(HtmlModel& model, const ProfileReport& run) {
    for (const auto& p : run.problems) {
        model.problem(p);
    }
    for (const auto& d : run.diagnostics) {
        model.listed(d.path, d.pos, to_string(d.severity), to_string(d.code),
                     d.message + " (" + std::to_string(d.events) + " events)");
    }
}

} // namespace

std::string render_comparison_html(const ProfileComparison& c,
                                   const SourceTextOptions& source_text) {
    HtmlModel model("profile", "sdscprov profile --baseline", source_text);
    summaries(model, c);
    model.profile_totals(c.now.coverage, c.now.bundles.size());
    model.baseline_totals(c);
    KernelOf kernel_of = add_kernels(model, c);
    static const std::vector<ProfileRow> none;
    const bool ideal = c.base.ideal.any() || c.now.ideal.any();
    for (const auto& ranking : c.rankings) {
        const RankingSpec& spec = *ranking.spec;
        if (spec.needs_ideal && !ideal) {
            continue;
        }
        const Ranking* base = c.base.ranking(spec);
        const Ranking* now = c.now.ranking(spec);
        model.change_ranking(spec.word, spec.page_title, spec.page_column,
                             std::string(spec.note) + (spec.shares_whole ? " the total" : ""),
                             change_rows(ranking.rows, base ? base->rows : none,
                                         now ? now->rows : none, c, kernel_of));
    }
    for (const auto& r : c.rows(ProfileRanking::line)) {
        if (r.line && r.now) {
            model.line_time(r.line->file, r.line->line, r.new_ns());
        }
        if (r.line && r.base) {
            model.line_base(r.line->file, r.line->line, r.base_ns());
        }
    }
    problems(model, c.base);
    problems(model, c.now);
    std::ostringstream out;
    write_html_page(out, model.title(), model.json());
    return out.str();
}

} // namespace sdscprov
