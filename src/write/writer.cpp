#include "sdscprov/write/writer.hpp"

#include "sdscprov/core/json_layout.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sdscprov {

namespace {

// ---- Byte layout of a document already validated by a parser ---------------------------------

// The offsets in `scan` must point where they say in `bytes`: a scan of other bytes would make
// the writer cut the file in the wrong places.
void check_scan(std::string_view bytes, const ScanResult& scan) {
    auto at = [&](std::size_t i, char c) { return i < bytes.size() && bytes[i] == c; };
    bool ok = scan.status == FileStatus::ok && at(scan.op_key_offset, '"') &&
              at(scan.op_object_open, '{') && scan.op_key_offset < scan.op_object_open &&
              scan.bom <= scan.op_key_offset;
    if (ok && scan.handle_member) {
        ok = at(scan.handle_member->begin, '"') &&
             scan.handle_member->begin > scan.op_object_open &&
             scan.handle_member->begin < scan.handle_member->end &&
             scan.handle_member->end <= bytes.size();
    }
    if (!ok) {
        throw std::invalid_argument("sdscprov writer: the scan result does not describe these "
                                    "bytes as an SDSC document");
    }
}

std::string indent(const FileStyle& style, std::size_t depth) {
    std::string out;
    for (std::size_t i = 0; i < depth; ++i) {
        out += style.indent_unit;
    }
    return out;
}

// ',' plus the spaces and tabs that follow the ',' at `comma` (on the same line).
std::string separator_at(std::string_view b, std::size_t comma) {
    std::size_t i = comma + 1;
    while (i < b.size() && (b[i] == ' ' || b[i] == '\t')) {
        ++i;
    }
    return std::string(b.substr(comma, i - comma));
}

// ---- Serialisation ----------------------------------------------------------------------------

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF). RapidJSON must never
// see anything else: its decoder reads a truncated sequence's missing bytes past the string's end.
bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t n = 0;
        unsigned char lo = 0x80;
        unsigned char hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (s.size() - i <= n) {
            return false;
        }
        for (std::size_t k = 1; k <= n; ++k) {
            auto t = static_cast<unsigned char>(s[i + k]);
            if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) {
                return false;
            }
        }
        i += n + 1;
    }
    return true;
}

using AsciiWriter =
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::ASCII<>>;

class CompactHandleWriter {
public:
    explicit CompactHandleWriter(rapidjson::StringBuffer& buffer) : writer_(buffer) {}

    void handle(const DebugHandle& h) {
        check(writer_.StartObject());
        key("id");
        string(h.id);
        key("source");
        if (h.source) {
            check(writer_.StartObject());
            key("file");
            string(h.source->file);
            key("start_line");
            check(writer_.Int64(h.source->start_line));
            key("start_col");
            check(writer_.Int64(h.source->start_col));
            key("end_line");
            optional_int(h.source->end_line);
            key("end_col");
            optional_int(h.source->end_col);
            check(writer_.EndObject());
        } else {
            check(writer_.Null());
        }
        key("aten_op");
        optional_string(h.aten_op);
        key("ir_chain");
        check(writer_.StartArray());
        for (const std::string& name : h.ir_chain) {
            string(name);
        }
        check(writer_.EndArray());
        key("fused_from");
        check(writer_.StartArray());
        for (const DebugHandle& child : h.fused_from) {
            handle(child);
        }
        check(writer_.EndArray());
        if (h.history_shape == HistoryShape::fusion_context) {
            key("fusion_context");
            optional_string(h.fusion_context);
        } else {
            key("transform_history");
            check(writer_.StartArray());
            for (const TransformStep& step : h.transform_history) {
                check(writer_.StartObject());
                key("kind");
                string(step.kind);
                key("pass_name");
                string(step.pass_name);
                key("reason");
                optional_string(step.reason);
                check(writer_.EndObject());
            }
            check(writer_.EndArray());
        }
        check(writer_.EndObject());
    }

private:
    AsciiWriter writer_;

    static void check(bool ok) {
        if (!ok) {
            throw std::runtime_error("sdscprov writer: RapidJSON failed to serialise the handle");
        }
    }

