// annotate's run over the paths given, for annotate and for check --origins: the walk runs while
// the sidecars are read and indexed (it only reads directories); every sidecar is read and
// validated before any file is touched; then the kernel directories go through the pipeline
// (pipeline.hpp) with the Annotator's work. Nothing is printed: the caller gets each kernel's
// report as it is delivered and the problems in the result.
#pragma once

#include "sdscprov/commands/annotate.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/core/file_size.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

struct AnnotateRunOptions {
    std::vector<std::string> paths;   // kernel caches, or SDSC files named one by one
    std::vector<std::string> origins; // the sidecars, in precedence order (the first one wins)
    std::uint64_t max_file_size = default_max_file_size; // for the sidecars
    // The walk and the workers; the walk's find_temps follows annotate.write.mode (write: the
    // leftover temporaries are swept).
    PipelineOptions pipeline;
    AnnotateOptions annotate;
    // A note per sidecar kernel that no directory of the walk matches (kernel-without-dir: the
    // first 20 of a sidecar by name, one more note counting the rest); only when every path is a
    // directory (files named one by one, as a pre-commit hook gives them, are not a cache).
    bool note_kernels_without_dir = false;
};

struct AnnotateRunResult {
    std::vector<Problem> sidecar_problems; // the sidecars', in the order of the files
    // nullopt when a sidecar has an error: no file was touched. Otherwise its problems are the
    // run's notes on kernels without a directory, then the walk's and the files', in discovery
    // order.
    std::optional<PipelineResult> run;
    // The index the run joined with: freed with the result (a front may keep it to the end of the
    // process rather than free its tens of thousands of kernels piece by piece).
    std::unique_ptr<OriginsIndex> index;

    // Every problem as a report lists them: the sidecars', then the run's.
    std::vector<Problem> all_problems() const;
};

// What the caller hears while the run goes on: each kernel directory's report, in discovery
// order, on the calling thread; and once the walk is done, how many SDSC files it found (for a
// progress line). Either may be empty.
struct AnnotateRunCallbacks {
    std::function<void(const KernelReport&)> deliver;
    std::function<void(std::uint64_t files)> walked;
};

AnnotateRunResult annotate(const AnnotateRunOptions& options,
                           const AnnotateRunCallbacks& callbacks = {});

} // namespace sdscprov
