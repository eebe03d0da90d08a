// The handles of kernel caches, by id: what profile pairs a trace event's `args.debug_handles`
// with when there is no sidecar, and where profile and explain find a bundle's kernel directories
// (bundle_dirs.hpp). Every
// `debug_handle_` member of every SDSC file counts, at any depth of the document (today it is
// the op object's first member; other writers may nest it).
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/join/bundle_dirs.hpp"
#include "sdscprov/walk/discover.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sdscprov {

struct IndexedHandle {
    DebugHandle handle;              // as the first file holding it has it
    std::string file;                // that file
    std::vector<std::uint32_t> dirs; // every kernel directory holding this id, in walk order
};

class HandleIndex {
public:
    std::vector<IndexedKernelDir> dirs; // in walk order
    std::unordered_map<std::string, IndexedHandle> handles;

    const IndexedHandle* find(std::string_view id) const;
    // Kernel name (of a directory's name or kernel_name.txt) -> its directories, in walk order.
    std::unordered_map<std::string, std::vector<std::uint32_t>> by_kernel;

    // The directories holding `id` (find's dirs), and those of a kernel name, for
    // resolve_bundle_dirs.
    HandleHolders holders() const;
    NamedDirs named_dirs() const;
    bool empty() const { return dirs.empty(); }
};

struct HandleIndexOptions {
    DiscoverOptions discover;
    std::uint64_t max_file_size = std::uint64_t{1} << 30;
    unsigned jobs = 0; // 0: all cores
};

struct HandleIndexResult {
    HandleIndex index;
    std::vector<Problem> problems; // walk and file problems, in walk order
};

// Walks `roots` and reads every SDSC file (files in parallel, results in walk order).
HandleIndexResult index_handles(const std::vector<std::string>& roots,
                                const HandleIndexOptions& options = {});
// The same for kernel directories already discovered (in walk order), `walk_problems` first.
HandleIndexResult index_kernel_dirs(const std::vector<KernelDir>& dirs,
                                    const HandleIndexOptions& options = {},
                                    std::vector<Problem> walk_problems = {});

} // namespace sdscprov
