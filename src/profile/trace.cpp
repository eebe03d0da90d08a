// The trace reader. The document's outer object is read byte by byte (it is small: a few
// members beside traceEvents); traceEvents is cut by json_split into batches of whole elements,
// each parsed in place with simdjson On-Demand as the array `[e1, ..., en]`: the ',' before the
// batch's first element is overwritten with '[' and the byte after its last with ']', both put
// back afterwards. Every value of every batch is visited, which makes On-Demand validate it (it
// validates only what is read). Other members' values are copied and validated the same way.
// Errors are located again by locate_json_error for the exact byte and a plain message.
#include "sdscprov/profile/trace.hpp"

#include "json_split.hpp"
#include "sdscprov/json_error.hpp"
#include "trace_source.hpp"

#include <algorithm>
#include <cstring>
#include <simdjson.h>

namespace sdscprov {

namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t padding = simdjson::SIMDJSON_PADDING;

bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Line and column at `offset`, moved forward over the text (position_at's rules: a column counts
// code points from the start of its line; a byte order mark is skipped by the caller).
struct TextCursor {
    std::uint64_t offset = 0;
    std::size_t line = 1;
    std::size_t col = 1;

    void advance(const char* p, std::size_t n) {
        std::size_t lines = json_split::count_byte(p, n, '\n');
        if (lines > 0) {
            line += lines;
            const auto* last = static_cast<const char*>(::memrchr(p, '\n', n));
            col = 1 + json_split::count_code_points(last + 1,
                                                    static_cast<std::size_t>(p + n - last - 1));
        } else {
            col += json_split::count_code_points(p, n);
        }
        offset += n;
    }
};

std::string_view type_name(od::json_type t) {
    switch (t) {
    case od::json_type::array:
        return "an array";
    case od::json_type::object:
        return "an object";
    case od::json_type::number:
        return "a number";
    case od::json_type::string:
        return "a string";
    case od::json_type::boolean:
        return "a boolean";
    case od::json_type::null:
        return "null";
    }
    return "a value";
}

// Values nest at most this deep (the batch's array being level 1), as in locate_json_error:
// On-Demand does not count levels itself, and validate() recurses.
constexpr int max_depth = 1024;

// Visits every value below `v` (at nesting level `depth`), which makes On-Demand validate all
// of it.
simdjson::error_code validate(od::value v, int depth) {
    if (depth > max_depth) {
        return simdjson::DEPTH_ERROR;
    }
    od::json_type t{};
    if (auto e = v.type().get(t)) {
        return e;
    }
    switch (t) {
    case od::json_type::object: {
        od::object o;
        if (auto e = v.get_object().get(o)) {
            return e;
        }
        for (auto member : o) {
            std::string_view key;
            od::value value;
            if (auto e = member.unescaped_key().get(key)) {
                return e;
            }
            if (auto e = member.value().get(value)) {
                return e;
            }
            if (auto e = validate(value, depth + 1)) {
                return e;
            }
        }
        return simdjson::SUCCESS;
    }
    case od::json_type::array: {
        od::array a;
        if (auto e = v.get_array().get(a)) {
            return e;
        }
        for (auto item : a) {
            od::value element;
            if (auto e = item.get(element)) {
                return e;
            }
            if (auto e = validate(element, depth + 1)) {
                return e;
            }
        }
        return simdjson::SUCCESS;
    }
    case od::json_type::string: {
        std::string_view s;
        return v.get_string().get(s);
    }
    case od::json_type::number: {
        od::number n;
        return v.get_number().get(n);
    }
    case od::json_type::boolean: {
        bool b = false;
        return v.get_bool().get(b);
    }
    case od::json_type::null: {
        bool null = false;
        if (auto e = v.is_null().get(null)) {
            return e;
        }
        return null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
    }
    }
    return simdjson::INCORRECT_TYPE;
}

// A member's name: its raw text when it holds no escape (there is nothing to unescape, and no
// copy is made), else unescaped.
bool member_name(simdjson::simdjson_result<od::field>& member, std::string_view& name) {
    od::raw_json_string raw;
    if (member.key().get(raw)) {
        return false;
    }
    // Stage 1 found the string's end: its closing quote is there, within the padded input.
    const char* begin = raw.raw();
    const char* end = begin;
    bool escapes = false;
    while (*end != '"') {
        escapes |= *end == '\\';
        end += *end == '\\' ? 2 : 1;
    }
    if (!escapes) {
        name = std::string_view(begin, static_cast<std::size_t>(end - begin));
        return true;
    }
    return !member.unescaped_key().get(name);
}

// RFC 8259's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view t) {
    std::size_t i = 0;
    auto digits = [&] {
        std::size_t start = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            ++i;
        }
        return i > start;
    };
    if (i < t.size() && t[i] == '-') {
        ++i;
    }
    if (i < t.size() && t[i] == '0') {
        ++i;
    } else if (!digits()) {
        return false;
    }
    if (i < t.size() && t[i] == '.') {
        ++i;
        if (!digits()) {
            return false;
        }
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
            ++i;
        }
        if (!digits()) {
            return false;
        }
    }
    return i == t.size();
}

