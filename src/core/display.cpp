#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <simdjson.h>

namespace sdscprov {

namespace {

// The length of the valid UTF-8 sequence starting at s[i], 0 when there is none.
std::size_t sequence_at(std::string_view s, std::size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80           ? 1
                      : (c >> 5) == 0x6  ? 2
                      : (c >> 4) == 0xE  ? 3
                      : (c >> 3) == 0x1E ? 4
                                         : 0;
    if (len <= 1) {
        return len;
    }
    return i + len <= s.size() && simdjson::validate_utf8(s.data() + i, len) ? len : 0;
}

// Whether every byte of `s` is printable ASCII (0x20 to 0x7E), and with `quotes` none is '"' or
// '\\': nearly every name and text, copied as it is without a look at each character. No branch
// in the loop, so that it is vectorised.
bool plain_ascii(std::string_view s, bool quotes = false) {
    unsigned char special = 0;
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        special |= static_cast<unsigned char>(static_cast<unsigned char>(c - 0x20) >= 0x5F) |
                   static_cast<unsigned char>(quotes & ((c == '"') | (c == '\\')));
    }
    return special == 0;
}

// The bidirectional formatting character that the `len`-byte UTF-8 sequence at s[i] encodes, 0
// when it is none: the embeddings and overrides (U+202A to U+202E), the isolates (U+2066 to
// U+2069) and the marks (U+200E, U+200F, U+061C). Printed as they are, they reorder what follows
// them on screen, so that a name displays other than it is ("Trojan Source").
char32_t bidi_control(std::string_view s, std::size_t i, std::size_t len) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (len == 2) {
        return b(0) == 0xD8 && b(1) == 0x9C ? 0x061C : 0;
    }
    if (len != 3 || b(0) != 0xE2 || (b(1) != 0x80 && b(1) != 0x81)) {
        return 0;
    }
    char32_t cp = 0x2000 | static_cast<char32_t>((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    bool bidi = cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
                (cp >= 0x2066 && cp <= 0x2069);
    return bidi ? cp : 0;
}

// A C1 control (U+0080 to U+009F): xterm acts on them as on ESC sequences (U+009B is CSI).
bool c1_control(std::string_view s, std::size_t i, std::size_t len) {
    return len == 2 && static_cast<unsigned char>(s[i]) == 0xC2 &&
           static_cast<unsigned char>(s[i + 1]) < 0xA0;
}

// How the characters that cannot be shown as they are are shown: control characters (C0, DEL,
// C1) and bytes that are not UTF-8 as git's escapes (`octal`, `git`) or each byte as '?' (tab
// kept); bidirectional formatting characters as <U+XXXX>, but with `git` as their bytes in octal
// (what `git apply` reads back).
enum class Controls { octal, git, question_mark };

// Appends `s` to `out`, escaped as `controls` says; `quotes`: also '"' and '\' (octal only).
void escape_into(std::string& out, std::string_view s, Controls controls, bool quotes) {
    static const char* octal = "01234567";
    auto byte = [&](unsigned char c) {
        if (controls == Controls::question_mark) {
            out.push_back(c == '\t' ? '\t' : '?');
            return;
        }
        if (c >= '\a' && c <= '\r') {
            out.push_back('\\');
            out.push_back("abtnvfr"[c - '\a']);
            return;
        }
        out.push_back('\\');
        out.push_back(octal[c >> 6]);
        out.push_back(octal[(c >> 3) & 7]);
        out.push_back(octal[c & 7]);
    };
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7F) {
            if (quotes && (c == '"' || c == '\\')) {
                out.push_back('\\');
            }
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        std::size_t len = sequence_at(s, i);
        if (len <= 1) { // C0, DEL or a byte that is not UTF-8
            byte(c);
            ++i;
        } else if (c1_control(s, i, len)) {
            if (controls == Controls::question_mark) {
                out.push_back('?');
            } else {
                byte(c);
                byte(static_cast<unsigned char>(s[i + 1]));
            }
            i += len;
        } else if (controls == Controls::git && bidi_control(s, i, len) != 0) {
            for (std::size_t j = 0; j < len; ++j) {
                byte(static_cast<unsigned char>(s[i + j]));
            }
            i += len;
        } else if (char32_t cp = bidi_control(s, i, len)) {
            char shown[16];
            std::snprintf(shown, sizeof shown, "<U+%04X>", static_cast<unsigned>(cp));
            out += shown;
            i += len;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
}

// `text` escaped as `controls` says, without quotes; plain ASCII copied at once.
std::string escaped(std::string_view text, Controls controls) {
    if (plain_ascii(text)) {
        return std::string(text);
    }
    std::string out;
    out.reserve(text.size() + 16);
    escape_into(out, text, controls, false);
    return out;
}

bool needs_quotes(std::string_view s) {
    if (plain_ascii(s, true)) {
        return false;
    }
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = sequence_at(s, i);
        if (len == 0 || c < 0x20 || c == 0x7F || c == '"' || c == '\\' || c1_control(s, i, len) ||
            bidi_control(s, i, len) != 0) {
            return true;
        }
        i += len;
    }
    return false;
}

constexpr std::string_view base64_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

} // namespace

bool is_valid_utf8(std::string_view s) {
    return simdjson::validate_utf8(s.data(), s.size());
}

std::string valid_utf8(std::string_view s) {
    if (is_valid_utf8(s)) {
        return std::string(s);
    }
    std::string out;
    out.reserve(s.size() + 8);
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = sequence_at(s, i);
        if (len == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
    return out;
}

namespace {

std::string quoted(std::string_view path, Controls controls) {
    if (!needs_quotes(path)) {
        return std::string(path);
    }
    std::string out = "\"";
    escape_into(out, path, controls, true);
    out.push_back('"');
    return out;
}

} // namespace

std::string quote_path(std::string_view path) {
    return quoted(path, Controls::octal);
}

std::string git_quoted_path(std::string_view path) {
    return quoted(path, Controls::git);
}

std::string printable_text(std::string_view text) {
    return escaped(text, Controls::octal);
}

std::string masked_text(std::string_view text) {
    return escaped(text, Controls::question_mark);
}

std::size_t display_width(std::string_view text) {
    std::size_t continuation = 0;
    for (char c : text) {
        continuation += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 1 : 0;
    }
    return text.size() - continuation;
}

std::string markdown_code(std::string_view text) {
    if (text.empty()) {
        return "` `";
    }
    std::string escaped_text;
    std::string_view content = text;
    if (!plain_ascii(text)) {
        escaped_text = printable_text(text);
        content = escaped_text;
    }
    std::size_t longest = 0;
    for (std::size_t i = 0, run = 0; i < content.size(); ++i) {
        run = content[i] == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    // A space each side when the content starts or ends with a backtick (it would join the
    // fence) or a space (one each side is stripped when both ends have one); not when it is all
    // spaces (never stripped).
    auto edge = [](char c) { return c == '`' || c == ' '; };
    bool pad = (edge(content.front()) || edge(content.back())) &&
               content.find_first_not_of(' ') != std::string_view::npos;
    std::string out;
    out.reserve(content.size() + 2 * longest + 4);
    out.append(longest + 1, '`');
    if (pad) {
        out.push_back(' ');
    }
    out.append(content);
    if (pad) {
        out.push_back(' ');
    }
    out.append(longest + 1, '`');
    return out;
}

std::string quoted_location(std::string_view path, TextPosition pos) {
    std::string s = quote_path(path);
    if (pos.line > 0) {
        s += ':' + std::to_string(pos.line) + ':' + std::to_string(pos.col);
    }
    return s;
}

std::string problem_line(const Problem& p) {
    std::string line = p.path.empty() ? std::string() : quoted_location(p.path, p.pos) + ": ";
    line += to_string(p.severity);
    line += ": ";
    line += printable_text(p.message);
    if (p.events > 1) {
        line += " (" + std::to_string(p.events) + " events)";
    }
    line += " [";
    line += to_string(p.code);
    line += ']';
    return line;
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size()) {
            n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        }
        if (i + 2 < bytes.size()) {
            n |= static_cast<unsigned char>(bytes[i + 2]);
        }
        out.push_back(base64_alphabet[(n >> 18) & 63]);
        out.push_back(base64_alphabet[(n >> 12) & 63]);
        out.push_back(i + 1 < bytes.size() ? base64_alphabet[(n >> 6) & 63] : '=');
        out.push_back(i + 2 < bytes.size() ? base64_alphabet[n & 63] : '=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        std::uint32_t n = 0;
        std::size_t padding = 0;
        for (std::size_t j = 0; j < 4; ++j) {
            char c = text[i + j];
            std::size_t v = base64_alphabet.find(c);
            bool last = i + 4 == text.size();
            if (c == '=' && last && j >= 2 && (j == 3 || text[i + 3] == '=')) {
                ++padding;
                v = 0;
            } else if (v == std::string_view::npos || padding > 0) {
                return std::nullopt;
            }
            n = n << 6 | static_cast<std::uint32_t>(v);
        }
        out.push_back(static_cast<char>((n >> 16) & 0xFF));
        if (padding < 2) {
            out.push_back(static_cast<char>((n >> 8) & 0xFF));
        }
        if (padding < 1) {
            out.push_back(static_cast<char>(n & 0xFF));
        }
    }
    return out;
}

// `text` in at most `width` columns (code points): too long, its middle gives way to "...", the
// tail keeping two thirds of the room (the key, the counter, the directory's random suffix).
std::string shorten_middle(std::string_view text, std::size_t width) {
    if (text.size() <= width) { // bytes are at least as many as code points
        return std::string(text);
    }
    std::vector<std::size_t> starts; // where each code point starts
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            starts.push_back(i);
        }
    }
    if (starts.size() <= width || width < 5) {
        return std::string(text);
    }
    std::size_t keep = width - 1; // a column for the ellipsis
    std::size_t head = keep / 3;
    std::size_t tail = keep - head;
    return std::string(text.substr(0, starts[head])) + "\xE2\x80\xA6" +
           std::string(text.substr(starts[starts.size() - tail]));
}

} // namespace sdscprov
