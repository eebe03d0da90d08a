// Handle ids (docs/formats.md, "The id"), reproducing torch-spyre's `_stable_id` in
// torch_spyre/_inductor/provenance.py:
//   v2: sha256(json.dumps({...}, ensure_ascii=True, sort_keys=True,
//                         separators=(",", ":")).encode("ascii"))
//   v1: sha256("|".join([source.to_str() or "", aten_op or "", ",".join(ir_chain)])
//              .encode("utf-8")), with SourceLoc.to_str() = f"{file}:{start_line}:{start_col}"
// and in both cases int.from_bytes(digest[:8], "big") >> 1.
#include "sdscprov/handle/handle_id.hpp"

#include "core/sha256.hpp"

#include <array>
#include <charconv>
#include <cstdint>

namespace sdscprov {

namespace {

constexpr char32_t replacement_character = 0xFFFD;

// Decodes one code point starting at `i` and advances `i` past it. Invalid UTF-8 yields U+FFFD
// for each maximal subpart of an ill-formed sequence (Unicode 3.9 / Python's
// bytes.decode("utf-8", "replace")): an invalid lead byte is one U+FFFD, a truncated or broken
// sequence is one U+FFFD for the bytes that were a valid prefix, and the offending byte is read
// again as the start of the next code point. Surrogates (ED A0..BF) and overlongs are invalid.
char32_t next_code_point(std::string_view s, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        ++i;
        return lead;
    }
    std::size_t length = 0;
    unsigned char second_lo = 0x80;
    unsigned char second_hi = 0xBF;
    char32_t cp = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        cp = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        cp = lead & 0x0Fu;
        if (lead == 0xE0) {
            second_lo = 0xA0; // no overlongs
        } else if (lead == 0xED) {
            second_hi = 0x9F; // no surrogates
        }
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        cp = lead & 0x07u;
        if (lead == 0xF0) {
            second_lo = 0x90; // no overlongs
        } else if (lead == 0xF4) {
            second_hi = 0x8F; // nothing above U+10FFFF
        }
    } else {
        ++i; // 80..C1 and F5..FF never start a sequence
        return replacement_character;
    }
    std::size_t k = i + 1;
    for (std::size_t n = 1; n < length; ++n, ++k) {
        const unsigned char lo = n == 1 ? second_lo : 0x80;
        const unsigned char hi = n == 1 ? second_hi : 0xBF;
        if (k >= s.size() || byte(k) < lo || byte(k) > hi) {
            i = k;
            return replacement_character;
        }
        cp = (cp << 6) | (byte(k) & 0x3Fu);
    }
    i = k;
    return cp;
}

void append_int(std::string& out, std::int64_t v) {
    std::array<char, 24> digits{};
    auto r = std::to_chars(digits.data(), digits.data() + digits.size(), v);
    out.append(digits.data(), r.ptr);
}

void append_u_escape(std::string& out, unsigned value) {
    static constexpr char hex[] = "0123456789abcdef"; // lowercase, as CPython's Py_hexdigits
    out += "\\u";
    out += hex[(value >> 12) & 0xF];
    out += hex[(value >> 8) & 0xF];
    out += hex[(value >> 4) & 0xF];
    out += hex[value & 0xF];
}

// `s` with invalid UTF-8 replaced by U+FFFD, so that v1 hashes the same text Python would hold.
std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t start = i;
        if (next_code_point(s, i) == replacement_character) {
            out += "\xEF\xBF\xBD"; // also right for a U+FFFD that was there already
        } else {
            out.append(s.substr(start, i - start));
        }
    }
    return out;
}

