#include "checked_write.hpp"

#include "sdscprov/commands/pending_writes.hpp"
#include "sdscprov/core/path.hpp"
#include "sdscprov/write/diff.hpp"
#include "sdscprov/write/splice_check.hpp"

#include <algorithm>
#include <stdexcept>

namespace sdscprov {

namespace {

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

} // namespace

void write_checked(Scanner& scanner, const ScanResult& scan, const CheckedEdit& edit,
                   FileOutcome& outcome, KernelWrite& kernel) {
    const WriteSettings& settings = kernel.settings;
    KernelReport& report = kernel.report;
    const HandleState expected = edit.expected;
    const DebugHandle* handle = edit.handle;
    const NestedAfter nested = edit.nested;
    thread_local SpliceChecker checker;
    thread_local std::string after; // reused: no allocation of a file's size for each file
    std::string_view before = scanner.bytes();
    Splice splice;
    bool assembled = false;
    std::string wrong;
    try {
        splice = edit.make();
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
        const TempSource source{scanner.descriptor(), &kernel.directories, scan.file.dir};
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
            add_pending(kernel.rewrite, kernel.rewrite.files.size(), std::move(*pending));
        } else {
            report.problems.push_back(std::move(problem));
        }
    }
}

void commit_when_full(KernelWrite& kernel) {
    if (pending_count(kernel.rewrite) >= kernel.settings.held_temporaries) {
        const CommitTarget target[] = {{kernel.rewrite, kernel.report.problems}};
        commit_pending(target, kernel.settings.durability);
    }
}

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

} // namespace sdscprov
