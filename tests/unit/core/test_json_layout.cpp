// Value and key offsets of a JSON text in pre-order, with subtree ends and sizes. The expected
// offsets are counted by hand from the texts (shown above each table).
#include "sdscprov/core/json_layout.hpp"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

struct Loc {
    std::size_t value;
    std::size_t key;
    std::size_t end;
    std::size_t count;
};

void check_locations(std::string_view json, const std::vector<Loc>& expected) {
    CAPTURE(json);
    auto locs = json_value_locations(json);
    REQUIRE(locs.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(locs[i].value == expected[i].value);
        CHECK(locs[i].key == expected[i].key);
        CHECK(locs[i].end == expected[i].end);
        CHECK(locs[i].count == expected[i].count);
    }
}

} // namespace

TEST_CASE("json_layout: scalars at the root") {
    struct Case {
        std::string json;
        Loc loc;
    };
    const Case cases[] = {
        {"42", {0, 0, 2, 1}},       {"  -1.5e3 ", {2, 2, 8, 1}}, {"true", {0, 0, 4, 1}},
        {"\nnull\n", {1, 1, 5, 1}}, {"\"s\"", {0, 0, 3, 1}},     {"\"a\\\"b\"", {0, 0, 6, 1}},
    };
    for (const auto& c : cases) {
        check_locations(c.json, {c.loc});
    }
}

TEST_CASE("json_layout: empty containers") {
    check_locations("{}", {{0, 0, 2, 1}});
    check_locations("[]", {{0, 0, 2, 1}});
    check_locations(" [ ] ", {{1, 1, 4, 1}});
    // [{}, []]: '{' at 1..3, '[' at 5..7.
    check_locations("[{}, []]", {{0, 0, 8, 3}, {1, 1, 3, 1}, {5, 5, 7, 1}});
}

TEST_CASE("json_layout: nested objects and arrays in pre-order") {
    // Values at 0 (root), 6 ('[' of "a", key at 1), 7 (1), 10 ('{'), 16 ("x", key "b" at 11),
    // 28 (null, key "c" at 23); the text is 33 bytes.
    const std::string json = R"({"a": [1, {"b": "x"}], "c": null})";
    const std::vector<Loc> expected = {
        {0, 0, 33, 6},   {6, 1, 21, 4},   {7, 7, 8, 1},
        {10, 10, 20, 2}, {16, 11, 19, 1}, {28, 23, 32, 1},
    };
    check_locations(json, expected);
}

TEST_CASE("json_layout: scalars of every kind in an array") {
    // 1 at 1, -2.5e+3 at 3..10, true at 11..15, false at 16..21, null at 22..26.
    const std::string json = "[1,-2.5e+3,true,false,null]";
    const std::vector<Loc> expected = {
        {0, 0, 27, 6},   {1, 1, 2, 1},    {3, 3, 10, 1},
        {11, 11, 15, 1}, {16, 16, 21, 1}, {22, 22, 26, 1},
    };
    check_locations(json, expected);
}

TEST_CASE("json_layout: strings holding brackets, quotes and escaped quotes") {
    SUBCASE("values") {
        // "a]\"{" at 1..8, "\\" at 10..14, '{' at 16..29 with key "k\"}" at 17 and value "}" at
        // 25..28, 5 at 31; 33 bytes.
        const std::string json = R"(["a]\"{", "\\", {"k\"}": "}"}, 5])";
        const std::vector<Loc> expected = {
            {0, 0, 33, 6},   {1, 1, 8, 1},    {10, 10, 14, 1},
            {16, 16, 29, 2}, {25, 17, 28, 1}, {31, 31, 32, 1},
        };
        check_locations(json, expected);
    }
    SUBCASE("keys that look like structure") {
        // Key "}" at 1, its '{' at 6..26; keys "]" at 7 and "," at 17; values "[" at 12 and ":" at
        // 22; 27 bytes.
        const std::string json = R"({"}": {"]": "[", ",": ":"}})";
        const std::vector<Loc> expected = {
            {0, 0, 27, 4},
            {6, 1, 26, 3},
            {12, 7, 15, 1},
            {22, 17, 25, 1},
        };
        check_locations(json, expected);
    }
}

TEST_CASE("json_layout: whitespace variants") {
    // Blanks at 0..3, '{' at 4, key "a" at 6, '[' at 12..15, key "b" at 19, '{' at 23..25, '}' at
    // 25, then "\n " at 26..28.
    check_locations(" \t\r\n{ \"a\" :\t[ ] ,\r\n\"b\":{}}\n ", {
                                                                   {4, 4, 26, 3},
                                                                   {12, 6, 15, 1},
                                                                   {23, 19, 25, 1},
                                                               });
    // Pretty-printed with indent 2, the way torch-spyre writes SDSC files.
    const std::string pretty = "{\n"              // 0..1
                               "  \"0_add\": {\n" // key at 4, '{' at 13
                               "    \"x\": 1\n"   // key at 19, 1 at 24
                               "  }\n"            // '}' at 28
                               "}";               // '}' at 30
    check_locations(pretty, {{0, 0, 31, 3}, {13, 4, 29, 2}, {24, 19, 25, 1}});
}

