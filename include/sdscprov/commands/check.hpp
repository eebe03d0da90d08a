// check: the gate for golden kernels and CI. A finding is an SDSC file without a populated,
// well-formed debug_handle_, or (checked against origins maps) one whose handle is not the
// map's. Findings are reported at the line of the op key, or of the handle when there is one.
#pragma once

#include "sdscprov/commands/results.hpp"

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

enum class CheckRule {
    missing_handle,   // no debug_handle_ member
    null_handle,      // debug_handle_ is null
    malformed_handle, // debug_handle_ is not of the documented shape
    stale_handle,     // populated, but not the handle the origins map gives
};
std::string_view to_string(CheckRule r); // "missing-handle", ...

struct Finding {
    std::string path;
    TextPosition pos;
    CheckRule rule;
    std::string message;
};

// The findings for one kernel directory, in file order. Files that could not be scanned are not
// findings: they are problems (bad input). With an annotation (annotate in check mode), a handle
// that differs from the map's is a finding too.
std::vector<Finding> check_kernel(const KernelReport& report);

// check --format json: {"sdscprov_check": 1, "files": N, "findings": [{path, line, col, rule,
// message}], "problems": [{path, line, col, severity, code, message}]} (docs/report-json.md).
void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files);

// One kernel directory's check, for the formats that group by directory (JUnit).
struct CheckedKernel {
    std::string dir;
    std::uint64_t files = 0;
    std::vector<Finding> findings;
    std::vector<Problem> problems; // its files' problems and its own (bad input)
    // A sharded run's: the directory's place in the whole walk (shard.hpp).
    std::optional<std::uint64_t> position;
};
CheckedKernel checked_kernel(const KernelReport& report);

// What every format gets: the kernels in discovery order, and every problem (walk problems and
// origins map problems included), in order.
struct CheckResult {
    std::vector<CheckedKernel> kernels;
    std::vector<Problem> problems;
    std::uint64_t files() const;
    std::uint64_t findings() const;
};

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
