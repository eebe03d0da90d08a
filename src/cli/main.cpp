// sdscprov: the command-line front. It parses options and wires the library's stages together;
// the work is done in the library (include/sdscprov/).
#include "help.hpp"
#include "profile.hpp"
#include "sdscprov/commands/annotate.hpp"
#include "sdscprov/commands/check.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/commands/explain.hpp"
#include "sdscprov/core/file_size.hpp"
#include "sdscprov/report/merge.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/report/html.hpp"
#include "sdscprov/report/report.hpp"
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/upstream.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// Exit statuses (README, "Exit status").
constexpr int exit_ok = 0;
constexpr int exit_changes_pending = 1; // annotate --check; check: findings
constexpr int exit_bad_input = 2;
constexpr int exit_internal = 3;

struct CommonOptions {
    std::vector<std::string> paths;
    std::string format = "text";
    unsigned jobs = 0;
    bool include_incomplete = false;
    bool follow_symlinks = false;
    std::uint64_t max_file_size = sdscprov::default_max_file_size;
    std::string color = "auto";
    bool quiet = false;
    bool all = false; // text: one row per directory
    std::string shard; // --shard I/N (shard.hpp); empty: every kernel directory
};

// --quiet: nothing but findings (check) and errors; set once the command line is parsed.
bool quiet_mode = false;

// A progress line on standard error for runs that take more than a second: only when standard
// error is a terminal and standard output is not (a report streaming to the terminal shows its
// own progress), and not with --quiet. Rewritten at most five times a second from the
// delivering thread, erased at the end.
class Progress {
public:
    explicit Progress(std::string verb)
        : verb_(std::move(verb)),
          enabled_(!quiet_mode && ::isatty(STDERR_FILENO) != 0 && ::isatty(STDOUT_FILENO) == 0),
          start_(std::chrono::steady_clock::now()), last_(start_) {}
    ~Progress() {
        if (shown_) {
            std::cerr << "\r\x1b[K" << std::flush;
        }
    }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void kernel(std::size_t files) {
        ++kernels_;
        files_ += files;
        if (!enabled_) {
            return;
        }
        auto now = std::chrono::steady_clock::now();
        if (now - start_ < std::chrono::seconds(1) ||
            now - last_ < std::chrono::milliseconds(200)) {
            return;
        }
        last_ = now;
        shown_ = true;
        std::cerr << "\r\x1b[Ksdscprov: " << verb_ << ' ' << files_ << " files in " << kernels_
                  << " kernel directories..." << std::flush;
    }

private:
    std::string verb_;
    bool enabled_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_;
    std::uint64_t kernels_ = 0;
    std::uint64_t files_ = 0;
};

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
                return sdscprov::parse_shard(text, error) ? std::string() : error;
            },
            ""));
}

// --max-file-size: digits only, within 63 bits (file_size.hpp): "-1" would wrap to no limit.
void add_max_file_size_option(CLI::App& cmd, std::uint64_t& value, const std::string& what) {
    cmd.add_option("--max-file-size", value, what)
        ->check(CLI::Validator(
            [](const std::string& text) {
                std::string error;
                return sdscprov::parse_max_file_size(text, error) ? std::string() : error;
            },
            "BYTES"))
        ->capture_default_str();
}

void add_common_options(CLI::App& cmd, CommonOptions& o,
                        const std::vector<std::string>& formats = {"text", "json", "markdown",
                                                                   "html"}) {
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
    cmd.add_option("--color", o.color, "Colour in text reports")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    add_shard_option(cmd, o.shard);
}

// Colour for a report written to `fd`: --color always / never, else only on a terminal and
// without NO_COLOR (no-color.org: the command-line flag wins over the variable).
bool use_color(const std::string& mode, int fd = STDOUT_FILENO) {
    if (mode == "always") {
        return true;
    }
    if (mode == "never") {
        return false;
    }
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(fd) != 0 && (no_color == nullptr || *no_color == '\0');
}

// The width text reports fit in: $COLUMNS, else the terminal's, else 100.
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

// Printer options shared by the commands: colour and width for the stream the report goes to.
sdscprov::PrinterOptions printer_options_for(const CommonOptions& o, std::string command,
                                             bool to_stderr = false) {
    sdscprov::PrinterOptions p;
    int fd = to_stderr ? STDERR_FILENO : STDOUT_FILENO;
    p.color = use_color(o.color, fd);
    p.command = std::move(command);
    p.all = o.all;
    p.width = text_width(fd);
    return p;
}

