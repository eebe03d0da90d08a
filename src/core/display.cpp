#include "sdscprov/core/display.hpp"

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

// Escapes of the bytes that cannot be shown as they are; `quotes`: also '"' and '\'.
void escape_into(std::string& out, std::string_view s, bool quotes) {
    static const char* octal = "01234567";
    auto byte = [&](unsigned char c) {
        switch (c) {
        case '\a':
            out += "\\a";
            return;
        case '\b':
            out += "\\b";
            return;
        case '\t':
            out += "\\t";
            return;
        case '\n':
            out += "\\n";
            return;
        case '\v':
            out += "\\v";
            return;
        case '\f':
            out += "\\f";
            return;
        case '\r':
            out += "\\r";
            return;
        default:
            break;
        }
        out.push_back('\\');
        out.push_back(octal[c >> 6]);
        out.push_back(octal[(c >> 3) & 7]);
        out.push_back(octal[c & 7]);
    };
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = sequence_at(s, i);
        // C1 controls (U+0080 to U+009F) start terminal escapes too (U+009B is CSI).
        bool c1 = len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
        if (len == 0 || c1) {
            for (std::size_t j = 0; j < (c1 ? 2U : 1U); ++j) {
                byte(static_cast<unsigned char>(s[i + j]));
            }
            i += c1 ? 2 : 1;
        } else if (len == 1 && (c < 0x20 || c == 0x7F)) {
            byte(c);
            ++i;
        } else if (len == 1 && quotes && (c == '"' || c == '\\')) {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++i;
        } else {
            out.append(s.substr(i, len));
            i += len;
        }
    }
}

bool needs_quotes(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = sequence_at(s, i);
        if (len == 0 || c < 0x20 || c == 0x7F || c == '"' || c == '\\' ||
            (len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0)) {
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

std::string quote_path(std::string_view path) {
    if (!needs_quotes(path)) {
        return std::string(path);
    }
    std::string out = "\"";
    escape_into(out, path, true);
    out.push_back('"');
    return out;
}

std::string printable_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    escape_into(out, text, false);
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
