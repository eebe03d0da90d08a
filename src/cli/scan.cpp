// `sdscprov scan PATHS...`: how much provenance the SDSC files carry, per kernel directory.
#include "commands.hpp"
#include "messages.hpp"

#include <iostream>

namespace sdscprov::cli {

void add_scan_options(CLI::App& scan, CommonOptions& options) {
    add_common_options(scan, options,
                       {Format::text, Format::json, Format::markdown, Format::html, Format::csv});
    scan.footer("Example:\n  sdscprov scan ${TORCHINDUCTOR_CACHE_DIR:-/tmp/torchinductor_$USER}\n"
                "  sdscprov scan --format json -j 2 cache/ > report.json\n"
                "  sdscprov scan --format csv cache/ > kernels.csv");
}

int run_scan(const CommonOptions& o) {
    auto options = pipeline_options(o);
    // Nothing is written: no change check, no fstat per file.
    options.scan.fstat_before_read = false;
    PrinterOptions printer_options = printer_options_for(o, ReportCommand::scan);
    auto printer = messages::quiet() ? nullptr : make_printer(o.format, std::cout, printer_options);
    PipelineResult result;
    {
        // The default text report is written at the end; --all and the other formats stream.
        Progress progress("scanned", o.all || o.format != Format::text);
        result = run_pipeline(progress.counting(discover_source(o.paths, options.discover)),
                              options, scan_kernel, [&](const KernelReport& k) {
                                  progress.kernel(k.files.size());
                                  if (printer) {
                                      printer->item(k);
                                  }
                              });
    }
    finish_report(printer.get(), result);
    return any_error(result.problems) ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
