// `sdscprov check PATHS... [--origins SIDECAR]`: the gate for golden kernels and CI.
#include "sdscprov/commands/check.hpp"

#include "commands.hpp"
#include "sdscprov/report/check_printers.hpp"

#include <cstdlib>
#include <iostream>

namespace sdscprov::cli {

CLI::App* add_check_command(CLI::App& app, CheckCli& options) {
    auto* check = app.add_subcommand(
        "check", "Gate for golden kernels and CI: exit 1 if any SDSC file lacks a populated, "
                 "well-formed debug_handle_ (or, with --origins, holds another handle)");
    check
        ->add_option("--origins", options.origins,
                     "Also check that each handle is the one this sidecar gives (an origins map "
                     "or spyre_provenance.json); may be given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_common_options(*check, options.common,
                       {"text", "json", "sarif", "github", "junit", "html"});
    check->footer(
        "Findings go to standard output as path:line:col: message [rule], one per line.\n"
        "Example:\n  sdscprov check golden/kernels/\n"
        "  git diff --cached --name-only -z -- ':(glob)**/sdsc_[0-9]*.json' | xargs -0 -r "
        "sdscprov check --origins origins.json\n"
        "Exit status: 0 clean, 1 findings, 2 bad input or usage error, 3 internal error.");
    return check;
}

// check: text findings go to standard output as they are found (in discovery order); the other
// formats are written once the run is complete. Problems and the summary go to standard error.
// Exit 1 with findings, 2 with bad input, 0 when clean.
int run_check(const CheckCli& cli) {
    const std::string& format = cli.common.format;
    sdscprov::CheckPrinterOptions printer_options;
    printer_options.report = printer_options_for(cli.common, "check");
    if (format == "github") {
        const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
        printer_options.step_summary = summary != nullptr ? summary : "";
    }
    auto printer = sdscprov::make_check_printer(report_format(format), std::cout, std::cerr,
                                                std::move(printer_options));
    sdscprov::CheckTally tally;
    // Text findings are held to the end unless --all; the page streams; the other formats are
    // written at the end.
    Progress progress("checked", cli.common.all || format == "html");
    auto deliver = [&](const sdscprov::KernelReport& k) {
        progress.kernel(k.files.size());
        auto checked = sdscprov::checked_kernel(k);
        tally.add(k, checked);
        printer->item({k, checked});
    };
    std::vector<sdscprov::Problem> map_problems;
    std::optional<sdscprov::PipelineResult> result;
    if (cli.origins.empty()) {
        auto options = pipeline_options(cli.common);
        options.scan.stamp = false;
        result = sdscprov::run_pipeline(
            progress.counting(sdscprov::discover_source(cli.common.paths, options.discover)),
            options, sdscprov::scan_kernel, deliver);
    } else {
        sdscprov::AnnotateOptions annotate_options;
        annotate_options.mode = sdscprov::AnnotateMode::check;
        annotate_options.stale_warnings = false; // each is a stale-handle finding
        result = run_annotate_pipeline(cli.common, cli.origins, annotate_options, deliver,
                                       map_problems, false, &progress);
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
    progress.clear();
    const sdscprov::CheckEnd end{result->totals, result->problems, tally};
    printer->end(end);
    std::cout.flush();
    // The sidecars' own problems were printed when they were read.
    print_problems({result->problems.begin() + static_cast<std::ptrdiff_t>(map_problems.size()),
                    result->problems.end()});
    if (!quiet_mode) {
        printer->summary(end);
    }
    return exit_status(result->problems, tally.findings > 0);
}

} // namespace sdscprov::cli
