// Which kernel directories of the caches are a bundle's (a provenance key's): the one rule that
// profile follows when it pairs a trace's kernel events, and explain when it is given a profile
// row's KERNEL@KEY label, so that both name the same directories.
//
//  - The directories that hold the bundle's direct handles in their SDSC files (all of them,
//    else, spread over several, every one holding one).
//  - With a sidecar that has the key: of the directories of the kernel names its occurrences give,
//    those holding the handles; when none does, those holding them (sources-disagree); when the
//    caches hold none of its handles, every directory of those names.
//  - An event's args.sdsc_bundle_dir_prefix names the directory itself: the directories with that
//    `<8 hex>` prefix whose kernel name agrees with the bundle's. A prefix that names no
//    directory, or only directories of other kernels, is a bad-bundle-dir-prefix diagnostic, and
//    the directories are those of the rules above.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// A kernel directory of the caches, as a pairing sees it.
struct IndexedKernelDir {
    std::string path;
    std::optional<std::string> kernel;      // from its name, or its kernel_name.txt
    std::vector<std::string> other_kernels; // the other names of its kernel_name.txt

    // Whether `name` is one of its kernel names.
    bool named(std::string_view name) const;
};

// The directories (indexes into the catalog, walk order) holding a handle id; nullptr: none.
using HandleHolders = std::function<const std::vector<std::uint32_t>*(std::string_view id)>;

struct BundleDirQuery {
    std::vector<std::string> handle_ids; // the bundle's direct handles
    // The kernel names a sidecar's occurrences give the bundle (`sidecar`: a sidecar has the
    // key); without one, the names are those of the directories found.
    bool sidecar = false;
    std::vector<std::string> sidecar_kernels;
    std::optional<std::string> dir_prefix; // the event's args.sdsc_bundle_dir_prefix
};

// A diagnostic of the resolution: bad-bundle-dir-prefix (about the event's prefix) or
// sources-disagree (about the bundle).
struct BundleDirNote {
    ProblemCode code = ProblemCode::sources_disagree;
    std::string message;
};

struct BundleDirs {
    std::vector<std::uint32_t> dirs;       // walk order
    std::vector<std::string> kernel_names; // sorted, each once
    bool by_prefix = false;                // the event's prefix chose `dirs`
    std::vector<BundleDirNote> notes;
};

// The directories (walk order) carrying a kernel name; nullptr: none.
using NamedDirs = std::function<const std::vector<std::uint32_t>*(std::string_view name)>;

// `named`, when given, answers for `dirs` what a look at each of them would (an index: a
// resolution per bundle then costs nothing per directory of the caches).
BundleDirs resolve_bundle_dirs(const BundleDirQuery& query,
                               const std::vector<IndexedKernelDir>& dirs,
                               const HandleHolders& holders, const NamedDirs& named = {});

} // namespace sdscprov