sdscprov::ReportFormat report_format(const std::string& name) {
    if (name == "json") {
        return sdscprov::ReportFormat::json;
    }
    if (name == "markdown") {
        return sdscprov::ReportFormat::markdown;
    }
    if (name == "html") {
        return sdscprov::ReportFormat::html;
    }
    return sdscprov::ReportFormat::text;
}

sdscprov::PipelineOptions pipeline_options(const CommonOptions& o) {
    sdscprov::PipelineOptions options;
    options.jobs = o.jobs;
    options.discover.include_incomplete = o.include_incomplete;
    options.discover.follow_symlinks = o.follow_symlinks;
    options.scan.max_file_size = o.max_file_size;
    if (!o.shard.empty()) {
        std::string error;
        options.shard = sdscprov::parse_shard(o.shard, error); // validated when parsed
    }
    return options;
}

bool any_error(const std::vector<sdscprov::Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(), [](const sdscprov::Problem& p) {
        return p.severity == sdscprov::Severity::error;
    });
}

void print_problems(const std::vector<sdscprov::Problem>& problems) {
    for (const auto& p : problems) {
        if (quiet_mode && p.severity != sdscprov::Severity::error) {
            continue;
        }
        std::cerr << sdscprov::quoted_location(p.path, p.pos) << ": "
                  << sdscprov::to_string(p.severity) << ": " << sdscprov::printable_text(p.message)
                  << " [" << sdscprov::to_string(p.code) << "]\n";
    }
}

// The end of a report: its rows are on standard output; every problem goes to standard error as a
// path:line:col line (whatever the format, so a report redirected to a file never hides an error;
// the machine formats list them too), then the report's totals close standard output. The first
// `already_printed` problems (the sidecars', printed when they were read) are not repeated.
void finish_report(sdscprov::ReportPrinter* printer, const sdscprov::PipelineResult& result,
                   std::size_t already_printed = 0) {
    std::cout.flush();
    print_problems({result.problems.begin() + static_cast<std::ptrdiff_t>(already_printed),
                    result.problems.end()});
    if (printer != nullptr) {
        printer->finish(result.totals, result.problems);
    }
    std::cout.flush();
}

int run_scan(const CommonOptions& o) {
    auto options = pipeline_options(o);
    options.scan.stamp = false; // nothing is written: no change check, no fstat per file
    sdscprov::PrinterOptions printer_options = printer_options_for(o, "scan");
    auto printer =
        quiet_mode ? nullptr
                   : sdscprov::make_printer(report_format(o.format), std::cout, printer_options);
    sdscprov::PipelineResult result;
    {
        Progress progress("scanned");
        result =
            sdscprov::run_pipeline(sdscprov::discover_source(o.paths, options.discover), options,
                                   sdscprov::scan_kernel, [&](const sdscprov::KernelReport& k) {
                                       progress.kernel(k.files.size());
                                       if (printer) {
                                           printer->kernel(k);
                                       }
                                   });
    }
    finish_report(printer.get(), result);
    return any_error(result.problems) ? exit_bad_input : exit_ok;
}

struct AnnotateCli {
    CommonOptions common;
    std::vector<std::string> origins;
    bool refresh = false;
    bool dry_run = false;
    bool check = false;
    bool diff = false;
    std::string durability = "batch";
};

// Discovery for annotate, whole: a kernel name carried by several directories is ambiguous, and
// that is only known once every directory has been seen.
struct Discovered {
    std::vector<sdscprov::KernelDir> dirs;
    std::vector<sdscprov::Problem> problems;
    sdscprov::DiscoverStats stats;
    std::map<std::string, std::size_t> kernel_names;
};

Discovered discover_all(const std::vector<std::string>& paths,
                        const sdscprov::DiscoverOptions& options) {
    Discovered d;
    d.stats = sdscprov::discover(
        paths, options, [&](sdscprov::KernelDir&& k) { d.dirs.push_back(std::move(k)); },
        [&](sdscprov::Problem&& p) { d.problems.push_back(std::move(p)); });
    for (const auto& k : d.dirs) {
        if (k.kernel) {
            ++d.kernel_names[*k.kernel];
        }
    }
    return d;
}

