// explain's run, as one call (as annotate's and profile's): the sidecars and mappings read, each
// target resolved to its kernel directories (a profile row's label by the rule profile pairs with,
// bundle_dirs.hpp), their SDSC files scanned, and, for a bundle in no kernel directory, what its
// sidecar says of it. The caches are walked once, and their handles read once when a target
// needs them, whatever the number of targets. Nothing is printed: the caller gets each kernel as
// it is explained and the problems in the result.
#pragma once

#include "sdscprov/commands/explain.hpp"
#include "sdscprov/core/file_size.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

struct ExplainRunOptions {
    std::vector<std::string> targets; // in order; each is explained
    // --targets-from FILE: more targets, one a line (empty lines left out), after `targets`;
    // "-" is standard input.
    std::string targets_from;
    std::vector<std::string> roots;   // the caches names are looked up in; empty: the default
    std::vector<std::string> mappings; // upstream PyTorch's mappings (--mappings)
    std::vector<std::string> origins;  // torch-spyre's spyre_provenance.json (--origins)
    DiscoverOptions discover;
    std::uint64_t max_file_size = default_max_file_size;
    SourceTextOptions source_text; // where source lines may be read
};

// A kernel name several kernel directories carry (a cache keeps every compile): each is shown.
struct ExplainByName {
    std::string target;
    std::size_t dirs = 0;
};

struct ExplainRunResult {
    // Why nothing was explained (a mapping or a sidecar refused, the targets' file unreadable):
    // `problems` says the rest.
    std::optional<std::string> stopped;
    // The mappings', the sidecars', the walk's and the targets' (not found, ...), in that order.
    std::vector<Problem> problems;
    // The problems of the SDSC files shown (each op also carries its own), in the order shown.
    std::vector<Problem> file_problems;
    std::vector<ExplainByName> by_name;
    SourceTextNote source_text; // what the source lines shown did not read, and why
    std::size_t kernels = 0;    // explained (kernel directories and bundles in none)
    bool failed = false;        // a target not found, or a file that could not be read
};

struct ExplainRunCallbacks {
    std::function<void(const ExplainKernel&)> kernel; // each kernel, in order
};

ExplainRunResult explain(const ExplainRunOptions& options, const ExplainRunCallbacks& callbacks);

} // namespace sdscprov