std::string_view trimmed_token(std::string_view token) {
    while (!token.empty() && is_ws(token.back())) {
        token.remove_suffix(1);
    }
    return token;
}

} // namespace

struct TraceReader::Impl {
    TraceReaderOptions options;
    std::unique_ptr<trace_source::ByteSource> source;
    TraceHandler* handler = nullptr;

    // The window: bytes [base, base + len) of the text, with room for simdjson's padding.
    std::vector<char> buf;
    std::size_t len = 0;
    std::uint64_t base = 0;
    std::uint64_t keep_from = 0; // bytes before this may be dropped when more are read
    bool eof = false;

    TextCursor cursor;
    TextCursor checkpoint; // at the start of the current batch: no position is asked before it

    od::parser parser;
    std::vector<char> scratch; // a member value other than traceEvents, copied to be validated
    json_split::Splitter splitter;
    std::vector<std::uint64_t> ends;
    TraceEvent event;
    TraceStats stats;
    std::optional<TraceError> error;

    // Visits a value profile does not use: validated whole when strict, else skipped (On-Demand
    // then only checks that its brackets balance).
    simdjson::error_code other(od::value v, int depth) const {
        return options.validate_all ? validate(v, depth) : simdjson::SUCCESS;
    }

    explicit Impl(TraceReaderOptions o) : options(o) {
        options.chunk_bytes = std::max<std::size_t>(options.chunk_bytes, 1);
        options.max_value_bytes = std::max<std::size_t>(options.max_value_bytes, 64);
    }

    char* at(std::uint64_t offset) { return buf.data() + (offset - base); }
    std::uint64_t end_offset() const { return base + len; }

    // ---- errors and positions ---------------------------------------------------------------

    TextPosition position(std::uint64_t offset) {
        offset = std::min(offset, end_offset());
        if (offset < cursor.offset) {
            if (checkpoint.offset > offset || checkpoint.offset < base) {
                return {};
            }
            cursor = checkpoint;
        }
        cursor.advance(at(cursor.offset), static_cast<std::size_t>(offset - cursor.offset));
        return {cursor.line, cursor.col};
    }

    bool fail(std::uint64_t offset, std::string code, std::string message) {
        if (!error) {
            error = TraceError{position(offset), offset, std::move(code), std::move(message)};
        }
        return false;
    }

    // The first syntax error in `text` (whose first byte is at `offset`, or is a '[' put in place
    // of the byte there), as a parse-error; false when the text itself is valid.
    bool fail_located(std::string_view text, std::uint64_t offset) {
        auto located = locate_json_error(text);
        if (!located) {
            return false;
        }
        return fail(offset + located->offset, "parse-error", located->message);
    }

