#include "common.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/walk/shard.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/ioctl.h>

namespace sdscprov::cli {

namespace {

// --shard I/N: only the kernel directories whose path hashes to shard I of N (1-based); the JSON
// reports of all N shards are put back together by `sdscprov merge`.
void add_shard_option(CLI::App& cmd, std::string& shard) {
    cmd.add_option("--shard", shard,
                   "Process shard I of N (1-based) of the kernel directories, chosen by a hash of "
                   "each directory's path; `sdscprov merge` joins the shards' JSON reports")
        ->type_name("I/N")
        ->check(CLI::Validator(
            [](const std::string& text) {
                std::string error;
                return parse_shard(text, error) ? std::string() : error;
            },
            ""));
}

bool any_internal_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const auto& p) { return p.code == ProblemCode::internal_error; });
}

} // namespace

void add_max_file_size_option(CLI::App& cmd, std::uint64_t& value, const std::string& what) {
    cmd.add_option("--max-file-size", value, what)
        ->check(CLI::Validator(
            [](const std::string& text) {
                std::string error;
                return parse_max_file_size(text, error) ? std::string() : error;
            },
            "BYTES"))
        ->capture_default_str();
}

void add_color_option(CLI::App& cmd, std::string& color, const std::string& what) {
    cmd.add_option("--color", color, what)
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
}

void add_common_options(CLI::App& cmd, CommonOptions& o, const std::vector<std::string>& formats) {
    cmd.add_option("paths", o.paths, "Kernel cache directories, kernel directories or SDSC files")
        ->required();
    cmd.add_option("--format", o.format, "Report format")
        ->check(CLI::IsMember(formats))
        ->capture_default_str();
    cmd.add_option("-j,--jobs", o.jobs, "Worker threads (default: all cores)")
        ->check(CLI::Range(1U, 1024U));
    cmd.add_flag("--include-incomplete", o.include_incomplete,
                 "Also scan the kernel cache's temporary (*.tmp.*) and failed/ entries");
    cmd.add_flag("--follow-symlinks", o.follow_symlinks,
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
}

void add_write_options(CLI::App& cmd, WriteCli& o, const std::string& check_help) {
    cmd.add_flag("--dry-run", o.dry_run, "Report what would change, write nothing");
    cmd.add_flag("--check", o.check, check_help);
    cmd.add_flag("--diff", o.diff,
                 "Print a unified diff of each change and write nothing (a preview, as black "
                 "and ruff do; with --check, exit 1 when there are changes)");
    cmd.add_option("--durability", o.durability,
                   "none: no fsync; batch: one syncfs per batch of files, then renames; "
                   "full: fsync every file")
        ->check(CLI::IsMember({"none", "batch", "full"}))
        ->capture_default_str();
}

WriteSettings write_settings(const WriteCli& o) {
    WriteSettings w;
    // --diff previews: it never writes, so `strip --diff . > out.diff` leaves the tree alone.
    w.mode = o.check                ? AnnotateMode::check
             : o.dry_run || o.diff ? AnnotateMode::dry_run
                                    : AnnotateMode::write;
    w.durability = o.durability == "none"   ? Durability::none
                   : o.durability == "full" ? Durability::full
                                            : Durability::batch;
    w.diff = o.diff;
    return w;
}

bool use_color(const std::string& mode, int fd) {
    if (mode == "always") {
        return true;
    }
    if (mode == "never") {
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

PrinterOptions printer_options_for(const CommonOptions& o, std::string command, bool to_stderr) {
    PrinterOptions p;
    int fd = to_stderr ? STDERR_FILENO : STDOUT_FILENO;
    p.color = use_color(o.color, fd);
    p.command = std::move(command);
    p.all = o.all;
    p.width = report_width(fd);
    return p;
}

ReportFormat report_format(const std::string& name) {
    if (name == "json") {
        return ReportFormat::json;
    }
    if (name == "markdown") {
        return ReportFormat::markdown;
    }
    if (name == "html") {
        return ReportFormat::html;
    }
    if (name == "sarif") {
        return ReportFormat::sarif;
    }
    if (name == "github") {
        return ReportFormat::github;
    }
    if (name == "junit") {
        return ReportFormat::junit;
    }
    if (name == "folded") {
        return ReportFormat::folded;
    }
    return ReportFormat::text;
}

PipelineOptions pipeline_options(const CommonOptions& o) {
    PipelineOptions options;
    options.jobs = o.jobs;
    options.discover.include_incomplete = o.include_incomplete;
    options.discover.follow_symlinks = o.follow_symlinks;
    options.scan.max_file_size = o.max_file_size;
    if (!o.shard.empty()) {
        std::string error;
        options.shard = parse_shard(o.shard, error); // validated when parsed
    }
    return options;
}

bool any_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const Problem& p) { return p.severity == Severity::error; });
}

void print_problems(const std::vector<Problem>& problems) {
    for (const auto& p : problems) {
        if (quiet_mode && p.severity != Severity::error) {
            continue;
        }
        std::cerr << quoted_location(p.path, p.pos) << ": " << to_string(p.severity) << ": "
                  << printable_text(p.message) << " [" << to_string(p.code) << "]\n";
    }
}

void finish_report(ReportPrinter* printer, const PipelineResult& result,
                   const std::vector<Problem>& first) {
    std::cout.flush();
    print_problems(first);
    print_problems(result.problems);
    if (printer != nullptr) {
        if (first.empty()) {
            printer->finish(result.totals, result.problems);
        } else {
            std::vector<Problem> all = first;
            all.insert(all.end(), result.problems.begin(), result.problems.end());
            printer->finish(result.totals, all);
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
    std::cerr << "sdscprov: cannot write the report to standard output"
              << (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) << '\n';
    return status == exit_internal ? exit_internal : exit_bad_input;
}

} // namespace sdscprov::cli
