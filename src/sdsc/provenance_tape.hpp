// The provenance members of a parsed SDSC document at any depth (the coverage column), read from
// simdjson's tape. Private to the scanner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <simdjson.h>

namespace sdscprov {

// Populated: not null, not an empty string, array or object (0 and false count).
bool is_populated(const simdjson::dom::element& e);

// The provenance members populated anywhere in `doc`, as bits of ProvenanceMember.
// `op_handles` is how many debug_handle_ members the op object itself has, `op_handle_populated`
// whether its value is populated. `handle_keys` is set to how many members named debug_handle_
// the document has at any depth: more than `op_handles` means some are nested below the op's
// members.
std::uint8_t provenance_of_tape(const simdjson::dom::document& doc, std::size_t op_handles,
                                bool op_handle_populated, std::size_t& handle_keys);

} // namespace sdscprov
