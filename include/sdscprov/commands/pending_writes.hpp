// The temporaries a kernel directory's work wrote and a commit renames: the commands' own run
// state. A KernelRewrite carries them from the worker to the commit as an opaque pointer, so that
// the report types (results.hpp), and every printer with them, do not depend on the safe replace
// (descriptors, locks).
//
// Each temporary holds a descriptor until its commit. A worker commits its batch's temporaries
// once the batch's work is done (one syncfs for the batch), and a kernel's own temporaries
// whenever it holds WriteSettings::held_temporaries of them: a kernel directory of any width is
// written in one run, under any open-files limit, chunk after chunk.
#pragma once

#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/commands/results.hpp"
#include "sdscprov/write/replace.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace sdscprov {

struct PendingWrites {
    std::vector<PendingReplace> replaces; // in the order the files were written
    std::vector<std::size_t> outcomes;    // the index of each one's file in KernelRewrite::files
};

// Adds the temporary written for the file whose outcome is the annotation's files[outcome].
void add_pending(KernelRewrite& annotation, std::size_t outcome, PendingReplace&& replace);

// The annotation's temporaries, in the order they were added; none are left in it.
PendingWrites take_pending(KernelRewrite& annotation);

// How many temporaries the annotation holds for the commit.
std::size_t pending_count(const KernelRewrite& annotation);

// A kernel directory's rewrite and the list its problems go to, for a commit.
struct CommitTarget {
    KernelRewrite& rewrite;
    std::vector<Problem>& problems;
};

// Renames the temporaries the kernels hold, in one commit (commit(), replace.hpp: one syncfs with
// Durability::batch), records in each outcome whether its file was written, and adds each
// problem of the commit to its file's kernel.
void commit_pending(std::span<const CommitTarget> kernels, Durability durability);

// Sets, for a writing run over `roots` paths with `pipeline`'s workers, how many temporaries a
// worker holds at most (write.held_temporaries) and how many files a batch holds at most
// (pipeline.batch_files, never raised): together with what else each worker and the run hold
// open (the files read ahead, the batch's directories, the walk's, the standard streams), under
// the open-files limit (open_files_limit(), replace.hpp), with a margin. Call before run_pipeline.
void fit_writes_to_open_files(PipelineOptions& pipeline, WriteSettings& write, std::size_t roots);

// Its arithmetic: how many temporaries each of `workers` may hold when `limit` descriptors may be
// open and the run holds `in_use` besides its workers' (at least 1: below what a run needs, it
// fails per file, and says so).
std::size_t temporaries_per_worker(std::size_t limit, std::size_t in_use, std::size_t workers);

} // namespace sdscprov
