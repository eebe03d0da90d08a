// `sdscprov check PATHS... [--origins SIDECAR]`: the gate for golden kernels and CI.
#include "sdscprov/commands/check.hpp"

#include "commands.hpp"
#include "sdscprov/report/check_printers.hpp"
#include "sdscprov/report/html.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

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

// The run: a scan of the paths, or with --origins annotate's run in check mode (its sidecars'
// problems in `sidecar_problems`; nullopt, with them printed, when one is an error).
std::optional<sdscprov::PipelineResult>
checked_run(const CheckCli& cli, Progress& progress,
            const std::function<void(const sdscprov::KernelReport&)>& deliver,
            std::vector<sdscprov::Problem>& sidecar_problems) {
    if (cli.origins.empty()) {
        auto options = pipeline_options(cli.common);
        options.scan.stamp = false;
        return sdscprov::run_pipeline(
            progress.counting(sdscprov::discover_source(cli.common.paths, options.discover)),
            options, sdscprov::scan_kernel, deliver);
    }
    auto options = annotate_run_options(cli.common, cli.origins);
    options.annotate.write.mode = sdscprov::AnnotateMode::check;
    options.annotate.stale_warnings = false; // each is a stale-handle finding
    auto run = sdscprov::annotate(options,
                                  {deliver, [&](std::uint64_t files) { progress.total(files); }});
    keep_until_exit(std::move(run.index));
    sidecar_problems = std::move(run.sidecar_problems);
    if (!run.run) {
        print_problems(sidecar_problems);
    }
    return std::move(run.run);
}

// check: text findings go to standard output as they are found (in discovery order); the other
// formats are written once the run is complete. Problems and the summary go to standard error.
// Exit 1 with findings, 2 with bad input, 0 when clean.
int run_check(const CheckCli& cli) {
    const std::string& format = cli.common.format;
    sdscprov::CheckResult checked; // kept whole only for the formats written at the end
    std::uint64_t findings = 0;
    std::uint64_t files = 0;
    // Kernels (by name; a directory without one by its own name) and directories, in all and with
    // findings: the words and numbers of scan's report (docs/formats.md).
    std::set<std::string> kernels;
    std::set<std::string> kernels_found;
    std::uint64_t dirs = 0;
    std::uint64_t dirs_found = 0;
    sdscprov::CheckTextPrinter text(std::cout, use_color(cli.common.color), cli.common.all,
                                    report_width(STDOUT_FILENO));
    // Text findings are held to the end unless --all; the page streams; the other formats are
    // written at the end.
    Progress progress("checked", cli.common.all || format == "html");
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
        std::string name = k.dir.kernel ? *k.dir.kernel
                                        : k.dir.path.substr(k.dir.path.rfind('/') + 1);
        ++dirs;
        if (!kernel.findings.empty()) {
            ++dirs_found;
            kernels_found.insert(name);
        }
        kernels.insert(std::move(name));
        if (format != "text") {
            checked.kernels.push_back(std::move(kernel));
            return;
        }
        text.kernel(kernel, k.dir.kernel);
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
    print_problems(sidecar_problems); // before the findings, the run's problems after them
    checked.problems = std::move(sidecar_problems);
    checked.problems.insert(checked.problems.end(), result->problems.begin(),
                            result->problems.end());
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
    print_problems(result->problems);

    if (!quiet_mode) {
        auto counted = [](std::uint64_t k, std::uint64_t d) {
            return std::to_string(k) + (k == 1 ? " kernel (" : " kernels (") + std::to_string(d) +
                   (d == 1 ? " directory)" : " directories)");
        };
        std::cerr << "sdscprov check: " << findings << " finding" << (findings == 1 ? "" : "s")
                  << " in " << files << " SDSC file" << (files == 1 ? "" : "s") << "; "
                  << counted(kernels_found.size(), dirs_found)
                  << (kernels_found.size() == 1 ? " needs" : " need") << " attention, of "
                  << counted(kernels.size(), dirs) << '\n';
    }
    return exit_status(checked.problems, findings > 0);
}

} // namespace sdscprov::cli
