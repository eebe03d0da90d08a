// `sdscprov strip PATHS...`: every debug_handle_ set to null (or removed), no other byte touched.
#include "commands.hpp"
#include "messages.hpp"
#include "sdscprov/commands/pending_writes.hpp"

#include <iostream>

namespace sdscprov::cli {

void add_strip_options(CLI::App& strip_command, StripCli& options) {
    CLI::App* strip = &strip_command;
    add_common_options(*strip, options.common, {Format::text, Format::json});
    strip->add_flag("--remove", options.strip.remove,
                    "Remove the member instead of setting it to null");
    add_write_options(*strip, options.write, "Write nothing; exit 1 if any file would change");
    // Our temporaries are looked for where they could be left: by a run that writes.
    strip->callback([&options] {
        options.strip.write = write_settings(options.write);
        options.common.discover.find_temps = options.strip.write.mode == WriteMode::write;
    });
    strip->footer("For sharing kernels without private source paths, and comparing goldens "
                  "without provenance churn.\nExample:\n  sdscprov strip kernels-to-share/\n"
                  "  sdscprov strip --remove --diff kernels-to-share/\n"
                  "Exit status: 0 done, 1 changes pending (--check), 2 bad input or unwritable "
                  "files, 3 internal error.");
}

// strip: the JSON report (--format json) or, in text, the diffs (--diff) and a summary.
int run_strip(const StripCli& cli) {
    sdscprov::StripOptions strip_options = cli.strip;
    bool dry = strip_options.write.mode != sdscprov::WriteMode::write;
    bool json = cli.common.format == Format::json;

    sdscprov::PrinterOptions printer_options;
    printer_options.command = ReportCommand::strip;
    printer_options.dry_run = dry;
    // With --diff the diffs are the output (even with -q) and the summary goes to standard error.
    std::ostream& summary_out = strip_options.write.diff ? std::cerr : std::cout;
    auto printer = json && messages::quiet()
                       ? nullptr
                       : sdscprov::make_strip_printer(cli.common.format, std::cout, summary_out,
                                                      printer_options, strip_options.remove);
    auto options = pipeline_options(cli.common);
    if (!dry) {
        sdscprov::fit_writes_to_open_files(options, strip_options.write, cli.common.paths.size());
    }
    Progress progress(dry ? "checked" : "stripped", json || strip_options.write.diff);
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
    messages::problems(result.problems);
    if (printer && !messages::quiet()) {
        printer->end({result.totals, result.problems});
    }
    std::cout.flush();
    return exit_status(result.problems, strip_options.write.mode == sdscprov::WriteMode::check &&
                                            result.totals.rewrites.stripped > 0);
}

} // namespace sdscprov::cli