    void key(std::string_view k) {
        check(writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())));
    }

    void string(std::string_view s) {
        if (s.size() > std::numeric_limits<rapidjson::SizeType>::max()) {
            throw std::invalid_argument("sdscprov writer: a debug_handle_ string is too long");
        }
        if (!valid_utf8(s)) {
            throw std::invalid_argument("sdscprov writer: a debug_handle_ string is not valid "
                                        "UTF-8");
        }
        check(writer_.String(s.data(), static_cast<rapidjson::SizeType>(s.size())));
    }

    void optional_string(const std::optional<std::string>& s) {
        if (s) {
            string(*s);
        } else {
            check(writer_.Null());
        }
    }

    void optional_int(const std::optional<std::int64_t>& v) {
        if (v) {
            check(writer_.Int64(*v));
        } else {
            check(writer_.Null());
        }
    }
};

char lower_hex(char c) {
    return c >= 'A' && c <= 'F' ? static_cast<char>(c - 'A' + 'a') : c;
}

// A string of RapidJSON's ASCII output (quotes included) as Python's json.dumps(ensure_ascii=True)
// writes it: \uXXXX escapes in lowercase hex, and DEL (0x7F), which RapidJSON leaves as is,
// escaped. Backslashes and DEL occur only inside strings in compact JSON.
void append_pythonised(std::string& out, std::string_view quoted) {
    bool plain = quoted.find('\\') == std::string_view::npos &&
                 quoted.find('\x7f') == std::string_view::npos;
    if (plain) {
        out.append(quoted);
        return;
    }
    for (std::size_t i = 0; i < quoted.size(); ++i) {
        char c = quoted[i];
        if (c == '\\' && i + 1 < quoted.size()) {
            out += c;
            out += quoted[++i];
            if (quoted[i] == 'u') {
                for (std::size_t k = 0; k < 4 && i + 1 < quoted.size(); ++k) {
                    out += lower_hex(quoted[++i]);
                }
            }
        } else if (c == '\x7f') {
            out += "\\u007f";
        } else {
            out += c;
        }
    }
}

// Compact JSON from RapidJSON (no whitespace outside strings) laid out in `style`, the value at
// `depth`, its strings as Python writes them (append_pythonised): Python's json.dump layout with
// indent (one member/element per line, empty containers as `{}`/`[]`) for pretty styles,
// everything on one line otherwise. One pass; a line break is one append of the newline and the
// indent of its level, cut from a string of the newline and as many indent units as needed.
void lay_out(std::string_view compact, const FileStyle& style, std::size_t depth,
             std::string& out) {
    out.reserve(out.size() + compact.size() * 2);
    std::size_t level = depth;
    std::string breaks = style.newline;
    auto line_break = [&] {
        if (style.pretty) {
            while (breaks.size() < style.newline.size() + level * style.indent_unit.size()) {
                breaks += style.indent_unit;
            }
            out.append(breaks, 0, style.newline.size() + level * style.indent_unit.size());
        }
    };
    std::size_t i = 0;
    while (i < compact.size()) {
        char c = compact[i];
        switch (c) {
        case '"': {
            std::size_t end = json_string_end(compact, i);
            append_pythonised(out, compact.substr(i, end - i));
            i = end;
            continue;
        }
        case '{':
        case '[':
            out += c;
            if (i + 1 < compact.size() && compact[i + 1] == (c == '{' ? '}' : ']')) {
                out += compact[++i];
            } else {
                ++level;
                line_break();
            }
            break;
        case '}':
        case ']':
            --level;
            line_break();
            out += c;
            break;
        case ',':
            out += style.item_separator;
            line_break();
            break;
        case ':':
            out += style.key_separator;
            break;
        default: {
            // A number, true, false or null: up to the next structural character.
            std::size_t end = i + 1;
            while (end < compact.size() && compact[end] != ',' && compact[end] != '}' &&
                   compact[end] != ']') {
                ++end;
            }
            out.append(compact, i, end - i);
            i = end;
            continue;
        }
        }
        ++i;
    }
}

