// The report of scan, annotate and strip (and the page of check): kernel results one at a time,
// in discovery order, then the totals and every problem (the convention of printer.hpp).
#pragma once

#include "sdscprov/commands/check.hpp"
#include "sdscprov/commands/results.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/report/printer.hpp"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace sdscprov {

// The coverage column's cell for one member: all / n of total / none.
enum class Coverage { all, some, none };
Coverage coverage(std::uint64_t count, std::uint64_t total);
std::string_view to_string(Coverage c); // "all", "some", "none" (the JSON report's names)

// Every command's formats; each command takes the ones its --format lists (scan: text, json,
// markdown, html, csv; check: text, json, sarif, github, junit, html, csv; explain: text, json,
// html; profile: text, json, folded, html, csv, acelyzer-categories). html: report/html.hpp.
enum class ReportFormat {
    text,
    json,
    markdown,
    html,
    sarif,
    github,
    junit,
    folded,
    csv,                 // report/csv_printers.hpp
    acelyzer_categories, // profile: aiu-trace-analyzer's category table (csv_printers.hpp)
};

// The command whose kernel report is printed: what the rows mean (the state found, or the state
// after a write) and the name the JSON report and the page carry.
enum class ReportCommand { scan, annotate, strip, check };
std::string_view to_string(ReportCommand c); // "scan", "annotate", "strip", "check"

struct PrinterOptions {
    bool color = false; // ANSI colour (the CLI enables it on a terminal without NO_COLOR)
    ReportCommand command = ReportCommand::scan;
    bool dry_run = false; // annotate --dry-run / --check
    // Text: one row per directory (--all), instead of the kernels that need attention; and the
    // width every line fits in.
    bool all = false;
    std::size_t width = 100;
    // html: the source lines the page shows are read under this rule (the default reads none).
    SourceTextOptions source_text;
    // check (its text, documents and page): what is judged and what fails the gate.
    CheckOptions check;
};

// The end of a run over kernel directories: its totals and every problem (file problems
// included, in discovery order).
struct RunEnd {
    const Totals& totals;
    const std::vector<Problem>& problems;
};

// A Printer of kernel reports (scan, annotate, strip; check's page).
using ReportPrinter = Printer<KernelReport, RunEnd>;

// scan's and annotate's printers: text (also for a format they do not take), json, markdown,
// html.
std::unique_ptr<ReportPrinter> make_printer(ReportFormat format, std::ostream& out,
                                            PrinterOptions options);

// strip's: json is the report; text writes each file's diff (--diff) to `out` as the kernels
// come, and at the end one line of what was stripped to `summary_out` (standard error when the
// diffs are the output). `remove`: the member is removed rather than set to null.
std::unique_ptr<ReportPrinter> make_strip_printer(ReportFormat format, std::ostream& out,
                                                  std::ostream& summary_out, PrinterOptions options,
                                                  bool remove);

} // namespace sdscprov