    // ---- the window -------------------------------------------------------------------------

    // Drops the bytes before `upto` (passing them to the handler first).
    void drop(std::uint64_t upto) {
        auto n = static_cast<std::size_t>(upto - base);
        if (n == 0) {
            return;
        }
        if (cursor.offset < upto) {
            cursor.advance(at(cursor.offset), static_cast<std::size_t>(upto - cursor.offset));
        }
        if (checkpoint.offset < upto) {
            checkpoint = cursor;
        }
        handler->bytes(std::string_view(buf.data(), n));
        std::memmove(buf.data(), buf.data() + n, len - n);
        len -= n;
        base = upto;
    }

    // Reads more bytes; false at the end of the input or on an error (then `error` is set).
    bool fill() {
        if (eof || error) {
            return false;
        }
        if (keep_from > base) {
            drop(keep_from);
        }
        std::size_t want = options.chunk_bytes;
        if (buf.size() < len + want + padding + 1) {
            buf.resize(std::max(buf.size() * 2, len + want + padding + 1));
        }
        auto got = source->read(buf.data() + len, want);
        if (got < 0) {
            return fail(end_offset(), source->gzip() ? "bad-gzip" : "io-error", source->error());
        }
        if (got == 0) {
            eof = true;
            return false;
        }
        len += static_cast<std::size_t>(got);
        stats.bytes += static_cast<std::uint64_t>(got);
        return true;
    }

    // Makes the byte at `offset` available; false at the end of the input.
    bool have(std::uint64_t offset) {
        while (offset >= end_offset()) {
            if (!fill()) {
                return false;
            }
        }
        return true;
    }

    // The byte at `offset`, or -1 at the end of the input.
    int peek(std::uint64_t offset) {
        return have(offset) ? static_cast<unsigned char>(*at(offset)) : -1;
    }

    std::uint64_t skip_ws(std::uint64_t pos) {
        while (true) {
            int c = peek(pos);
            if (c < 0 || !is_ws(static_cast<char>(c))) {
                return pos;
            }
            ++pos;
            keep_from = pos;
        }
    }

    // ---- the outer object -------------------------------------------------------------------

    // The end (one past) of the value starting at `pos`, found without parsing it. nullopt on an
    // error (set) or at the end of the input.
    std::optional<std::uint64_t> value_end(std::uint64_t pos) {
        int c = peek(pos);
        if (c == '{' || c == '[') {
            json_split::Splitter s;
            std::vector<std::uint64_t> found;
            std::uint64_t scanned = pos;
            while (found.empty()) {
                if (scanned - pos > options.max_value_bytes) {
                    fail(pos, "value-too-large",
                         "a member value larger than " + std::to_string(options.max_value_bytes) +
                             " bytes: not read");
                    return std::nullopt;
                }
                std::uint64_t avail = end_offset() - scanned;
                if (avail >= json_split::block) {
                    std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
                    s.scan(at(scanned), blocks, scanned, found);
                    scanned += blocks * json_split::block;
                } else if (!fill()) {
                    if (error) {
                        return std::nullopt;
                    }
                    s.scan_bytes(at(scanned), static_cast<std::size_t>(avail), scanned, found);
                    scanned += avail;
                    if (found.empty()) {
                        return std::nullopt;
                    }
                }
            }
            return found.front() + 1;
        }
        if (c == '"') {
            for (std::uint64_t p = pos + 1;; ++p) {
                int d = peek(p);
                if (d < 0) {
                    return std::nullopt;
                }
                if (d == '\\') {
                    ++p;
                } else if (d == '"') {
                    return p + 1;
                }
                if (p - pos > options.max_value_bytes) {
                    fail(pos, "value-too-large",
                         "a string longer than " + std::to_string(options.max_value_bytes) +
                             " bytes: not read");
                    return std::nullopt;
                }
            }
        }
        std::uint64_t p = pos;
        for (int d = peek(p); d >= 0; d = peek(++p)) {
            if (is_ws(static_cast<char>(d)) || d == ',' || d == '}' || d == ']' || d == ':' ||
                d == '{' || d == '[' || d == '"') {
                break;
            }
            if (p - pos > 4096) {
                break; // no valid number or literal is this long: the parser says what it is
            }
        }
        if (p == pos) {
            return p + 1;
        }
        return p;
    }

