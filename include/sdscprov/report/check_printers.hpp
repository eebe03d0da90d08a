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
    PrinterOptions report; // colour, --all and width (text and the page)
    // github: the Markdown summary is appended to this file ($GITHUB_STEP_SUMMARY) when set.
    std::string step_summary;
};

// check's printers: text findings as they come (held to the end unless --all), html (the page of
// scan, with the findings), and json, sarif, github and junit written at the end. summary()
// writes the closing line (findings, files, the kernels that need attention) to `diagnostics`,
// which also gets a line when the step summary cannot be appended to.
std::unique_ptr<Printer<CheckItem, CheckEnd>> make_check_printer(ReportFormat format,
                                                                 std::ostream& out,
                                                                 std::ostream& diagnostics,
                                                                 CheckPrinterOptions options);

// check --format json: {"sdscprov_check": 1, "files": N, "findings": [{path, line, col, rule,
// message}], "problems": [{path, line, col, severity, code, message}]} (docs/report-json.md).
void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files);

// check --format json of a sharded run (--shard): the same document, each finding and problem
// with its place in the whole run and a "shard" member, for `sdscprov merge`
// (docs/report-json.md, "Shards").
void write_check_json(std::ostream& out, const CheckResult& result, const ShardWalk& walk);

// check's text output. Findings are `path:line:col: message [rule]` lines, as a compiler gives
// them, when there are at most `max_lines` of them (or with `all`); past that, a cache-wide run
// gets the findings counted per kernel name instead, the worst first, at most `max_rows` rows,
// so that it fits one screen. Memory: the first `max_lines` findings and one count per name.
class CheckTextPrinter {
public:
    static constexpr std::size_t max_lines = 40;
    static constexpr std::size_t max_rows = 20;

    CheckTextPrinter(std::ostream& out, bool color, bool all, std::size_t width);
    void kernel(const CheckedKernel& kernel, const std::optional<std::string>& kernel_name);
    void finish();

private:
    struct Counts {
        std::uint64_t dirs = 0;
        std::uint64_t findings = 0;
        std::uint64_t by_rule[4] = {};
    };
    void print(const Finding& f);

    std::ostream& out_;
    bool color_;
    bool all_;
    std::size_t width_;
    std::vector<Finding> held_; // until there are more than max_lines
    bool grouped_ = false;
    std::map<std::string, Counts> groups_;
};

// SARIF 2.1.0: one result per finding (rule ids: the CheckRule names) and per problem (rule ids:
// the problem codes, e.g. parse-error), with the file as a relative or absolute URI reference
// and the line:col as its region.
void write_check_sarif(std::ostream& out, const CheckResult& result);

// GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=...::message` per
// finding and per problem (warnings as ::warning).
void write_check_github(std::ostream& out, const CheckResult& result);

// A Markdown summary for $GITHUB_STEP_SUMMARY: counts per rule, then the findings (at most
// `max_rows`).
void write_check_markdown_summary(std::ostream& out, const CheckResult& result,
                                  std::size_t max_rows = 50);

// JUnit XML: one test case per kernel directory, failed when it has findings, in error when a
// file of it could not be read; one more test case for problems outside any directory.
void write_check_junit(std::ostream& out, const CheckResult& result);

} // namespace sdscprov
