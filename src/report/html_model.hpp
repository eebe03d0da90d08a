// The data of the HTML page (report/html.hpp), as every command fills it: kernels with their ops
// and handles, source files interned by path, problems, the totals and the verdict shown at the
// top, and profile's rankings. The page's script (src/report/page/page.js) reads it back; the
// members are short because a 100,000-file cache's page holds 100,000 ops. Internal to the
// library.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/report/report.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov {

// The four handle states a kernel's bar shows, in its order.
struct HandleBar {
    std::uint64_t populated = 0;
    std::uint64_t null = 0;
    std::uint64_t absent = 0;
    std::uint64_t malformed = 0;
};

// One kernel row: a kernel directory (scan, annotate, check, explain) or a bundle (profile).
struct HtmlKernel {
    std::string name; // grouping key: the kernel name, else the directory (profile: its label)
    std::string dir;
    std::string key;  // profile: the bundle's provenance key
    std::string next; // what `sdscprov explain` takes to show it (a directory or a key), if any
    HandleBar bar;
    std::uint64_t files = 0;
    std::uint64_t findings = 0;
    // What "worst first" sorts by, as the text report does: errors, then the files that lack
    // provenance (check: the findings), then problems of any severity.
    std::uint64_t errors = 0;
    std::uint64_t lacking = 0;
    std::uint64_t problems = 0;
    std::string note; // e.g. annotate's match, profile's resolution
    std::vector<std::string> pre_grad_nodes;
    std::vector<std::string> post_grad_nodes;
    std::vector<std::pair<std::string, std::optional<HandleSource>>> stack_traces;
    // Profile: device time, events, and the stage ticks (DMI, PREP, CMPT, DMO).
    std::optional<std::uint64_t> ns;
    std::uint64_t events = 0;
    std::optional<std::array<std::uint64_t, 4>> stage_ticks;
    // Profile --baseline: the base run's device time and events, when the bundle ran in it (`ns`
    // is then the new run's, absent for a bundle gone from it).
    std::optional<std::pair<std::uint64_t, std::uint64_t>> base;
};

struct HtmlOp {
    std::string file;  // the SDSC file (or, in profile, the handle's id)
    std::string key;   // the op key
    std::string state; // handle state
    const DebugHandle* handle = nullptr;
    std::vector<std::string> notes; // findings, what annotate did
};

// A row of a compared ranking (profile --baseline): the row, and the kernels (indexes in the
// order given to kernel()) of its bundles in either run.
struct HtmlChangeRow {
    const RowChange* row = nullptr;
    std::vector<std::uint32_t> kernels;
};

class HtmlModel {
public:
    // The page's source lines are read under `source_text` (held by reference).
    HtmlModel(std::string command, std::string title, const SourceTextOptions& source_text);
    ~HtmlModel();
    HtmlModel(const HtmlModel&) = delete;
    HtmlModel& operator=(const HtmlModel&) = delete;

    const std::string& title() const { return title_; }
    void summary(std::string label, std::string value);
    void coverage(std::uint64_t files,
                  const std::array<std::uint64_t, provenance_member_count>& members);
    void kernel(const HtmlKernel& kernel, const std::vector<HtmlOp>& ops);
    void problem(const Problem& p);
    // A row of the problems list that is not a Problem: a check finding, a profile diagnostic.
    void listed(const std::string& path, TextPosition pos, std::string_view severity,
                std::string_view code, const std::string& message);
    // How the run ended, under the title: `tone` is "pass", "fail" or "note" (the page shows the
    // text, the tone only colours it).
    void verdict(std::string_view tone, const std::string& text);
    // Profile: the totals the header's sentence says (device time, paired and unresolved shares).
    void profile_totals(const ProfileCoverage& coverage, std::size_t bundles);
    // Profile: one ranking, worst first as given; `rows`' bundles index the kernels in the order
    // they were given to kernel().
    // With `ideal`, each row also gives its ideal, lost and measured-with-an-ideal time.
    void ranking(std::string_view id, std::string_view title, std::string_view what,
                 std::string_view note, const std::vector<ProfileRow>& rows, bool ideal = false);
    // Profile of several traces: the ranks' numbers, in the order of each row's rank_ns (the
    // rankings given after it carry each row's time in each rank: the page's per-rank columns).
    void ranks(const std::vector<std::int64_t>& numbers);
    // Profile: the device time of a source line (the heat), and the time it lost against the
    // ideal (the other heat; the page offers the switch once a line has one).
    void line_time(const std::string& file, std::int64_t line, std::uint64_t ns);
    void line_lost(const std::string& file, std::int64_t line, std::uint64_t ns);
    // Profile, when the trace has runtime launch events: the steps of its timeline (their
    // figures and each bundle's time in them; bundles index the kernels in the order given to
    // kernel()), and the idle time before a source line's kernels (the heat by idle time).
    void steps(const TimelineSummary& timeline);
    void line_idle(const std::string& file, std::int64_t line, std::uint64_t ns);
    // Profile --baseline: the base run's totals (profile_totals gives the new run's), how the
    // runs are compared (totals, and why; or per step) and each run's figures as compared.
    void baseline_totals(const ProfileComparison& c);
    // Profile --baseline: one compared ranking, in the comparison's order (the largest change
    // first).
    void change_ranking(std::string_view id, std::string_view title, std::string_view what,
                        std::string_view note, const std::vector<HtmlChangeRow>& rows);
    // Profile --baseline: the base run's device time of a source line (line_time gives the new
    // run's); the page's heat by change is the difference.
    void line_base(const std::string& file, std::int64_t line, std::uint64_t ns);

    // The page's data: the source files' lines are read here (each line a handle names, with
    // source_window_lines around it when the source-text rule lets the file be read, else the
    // line alone), and what was not read is said once.
    std::string json();

private:
    struct Buffers;
    std::size_t source_index(const std::string& file);
    std::string sources_json(SourceTextNote& note) const;
    std::string title_;
    const SourceTextOptions& source_text_;
    std::unique_ptr<Buffers> b_;
    std::map<std::string, std::size_t> source_ids_;
    std::vector<std::string> sources_;                        // by index
    std::vector<std::set<std::int64_t>> source_lines_;        // lines handles name
    std::vector<std::map<std::int64_t, std::uint64_t>> heat_; // ns by line
    std::vector<std::map<std::int64_t, std::uint64_t>> lost_; // lost ns by line
    std::vector<std::map<std::int64_t, std::uint64_t>> base_; // base run's ns by line
    std::vector<std::map<std::int64_t, std::uint64_t>> idle_; // idle ns by line
    bool any_lost_ = false;
    bool any_idle_ = false;
    bool any_base_ = false;
};

// Profile's bundles as the page's kernels (html_profile.cpp): a bundle's row (named by its label,
// with its device time and stages) and its direct handles as its ops, counted in the row's bar.
HtmlKernel profile_bundle_row(const ProfileBundle& b);
// Profile's page of `report` on `model` (which may already hold a verdict and summary rows).
std::string profile_page(HtmlModel& model, const ProfileReport& report);
std::vector<HtmlOp> profile_bundle_ops(const ProfileBundle& b,
                                       const std::map<std::string_view, const DebugHandle*>& by_id,
                                       HtmlKernel& row);

// The page printer of scan, annotate and check (make_printer's html).
std::unique_ptr<ReportPrinter> make_html_printer(std::ostream& out, PrinterOptions options);

} // namespace sdscprov
