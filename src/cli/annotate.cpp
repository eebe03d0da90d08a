// `sdscprov annotate --origins SIDECAR PATHS...`: debug_handle_ written into the SDSC files from
// the compile's sidecars; also the pipeline that check --origins runs.
#include "commands.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <algorithm>
#include <future>
#include <iostream>
#include <iterator>
#include <map>
#include <sys/stat.h>

namespace sdscprov::cli {

namespace {

// Discovery for annotate, whole: a kernel name carried by several directories is ambiguous, and
// that is only known once every directory has been seen.
struct Discovered {
    std::vector<sdscprov::KernelDir> dirs;
    std::vector<sdscprov::Problem> problems;
    sdscprov::DiscoverStats stats;
    std::map<std::string, std::size_t> kernel_names;
};

Discovered discover_all(const std::vector<std::string>& paths,
                        const sdscprov::DiscoverOptions& options) {
    Discovered d;
    d.stats = sdscprov::discover(
        paths, options, [&](sdscprov::KernelDir&& k) { d.dirs.push_back(std::move(k)); },
        [&](sdscprov::Problem&& p) { d.problems.push_back(std::move(p)); });
    for (const auto& k : d.dirs) {
        if (k.kernel) {
            ++d.kernel_names[*k.kernel];
        }
    }
    return d;
}

// One note per kernel of a sidecar that no directory of the walk matches, up to
// notes_per_sidecar per sidecar; past that, one note says how many more (a sidecar of a whole
// model against one of its kernel directories would otherwise bury the report).
constexpr std::size_t notes_per_sidecar = 20;

std::vector<sdscprov::Problem>
kernel_without_dir_notes(const std::vector<const sdscprov::IndexedKernel*>& kernels) {
    std::map<std::string_view, std::size_t> total; // per sidecar path
    for (const auto* k : kernels) {
        ++total[k->map->path];
    }
    std::vector<sdscprov::Problem> notes;
    std::map<std::string_view, std::size_t> named;
    for (const auto* k : kernels) {
        std::size_t all = total[k->map->path];
        std::size_t& count = named[k->map->path];
        if (count == notes_per_sidecar && all > notes_per_sidecar + 1) {
            std::size_t rest = all - notes_per_sidecar;
            notes.push_back(sdscprov::make_problem(
                k->map->path, k->kernel->pos, sdscprov::ProblemCode::kernel_without_dir,
                std::to_string(rest) + " more kernels of this sidecar (from kernel '" +
                    k->kernel->name + "' on) have no directory in the caches given"));
        }
        if (count++ >= notes_per_sidecar && all > notes_per_sidecar + 1) {
            continue;
        }
        notes.push_back(sdscprov::make_problem(
            k->map->path, k->kernel->pos, sdscprov::ProblemCode::kernel_without_dir,
            "kernel '" + k->kernel->name + "'" +
                (k->kernel->identity ? " (identity " + *k->kernel->identity + ")" : "") +
                " has no directory in the caches given"));
    }
    return notes;
}

} // namespace

std::optional<sdscprov::PipelineResult>
run_annotate_pipeline(const CommonOptions& common, const std::vector<std::string>& origins,
                      const sdscprov::AnnotateOptions& annotate_options,
                      const std::function<void(const sdscprov::KernelReport&)>& deliver,
                      std::vector<sdscprov::Problem>& map_problems, bool note_kernels_without_dir,
                      Progress* progress) {
    auto options = pipeline_options(common);
    options.discover.find_temps = annotate_options.mode == sdscprov::AnnotateMode::write;
    auto walk = std::async(std::launch::async, discover_all, std::cref(common.paths),
                           std::cref(options.discover));
    sdscprov::Sidecars sidecars =
        sdscprov::read_sidecars(origins, map_problems, common.max_file_size);
    print_problems(map_problems);
    if (any_error(map_problems)) {
        walk.wait();
        return std::nullopt;
    }
    auto owned_index = std::make_unique<sdscprov::OriginsIndex>(std::move(sidecars.maps));
    const sdscprov::OriginsIndex& index = *owned_index;
    keep_until_exit(std::move(owned_index));
    Discovered found = walk.get();
    if (progress != nullptr) {
        std::uint64_t files = 0;
        for (const auto& d : found.dirs) {
            files += d.files.size();
        }
        progress->total(files);
    }
    // Kernels of the sidecars that no directory of the whole walk matches (the same list in
    // every shard): the run's own notes, after the sidecars' problems.
    std::vector<sdscprov::Problem> run_notes;
    // Only a walk of whole directories can tell that a kernel has none: files named one by one
    // (a pre-commit hook's staged files) are not a cache.
    note_kernels_without_dir &=
        std::all_of(common.paths.begin(), common.paths.end(), [](const std::string& path) {
            struct stat st {};
            return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        });
    if (note_kernels_without_dir) {
        run_notes = kernel_without_dir_notes(sdscprov::kernels_without_dir(index, found.dirs));
    }
    sdscprov::KernelSource replay =
        [&](const std::function<void(sdscprov::KernelDir &&)>& on_dir,
            const std::function<void(sdscprov::Problem &&)>& on_problem) {
            for (auto& p : found.problems) {
                on_problem(std::move(p));
            }
            for (auto& d : found.dirs) {
                on_dir(std::move(d));
            }
            return found.stats;
        };
    sdscprov::Annotator annotator(index, std::move(found.kernel_names), annotate_options,
                                  std::move(sidecars.upstream));
    bool dry = annotate_options.mode != sdscprov::AnnotateMode::write;
    auto result = sdscprov::run_pipeline(
        replay, options,
        [&](sdscprov::KernelReport& k, sdscprov::Scanner& s) {
            annotator.annotate_kernel(k, s);
            k.annotation->dry_run = dry;
        },
        deliver,
        [&](std::vector<sdscprov::KernelReport>& batch) { annotator.commit_batch(batch); });
    // The sidecars' problems, the run's notes, then the walk's and the files': moved, not copied
    // (a large sidecar against a small cache can name tens of thousands of kernels).
    std::vector<sdscprov::Problem> problems;
    problems.reserve(map_problems.size() + run_notes.size() + result.problems.size());
    problems.insert(problems.end(), map_problems.begin(), map_problems.end());
    std::move(run_notes.begin(), run_notes.end(), std::back_inserter(problems));
    std::move(result.problems.begin(), result.problems.end(), std::back_inserter(problems));
    result.problems = std::move(problems);
    return result;
}

void add_annotate_options(CLI::App& annotate_command, AnnotateCli& options) {
    CLI::App* annotate = &annotate_command;
    annotate
        ->add_option("--origins", options.origins,
                     "The compile's sidecar: an origins map (docs/origins-map.md), torch-spyre's "
                     "spyre_provenance.json, or PyTorch's provenance node mappings (kernel level, "
                     "for the report); may be given more than once, the first file wins")
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
    sdscprov::AnnotateOptions annotate_options;
    annotate_options.join.refresh = cli.refresh;
    const WriteSettings write = write_settings(cli.write);
    annotate_options.mode = write.mode;
    annotate_options.durability = write.durability;
    annotate_options.diff = write.diff;

    // With --diff the diffs are the output (`annotate --diff ... | git apply`, as black does):
    // the text report goes to standard error.
    const bool diffs_out = cli.write.diff && cli.common.format == Format::text;
    std::ostream& report_out = diffs_out ? std::cerr : std::cout;
    sdscprov::PrinterOptions printer_options =
        printer_options_for(cli.common, "annotate", diffs_out);
    printer_options.dry_run = annotate_options.mode != sdscprov::AnnotateMode::write;
    auto printer = quiet_mode ? nullptr
                              : sdscprov::make_printer(report_format(cli.common.format), report_out,
                                                       printer_options);
    std::vector<sdscprov::Problem> map_problems;
    std::optional<sdscprov::PipelineResult> result;
    {
        Progress progress(annotate_options.mode == sdscprov::AnnotateMode::write ? "annotated"
                                                                                 : "checked",
                          cli.write.diff || cli.common.all || cli.common.format != Format::text);
        result = run_annotate_pipeline(
            cli.common, cli.origins, annotate_options,
            [&](const sdscprov::KernelReport& k) {
                progress.kernel(k.files.size());
                if (diffs_out) {
                    for (const auto& f : k.annotation->files) {
                        std::cout << f.diff;
                    }
                }
                if (printer) {
                    printer->kernel(k);
                }
            },
            map_problems, true, &progress);
    }
    if (!result) {
        std::cerr << "sdscprov: no file was changed: fix the --origins file first\n";
        return exit_bad_input;
    }
    finish_report(printer.get(), *result, map_problems.size());
    // --check: stale goldens fail the gate, whether or not --refresh would rewrite them.
    return exit_status(result->problems, annotate_options.mode == sdscprov::AnnotateMode::check &&
                                             (result->totals.annotate.changes() > 0 ||
                                              result->totals.annotate.differs > 0));
}

} // namespace sdscprov::cli
