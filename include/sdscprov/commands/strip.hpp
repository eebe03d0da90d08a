// strip: every debug_handle_ of a kernel directory's files set to null (torch-spyre's
// convention), or the member removed, by the same checked, safe replace as annotate (rewrite.hpp).
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/sdsc/scan.hpp"

namespace sdscprov {

// `remove`: the member is removed rather than set to null. Files without a handle (or with a
// null one, when not removing) are kept; a handle that appears twice in an op is never written.
struct StripOptions {
    bool remove = false;
    WriteSettings write;
};
void strip_kernel(KernelReport& report, Scanner& scanner, const StripOptions& options);

} // namespace sdscprov
