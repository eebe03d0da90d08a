// `sdscprov strip PATHS...`: every debug_handle_ set to null (or removed), no other byte touched.
#include "commands.hpp"

#include <iostream>

namespace sdscprov::cli {

CLI::App* add_strip_command(CLI::App& app, StripCli& options) {
    auto* strip = app.add_subcommand(
        "strip", "Set every debug_handle_ to null (or remove it), touching no other byte");
    add_common_options(*strip, options.common, {"text", "json"});
    strip->add_flag("--remove", options.remove, "Remove the member instead of setting it to null");
    add_write_options(*strip, options.write, "Write nothing; exit 1 if any file would change");
    strip->footer("For sharing kernels without private source paths, and comparing goldens "
                  "without provenance churn.\nExample:\n  sdscprov strip kernels-to-share/\n"
                  "  sdscprov strip --remove --diff kernels-to-share/\n"
                  "Exit status: 0 done, 1 changes pending (--check), 2 bad input or unwritable "
                  "files, 3 internal error.");
    return strip;
}

// strip: the JSON report (--format json) or, in text, the diffs (--diff) and a summary.
int run_strip(const StripCli& cli) {
    sdscprov::StripOptions strip_options;
    strip_options.remove = cli.remove;
    strip_options.write = write_settings(cli.write);
    bool dry = strip_options.write.mode != sdscprov::AnnotateMode::write;
    bool json = cli.common.format == "json";

    sdscprov::PrinterOptions printer_options;
    printer_options.command = "strip";
    printer_options.dry_run = dry;
    // With --diff the diffs are the output (even with -q) and the summary goes to standard error.
    std::ostream& summary_out = cli.write.diff ? std::cerr : std::cout;
    auto printer = json && quiet_mode
                       ? nullptr
                       : sdscprov::make_strip_printer(report_format(cli.common.format), std::cout,
                                                      summary_out, printer_options, cli.remove);
    auto options = pipeline_options(cli.common);
    options.discover.find_temps = !dry;
    Progress progress(dry ? "checked" : "stripped", json || cli.write.diff);
    auto result = sdscprov::run_pipeline(
        progress.counting(sdscprov::discover_source(cli.common.paths, options.discover)), options,
        [&](sdscprov::KernelReport& k, sdscprov::Scanner& s) {
            sdscprov::strip_kernel(k, s, strip_options);
        },
        [&](const sdscprov::KernelReport& k) {
            progress.kernel(k.files.size());
            if (printer) {
                printer->item(k);
            }
        },
        [&](std::vector<sdscprov::KernelReport>& batch) {
            sdscprov::commit_batch(batch, strip_options.write);
        });
    progress.clear();
    std::cout.flush();
    print_problems(result.problems);
    if (printer && !quiet_mode) {
        printer->end({result.totals, result.problems});
    }
    std::cout.flush();
    return exit_status(result.problems, strip_options.write.mode == sdscprov::AnnotateMode::check &&
                                            result.totals.annotate.stripped > 0);
}

} // namespace sdscprov::cli
