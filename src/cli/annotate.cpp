// `sdscprov annotate --origins SIDECAR PATHS...`: debug_handle_ written into the SDSC files from
// the compile's sidecars (the run: commands/annotate_run.hpp).
#include "commands.hpp"
#include "messages.hpp"
#include "sdscprov/commands/annotate_run.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <iostream>

namespace sdscprov::cli {

sdscprov::AnnotateRunOptions annotate_run_options(const CommonOptions& common,
                                                  const std::vector<std::string>& origins) {
    sdscprov::AnnotateRunOptions options;
    options.paths = common.paths;
    options.origins = origins;
    options.max_file_size = common.max_file_size;
    options.pipeline = pipeline_options(common);
    return options;
}

void add_annotate_options(CLI::App& annotate_command, AnnotateCli& options) {
    CLI::App* annotate = &annotate_command;
    annotate
        ->add_option("--origins", options.origins,
                     std::string(sdscprov::sidecar_use(sdscprov::SidecarCommand::annotate).help))
        ->required()
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_common_options(*annotate, options.common);
    annotate->add_flag("--refresh", options.refresh,
                       "Replace handles that differ from the map's (e.g. from a kernel-cache hit)");
    add_write_options(*annotate, options.write,
                      "Write nothing; exit 1 if any file would change or holds a handle other "
                      "than the map's (for CI)");
    annotate->footer(
        "Example:\n  sdscprov annotate --origins origins.json $TORCHINDUCTOR_CACHE_DIR\n"
        "  sdscprov annotate --origins spyre_provenance.json "
        "--origins inductor_provenance_tracking_node_mappings.json cache/\n"
        "  sdscprov annotate --check --origins origins.json golden/   # CI: exit 1 if stale\n"
        "Exit status: 0 done, 1 changes pending (--check), 2 bad input or unwritable files, "
        "3 internal error.");
}

int run_annotate(const AnnotateCli& cli) {
    sdscprov::AnnotateRunOptions options = annotate_run_options(cli.common, cli.origins);
    options.annotate.join.refresh = cli.refresh;
    options.annotate.write = write_settings(cli.write);
    options.note_kernels_without_dir = true;
    const sdscprov::WriteMode mode = options.annotate.write.mode;

    // With --diff the diffs are the output (`annotate --diff ... | git apply`, as black does):
    // the text report goes to standard error.
    const bool diffs_out = cli.write.diff && cli.common.format == Format::text;
    std::ostream& report_out = diffs_out ? std::cerr : std::cout;
    sdscprov::PrinterOptions printer_options =
        printer_options_for(cli.common, ReportCommand::annotate, diffs_out);
    printer_options.dry_run = mode != sdscprov::WriteMode::write;
    auto printer = messages::quiet()
                       ? nullptr
                       : sdscprov::make_printer(cli.common.format, report_out, printer_options);
    sdscprov::AnnotateRunResult result;
    {
        Progress progress(mode == sdscprov::WriteMode::write ? "annotated" : "checked",
                          cli.write.diff || cli.common.all || cli.common.format != Format::text);
        auto deliver = [&](const sdscprov::KernelReport& k) {
            progress.kernel(k.files.size());
            if (diffs_out) {
                for (const auto& f : k.rewrite->files) {
                    std::cout << f.diff;
                }
            }
            if (printer) {
                printer->item(k);
            }
        };
        result = sdscprov::annotate(options,
                                    {deliver, [&](std::uint64_t files) { progress.total(files); }});
    }
    keep_until_exit(std::move(result.index));
    if (!result.run) {
        messages::problems(result.sidecar_problems);
        messages::error("", "no file was changed: fix the --origins file first");
        return exit_bad_input;
    }
    finish_report(printer.get(), *result.run, result.sidecar_problems);
    // --check: stale goldens fail the gate, whether or not --refresh would rewrite them.
    const auto& totals = result.run->totals.rewrites;
    return exit_status(result.run->problems, mode == sdscprov::WriteMode::check &&
                                                 (totals.changes() > 0 || totals.differs > 0));
}

} // namespace sdscprov::cli