// `s` as Python's json.dumps(ensure_ascii=True) writes a string, appended to `out`. Runs of
// printable ASCII other than '"' and '\\' (nearly all of a handle's text) are appended at once.
void append_python_json_string(std::string& out, std::string_view s) {
    out += '"';
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t run = i;
        while (run < s.size() && s[run] >= 0x20 && s[run] <= 0x7E && s[run] != '"' &&
               s[run] != '\\') {
            ++run;
        }
        out.append(s, i, run - i);
        i = run;
        if (i == s.size()) {
            break;
        }
        const char32_t cp = next_code_point(s, i);
        switch (cp) {
        case U'"':
            out += "\\\"";
            break;
        case U'\\':
            out += "\\\\";
            break;
        case U'\b':
            out += "\\b";
            break;
        case U'\f':
            out += "\\f";
            break;
        case U'\n':
            out += "\\n";
            break;
        case U'\r':
            out += "\\r";
            break;
        case U'\t':
            out += "\\t";
            break;
        default:
            if (cp >= 0x20 && cp <= 0x7E) {
                out += static_cast<char>(cp);
            } else if (cp >= 0x10000) {
                const char32_t v = cp - 0x10000;
                append_u_escape(out, static_cast<unsigned>(0xD800 + (v >> 10)));
                append_u_escape(out, static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
            } else {
                append_u_escape(out, static_cast<unsigned>(cp));
            }
        }
    }
    out += '"';
}

void append_json_optional_int(std::string& out, const std::optional<std::int64_t>& v) {
    if (v) {
        append_int(out, *v);
    } else {
        out += "null";
    }
}

void append_json_optional_string(std::string& out, const std::optional<std::string>& v) {
    if (v) {
        append_python_json_string(out, *v);
    } else {
        out += "null";
    }
}

} // namespace

std::string python_json_string(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_python_json_string(out, s);
    return out;
}

std::string id_v2_text(const DebugHandle& h) {
    // Keys in sorted order at every level: aten_op < fused_from < ir_chain < source < version;
    // in source: end_col < end_line < file < start_col < start_line.
    std::string out;
    out.reserve(256 + (h.source ? h.source->file.size() : 0));
    out += "{\"aten_op\":";
    append_json_optional_string(out, h.aten_op);
    out += ",\"fused_from\":[";
    for (std::size_t i = 0; i < h.fused_from.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        append_python_json_string(out, h.fused_from[i].id);
    }
    out += "],\"ir_chain\":[";
    for (std::size_t i = 0; i < h.ir_chain.size(); ++i) {
        if (i != 0) {
            out += ',';
        }
        append_python_json_string(out, h.ir_chain[i]);
    }
    out += "],\"source\":";
    if (h.source) {
        out += "{\"end_col\":";
        append_json_optional_int(out, h.source->end_col);
        out += ",\"end_line\":";
        append_json_optional_int(out, h.source->end_line);
        out += ",\"file\":";
        append_python_json_string(out, h.source->file);
        out += ",\"start_col\":";
        append_int(out, h.source->start_col);
        out += ",\"start_line\":";
        append_int(out, h.source->start_line);
        out += '}';
    } else {
        out += "null";
    }
    out += ",\"version\":2}";
    return out;
}

std::string id_v1_text(const DebugHandle& h) {
    // Not JSON: torch-spyre hashed the joined text's UTF-8 bytes as they are (no quotes, no
    // escapes). End line and column never entered a v1 id; an empty aten_op hashes like a null.
    std::string text;
    if (h.source) {
        text += h.source->file;
        text += ':';
        text += std::to_string(h.source->start_line);
        text += ':';
        text += std::to_string(h.source->start_col);
    }
    text += '|';
    text += h.aten_op.value_or("");
    text += '|';
    for (std::size_t i = 0; i < h.ir_chain.size(); ++i) {
        if (i != 0) {
            text += ',';
        }
        text += h.ir_chain[i];
    }
    return valid_utf8(text);
}

std::string handle_id_of_text(std::string_view text) {
    const Sha256Digest digest = sha256(text);
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value = (value << 8) | digest[i];
    }
    return std::to_string(value >> 1);
}

IdVersion verify_handle_id(const DebugHandle& h) {
    if (h.id == handle_id_v2(h)) {
        return IdVersion::v2;
    }
    if (h.id == handle_id_v1(h)) {
        return IdVersion::v1;
    }
    return IdVersion::none;
}

} // namespace sdscprov