    // Validates the value in [pos, end) on its own (as the array `[value]`) and gives its type.
    std::optional<od::json_type> validated(std::uint64_t pos, std::uint64_t end,
                                           std::string* string_value = nullptr) {
        auto n = static_cast<std::size_t>(end - pos);
        scratch.resize(n + 2 + padding);
        scratch[0] = '[';
        std::memcpy(scratch.data() + 1, at(pos), n);
        scratch[n + 1] = ']';
        std::string_view text(scratch.data(), n + 2);
        od::document doc;
        od::array array;
        od::json_type type{};
        bool ok = !parser.iterate(simdjson::padded_string_view(text, scratch.size())).get(doc) &&
                  !doc.get_array().get(array);
        std::size_t count = 0;
        if (ok) {
            for (auto item : array) {
                od::value v;
                if (item.get(v) || v.type().get(type)) {
                    ok = false;
                    break;
                }
                if (string_value && type == od::json_type::string) {
                    std::string_view s;
                    if (v.get_string().get(s)) {
                        ok = false;
                        break;
                    }
                    string_value->assign(s);
                } else if (validate(v, 2)) {
                    ok = false;
                    break;
                }
                ++count;
            }
        }
        if (ok && count == 1) {
            return type;
        }
        // The '[' stands for no byte of the text: an error found there is at pos.
        if (!fail_located(text, pos - 1)) {
            fail(pos, "parse-error", "invalid JSON value");
        }
        if (error && error->offset < pos) {
            *error = TraceError{position(pos), pos, error->code, error->message};
        }
        return std::nullopt;
    }

    bool truncated(std::uint64_t at_offset, std::string_view what) {
        return fail(at_offset, "parse-error",
                    "unexpected end of input " + std::string(what) + " (truncated trace?)");
    }

