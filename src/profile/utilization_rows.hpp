// Internal: the category table of a profile (utilization.hpp).
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <vector>

namespace sdscprov {

// One row per category (category_label) over the report's bundles, each bundle in one row: by
// device time, largest first (then events, then label).
std::vector<ProfileRow> category_rows(const std::vector<ProfileBundle>& bundles);

} // namespace sdscprov
