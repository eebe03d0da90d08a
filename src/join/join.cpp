#include "sdscprov/join/join.hpp"

#include "sdscprov/core/path.hpp"
#include "sdscprov/sidecars/derive.hpp"

#include <algorithm>

namespace sdscprov {

std::string_view to_string(KernelMatch m) {
    switch (m) {
    case KernelMatch::matched:
        return "matched";
    case KernelMatch::not_in_map:
        return "not-in-map";
    case KernelMatch::ambiguous:
        return "ambiguous";
    case KernelMatch::unusable:
        return "unusable";
    }
    return "not-in-map";
}

std::string_view to_string(FileAction a) {
    switch (a) {
    case FileAction::add:
        return "add";
    case FileAction::fill:
        return "fill";
    case FileAction::refresh:
        return "refresh";
    case FileAction::keep:
        return "keep";
    case FileAction::differs:
        return "differs";
    case FileAction::no_origin:
        return "no-origin";
    case FileAction::opfunc_mismatch:
        return "opfunc-mismatch";
    case FileAction::no_op:
        return "no-op";
    case FileAction::unmatched:
        return "unmatched";
    case FileAction::malformed:
        return "malformed";
    case FileAction::bad_file:
        return "bad-file";
    case FileAction::strip:
        return "strip";
    case FileAction::remove:
        return "remove";
    }
    return "unmatched";
}

OriginsIndex::OriginsIndex(std::vector<OriginsMap> maps) {
    for (auto& m : maps) {
        maps_.push_back(std::make_unique<OriginsMap>(std::move(m)));
    }
    for (std::size_t rank = 0; rank < maps_.size(); ++rank) {
        const auto& map = maps_[rank];
        for (const auto& kernel : map->kernels) {
            IndexedKernel k;
            k.kernel = &kernel;
            k.map = map.get();
            k.rank = rank;
            for (const auto& op : kernel.ops) {
                k.ops.push_back({&op});
            }
            std::size_t i = kernels_.size();
            kernels_.push_back(std::move(k));
            if (kernel.dir) {
                by_dir_.emplace(*kernel.dir, i);
            } else {
                by_name_.emplace(kernel.name, i);
            }
        }
    }
}

std::vector<const IndexedKernel*> OriginsIndex::by_dir(std::string_view dir_name) const {
    std::vector<const IndexedKernel*> out;
    auto [lo, hi] = by_dir_.equal_range(dir_name);
    for (auto it = lo; it != hi; ++it) {
        out.push_back(&kernels_[it->second]);
    }
    return out;
}

std::vector<const IndexedKernel*> OriginsIndex::by_name(std::string_view name) const {
    std::vector<const IndexedKernel*> out;
    auto [lo, hi] = by_name_.equal_range(name);
    for (auto it = lo; it != hi; ++it) {
        out.push_back(&kernels_[it->second]);
    }
    return out;
}

namespace {

std::string describe(const std::vector<const IndexedKernel*>& entries) {
    std::string s;
    for (const auto* e : entries) {
        s += s.empty() ? "" : ", ";
        s += e->map->path + ":" + std::to_string(e->kernel->pos.line);
    }
    return s;
}

std::string spec_path_text(const std::vector<std::uint64_t>& path) {
    std::string s = "[";
    for (std::size_t i = 0; i < path.size(); ++i) {
        s += (i == 0 ? "" : ", ") + std::to_string(path[i]);
    }
    return s + "]";
}

// The file (index into `files`) that OpSpec position `position` runs, or npos.
std::size_t file_of_position(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                             std::size_t position) {
    constexpr auto npos = static_cast<std::size_t>(-1);
    for (std::size_t i = 0; i < dir.files.size(); ++i) {
        const auto& f = dir.files[i];
        if (bundle) {
            if (base_name(f.path) == bundle->files[position]) {
                return i;
            }
        } else if (f.name.naming == FileNaming::execute ? position == 0
                                                        : f.name.index == position) {
            return i;
        }
    }
    return npos;
}

// The handle of each OpSpec of `entry`. Handles are derived here, per joined kernel on the worker
// that handles it, not for the whole map up front: a compile's map has thousands of ops (each id a
// SHA-256), deriving them all would delay the first write, and a run often touches a part of them.
// A sidecar's handle (spyre_provenance.json) is taken as it is.
std::vector<std::optional<DebugHandle>> entry_handles(const IndexedKernel& entry) {
    std::vector<std::optional<DebugHandle>> handles;
    handles.reserve(entry.ops.size());
    for (const auto& op : entry.ops) {
        handles.push_back(op.op->handle ? std::optional<DebugHandle>(*op.op->handle)
                                        : derive_handle(*op.op, entry.map->nodes));
    }
    return handles;
}

// Where OpSpec `p` of `entry` runs (the i-th sdsc_execute of bundle.mlir, else sdsc_<i>.json),
// and how messages name it (`where`). Placed by its spec path when `by_spec_path`. Nullopt when
// the directory cannot say: a problem is added and `why` says why the kernel is unusable.
std::optional<std::size_t> op_position(const KernelDir& dir,
                                       const std::optional<BundleOrder>& bundle,
                                       const IndexedKernel& entry, std::size_t p, bool by_spec_path,
                                       std::string& where, std::vector<Problem>& problems,
                                       const char*& why) {
    const OriginsOp& op = *entry.ops[p].op;
    where = "OpSpec " + std::to_string(p) + " (" + op.opfunc + ")";
    if (!by_spec_path) {
        return p;
    }
    where = "the OpSpec at spec path " + spec_path_text(op.spec_path);
    if (bundle) {
        auto it = std::find(bundle->spec_paths.begin(), bundle->spec_paths.end(), op.spec_path);
        if (it == bundle->spec_paths.end()) {
            problems.push_back(
                make_problem(dir.path + "/bundle.mlir", {}, ProblemCode::join_mismatch,
                             "'" + entry.kernel->name + "' binds a handle to " + where +
                                 ", which bundle.mlir does not have: the directory is left alone"));
            why = "bundle.mlir has no OpSpec at a bound spec path";
            return std::nullopt;
        }
        return static_cast<std::size_t>(it - bundle->spec_paths.begin());
    }
    if (op.spec_path.size() != 1) {
        problems.push_back(make_problem(dir.path, {}, ProblemCode::join_mismatch,
                                        "'" + entry.kernel->name + "' binds a handle to " + where +
                                            ", inside a loop: without bundle.mlir its file is "
                                            "unknown, the directory is left alone"));
        why = "a loop's OpSpec needs bundle.mlir";
        return std::nullopt;
    }
    return static_cast<std::size_t>(op.spec_path.front());
}

// Joins `dir` with one map entry: which OpSpecs run which file, and their handles.
KernelJoin join_entry(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                      const IndexedKernel& entry) {
    KernelJoin join;
    join.ops.resize(dir.files.size());
    auto unmatched = [&](KernelMatch why, std::string detail) {
        join.match = why;
        join.entry = nullptr;
        join.detail = std::move(detail);
        for (auto& ops : join.ops) {
            ops.clear();
        }
        join.lost_ops.clear();
        join.handles.clear();
        return join;
    };
    join.entry = &entry;
    join.match = KernelMatch::matched;

    const std::size_t ops = entry.ops.size();
    join.handles = entry_handles(entry);

    // OpSpec -> file. A map entry without spec paths lists every OpSpec: the i-th runs
    // bundle.mlir's i-th sdsc_execute, else sdsc_<i>.json. Spec bindings (spyre_provenance.json),
    // and map entries whose ops all carry a spec_path (the reader refuses a mix), may list only
    // some OpSpecs, each placed by its spec path: bundle.mlir's sdsc_execute at that path, else
    // sdsc_<path[0]>.json in a flat bundle.
    const bool by_spec_path =
        entry.kernel->identity.has_value() || (ops > 0 && !entry.ops.front().op->spec_path.empty());
    if (bundle && !by_spec_path && bundle->files.size() != ops) {
        join.problems.push_back(
            make_problem(dir.path + "/bundle.mlir", {}, ProblemCode::join_mismatch,
                         "bundle.mlir runs " + std::to_string(bundle->files.size()) +
                             " ops but the origins map lists " + std::to_string(ops) + " for '" +
                             entry.kernel->name + "': the directory is left alone"));
        return unmatched(KernelMatch::unusable, "bundle.mlir and the origins map disagree");
    }
    for (std::size_t p = 0; p < ops; ++p) {
        std::string where;
        const char* why = nullptr;
        auto placed = op_position(dir, bundle, entry, p, by_spec_path, where, join.problems, why);
        if (!placed) {
            return unmatched(KernelMatch::unusable, why);
        }
        const std::size_t position = *placed;
        std::size_t f = file_of_position(dir, bundle, position);
        if (f == static_cast<std::size_t>(-1)) {
            std::string name =
                bundle ? bundle->files[position] : "sdsc_" + std::to_string(position) + ".json";
            join.problems.push_back(
                make_problem(dir.path, {}, ProblemCode::join_mismatch,
                             where + " runs " + name +
                                 ", which is not in the directory: the directory is left alone"));
            return unmatched(KernelMatch::unusable, "a file the ops need is missing");
        }
        // With SDSC de-duplication several OpSpecs share the file; like torch-spyre, the file
        // keeps the first one's handle. Another handle of the file's later OpSpecs is then
        // held only in the sidecar.
        if (!join.ops[f].empty() && join.handles[p] &&
            join.handles[p] != join.handles[join.ops[f].front()]) {
            join.lost_ops.push_back(p);
        }
        join.ops[f].push_back(p);
    }
    return join;
}

// Files where two sources' handles differ, reported against the one that is not used.
void report_conflicts(const KernelDir& dir, const KernelJoin& used, const KernelJoin& other,
                      std::vector<Problem>& problems) {
    for (std::size_t f = 0; f < dir.files.size(); ++f) {
        if (used.ops[f].empty() || other.ops[f].empty()) {
            continue;
        }
        const auto& a = used.handles[used.ops[f].front()];
        const auto& b = other.handles[other.ops[f].front()];
        if (a && b && *a != *b) {
            problems.push_back(make_problem(
                dir.files[f].path, {}, ProblemCode::conflicting_origins,
                "conflicting handles for this op: " + used.entry->map->path + ":" +
                    std::to_string(used.entry->kernel->pos.line) + " gives id " + a->id + ", " +
                    other.entry->map->path + ":" + std::to_string(other.entry->kernel->pos.line) +
                    " gives id " + b->id + "; the first --origins file's is used"));
        }
    }
}

} // namespace

KernelJoin join_kernel(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                       const OriginsIndex& index, std::size_t dirs_with_kernel_name) {
    KernelJoin join;
    join.ops.resize(dir.files.size());
    auto unmatched = [&](KernelMatch why, std::string detail) {
        join.match = why;
        join.detail = std::move(detail);
        return join;
    };

    // Kernel directory -> map entries, per --origins file: by exact directory name, else by
    // kernel name (entries that name no dir).
    std::map<std::size_t, std::vector<const IndexedKernel*>> by_file; // rank -> entries
    std::map<std::size_t, bool> by_name_only;
    for (const auto* e : index.by_dir(base_name(dir.path))) {
        by_file[e->rank].push_back(e);
    }
    if (dir.kernel) {
        for (const auto* e : index.by_name(*dir.kernel)) {
            if (by_file.count(e->rank) == 0 || by_name_only[e->rank]) {
                by_file[e->rank].push_back(e);
                by_name_only[e->rank] = true;
            }
        }
    }
    if (by_file.empty()) {
        return unmatched(KernelMatch::not_in_map, "kernel not in the origins map");
    }
    // Precedence: the first --origins file that has the kernel gives it; within that file, more
    // than one entry is ambiguous (never guess).
    const auto& [first_rank, first] = *by_file.begin();
    if (first.size() > 1) {
        join.problems.push_back(make_problem(dir.path, {}, ProblemCode::ambiguous_kernel,
                                             "several origins map entries match this directory (" +
                                                 describe(first) + "): it is not annotated"));
        join.candidates = first;
        return unmatched(KernelMatch::ambiguous, "several map entries match");
    }
    if (by_name_only[first_rank] && dirs_with_kernel_name > 1) {
        join.problems.push_back(make_problem(
            dir.path, {}, ProblemCode::ambiguous_kernel,
            std::to_string(dirs_with_kernel_name) + " kernel directories carry the name '" +
                *dir.kernel + "' and its origins map entry (" + describe(first) +
                ") names no 'dir': none of them is annotated"));
        return unmatched(KernelMatch::ambiguous,
                         std::to_string(dirs_with_kernel_name) +
                             " directories carry this kernel name; the map entry names no dir");
    }
    KernelJoin chosen = join_entry(dir, bundle, *first.front());
    // Later files that have one entry for the directory: their handles are compared, not merged.
    for (const auto& [rank, entries] : by_file) {
        if (rank == first_rank || entries.size() != 1 || chosen.match != KernelMatch::matched ||
            (by_name_only[rank] && dirs_with_kernel_name > 1)) {
            continue;
        }
        KernelJoin other = join_entry(dir, bundle, *entries.front());
        if (other.match == KernelMatch::matched) {
            report_conflicts(dir, chosen, other, chosen.problems);
        }
    }
    return chosen;
}

KernelJoin settle_join(const KernelDir& dir, const std::optional<BundleOrder>& bundle,
                       const KernelJoin& ambiguous, const std::vector<ScanResult>& scans) {
    std::vector<KernelJoin> fits;
    std::size_t evidence = 0; // candidates the files contradict
    for (const auto* candidate : ambiguous.candidates) {
        KernelJoin j = join_entry(dir, bundle, *candidate);
        if (j.match != KernelMatch::matched) {
            ++evidence; // its ops need files the directory does not have
            continue;
        }
        bool fits_files = true;
        for (std::size_t f = 0; f < dir.files.size() && fits_files; ++f) {
            const ScanResult& scan = scans[f];
            if (j.ops[f].empty() || scan.status != FileStatus::ok) {
                continue;
            }
            const OriginsOp& op = *candidate->ops[j.ops[f].front()].op;
            const auto& handle = j.handles[j.ops[f].front()];
            if (!op.opfunc.empty() && op.opfunc != scan.opfunc) {
                fits_files = false;
            } else if (scan.handle_state == HandleState::populated && handle &&
                       scan.handle != handle) {
                fits_files = false;
            }
        }
        if (fits_files) {
            fits.push_back(std::move(j));
        } else {
            ++evidence;
        }
    }
    if (fits.size() == 1 && evidence > 0) {
        KernelJoin chosen = std::move(fits.front());
        chosen.detail = "one of " + std::to_string(ambiguous.candidates.size()) +
                        " entries for this kernel name fits the files (their ops and handles)";
        return chosen;
    }
    KernelJoin still = ambiguous;
    still.detail = fits.empty() ? "several map entries match and none fits the files"
                                : "several map entries match and the files do not tell them apart";
    return still;
}

FilePlan plan_file(const KernelJoin& join, std::size_t file, const ScanResult& scan,
                   const JoinOptions& options) {
    FilePlan fp;
    if (scan.status != FileStatus::ok) {
        fp.action = FileAction::bad_file;
        return fp;
    }
    if (join.match != KernelMatch::matched) {
        fp.action = FileAction::unmatched;
        fp.detail = join.detail;
        return fp;
    }
    const auto& ops = join.ops[file];
    if (ops.empty()) {
        fp.action = FileAction::no_op;
        fp.detail = "no OpSpec of '" + join.entry->kernel->name + "' runs this file";
        return fp;
    }
    const IndexedOp& op = join.entry->ops[ops.front()];
    const std::optional<DebugHandle>& handle = join.handles[ops.front()];
    // A sidecar's spec bindings name no opfunc (spyre_provenance.json): nothing to compare.
    if (!op.op->opfunc.empty() && scan.opfunc != op.op->opfunc) {
        fp.action = FileAction::opfunc_mismatch;
        fp.detail = "the file's op is '" + scan.opfunc + "' but OpSpec " +
                    std::to_string(ops.front()) + " of the map is '" + op.op->opfunc + "'";
        return fp;
    }
    if (!handle) {
        fp.action = FileAction::no_origin;
        fp.detail = "OpSpec " + std::to_string(ops.front()) + " (" + op.op->buffer +
                    ") has no FX origins: compiler-generated";
        return fp;
    }
    fp.handle = handle;
    switch (scan.handle_state) {
    case HandleState::absent:
        fp.action = FileAction::add;
        break;
    case HandleState::null:
        fp.action = FileAction::fill;
        break;
    case HandleState::malformed:
        fp.action = FileAction::malformed;
        fp.detail = "the file's debug_handle_ is malformed: left alone";
        break;
    case HandleState::populated:
        if (scan.handle == handle) {
            fp.action = FileAction::keep;
        } else if (options.refresh) {
            fp.action = FileAction::refresh;
        } else {
            fp.action = FileAction::differs;
            fp.detail = "the file holds a different handle (id " + scan.handle->id +
                        ", the map gives " + handle->id + "): --refresh replaces it";
        }
        break;
    }
    return fp;
}

} // namespace sdscprov
