// Internal: what the trace reader works out for each event on the thread that parsed it
// (TraceEvent's variant_hash and the timeline's args as numbers), and how the users read them:
// what was worked out, else worked out on the spot, the same either way.
#pragma once

#include "sdscprov/profile/trace.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

// A whole number's JSON text ("12"), else nullopt ("1.5", "-3", "1e3", or not ok).
std::optional<std::uint64_t> whole_number(FieldState state, std::string_view text);

// Whether `e` is an event Pairing looks at: a complete event named spyre_kernel... or with an
// args.provenance_key.
bool pairs(const TraceEvent& e);
// The bytes events pair alike by (Pairing): the name without its step, args.provenance_key,
// args.sdsc_bundle_dir_prefix and args.debug_handles with their states; `out` is overwritten.
void variant_key(const TraceEvent& e, std::string& out);
// Its hash (the hash of variant_key's bytes).
std::uint64_t variant_hash_of(const TraceEvent& e, std::string& scratch);

// Works them out for a parsed event (its debug_handles already in place); the variant key is left
// in `scratch` (when variant_hash_known: the caller keeps it and points variant_key at it).
void derive(TraceEvent& e, std::string& scratch);

// One of the timeline's args as a whole number, worked out already or now.
std::optional<std::uint64_t> arg_number(const TraceEvent& e, ArgsNumber which);

} // namespace sdscprov