// Annotate's pipeline, for annotate and for check --origins: the walk runs while the origins
// maps are read and indexed (it only reads directories); every map is read and validated before
// any file is touched. nullopt when a map is bad (its problems are in `map_problems`).
std::optional<sdscprov::PipelineResult>
run_annotate_pipeline(const CommonOptions& common, const std::vector<std::string>& origins,
                      const sdscprov::AnnotateOptions& annotate_options,
                      const std::function<void(const sdscprov::KernelReport&)>& deliver,
                      std::vector<sdscprov::Problem>& map_problems,
                      bool note_kernels_without_dir = false) {
    auto options = pipeline_options(common);
    options.discover.find_temps = annotate_options.mode == sdscprov::AnnotateMode::write;
    auto walk = std::async(std::launch::async, discover_all, std::cref(common.paths),
                           std::cref(options.discover));
    sdscprov::Sidecars sidecars =
        sdscprov::read_sidecars(origins, map_problems, common.max_file_size);
    print_problems(map_problems);
    if (any_error(map_problems)) {
        walk.wait();
        return std::nullopt;
    }
    sdscprov::OriginsIndex index(std::move(sidecars.maps));
    Discovered found = walk.get();
    // Kernels of the sidecars that no directory of the whole walk matches (the same list in
    // every shard): the run's own notes, after the sidecars' problems.
    std::vector<sdscprov::Problem> run_notes;
    // Only a walk of whole directories can tell that a kernel has none: files named one by one
    // (a pre-commit hook's staged files) are not a cache.
    note_kernels_without_dir &=
        std::all_of(common.paths.begin(), common.paths.end(), [](const std::string& path) {
            struct stat st {};
            return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        });
    if (note_kernels_without_dir) {
        for (const auto* k : sdscprov::kernels_without_dir(index, found.dirs)) {
            run_notes.push_back(sdscprov::make_problem(
                k->map->path, k->kernel->pos, sdscprov::ProblemCode::kernel_without_dir,
                "kernel '" + k->kernel->name + "'" +
                    (k->kernel->identity ? " (identity " + *k->kernel->identity + ")" : "") +
                    " has no directory in the caches given"));
        }
    }
    sdscprov::KernelSource replay =
        [&](const std::function<void(sdscprov::KernelDir &&)>& on_dir,
            const std::function<void(sdscprov::Problem &&)>& on_problem) {
            for (auto& p : found.problems) {
                on_problem(std::move(p));
            }
            for (auto& d : found.dirs) {
                on_dir(std::move(d));
            }
            return found.stats;
        };
    sdscprov::Annotator annotator(index, std::move(found.kernel_names), annotate_options,
                                  std::move(sidecars.upstream));
    bool dry = annotate_options.mode != sdscprov::AnnotateMode::write;
    auto result = sdscprov::run_pipeline(
        replay, options,
        [&](sdscprov::KernelReport& k, sdscprov::Scanner& s) {
            annotator.annotate_kernel(k, s);
            k.annotation->dry_run = dry;
        },
        deliver,
        [&](std::vector<sdscprov::KernelReport>& batch) { annotator.commit_batch(batch); });
    result.problems.insert(result.problems.begin(), run_notes.begin(), run_notes.end());
    result.problems.insert(result.problems.begin(), map_problems.begin(), map_problems.end());
    return result;
}

bool any_internal_error(const std::vector<sdscprov::Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(), [](const auto& p) {
        return p.code == sdscprov::ProblemCode::internal_error;
    });
}

sdscprov::Durability durability_of(const std::string& name) {
    return name == "none"   ? sdscprov::Durability::none
           : name == "full" ? sdscprov::Durability::full
                            : sdscprov::Durability::batch;
}

int run_annotate(const AnnotateCli& cli) {
    sdscprov::AnnotateOptions annotate_options;
    annotate_options.join.refresh = cli.refresh;
    annotate_options.mode = cli.check     ? sdscprov::AnnotateMode::check
                            : cli.dry_run ? sdscprov::AnnotateMode::dry_run
                                          : sdscprov::AnnotateMode::write;
    annotate_options.durability = durability_of(cli.durability);
    annotate_options.diff = cli.diff;

    // With --diff the diffs are the output (`annotate --diff ... | git apply`, as black does):
    // the text report goes to standard error.
    const bool diffs_out = cli.diff && cli.common.format == "text";
    std::ostream& report_out = diffs_out ? std::cerr : std::cout;
    sdscprov::PrinterOptions printer_options =
        printer_options_for(cli.common, "annotate", diffs_out);
    printer_options.dry_run = annotate_options.mode != sdscprov::AnnotateMode::write;
    auto printer = quiet_mode ? nullptr
                              : sdscprov::make_printer(report_format(cli.common.format), report_out,
                                                       printer_options);
    std::vector<sdscprov::Problem> map_problems;
    std::optional<sdscprov::PipelineResult> result;
    {
        Progress progress(annotate_options.mode == sdscprov::AnnotateMode::write ? "annotated"
                                                                                 : "checked");
        result = run_annotate_pipeline(
            cli.common, cli.origins, annotate_options,
            [&](const sdscprov::KernelReport& k) {
                progress.kernel(k.files.size());
                if (diffs_out) {
                    for (const auto& f : k.annotation->files) {
                        std::cout << f.diff;
                    }
                }
                if (printer) {
                    printer->kernel(k);
                }
            },
            map_problems, true);
    }
    if (!result) {
        std::cerr << "sdscprov: no file was changed: fix the --origins file first\n";
        return exit_bad_input;
    }
    finish_report(printer.get(), *result, map_problems.size());
    if (any_internal_error(result->problems)) {
        return exit_internal;
    }
    if (any_error(result->problems)) {
        return exit_bad_input;
    }
    // --check: stale goldens fail the gate, whether or not --refresh would rewrite them.
    if (annotate_options.mode == sdscprov::AnnotateMode::check &&
        (result->totals.annotate.changes() > 0 || result->totals.annotate.differs > 0)) {
        return exit_changes_pending;
    }
    return exit_ok;
}

