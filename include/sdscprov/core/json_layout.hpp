// Where values and keys are in a JSON text. simdjson's DOM keeps values but not their offsets;
// this index gives, for every value in document (pre-)order, the offset of its first byte and of
// its member key, so that readers can report path:line:col for a value they reject.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace sdscprov {

struct JsonValueLocation {
    std::size_t value = 0; // offset of the value's first byte
    std::size_t key = 0;   // offset of its key's opening quote; == value for non-members
    std::size_t end = 0;   // one past the value's last byte
    std::size_t count = 1; // values in its subtree, itself included: the next sibling's index
                           // is this one's plus count
};

// Locations of every value of `json`, which must be valid JSON (checked by a parser first), in the
// order a pre-order traversal visits them: the root first, then members and elements in text
// order, each container before its contents. Iterative: any nesting depth.
std::vector<JsonValueLocation> json_value_locations(std::string_view json);

// Byte-level steps over JSON text already validated by a parser (no checking here): shared by
// every module that edits or locates bytes in a document.
inline bool json_is_ws(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
std::size_t json_skip_ws(std::string_view json, std::size_t at);
// `at` at a string's opening quote; returns the offset after its closing quote.
std::size_t json_string_end(std::string_view json, std::size_t at);
// The first quote at or after `from` that closes the string opened at `open` (one not escaped by
// an odd run of backslashes right before it); npos when [from, size) holds none. For readers that
// have only part of the text yet: asked again from the old end once more has been read.
std::size_t json_closing_quote(std::string_view json, std::size_t open, std::size_t from);
// The end of the value starting at `at` in valid JSON.
std::size_t json_value_end(std::string_view json, std::size_t at);
// `key` at a member's key; returns the offset of its value's first byte.
std::size_t json_member_value(std::string_view json, std::size_t key);

} // namespace sdscprov
