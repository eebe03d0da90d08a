// check's printers: text, csv, the page, JSON, SARIF, GitHub workflow commands and step summary,
// and JUnit, all behind one Printer made by make_check_printer.
#pragma once

#include "sdscprov/commands/check.hpp"
#include "sdscprov/report/report.hpp"

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace sdscprov {

// What check gives its printers for each kernel directory: the run's report of it (the page shows
// it) and its check. A format written at the end keeps the check: it moves from `checked`.
struct CheckItem {
    const KernelReport& report;
    CheckedKernel& checked;
};

// check's end: the run's totals, every problem (walk and sidecar problems included) and the
// counts of the closing line.
struct CheckEnd {
    const Totals& totals;
    const std::vector<Problem>& problems;
    const CheckTally& tally;
};

struct CheckPrinterOptions {
    // colour, --all and width (text and the page); `check`: what is judged and what fails
    // (--strict, --all-kernels, --fail-under), which the closing lines say too.
    PrinterOptions report;
    // github: the Markdown summary is appended to this file ($GITHUB_STEP_SUMMARY) when set.
    std::string step_summary;
    // text: at most 40 finding lines, then "... and N more (--all)" (standard output is a
    // terminal and --all was not given); never when the output is piped.
    bool cap_lines = false;
};

// check's printers: text findings as they come, html (the page of scan, with the findings), and
// json, sarif, github and junit written at the end. summary() writes the closing lines (findings,
// files, the kernels that need attention, compiler-generated notes, kernels not from this
// compile, the share of populated handles) to `diagnostics`, which also gets a line when the step
// summary cannot be appended to.
std::unique_ptr<Printer<CheckItem, CheckEnd>> make_check_printer(ReportFormat format,
                                                                 std::ostream& out,
                                                                 std::ostream& diagnostics,
                                                                 CheckPrinterOptions options);

} // namespace sdscprov
