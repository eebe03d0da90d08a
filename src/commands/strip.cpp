#include "sdscprov/commands/strip.hpp"

#include "checked_write.hpp"

#include "sdscprov/commands/pipeline.hpp"

#include <algorithm>

namespace sdscprov {

namespace {

// Whether strip (`remove`: strip --remove) would change the file: a handle of the op, or one
// nested below its members, that is not already null (any handle at all, when removing).
bool strips_something(const ScanResult& scan, bool remove) {
    const bool op = scan.handle_state != HandleState::absent &&
                    (remove || scan.handle_state != HandleState::null);
    return op || std::any_of(scan.nested_handles.begin(), scan.nested_handles.end(),
                             [&](const NestedHandle& h) { return remove || !h.null; });
}

} // namespace

void strip_kernel(KernelReport& report, Scanner& scanner, const StripOptions& options) {
    KernelRewrite rewrite; // no join: each file is stripped on its own
    const KernelDir& dir = report.dir;
    if (options.write.mode == WriteMode::write) {
        remove_leftover_temps(dir, report.problems);
    }
    drop_context_files(report.dir, scanner); // each file is stripped on its own: no join
    TempDirectories directories;
    KernelWrite kernel{report, rewrite, directories, options.write};
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
            const CheckedEdit edit{
                [&] { return strip_splice(scanner.bytes(), scan, options.remove); },
                options.remove || !op_had ? HandleState::absent : HandleState::null, nullptr,
                options.remove ? NestedAfter::removed : NestedAfter::nulled};
            write_checked(scanner, scan, edit, outcome, kernel);
        }
        rewrite.files.push_back(std::move(outcome));
        commit_when_full(kernel);
    }
    rewrite.dry_run = options.write.mode != WriteMode::write;
    report.rewrite = std::move(rewrite);
}

} // namespace sdscprov
