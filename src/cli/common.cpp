#include "common.hpp"
#include "messages.hpp"

#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/ioctl.h>

namespace sdscprov::cli {

namespace {

bool any_internal_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const auto& p) { return p.code == ProblemCode::internal_error; });
}

} // namespace

void add_max_file_size_option(CLI::App& cmd, std::uint64_t& value, const std::string& what) {
    add_decimal_option(cmd, "--max-file-size", value, WholeRange{0, largest_max_file_size}, what)
        ->type_name("SIZE");
}

void add_common_options(CLI::App& cmd, CommonOptions& o, const std::vector<Format>& formats) {
    cmd.add_option("paths", o.paths, "Kernel cache directories, kernel directories or SDSC files")
        ->required();
    add_format_option(cmd, o.format, formats, "Report format");
    add_decimal_option(cmd, "-j,--jobs", o.jobs, WholeRange{1, max_jobs},
                       "Worker threads (default: all cores)");
    add_discover_options(cmd, o.discover, "scan",
                         "Follow symbolic links to directories (loops are detected)");
    add_max_file_size_option(cmd, o.max_file_size,
                             "Larger files (SDSC files, bundle.mlir, sidecars) are reported, not "
                             "read (bytes)");
    cmd.add_flag("-q,--quiet", o.quiet,
                 "Print nothing but findings (check) and errors; no report, no progress line");
    cmd.add_flag("-v,--all", o.all,
                 "Text report: one row per kernel directory (by default: the totals and the "
                 "kernels that need attention, on one screen)");
    add_color_option(cmd, o.color, "Colour in text reports");
    add_shard_option(cmd, o.shard);
    if (std::find(formats.begin(), formats.end(), Format::html) != formats.end()) {
        add_source_text_options(cmd, o.source_text);
    }
}

bool use_color(ColorMode mode, int fd) {
    if (mode == ColorMode::always) {
        return true;
    }
    if (mode == ColorMode::never) {
        return false;
    }
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(fd) != 0 && (no_color == nullptr || *no_color == '\0');
}

std::size_t text_width(int fd) {
    if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
        char* end = nullptr;
        unsigned long n = std::strtoul(columns, &end, 10);
        if (*end == '\0' && n >= 20 && n <= 10000) {
            return n;
        }
    }
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) {
        return size.ws_col;
    }
    return 100;
}

std::size_t report_width(int fd) {
    return ::isatty(fd) != 0 ? text_width(fd) : unlimited_width;
}

PrinterOptions printer_options_for(const CommonOptions& o, ReportCommand command, bool to_stderr) {
    PrinterOptions p;
    int fd = to_stderr ? STDERR_FILENO : STDOUT_FILENO;
    p.color = use_color(o.color, fd);
    p.command = command;
    p.all = o.all;
    p.width = report_width(fd);
    p.source_text = source_text_options(o.source_text, o.paths);
    return p;
}

PipelineOptions pipeline_options(const CommonOptions& o) {
    PipelineOptions options;
    options.jobs = o.jobs;
    options.discover = o.discover;
    options.scan.max_file_size = o.max_file_size;
    options.shard = o.shard;
    return options;
}

bool any_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const Problem& p) { return p.severity == Severity::error; });
}

void finish_report(ReportPrinter* printer, const PipelineResult& result,
                   const std::vector<Problem>& first) {
    std::cout.flush();
    messages::problems(first);
    messages::problems(result.problems);
    if (printer != nullptr) {
        if (first.empty()) {
            printer->end({result.totals, result.problems});
        } else {
            std::vector<Problem> all = first;
            all.insert(all.end(), result.problems.begin(), result.problems.end());
            printer->end({result.totals, all});
        }
    }
    std::cout.flush();
}

int exit_status(const std::vector<Problem>& problems, bool pending) {
    if (any_internal_error(problems)) {
        return exit_internal;
    }
    if (any_error(problems)) {
        return exit_bad_input;
    }
    return pending ? exit_changes_pending : exit_ok;
}

// The stream keeps no errno: one byte more is written directly to learn it (the report is broken
// already).
int with_report_written(int status) {
    std::cout.flush();
    if (std::cout) {
        return status;
    }
    int err = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : 0;
    messages::error("", std::string("cannot write the report to standard output") +
                            (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
    return status == exit_internal ? exit_internal : exit_bad_input;
}

} // namespace sdscprov::cli
