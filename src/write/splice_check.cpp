#include "sdscprov/write/splice_check.hpp"

#include "sdscprov/core/json_layout.hpp"

#include <cstring>
#include <simdjson.h>
#include <string>

namespace sdscprov {

namespace {

// What the edit's text holds, parsed inside a frame of the same depth as in the file (the root
// object, then the op object), so that the parser's depth limit applies as in a full scan.
constexpr std::string_view frame_open = R"({"":{)";
constexpr std::string_view frame_close = "}}";
constexpr std::string_view handle_key = R"("debug_handle_":)";

// Whether `splice` removes the op object's member from `key` to `end` (the op object opening at
// `open`) with at most one separator: what is left between the token before the member ('{' or
// ',') and the one after it ('}' or ',') must still join.
bool member_removal_joins(std::string_view bytes, std::size_t open, std::size_t key,
                          std::size_t end, const Splice& splice) {
    std::size_t left = key;
    while (left > open && json_is_ws(bytes[left - 1])) {
        --left;
    }
    const std::size_t left_token = left - 1; // the '{' or the ',' before the member
    const std::size_t right_token = json_skip_ws(bytes, end);
    if (right_token >= bytes.size()) {
        return false;
    }
    const char before = bytes[left_token];
    const char after = bytes[right_token];
    if ((before != '{' && before != ',') || (after != '}' && after != ',')) {
        return false;
    }
    const bool left_comma = before == ',' && splice.begin == left_token;
    if (!left_comma && (splice.begin <= left_token || splice.begin > key)) {
        return false; // the cut must start in the whitespace before the member (or its ',')
    }
    const bool right_comma = after == ',' && splice.end > right_token;
    if (right_comma ? splice.end > json_skip_ws(bytes, right_token + 1)
                    : splice.end < end || splice.end > right_token) {
        return false; // and end in the whitespace after it (or after its ',')
    }
    const int commas = (left_comma ? 1 : 0) + (right_comma ? 1 : 0);
    if (before == '{' && after == '}') {
        return commas == 0; // the only member: `{ }` is left
    }
    // `{` + the next member, a member + `}`, or one of the two separators between members.
    return commas == 1;
}

} // namespace

struct SpliceChecker::Impl {
    simdjson::dom::parser parser;
    std::string framed; // the frame around the text, then simdjson's padding

    // The op object of `{"":{` + prefix + text + `}}`, when that is valid JSON whose root and op
    // object have exactly one member each (so `text` cannot close the frame early: see below).
    bool parse_framed(std::string_view prefix, std::string_view text, simdjson::dom::object& op) {
        const std::size_t size =
            frame_open.size() + prefix.size() + text.size() + frame_close.size();
        framed.resize(size + simdjson::SIMDJSON_PADDING);
        char* out = framed.data();
        for (std::string_view piece : {frame_open, prefix, text, frame_close}) {
            if (!piece.empty()) { // an empty view's data() may be null, which memcpy must not get
                std::memcpy(out, piece.data(), piece.size());
                out += piece.size();
            }
        }
        simdjson::dom::element root;
        simdjson::dom::object top;
        if (parser.parse(framed.data(), size, false).get(root) != simdjson::SUCCESS ||
            root.get(top) != simdjson::SUCCESS || top.size() != 1) {
            return false;
        }
        return (*top.begin()).value.get(op) == simdjson::SUCCESS && op.size() == 1;
    }
};

SpliceChecker::SpliceChecker() : impl_(std::make_unique<Impl>()) {}

SpliceChecker::~SpliceChecker() = default;

bool SpliceChecker::proves(std::string_view bytes, const ScanResult& scan, const Splice& splice,
                           HandleState expected, const DebugHandle* handle) {
    const std::size_t open = scan.op_object_open;
    if (scan.status != FileStatus::ok || scan.handle_state == HandleState::malformed ||
        open >= bytes.size() || bytes[open] != '{' || splice.begin <= open ||
        splice.begin > splice.end || splice.end > bytes.size()) {
        return false; // a malformed handle may be one of several members: the full scan decides
    }
    // The value the edit leaves as the op object's handle reads back as expected.
    auto reads_back = [&](const simdjson::dom::element& value) {
        if (value.is_null()) {
            return expected == HandleState::null;
        }
        auto read = read_debug_handle(value);
        return expected == HandleState::populated && read.handle &&
               (handle == nullptr || *read.handle == *handle);
    };
    std::string_view text = splice.text;
    simdjson::dom::object op;

    if (scan.handle_member) {
        const std::size_t key = scan.handle_member->begin;
        const std::size_t end = scan.handle_member->end;
        if (key <= open || end > bytes.size() || bytes[key] != '"') {
            return false;
        }
        if (splice.begin == json_member_value(bytes, key) && splice.end == end) {
            // The handle's value replaced. Framed, the text must be the one member's value and
            // close nothing: were it `1}, "x": {"y": 2`, the root would get a second member, and
            // were it `1, "x": 2`, the op object. So it is whitespace around one JSON value, and
            // one value put in place of another leaves a valid document of the same shape.
            return impl_->parse_framed(handle_key, text, op) &&
                   (*op.begin()).key == "debug_handle_" && reads_back((*op.begin()).value);
        }
        if (!text.empty() || expected != HandleState::absent) {
            return false;
        }
        return member_removal_joins(bytes, open, key, end, splice);
    }

    // No handle: a member inserted first in the op object, possibly over whitespace there.
    const std::size_t first = json_skip_ws(bytes, open + 1);
    if (splice.begin != open + 1 || splice.end > first || first >= bytes.size() ||
        (bytes[first] != '}' && bytes[first] != '"')) {
        return false;
    }
    if (bytes[first] == '"') {
        // Before a member: the text ends with the separator, then only whitespace.
        std::size_t comma = text.size();
        while (comma > 0 && json_is_ws(text[comma - 1])) {
            --comma;
        }
        if (comma == 0 || text[comma - 1] != ',') {
            return false;
        }
        text = text.substr(0, comma - 1);
    }
    // Framed, the text is whitespace around exactly one member (as above: it closes nothing), so
    // `{` + member + `,` + the old members (or + `}`) is a valid object.
    return impl_->parse_framed({}, text, op) && (*op.begin()).key == "debug_handle_" &&
           reads_back((*op.begin()).value);
}

} // namespace sdscprov
