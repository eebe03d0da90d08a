// The text report of a profile over several traces (ProfileReport::ranks, profile/ranks.hpp):
// which rank is slowest overall, each rank's device time, and the rankings with each row's sum,
// slowest rank, longest and shortest time and their spread, ordered by how much longer the
// slowest rank took than the fastest, so that the straggler's rows come first. JSON, folded and
// HTML are profile_printers' own (they print the sum, JSON each rank's time too).
#pragma once

#include "sdscprov/profile/profile.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <string>

namespace sdscprov {

// Every rank's own column when there are at most this many; beyond, the sum and the spread only.
inline constexpr std::size_t rank_columns_max = 8;

std::string render_ranks_text(const ProfileReport& report, const ProfileTextOptions& options);
// The HTML page of several traces: profile's page, the straggler line and the slowest rank named
// under its title.
std::string render_ranks_html(const ProfileReport& report,
                              const SourceTextOptions& source_text = {});

} // namespace sdscprov
