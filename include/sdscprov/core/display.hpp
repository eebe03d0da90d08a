// Showing names and texts that come from the tree. A file name is any bytes but '/' and NUL: it
// may hold a newline, a terminal escape or bytes that are not UTF-8, and each output format has
// one documented way to show it (docs/report-json.md, "Paths and texts that are not UTF-8";
// docs/bad-input.md, "Names that are not text"):
//  - text, Markdown and GitHub output: a name that needs it is quoted as git quotes paths
//    (`core.quotePath`), but valid UTF-8 is kept as it is: quote_path();
//  - JSON: a path that is not valid UTF-8 is {"bytes": "<base64 of the name's bytes>"}, as
//    ripgrep's JSON gives it; other texts have each invalid byte replaced by U+FFFD;
//  - JUnit XML: names quoted as in text, then escaped for XML; other texts as in JSON;
//  - SARIF: URIs percent-encode every byte that needs it.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

bool is_valid_utf8(std::string_view s);

// `s` with every byte that does not begin a valid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

// `path` as it is when it is valid UTF-8 without control characters (C0, DEL, C1), '"' or '\';
// else between double quotes, with \a \b \t \n \v \f \r \" \\ and every other such byte as a
// three-digit octal escape (\033, \377), as git writes it.
std::string quote_path(std::string_view path);

// `text` (a message) with its control characters and invalid UTF-8 bytes escaped as quote_path()
// escapes them, without quotes: nothing in it can move the cursor or start a terminal escape.
std::string printable_text(std::string_view text);

// `text` in at most `width` columns (code points; text reports on a terminal): when longer, its
// middle gives way to one "…", the tail keeping two thirds of the room: the end of a name is what
// tells kernels apart (the key, the counter, the directory's random suffix).
std::string shorten_middle(std::string_view text, std::size_t width);

// The width of a text report that does not go to a terminal: no line reaches it, so that no name
// is shortened and every printed path can be pasted into `explain` or a shell (as ripgrep and git
// do when piped). Small enough that adding to it cannot overflow.
inline constexpr std::size_t unlimited_width = static_cast<std::size_t>(-1) / 4;

// "path:line:col", or "path" for a problem without a position, the path as quote_path() gives it.
std::string quoted_location(std::string_view path, TextPosition pos);

// The one way a problem is shown on a terminal: "path:line:col: severity: message [code]", the
// path as quoted_location() gives it and the message as printable_text(); " (N events)" after
// the message for a diagnostic of more than one trace event; "severity: message [code]" for a
// problem of no one input (an empty path).
std::string problem_line(const Problem& p);

// Standard base64 (RFC 4648, with padding), and back: nullopt for text that is not base64.
std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

} // namespace sdscprov