struct StripCli {
    CommonOptions common;
    bool remove = false;
    bool dry_run = false;
    bool check = false;
    bool diff = false;
    std::string durability = "batch";
};

// strip: the JSON report (--format json) or, in text, the diffs (--diff) and a summary.
int run_strip(const StripCli& cli) {
    sdscprov::StripOptions strip_options;
    strip_options.remove = cli.remove;
    strip_options.write.mode = cli.check     ? sdscprov::AnnotateMode::check
                               : cli.dry_run ? sdscprov::AnnotateMode::dry_run
                                             : sdscprov::AnnotateMode::write;
    strip_options.write.durability = durability_of(cli.durability);
    strip_options.write.diff = cli.diff;
    bool dry = strip_options.write.mode != sdscprov::AnnotateMode::write;
    bool json = cli.common.format == "json";

    sdscprov::PrinterOptions printer_options;
    printer_options.command = "strip";
    printer_options.dry_run = dry;
    auto printer =
        json ? sdscprov::make_printer(sdscprov::ReportFormat::json, std::cout, printer_options)
             : nullptr;
    auto options = pipeline_options(cli.common);
    options.discover.find_temps = !dry;
    Progress progress(dry ? "checked" : "stripped");
    auto result = sdscprov::run_pipeline(
        sdscprov::discover_source(cli.common.paths, options.discover), options,
        [&](sdscprov::KernelReport& k, sdscprov::Scanner& s) {
            sdscprov::strip_kernel(k, s, strip_options);
        },
        [&](const sdscprov::KernelReport& k) {
            progress.kernel(k.files.size());
            if (printer) {
                if (!quiet_mode) {
                    printer->kernel(k);
                }
                return;
            }
            for (const auto& f : k.annotation->files) {
                std::cout << f.diff; // with --diff, even with -q: the diffs are the output
            }
        },
        [&](std::vector<sdscprov::KernelReport>& batch) {
            sdscprov::commit_batch(batch, strip_options.write);
        });
    std::cout.flush();
    print_problems(result.problems);
    if (printer && !quiet_mode) {
        printer->finish(result.totals, result.problems);
    } else if (!quiet_mode) {
        // With --diff the diffs are the output and the summary goes to standard error.
        std::ostream& out = cli.diff ? std::cerr : std::cout;
        const auto& a = result.totals.annotate;
        std::uint64_t done = dry ? a.stripped : a.written;
        out << (dry ? "would strip: " : "stripped: ") << done << " file" << (done == 1 ? "" : "s")
            << (cli.remove ? " (member removed)" : " (set to null)") << "; " << a.kept
            << " without " << (cli.remove ? "a handle" : "a populated handle") << ", of "
            << result.totals.counts.files << " SDSC files";
        if (a.failed > 0) {
            out << "; " << a.failed << " could not be written";
        }
        out << '\n';
    }
    std::cout.flush();
    if (any_internal_error(result.problems)) {
        return exit_internal;
    }
    if (any_error(result.problems)) {
        return exit_bad_input;
    }
    if (strip_options.write.mode == sdscprov::AnnotateMode::check &&
        result.totals.annotate.stripped > 0) {
        return exit_changes_pending;
    }
    return exit_ok;
}

struct ExplainCli {
    std::string target;
    std::vector<std::string> roots;
    std::vector<std::string> mappings;
    std::string format = "text";
    std::string color = "auto";
    bool include_incomplete = false;
    bool follow_symlinks = false;
    std::uint64_t max_file_size = sdscprov::default_max_file_size;
};

