// Sums of device time and event counts stop at the largest value instead of wrapping (a hostile
// trace can hold any durations). Internal to the library.
#pragma once

#include <cstdint>
#include <limits>

namespace sdscprov {

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

} // namespace sdscprov
