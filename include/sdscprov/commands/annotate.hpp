// annotate: for each kernel directory, join it with the origins index, decide per file, and write
// `debug_handle_` where it is missing (or null, or stale with --refresh) by safe replace
// (rewrite.hpp: what it shares with strip).
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/join/join.hpp"

#include <map>
#include <string>
#include <vector>

namespace sdscprov {

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

} // namespace sdscprov