int run_explain(const ExplainCli& cli) {
    sdscprov::DiscoverOptions discover;
    discover.include_incomplete = cli.include_incomplete;
    discover.follow_symlinks = cli.follow_symlinks;
    std::vector<sdscprov::Problem> problems;
    std::vector<sdscprov::UpstreamMappings> mappings;
    for (const auto& path : cli.mappings) {
        auto read = sdscprov::read_upstream_mappings(path, cli.max_file_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.mappings) {
            mappings.push_back(std::move(*read.mappings));
        }
    }
    if (any_error(problems)) {
        print_problems(problems);
        return exit_bad_input;
    }
    auto roots = cli.roots.empty() ? sdscprov::default_cache_roots() : cli.roots;
    auto dirs = sdscprov::resolve_explain_target(cli.target, roots, problems, discover);
    sdscprov::ScanOptions scan;
    scan.max_file_size = cli.max_file_size;
    scan.stamp = false;
    sdscprov::Scanner scanner(scan);
    std::vector<sdscprov::ExplainKernel> kernels;
    bool bad_file = false;
    for (const auto& dir : dirs) {
        kernels.push_back(sdscprov::explain_kernel(dir, scanner));
        if (dir.kernel && !mappings.empty()) {
            auto upstream = sdscprov::upstream_kernel(mappings, *dir.kernel);
            kernels.back().pre_grad_nodes = std::move(upstream.pre_grad_nodes);
            kernels.back().post_grad_nodes = std::move(upstream.post_grad_nodes);
            sdscprov::explain_stack_traces(kernels.back(), upstream.stack_traces);
        }
        for (const auto& op : kernels.back().ops) {
            bad_file |= any_error(op.problems);
        }
    }
    if (cli.format == "json") {
        sdscprov::print_explain_json(std::cout, kernels, problems);
    } else if (cli.format == "html") {
        sdscprov::print_explain_html(std::cout, kernels, problems);
    } else {
        sdscprov::print_explain_text(std::cout, kernels, use_color(cli.color));
    }
    std::cout.flush();
    print_problems(problems);
    return dirs.empty() || bad_file || any_error(problems) ? exit_bad_input : exit_ok;
}

struct CheckCli {
    CommonOptions common;
    std::vector<std::string> origins;
};

// check: text findings go to standard output as they are found (in discovery order); the other
// formats are written once the run is complete. Problems and the summary go to standard error.
// Exit 1 with findings, 2 with bad input, 0 when clean.
int run_check(const CheckCli& cli) {
    const std::string& format = cli.common.format;
    sdscprov::CheckResult checked; // kept whole only for the formats written at the end
    std::uint64_t findings = 0;
    std::uint64_t files = 0;
    sdscprov::CheckTextPrinter text(std::cout, use_color(cli.common.color), cli.common.all,
                                    text_width(STDOUT_FILENO));
    Progress progress("checked");
    // --format html: the page printer of scan, with the findings (report/html.hpp).
    auto html = format == "html" ? sdscprov::make_printer(sdscprov::ReportFormat::html, std::cout,
                                                          printer_options_for(cli.common, "check"))
                                 : nullptr;
    auto deliver = [&](const sdscprov::KernelReport& k) {
        progress.kernel(k.files.size());
        if (html) {
            html->kernel(k);
        }
        auto kernel = sdscprov::checked_kernel(k);
        files += kernel.files;
        findings += kernel.findings.size();
        if (format != "text") {
            checked.kernels.push_back(std::move(kernel));
            return;
        }
        text.kernel(kernel, k.dir.kernel);
    };
    std::vector<sdscprov::Problem> map_problems;
    std::optional<sdscprov::PipelineResult> result;
    if (cli.origins.empty()) {
        auto options = pipeline_options(cli.common);
        options.scan.stamp = false;
        result =
            sdscprov::run_pipeline(sdscprov::discover_source(cli.common.paths, options.discover),
                                   options, sdscprov::scan_kernel, deliver);
    } else {
        sdscprov::AnnotateOptions annotate_options;
        annotate_options.mode = sdscprov::AnnotateMode::check;
        annotate_options.stale_warnings = false; // each is a stale-handle finding
        result =
            run_annotate_pipeline(cli.common, cli.origins, annotate_options, deliver, map_problems);
        if (!result) {
            return exit_bad_input;
        }
    }
    // A gate that checks nothing must not pass: a directory without SDSC files is an error here.
    for (auto& p : result->problems) {
        if (p.code == sdscprov::ProblemCode::no_sdsc_files) {
            p.severity = sdscprov::Severity::error;
        }
    }
    checked.problems = result->problems;
    if (format == "text") {
        text.finish();
    } else if (html) {
        html->finish(result->totals, checked.problems);
    } else if (format == "json" && result->totals.shard) {
        sdscprov::write_check_json(std::cout, checked, *result->totals.shard);
    } else if (format == "json") {
        std::vector<sdscprov::Finding> all;
        for (const auto& k : checked.kernels) {
            all.insert(all.end(), k.findings.begin(), k.findings.end());
        }
        sdscprov::write_check_json(std::cout, all, checked.problems, checked.files());
    } else if (format == "sarif") {
        sdscprov::write_check_sarif(std::cout, checked);
    } else if (format == "junit") {
        sdscprov::write_check_junit(std::cout, checked);
    } else if (format == "github") {
        sdscprov::write_check_github(std::cout, checked);
        const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
        if (summary != nullptr && *summary != '\0') {
            std::ofstream out(summary, std::ios::app);
            sdscprov::write_check_markdown_summary(out, checked);
            if (!out) {
                std::cerr << "sdscprov: cannot append to $GITHUB_STEP_SUMMARY (" << summary
                          << ")\n";
            }
        }
    }
    std::cout.flush();
    // The maps' own problems were printed when they were read.
    print_problems({result->problems.begin() + static_cast<std::ptrdiff_t>(map_problems.size()),
                    result->problems.end()});
    if (!quiet_mode) {
        std::cerr << "sdscprov check: " << findings << " finding" << (findings == 1 ? "" : "s")
                  << " in " << files << " SDSC file" << (files == 1 ? "" : "s") << '\n';
    }
    if (any_internal_error(result->problems)) {
        return exit_internal;
    }
    if (any_error(result->problems)) {
        return exit_bad_input;
    }
    return findings > 0 ? exit_changes_pending : exit_ok;
}

