// annotate: for each kernel directory, join it with the origins index, decide per file, and write
// `debug_handle_` where it is missing (or null, or stale with --refresh) by safe replace.
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/join/join.hpp"
#include "sdscprov/write/replace.hpp"

#include <limits>
#include <map>
#include <string>
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

struct AnnotateOptions {
    JoinOptions join;
    // A stale-handle warning per file holding another handle (check reports them as findings).
    bool stale_warnings = true;
    WriteSettings write;
};

class Annotator {
public:
    // `kernel_name_counts`: how many discovered kernel directories carry each kernel name.
    // `upstream`: kernel-level mappings for the report (may be empty).
    Annotator(const OriginsIndex& index, std::map<std::string, std::size_t> kernel_name_counts,
              AnnotateOptions options, std::vector<UpstreamMappings> upstream = {});

    // The per-kernel work: scan, join, plan and, in write mode, write temporary files; the
    // annotation says whether the run writes (dry_run).
    void annotate_kernel(KernelReport& report, Scanner& scanner) const;

    // The per-batch work: rename the batch's temporary files over the originals.
    void commit_batch(std::vector<KernelReport>& batch) const;

private:
    // The directory joined with the index (its bundle.mlir read first, its problems added).
    KernelJoin join_dir(const KernelDir& dir, Scanner& scanner,
                        std::vector<Problem>& problems) const;

    const OriginsIndex& index_;
    std::map<std::string, std::size_t> kernel_name_counts_;
    AnnotateOptions options_;
    std::vector<UpstreamMappings> upstream_;
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

// strip: every debug_handle_ set to null (torch-spyre's convention), or the member removed
// (`remove`), with the same checked, safe replace as annotate. Files without a handle (or with a
// null one, when not removing) are kept; a handle that appears twice in an op is never written.
struct StripOptions {
    bool remove = false;
    WriteSettings write;
};
void strip_kernel(KernelReport& report, Scanner& scanner, const StripOptions& options);

} // namespace sdscprov
