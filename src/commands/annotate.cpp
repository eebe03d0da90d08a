#include "sdscprov/commands/annotate.hpp"

#include "checked_write.hpp"

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



} // namespace


namespace {

// What the report says of the join: the map entry, and the handles held only in the map (the
// ops whose file is shared with an earlier op's).
JoinOutcome describe_join(const KernelDir& dir, const KernelJoin& join) {
    JoinOutcome annotation;
    annotation.match = join.match;
    annotation.detail = join.detail;
    annotation.lost_ops = join.lost_ops;
    if (!join.entry) {
        return annotation;
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
    return annotation;
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
    KernelWrite kernel{report, annotation, directories, options_.write};
    KernelJoin join = join_dir(dir, scanner, report.problems);
    report.problems.insert(report.problems.end(), join.problems.begin(), join.problems.end());
    JoinOutcome& described = annotation.join.emplace(describe_join(dir, join));
    if (!upstream_.empty() && dir.kernel) {
        UpstreamKernel up = upstream_kernel(upstream_, *dir.kernel);
        if (!up.keys.empty()) {
            described.upstream = std::move(up);
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
                    described.map_entry + " gives " + plan.handle->id +
                    " for this op (another compile's, e.g. a kernel-cache hit); --refresh "
                    "replaces it"));
        }
        FileOutcome outcome;
        outcome.action = plan.action;
        outcome.detail = std::move(plan.detail);
        if (writes(plan.action)) {
            outcome.handle = std::move(plan.handle); // kept for the report of the state after
            const DebugHandle& handle = *outcome.handle;
            const CheckedEdit edit{[&] { return handle_splice(scanner.bytes(), scan, handle); },
                                   HandleState::populated, &handle, NestedAfter::kept};
            write_checked(scanner, scan, edit, outcome, kernel);
        }
        annotation.files.push_back(std::move(outcome));
        commit_when_full(kernel);
    }
    annotation.dry_run = options_.write.mode != WriteMode::write;
    report.rewrite = std::move(annotation);
    drop_context_files(report.dir);
}

void Annotator::commit_batch(std::vector<KernelReport>& batch) const {
    sdscprov::commit_batch(batch, options_.write);
}



} // namespace sdscprov
