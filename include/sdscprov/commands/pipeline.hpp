// The pipeline: discovery on one thread, per-kernel work on `jobs` worker threads (each with its
// own Scanner: one simdjson parser and one read buffer, reused), results delivered to the caller
// in discovery order. Output is therefore identical whatever `jobs` is, and memory stays flat:
// at most a bounded window of kernel results is held at once.
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/walk/discover.hpp"

#include <functional>
#include <string>
#include <vector>

namespace sdscprov {

struct PipelineOptions {
    unsigned jobs = 0; // 0: all cores
    DiscoverOptions discover;
    ScanOptions scan;
    // Only this shard's kernel directories and walk problems (shard.hpp); the whole source is
    // still walked, and the result's totals.shard says what was seen of it.
    std::optional<Shard> shard;
    // The most SDSC files a batch of kernel directories holds, unless one directory alone has
    // more (it then is a batch of its own); a batch holds at most as many directories, and at
    // most 32. What a worker holds open at once grows with its batch: a writing run lowers it
    // under a low open-files limit (fit_writes_to_open_files(), pending_writes.hpp).
    std::size_t batch_files = 64;
};

// How many worker threads run_pipeline() starts for `options`: jobs, or one per core.
unsigned worker_count(const PipelineOptions& options);

// Fills `report.files` (and whatever else the command needs) for one kernel directory. Runs on a
// worker thread; must not touch shared state.
using KernelWork = std::function<void(KernelReport& report, Scanner& scanner)>;

// The work of `sdscprov scan`: scan every file of the kernel directory.
// Drops the directory's context files (siblings of the files named on the command line) while
// `scanner` may be opening its files ahead: what it opens ahead is then the files left.
void drop_context_files(KernelDir& dir, Scanner& scanner);

void scan_kernel(KernelReport& report, Scanner& scanner);

// Runs once per batch of kernel directories on the worker that processed them, after `KernelWork`
// ran for each: annotate commits the batch's writes here (one syncfs per batch).
using BatchWork = std::function<void(std::vector<KernelReport>& batch)>;

// Where kernel directories come from: calls on_kernel_dir for each, in order, and on_problem for
// walk problems. By default, discover() over the roots.
using KernelSource =
    std::function<DiscoverStats(const std::function<void(KernelDir&&)>& on_kernel_dir,
                                const std::function<void(Problem&&)>& on_problem)>;

KernelSource discover_source(const std::vector<std::string>& roots, const DiscoverOptions& options);

struct PipelineResult {
    Totals totals;
    std::vector<Problem> problems; // every problem, in discovery order
};

// Runs `source` and `work` (and `batch_work`, if set); calls `deliver` on the calling thread for
// each kernel directory, in discovery order.
PipelineResult run_pipeline(const KernelSource& source, const PipelineOptions& options,
                            const KernelWork& work,
                            const std::function<void(const KernelReport&)>& deliver,
                            const BatchWork& batch_work = nullptr);

} // namespace sdscprov