    bool read_document() {
        std::uint64_t pos = 0;
        if (have(2) && std::memcmp(at(0), "\xEF\xBB\xBF", 3) == 0) {
            pos = 3; // a byte order mark: no column of its own, and not JSON
            cursor.offset = 3;
            checkpoint = cursor;
        }
        pos = skip_ws(pos);
        int c = peek(pos);
        if (c < 0) {
            return error ? false : fail(pos, "parse-error", "empty document: not a trace");
        }
        if (c == '[') {
            stats.bare_array = true;
            auto after = read_events(pos);
            if (!after) {
                return false;
            }
            return finish_document(*after);
        }
        if (c != '{') {
            auto end = value_end(pos);
            if (!end) {
                return error ? false : truncated(end_offset(), "in the document");
            }
            auto type = validated(pos, *end);
            if (!type) {
                return false;
            }
            return fail(pos, "not-a-trace",
                        "the document is " + std::string(type_name(*type)) +
                            ", not an object with a traceEvents array");
        }
        bool seen_events = false;
        pos = skip_ws(pos + 1);
        if (peek(pos) == '}') {
            return fail(pos, "not-a-trace", "the document has no traceEvents member");
        }
        while (true) {
            int q = peek(pos);
            if (q < 0) {
                return error ? false : truncated(pos, "in the trace's outer object");
            }
            if (q != '"') {
                return fail(pos, "parse-error", "expected a member name (a string)");
            }
            auto key_end = value_end(pos);
            if (!key_end) {
                return error ? false : truncated(end_offset(), "in a member name");
            }
            std::string key;
            if (!validated(pos, *key_end, &key)) {
                return false;
            }
            std::uint64_t key_pos = pos;
            pos = skip_ws(*key_end);
            if (peek(pos) != ':') {
                if (peek(pos) < 0) {
                    return error ? false : truncated(pos, "after a member name");
                }
                return fail(pos, "parse-error", "expected ':' after the member name");
            }
            pos = skip_ws(pos + 1);
            if (peek(pos) < 0) {
                return error ? false : truncated(pos, "before a member value");
            }
            if (key == "traceEvents") {
                if (seen_events) {
                    return fail(key_pos, "not-a-trace", "traceEvents is given twice");
                }
                seen_events = true;
                if (peek(pos) != '[') {
                    auto end = value_end(pos);
                    if (!end) {
                        return error ? false : truncated(end_offset(), "in traceEvents");
                    }
                    auto type = validated(pos, *end);
                    if (!type) {
                        return false;
                    }
                    return fail(pos, "not-a-trace",
                                "traceEvents is " + std::string(type_name(*type)) +
                                    ", not an array");
                }
                auto after = read_events(pos);
                if (!after) {
                    return false;
                }
                pos = *after;
            } else {
                auto end = value_end(pos);
                if (!end) {
                    return error ? false : truncated(end_offset(), "in a member value");
                }
                if (!validated(pos, *end)) {
                    return false;
                }
                pos = *end;
            }
            keep_from = pos;
            pos = skip_ws(pos);
            int d = peek(pos);
            if (d == ',') {
                pos = skip_ws(pos + 1);
                continue;
            }
            if (d == '}') {
                break;
            }
            if (d < 0) {
                return error ? false : truncated(pos, "in the trace's outer object");
            }
            return fail(pos, "parse-error", "expected ',' or '}' after a member");
        }
        if (!seen_events) {
            return fail(pos, "not-a-trace", "the document has no traceEvents member");
        }
        return finish_document(pos + 1);
    }

    bool finish_document(std::uint64_t pos) {
        keep_from = pos;
        pos = skip_ws(pos);
        if (peek(pos) >= 0) {
            return fail(pos, "parse-error", "content after the end of the document");
        }
        if (error) {
            return false;
        }
        drop(end_offset());
        return true;
    }

    // ---- traceEvents ------------------------------------------------------------------------

    // The first byte after `seg` that is not whitespace, before `limit`.
    std::optional<std::uint64_t> next_token(std::uint64_t seg, std::uint64_t limit) {
        for (std::uint64_t p = seg; p < limit; ++p) {
            if (!is_ws(*at(p))) {
                return p;
            }
        }
        return std::nullopt;
    }

    // Reads the array whose '[' is at `open`; the offset after its ']'. Batches start at `seg`:
    // the array's '[' for the first, else the byte after the previous batch's last element.
    std::optional<std::uint64_t> read_events(std::uint64_t open) {
        splitter = {};
        ends.clear();
        std::uint64_t scanned = open + 1;
        std::uint64_t seg = open;
        bool first = true;
        std::optional<std::uint64_t> array_end;
        const std::size_t batch_bytes = std::max<std::size_t>(options.chunk_bytes / 2, 4096);
        while (true) {
            std::uint64_t avail = end_offset() - scanned;
            if (!array_end && avail >= json_split::block) {
                std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
                array_end = splitter.scan(at(scanned), blocks, scanned, ends);
                scanned += blocks * json_split::block;
            }
            if (array_end) {
                if (!batch(seg, *array_end, first, true)) {
                    return std::nullopt;
                }
                return *array_end + 1;
            }
            // A batch when enough is held, or when what follows its last element is large.
            if (!ends.empty() && (ends.back() - seg >= batch_bytes ||
                                  end_offset() - ends.back() > options.max_value_bytes)) {
                if (!batch(seg, ends.back(), first, false)) {
                    return std::nullopt;
                }
                seg = ends.back() + 1;
                ends.clear();
                first = false;
                continue;
            }
            if (end_offset() - seg > options.max_value_bytes + options.chunk_bytes) {
                unfinished(seg, first, false);
                return std::nullopt;
            }
            if (!fill()) {
                if (error) {
                    return std::nullopt;
                }
                // The end of the input: the last bytes, fewer than a block.
                avail = end_offset() - scanned;
                array_end = splitter.scan_bytes(at(scanned), static_cast<std::size_t>(avail),
                                                scanned, ends);
                scanned += avail;
                if (!array_end) {
                    unfinished(seg, first, true);
                    return std::nullopt;
                }
            }
        }
    }

