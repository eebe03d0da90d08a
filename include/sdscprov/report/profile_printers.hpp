// Printers of a ProfileReport: a ranked text table for people, JSON for scripts
// (docs/profile.md has the schema), and folded stacks for flame graph tools (flamegraph.pl,
// inferno, speedscope). They render what the report holds and compute nothing of their own; the
// output is deterministic (the report's orders; folded lines sorted by their bytes).
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace sdscprov {

enum class ProfileRanking { line, aten, kernel };

struct ProfileTextOptions {
    std::size_t top = 20; // rows per ranking; 0: every row
    std::vector<ProfileRanking> rankings{ProfileRanking::line, ProfileRanking::aten,
                                         ProfileRanking::kernel};
    bool stages = false;     // the DMI / PREP / CMPT / DMO columns
    std::size_t width = 100; // columns the table fits in (labels are shortened)
    bool shorten = true;     // false: labels and paths whole, whatever the width (not a terminal)
    bool color = false;
};

std::string render_profile_text(const ProfileReport& report, const ProfileTextOptions& options);

// {"sdscprov_profile": 1, ...}: every row of every ranking, every bundle, handle and diagnostic.
std::string render_profile_json(const ProfileReport& report);

// One line per stack, `ROOT;ATEN;KERNEL VALUE`: the bundle's source lines joined by '+' (or
// [no source], [unresolved]), its ATen ops joined by '+' (or [no aten op], [unresolved]), its
// compiler kernel names (else the event name without #<step>), and the device time in integer
// nanoseconds, summed over the bundles with that stack. Stacks of 0 ns are left out. In a frame,
// ';' becomes ',' and control characters '?' (they would break the format).
std::string render_profile_folded(const ProfileReport& report);

} // namespace sdscprov
