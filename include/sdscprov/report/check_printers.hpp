// check's printers: JSON, SARIF, GitHub workflow commands and step summary, JUnit, and text.
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
    // text: at most CheckTextPrinter::terminal_lines finding lines (standard output is a
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

// check --format json: {"sdscprov_check": 1, "files": N, "findings": [{path, line, col, rule,
// severity, message}], "problems": [{path, line, col, severity, code, message}]}
// (docs/report-json.md); a finding's severity is "error" (fails the gate) or "note".
void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files);

// check --format json of a sharded run (--shard): the same document, each finding and problem
// with its place in the whole run and a "shard" member, for `sdscprov merge`
// (docs/report-json.md, "Shards").
void write_check_json(std::ostream& out, const CheckResult& result, const ShardWalk& walk);

// check's text output: one `path:line:col: message [rule]` line per finding that fails the gate,
// as a compiler gives them, streamed as the kernel directories come; notes are counted by the
// closing lines, not listed. With `cap`, at most `cap` lines and then "... and N more (--all)".
class CheckTextPrinter {
public:
    static constexpr std::size_t terminal_lines = 40;

    CheckTextPrinter(std::ostream& out, bool color, std::size_t cap); // cap 0: every line
    void kernel(const CheckedKernel& kernel);
    void finish();

private:
    void print(const Finding& f);

    std::ostream& out_;
    bool color_;
    std::size_t cap_;
    std::size_t printed_ = 0;
    std::uint64_t more_ = 0;
};

// SARIF 2.1.0: one result per finding (rule ids: the CheckRule names; level "error", or "note" for
// a note) and per problem (rule ids: the problem codes, e.g. parse-error), with the file as a
// relative or absolute URI reference and the line:col as its region.
void write_check_sarif(std::ostream& out, const CheckResult& result);

// GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=...::message` per
// finding and per problem (warnings as ::warning, notes as ::notice).
void write_check_github(std::ostream& out, const CheckResult& result);

// A Markdown summary for $GITHUB_STEP_SUMMARY: counts per rule, then the findings (at most
// `max_rows`).
void write_check_markdown_summary(std::ostream& out, const CheckResult& result,
                                  std::size_t max_rows = 50);

// JUnit XML: one test case per kernel directory, failed when it has findings that fail the gate
// (its notes in <system-out>), in error when a file of it could not be read; one more test case
// for problems outside any directory.
void write_check_junit(std::ostream& out, const CheckResult& result);

} // namespace sdscprov