    // The bytes from `seg` that no element end was found in: cut short at the end of the input
    // (`at_end`), or larger than an event may be. A syntax error in them comes first.
    void unfinished(std::uint64_t seg, bool first, bool at_end) {
        auto p = first ? std::optional<std::uint64_t>(seg) : next_token(seg, end_offset());
        if (p && !first && *at(*p) != ',') {
            fail(*p, "parse-error", "expected ',' or ']' after an event");
            return;
        }
        if (p) {
            std::string text(1, '[');
            text.append(at(*p + 1), static_cast<std::size_t>(end_offset() - *p - 1));
            auto located = locate_json_error(text);
            if (located && located->offset < text.size()) {
                fail(*p + located->offset, "parse-error", located->message);
                return;
            }
        }
        if (at_end) {
            truncated(end_offset(), "inside traceEvents");
        } else {
            fail(p.value_or(seg), "value-too-large",
                 "an event larger than " + std::to_string(options.max_value_bytes) +
                     " bytes: not read");
        }
    }

    // Parses the elements from `seg` to `last`: the closing bracket of the batch's last element,
    // or (final) the array's ']'. The batch's opener is the array's '[' (first) or the ',' before
    // its first element.
    bool batch(std::uint64_t seg, std::uint64_t last, bool first, bool final) {
        std::uint64_t opener = seg;
        if (!first) {
            auto p = next_token(seg, last);
            if (!p && final) {
                return true; // nothing between the last batch and ']'
            }
            if (!p || *at(*p) != ',') {
                return fail(p.value_or(last), "parse-error", "expected ',' or ']' after an event");
            }
            opener = *p;
            if (final && !next_token(opener + 1, last)) {
                return fail(last, "parse-error", "expected an event after ',', found ']'");
            }
        }
        position(opener);
        checkpoint = cursor;
        std::uint64_t close = final ? last : last + 1;
        char saved_open = *at(opener);
        char saved_close = *at(close); // within the window's padding when close is its end
        *at(opener) = '[';
        *at(close) = ']';
        std::string_view text(at(opener), static_cast<std::size_t>(close - opener + 1));
        bool ok = parse_batch(text, opener);
        if (!ok && !error) {
            if (!fail_located(text, opener)) {
                fail(event.offset, "parse-error", "invalid JSON in this event");
            }
        }
        *at(opener) = saved_open;
        *at(close) = saved_close;
        keep_from = final ? last : last + 1;
        return ok && !error;
    }

    bool parse_batch(std::string_view text, std::uint64_t opener) {
        od::document doc;
        od::array array;
        std::size_t room = buf.size() - static_cast<std::size_t>(opener - base);
        if (parser.iterate(simdjson::padded_string_view(text, room)).get(doc) ||
            doc.get_array().get(array)) {
            return false;
        }
        std::size_t next_end = 0;
        for (auto item : array) {
            od::value v;
            od::json_type type{};
            if (item.get(v) || v.type().get(type)) {
                return false;
            }
            reset_event();
            event.offset =
                opener + static_cast<std::uint64_t>(v.raw_json_token().data() - text.data());
            if (type == od::json_type::object || type == od::json_type::array) {
                event.end = next_end < ends.size() ? ends[next_end] : event.offset;
                ++next_end;
            }
            if (type == od::json_type::object) {
                event.object = true;
                if (!read_event(v, text.data(), opener)) {
                    return false;
                }
            } else if (other(v, 2)) {
                return false;
            }
            ++stats.elements;
            handler->event(event);
        }
        return true;
    }

