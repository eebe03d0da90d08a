// Printers of a ProfileComparison (`profile --baseline`): ranked text tables of the change per row,
// JSON for scripts (docs/profile.md has the schema), and the two-column folded stacks a
// differential flame graph is drawn from. They render what the comparison holds.
#pragma once

#include "sdscprov/profile/compare.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// The totals of both runs, then one table per ranking in options.rankings (options.top rows each;
// 0: all): base time, new time, change in ms and in percent, or "new" / "gone".
std::string render_comparison_text(const ProfileComparison& c, const ProfileTextOptions& options);

// {"sdscprov_profile_comparison": 1, ...}: every row of every ranking of both runs.
std::string render_comparison_json(const ProfileComparison& c);

// One line per stack of either run, `ROOT;ATEN;KERNEL BASE_NS NEW_NS` (the stacks of
// render_profile_folded; 0 for a run without the stack), sorted by their bytes: the input of
// flamegraph.pl's differential flame graph, as difffolded.pl writes it.
std::string render_comparison_folded(const ProfileComparison& c);

// The gate's findings in a format CI reads, as `check` writes its own: sarif (SARIF 2.1.0, rule
// fail-over), junit (one failed test case per finding; one passing case without findings),
// github (workflow commands, ::error file=...,line=...). A finding without a source line points
// at `trace`.
std::string render_gate_findings(const std::vector<GateFinding>& findings, ReportFormat format,
                                 const std::string& trace);

// What `profile --baseline` prints: the comparison, and the gate's findings (empty without
// --fail-over), which the CI formats are made of.
struct GatedComparison {
    const ProfileComparison& comparison;
    const std::vector<GateFinding>& findings;
};

struct ComparisonPrinterOptions {
    // Its top, width, shortening and colour; the table is the compared ranking (`by`), or the
    // default set when none is chosen.
    ProfileTextOptions text;
    RankingChoice by;
    std::string trace;             // the new trace: where a finding without a source line points
    SourceTextOptions source_text; // html: the page's source lines are read under it
};

// The comparison's printers: text, json, folded, html, and the findings as junit, github or
// sarif. The comparison comes whole at the end (no items).
std::unique_ptr<Printer<NoItems, GatedComparison>>
make_comparison_printer(ReportFormat format, std::ostream& out, ComparisonPrinterOptions options);

} // namespace sdscprov
