// Unified diffs of what a command would change in a file, for --diff.
#pragma once

#include <string>
#include <string_view>

namespace sdscprov {

// A unified diff (one hunk, 3 lines of context) turning `before` into `after`, headed
// "--- a/<path>" / "+++ b/<path>"; empty when they are equal. The hunk spans from the first to the
// last differing line, which is exact for sdscprov's single-region edits.
std::string unified_diff(const std::string& path, std::string_view before, std::string_view after);

} // namespace sdscprov
