#include "sdscprov/commands/annotate.hpp"

#include "sdscprov/commands/pending_writes.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/handle/handle_id.hpp"
#include "sdscprov/sdsc/bundle.hpp"
#include "sdscprov/write/diff.hpp"
#include "sdscprov/write/splice_check.hpp"
#include "sdscprov/write/writer.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace sdscprov {

Annotator::Annotator(const OriginsIndex& index,
                     std::map<std::string, std::size_t> kernel_name_counts, AnnotateOptions options,
                     std::vector<UpstreamMappings> upstream)
    : index_(index), kernel_name_counts_(std::move(kernel_name_counts)), options_(options),
      upstream_(std::move(upstream)) {}

namespace {

// What an edit leaves of the nested handles (ScanResult::nested_handles).
enum class NestedAfter {
    kept,    // the edit is of the op's handle only
    nulled,  // strip: every one null
    removed, // strip --remove: none
};

// The new bytes must parse, keep the op, hold `expected` as the op's handle state (and, when
// populated, `handle`), and the nested handles `nested` says.
std::string verify(Scanner& scanner, const ScanResult& before, const std::string& after,
                   HandleState expected, const DebugHandle* handle, NestedAfter nested) {
    ScanResult check = scanner.scan_bytes(before.file, after);
    if (check.status != FileStatus::ok) {
        return "the new bytes do not parse";
    }
    if (check.op_key != before.op_key) {
        return "the new bytes changed the op key";
    }
    if (check.handle_state != expected || (handle != nullptr && check.handle != *handle)) {
        return "the handle does not read back as written";
    }
    const auto& left = check.nested_handles;
    if ((nested == NestedAfter::removed && !left.empty()) ||
        (nested == NestedAfter::nulled &&
         std::any_of(left.begin(), left.end(), [](const NestedHandle& h) { return !h.null; }))) {
        return "a nested debug_handle_ is still there";
    }
    return {};
}

// Makes a file's edit with `edit`, checks it, and in write mode writes the new bytes to a
// temporary file beside the original (renamed over it by commit_batch). The check costs a small
// parse of the edit's text (splice_check.hpp); an edit it cannot prove is checked by a full scan
// of the new bytes. A failed check is a bug of ours, caught before anything was written: the file
// stays as it is. The new bytes are assembled only for a diff or that full scan: otherwise they
// go to the file as three pieces, the read buffer's head and tail around the edit's text.
// An edit of nested handles (not `kept`) is always checked by the full scan: the splice check
// proves edits of the op's own handle only. `outcome` becomes annotation.files' next one.
void write_checked(Scanner& scanner, const ScanResult& scan, const WriteSettings& settings,
                   const std::function<Splice()>& edit, HandleState expected,
                   const DebugHandle* handle, NestedAfter nested, FileOutcome& outcome,
                   KernelReport& report, KernelRewrite& annotation, TempDirectories& directories) {
    thread_local SpliceChecker checker;
    thread_local std::string after; // reused: no allocation of a file's size for each file
    std::string_view before = scanner.bytes();
    Splice splice;
    bool assembled = false;
    std::string wrong;
    try {
        splice = edit();
        outcome.changes = changes(before, splice);
        bool proved = (nested == NestedAfter::kept || scan.nested_handles.empty()) &&
                      checker.proves(before, scan, splice, expected, handle);
        if (settings.diff || !proved) {
            apply_splice(before, splice, after);
            assembled = true;
        }
        if (settings.diff) {
            outcome.diff = unified_diff(scan.file.path, before, after);
        }
        if (!proved) {
            wrong = verify(scanner, scan, after, expected, handle, nested); // reuses the buffer
        }
    } catch (const std::exception& e) {
        wrong = e.what();
    }
    if (!wrong.empty()) {
        report.problems.push_back(
            make_problem(scan.file.path, {}, ProblemCode::internal_error,
                         "internal error, the file is left unchanged: " + wrong));
        outcome.action = FileAction::bad_file;
        outcome.changes = false;
        outcome.diff.clear();
        return;
    }
    if (outcome.changes && settings.mode == WriteMode::write) {
        if (scan.file.outside_roots) {
            report.problems.push_back(make_problem(
                scan.file.path, {}, ProblemCode::write_failed,
                "reached through a symbolic link to a directory outside the paths given: not "
                "written (the link and its target are unchanged)"));
            return;
        }
        Problem problem;
        std::optional<PendingReplace> pending;
        // The attributes are the read file's, from the descriptor it was read through.
        const TempSource source{scanner.descriptor(), &directories, scan.file.dir};
        if (assembled) {
            std::string_view whole[] = {after};
            pending =
                write_temp(scan.file.path, whole, scan.stamp, settings.durability, problem, source);
        } else {
            std::string_view pieces[] = {before.substr(0, splice.begin), splice.text,
                                         before.substr(splice.end)};
            pending = write_temp(scan.file.path, pieces, scan.stamp, settings.durability, problem,
                                 source);
        }
        if (pending) {
            if (scan.stamp.links > 1) {
                report.problems.push_back(make_problem(
                    scan.file.path, {}, ProblemCode::hard_links,
                    "has " + std::to_string(scan.stamp.links) +
                        " names (hard links): this name gets a new file of its own; the other "
                        "names keep the old bytes, unless they are in the paths given too (each "
                        "is then written alike)"));
            }
            add_pending(annotation, annotation.files.size(), std::move(*pending));
        } else {
            report.problems.push_back(std::move(problem));
        }
    }
}

// A populated handle's id must be the hash of its content (id version 2, else 1; docs/formats.md).
// A mismatch is worth a warning (paths may have been rewritten after the compile), never a
// silent rewrite.
void check_stored_id(const ScanResult& scan, std::vector<Problem>& problems) {
    if (scan.handle_state != HandleState::populated || !scan.handle ||
        verify_handle_id(*scan.handle) != IdVersion::none) {
        return;
    }
    problems.push_back(make_problem(
        scan.file.path, scan.handle_pos, ProblemCode::inconsistent_handle_id,
        "the handle's id " + scan.handle->id +
            " is not the hash of its content (id version 2 gives " + handle_id_v2(*scan.handle) +
            "): its source or names may have been rewritten after the compile; left as it is"));
}

// Commits the kernel's temporaries once it holds as many as a worker may: a kernel of any width
// stays under the open-files limit. Its files written so far are then new, the others still old,
// until the next chunk or the batch's commit.
void commit_when_full(KernelRewrite& annotation, std::vector<Problem>& problems,
                      const WriteSettings& settings) {
    if (pending_count(annotation) >= settings.held_temporaries) {
        const CommitTarget kernel[] = {{annotation, problems}};
        commit_pending(kernel, settings.durability);
    }
}

// Whether strip (`remove`: strip --remove) would change the file: a handle of the op, or one
// nested below its members, that is not already null (any handle at all, when removing).
bool strips_something(const ScanResult& scan, bool remove) {
    const bool op = scan.handle_state != HandleState::absent &&
                    (remove || scan.handle_state != HandleState::null);
    return op || std::any_of(scan.nested_handles.begin(), scan.nested_handles.end(),
                             [&](const NestedHandle& h) { return remove || !h.null; });
}

} // namespace

