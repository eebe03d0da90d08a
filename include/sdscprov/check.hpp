// check: the gate for golden kernels and CI. A finding is an SDSC file without a populated,
// well-formed debug_handle_, or (checked against origins maps) one whose handle is not the
// map's. Findings are reported at the line of the op key, or of the handle when there is one.
#pragma once

#include "sdscprov/report.hpp"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

enum class CheckRule {
    missing_handle,   // no debug_handle_ member
    null_handle,      // debug_handle_ is null
    malformed_handle, // debug_handle_ is not of the shape of FORMATS section 3
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

// check --format json: {"sdscprov_check": 1, "files": N, "findings": [{path, line, col, rule,
// message}], "problems": [{path, line, col, severity, code, message}]} (docs/report-json.md).
void write_check_json(std::ostream& out, const std::vector<Finding>& findings,
                      const std::vector<Problem>& problems, std::uint64_t files);

} // namespace sdscprov