    void reset_event() {
        auto handles = std::move(event.debug_handles);
        handles.clear();
        event = TraceEvent{};
        event.debug_handles = std::move(handles);
        event.index = stats.elements;
    }

    // A string member: ok with its value, or wrong_type (and validated).
    static bool read_string(od::value v, int depth, FieldState& state, std::string_view& out) {
        od::json_type t{};
        if (v.type().get(t)) {
            return false;
        }
        if (t != od::json_type::string) {
            state = FieldState::wrong_type;
            return !validate(v, depth);
        }
        state = FieldState::ok;
        // Without a backslash there is nothing to unescape (stage 1 checked the string's end and
        // its UTF-8): the text between the quotes, no copy.
        std::string_view token = trimmed_token(v.raw_json_token());
        if (token.size() >= 2 && token.back() == '"' &&
            token.find('\\') == std::string_view::npos) {
            out = token.substr(1, token.size() - 2);
            return true;
        }
        return !v.get_string().get(out);
    }

    bool read_event(od::value v, const char* text, std::uint64_t opener) {
        od::object o;
        if (v.get_object().get(o)) {
            return false;
        }
        for (auto member : o) {
            std::string_view key;
            od::value value;
            if (!(options.validate_all ? !member.unescaped_key().get(key)
                                       : member_name(member, key)) ||
                member.value().get(value)) {
                return false;
            }
            event.empty = false;
            if (key == "ph") {
                if (!read_string(value, 3, event.ph_state, event.ph)) {
                    return false;
                }
            } else if (key == "name") {
                if (!read_string(value, 3, event.name_state, event.name)) {
                    return false;
                }
            } else if (key == "dur") {
                od::json_type t{};
                if (value.type().get(t)) {
                    return false;
                }
                if (t == od::json_type::number) {
                    event.dur_state = FieldState::ok;
                    event.dur = trimmed_token(value.raw_json_token());
                    // The grammar is all the conversion to nanoseconds needs; simdjson's own
                    // parse (a double must hold it) only when every value is validated.
                    double d = 0;
                    if (!is_json_number(event.dur) ||
                        (options.validate_all && value.get_double().get(d))) {
                        return false;
                    }
                } else {
                    event.dur_state = FieldState::wrong_type;
                    if (validate(value, 3)) {
                        return false;
                    }
                }
            } else if (key == "args") {
                od::json_type t{};
                if (value.type().get(t)) {
                    return false;
                }
                if (t != od::json_type::object) {
                    event.args_state = FieldState::wrong_type;
                    if (validate(value, 3)) {
                        return false;
                    }
                    continue;
                }
                event.args_state = FieldState::ok;
                event.args_open =
                    opener + static_cast<std::uint64_t>(value.raw_json_token().data() - text);
                if (!read_args(value)) {
                    return false;
                }
            } else if (other(value, 3)) {
                return false;
            }
        }
        return true;
    }

    bool read_args(od::value v) {
        od::object o;
        if (v.get_object().get(o)) {
            return false;
        }
        // A member given twice: the last one counts.
        event.args_empty = true;
        for (auto member : o) {
            std::string_view key;
            od::value value;
            if (!(options.validate_all ? !member.unescaped_key().get(key)
                                       : member_name(member, key)) ||
                member.value().get(value)) {
                return false;
            }
            event.args_empty = false;
            if (key == "provenance_key") {
                if (!read_string(value, 4, event.provenance_key_state, event.provenance_key)) {
                    return false;
                }
            } else if (key == "debug_handles") {
                event.debug_handles.clear();
                if (!read_handles(value)) {
                    return false;
                }
            } else if (key == "cycles_ts") {
                if (!read_cycles(value)) {
                    return false;
                }
            } else {
                event.has_sdscprov_arg |= key == "sdscprov";
                if (other(value, 4)) {
                    return false;
                }
            }
        }
        return true;
    }