void remove_leftover_temps(const KernelDir& dir, std::vector<Problem>& problems) {
    for (const auto& temp : dir.temps) {
        auto name = parse_temp_file_name(file_name_of(temp));
        std::string_view parent =
            std::string_view(temp).substr(0, temp.size() - file_name_of(temp).size());
        // Named after a file of this directory that this run may write: nothing else is touched.
        bool beside_its_file =
            name && std::any_of(dir.files.begin(), dir.files.end(), [&](const SdscFile& f) {
                std::string_view file_name = file_name_of(f.path);
                return !f.outside_roots &&
                       std::string_view(f.path).substr(0, f.path.size() - file_name.size()) ==
                           parent &&
                       temp_embedded_name(file_name) == name->embedded;
            });
        if (!beside_its_file) {
            continue;
        }
        // Looked at and removed in the directory held open for its file, when there is one.
        int dir_fd = -1;
        for (const auto& f : dir.files) {
            if (f.dir && std::string_view(f.path).substr(
                             0, f.path.size() - file_name_of(f.path).size()) == parent) {
                dir_fd = f.dir->get();
            }
        }
        std::string detail;
        switch (remove_if_abandoned(temp, detail, dir_fd)) {
        case TempFate::removed:
            problems.push_back(make_problem(temp, {}, ProblemCode::leftover_temp,
                                            "removed a temporary file left by an interrupted "
                                            "sdscprov run (its lock was free: the run is gone)"));
            break;
        case TempFate::other_host:
            problems.push_back(make_problem(
                temp, {}, ProblemCode::leftover_temp,
                "left as it is: a temporary file of an sdscprov run on another machine (or before "
                "a reboot) on a network file system, where a free lock does not prove that run "
                "gone; remove it once no sdscprov run writes here"));
            break;
        case TempFate::alive:
        case TempFate::ours:
        case TempFate::kept:
            break;
        }
    }
}

