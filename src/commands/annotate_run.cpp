#include "sdscprov/commands/annotate_run.hpp"

#include "sdscprov/commands/pending_writes.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <algorithm>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <set>
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

// From the kernels the filter left out of each map, in map order (a sidecar given twice counts
// as one).
std::vector<Problem> kernel_without_dir_notes(const std::vector<OriginsMap>& maps) {
    std::map<std::string_view, std::size_t> total; // per sidecar path
    for (const auto& m : maps) {
        total[m.path] += m.left_out;
    }
    std::vector<Problem> notes;
    std::map<std::string_view, std::size_t> named;
    for (const auto& m : maps) {
        const std::size_t all = total[m.path];
        std::size_t& count = named[m.path];
        for (const auto& k : m.first_left_out) {
            if (count == notes_per_sidecar && all > notes_per_sidecar + 1) {
                notes.push_back(make_problem(m.path, k.pos, ProblemCode::kernel_without_dir,
                                             std::to_string(all - notes_per_sidecar) +
                                                 " more kernels of this sidecar (from kernel '" +
                                                 k.name +
                                                 "' on) have no directory in the caches given"));
            }
            if (count++ >= notes_per_sidecar && all > notes_per_sidecar + 1) {
                continue;
            }
            notes.push_back(make_problem(m.path, k.pos, ProblemCode::kernel_without_dir,
                                         "kernel '" + k.name + "'" +
                                             (k.identity ? " (identity " + *k.identity + ")" : "") +
                                             " has no directory in the caches given"));
        }
    }
    return notes;
}

// The walk, awaited when the sidecars' reader first asks which kernels to keep: a map entry is
// kept when a directory of the walk matches it as join_kernel does (by `dir` when the entry
// names one, else by kernel name). The walk runs while the sidecars are opened and while a map's
// nodes, before its kernels, are read.
class WalkedKernels {
public:
    explicit WalkedKernels(std::future<Discovered>& walk) : walk_(walk) {}

    bool has(const OriginsKernel& kernel) {
        if (!found_) {
            found_ = walk_.get();
            for (const auto& d : found_->dirs) {
                dirs_.insert(base_name(d.path));
                if (d.kernel) {
                    names_.insert(*d.kernel);
                }
            }
        }
        return kernel.dir ? dirs_.count(*kernel.dir) != 0 : names_.count(kernel.name) != 0;
    }

    Discovered take() {
        dirs_.clear(); // views of the directories' names
        names_.clear();
        return found_ ? std::move(*found_) : walk_.get();
    }

private:
    std::future<Discovered>& walk_;
    std::optional<Discovered> found_;
    std::set<std::string_view> dirs_;
    std::set<std::string_view> names_;
};

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
    pipeline.discover.find_temps = options.annotate.write.mode == WriteMode::write;
    auto walk = std::async(std::launch::async, discover_all, std::cref(options.paths),
                           std::cref(pipeline.discover));
    WalkedKernels walked(walk);
    const bool notes = options.note_kernels_without_dir && all_directories(options.paths);
    const KernelFilter filter{[&](const OriginsKernel& k) { return walked.has(k); },
                              notes ? notes_per_sidecar + 1 : 0};
    AnnotateRunResult result;
    Sidecars sidecars = read_sidecars_of_any_kind(options.origins, result.sidecar_problems,
                                                  options.max_file_size, &filter);
    Discovered found = walked.take();
    if (std::any_of(result.sidecar_problems.begin(), result.sidecar_problems.end(),
                    [](const Problem& p) { return p.severity == Severity::error; })) {
        return result;
    }
    if (callbacks.walked) {
        callbacks.walked(files_of(found));
    }
    // Kernels of the sidecars that no directory of the whole walk matches (the same list in
    // every shard): the run's own notes, before the walk's problems and the files'.
    std::vector<Problem> run_notes;
    if (notes) {
        run_notes = kernel_without_dir_notes(sidecars.maps);
    }
    result.index = std::make_unique<OriginsIndex>(std::move(sidecars.maps));
    AnnotateOptions annotate_options = options.annotate;
    if (annotate_options.write.mode == WriteMode::write) {
        fit_writes_to_open_files(pipeline, annotate_options.write, options.paths.size());
    }
    Annotator annotator(*result.index, std::move(found.kernel_names), annotate_options,
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
    std::move(run.problems.begin(), run.problems.end(), std::back_inserter(run_notes));
    run.problems = std::move(run_notes);
    result.run = std::move(run);
    return result;
}

} // namespace sdscprov
