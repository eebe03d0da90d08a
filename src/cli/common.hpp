// What every command's front shares: the exit statuses, the options most commands take, and how
// problems and reports reach the terminal (the progress line: progress.hpp).
#pragma once

#include "options.hpp"
#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/report/report.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace sdscprov::cli {

// Exit statuses (README, "Exit status").
inline constexpr int exit_ok = 0;
inline constexpr int exit_changes_pending = 1; // annotate/strip --check; check: findings
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_internal = 3;

// The options of scan, annotate, strip and check.
struct CommonOptions {
    std::vector<std::string> paths;
    Format format = Format::text;
    unsigned jobs = 0;
    DiscoverOptions discover;
    std::uint64_t max_file_size = default_max_file_size;
    ColorMode color = ColorMode::automatic;
    bool quiet = false;
    bool all = false;           // text: one row per directory
    std::optional<Shard> shard; // --shard I/N (shard.hpp); unset: every kernel directory
    SourceTextCli source_text;  // commands with a page (html): where its source text is read
};

// -j, --jobs: from 1 to this; 0 (not given) is all cores.
inline constexpr std::uint64_t max_jobs = 1024;

// --max-file-size: decimal digits only, within 63 bits (file_size.hpp): "-1" would wrap to no
// limit.
void add_max_file_size_option(CLI::App& cmd, std::uint64_t& value, const std::string& what);
// paths, --format (one of `formats`), -j, --include-incomplete, --follow-symlinks,
// --max-file-size, -q, -v/--all, --color, --shard; with html among the formats, the source-text
// options (the page shows source lines).
void add_common_options(CLI::App& cmd, CommonOptions& o,
                        const std::vector<Format>& formats = {Format::text, Format::json,
                                                              Format::markdown, Format::html});

// Colour for a report written to `fd`: --color always / never, else only on a terminal and
// without NO_COLOR (no-color.org: the command-line flag wins over the variable).
bool use_color(ColorMode mode, int fd = STDOUT_FILENO);
// The width text reports fit in: $COLUMNS, else the terminal's, else 100.
std::size_t text_width(int fd);
// The width of a report's names: text_width() on a terminal; elsewhere unlimited_width (a piped
// report keeps every name whole, whatever $COLUMNS says).
std::size_t report_width(int fd);
// Printer options shared by the commands: colour and width for the stream the report goes to.
PrinterOptions printer_options_for(const CommonOptions& o, ReportCommand command,
                                   bool to_stderr = false);
// The pipeline's options: -j, the walk's, --max-file-size, --shard.
PipelineOptions pipeline_options(const CommonOptions& o);

bool any_error(const std::vector<Problem>& problems);
// The end of a report: its rows are on standard output; every problem goes to standard error as a
// path:line:col line (whatever the format, so a report redirected to a file never hides an error;
// the machine formats list them too), then the report's totals close standard output. `first`:
// problems of the run's inputs (annotate's sidecars), before the run's own.
void finish_report(ReportPrinter* printer, const PipelineResult& result,
                   const std::vector<Problem>& first = {});
// The exit status of a run that wrote or checked files: 3 on an internal error, 2 on any other
// error, 1 when `pending` (changes a --check run would make), else 0.
int exit_status(const std::vector<Problem>& problems, bool pending);

// The report reached standard output, or the run fails: a full disk (`> /dev/full`) or a closed
// descriptor must not turn into a lost report and exit 0.
int with_report_written(int status);

// Hands `object` to the end of the process instead of freeing it: a structure built once per run
// (an origins index of tens of thousands of kernels) is otherwise freed piece by piece on one core
// after the workers are done, about 15 ms of a run's end, for memory the exit returns anyway. It
// stays reachable (LeakSanitizer and valgrind do not count it as a leak).
template <class T> void keep_until_exit(std::unique_ptr<T> object) {
    static auto* kept = new std::vector<const void*>(); // never freed, on purpose
    kept->push_back(object.release());
}

} // namespace sdscprov::cli
