#include "sdscprov/core/json_error.hpp"

#include <charconv>
#include <cstdint>
#include <vector>

// Contract: locate_json_error(b) is nullopt iff simdjson 3.0.1's dom::parser accepts b with the
// same max depth. The behaviours below were checked against libsimdjson 3.0.1 by experiment:
//  - Whitespace is exactly space, tab, LF, CR; any other byte outside a string (form feed, NUL,
//    a UTF-8 byte order mark) is a syntax error, and so is anything after the root value.
//  - Depth: simdjson counts only non-empty containers (an empty [] or {} never opens a level) and
//    fails when that count reaches max_depth. Equivalently: a value nested inside k >= 1
//    containers with k >= max_depth is an error. So 1024 nested empty arrays are accepted but 1024
//    arrays around a `1` are not; counting the innermost value as a level, the limit is "nesting
//    deeper than max_depth levels".
//  - Integers (no '.' and no exponent) must lie in [-2^63, 2^64-1]; other numbers must round to a
//    finite double (1.7976931348623158e308 is accepted, 1.7976931348623159e308 is not), while
//    underflow to zero is accepted (1e-400, 0e400).
//  - \u escapes: stricter than RFC 8259. A high surrogate must be followed at once by a \u low
//    surrogate, and a lone low surrogate is an error. \u0000 is accepted.
//  - Unescaped bytes below 0x20 in strings are errors; 0x7F is accepted.
//  - UTF-8: overlongs, encoded surrogates, code points above U+10FFFF, truncated sequences and
//    stray continuation bytes are errors; noncharacters such as U+FFFE are accepted.
//  - A number or literal must be followed by whitespace, a structural character or the end
//    ("1x", "truex" are errors).