namespace {

// What the report says of the join: the map entry, and the handles held only in the map (the
// ops whose file is shared with an earlier op's).
void describe_join(const KernelDir& dir, const KernelJoin& join, KernelRewrite& annotation) {
    annotation.match = join.match;
    annotation.detail = join.detail;
    annotation.lost_ops = join.lost_ops;
    if (!join.entry) {
        return;
    }
    annotation.map_entry =
        join.entry->map->path + ":" + std::to_string(join.entry->kernel->pos.line);
    for (std::size_t op : join.lost_ops) {
        LostHandle lost;
        lost.op = op;
        lost.spec_path = join.entry->ops[op].op->spec_path;
        lost.handle = *join.handles[op];
        for (std::size_t f = 0; f < join.ops.size(); ++f) {
            if (std::find(join.ops[f].begin(), join.ops[f].end(), op) != join.ops[f].end()) {
                lost.file = dir.files[f].path;
            }
        }
        annotation.lost.push_back(std::move(lost));
    }
}

} // namespace

KernelJoin Annotator::join_dir(const KernelDir& dir, Scanner& scanner,
                               std::vector<Problem>& problems) const {
    std::optional<BundleOrder> bundle;
    if (dir.has_bundle) {
        auto read = read_bundle(dir.path + "/bundle.mlir", scanner.options().max_file_size,
                                dir.fd ? dir.fd->get() : -1);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        bundle = std::move(read.order);
    }
    KernelJoin join;
    if (dir.has_bundle && !bundle) {
        join.match = KernelMatch::unusable;
        join.detail = "bundle.mlir cannot be read";
        join.ops.resize(dir.files.size());
        return join;
    }
    std::size_t same_name = 1;
    if (dir.kernel) {
        auto it = kernel_name_counts_.find(*dir.kernel);
        same_name = it == kernel_name_counts_.end() ? 1 : it->second;
    }
    join = join_kernel(dir, bundle, index_, same_name);
    if (!join.candidates.empty()) {
        // Several entries of one sidecar: the files' opfuncs and handles may settle it.
        std::vector<ScanResult> scans;
        scans.reserve(dir.files.size());
        for (const auto& f : dir.files) {
            scans.push_back(scanner.scan_file(f));
        }
        join = settle_join(dir, bundle, join, scans);
    }
    return join;
}

