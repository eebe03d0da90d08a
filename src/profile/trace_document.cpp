#include "profile/trace_document.hpp"

#include <cstring>

namespace sdscprov {

using namespace trace_batch;

// The end (one past) of the value starting at `pos`, found without parsing it. nullopt on an
// error (set) or at the end of the input.
std::optional<std::uint64_t> TraceDocument::value_end(std::uint64_t pos) {
    int c = window_.peek(pos);
    if (c == '{' || c == '[') {
        json_split::Splitter s;
        std::vector<std::uint64_t> found;
        std::uint64_t scanned = pos;
        while (found.empty()) {
            if (scanned - pos > max_value_bytes_) {
                window_.fail(pos, ProblemCode::value_too_large,
                             "a member value larger than " + std::to_string(max_value_bytes_) +
                                 " bytes: not read");
                return std::nullopt;
            }
            std::uint64_t avail = window_.end_offset() - scanned;
            if (avail >= json_split::block) {
                std::size_t blocks = static_cast<std::size_t>(avail / json_split::block);
                s.scan(window_.at(scanned), blocks, scanned, found);
                scanned += blocks * json_split::block;
            } else if (!window_.fill()) {
                if (window_.failed()) {
                    return std::nullopt;
                }
                s.scan_bytes(window_.at(scanned), static_cast<std::size_t>(avail), scanned, found);
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
            int d = window_.peek(p);
            if (d < 0) {
                return std::nullopt;
            }
            if (d == '\\') {
                ++p;
            } else if (d == '"') {
                return p + 1;
            }
            if (p - pos > max_value_bytes_) {
                window_.fail(pos, ProblemCode::value_too_large,
                             "a string longer than " + std::to_string(max_value_bytes_) +
                                 " bytes: not read");
                return std::nullopt;
            }
        }
    }
    std::uint64_t p = pos;
    for (int d = window_.peek(p); d >= 0; d = window_.peek(++p)) {
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
std::optional<od::json_type> TraceDocument::validated(std::uint64_t pos, std::uint64_t end,
                                                      std::string* string_value) {
    auto n = static_cast<std::size_t>(end - pos);
    scratch_.resize(n + 2 + padding);
    scratch_[0] = '[';
    std::memcpy(scratch_.data() + 1, window_.at(pos), n);
    scratch_[n + 1] = ']';
    std::string_view text(scratch_.data(), n + 2);
    od::document doc;
    od::array array;
    od::json_type type{};
    bool ok = !parser_.iterate(simdjson::padded_string_view(text, scratch_.size())).get(doc) &&
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
    if (!window_.fail_located(text, pos - 1)) {
        window_.fail(pos, ProblemCode::parse_error, "invalid JSON value");
    }
    window_.move_error_to(pos);
    return std::nullopt;
}

// distributedInfo.rank of the value validated() last copied into `scratch_` (as `[value]`).
std::optional<std::int64_t> TraceDocument::rank_of_copy() {
    od::document doc;
    std::int64_t rank = 0;
    std::string_view text(scratch_.data(), scratch_.size() - padding);
    if (parser_.iterate(simdjson::padded_string_view(text, scratch_.size())).get(doc)) {
        return std::nullopt;
    }
    for (auto item : doc.get_array()) {
        od::object info;
        if (item.get_object().get(info) || info["rank"].get_int64().get(rank)) {
            return std::nullopt;
        }
        return rank;
    }
    return std::nullopt;
}

bool TraceDocument::truncated(std::uint64_t at_offset, std::string_view what) {
    return window_.fail(at_offset, ProblemCode::parse_error,
                        "unexpected end of input " + std::string(what) + " (truncated trace?)");
}

// The document is not an object: what it is instead (once it is known to be valid JSON).
bool TraceDocument::not_an_object(std::uint64_t pos) {
    auto end = value_end(pos);
    if (!end) {
        return window_.failed() ? false : truncated(window_.end_offset(), "in the document");
    }
    auto type = validated(pos, *end);
    if (!type) {
        return false;
    }
    return window_.fail(pos, ProblemCode::not_a_trace,
                        "the document is " + std::string(type_name(*type)) +
                            ", not an object with a traceEvents array");
}

// A member of the trace's outer object from its value at `pos`: traceEvents read event by event,
// the others validated (distributedInfo's rank kept). Where its value ends, or nullopt with the
// error set.
std::optional<std::uint64_t> TraceDocument::member_value(std::uint64_t pos, const std::string& key,
                                                         std::uint64_t key_pos,
                                                         bool& seen_events) {
    if (key == "traceEvents") {
        if (seen_events) {
            window_.fail(key_pos, ProblemCode::not_a_trace, "traceEvents is given twice");
            return std::nullopt;
        }
        seen_events = true;
        if (window_.peek(pos) != '[') {
            auto end = value_end(pos);
            if (!end) {
                if (!window_.failed()) {
                    truncated(window_.end_offset(), "in traceEvents");
                }
                return std::nullopt;
            }
            auto type = validated(pos, *end);
            if (type) {
                window_.fail(pos, ProblemCode::not_a_trace,
                             "traceEvents is " + std::string(type_name(*type)) + ", not an array");
            }
            return std::nullopt;
        }
        return events_.read_events(pos);
    } else {
        auto end = value_end(pos);
        if (!end) {
            if (!window_.failed()) {
                truncated(window_.end_offset(), "in a member value");
            }
            return std::nullopt;
        }
        if (!validated(pos, *end)) {
            return std::nullopt;
        }
        if (key == "distributedInfo") {
            distributed_rank_ = rank_of_copy();
        }
        return *end;
    }
}

bool TraceDocument::read() {
    std::uint64_t pos = window_.skip_byte_order_mark();
    pos = window_.skip_ws(pos);
    int c = window_.peek(pos);
    if (c < 0) {
        return window_.failed()
                   ? false
                   : window_.fail(pos, ProblemCode::parse_error, "empty document: not a trace");
    }
    if (c == '[') {
        bare_array_ = true;
        auto after = events_.read_events(pos);
        if (!after) {
            return false;
        }
        return finish(*after);
    }
    if (c != '{') {
        return not_an_object(pos);
    }
    bool seen_events = false;
    pos = window_.skip_ws(pos + 1);
    if (window_.peek(pos) == '}') {
        return window_.fail(pos, ProblemCode::not_a_trace,
                            "the document has no traceEvents member");
    }
    while (true) {
        int q = window_.peek(pos);
        if (q < 0) {
            return window_.failed() ? false : truncated(pos, "in the trace's outer object");
        }
        if (q != '"') {
            return window_.fail(pos, ProblemCode::parse_error,
                                "expected a member name (a string)");
        }
        auto key_end = value_end(pos);
        if (!key_end) {
            return window_.failed() ? false : truncated(window_.end_offset(), "in a member name");
        }
        std::string key;
        if (!validated(pos, *key_end, &key)) {
            return false;
        }
        std::uint64_t key_pos = pos;
        pos = window_.skip_ws(*key_end);
        if (window_.peek(pos) != ':') {
            if (window_.peek(pos) < 0) {
                return window_.failed() ? false : truncated(pos, "after a member name");
            }
            return window_.fail(pos, ProblemCode::parse_error,
                                "expected ':' after the member name");
        }
        pos = window_.skip_ws(pos + 1);
        if (window_.peek(pos) < 0) {
            return window_.failed() ? false : truncated(pos, "before a member value");
        }
        auto after_value = member_value(pos, key, key_pos, seen_events);
        if (!after_value) {
            return false;
        }
        pos = *after_value;
        window_.keep_from(pos);
        pos = window_.skip_ws(pos);
        int d = window_.peek(pos);
        if (d == ',') {
            pos = window_.skip_ws(pos + 1);
            continue;
        }
        if (d == '}') {
            break;
        }
        if (d < 0) {
            return window_.failed() ? false : truncated(pos, "in the trace's outer object");
        }
        return window_.fail(pos, ProblemCode::parse_error, "expected ',' or '}' after a member");
    }
    if (!seen_events) {
        return window_.fail(pos, ProblemCode::not_a_trace,
                            "the document has no traceEvents member");
    }
    return finish(pos + 1);
}

// After the document's last byte only whitespace, and the input read to its end.
bool TraceDocument::finish(std::uint64_t pos) {
    window_.keep_from(pos);
    pos = window_.skip_ws(pos);
    if (window_.peek(pos) >= 0) {
        return window_.fail(pos, ProblemCode::parse_error,
                            "content after the end of the document");
    }
    if (window_.failed()) {
        return false;
    }
    if (!window_.source_read_whole()) {
        return false;
    }
    window_.drop(window_.end_offset());
    return true;
}

void TraceDocument::release() {
    parser_ = od::parser{};
    scratch_ = {};
}

} // namespace sdscprov
