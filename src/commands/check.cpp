#include "sdscprov/commands/check.hpp"

#include "sdscprov/core/path.hpp"

#include <algorithm>
#include <cstdio>

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
    case CheckRule::compiler_generated:
        return "compiler-generated";
    }
    return "missing-handle";
}

bool not_from_this_compile(const KernelReport& report, const CheckOptions& options) {
    return !options.all_kernels && report.rewrite && report.rewrite->join &&
           report.rewrite->join->match == KernelMatch::not_in_map;
}

namespace {

// The note of an op without a handle that the compiler created, nullopt for any other op.
std::optional<Finding> generated_note(const KernelReport& report, std::size_t i,
                                      const std::string& op, const CheckOptions& options) {
    const ScanResult& f = report.files[i];
    std::string why;
    switch (compiler_generated(report, i)) {
    case GeneratedForm::none:
    case GeneratedForm::sourceless_handle: // populated: nothing to report
        return std::nullopt;
    case GeneratedForm::layout_opfunc:
        why = "a layout conversion or padding the compiler inserted";
        break;
    case GeneratedForm::no_fx_origins:
        why = "the origins map lists it with no FX origins";
        break;
    }
    const bool absent = f.handle_state == HandleState::absent;
    return Finding{f.file.path, absent ? f.op_key_pos : f.handle_pos,
                   CheckRule::compiler_generated,
                   op + " is compiler-generated (" + why + "): no model source by design, " +
                       (absent ? "no debug_handle_" : "debug_handle_ is null"),
                   options.strict ? Severity::error : Severity::note};
}

} // namespace

std::vector<Finding> check_kernel(const KernelReport& report, const CheckOptions& options) {
    std::vector<Finding> findings;
    if (not_from_this_compile(report, options)) {
        return findings;
    }
    for (std::size_t i = 0; i < report.files.size(); ++i) {
        const ScanResult& f = report.files[i];
        if (f.status != FileStatus::ok) {
            continue;
        }
        const std::string op = "op '" + f.op_key + "'";
        if (auto note = generated_note(report, i, op, options)) {
            findings.push_back(std::move(*note));
            continue;
        }
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

std::uint64_t CheckedKernel::failures() const {
    return static_cast<std::uint64_t>(
        std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.fails(); }));
}

CheckedKernel checked_kernel(const KernelReport& report, const CheckOptions& options) {
    CheckedKernel k;
    k.dir = report.dir.path;
    k.position = report.dir.position;
    k.files = report.files.size();
    k.foreign = not_from_this_compile(report, options);
    k.findings = check_kernel(report, options);
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
        n += k.failures();
    }
    return n;
}

std::uint64_t CheckResult::notes() const {
    std::uint64_t n = 0;
    for (const auto& k : kernels) {
        n += k.findings.size() - k.failures();
    }
    return n;
}

void CheckTally::add(const KernelReport& report, const CheckedKernel& checked) {
    files += checked.files;
    const std::uint64_t failing = checked.failures();
    findings += failing;
    notes += checked.findings.size() - failing;
    std::string name =
        report.dir.kernel ? *report.dir.kernel : std::string(file_name_of(report.dir.path));
    ++dirs;
    if (checked.foreign) {
        ++foreign_dirs;
        foreign_kernels.insert(name);
    } else {
        ops += report.counts.sdsc_documents();
        populated += report.counts.populated;
    }
    if (failing > 0) {
        ++dirs_found;
        kernels_found.insert(name);
    }
    kernels.insert(std::move(name));
}

double CheckTally::populated_share() const {
    return ops == 0 ? 100.0 : 100.0 * static_cast<double>(populated) / static_cast<double>(ops);
}

bool CheckTally::fails(const CheckOptions& options) const {
    if (options.fail_under) {
        // populated / ops >= PCT / 100, without the rounding of a quotient.
        return static_cast<double>(populated) * 100.0 <
               *options.fail_under * static_cast<double>(ops);
    }
    return findings > 0;
}

std::string share_text(std::uint64_t part, std::uint64_t whole) {
    // Tenths of a percent, rounded down, in whole numbers: no binary fraction rounds it up.
    const std::uint64_t tenths = whole == 0 ? 1000 : part * 1000 / whole;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llu.%llu", static_cast<unsigned long long>(tenths / 10),
                  static_cast<unsigned long long>(tenths % 10));
    return buf;
}

} // namespace sdscprov
