// Between the reader of spyre_provenance.json and its checks of meaning: where the reader found
// what the checks report on, and the checks themselves. Internal to the library.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sdscprov {

// The most handles one handle may expand to (itself and its nested constituents): a document in
// which one expands to more is rejected, as its expansion could not be built (fuzz/checks.hpp
// checks the same bound).
inline constexpr std::uint64_t max_expanded_handles = 4096;

// Positions the reader noted for the checks of meaning.
struct SpyrePositions {
    struct Registration {
        TextPosition pos;
        std::int64_t ordinal;
        std::string alias;
    };

    TextPosition status_pos;
    TextPosition diagnostics_pos;
    std::vector<std::pair<TextPosition, std::string>> id_mismatch;    // an id that is not its key
    std::map<std::string, std::vector<TextPosition>> fused_positions; // handle id -> fused_ids
    std::vector<Registration> registrations;
    std::vector<const SpyreOccurrence*> registration_owner; // one per registration
    std::set<bool> draft_shapes;
};

// Each failure is reported through `semantic` (a semantic-validation-failure at its position).
void check_spyre_meaning(SpyreProvenance& doc, SpyrePositions& at,
                         const std::function<void(TextPosition, std::string)>& semantic);

} // namespace sdscprov
