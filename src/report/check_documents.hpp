// The documents check writes at the end of its run (JSON, SARIF, GitHub workflow commands and
// step summary, JUnit): what make_check_printer's document printer writes. Not API: the unit
// tests write them from a CheckResult they build.
#pragma once

#include "sdscprov/report/check_printers.hpp"

#include <cstdint>
#include <ostream>
#include <vector>

namespace sdscprov {

// check --format json: {"sdscprov_check": 1, "files": N, "findings": [{path, line, col, rule,
// severity, message}], "problems": [{path, line, col, severity, code, message}]}
// (docs/report-json.md); a finding's severity is "error" (fails the gate) or "note".
void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files);

// check --format json of a sharded run (--shard): the same document, each finding and problem
// with its place in the whole run and a "shard" member, for `sdscprov merge`
// (docs/report-json.md, "Shards").
void write_check_json(std::ostream& out, const CheckResult& result, const ShardWalk& walk);

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