// merge: the shards' JSON reports (--shard I/N, --format json) into the single run's report.
int run_merge(const std::vector<std::string>& paths) {
    std::vector<sdscprov::ShardReport> reports;
    for (const auto& path : paths) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        if (!in) {
            std::cerr << "sdscprov merge: cannot read " << path << '\n';
            return exit_bad_input;
        }
        reports.push_back({path, std::move(bytes).str()});
    }
    auto merged = sdscprov::merge_reports(reports);
    if (!merged.error.empty()) {
        std::cerr << "sdscprov merge: " << merged.error << '\n';
        return exit_bad_input;
    }
    std::cout << merged.report;
    std::cout.flush();
    return exit_ok;
}

// What is answered before the command line is parsed, as git does: `--version` anywhere (before
// `--`), `help [COMMAND]` (and `help --man`, the man page), and a mistyped command with the
// command it most likely means. nullopt: parse as usual.
std::optional<int> before_parsing(CLI::App& app, int argc, char** argv) {
    for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
        if (std::string_view(argv[i]) == "--version") {
            std::cout << "sdscprov " << SDSCPROV_VERSION << '\n';
            return exit_ok;
        }
    }
    if (argc < 2 || argv[1][0] == '-') {
        return std::nullopt;
    }
    std::string_view first = argv[1];
    auto unknown = [&](std::string_view name) {
        std::cerr << "sdscprov: unknown command '" << name << "'";
        if (auto guess = sdscprov::cli::suggest_command(app, name)) {
            std::cerr << "; did you mean '" << *guess << "'?";
        }
        std::cerr << "\nRun 'sdscprov help' for the list of commands.\n";
        return exit_bad_input;
    };
    if (first == "help") {
        if (argc == 2) {
            std::cout << app.help();
        } else if (std::string_view(argv[2]) == "--man") {
            sdscprov::cli::write_man_page(std::cout, app);
        } else {
            CLI::App* command = nullptr;
            try {
                command = app.get_subcommand(argv[2]);
            } catch (const CLI::OptionNotFound&) {
                return unknown(argv[2]);
            }
            std::cout << command->help(app.get_name());
        }
        return exit_ok;
    }
    try {
        app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound&) {
        return unknown(first);
    }
    return std::nullopt;
}

