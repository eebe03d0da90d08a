// `sdscprov explain TARGET [CACHES...]`: where a kernel comes from, op by op.
#include "sdscprov/commands/explain_run.hpp"

#include "commands.hpp"
#include "messages.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/explain_printers.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <iostream>
#include <unistd.h>

namespace sdscprov::cli {

void add_explain_options(CLI::App& explain_command, ExplainCli& options) {
    CLI::App* explain = &explain_command;
    explain
        ->add_option("target", options.target,
                     "A kernel name, a kernel directory, an SDSC file, or a kernel row of "
                     "`sdscprov profile` (KERNEL@DIRECTORY-NAME, KERNEL@KEY)")
        ->required();
    explain->add_option("caches", options.roots,
                        "Where to look for a kernel name (default: $TORCHINDUCTOR_CACHE_DIR, "
                        "else /tmp/torchinductor_$USER)");
    explain
        ->add_option("--mappings", options.mappings,
                     "PyTorch's inductor_provenance_tracking_node_mappings.json (the kernel's "
                     "pre-grad and post-grad FX nodes) or ..._kernel_stack_traces.json (its "
                     "stack traces, shown with their source lines); may be given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    explain
        ->add_option("--origins", options.origins,
                     std::string(sdscprov::sidecar_use(sdscprov::SidecarCommand::explain).help))
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_format_option(*explain, options.format, {Format::text, Format::json, Format::html},
                      "Output format");
    add_color_option(*explain, options.color, "Colour in text output");
    add_discover_options(*explain, options.discover, "look in",
                         "Follow symbolic links to directories");
    add_max_file_size_option(*explain, options.max_file_size,
                             "Larger files (SDSC files, mappings) are reported, not read (bytes)");
    explain
        ->add_option("--targets-from", options.targets_from,
                     "Explain each line of FILE (a kernel name, a kernel directory, an SDSC file "
                     "or a label of profile's kernel rows), in one run; every argument is then a "
                     "cache to look in")
        ->allow_extra_args(false);
    add_source_text_options(*explain, options.source_text);
    explain->footer("Example:\n  sdscprov explain sdsc_fused_addmm_1\n"
                    "  sdscprov explain sdsc_fused_addmm_1@sdsc_fused_addmm_1_b9d3wz0e\n"
                    "  sdscprov explain --format json "
                    "cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e\n"
                    "Exit status: 0 explained, 2 target not found or bad input, 3 internal "
                    "error.");
}

namespace {

// The targets: TARGET, or with --targets-from FILE the file's lines (TARGET is then a cache).
ExplainRunOptions run_options(const ExplainCli& cli) {
    ExplainRunOptions o;
    o.roots = cli.roots;
    if (cli.targets_from.empty()) {
        o.targets.push_back(cli.target);
    } else {
        o.roots.insert(o.roots.begin(), cli.target);
        o.targets_from = cli.targets_from;
    }
    o.mappings = cli.mappings;
    o.origins = cli.origins;
    o.discover = cli.discover;
    o.max_file_size = cli.max_file_size;
    std::vector<std::string> given = o.roots;
    for (const auto& paths : {cli.mappings, cli.origins, o.targets}) { // TARGET or the caches
        given.insert(given.end(), paths.begin(), paths.end());
    }
    o.source_text = source_text_options(cli.source_text, given);
    return o;
}

} // namespace

int run_explain(const ExplainCli& cli) {
    const ExplainRunOptions options = run_options(cli);
    auto printer = sdscprov::make_explain_printer(cli.format, std::cout, use_color(cli.color),
                                                  options.source_text);
    ExplainRunCallbacks callbacks;
    callbacks.kernel = [&](const ExplainKernel& k) { printer->item(k); };
    ExplainRunResult result = sdscprov::explain(options, callbacks);
    if (result.stopped) {
        messages::problems(result.problems);
        messages::error("explain", *result.stopped);
        return exit_bad_input;
    }
    printer->end({result.problems, result.source_text});
    std::cout.flush();
    // Every problem on standard error too, whatever the format: the targets' and the files'.
    messages::problems(result.problems);
    messages::problems(result.file_problems);
    for (const auto& several : result.by_name) {
        // A kernel name of several compiles: say how to name one (as profile's kernel rows do).
        messages::note("explain", std::to_string(several.dirs) +
                                      " kernel directories are named '" +
                                      printable_text(several.target) +
                                      "' (a cache keeps every compile): each is shown; "
                                      "KERNEL@DIRECTORY-NAME, as profile labels its kernel rows, "
                                      "names one");
    }
    return result.failed ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
