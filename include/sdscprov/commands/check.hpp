// check: the gate for golden kernels and CI. A finding is an SDSC file without a populated,
// well-formed debug_handle_, or (checked against origins maps) one whose handle is not the
// map's. Findings are reported at the line of the op key, or of the handle when there is one.
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
};
std::string_view to_string(CheckRule r); // "missing-handle", ...

struct Finding {
    std::string path;
    TextPosition pos;
    CheckRule rule;
    std::string message;
};

// The findings for one kernel directory, in file order. Files that could not be scanned are not
// findings: they are problems (bad input). With an annotation (annotate in check mode), a handle
// that differs from the map's is a finding too.
std::vector<Finding> check_kernel(const KernelReport& report);

// One kernel directory's check, for the formats that group by directory (JUnit).
struct CheckedKernel {
    std::string dir;
    std::uint64_t files = 0;
    std::vector<Finding> findings;
    std::vector<Problem> problems; // its files' problems and its own (bad input)
    // A sharded run's: the directory's place in the whole walk (shard.hpp).
    std::optional<std::uint64_t> position;
};
CheckedKernel checked_kernel(const KernelReport& report);

// What every format gets: the kernels in discovery order, and every problem (walk problems and
// origins map problems included), in order.
struct CheckResult {
    std::vector<CheckedKernel> kernels;
    std::vector<Problem> problems;
    std::uint64_t files() const;
    std::uint64_t findings() const;
};

// What check's closing line counts, added up as the kernel directories come: files and
// findings, and the kernels (by name; a directory without one by its own name) and directories,
// in all and with findings (the words and numbers of scan's report, docs/formats.md).
struct CheckTally {
    std::uint64_t files = 0;
    std::uint64_t findings = 0;
    std::uint64_t dirs = 0;
    std::uint64_t dirs_found = 0;
    std::set<std::string> kernels;
    std::set<std::string> kernels_found;
    void add(const KernelReport& report, const CheckedKernel& checked);
};

} // namespace sdscprov
