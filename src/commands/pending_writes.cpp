#include "sdscprov/commands/pending_writes.hpp"

#include <algorithm>

namespace sdscprov {

void add_pending(KernelRewrite& annotation, std::size_t outcome, PendingReplace&& replace) {
    if (!annotation.pending) {
        annotation.pending = std::make_shared<PendingWrites>();
    }
    annotation.pending->replaces.push_back(std::move(replace));
    annotation.pending->outcomes.push_back(outcome);
}

PendingWrites take_pending(KernelRewrite& annotation) {
    if (!annotation.pending) {
        return {};
    }
    PendingWrites taken = std::move(*annotation.pending);
    annotation.pending.reset();
    return taken;
}

std::size_t pending_count(const KernelRewrite& annotation) {
    return annotation.pending ? annotation.pending->replaces.size() : 0;
}

void commit_pending(std::span<const CommitTarget> kernels, Durability durability) {
    std::vector<PendingReplace> all;
    struct Owner {
        std::size_t kernel;
        std::size_t outcome;
    };
    std::vector<Owner> owners;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        PendingWrites taken = take_pending(kernels[k].rewrite);
        for (std::size_t i = 0; i < taken.replaces.size(); ++i) {
            all.push_back(std::move(taken.replaces[i]));
            owners.push_back({k, taken.outcomes[i]});
        }
    }
    if (all.empty()) {
        return;
    }
    std::vector<Problem> problems = commit(all, durability);
    for (std::size_t i = 0; i < all.size(); ++i) {
        kernels[owners[i].kernel].rewrite.files[owners[i].outcome].written = all[i].done;
    }
    for (auto& problem : problems) {
        auto file = std::find_if(all.begin(), all.end(),
                                 [&](const PendingReplace& p) { return p.path == problem.path; });
        if (file != all.end()) {
            kernels[owners[file - all.begin()].kernel].problems.push_back(std::move(problem));
        }
    }
}

namespace {

// What a worker holds open besides its temporaries: the group of files the scanner opens ahead
// (8) and its io_uring (1), one file or directory opened for a moment (bundle.mlir, a leftover
// temporary looked at, a directory to sync), and per kernel directory of its batch up to two
// directories (the kernel's, and execute/<kernel>/ of the oldest layout).
constexpr std::size_t worker_descriptors = 8 + 1 + 1;
constexpr std::size_t descriptors_per_kernel = 2;
constexpr std::size_t kernels_per_batch = 32; // the pipeline's most
// For what the count misses: the walk's directories on its way down a tree, a library's own.
constexpr std::size_t margin = 16;

} // namespace

std::size_t temporaries_per_worker(std::size_t limit, std::size_t in_use, std::size_t workers) {
    const std::size_t reserved = in_use + margin;
    const std::size_t per_worker =
        limit > reserved ? (limit - reserved) / std::max<std::size_t>(workers, 1) : 0;
    // held + descriptors_per_kernel * min(kernels_per_batch, held) + worker_descriptors <=
    // per_worker: a batch holds at most as many kernel directories as files (batch_files = held).
    const std::size_t most_directories = descriptors_per_kernel * kernels_per_batch;
    std::size_t held = 0;
    if (per_worker >= worker_descriptors + most_directories + kernels_per_batch) {
        held = per_worker - worker_descriptors - most_directories;
    } else if (per_worker > worker_descriptors) {
        held = (per_worker - worker_descriptors) / (1 + descriptors_per_kernel);
    }
    return std::max<std::size_t>(held, 1);
}

void fit_writes_to_open_files(PipelineOptions& pipeline, WriteSettings& write, std::size_t roots) {
    // Open now (the standard streams, what the walk holds), and a directory held per root.
    const std::size_t held = temporaries_per_worker(
        open_files_limit(), open_files_in_use(16) + roots, worker_count(pipeline));
    write.held_temporaries = held;
    pipeline.batch_files = std::min(pipeline.batch_files, held);
}

} // namespace sdscprov