TEST_CASE("json_layout: 10,000-deep nesting without recursion") {
    constexpr std::size_t depth = 10000;
    SUBCASE("arrays") {
        const std::string json = std::string(depth, '[') + std::string(depth, ']');
        auto locs = json_value_locations(json);
        REQUIRE(locs.size() == depth);
        bool all_ok = true;
        for (std::size_t i = 0; i < depth; ++i) {
            all_ok = all_ok && locs[i].value == i && locs[i].key == i &&
                     locs[i].end == 2 * depth - i && locs[i].count == depth - i;
        }
        CHECK(all_ok);
        CHECK(locs.front().end == 2 * depth);
        CHECK(locs.back().value == depth - 1);
        CHECK(locs.back().end == depth + 1);
        CHECK(json_value_end(json, 0) == 2 * depth);
        CHECK(json_value_end(json, depth / 2) == depth + depth / 2);
    }
    SUBCASE("objects") {
        // {"a":{"a":...{"a":0}...}}: level i opens at 5i, its key is at 5(i-1)+1.
        std::string json;
        for (std::size_t i = 0; i < depth; ++i) {
            json += "{\"a\":";
        }
        json += "0" + std::string(depth, '}');
        REQUIRE(json.size() == 6 * depth + 1);
        auto locs = json_value_locations(json);
        REQUIRE(locs.size() == depth + 1);
        bool all_ok = true;
        for (std::size_t i = 0; i < depth; ++i) {
            const std::size_t key = i == 0 ? 0 : 5 * (i - 1) + 1;
            all_ok = all_ok && locs[i].value == 5 * i && locs[i].key == key &&
                     locs[i].end == 6 * depth + 1 - i && locs[i].count == depth + 1 - i;
        }
        CHECK(all_ok);
        CHECK(locs[depth].value == 5 * depth);
        CHECK(locs[depth].key == 5 * (depth - 1) + 1);
        CHECK(locs[depth].end == 5 * depth + 1);
        CHECK(locs[depth].count == 1);
    }
}

TEST_CASE("json_layout: json_value_end") {
    // Key "k" at 1..4, value "v\"}" at 6..12, key "n" at 14, 12 at 19..21; 22 bytes.
    const std::string json = R"({"k": "v\"}", "n": 12})";
    struct Case {
        std::string json;
        std::size_t at;
        std::size_t end;
    };
    const Case cases[] = {
        {json, 0, 22},               // the whole object
        {json, 1, 4},                // a key
        {json, 6, 12},               // a string with an escaped quote and a '}'
        {json, 19, 21},              // a number before '}'
        {json, 22, 22},              // at the end
        {"[[], {}]", 1, 3},          // an empty array
        {"[[], {}]", 5, 7},          // an empty object
        {"[\"]\", [\"[\"]]", 0, 12}, // brackets in strings do not count
        {"[\"]\", [\"[\"]]", 6, 11}, //
        {"true ", 0, 4},             // a literal before a blank
        {"-0.5\n", 0, 4},            // a number before a newline
        {"[1,2]", 1, 2},             // a number before ','
        {"[\"\\\\\", 1]", 1, 5},     // a string ending with an escaped backslash
        {"{\"a\":\"\\\"\"}", 5, 9},  // a string that is one escaped quote
    };
    for (const auto& c : cases) {
        CAPTURE(c.json);
        CAPTURE(c.at);
        CHECK(json_value_end(c.json, c.at) == c.end);
    }
}

TEST_CASE("json_layout: json_string_end and json_closing_quote agree with a byte-by-byte walk") {
    // The reference: each backslash takes the next byte with it; the first other quote closes the
    // string (npos when none does).
    auto closing = [](std::string_view b, std::size_t i) {
        for (++i; i < b.size(); ++i) {
            if (b[i] == '\\') {
                ++i;
            } else if (b[i] == '"') {
                return i;
            }
        }
        return std::string_view::npos;
    };
    // Every text of up to 9 bytes over backslash, quote and 'a', after an opening quote (and
    // with a quote before it, which a run of backslashes must not be counted into).
    const char alphabet[] = {'\\', '"', 'a'};
    std::size_t checked = 0;
    for (std::size_t length = 0; length <= 9; ++length) {
        std::size_t texts = 1;
        for (std::size_t k = 0; k < length; ++k) {
            texts *= 3;
        }
        for (std::size_t n = 0; n < texts; ++n) {
            std::string json = "\\\"";
            for (std::size_t k = 0, v = n; k < length; ++k, v /= 3) {
                json.push_back(alphabet[v % 3]);
            }
            CAPTURE(json);
            const std::size_t quote = closing(json, 1);
            REQUIRE(json_string_end(json, 1) ==
                    (quote == std::string_view::npos ? json.size() : quote + 1));
            // Asked again from any later byte up to the closing quote (as a reader that has only
            // part of the text does, from where its bytes ended, even within a run of
            // backslashes): the same quote, or none.
            const std::size_t last = quote == std::string_view::npos ? json.size() : quote;
            for (std::size_t from = 2; from <= last; ++from) {
                CAPTURE(from);
                REQUIRE(json_closing_quote(json, 1, from) == quote);
            }
            ++checked;
        }
    }
    CHECK(checked == 29524); // (3^10 - 1) / 2 texts
    // A long run of backslashes before the closing quote, odd then even.
    const std::string odd = "\"" + std::string(1001, '\\') + "\"x\"";
    const std::string even = "\"" + std::string(1000, '\\') + "\"x\"";
    CHECK(json_string_end(odd, 0) == odd.size());
    CHECK(json_string_end(even, 0) == even.size() - 2);
}