// The handle, laid out in `style` at depth `depth`, appended to `out`.
void append_handle(std::string& out, const DebugHandle& handle, const FileStyle& style,
                   std::size_t depth) {
    thread_local rapidjson::StringBuffer buffer; // reused: its capacity stays between handles
    buffer.Clear();
    CompactHandleWriter(buffer).handle(handle);
    lay_out({buffer.GetString(), buffer.GetSize()}, style, depth, out);
}

// `"debug_handle_": <handle>` as a member of the op object, appended to `out`.
void append_handle_member(std::string& out, const DebugHandle& handle, const FileStyle& style) {
    out += "\"debug_handle_\"";
    out += style.key_separator;
    append_handle(out, handle, style, 2);
}

} // namespace

FileStyle detect_style(std::string_view bytes, const ScanResult& scan) {
    check_scan(bytes, scan);
    FileStyle style;
    std::size_t root_open = json_skip_ws(bytes, scan.bom);
    std::string_view before_key = bytes.substr(
        root_open + 1, scan.op_key_offset - std::min(scan.op_key_offset, root_open + 1));
    std::size_t last_newline = before_key.rfind('\n');
    style.pretty = last_newline != std::string_view::npos;

    std::size_t first_newline = bytes.find('\n', scan.bom);
    style.newline = first_newline != std::string_view::npos && first_newline > scan.bom &&
                            bytes[first_newline - 1] == '\r'
                        ? "\r\n"
                        : "\n";
    if (style.pretty) {
        style.indent_unit.assign(before_key.substr(last_newline + 1));
    }

    std::size_t key_end = json_string_end(bytes, scan.op_key_offset);
    std::string_view key_separator = bytes.substr(key_end, scan.op_object_open - key_end);
    if (key_separator.find_first_of("\r\n") == std::string_view::npos) {
        style.key_separator.assign(key_separator);
    } // else keep torch-spyre's ": "

    // The ',' after the op object's first member, if it has a second one. The handle member is
    // passed over: what set_handle inserted must not change the style read from the file.
    std::optional<ByteSpan> handle = scan.handle_member;
    auto is_handle = [&](std::size_t key) { return handle && handle->begin == key; };
    std::optional<ByteSpan> first_value; // of the first member other than the handle
    std::size_t comma = std::string_view::npos;
    std::size_t i = json_skip_ws(bytes, scan.op_object_open + 1);
    while (i < bytes.size() && bytes[i] == '"') {
        std::size_t value = json_member_value(bytes, i);
        std::size_t end = json_value_end(bytes, value);
        std::size_t after = json_skip_ws(bytes, end);
        bool has_next = after < bytes.size() && bytes[after] == ',';
        if (!is_handle(i)) {
            first_value = ByteSpan{value, end};
            if (has_next) {
                comma = after;
            }
            break;
        }
        if (!has_next) {
            break;
        }
        i = json_skip_ws(bytes, after + 1);
    }
    if (style.pretty) {
        // "," unless the file has spaces before its line ends (Python 2's json.dump(indent=...)).
        if (comma != std::string_view::npos) {
            std::string separator = separator_at(bytes, comma);
            std::size_t next = comma + separator.size();
            if (next < bytes.size() && (bytes[next] == '\n' || bytes[next] == '\r')) {
                style.item_separator = std::move(separator);
            }
        }
        return style;
    }
    if (comma == std::string_view::npos) {
        // The op object has one member besides the handle, or none: the first ',' inside it.
        for (std::size_t k = first_value ? first_value->begin : 0;
             first_value && k < first_value->end; ++k) {
            if (bytes[k] == '"') {
                k = json_string_end(bytes, k) - 1;
            } else if (bytes[k] == ',') {
                comma = k;
                break;
            }
        }
    }
    if (comma != std::string_view::npos) {
        style.item_separator = separator_at(bytes, comma);
    } else {
        // No ',' to look at: Python's json.dumps pairs ": " with ", " and ":" with ",".
        bool spaced = !style.key_separator.empty() && style.key_separator.back() == ' ';
        style.item_separator = spaced ? ", " : ",";
    }
    return style;
}

std::string render_handle(const DebugHandle& handle, const FileStyle& style, std::size_t depth) {
    std::string out;
    append_handle(out, handle, style, depth);
    return out;
}