void Annotator::annotate_kernel(KernelReport& report, Scanner& scanner) const {
    const KernelDir& dir = report.dir;
    KernelRewrite annotation;
    if (options_.write.mode == WriteMode::write) {
        remove_leftover_temps(dir, report.problems);
    }
    TempDirectories directories; // this kernel's, held open by its temporaries until their commit
    KernelJoin join = join_dir(dir, scanner, report.problems);
    report.problems.insert(report.problems.end(), join.problems.begin(), join.problems.end());
    describe_join(dir, join, annotation);
    if (!upstream_.empty() && dir.kernel) {
        UpstreamKernel up = upstream_kernel(upstream_, *dir.kernel);
        if (!up.keys.empty()) {
            annotation.upstream = std::move(up);
        }
    }

    report.files.reserve(dir.files.size());
    for (std::size_t i = 0; i < dir.files.size(); ++i) {
        if (dir.files[i].context) {
            continue; // joined with, never written or reported
        }
        report.files.push_back(scanner.scan_file(dir.files[i]));
        ScanResult& scan = report.files.back();
        report.counts.add(scan);
        FilePlan plan = plan_file(join, i, scan, options_.join);
        check_stored_id(scan, report.problems);
        if (plan.action == FileAction::differs && options_.stale_warnings) {
            report.problems.push_back(make_problem(
                scan.file.path, scan.handle_pos, ProblemCode::stale_handle,
                "stale handle: the file holds id " + scan.handle->id + " but " +
                    annotation.map_entry + " gives " + plan.handle->id +
                    " for this op (another compile's, e.g. a kernel-cache hit); --refresh "
                    "replaces it"));
        }
        FileOutcome outcome;
        outcome.action = plan.action;
        outcome.detail = std::move(plan.detail);
        if (writes(plan.action)) {
            outcome.handle = std::move(plan.handle); // kept for the report of the state after
            const DebugHandle& handle = *outcome.handle;
            write_checked(
                scanner, scan, options_.write,
                [&] { return handle_splice(scanner.bytes(), scan, handle); },
                HandleState::populated, &handle, NestedAfter::kept, outcome, report, annotation,
                directories);
        }
        annotation.files.push_back(std::move(outcome));
        commit_when_full(annotation, report.problems, options_.write);
    }
    annotation.dry_run = options_.write.mode != WriteMode::write;
    report.rewrite = std::move(annotation);
    drop_context_files(report.dir);
}

void Annotator::commit_batch(std::vector<KernelReport>& batch) const {
    sdscprov::commit_batch(batch, options_.write);
}

void commit_batch(std::vector<KernelReport>& batch, const WriteSettings& settings) {
    if (settings.mode != WriteMode::write) {
        return;
    }
    std::vector<CommitTarget> kernels;
    kernels.reserve(batch.size());
    for (auto& k : batch) {
        kernels.push_back({*k.rewrite, k.problems});
    }
    commit_pending(kernels, settings.durability);
}

void strip_kernel(KernelReport& report, Scanner& scanner, const StripOptions& options) {
    KernelRewrite annotation;
    annotation.match = KernelMatch::matched; // strip needs no map: every directory is its own
    const KernelDir& dir = report.dir;
    if (options.write.mode == WriteMode::write) {
        remove_leftover_temps(dir, report.problems);
    }
    drop_context_files(report.dir, scanner); // each file is stripped on its own: no join
    TempDirectories directories;
    report.files.reserve(dir.files.size());
    for (const auto& file : dir.files) {
        report.files.push_back(scanner.scan_file(file));
        ScanResult& scan = report.files.back();
        report.counts.add(scan);
        FileOutcome outcome;
        bool duplicate = std::any_of(scan.problems.begin(), scan.problems.end(), [](const auto& p) {
            return p.code == ProblemCode::duplicate_handle;
        });
        if (scan.status != FileStatus::ok) {
            outcome.action = FileAction::bad_file;
        } else if (duplicate) {
            // Which of the two members would a reader take? Never guess: leave the file alone.
            outcome.action = FileAction::malformed;
            outcome.detail = "debug_handle_ appears more than once in the op: left alone";
        } else if (!strips_something(scan, options.remove)) {
            outcome.action = FileAction::keep;
        } else {
            outcome.action = options.remove ? FileAction::remove : FileAction::strip;
            if (!scan.nested_handles.empty()) {
                outcome.detail = "with " + std::to_string(scan.nested_handles.size()) +
                                 " debug_handle_ nested below the op's members" +
                                 (options.remove ? " (removed)" : " (set to null)");
            }
            const bool op_had = scan.handle_state != HandleState::absent;
            write_checked(
                scanner, scan, options.write,
                [&] { return strip_splice(scanner.bytes(), scan, options.remove); },
                options.remove || !op_had ? HandleState::absent : HandleState::null, nullptr,
                options.remove ? NestedAfter::removed : NestedAfter::nulled, outcome, report,
                annotation, directories);
        }
        annotation.files.push_back(std::move(outcome));
        commit_when_full(annotation, report.problems, options.write);
    }
    annotation.dry_run = options.write.mode != WriteMode::write;
    report.rewrite = std::move(annotation);
}

} // namespace sdscprov
