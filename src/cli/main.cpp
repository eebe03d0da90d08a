// sdscprov: the command-line front. It parses options and wires the library's stages together;
// the work is done in the library (include/sdscprov/).
#include "sdscprov/pipeline.hpp"
#include "sdscprov/report.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <unistd.h>

namespace {

// Exit statuses (README, "Exit status").
constexpr int exit_ok = 0;
constexpr int exit_bad_input = 2;
constexpr int exit_internal = 3;

struct CommonOptions {
    std::vector<std::string> paths;
    std::string format = "text";
    unsigned jobs = 0;
    bool include_incomplete = false;
    bool follow_symlinks = false;
    std::uint64_t max_file_size = std::uint64_t{1} << 30;
    std::string color = "auto";
};

void add_common_options(CLI::App& cmd, CommonOptions& o) {
    cmd.add_option("paths", o.paths, "Kernel cache directories, kernel directories or SDSC files")
        ->required();
    cmd.add_option("--format", o.format, "Report format")
        ->check(CLI::IsMember({"text", "json", "markdown"}))
        ->capture_default_str();
    cmd.add_option("-j,--jobs", o.jobs, "Worker threads (default: all cores)")
        ->check(CLI::Range(1U, 1024U));
    cmd.add_flag("--include-incomplete", o.include_incomplete,
                 "Also scan the kernel cache's temporary (*.tmp.*) and failed/ entries");
    cmd.add_flag("--follow-symlinks", o.follow_symlinks,
                 "Follow symbolic links to directories (loops are detected)");
    cmd.add_option("--max-file-size", o.max_file_size,
                   "Larger files are reported, not read (bytes)")
        ->capture_default_str();
    cmd.add_option("--color", o.color, "Colour in text reports")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
}

bool use_color(const std::string& mode) {
    if (mode == "always") {
        return true;
    }
    if (mode == "never") {
        return false;
    }
    const char* no_color = std::getenv("NO_COLOR");
    return ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
}

sdscprov::ReportFormat report_format(const std::string& name) {
    if (name == "json") {
        return sdscprov::ReportFormat::json;
    }
    if (name == "markdown") {
        return sdscprov::ReportFormat::markdown;
    }
    return sdscprov::ReportFormat::text;
}

int run_scan(const CommonOptions& o) {
    sdscprov::PipelineOptions options;
    options.jobs = o.jobs;
    options.discover.include_incomplete = o.include_incomplete;
    options.discover.follow_symlinks = o.follow_symlinks;
    options.scan.max_file_size = o.max_file_size;

    sdscprov::PrinterOptions printer_options;
    printer_options.color = use_color(o.color);
    printer_options.command = "scan";
    auto printer = sdscprov::make_printer(report_format(o.format), std::cout, printer_options);
    auto result = sdscprov::run_pipeline(o.paths, options, sdscprov::scan_kernel,
                                         [&](const sdscprov::KernelReport& k) { printer->kernel(k); });
    printer->finish(result.totals, result.problems);
    std::cout.flush();
    bool any_error = std::any_of(result.problems.begin(), result.problems.end(),
                                 [](const sdscprov::Problem& p) {
                                     return p.severity == sdscprov::Severity::error;
                                 });
    return any_error ? exit_bad_input : exit_ok;
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    CLI::App app{"sdscprov: provenance for torch-spyre SuperDSC kernel files"};
    app.set_version_flag("--version", std::string("sdscprov ") + SDSCPROV_VERSION);
    app.require_subcommand(1);
    app.footer("Exit status: 0 done, 2 bad input or usage error, 3 internal error.");

    CommonOptions scan_options;
    auto* scan = app.add_subcommand(
        "scan", "Report, per kernel directory, how much provenance the SuperDSC files carry");
    add_common_options(*scan, scan_options);
    scan->footer("Example:\n  sdscprov scan ${TORCHINDUCTOR_CACHE_DIR:-/tmp/torchinductor_$USER}\n"
                 "  sdscprov scan --format json -j 2 cache/ > report.json");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? exit_ok : exit_bad_input;
    }
    try {
        if (scan->parsed()) {
            return run_scan(scan_options);
        }
    } catch (const std::exception& e) {
        std::cerr << "sdscprov: internal error: " << e.what() << '\n';
        return exit_internal;
    }
    return exit_internal;
}
