// Internal: decimal digits read eight at a time (trace times and the timeline's args are long runs
// of digits).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace sdscprov {

// Whether the eight bytes of `chunk` (in memory order) are all ASCII digits.
inline bool eight_digits(std::uint64_t chunk) {
    return ((chunk & 0xF0F0F0F0F0F0F0F0ULL) |
            (((chunk + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
           0x3333333333333333ULL;
}

// The number eight ASCII digits (in memory order, the first the most significant) write.
inline std::uint64_t eight_digits_value(std::uint64_t chunk) {
    chunk -= 0x3030303030303030ULL;
    chunk = (chunk * 10 + (chunk >> 8)) & 0x00FF00FF00FF00FFULL;
    chunk = (chunk * 100 + (chunk >> 16)) & 0x0000FFFF0000FFFFULL;
    return (chunk * 10000 + (chunk >> 32)) & 0xFFFFFFFFULL;
}

// Reads the digits of `t` from `i` on into `v` (v * 10 + each), eight at a time while it can, at
// most `limit` of them in all (counting from 0); `i` is left after the last digit read.
inline void read_digits(std::string_view t, std::size_t& i, std::uint64_t& v, std::size_t limit) {
    if constexpr (std::endian::native == std::endian::little) {
        while (i + 8 <= t.size() && i + 8 <= limit) {
            std::uint64_t chunk = 0;
            std::memcpy(&chunk, t.data() + i, 8);
            if (!eight_digits(chunk)) {
                break;
            }
            v = v * 100000000 + eight_digits_value(chunk);
            i += 8;
        }
    }
    while (i < t.size() && i < limit && t[i] >= '0' && t[i] <= '9') {
        v = v * 10 + static_cast<std::uint64_t>(t[i] - '0');
        ++i;
    }
}

} // namespace sdscprov
