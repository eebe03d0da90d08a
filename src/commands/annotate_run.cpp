#include "sdscprov/commands/annotate_run.hpp"

#include "sdscprov/sidecars/sidecar.hpp"

#include <algorithm>
#include <future>
#include <iterator>
#include <map>
#include <string_view>
#include <sys/stat.h>

namespace sdscprov {

std::vector<Problem> AnnotateRunResult::all_problems() const {
    std::vector<Problem> all = sidecar_problems;
    if (run) {
        all.insert(all.end(), run->problems.begin(), run->problems.end());
    }
    return all;
}

namespace {

// Discovery for annotate, whole: a kernel name carried by several directories is ambiguous, and
// that is only known once every directory has been seen.
struct Discovered {
    std::vector<KernelDir> dirs;
    std::vector<Problem> problems;
    DiscoverStats stats;
    std::map<std::string, std::size_t> kernel_names;
};

Discovered discover_all(const std::vector<std::string>& paths, const DiscoverOptions& options) {
    Discovered d;
    d.stats = discover(
        paths, options, [&](KernelDir&& k) { d.dirs.push_back(std::move(k)); },
        [&](Problem&& p) { d.problems.push_back(std::move(p)); });
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

std::vector<Problem> kernel_without_dir_notes(const std::vector<const IndexedKernel*>& kernels) {
    std::map<std::string_view, std::size_t> total; // per sidecar path
    for (const auto* k : kernels) {
        ++total[k->map->path];
    }
    std::vector<Problem> notes;
    std::map<std::string_view, std::size_t> named;
    for (const auto* k : kernels) {
        std::size_t all = total[k->map->path];
        std::size_t& count = named[k->map->path];
        if (count == notes_per_sidecar && all > notes_per_sidecar + 1) {
            std::size_t rest = all - notes_per_sidecar;
            notes.push_back(
                make_problem(k->map->path, k->kernel->pos, ProblemCode::kernel_without_dir,
                             std::to_string(rest) + " more kernels of this sidecar (from kernel '" +
                                 k->kernel->name + "' on) have no directory in the caches given"));
        }
        if (count++ >= notes_per_sidecar && all > notes_per_sidecar + 1) {
            continue;
        }
        notes.push_back(make_problem(
            k->map->path, k->kernel->pos, ProblemCode::kernel_without_dir,
            "kernel '" + k->kernel->name + "'" +
                (k->kernel->identity ? " (identity " + *k->kernel->identity + ")" : "") +
                " has no directory in the caches given"));
    }
    return notes;
}

bool all_directories(const std::vector<std::string>& paths) {
    return std::all_of(paths.begin(), paths.end(), [](const std::string& path) {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    });
}

// The walk's directories and problems, handed to the pipeline as if discovered now.
KernelSource replay(Discovered& found) {
    return [&found](const std::function<void(KernelDir &&)>& on_dir,
                    const std::function<void(Problem &&)>& on_problem) {
        for (auto& p : found.problems) {
            on_problem(std::move(p));
        }
        for (auto& d : found.dirs) {
            on_dir(std::move(d));
        }
        return found.stats;
    };
}

std::uint64_t files_of(const Discovered& found) {
    std::uint64_t files = 0;
    for (const auto& d : found.dirs) {
        files += d.files.size();
    }
    return files;
}

} // namespace

AnnotateRunResult annotate(const AnnotateRunOptions& options,
                           const AnnotateRunCallbacks& callbacks) {
    PipelineOptions pipeline = options.pipeline;
    pipeline.discover.find_temps = options.annotate.write.mode == AnnotateMode::write;
    auto walk = std::async(std::launch::async, discover_all, std::cref(options.paths),
                           std::cref(pipeline.discover));
    AnnotateRunResult result;
    Sidecars sidecars =
        read_sidecars(options.origins, result.sidecar_problems, options.max_file_size);
    if (std::any_of(result.sidecar_problems.begin(), result.sidecar_problems.end(),
                    [](const Problem& p) { return p.severity == Severity::error; })) {
        walk.wait();
        return result;
    }
    result.index = std::make_unique<OriginsIndex>(std::move(sidecars.maps));
    Discovered found = walk.get();
    if (callbacks.walked) {
        callbacks.walked(files_of(found));
    }
    // Kernels of the sidecars that no directory of the whole walk matches (the same list in
    // every shard): the run's own notes, before the walk's problems and the files'.
    std::vector<Problem> notes;
    if (options.note_kernels_without_dir && all_directories(options.paths)) {
        notes = kernel_without_dir_notes(kernels_without_dir(*result.index, found.dirs));
    }
    Annotator annotator(*result.index, std::move(found.kernel_names), options.annotate,
                        std::move(sidecars.upstream));
    PipelineResult run = run_pipeline(
        replay(found), pipeline,
        [&](KernelReport& k, Scanner& s) { annotator.annotate_kernel(k, s); },
        [&](const KernelReport& k) {
            if (callbacks.deliver) {
                callbacks.deliver(k);
            }
        },
        [&](std::vector<KernelReport>& batch) { annotator.commit_batch(batch); });
    // Moved, not copied: a large sidecar against a small cache can name many kernels.
    std::move(run.problems.begin(), run.problems.end(), std::back_inserter(notes));
    run.problems = std::move(notes);
    result.run = std::move(run);
    return result;
}

} // namespace sdscprov
