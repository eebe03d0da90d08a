// `sdscprov check PATHS... [--origins SIDECAR]`: the gate for golden kernels and CI.
#include "sdscprov/commands/check.hpp"

#include "commands.hpp"
#include "messages.hpp"
#include "sdscprov/report/check_printers.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace sdscprov::cli {

void add_check_options(CLI::App& check_command, CheckCli& options) {
    CLI::App* check = &check_command;
    check
        ->add_option("--origins", options.origins,
                     std::string(sdscprov::sidecar_use(sdscprov::SidecarCommand::check).help))
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    check->add_flag("--strict", options.check.strict,
                    "Fail on compiler-generated ops without a handle too (by default they are "
                    "notes: the compiler created them with no model source)");
    check->add_flag("--all-kernels", options.check.all_kernels,
                    "With --origins: judge the kernel directories the sidecars do not know too "
                    "(by default they are another compile's: counted, not judged)");
    add_decimal_option(*check, "--fail-under", options.check.fail_under, RealRange{0, 100},
                       "Pass while at least PCT percent of the judged SDSC ops hold a populated "
                       "debug_handle_, whatever the findings (the closing lines give the share)")
        ->type_name("PCT");
    add_common_options(
        *check, options.common,
        {Format::text, Format::json, Format::sarif, Format::github, Format::junit, Format::html,
         Format::csv});
    check->footer(
        "Findings go to standard output as path:line:col: message [rule], one per line (on a "
        "terminal the first 40, --all every one); the summary goes to standard error.\n"
        "Example:\n  sdscprov check golden/kernels/\n"
        "  git diff --cached --name-only -z -- ':(glob)**/sdsc_[0-9]*.json' | xargs -0 -r "
        "sdscprov check --origins origins.json\n"
        "Exit status: 0 clean, 1 findings (with --fail-under: a share under PCT), 2 bad input or usage error, 3 internal error.");
}

// The run: a scan of the paths, or with --origins annotate's run in check mode (its sidecars'
// problems in `sidecar_problems`; nullopt, with them printed, when one is an error).
std::optional<sdscprov::PipelineResult>
checked_run(const CheckCli& cli, Progress& progress,
            const std::function<void(const sdscprov::KernelReport&)>& deliver,
            std::vector<sdscprov::Problem>& sidecar_problems) {
    if (cli.origins.empty()) {
        auto options = pipeline_options(cli.common);
        options.scan.fstat_before_read = false;
        return sdscprov::run_pipeline(
            progress.counting(sdscprov::discover_source(cli.common.paths, options.discover)),
            options, sdscprov::scan_kernel, deliver);
    }
    auto options = annotate_run_options(cli.common, cli.origins);
    options.annotate.write.mode = sdscprov::WriteMode::check;
    options.annotate.stale_warnings = false; // each is a stale-handle finding
    auto run =
        sdscprov::annotate(options, {deliver, [&](std::uint64_t files) { progress.total(files); }});
    keep_until_exit(std::move(run.index));
    sidecar_problems = std::move(run.sidecar_problems);
    if (!run.run) {
        messages::problems(sidecar_problems);
    }
    return std::move(run.run);
}

// check: text findings go to standard output as they are found (in discovery order); the other
// formats are written once the run is complete. Problems and the summary go to standard error.
// Exit 1 with findings (with --fail-under: under the share), 2 with bad input, 0 when clean.
int run_check(const CheckCli& cli) {
    const Format format = cli.common.format;
    sdscprov::CheckPrinterOptions printer_options;
    printer_options.report = printer_options_for(cli.common, ReportCommand::check);
    printer_options.report.check = cli.check;
    printer_options.cap_lines = !cli.common.all && isatty(STDOUT_FILENO) == 1;
    if (format == Format::github) {
        const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
        printer_options.step_summary = summary != nullptr ? summary : "";
    }
    auto printer =
        sdscprov::make_check_printer(format, std::cout, std::cerr, std::move(printer_options));
    sdscprov::CheckTally tally;
    // Text findings and the page stream; the other formats are written at the end.
    Progress progress("checked", format == Format::text || format == Format::html);
    auto deliver = [&](const sdscprov::KernelReport& k) {
        progress.kernel(k.files.size());
        auto checked = sdscprov::checked_kernel(k, cli.check);
        tally.add(k, checked);
        printer->item({k, checked});
    };
    std::vector<sdscprov::Problem> sidecar_problems;
    std::optional<sdscprov::PipelineResult> result =
        checked_run(cli, progress, deliver, sidecar_problems);
    if (!result) {
        return exit_bad_input;
    }
    // A gate that checks nothing must not pass: a directory without SDSC files is an error here.
    for (auto& p : result->problems) {
        if (p.code == sdscprov::ProblemCode::no_sdsc_files) {
            p.severity = sdscprov::Severity::error;
        }
    }
    progress.clear();
    messages::problems(sidecar_problems); // before the findings, the run's problems after them
    std::vector<sdscprov::Problem> problems = std::move(sidecar_problems);
    problems.insert(problems.end(), result->problems.begin(), result->problems.end());
    const sdscprov::CheckEnd end{result->totals, problems, tally};
    printer->end(end);
    std::cout.flush();
    messages::problems(result->problems);
    if (!messages::quiet()) {
        printer->summary(end);
    }
    return exit_status(problems, tally.fails(cli.check));
}

} // namespace sdscprov::cli
