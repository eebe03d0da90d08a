// The temporaries a kernel directory's work wrote and the batch's commit renames: the commands'
// own run state. A KernelAnnotation carries them from the worker to the commit as an opaque
// pointer, so that the report types (results.hpp), and every printer with them, do not depend on
// the safe replace (descriptors, locks).
#pragma once

#include "sdscprov/commands/results.hpp"
#include "sdscprov/write/replace.hpp"

#include <vector>

namespace sdscprov {

struct PendingWrites {
    std::vector<PendingReplace> replaces; // in the order the files were written
};

// Adds a temporary written for one of the annotation's files.
void add_pending(KernelAnnotation& annotation, PendingReplace&& replace);

// The annotation's temporaries, in the order they were added; none are left in it.
std::vector<PendingReplace> take_pending(KernelAnnotation& annotation);

// How many temporaries the annotation holds for the commit.
std::size_t pending_count(const KernelAnnotation& annotation);

} // namespace sdscprov
