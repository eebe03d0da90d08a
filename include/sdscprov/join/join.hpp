// Join: scan results of one kernel directory + the origins index -> a plan per file. Pure: no I/O,
// so every joining rule is tested directly.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/sdsc/bundle.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/walk/discover.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// One op of a map entry.
struct IndexedOp {
    const OriginsOp* op = nullptr;
};

struct IndexedKernel {
    const OriginsKernel* kernel = nullptr;
    const OriginsMap* map = nullptr;
    std::size_t rank = 0;       // the map's position among the --origins files: lower wins
    std::vector<IndexedOp> ops; // OpSpec order
};

// A read-only index over origins maps: kernel directory name -> entry, kernel name -> entries.
class OriginsIndex {
public:
    explicit OriginsIndex(std::vector<OriginsMap> maps);

    // Entries whose `dir` is exactly `dir_name`.
    std::vector<const IndexedKernel*> by_dir(std::string_view dir_name) const;
    // Entries of kernel `name` that name no `dir`.
    std::vector<const IndexedKernel*> by_name(std::string_view name) const;

    const std::vector<IndexedKernel>& kernels() const { return kernels_; }

private:
    std::vector<std::unique_ptr<OriginsMap>> maps_; // stable addresses for the pointers below
    std::vector<IndexedKernel> kernels_;
    // Keys view the names in maps_ (stable): a copy of each was megabytes for a large map.
    std::multimap<std::string_view, std::size_t> by_dir_;
    std::multimap<std::string_view, std::size_t> by_name_;
};

enum class KernelMatch {
    matched,    // one map entry, by directory or by kernel name
    not_in_map, // no entry for this directory or kernel name
    ambiguous,  // several directories carry the kernel name (or several entries): never guess
    unusable,   // matched, but ops and files cannot be paired (bundle.mlir problems)
};
std::string_view to_string(KernelMatch m);

enum class FileAction {
    add,             // no handle: insert it
    fill,            // null handle: set it
    refresh,         // a different handle, --refresh: replace it
    keep,            // the same handle already: nothing to do
    differs,         // a different handle: left alone (stale, or another compile's)
    no_origin,       // the op has no FX origins (compiler-generated): no handle exists
    opfunc_mismatch, // the file's opfunc is not the op's: left alone
    no_op,           // no OpSpec of the map entry uses this file
    unmatched,       // the kernel directory was not matched (see KernelMatch)
    malformed,       // the file's handle is malformed: never written over
    bad_file,        // the file could not be scanned (see its problems)
    strip,           // strip: the handle set to null
    remove,          // strip --remove: the handle member removed
};
std::string_view to_string(FileAction a);
// Whether the action writes the file.
inline bool writes(FileAction a) {
    return a == FileAction::add || a == FileAction::fill || a == FileAction::refresh;
}

struct FilePlan {
    FileAction action = FileAction::unmatched;
    std::optional<DebugHandle> handle; // the handle to write (writes(action)) or the expected one
    std::string detail;                // why, for reports
};

// A kernel directory joined with its map entry, before any file is read: which OpSpecs run
// which file. Planning a file then needs only that file's scan, so a worker decides and writes
// each file while its bytes are still in the read buffer.
struct KernelJoin {
    KernelMatch match = KernelMatch::not_in_map;
    const IndexedKernel* entry = nullptr;
    std::string detail;                        // why not matched, for reports
    std::vector<std::vector<std::size_t>> ops; // per file (parallel to dir.files): OpSpec positions
    // Per OpSpec of the entry (matched only): its derived handle, nullopt without FX origins.
    std::vector<std::optional<DebugHandle>> handles;
    std::vector<Problem> problems; // pairing problems (bundle.mlir, op counts)
    // OpSpecs whose file is shared with an earlier one (SDSC de-duplication): their handles are
    // held only in the origins map, as torch-spyre keeps the first op's handle in the file.
    std::vector<std::size_t> lost_ops;
    // Ambiguous between several entries of one file (a kernel name whose spyre_provenance.json
    // occurrences have different identities, or map entries without dir): settle_join may
    // decide between them with the files' contents.
    std::vector<const IndexedKernel*> candidates;
};

struct JoinOptions {
    bool refresh = false; // replace populated handles that differ
};

// Joins one kernel directory. `dirs_with_kernel_name` is how many discovered kernel directories
// carry this directory's kernel name (ambiguity); `bundle` is its bundle.mlir when it has one.
KernelJoin join_kernel(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                       const OriginsIndex& index, std::size_t dirs_with_kernel_name);

// An ambiguous join settled by the files (their scans, parallel to dir.files): the one candidate
// whose ops' opfuncs all match the files' and whose handles equal every populated handle the
// files hold, when the others each contradict the files somewhere. Otherwise the join stays
// ambiguous, with the reason: never guess.
KernelJoin settle_join(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                       const KernelJoin& ambiguous, const std::vector<ScanResult>& scans);

// What to do with file `file` of a joined kernel directory, given its scan.
FilePlan plan_file(const KernelJoin& join, std::size_t file, const ScanResult& scan,
                   const JoinOptions& options);

} // namespace sdscprov