Splice handle_splice(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle) {
    FileStyle style = detect_style(bytes, scan);
    std::string text;
    if (scan.handle_member) {
        std::size_t value = json_member_value(bytes, scan.handle_member->begin);
        append_handle(text, handle, style, 2);
        return {value, scan.handle_member->end, std::move(text)};
    }
    std::size_t open = scan.op_object_open;
    std::size_t first = json_skip_ws(bytes, open + 1);
    bool empty = first < bytes.size() && bytes[first] == '}';
    if (empty && first > open + 1) {
        // `{ }` with whitespace inside (never written by json.dump): the member goes right after
        // the '{' and the whitespace stays, so that remove_handle can give these bytes back.
        append_handle_member(text, handle, style);
        return {open + 1, open + 1, std::move(text)};
    }
    if (style.pretty) {
        text = style.newline + indent(style, 2);
        append_handle_member(text, handle, style);
        if (empty) {
            // `{}`: as json.dump writes a one-member object.
            text += style.newline + indent(style, 1);
            return {open + 1, first, std::move(text)};
        }
    } else {
        append_handle_member(text, handle, style);
        if (empty) {
            return {open + 1, first, std::move(text)};
        }
    }
    // Before the former first member, keeping the whitespace that preceded it.
    text += style.item_separator;
    return {open + 1, open + 1, std::move(text)};
}

void apply_splice(std::string_view bytes, const Splice& splice, std::string& out) {
    out.clear();
    out.reserve(bytes.size() - (splice.end - splice.begin) + splice.text.size());
    out.append(bytes.substr(0, splice.begin));
    out.append(splice.text);
    out.append(bytes.substr(splice.end));
}

std::string apply_splice(std::string_view bytes, const Splice& splice) {
    std::string out;
    apply_splice(bytes, splice, out);
    return out;
}

bool changes(std::string_view bytes, const Splice& splice) {
    return bytes.substr(splice.begin, splice.end - splice.begin) != splice.text;
}

void set_handle(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle,
                std::string& out) {
    apply_splice(bytes, handle_splice(bytes, scan, handle), out);
}

std::string set_handle(std::string_view bytes, const ScanResult& scan, const DebugHandle& handle) {
    return apply_splice(bytes, handle_splice(bytes, scan, handle));
}

Splice null_splice(std::string_view bytes, const ScanResult& scan) {
    check_scan(bytes, scan);
    if (!scan.handle_member) {
        return {};
    }
    std::size_t value = json_member_value(bytes, scan.handle_member->begin);
    return {value, scan.handle_member->end, "null"};
}

std::string set_handle_null(std::string_view bytes, const ScanResult& scan) {
    return apply_splice(bytes, null_splice(bytes, scan));
}

std::string remove_handle(std::string_view bytes, const ScanResult& scan) {
    return apply_splice(bytes, remove_splice(bytes, scan));
}

Splice remove_splice(std::string_view bytes, const ScanResult& scan) {
    check_scan(bytes, scan);
    if (!scan.handle_member) {
        return {};
    }
    std::size_t open = scan.op_object_open;
    std::size_t begin = scan.handle_member->begin;
    std::size_t end = scan.handle_member->end;
    std::size_t after = json_skip_ws(bytes, end);
    bool is_first = json_skip_ws(bytes, open + 1) == begin;
    bool has_next = after < bytes.size() && bytes[after] == ',';
    if (is_first && has_next) {
        // Undo set_handle's insertion: the whitespace before the member, the member, and the
        // separator after it go; the whitespace that preceded the next member stays.
        FileStyle style = detect_style(bytes, scan);
        std::size_t cut = after + 1;
        std::string_view rest = std::string_view(style.item_separator).substr(1);
        if (bytes.substr(cut, rest.size()) == rest) {
            cut += rest.size();
        }
        return {open + 1, cut, ""};
    }
    if (is_first) {
        // The only member. Laid out as set_handle lays out a member in `{}` (json.dump's
        // one-member object), the object becomes `{}`; otherwise only the whitespace before the
        // member and the member go, and the whitespace after it (set_handle's `{ }` case) stays.
        FileStyle style = detect_style(bytes, scan);
        std::string_view lead = bytes.substr(open + 1, begin - open - 1);
        std::string_view trail = bytes.substr(end, after - end);
        bool canonical = style.pretty ? lead == style.newline + indent(style, 2) &&
                                            trail == style.newline + indent(style, 1)
                                      : lead.empty() && trail.empty();
        return {open + 1, canonical ? after : end, ""};
    }
    if (has_next) {
        // A middle member: it goes with the separator and whitespace after it.
        return {begin, json_skip_ws(bytes, after + 1), ""};
    }
    // The last member: it goes with the separator before it.
    std::size_t comma = begin;
    while (comma > open && json_is_ws(bytes[comma - 1])) {
        --comma;
    }
    return {comma - 1, end, ""};
}

