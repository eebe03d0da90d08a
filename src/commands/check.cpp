#include "sdscprov/commands/check.hpp"

#include "sdscprov/core/path.hpp"

#include <algorithm>

namespace sdscprov {

std::string_view to_string(CheckRule r) {
    switch (r) {
    case CheckRule::missing_handle:
        return "missing-handle";
    case CheckRule::null_handle:
        return "null-handle";
    case CheckRule::malformed_handle:
        return "malformed-handle";
    case CheckRule::stale_handle:
        return "stale-handle";
    }
    return "missing-handle";
}

std::vector<Finding> check_kernel(const KernelReport& report) {
    std::vector<Finding> findings;
    for (std::size_t i = 0; i < report.files.size(); ++i) {
        const ScanResult& f = report.files[i];
        if (f.status != FileStatus::ok) {
            continue;
        }
        const std::string op = "op '" + f.op_key + "'";
        switch (f.handle_state) {
        case HandleState::absent:
            findings.push_back({f.file.path, f.op_key_pos, CheckRule::missing_handle,
                                op + " has no debug_handle_"});
            continue;
        case HandleState::null:
            findings.push_back({f.file.path, f.handle_pos, CheckRule::null_handle,
                                op + ": debug_handle_ is null"});
            continue;
        case HandleState::malformed:
            findings.push_back({f.file.path, f.handle_pos, CheckRule::malformed_handle,
                                op + ": debug_handle_ is malformed (see docs/formats.md)"});
            continue;
        case HandleState::populated:
            break;
        }
        if (report.rewrite && i < report.rewrite->files.size()) {
            const FileOutcome& outcome = report.rewrite->files[i];
            if (outcome.action == FileAction::differs || outcome.action == FileAction::refresh) {
                findings.push_back({f.file.path, f.handle_pos, CheckRule::stale_handle,
                                    op + ": debug_handle_ is not the origins map's (id " +
                                        f.handle->id + "); sdscprov annotate --refresh"});
            }
        }
    }
    return findings;
}

CheckedKernel checked_kernel(const KernelReport& report) {
    CheckedKernel k;
    k.dir = report.dir.path;
    k.position = report.dir.position;
    k.files = report.files.size();
    k.findings = check_kernel(report);
    for (const auto& f : report.files) {
        k.problems.insert(k.problems.end(), f.problems.begin(), f.problems.end());
    }
    k.problems.insert(k.problems.end(), report.problems.begin(), report.problems.end());
    return k;
}

std::uint64_t CheckResult::files() const {
    std::uint64_t n = 0;
    for (const auto& k : kernels) {
        n += k.files;
    }
    return n;
}

std::uint64_t CheckResult::findings() const {
    std::uint64_t n = 0;
    for (const auto& k : kernels) {
        n += k.findings.size();
    }
    return n;
}

void CheckTally::add(const KernelReport& report, const CheckedKernel& checked) {
    files += checked.files;
    findings += checked.findings.size();
    std::string name =
        report.dir.kernel ? *report.dir.kernel : std::string(file_name_of(report.dir.path));
    ++dirs;
    if (!checked.findings.empty()) {
        ++dirs_found;
        kernels_found.insert(name);
    }
    kernels.insert(std::move(name));
}

} // namespace sdscprov
