// Locating JSON syntax errors. simdjson says *that* a document is invalid but not *where*; this
// strict validator runs only on the slow path (a file simdjson rejected) to find the byte offset
// and a plain message for path:line:col diagnostics.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

// The deepest nesting simdjson's DOM parser takes (its default, which the scanner keeps): a value
// inside this many non-empty containers is an error.
inline constexpr std::size_t max_json_depth = 1024;

struct JsonError {
    std::size_t offset =
        0;               // byte offset of the first offending byte (bytes.size() at end of input)
    std::string message; // plain English, lower case, no trailing period: "unterminated string"
};

// Finds the first error in `bytes` as a strict RFC 8259 parser would, applying the limits simdjson
// enforces: nesting deeper than `max_depth`, integers outside [-2^63, 2^64-1], numbers that do not
// fit a double, invalid UTF-8 anywhere (also inside strings), control characters in strings,
// a byte order mark, trailing content after the value, empty input. Returns nullopt when the text
// is valid. Iterative: never recurses, whatever the nesting.
std::optional<JsonError> locate_json_error(std::string_view bytes,
                                           std::size_t max_depth = max_json_depth);

} // namespace sdscprov
