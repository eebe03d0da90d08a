// Printers of a ProfileReport: a ranked text table for people, JSON for scripts
// (docs/profile.md has the schema), and folded stacks for flame graph tools (flamegraph.pl,
// inferno, speedscope). They render what the report holds and compute nothing of their own; the
// output is deterministic (the report's orders; folded lines sorted by their bytes).
#pragma once

#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/report/printer.hpp"
#include "sdscprov/report/report.hpp"

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace sdscprov {


struct ProfileTextOptions {
    std::size_t top = 20; // rows per ranking; 0: every row
    // The tables, in order; empty: every ranking of the report but those shown only with an
    // ideal (choose_rankings adds them when a kernel directory gave one).
    std::vector<const RankingSpec*> rankings;
    ProfileOrder order = ProfileOrder::time;
    bool stages = false;     // the DMI / PREP / CMPT / DMO columns
    std::size_t width = 100; // columns the table fits in (labels are shortened)
    bool shorten = true;     // false: labels and paths whole, whatever the width (not a terminal)
    bool color = false;
    // A drill-down (profile --line, --op, --kernel): instead of the tables, the kernels of that
    // row of `drill` (a source line's, an op's), or a kernel's source lines and ops, each kernel
    // with the `sdscprov explain` command that shows it. find_row() finds the row.
    const RankingSpec* drill = nullptr;
    std::string drill_label;
    // The command that made the report, as shell words ("sdscprov profile trace.json cache/"):
    // the report ends with it and the drill-down into its first table's top row. Empty: not said.
    std::string command;
    // Words each explain command ends with (where source text is read: " --source-map A=B").
    std::string explain_words;
};

std::string render_profile_text(const ProfileReport& report, const ProfileTextOptions& options);

// The tables a text report shows, in order: options.rankings, else the report's own but those
// shown only with an ideal.
std::vector<const RankingSpec*> rankings_shown(const ProfileTextOptions& options,
                                               const ProfileReport& report);
// The tables and their order as chosen. Without a table: every ranking of the report, those shown
// only with an ideal when a kernel directory gave one.
void choose_rankings(ProfileTextOptions& options, const RankingChoice& by,
                     const ProfileReport& report);

// {"sdscprov_profile": 1, ...}: every row of every ranking, every bundle, handle and diagnostic;
// the timeline (its "timeline" member, the rows' and bundles' "idle" and "launch") when the trace
// has runtime launch events or `timeline` asks for it (--by idle).
std::string render_profile_json(const ProfileReport& report, bool timeline = false);

// One line per stack, `ROOT;ATEN;KERNEL VALUE`: the bundle's source lines joined by '+' (or
// [no source], [unresolved]), its ATen ops joined by '+' (or [no aten op], [unresolved]), its
// compiler kernel names (else the event name without #<step>), and the value in integer
// nanoseconds, summed over the bundles with that stack. Stacks of 0 ns are left out. In a frame,
// ';' becomes ',' and control characters '?' (they would break the format).
// `value` picks the number: the device time, the ideal or the time lost against it (of the events
// with an ideal), the idle gaps before the bundle's events, their host-wait part, or the launch
// delays summed (docs/profile.md); the idle values have a stack [transfers];[transfers];[transfers]
// for the gaps before transfers.
enum class FoldedValue { time, ideal, lost, idle, host_wait, launch };
std::uint64_t folded_value(FoldedValue value, const DeviceTime& time, const IdleTime& idle,
                           const LaunchDelays& launch);
std::string render_profile_folded(const ProfileReport& report,
                                  FoldedValue value = FoldedValue::time);

struct ProfilePrinterOptions {
    ProfileTextOptions text; // its rankings and order as `by` chooses for the report given
    RankingChoice by;
    FoldedValue value = FoldedValue::time; // folded
    SourceTextOptions source_text;         // html: the page's source lines are read under it
};

// profile's printers: text, json, folded and html of the report, which comes whole at the end
// (no items); a report of several traces has its own text and page (rank_printers.hpp).
std::unique_ptr<Printer<NoItems, ProfileReport>>
make_profile_printer(ReportFormat format, std::ostream& out, ProfilePrinterOptions options);

} // namespace sdscprov
