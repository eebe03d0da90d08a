// Showing names and texts that come from the tree. A file name is any bytes but '/' and NUL: it
// may hold a newline, a terminal escape or bytes that are not UTF-8, and each output format has
// one documented way to show it (docs/report-json.md, "Paths and texts that are not UTF-8";
// docs/bad-input.md, "Names that are not text"):
//  - text, Markdown and GitHub output: a name that needs it is quoted as git quotes paths
//    (`core.quotePath`), but valid UTF-8 is kept as it is: quote_path(); a bidirectional
//    formatting character (which reorders what follows it on screen) is shown as <U+202E>;
//  - Markdown: every name and message in a code span of its own (markdown_code());
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

// `path` as it is when it is valid UTF-8 without control characters (C0, DEL, C1),
// bidirectional formatting characters (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F,
// U+061C), '"' or '\'; else between double quotes, with \a \b \t \n \v \f \r \" \\ and every
// other such byte as a three-digit octal escape (\033, \377, C1's two bytes \302\233), as git
// writes it, and each bidirectional formatting character as <U+XXXX> (<U+202E>).
std::string quote_path(std::string_view path);

// `path` quoted as quote_path() quotes it, but a bidirectional formatting character as its bytes
// in octal (\342\200\256): nothing but git's own escapes, so that `git apply` reads the name back
// (a diff's header lines).
std::string git_quoted_path(std::string_view path);

// `text` (a message) with its control characters, invalid UTF-8 bytes and bidirectional
// formatting characters escaped as quote_path() escapes them, without quotes: nothing in it can
// move the cursor, start a terminal escape or reorder the line on screen.
std::string printable_text(std::string_view text);

// `text` (a string from a file: a source line, a handle's text, a label) with each control
// character but tab (C0, DEL, C1) and each byte that is not UTF-8 replaced by '?', and each
// bidirectional formatting character as <U+XXXX>: printable() of handle/source_text.hpp.
std::string masked_text(std::string_view text);

// The columns `text` takes on a terminal: its code points (an East Asian wide character counts
// one: good enough for paths and code). Of a text made printable (printable_text(),
// masked_text(), quote_path()), whose escapes are columns of their own.
std::size_t display_width(std::string_view text);

// `text` as a Markdown code span (CommonMark), its content printable_text(text): fenced with one
// more backtick than its longest run of backticks, a space inside each fence when it starts or
// ends with a backtick or a space. Nothing in it renders as markup, a link or HTML, and it stays
// on its line (a line end inside is escaped).
std::string markdown_code(std::string_view text);

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
