#include "profile/trace_batch.hpp"

#include "profile/derived.hpp"
#include "sdscprov/core/json_error.hpp"
#include "sdscprov/profile/profile.hpp"

#include <algorithm>

namespace sdscprov::trace_batch {

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

namespace {

// key == literal, by length first and then byte by byte: member names are short, and a call to
// memcmp for each costs more than the comparison.
template <std::size_t N> bool is(std::string_view key, const char (&literal)[N]) {
    if (key.size() != N - 1) {
        return false;
    }
    for (std::size_t i = 0; i + 1 < N; ++i) {
        if (key[i] != literal[i]) {
            return false;
        }
    }
    return true;
}

// Whether `t` is a JSON number without an exponent of at most 32 characters
// (-?(0|[1-9][0-9]*)(.[0-9]+)?): such a number is always in a double's range, so its grammar is
// all there is to check. false for any other text, which get_double then judges.
bool plain_json_number(std::string_view t) {
    if (t.empty() || t.size() > 32) {
        return false;
    }
    std::size_t i = t[0] == '-' ? 1 : 0;
    if (i == t.size() || t[i] < '0' || t[i] > '9') {
        return false;
    }
    if (t[i++] != '0') {
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            ++i;
        }
    }
    if (i < t.size() && t[i] == '.') {
        const std::size_t point = ++i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            ++i;
        }
        if (i == point) {
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

// The work of BatchParser.
class BatchWork {
public:
    void parse(Batch& b) {
        b_ = &b;
        if (!b.opener) {
            return;
        }
        char* text = b.bytes.data() + (*b.opener - b.seg);
        auto length = static_cast<std::size_t>(b.close - *b.opener + 1);
        char saved = *text;
        char& closer = b.bytes[static_cast<std::size_t>(b.close - b.seg)];
        char saved_closer = closer; // the array's own for the last batch, else past the text
        *text = '[';
        closer = ']';
        std::size_t room = b.bytes.size() - static_cast<std::size_t>(*b.opener - b.seg);
        key_at_.clear();
        if (!parse_text(std::string_view(text, length), room)) {
            auto located = locate_json_error(std::string_view(text, length));
            if (located) {
                b.error.emplace(*b.opener + located->offset, located->message);
            } else {
                std::uint64_t at = b.records.empty() ? *b.opener : b.records.back().event.offset;
                b.error.emplace(at, "invalid JSON in this event");
            }
        } else if (b.close < b.seg + b.size && saved_closer != ']') {
            // The splitter counts brackets of either kind: the array's end it found must be a
            // ']' (On-Demand does not look at the document's last character).
            b.error.emplace(b.close, std::string("expected ',' or ']' after an event, found '") +
                                         saved_closer + "'");
        }
        *text = saved;
        closer = saved_closer;
        // Each event's handles and variant key (derived() as it was read) in views, now that
        // the batch adds none any more.
        const std::vector<std::size_t>& key_at = key_at_;
        key_at_.push_back(b.keys.size());
        for (std::size_t i = 0; i < b.records.size(); ++i) {
            Batch::Record& record = b.records[i];
            record.event.debug_handles = std::span<const std::string_view>(
                b.handles.data() + record.handles_begin, record.handles_count);
            record.event.variant_key =
                std::string_view(b.keys).substr(key_at[i], key_at[i + 1] - key_at[i]);
        }
    }

private:
    // What the handing-over thread would otherwise work out for an event, here, while its text
    // is in the cache: derive(), its variant key kept in the batch.
    void derived(Batch::Record& record) {
        record.event.debug_handles = std::span<const std::string_view>(
            b_->handles.data() + record.handles_begin, record.handles_count); // for now
        derive(record.event, scratch_);
        if (record.event.variant_hash_known) {
            b_->keys += scratch_;
        }
    }

    std::uint64_t offset_of(const char* p) const {
        return *b_->opener + static_cast<std::uint64_t>(p - text_);
    }

    bool parse_text(std::string_view text, std::size_t room) {
        text_ = text.data();
        od::document doc;
        od::array array;
        if (parser_.iterate(simdjson::padded_string_view(text, room)).get(doc) ||
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
            auto& record = b_->records.emplace_back();
            key_at_.push_back(b_->keys.size());
            ev_ = &record.event;
            record.handles_begin = static_cast<std::uint32_t>(b_->handles.size());
            rec_ = &record;
            ev_->offset = offset_of(v.raw_json_token().data());
            if (type == od::json_type::object || type == od::json_type::array) {
                ev_->end = next_end < b_->ends.size() ? b_->ends[next_end] : ev_->offset;
                ++next_end;
            }
            if (type == od::json_type::object) {
                ev_->object = true;
                if (!read_event(v)) {
                    return false;
                }
                derive_fields(*ev_); // while the event is in the cache
                derived(record);
            } else if (validate(v, 2)) {
                return false;
            }
        }
        return true;
    }

    // Whether member value `v` is of type `want` (state ok) and is to be read on; when not, the
    // caller returns `result`: false on a parse error, else `v` is of another type (state
    // wrong_type) and `result` tells whether it validated (to `depth`).
    bool of_type(od::value v, od::json_type want, int depth, FieldState& state, bool& result) {
        od::json_type t{};
        if (v.type().get(t)) {
            result = false;
            return false;
        }
        if (t != want) {
            state = FieldState::wrong_type;
            result = !validate(v, depth);
            return false;
        }
        state = FieldState::ok;
        return true;
    }

    // A string member: ok with its value, or wrong_type (and validated).
    bool read_string(od::value v, int depth, FieldState& state, std::string_view& out) {
        if (bool result = false; !of_type(v, od::json_type::string, depth, state, result)) {
            return result;
        }
        // Without a backslash there is nothing to unescape (stage 1 checked the string's end and
        // its UTF-8): the text between the quotes, no copy.
        std::string_view token = trimmed_token(v.raw_json_token());
        if (token.size() >= 2 && token.back() == '"' &&
            token.find('\\') == std::string_view::npos) {
            out = token.substr(1, token.size() - 2);
            return true;
        }
        std::string_view unescaped;
        if (v.get_string().get(unescaped)) {
            return false;
        }
        out = b_->strings.emplace_back(unescaped); // the parser's buffer is reused
        return true;
    }

    // A number member: ok with its JSON text (validated as a number), or wrong_type.
    bool read_number(od::value v, FieldState& state, std::string_view& out) {
        if (bool result = false; !of_type(v, od::json_type::number, 3, state, result)) {
            return result;
        }
        out = trimmed_token(v.raw_json_token());
        return short_whole(out) || valid_number(v, out);
    }

    // A number's text of digits that JSON turns away: one with a leading zero ("007").
    static bool leading_zero(std::string_view t) { return t.size() > 1 && t[0] == '0'; }

    // Digits alone, a few of them, without a leading zero ("0", "4242"): valid JSON at once.
    static bool short_whole(std::string_view t) {
        if (t.empty() || t.size() > 8 || leading_zero(t)) {
            return false;
        }
        return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    }

    // A number whose whole-number value is wanted (`n`, else nullopt): digits alone, without a
    // leading zero, are valid JSON as they are; any other text is validated as read_number's.
    bool read_whole(od::value v, FieldState& state, std::optional<std::uint64_t>& n) {
        n.reset();
        if (bool result = false; !of_type(v, od::json_type::number, 3, state, result)) {
            return result;
        }
        const std::string_view text = trimmed_token(v.raw_json_token());
        n = whole_number(state, text);
        if (n && !leading_zero(text)) {
            return true;
        }
        n.reset();
        return valid_number(v, text);
    }

    // Whether number `v` (its text `text`) is valid JSON: at once for the plain form, else as
    // simdjson reads it (the text is what is converted).
    static bool valid_number(od::value v, std::string_view text) {
        if (plain_json_number(text)) {
            return true; // valid, and in range
        }
        double d = 0;
        return !v.get_double().get(d);
    }

    // ts or dur: read_number's, and its nanoseconds when the text is in the form profilers write
    // (converted here, on the parsing thread, once; `known` false for any other form).
    bool read_time(od::value v, FieldState& state, std::string_view& out, bool& known,
                   std::uint64_t& ns) {
        known = false;
        if (bool result = false; !of_type(v, od::json_type::number, 3, state, result)) {
            return result;
        }
        out = trimmed_token(v.raw_json_token());
        known = plain_microseconds_to_ns(out, ns); // a JSON number, in range, when true
        return known || valid_number(v, out);
    }

    bool read_event(od::value v) {
        od::object o;
        if (v.get_object().get(o)) {
            return false;
        }
        for (auto member : o) {
            std::string_view key;
            od::value value;
            if (member.unescaped_key().get(key) || member.value().get(value)) {
                return false;
            }
            ev_->empty = false;
            if (is(key, "ph")) {
                if (!read_string(value, 3, ev_->ph_state, ev_->ph)) {
                    return false;
                }
            } else if (is(key, "name")) {
                if (!read_string(value, 3, ev_->name_state, ev_->name)) {
                    return false;
                }
            } else if (is(key, "dur")) {
                if (!read_time(value, ev_->dur_state, ev_->dur, ev_->dur_ns_known, ev_->dur_ns)) {
                    return false;
                }
            } else if (is(key, "ts")) {
                if (!read_time(value, ev_->ts_state, ev_->ts, ev_->ts_ns_known, ev_->ts_ns)) {
                    return false;
                }
            } else if (is(key, "cat")) {
                if (!read_string(value, 3, ev_->cat_state, ev_->cat)) {
                    return false;
                }
            } else if (is(key, "pid")) {
                if (!read_pid(value)) {
                    return false;
                }
            } else if (is(key, "args")) {
                od::json_type t{};
                if (value.type().get(t)) {
                    return false;
                }
                if (t != od::json_type::object) {
                    ev_->args_state = FieldState::wrong_type;
                    if (validate(value, 3)) {
                        return false;
                    }
                    continue;
                }
                ev_->args_state = FieldState::ok;
                ev_->args_open = offset_of(value.raw_json_token().data());
                if (!read_args(value)) {
                    return false;
                }
            } else if (validate(value, 3)) {
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
        ev_->args_empty = true;
        for (auto member : o) {
            std::string_view key;
            od::value value;
            if (member.unescaped_key().get(key) || member.value().get(value)) {
                return false;
            }
            ev_->args_empty = false;
            if (is(key, "provenance_key")) {
                if (!read_string(value, 4, ev_->provenance_key_state, ev_->provenance_key)) {
                    return false;
                }
            } else if (is(key, "sdsc_bundle_dir_prefix")) {
                if (!read_string(value, 4, ev_->dir_prefix_state, ev_->dir_prefix)) {
                    return false;
                }
            } else if (is(key, "debug_handles")) {
                rec_->handles_begin = static_cast<std::uint32_t>(b_->handles.size());
                rec_->handles_count = 0;
                if (!read_handles(value)) {
                    return false;
                }
            } else if (is(key, "cycles_ts")) {
                if (!read_cycles(value)) {
                    return false;
                }
            } else if (is(key, "device")) {
                if (!read_number(value, ev_->device_state, ev_->device)) {
                    return false;
                }
            } else if (const NumberArg arg = number_arg(key); arg.state != nullptr) {
                std::optional<std::uint64_t> n;
                if (!read_whole(value, *arg.state, n)) {
                    return false;
                }
                if (n) { // the last one given counts
                    *arg.number = *n;
                    ev_->args_numbers |= arg.bit;
                } else {
                    ev_->args_numbers &= static_cast<std::uint8_t>(~arg.bit);
                }
            } else {
                ev_->has_sdscprov_arg |= is(key, "sdscprov");
                if (validate(value, 4)) {
                    return false;
                }
            }
        }
        return true;
    }

    // One of the timeline's args read as a whole number: its state, number and bit; no state
    // for another key.
    struct NumberArg {
        FieldState* state = nullptr;
        std::uint64_t* number = nullptr;
        std::uint8_t bit = 0;
    };
    NumberArg number_arg(std::string_view key) {
        if (is(key, "correlation")) {
            return {&ev_->correlation_state, &ev_->correlation_n, correlation_number};
        }
        if (is(key, "queued")) {
            return {&ev_->queued_state, &ev_->queued_n, queued_number};
        }
        if (is(key, "submitted")) {
            return {&ev_->submitted_state, &ev_->submitted_n, submitted_number};
        }
        if (is(key, "bytes")) {
            return {&ev_->bytes_state, &ev_->bytes_n, bytes_number};
        }
        return {};
    }

    // pid: a number's JSON text, or a string's value.
    bool read_pid(od::value v) {
        od::json_type t{};
        if (v.type().get(t)) {
            return false;
        }
        if (t == od::json_type::string) {
            return read_string(v, 3, ev_->pid_state, ev_->pid);
        }
        return read_number(v, ev_->pid_state, ev_->pid);
    }

    // An array member of args: each element to `element(value, type)`; wrong_type (and
    // validated) when it is not an array.
    template <class Element> bool read_array(od::value v, FieldState& state, Element element) {
        if (bool result = false; !of_type(v, od::json_type::array, 4, state, result)) {
            return result;
        }
        od::array a;
        if (v.get_array().get(a)) {
            return false;
        }
        for (auto item : a) {
            od::value value;
            od::json_type type{};
            if (item.get(value) || value.type().get(type) || !element(value, type)) {
                return false;
            }
        }
        return true;
    }

    bool read_handles(od::value v) {
        return read_array(v, ev_->debug_handles_state, [this](od::value e, od::json_type type) {
            if (type != od::json_type::string) {
                ev_->debug_handles_state = FieldState::wrong_type;
                return !validate(e, 5);
            }
            std::string_view s;
            FieldState ignored = FieldState::absent;
            if (!read_string(e, 5, ignored, s)) {
                return false;
            }
            b_->handles.push_back(s);
            ++rec_->handles_count;
            return true;
        });
    }

    bool read_cycles(od::value v) {
        ev_->cycles_ts_count = 0;
        ev_->cycles_ts_counters = true;
        ev_->cycles_ts = {};
        return read_array(v, ev_->cycles_ts_state, [this](od::value e, od::json_type type) {
            std::size_t i = ev_->cycles_ts_count++;
            if (type != od::json_type::number) {
                ev_->cycles_ts_counters = false;
                return !validate(e, 5);
            }
            od::number n;
            if (e.get_number().get(n)) {
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
                ev_->cycles_ts_counters = false;
            } else if (i < ev_->cycles_ts.size()) {
                ev_->cycles_ts[i] = static_cast<std::uint32_t>(value);
            }
            return true;
        });
    }

    od::parser parser_;
    Batch* b_ = nullptr;
    Batch::Record* rec_ = nullptr;
    TraceEvent* ev_ = nullptr;
    const char* text_ = nullptr;
    std::string scratch_;             // derive()'s
    std::vector<std::size_t> key_at_; // where each record's variant key starts in the batch
};

} // namespace

struct BatchParser::Impl : BatchWork {};

BatchParser::BatchParser() : impl_(std::make_unique<Impl>()) {}
BatchParser::~BatchParser() = default;

void BatchParser::parse(Batch& b) {
    impl_->parse(b);
}

void BatchParser::release() {
    impl_ = std::make_unique<Impl>();
}

} // namespace sdscprov::trace_batch
