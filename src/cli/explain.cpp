// `sdscprov explain TARGET [CACHES...]`: where a kernel comes from, op by op.
#include "sdscprov/commands/explain.hpp"

#include "commands.hpp"
#include "messages.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/explain_printers.hpp"
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/upstream.hpp"

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
    add_source_text_options(*explain, options.source_text);
    explain->footer("Example:\n  sdscprov explain sdsc_fused_addmm_1\n"
                    "  sdscprov explain sdsc_fused_addmm_1@sdsc_fused_addmm_1_b9d3wz0e\n"
                    "  sdscprov explain --format json "
                    "cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e\n"
                    "Exit status: 0 explained, 2 target not found or bad input, 3 internal "
                    "error.");
}

int run_explain(const ExplainCli& cli) {
    std::vector<sdscprov::Problem> problems;
    std::vector<sdscprov::UpstreamMappings> mappings;
    for (const auto& path : cli.mappings) {
        auto read = sdscprov::read_upstream_mappings(path, cli.max_file_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.mappings) {
            mappings.push_back(std::move(*read.mappings));
        }
    }
    std::vector<sdscprov::SpyreProvenance> sidecars;
    for (const auto& path : cli.origins) {
        auto read = sdscprov::read_spyre_provenance(path, cli.max_file_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.doc) {
            sidecars.push_back(std::move(*read.doc));
        }
    }
    if (any_error(problems)) {
        messages::problems(problems);
        return exit_bad_input;
    }
    auto roots = cli.roots.empty() ? sdscprov::default_cache_roots() : cli.roots;
    sdscprov::ScanOptions scan;
    scan.max_file_size = cli.max_file_size;
    scan.fstat_before_read = false;
    auto dirs =
        sdscprov::resolve_explain_target(cli.target, roots, problems, cli.discover, sidecars, scan);
    sdscprov::Scanner scanner(scan);
    std::vector<std::string> given = cli.roots;
    for (const auto* paths : {&cli.mappings, &cli.origins}) {
        given.insert(given.end(), paths->begin(), paths->end());
    }
    given.push_back(cli.target);
    const auto source_rule = source_text_options(cli.source_text, given);
    sdscprov::SourceLines lines(source_rule);
    std::vector<sdscprov::ExplainKernel> kernels;
    bool bad_file = false;
    for (const auto& dir : dirs) {
        kernels.push_back(sdscprov::explain_kernel(dir, scanner, lines));
        if (dir.kernel && !mappings.empty()) {
            auto upstream = sdscprov::upstream_kernel(mappings, *dir.kernel);
            kernels.back().pre_grad_nodes = std::move(upstream.pre_grad_nodes);
            kernels.back().post_grad_nodes = std::move(upstream.post_grad_nodes);
            sdscprov::explain_stack_traces(kernels.back(), upstream.stack_traces, lines);
        }
        for (const auto& op : kernels.back().ops) {
            bad_file |= any_error(op.problems);
        }
    }
    auto printer =
        sdscprov::make_explain_printer(cli.format, std::cout, use_color(cli.color), source_rule);
    for (const auto& k : kernels) {
        printer->item(k);
    }
    printer->end({problems, lines.note()});
    std::cout.flush();
    messages::problems(problems);
    // A kernel name of several compiles: say how to name one (as profile's kernel rows do).
    bool by_name = cli.target.find('/') == std::string::npos &&
                   cli.target.find('@') == std::string::npos &&
                   ::access(cli.target.c_str(), F_OK) != 0;
    if (by_name && dirs.size() > 1) {
        std::cerr << "sdscprov explain: " << dirs.size() << " kernel directories are named '"
                  << sdscprov::printable_text(cli.target)
                  << "' (a cache keeps every compile): each is shown; KERNEL@DIRECTORY-NAME, as "
                     "profile labels its kernel rows, names one\n";
    }
    return dirs.empty() || bad_file || any_error(problems) ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