    bool read_handles(od::value v) {
        od::json_type t{};
        if (v.type().get(t)) {
            return false;
        }
        if (t != od::json_type::array) {
            event.debug_handles_state = FieldState::wrong_type;
            return !validate(v, 4);
        }
        event.debug_handles_state = FieldState::ok;
        od::array a;
        if (v.get_array().get(a)) {
            return false;
        }
        for (auto item : a) {
            od::value element;
            od::json_type et{};
            if (item.get(element) || element.type().get(et)) {
                return false;
            }
            if (et == od::json_type::string) {
                std::string_view s;
                if (element.get_string().get(s)) {
                    return false;
                }
                event.debug_handles.push_back(s);
            } else {
                event.debug_handles_state = FieldState::wrong_type;
                if (validate(element, 5)) {
                    return false;
                }
            }
        }
        return true;
    }

    bool read_cycles(od::value v) {
        od::json_type t{};
        if (v.type().get(t)) {
            return false;
        }
        event.cycles_ts_count = 0;
        event.cycles_ts_counters = true;
        event.cycles_ts = {};
        if (t != od::json_type::array) {
            event.cycles_ts_state = FieldState::wrong_type;
            return !validate(v, 4);
        }
        event.cycles_ts_state = FieldState::ok;
        od::array a;
        if (v.get_array().get(a)) {
            return false;
        }
        for (auto item : a) {
            od::value element;
            od::json_type et{};
            if (item.get(element) || element.type().get(et)) {
                return false;
            }
            std::size_t i = event.cycles_ts_count++;
            if (et != od::json_type::number) {
                event.cycles_ts_counters = false;
                if (validate(element, 5)) {
                    return false;
                }
                continue;
            }
            od::number n;
            if (element.get_number().get(n)) {
                return false;
            }
            bool counter = false;
            std::uint64_t value = 0;
            if (n.get_number_type() == od::number_type::unsigned_integer) {
                value = n.get_uint64();
                counter = value <= 0xFFFFFFFFULL;
            } else if (n.get_number_type() == od::number_type::signed_integer) {
                std::int64_t s = n.get_int64();
                counter = s >= 0 && s <= 0xFFFFFFFFLL;
                value = static_cast<std::uint64_t>(s);
            }
            if (!counter) {
                event.cycles_ts_counters = false;
            } else if (i < event.cycles_ts.size()) {
                event.cycles_ts[i] = static_cast<std::uint32_t>(value);
            }
        }
        return true;
    }

    TraceReadResult run(TraceHandler& h) {
        handler = &h;
        stats.gzip = source->gzip();
        read_document();
        TraceReadResult result;
        result.stats = stats;
        result.error = error;
        return result;
    }
};

TraceReader::TraceReader(TraceReaderOptions options) : impl_(std::make_unique<Impl>(options)) {}

TraceReader::~TraceReader() = default;

TraceReadResult TraceReader::read(const std::string& path, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    std::string error;
    impl_->source = trace_source::open_file(path, impl_->options.chunk_bytes, error);
    if (!impl_->source) {
        TraceReadResult result;
        result.error = TraceError{{}, 0, "io-error", error};
        return result;
    }
    return impl_->run(handler);
}

TraceReadResult TraceReader::read_bytes(std::string_view bytes, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    impl_->source = trace_source::open_memory(bytes, impl_->options.chunk_bytes);
    return impl_->run(handler);
}

TextPosition TraceReader::position(std::uint64_t offset) {
    return impl_->position(offset);
}

} // namespace sdscprov
