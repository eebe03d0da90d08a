// Internal: what the trace reader works out for each event on the thread that parsed it
// (TraceEvent's variant_hash, the timeline's args as numbers and its cat's kind), and how the users
// read them: what was worked out, else (cat's kind, variant hash) worked out on the spot, the same
// either way.
#pragma once

#include "profile/digits.hpp"
#include "sdscprov/profile/trace.hpp"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

// A whole number's JSON text ("12"), else nullopt ("1.5", "-3", "1e3", or not ok). Inline: the
// reader asks for each of the timeline's args an event has.
inline std::optional<std::uint64_t> whole_number(FieldState state, std::string_view text) {
    if (state != FieldState::ok || text.empty()) {
        return std::nullopt;
    }
    std::uint64_t v = 0;
    if (text.size() < 20) { // at most 19 digits: no overflow
        std::size_t i = 0;
        read_digits(text, i, v, text.size());
        return i == text.size() ? std::optional(v) : std::nullopt;
    }
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return v;
}

// Whether `e` is an event Pairing looks at: a complete event named spyre_kernel... or with an
// args.provenance_key.
bool pairs(const TraceEvent& e);
// The bytes events pair alike by (Pairing): the name without its step, args.provenance_key,
// args.sdsc_bundle_dir_prefix and args.debug_handles with their states; `out` is overwritten.
void variant_key(const TraceEvent& e, std::string& out);
// Its hash (the hash of variant_key's bytes).
std::uint64_t variant_hash_of(const TraceEvent& e, std::string& scratch);

// Works out a parsed event's cat kind, as soon as it is parsed.
void derive_fields(TraceEvent& e);
// Works out the variant key and hash of a parsed event that pairs (its debug_handles already in
// place); the key is left in `scratch` (when variant_hash_known: the caller keeps it and points
// variant_key at it).
void derive(TraceEvent& e, std::string& scratch);

// What `cat` (of the given state) is to the timeline; never CatKind::unknown.
CatKind cat_kind_of(FieldState state, std::string_view cat);
// An event's, worked out already or now.
inline CatKind cat_kind(const TraceEvent& e) {
    return e.cat_kind != CatKind::unknown ? e.cat_kind : cat_kind_of(e.cat_state, e.cat);
}

// One of the timeline's args as the reader gave it: a whole number, else nullopt.
inline std::optional<std::uint64_t> arg_number(const TraceEvent& e, ArgsNumber which) {
    if ((e.args_numbers & which) == 0) {
        return std::nullopt;
    }
    switch (which) {
    case correlation_number:
        return e.correlation_n;
    case queued_number:
        return e.queued_n;
    case submitted_number:
        return e.submitted_n;
    case bytes_number:
        return e.bytes_n;
    }
    return std::nullopt;
}

} // namespace sdscprov
