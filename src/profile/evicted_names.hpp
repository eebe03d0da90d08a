// Internal: the names of unresolved groups that left profile's bounded table (profile.cpp).
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sdscprov {

// The names of unresolved groups that left the table kept apart: a Bloom filter of 2^23 bits (1
// MiB, allocated at the first eviction), four probes a name, so that memory stays the same however
// many names leave. It may answer yes for a name that never left (about 2% of new names once a
// million have left), which then goes to the overflow group as well: every total stays exact, that
// name is only not kept apart.
class EvictedNames {
public:
    void add(ProblemCode code, std::string_view name) {
        if (words_.empty()) {
            words_.assign(bits / 64, 0);
        }
        for_probes(code, name, [&](std::size_t bit) { words_[bit / 64] |= bit_of(bit); });
    }
    bool may_hold(ProblemCode code, std::string_view name) const {
        if (words_.empty()) {
            return false;
        }
        bool all = true;
        for_probes(code, name,
                   [&](std::size_t bit) { all = all && (words_[bit / 64] & bit_of(bit)) != 0; });
        return all;
    }

private:
    static constexpr std::size_t bits = std::size_t{1} << 23;
    static std::uint64_t bit_of(std::size_t bit) { return std::uint64_t{1} << (bit % 64); }
    // FNV-1a 64 of the code (its rank among the event codes) and the name, then two halves for double hashing: the same probes
    // on every machine and run.
    template <class F> static void for_probes(ProblemCode code, std::string_view name, F f) {
        std::uint64_t h = 0xcbf29ce484222325ULL;
        auto mix = [&](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
        mix(static_cast<unsigned char>(static_cast<unsigned>(code) -
                                       static_cast<unsigned>(first_event_code)));
        for (char c : name) {
            mix(static_cast<unsigned char>(c));
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        const std::uint64_t a = h & 0xffffffffULL;
        const std::uint64_t b = (h >> 32) | 1U;
        for (std::uint64_t i = 0; i < 4; ++i) {
            f(static_cast<std::size_t>((a + i * b) % bits));
        }
    }
    std::vector<std::uint64_t> words_;
};

} // namespace sdscprov
