// annotate: for each kernel directory, join it with the origins index, decide per file, and write
// `debug_handle_` where it is missing (or null, or stale with --refresh) by safe replace.
#pragma once

#include "sdscprov/join.hpp"
#include "sdscprov/replace.hpp"
#include "sdscprov/report.hpp"

#include <map>
#include <string>
#include <vector>

namespace sdscprov {

enum class AnnotateMode {
    write,   // write the files
    dry_run, // report what would be written, write nothing
    check,   // same, for CI: the exit status says whether anything would change
};

struct AnnotateOptions {
    JoinOptions join;
    AnnotateMode mode = AnnotateMode::write;
    Durability durability = Durability::batch;
    bool diff = false; // keep a unified diff of each change in the outcome
};

class Annotator {
public:
    // `kernel_name_counts`: how many discovered kernel directories carry each kernel name.
    Annotator(const OriginsIndex& index, std::map<std::string, std::size_t> kernel_name_counts,
              AnnotateOptions options);

    // The per-kernel work: scan, join, plan and, in write mode, write temporary files.
    void annotate_kernel(KernelReport& report, Scanner& scanner) const;

    // The per-batch work: rename the batch's temporary files over the originals.
    void commit_batch(std::vector<KernelReport>& batch) const;

private:
    const OriginsIndex& index_;
    std::map<std::string, std::size_t> kernel_name_counts_;
    AnnotateOptions options_;
};

} // namespace sdscprov