// The report reached standard output, or the run fails: a full disk (`> /dev/full`) or a closed
// descriptor must not turn into a lost report and exit 0. The stream keeps no errno: one byte more
// is written directly to learn it (the report is broken already).
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

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    // A closed standard descriptor would be taken by the next file opened, a temporary perhaps,
    // and the report written into it: each is held by /dev/null, read-only, so that writing the
    // report fails (with_report_written()) instead.
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
            ::open("/dev/null", O_RDONLY | O_NOCTTY) != fd) {
            return exit_internal;
        }
    }
    // Ctrl-C, kill, a closed terminal or a closed report pipe: our temporaries go with us.
    sdscprov::remove_temps_on_signals();
    CLI::App app{"provenance for torch-spyre SuperDSC kernel files", "sdscprov"};
    app.set_version_flag("--version", std::string("sdscprov ") + SDSCPROV_VERSION);
    app.require_subcommand(1);
    app.footer("Exit status: 0 done, 1 changes pending (annotate --check) or findings (check), "
               "2 bad input or usage error, 3 internal error.\n"
               "Errors and warnings go to standard error as path:line:col lines; reports to "
               "standard output.\n"
               "Environment: TORCHINDUCTOR_CACHE_DIR (the default cache of explain and profile); "
               "NO_COLOR (no colour unless --color always); COLUMNS (the width of text reports); "
               "SDSCPROV_IO_URING=0 (open files without io_uring).\n"
               "Run 'sdscprov help COMMAND' for a command's options.");

    CommonOptions scan_options;
    auto* scan = app.add_subcommand(
        "scan", "Report, per kernel directory, how much provenance the SuperDSC files carry");
    add_common_options(*scan, scan_options);
    scan->footer("Example:\n  sdscprov scan ${TORCHINDUCTOR_CACHE_DIR:-/tmp/torchinductor_$USER}\n"
                 "  sdscprov scan --format json -j 2 cache/ > report.json");

    AnnotateCli annotate_options;
    auto* annotate = app.add_subcommand(
        "annotate", "Write debug_handle_ into SuperDSC files from the compile's origins map");
    annotate
        ->add_option("--origins", annotate_options.origins,
                     "The compile's sidecar: an origins map (docs/origins-map.md), torch-spyre's "
                     "spyre_provenance.json, or PyTorch's provenance node mappings (kernel level, "
                     "for the report); may be given more than once, the first file wins")
        ->required()
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_common_options(*annotate, annotate_options.common);
    annotate->add_flag("--refresh", annotate_options.refresh,
                       "Replace handles that differ from the map's (e.g. from a kernel-cache hit)");
    annotate->add_flag("--dry-run", annotate_options.dry_run,
                       "Report what would change, write nothing");
    annotate->add_flag("--check", annotate_options.check,
                       "Write nothing; exit 1 if any file would change or holds a handle other "
                       "than the map's (for CI)");
    annotate->add_flag("--diff", annotate_options.diff, "Show a unified diff of each change");
    annotate
        ->add_option("--durability", annotate_options.durability,
                     "none: no fsync; batch: one syncfs per batch of files, then renames; "
                     "full: fsync every file")
        ->check(CLI::IsMember({"none", "batch", "full"}))
        ->capture_default_str();
    annotate->footer(
        "Example:\n  sdscprov annotate --origins origins.json $TORCHINDUCTOR_CACHE_DIR\n"
        "  sdscprov annotate --origins spyre_provenance.json "
        "--origins inductor_provenance_tracking_node_mappings.json cache/\n"
        "  sdscprov annotate --check --origins origins.json golden/   # CI: exit 1 if stale\n"
        "Exit status: 0 done, 1 changes pending (--check), 2 bad input or unwritable files, "
        "3 internal error.");

    StripCli strip_options;
    auto* strip = app.add_subcommand(
        "strip", "Set every debug_handle_ to null (or remove it), touching no other byte");
    add_common_options(*strip, strip_options.common, {"text", "json"});
    strip->add_flag("--remove", strip_options.remove,
                    "Remove the member instead of setting it to null");
    strip->add_flag("--dry-run", strip_options.dry_run, "Report what would change, write nothing");
    strip->add_flag("--check", strip_options.check,
                    "Write nothing; exit 1 if any file would change");
    strip->add_flag("--diff", strip_options.diff, "Show a unified diff of each change");
    strip
        ->add_option("--durability", strip_options.durability,
                     "none: no fsync; batch: one syncfs per batch of files, then renames; "
                     "full: fsync every file")
        ->check(CLI::IsMember({"none", "batch", "full"}))
        ->capture_default_str();
    strip->footer("For sharing kernels without private source paths, and comparing goldens "
                  "without provenance churn.\nExample:\n  sdscprov strip kernels-to-share/\n"
                  "  sdscprov strip --remove --diff kernels-to-share/\n"
                  "Exit status: 0 done, 1 changes pending (--check), 2 bad input or unwritable "
                  "files, 3 internal error.");

    ExplainCli explain_options;
    auto* explain = app.add_subcommand(
        "explain", "Show, op by op, where a kernel comes from: source line, ATen op, FX nodes");
    explain
        ->add_option("target", explain_options.target,
                     "A kernel name, a kernel directory or an SDSC file")
        ->required();
    explain->add_option("caches", explain_options.roots,
                        "Where to look for a kernel name (default: $TORCHINDUCTOR_CACHE_DIR, "
                        "else /tmp/torchinductor_$USER)");
    explain
        ->add_option("--mappings", explain_options.mappings,
                     "PyTorch's inductor_provenance_tracking_node_mappings.json (the kernel's "
                     "pre-grad and post-grad FX nodes) or ..._kernel_stack_traces.json (its "
                     "stack traces, shown with their source lines); may be given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    explain->add_option("--format", explain_options.format, "Output format")
        ->check(CLI::IsMember({"text", "json", "html"}))
        ->capture_default_str();
    explain->add_option("--color", explain_options.color, "Colour in text output")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    explain->add_flag("--include-incomplete", explain_options.include_incomplete,
                      "Also look in the kernel cache's temporary (*.tmp.*) and failed/ entries");
    explain->add_flag("--follow-symlinks", explain_options.follow_symlinks,
                      "Follow symbolic links to directories");
    add_max_file_size_option(*explain, explain_options.max_file_size,
                             "Larger files (SDSC files, mappings) are reported, not read (bytes)");
    explain->footer("Example:\n  sdscprov explain sdsc_fused_addmm_1\n"
                    "  sdscprov explain --format json "
                    "cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e\n"
                    "Exit status: 0 explained, 2 target not found or bad input, 3 internal "
                    "error.");

    CheckCli check_options;
    auto* check = app.add_subcommand(
        "check", "Gate for golden kernels and CI: exit 1 if any SDSC file lacks a populated, "
                 "well-formed debug_handle_ (or, with --origins, holds another handle)");
    check
        ->add_option("--origins", check_options.origins,
                     "Also check that each handle is the one this sidecar gives (an origins map "
                     "or spyre_provenance.json); may be given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_common_options(*check, check_options.common,
                       {"text", "json", "sarif", "github", "junit", "html"});
    check->footer(
        "Findings go to standard output as path:line:col: message [rule], one per line.\n"
        "Example:\n  sdscprov check golden/kernels/\n"
        "  git diff --cached --name-only -z -- ':(glob)**/sdsc_[0-9]*.json' | xargs -0 -r "
        "sdscprov check --origins origins.json\n"
        "Exit status: 0 clean, 1 findings, 2 bad input or usage error, 3 internal error.");

    std::vector<std::string> merge_reports;
    auto* merge = app.add_subcommand(
        "merge", "Join the JSON reports of a run's shards (--shard I/N) into the report of one "
                 "run over the same caches");
    merge
        ->add_option("reports", merge_reports,
                     "The JSON reports of every shard (scan, annotate, strip or check, "
                     "--format json), in any order")
        ->required()
        ->check(CLI::ExistingFile);
    merge->footer("Example:\n  for i in 1 2 3; do sdscprov scan --format json --shard $i/3 cache/ "
                  "> shard-$i.json; done\n"
                  "  sdscprov merge shard-*.json > report.json\n"
                  "Exit status: 0 merged, 2 the reports cannot be merged (other commands, "
                  "versions or shardings, a shard missing or twice, not a shard report).");

    sdscprov::cli::ProfileCli profile_options;
    auto* profile = sdscprov::cli::add_profile_command(app, profile_options);

    std::string shell;
    auto* completion = app.add_subcommand(
        "completion", "Print a shell completion script (bash), generated from these options");
    completion->add_option("shell", shell, "The shell")->required()->check(CLI::IsMember({"bash"}));
    completion->footer("Example:\n  mkdir -p ~/.local/share/bash-completion/completions && "
                       "sdscprov completion bash > ~/.local/share/bash-completion/completions/"
                       "sdscprov");

    if (auto early = before_parsing(app, argc, argv)) {
        return with_report_written(*early);
    }
    try {
        app.parse(argc, argv);
        for (const auto* options : {&scan_options, &annotate_options.common, &strip_options.common,
                                    &check_options.common}) {
            quiet_mode |= options->quiet;
        }
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return with_report_written(rc == 0 ? exit_ok : exit_bad_input);
    }
    try {
        if (scan->parsed()) {
            return with_report_written(run_scan(scan_options));
        }
        if (annotate->parsed()) {
            return with_report_written(run_annotate(annotate_options));
        }
        if (check->parsed()) {
            return with_report_written(run_check(check_options));
        }
        if (strip->parsed()) {
            return with_report_written(run_strip(strip_options));
        }
        if (explain->parsed()) {
            return with_report_written(run_explain(explain_options));
        }
        if (merge->parsed()) {
            return with_report_written(run_merge(merge_reports));
        }
        if (completion->parsed()) {
            sdscprov::cli::write_bash_completion(std::cout, app);
            return with_report_written(exit_ok);
        }
        if (profile->parsed()) {
            return with_report_written(sdscprov::cli::run_profile(profile_options));
        }
    } catch (const std::exception& e) {
        std::cerr << "sdscprov: internal error: " << e.what() << '\n';
        return exit_internal;
    }
    return exit_internal;
}