namespace sdscprov {
namespace {

enum class Container : unsigned char { array, object };

// Where a value is expected: chooses the wording of "expected ..." messages.
enum class ValueSlot { root, first_element, after_comma, after_colon };

std::string expected_value(ValueSlot slot) {
    switch (slot) {
    case ValueSlot::root:
        return "expected a JSON value";
    case ValueSlot::first_element:
        return "expected a value or ']'";
    case ValueSlot::after_comma:
        return "expected a value after ','";
    case ValueSlot::after_colon:
        return "expected a value after ':'";
    }
    return "expected a value";
}

bool is_ws(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

bool is_alpha(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_hex(unsigned char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Bytes that may directly follow a number or literal. Anything else continues the token and makes
// it invalid, as in simdjson ("12a", "nullx").
bool ends_atom(unsigned char c) {
    return is_ws(c) || c == ',' || c == ':' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == '"';
}

unsigned hex_value(unsigned char c) {
    if (is_digit(c)) {
        return static_cast<unsigned>(c - '0');
    }
    if (c >= 'a' && c <= 'f') {
        return static_cast<unsigned>(c - 'a' + 10);
    }
    return static_cast<unsigned>(c - 'A' + 10);
}

std::string hex_byte(unsigned char c) {
    static constexpr char digits[] = "0123456789abcdef";
    return std::string{"0x"} + digits[c >> 4] + digits[c & 0xF];
}

std::string code_point_name(unsigned cp) {
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string s = "U+";
    for (int shift = 12; shift >= 0; shift -= 4) {
        s += digits[(cp >> shift) & 0xF];
    }
    return s;
}

enum class Utf8Status { valid, truncated_at_end, invalid };

struct Utf8Check {
    Utf8Status status = Utf8Status::valid;
    std::size_t length = 1; // of the valid sequence
    const char* reason = nullptr;
};

// Validates the UTF-8 sequence starting at b[i] (which must be < b.size()), following the Unicode
// table of well-formed byte sequences, which is also what simdjson enforces.
Utf8Check check_utf8(std::string_view b, std::size_t i) {
    const auto c = static_cast<unsigned char>(b[i]);
    if (c < 0x80) {
        return {};
    }
    if (c < 0xC0) {
        return {Utf8Status::invalid, 0, "unexpected continuation byte"};
    }
    if (c < 0xC2) {
        return {Utf8Status::invalid, 0, "overlong encoding"};
    }
    if (c > 0xF4) {
        return {Utf8Status::invalid, 0, nullptr};
    }
    const std::size_t n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    // Allowed range of the second byte; narrower than 80..BF after E0, ED, F0 and F4.
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    const char* narrow_reason = nullptr;
    switch (c) {
    case 0xE0:
        lo = 0xA0;
        narrow_reason = "overlong encoding";
        break;
    case 0xED:
        hi = 0x9F;
        narrow_reason = "encoded surrogate";
        break;
    case 0xF0:
        lo = 0x90;
        narrow_reason = "overlong encoding";
        break;
    case 0xF4:
        hi = 0x8F;
        narrow_reason = "code point above U+10FFFF";
        break;
    default:
        break;
    }
    for (std::size_t k = 1; k < n; ++k) {
        if (i + k >= b.size()) {
            return {Utf8Status::truncated_at_end, 0, "incomplete sequence"};
        }
        const auto d = static_cast<unsigned char>(b[i + k]);
        if (d < 0x80 || d > 0xBF) {
            return {Utf8Status::invalid, 0, "incomplete sequence"};
        }
        if (k == 1 && (d < lo || d > hi)) {
            return {Utf8Status::invalid, 0, narrow_reason};
        }
    }
    return {Utf8Status::valid, n, nullptr};
}

std::string utf8_message(unsigned char first, const char* reason) {
    std::string m = "invalid UTF-8 byte " + hex_byte(first);
    if (reason != nullptr) {
        m += ": ";
        m += reason;
    }
    return m;
}

// Printable rendering of a token for messages: ASCII as is, other bytes as \xNN, cut after 32
// bytes so that a megabyte-long garbage token does not become a megabyte-long message.
std::string render_token(std::string_view token) {
    constexpr std::size_t max_shown = 32;
    std::string s;
    for (std::size_t i = 0; i < token.size() && i < max_shown; ++i) {
        const auto c = static_cast<unsigned char>(token[i]);
        if (c >= 0x20 && c < 0x7F) {
            s += static_cast<char>(c);
        } else {
            s += "\\x" + hex_byte(c).substr(2);
        }
    }
    if (token.size() > max_shown) {
        s += "...";
    }
    return s;
}

// Saturates exponents far beyond any double's range, so huge exponents cannot overflow.
constexpr std::int64_t exponent_cap = 1'000'000'000'000;

// What the range check of a number needs of its token, once its grammar is checked.
struct NumberToken {
    bool negative = false;
    std::string_view digits; // the integer part
    std::size_t frac_begin = 0;
    std::size_t frac_end = 0;
    bool is_integer = true;
    std::int64_t exponent = 0;
};

// One left-to-right pass with an explicit stack of open containers. Errors are reported in
// document order. Offsets: the offending byte for structural errors; the start of the token for
// invalid or out-of-range numbers and invalid literals; the backslash for bad escapes; the first
// byte of a bad UTF-8 sequence; the value at level max_depth + 1 for excess depth; bytes.size()
// when the input ends early, including inside a string, an escape or a multi-byte character.
class Locator {
public:
    Locator(std::string_view bytes, std::size_t max_depth) : b_(bytes), max_depth_(max_depth) {}

    std::optional<JsonError> run();

private:
    std::string_view b_;
    std::size_t max_depth_;
    std::size_t pos_ = 0;
    std::vector<Container> stack_;

    bool at_end() const { return pos_ >= b_.size(); }
    unsigned char peek() const { return static_cast<unsigned char>(b_[pos_]); }
    void skip_ws() {
        while (!at_end() && is_ws(peek())) {
            ++pos_;
        }
    }

    static std::optional<JsonError> error(std::size_t offset, std::string message) {
        return JsonError{offset, std::move(message)};
    }
    std::optional<JsonError> end_error(std::string what) const {
        return error(b_.size(), "unexpected end of input: " + std::move(what));
    }

    std::string describe(std::size_t at) const;
    std::optional<JsonError> unexpected(std::size_t at, const std::string& expected) const;
    std::optional<JsonError> value(ValueSlot slot, bool& opened);
    std::optional<JsonError> member_key(bool after_comma);
    std::optional<JsonError> string();
    std::optional<JsonError> unicode_escape();
    std::optional<JsonError> number();
    std::optional<JsonError> invalid_number(std::size_t start, const std::string& why) const;
    std::optional<JsonError> incomplete_number(std::size_t start) const;
    std::optional<JsonError> number_fraction(std::size_t start, NumberToken& t);
    std::optional<JsonError> number_exponent(std::size_t start, NumberToken& t);
    std::optional<JsonError> number_range(std::size_t start, const NumberToken& t) const;
    std::optional<JsonError> literal();
    std::string_view token_at(std::size_t start) const;
};

// What stands at b_[at] (not whitespace, not the end), for "found ..." in messages.
std::string Locator::describe(std::size_t at) const {
    const auto c = static_cast<unsigned char>(b_[at]);
    if (c < 0x20 || c == 0x7F) {
        return "control character " + code_point_name(c);
    }
    if (c < 0x80) {
        return std::string(1, '\'').append(1, static_cast<char>(c)).append(1, '\'');
    }
    const Utf8Check u = check_utf8(b_, at);
    if (u.status == Utf8Status::valid) {
        return std::string(1, '\'').append(b_.substr(at, u.length)).append(1, '\'');
    }
    return "byte " + hex_byte(c);
}

// An error for a byte that cannot start what the grammar expects here. Invalid UTF-8 and a byte
// order mark get their own messages, as they are the likelier cause than a grammar slip.
std::optional<JsonError> Locator::unexpected(std::size_t at, const std::string& expected) const {
    if (b_.substr(at, 3) == "\xEF\xBB\xBF") {
        return error(at, "byte order mark is not allowed here");
    }
    const auto c = static_cast<unsigned char>(b_[at]);
    const Utf8Check u = check_utf8(b_, at);
    if (u.status != Utf8Status::valid) {
        return error(at, utf8_message(c, u.reason));
    }
    return error(at, expected + ", found " + describe(at));
}

std::string_view Locator::token_at(std::size_t start) const {
    std::size_t end = start;
    while (end < b_.size() && !ends_atom(static_cast<unsigned char>(b_[end]))) {
        ++end;
    }
    return b_.substr(start, end - start);
}

std::optional<JsonError> Locator::run() {
    skip_ws();
    if (at_end()) {
        return error(b_.size(), "empty document");
    }
    ValueSlot slot = ValueSlot::root;
    for (;;) {
        bool opened = false;
        if (auto e = value(slot, opened)) {
            return e;
        }
        if (opened) {
            slot = stack_.back() == Container::array ? ValueSlot::first_element
                                                     : ValueSlot::after_colon;
            continue;
        }
        // A value is complete: close containers until one expects another element.
        for (;;) {
            skip_ws();
            if (stack_.empty()) {
                if (at_end()) {
                    return std::nullopt;
                }
                if (b_.substr(pos_, 3) == "\xEF\xBB\xBF") {
                    return error(pos_, "byte order mark is not allowed here");
                }
                return error(pos_, "unexpected content after the JSON value");
            }
            const bool in_array = stack_.back() == Container::array;
            if (at_end()) {
                return end_error(in_array ? "expected ',' or ']' after array element"
                                          : "expected ',' or '}' after object member");
            }
            const unsigned char c = peek();
            if (c == (in_array ? ']' : '}')) {
                ++pos_;
                stack_.pop_back();
                continue;
            }
            if (c != ',') {
                return unexpected(pos_, in_array ? "expected ',' or ']' after array element"
                                                 : "expected ',' or '}' after object member");
            }
            ++pos_;
            if (in_array) {
                slot = ValueSlot::after_comma;
            } else {
                if (auto e = member_key(true)) {
                    return e;
                }
                slot = ValueSlot::after_colon;
            }
            break;
        }
    }
}

// Parses one value at pos_ (after whitespace). A non-empty array or object is only opened: it is
// pushed, `opened` is set and, for an object, its first key and ':' are consumed, so the caller
// continues with the first element. Empty containers are complete values.
std::optional<JsonError> Locator::value(ValueSlot slot, bool& opened) {
    skip_ws();
    if (at_end()) {
        if (slot == ValueSlot::root) {
            return error(b_.size(), "empty document");
        }
        return end_error(expected_value(slot));
    }
    const std::size_t start = pos_;
    const unsigned char c = peek();
    if (c == ']' && slot == ValueSlot::after_comma) {
        return error(start, "expected a value after ',', found ']' (trailing comma)");
    }
    const bool starts_value =
        c == '[' || c == '{' || c == '"' || c == '-' || is_digit(c) || is_alpha(c);
    if (!starts_value) {
        return unexpected(start, expected_value(slot));
    }
    if (!stack_.empty() && stack_.size() >= max_depth_) {
        return error(start, "nesting deeper than " + std::to_string(max_depth_) + " levels");
    }
    switch (c) {
    case '[':
        ++pos_;
        skip_ws();
        if (at_end()) {
            return end_error("expected a value or ']'");
        }
        if (peek() == ']') {
            ++pos_;
            return std::nullopt;
        }
        stack_.push_back(Container::array);
        opened = true;
        return std::nullopt;
    case '{':
        ++pos_;
        skip_ws();
        if (at_end()) {
            return end_error("expected string key or '}'");
        }
        if (peek() == '}') {
            ++pos_;
            return std::nullopt;
        }
        stack_.push_back(Container::object);
        opened = true;
        return member_key(false);
    case '"':
        return string();
    default:
        break;
    }
    if (is_alpha(c)) {
        return literal();
    }
    return number();
}

// Parses `"key" :` of an object member, pos_ being after '{' or ','.
std::optional<JsonError> Locator::member_key(bool after_comma) {
    skip_ws();
    if (at_end()) {
        return end_error(after_comma ? "expected string key after ','"
                                     : "expected string key or '}'");
    }
    if (peek() != '"') {
        if (after_comma && peek() == '}') {
            return error(pos_, "expected string key after ',', found '}' (trailing comma)");
        }
        return unexpected(pos_, after_comma ? "expected string key after ','"
                                            : "expected string key or '}'");
    }
    if (auto e = string()) {
        return e;
    }
    skip_ws();
    if (at_end()) {
        return end_error("expected ':' after object key");
    }
    if (peek() != ':') {
        return unexpected(pos_, "expected ':' after object key");
    }
    ++pos_;
    return std::nullopt;
}

// Parses a string, pos_ at its opening quote. A document cut inside a string (also inside an
// escape or a multi-byte character) is reported as an unterminated string at the end of input,
// the likeliest cause being a truncated file.
std::optional<JsonError> Locator::string() {
    ++pos_;
    for (;;) {
        if (at_end()) {
            return end_error("unterminated string");
        }
        const unsigned char c = peek();
        if (c == '"') {
            ++pos_;
            return std::nullopt;
        }
        if (c < 0x20) {
            return error(pos_, "control character " + code_point_name(c) + " in string");
        }
        if (c == '\\') {
            if (pos_ + 1 >= b_.size()) {
                return end_error("unterminated string");
            }
            const auto e = static_cast<unsigned char>(b_[pos_ + 1]);
            switch (e) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                pos_ += 2;
                continue;
            case 'u':
                if (auto err = unicode_escape()) {
                    return err;
                }
                continue;
            default:
                break;
            }
            if (e > 0x20 && e < 0x7F) {
                return error(pos_, std::string{"invalid escape sequence '\\"} +
                                       static_cast<char>(e) + "'");
            }
            return error(pos_, "invalid escape sequence: '\\' followed by " + describe(pos_ + 1));
        }
        if (c >= 0x80) {
            const Utf8Check u = check_utf8(b_, pos_);
            if (u.status == Utf8Status::truncated_at_end) {
                return end_error("unterminated string");
            }
            if (u.status == Utf8Status::invalid) {
                return error(pos_, utf8_message(c, u.reason));
            }
            pos_ += u.length;
            continue;
        }
        ++pos_;
    }
}

// Parses \uXXXX (and its \uXXXX low-surrogate partner), pos_ at the backslash.
std::optional<JsonError> Locator::unicode_escape() {
    // The value of the 4 hex digits of the \u escape whose backslash is at `at`; nullopt if they
    // are not all hex digits, with `truncated` set if the input ends first.
    const auto read_hex4 = [this](std::size_t at, bool& truncated) -> std::optional<unsigned> {
        unsigned v = 0;
        for (std::size_t k = 2; k < 6; ++k) {
            if (at + k >= b_.size()) {
                truncated = true;
                return std::nullopt;
            }
            const auto h = static_cast<unsigned char>(b_[at + k]);
            if (!is_hex(h)) {
                return std::nullopt;
            }
            v = v * 16 + hex_value(h);
        }
        return v;
    };
    const auto bad_hex = [this](std::size_t at) {
        std::size_t end = at + 2;
        while (end < at + 6 && end < b_.size() && is_hex(static_cast<unsigned char>(b_[end]))) {
            ++end;
        }
        // The offending character is shown when it is plain ASCII and cannot be mistaken for
        // part of the message's quoting.
        const bool show_bad = end < b_.size() && b_[end] > 0x20 && b_[end] < 0x7F &&
                              b_[end] != '"' && b_[end] != '\\' && b_[end] != '\'';
        const std::size_t shown = show_bad ? end + 1 : end;
        return error(at, "invalid escape sequence '" + render_token(b_.substr(at, shown - at)) +
                             "': expected 4 hex digits after '\\u'");
    };
    const auto unpaired = [this](std::size_t at) {
        return error(at, "invalid escape sequence '" + std::string{b_.substr(at, 6)} +
                             "': unpaired UTF-16 surrogate");
    };

    const std::size_t first = pos_;
    bool truncated = false;
    const std::optional<unsigned> cp = read_hex4(first, truncated);
    if (truncated) {
        return end_error("unterminated string");
    }
    if (!cp) {
        return bad_hex(first);
    }
    pos_ = first + 6;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
        return unpaired(first);
    }
    if (*cp < 0xD800 || *cp > 0xDBFF) {
        return std::nullopt;
    }
    // A high surrogate: simdjson requires a \u low surrogate right after it.
    const std::size_t second = pos_;
    if (second >= b_.size() || (b_[second] == '\\' && second + 1 >= b_.size())) {
        return end_error("unterminated string");
    }
    if (b_[second] != '\\' || b_[second + 1] != 'u') {
        return unpaired(first);
    }
    const std::optional<unsigned> low = read_hex4(second, truncated);
    if (truncated) {
        return end_error("unterminated string");
    }
    if (!low) {
        return bad_hex(second);
    }
    if (*low < 0xDC00 || *low > 0xDFFF) {
        return unpaired(first);
    }
    pos_ = second + 6;
    return std::nullopt;
}

// Parses a number, pos_ at '-' or its first digit. Grammar errors are reported at the start of the
// number with the whole token shown; so are range errors.
std::optional<JsonError> Locator::number() {
    const std::size_t start = pos_;
    NumberToken t;
    t.negative = peek() == '-';
    if (t.negative) {
        ++pos_;
        if (at_end()) {
            return incomplete_number(start);
        }
        if (!is_digit(peek())) {
            return invalid_number(start, "expected a digit after '-'");
        }
    }
    const std::size_t int_begin = pos_;
    if (peek() == '0') {
        ++pos_;
        if (!at_end() && is_digit(peek())) {
            return invalid_number(start, "leading zeros are not allowed");
        }
    } else {
        while (!at_end() && is_digit(peek())) {
            ++pos_;
        }
    }
    t.digits = b_.substr(int_begin, pos_ - int_begin);
    t.frac_begin = pos_;
    t.frac_end = pos_;
    if (auto e = number_fraction(start, t)) {
        return e;
    }
    if (auto e = number_exponent(start, t)) {
        return e;
    }
    if (!at_end() && !ends_atom(peek())) {
        return invalid_number(start, "unexpected " + describe(pos_));
    }
    return number_range(start, t);
}

std::optional<JsonError> Locator::invalid_number(std::size_t start, const std::string& why) const {
    return error(start, "invalid number '" + render_token(token_at(start)) + "': " + why);
}

std::optional<JsonError> Locator::incomplete_number(std::size_t start) const {
    return end_error("incomplete number '" + render_token(b_.substr(start)) + "'");
}

// The fraction of the number that starts at `start`, if pos_ is at its '.'.
std::optional<JsonError> Locator::number_fraction(std::size_t start, NumberToken& t) {
    if (at_end() || peek() != '.') {
        return std::nullopt;
    }
    t.is_integer = false;
    ++pos_;
    if (at_end()) {
        return incomplete_number(start);
    }
    if (!is_digit(peek())) {
        return invalid_number(start, "expected a digit after '.'");
    }
    t.frac_begin = pos_;
    while (!at_end() && is_digit(peek())) {
        ++pos_;
    }
    t.frac_end = pos_;
    return std::nullopt;
}

// The exponent of the number that starts at `start`, if pos_ is at its 'e' or 'E'.
std::optional<JsonError> Locator::number_exponent(std::size_t start, NumberToken& t) {
    if (at_end() || (peek() != 'e' && peek() != 'E')) {
        return std::nullopt;
    }
    t.is_integer = false;
    ++pos_;
    bool exp_negative = false;
    if (!at_end() && (peek() == '+' || peek() == '-')) {
        exp_negative = peek() == '-';
        ++pos_;
    }
    if (at_end()) {
        return incomplete_number(start);
    }
    if (!is_digit(peek())) {
        return invalid_number(start, "expected a digit in the exponent");
    }
    while (!at_end() && is_digit(peek())) {
        if (t.exponent < exponent_cap) {
            t.exponent = t.exponent * 10 + (peek() - '0');
        }
        ++pos_;
    }
    if (exp_negative) {
        t.exponent = -t.exponent;
    }
    return std::nullopt;
}

// Whether the number from `start` to pos_, of grammar checked, fits: 64 bits for an integer, a
// double for the others.
std::optional<JsonError> Locator::number_range(std::size_t start, const NumberToken& t) const {
    const std::string_view digits = t.digits;
    if (t.is_integer) {
        // Without leading zeros, comparing lengths then text compares values.
        const std::string_view limit = t.negative ? "9223372036854775808" : "18446744073709551615";
        if (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit)) {
            return error(start, t.negative ? "integer out of range (below -9223372036854775808)"
                                           : "integer out of range (more than 64 bits)");
        }
        return std::nullopt;
    }

    // Decimal exponent of the leading significant digit: the value lies in [10^e10, 10^(e10+1)).
    std::int64_t e10 = 0;
    if (digits != "0") {
        e10 = static_cast<std::int64_t>(digits.size()) - 1 + t.exponent;
    } else {
        std::size_t i = t.frac_begin;
        while (i < t.frac_end && b_[i] == '0') {
            ++i;
        }
        if (i == t.frac_end) {
            return std::nullopt; // zero, whatever the exponent
        }
        e10 = t.exponent - static_cast<std::int64_t>(i - t.frac_begin + 1);
    }
    // DBL_MAX is about 1.8e308: below 10^308 always fits; from 10^309 never does; in between,
    // correct rounding decides, as in simdjson. Underflow to zero is accepted.
    if (e10 > 308) {
        return error(start, "number out of range");
    }
    if (e10 == 308) {
        double d = 0;
        const char* first = b_.data() + start;
        const auto [ptr, ec] = std::from_chars(first, b_.data() + pos_, d);
        if (ec != std::errc{} || ptr != b_.data() + pos_) {
            return error(start, "number out of range");
        }
    }
    return std::nullopt;
}

// Parses true, false or null, pos_ at an ASCII letter. Other words (True, NaN, undefined) are
// invalid literals too.
std::optional<JsonError> Locator::literal() {
    const std::size_t start = pos_;
    const std::string_view token = token_at(start);
    const unsigned char c = peek();
    if (c != 't' && c != 'f' && c != 'n') {
        return error(start, "invalid literal '" + render_token(token) + "'");
    }
    const std::string_view expected = c == 't' ? "true" : c == 'f' ? "false" : "null";
    if (token == expected) {
        pos_ += token.size();
        return std::nullopt;
    }
    if (start + token.size() == b_.size() && expected.substr(0, token.size()) == token) {
        return end_error("incomplete literal '" + std::string{token} + "'");
    }
    return error(start, "invalid literal '" + render_token(token) + "', expected '" +
                            std::string{expected} + "'");
}

} // namespace

std::optional<JsonError> locate_json_error(std::string_view bytes, std::size_t max_depth) {
    return Locator{bytes, max_depth}.run();
}

} // namespace sdscprov
