// Internal: the ideal in an annotated event (utilization.hpp).
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// The JSON object `annotation` (the event's args.sdscprov) with the event's ideal added:
// "ideal_ns" (its bundle's), and "util", ideal / dur (null without a dur, or for a dur of 0).
std::string with_ideal(std::string_view annotation, const BundleIdeal& ideal,
                       const std::uint64_t* dur_ns);

} // namespace sdscprov
