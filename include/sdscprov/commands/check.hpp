// check: the gate for golden kernels and CI. A finding is an SDSC file without a populated,
// well-formed debug_handle_, or (checked against origins maps) one whose handle is not the
// map's. Findings are reported at the line of the op key, or of the handle when there is one.
// An op the compiler created with no model source (compiler_generated.hpp) and no handle is a
// note of its own rule, not a failure (--strict makes it one); checked against origins maps, a
// kernel directory the maps do not know is another compile's: counted, not judged.
#pragma once

#include "sdscprov/commands/results.hpp"

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

enum class CheckRule {
    missing_handle,   // no debug_handle_ member
    null_handle,      // debug_handle_ is null
    malformed_handle, // debug_handle_ is not of the documented shape
    stale_handle,     // populated, but not the handle the origins map gives
    compiler_generated, // no populated handle, but the compiler created the op with no source
};
inline constexpr std::size_t check_rule_count = 5;
std::string_view to_string(CheckRule r); // "missing-handle", ...

struct Finding {
    std::string path;
    TextPosition pos;
    CheckRule rule;
    std::string message;
    // error: fails the gate; note: reported, not a failure (compiler-generated, without --strict).
    Severity severity = Severity::error;
    bool fails() const { return severity == Severity::error; }
};

// What check judges and what fails it (check's options, as the library takes them).
struct CheckOptions {
    bool strict = false;      // compiler-generated ops without a handle fail too
    bool all_kernels = false; // with origins maps: judge the kernels they do not know too
    // --fail-under PCT: the gate passes while at least PCT % of the judged ops hold a populated
    // handle, whatever the findings; without it, any finding fails.
    std::optional<double> fail_under;
};

// The findings for one kernel directory, in file order. Files that could not be scanned are not
// findings: they are problems (bad input). With an annotation (annotate in check mode), a handle
// that differs from the map's is a finding too.
std::vector<Finding> check_kernel(const KernelReport& report, const CheckOptions& options = {});

// Whether a kernel directory is another compile's: checked against origins maps (annotate's run
// in check mode) that do not know it, and not judged (unless CheckOptions::all_kernels).
bool not_from_this_compile(const KernelReport& report, const CheckOptions& options);

// One kernel directory's check, for the formats that group by directory (JUnit).
struct CheckedKernel {
    std::string dir;
    std::uint64_t files = 0;
    std::vector<Finding> findings;
    std::vector<Problem> problems; // its files' problems and its own (bad input)
    // A sharded run's: the directory's place in the whole walk (shard.hpp).
    std::optional<std::uint64_t> position;
    bool foreign = false; // not from this compile (not_from_this_compile): no findings
    std::uint64_t failures() const; // findings that fail the gate
};
CheckedKernel checked_kernel(const KernelReport& report, const CheckOptions& options = {});

// What every format gets: the kernels in discovery order, and every problem (walk problems and
// origins map problems included), in order.
struct CheckResult {
    std::vector<CheckedKernel> kernels;
    std::vector<Problem> problems;
    std::uint64_t files() const;
    std::uint64_t findings() const; // those that fail the gate
    std::uint64_t notes() const;    // the others
};

// What check's closing lines count, added up as the kernel directories come: files, findings
// (failing) and notes, the kernels (by name; a directory without one by its own name) and
// directories, in all and with findings (the words and numbers of scan's report,
// docs/formats.md), those not from this compile, and the judged ops with a populated handle.
struct CheckTally {
    std::uint64_t files = 0;
    std::uint64_t findings = 0;
    std::uint64_t notes = 0;
    std::uint64_t dirs = 0;
    std::uint64_t dirs_found = 0;
    std::set<std::string> kernels;
    std::set<std::string> kernels_found;
    std::uint64_t foreign_dirs = 0;
    std::set<std::string> foreign_kernels;
    std::uint64_t ops = 0;       // SDSC documents of the judged directories
    std::uint64_t populated = 0; // of them, with a populated handle
    void add(const KernelReport& report, const CheckedKernel& checked);
    // The share of judged ops with a populated handle, in percent (100 when there is none).
    double populated_share() const;
    // Whether the gate fails: the share under CheckOptions::fail_under, or else any finding.
    bool fails(const CheckOptions& options) const;
};

// part/whole in percent with one decimal, rounded down (99.96 % is "99.9": never shown as the 100
// it does not reach); "100.0" when whole is 0.
std::string share_text(std::uint64_t part, std::uint64_t whole);

} // namespace sdscprov