namespace {

// The cuts that remove the members starting at `removed` (key offsets, in text order) from the
// object opened at `open`, as json.dump would write the object without them: a member followed by
// a kept one goes with the separator and whitespace after it; the members after the last kept one
// go with the separator before them; with none kept the object becomes `{}`.
void removal_cuts(std::string_view b, std::size_t open, const std::vector<std::size_t>& removed,
                  std::vector<Splice>& cuts) {
    struct Member {
        std::size_t key;
        std::size_t end; // one past its value
        bool removed;
    };
    std::vector<Member> members;
    std::size_t i = json_skip_ws(b, open + 1);
    std::size_t next_removed = 0;
    while (b[i] == '"') {
        const std::size_t end = json_value_end(b, json_member_value(b, i));
        const bool gone = next_removed < removed.size() && removed[next_removed] == i;
        next_removed += gone ? 1 : 0;
        members.push_back({i, end, gone});
        i = json_skip_ws(b, end);
        if (b[i] != ',') {
            break;
        }
        i = json_skip_ws(b, i + 1);
    }
    const std::size_t close = i; // the '}'
    std::size_t last_kept = members.size();
    for (std::size_t m = 0; m < members.size(); ++m) {
        last_kept = members[m].removed ? last_kept : m;
    }
    if (last_kept == members.size()) {
        cuts.push_back({open + 1, close, ""});
        return;
    }
    for (std::size_t m = 0; m < last_kept; ++m) {
        if (members[m].removed) {
            cuts.push_back({members[m].key, members[m + 1].key, ""});
        }
    }
    if (last_kept + 1 < members.size()) {
        cuts.push_back({members[last_kept].end, members.back().end, ""});
    }
}

} // namespace

Splice strip_splice(std::string_view bytes, const ScanResult& scan, bool remove) {
    Splice op = remove ? remove_splice(bytes, scan) : null_splice(bytes, scan);
    if (scan.nested_handles.empty()) {
        return op;
    }
    std::vector<Splice> edits;
    if (changes(bytes, op)) {
        edits.push_back(std::move(op));
    }
    std::map<std::size_t, std::vector<std::size_t>> removed; // object -> its handles' keys
    for (const NestedHandle& h : scan.nested_handles) {
        if (h.member.end > bytes.size() || bytes[h.member.begin] != '"' ||
            h.object_open >= h.member.begin || bytes[h.object_open] != '{') {
            throw std::invalid_argument("sdscprov writer: a nested handle of the scan result is "
                                        "not in these bytes");
        }
        if (remove) {
            removed[h.object_open].push_back(h.member.begin); // in text order
        } else if (!h.null) {
            edits.push_back({h.value, h.member.end, "null"});
        }
    }
    for (const auto& [object, keys] : removed) {
        removal_cuts(bytes, object, keys, edits);
    }
    if (edits.empty()) {
        return {};
    }
    std::sort(edits.begin(), edits.end(),
              [](const Splice& a, const Splice& b) { return a.begin < b.begin; });
    Splice all{edits.front().begin, edits.front().begin, ""};
    for (const Splice& e : edits) {
        if (e.begin < all.end) {
            throw std::invalid_argument("sdscprov writer: overlapping edits of nested handles");
        }
        all.text.append(bytes.substr(all.end, e.begin - all.end));
        all.text.append(e.text);
        all.end = e.end;
    }
    return all;
}

} // namespace sdscprov
