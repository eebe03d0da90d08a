// What annotate and strip share: how a rewriting command writes (WriteSettings), the leftover
// temporaries it sweeps before writing a directory, and the batch's commit.
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/write/replace.hpp"

#include <cstddef>
#include <limits>
#include <vector>

namespace sdscprov {

// Whether a command that rewrites files (annotate, strip) writes them.
enum class WriteMode {
    write,   // write the files
    dry_run, // report what would be written, write nothing
    check,   // same, for CI: the exit status says whether anything would change
};

// How a command that rewrites files writes them.
struct WriteSettings {
    WriteMode mode = WriteMode::write;
    Durability durability = Durability::batch;
    bool diff = false; // keep a unified diff of each change in the outcome
    // The most temporaries a worker holds before it commits them (each holds a descriptor until
    // its rename): a kernel directory with more files to write is committed chunk by chunk.
    // fit_writes_to_open_files() (pending_writes.hpp) derives it from the open-files limit.
    std::size_t held_temporaries = std::numeric_limits<std::size_t>::max();
};

// Removes the directory's temporary files left by sdscprov runs that are gone (killed mid-write:
// their originals are intact), each reported as a note (leftover-temp). Only a file named exactly
// as our temporaries are, after a file of the directory that this run may write, is looked at,
// and it goes only when remove_if_abandoned() (replace.hpp) proves its writer gone; a temporary
// of another kernel on a network file system is kept with a note.
void remove_leftover_temps(const KernelDir& dir, std::vector<Problem>& problems);

// The per-batch work of a rewriting command: rename the batch's temporary files over the
// originals (write mode only), and record in each outcome whether it was written. A kernel
// directory of more than WriteSettings::held_temporaries files to write has had the rest of them
// renamed already, chunk by chunk, during its work.
void commit_batch(std::vector<KernelReport>& batch, const WriteSettings& settings);

} // namespace sdscprov
