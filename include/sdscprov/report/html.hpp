// The HTML page (`--format html` of scan, annotate, check, explain and profile): one
// self-contained file, with its CSS and JavaScript inline and no request leaving it, to look at a
// run instead of reading it. Every command fills the same page: the coverage (totals, kernels
// grouped by name, problems), the model (each source file the handles name, line by line, with
// the kernels and ops that came from each line, and with profile data its device time) and one
// kernel at a time (its ops, handles, FX nodes and stages). docs/usage.md describes it.
//
// Safety: what the page shows comes from files (names, source text, kernel names) and is never
// markup. It travels as JSON inside <script type="application/json"> with '<', '>', '&', U+2028
// and U+2029 escaped, invalid UTF-8 replaced by U+FFFD, and the page's script builds the DOM
// with textContent only. The page also forbids itself any request (Content-Security-Policy).
// The same input gives the same bytes: nothing of the moment or the machine is written.
#pragma once

#include "sdscprov/commands/explain.hpp"
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/profile.hpp"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// JSON text made safe to sit inside <script type="application/json">: '<', '>' and '&' as
// \u003c, \u003e, \u0026, and U+2028 / U+2029 as \u2028 / \u2029. These can only occur inside
// JSON strings, where the escapes mean the same characters.
std::string json_for_script(std::string_view json);

// Text made safe as HTML element content or a quoted attribute value (& < > " ').
std::string html_escape(std::string_view text);

// Every page reads the source lines it shows under `source_text` (source_text.hpp: the default
// allows no root, so reads nothing).
//
// The page: `title` in <title>, `data_json` (the page's data, see src/report/html.cpp) embedded
// with json_for_script, and the page's stylesheet and script.
void write_html_page(std::ostream& out, std::string_view title, std::string_view data_json);

// explain --format html: the kernels explain resolved, with `problems` about the target.
void print_explain_html(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems = {},
                        const SourceTextOptions& source_text = {});

// profile --format html: the bundles as kernels, with their device time and stages, and the
// device time of each source line as a heat.
std::string render_profile_html(const ProfileReport& report,
                                const SourceTextOptions& source_text = {});

// profile --baseline --format html: both runs (the header gives both totals and the change), the
// compared rankings in the comparison's order with each row's base and new time and the change,
// the bundles of either run as the kernels, and a heat by change (growth and shrink of each
// source line) beside the heat of the new run's device time.
std::string render_comparison_html(const ProfileComparison& comparison,
                                   const SourceTextOptions& source_text = {});

// scan, annotate (the state after the run) and check: make_printer(ReportFormat::html, ...)
// gives the printer, which holds each kernel's files and handles until finish() writes the page.

} // namespace sdscprov
