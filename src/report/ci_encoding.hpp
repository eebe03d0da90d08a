// The encodings of the formats CI reads, shared by check's printers and profile's gate
// (compare_printers): SARIF results, GitHub workflow commands, XML text for JUnit. Private to the
// library (RapidJSON stays out of the public headers).
#pragma once

#include "core/json_out.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/problem.hpp"

#include <algorithm>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov::ci_encoding {

// A path as a URI reference (RFC 3986): unreserved characters and '/' as they are, the rest
// percent-encoded.
inline std::string uri_of(std::string_view path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
        if (keep) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
}

// A SARIF 2.1.0 log of one run opened up to its results, with the tool's `rules` (id, text): the
// caller writes each result (sarif_result), then sarif_close.
inline void sarif_open(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w,
                       const std::vector<std::pair<std::string, std::string>>& rules) {
    w.SetIndent(' ', 2);
    w.StartObject();
    json_out::member(w, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    json_out::member(w, "version", "2.1.0");
    json_out::key(w, "runs");
    w.StartArray();
    w.StartObject();
    json_out::key(w, "tool");
    w.StartObject();
    json_out::key(w, "driver");
    w.StartObject();
    json_out::member(w, "name", "sdscprov");
    json_out::member(w, "version", SDSCPROV_VERSION);
    json_out::key(w, "rules");
    w.StartArray();
    for (const auto& [id, text] : rules) {
        w.StartObject();
        json_out::member(w, "id", id);
        json_out::key(w, "shortDescription");
        w.StartObject();
        json_out::member(w, "text", text);
        w.EndObject();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
    json_out::key(w, "results");
    w.StartArray();
}

// Closes what sarif_open opened, after the results.
inline void sarif_close(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w) {
    w.EndArray();
    w.EndObject();
    w.EndArray();
    w.EndObject();
}

inline void sarif_result(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w, std::string_view rule,
                         std::size_t rule_index, std::string_view level, std::string_view message,
                         const std::string& path, const TextPosition& pos) {
    w.StartObject();
    json_out::member(w, "ruleId", rule);
    json_out::member(w, "ruleIndex", rule_index);
    json_out::member(w, "level", level);
    json_out::key(w, "message");
    w.StartObject();
    json_out::member(w, "text", message);
    w.EndObject();
    json_out::key(w, "locations");
    w.StartArray();
    w.StartObject();
    json_out::key(w, "physicalLocation");
    w.StartObject();
    json_out::key(w, "artifactLocation");
    w.StartObject();
    json_out::member(w, "uri", uri_of(path));
    w.EndObject();
    if (pos.line > 0) {
        json_out::key(w, "region");
        w.StartObject();
        json_out::member(w, "startLine", pos.line);
        json_out::member(w, "startColumn", pos.col);
        w.EndObject();
    }
    w.EndObject();
    w.EndObject();
    w.EndArray();
    w.EndObject();
}

// GitHub workflow command escaping: the message (data), and property values.
inline std::string github_data(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '%':
            out += "%25";
            break;
        case '\r':
            out += "%0D";
            break;
        case '\n':
            out += "%0A";
            break;
        default:
            out.push_back(c);
        }
    }
    return out;
}

inline std::string github_property(std::string_view s) {
    std::string out;
    for (char c : github_data(s)) {
        if (c == ':') {
            out += "%3A";
        } else if (c == ',') {
            out += "%2C";
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// The path quoted as in text output (a name with a newline or an escape cannot be a file GitHub
// knows anyway), the message with its control characters escaped.
inline void github_line(std::ostream& out, std::string_view level, const std::string& path,
                        const TextPosition& pos, std::string_view title, std::string_view message) {
    out << "::" << level << " file=" << github_property(quote_path(path));
    if (pos.line > 0) {
        out << ",line=" << pos.line << ",col=" << pos.col;
    }
    // Line breaks stay (GitHub shows %0A as one); any other control character is escaped.
    std::string shown;
    for (std::size_t at = 0; at <= message.size();) {
        std::size_t nl = std::min(message.find('\n', at), message.size());
        shown += printable_text(message.substr(at, nl - at));
        if (nl < message.size()) {
            shown.push_back('\n');
        }
        at = nl + 1;
    }
    out << ",title=" << github_property(title) << "::" << github_data(shown) << '\n';
}

// Valid UTF-8 (each invalid byte replaced by U+FFFD), escaped for XML text and attributes.
inline std::string xml_escaped(std::string_view text) {
    const std::string s = valid_utf8(text);
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            // XML 1.0 has no place for other control characters: they are dropped.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') {
                out.push_back(c);
            }
        }
    }
    return out;
}

} // namespace sdscprov::ci_encoding
