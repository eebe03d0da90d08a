// locate_json_error: where and why a document is invalid, and agreement with simdjson on whether it
// is. Every invalid case is also checked to be rejected by simdjson, and every valid one accepted,
// so the tables double as a record of simdjson 3.0.1's behaviour.
#include "sdscprov/core/json_error.hpp"

#include <cstdint>
#include <doctest/doctest.h>
#include <simdjson.h>
#include <string>
#include <vector>

using namespace sdscprov;
using namespace std::string_literals;

namespace {

constexpr std::size_t max_depth_default = 1024;

bool simdjson_accepts(std::string_view bytes, std::size_t max_depth = max_depth_default) {
    simdjson::dom::parser parser;
    REQUIRE(parser.allocate(bytes.size() + 64, max_depth) == simdjson::SUCCESS);
    simdjson::padded_string padded(bytes);
    return parser.parse(padded).error() == simdjson::SUCCESS;
}

// Printable form of a test input for failure messages.
std::string shown(std::string_view bytes) {
    constexpr std::size_t max_shown = 120;
    std::string s;
    for (std::size_t i = 0; i < bytes.size() && i < max_shown; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7F) {
            s += static_cast<char>(c);
        } else {
            static constexpr char digits[] = "0123456789abcdef";
            s += "\\x";
            s += digits[c >> 4];
            s += digits[c & 0xF];
        }
    }
    if (bytes.size() > max_shown) {
        s += "...";
    }
    return s;
}

// Sentinel for "the error is at the end of input", i.e. offset == input.size().
constexpr std::size_t at_end = static_cast<std::size_t>(-1);

struct InvalidCase {
    std::string input;
    std::size_t offset;  // or at_end
    const char* message; // expected substring
};

void check_invalid(const InvalidCase& c, std::size_t max_depth = max_depth_default) {
    CAPTURE(shown(c.input));
    CHECK_FALSE(simdjson_accepts(c.input, max_depth));
    const auto e = locate_json_error(c.input, max_depth);
    CHECK(e.has_value());
    if (!e) {
        return; // not fatal, so that one table row failing does not hide the others
    }
    CAPTURE(e->message);
    CHECK(e->offset == (c.offset == at_end ? c.input.size() : c.offset));
    CHECK(e->message.find(c.message) != std::string::npos);
    // Plain messages: lower case start, no trailing period.
    CHECK_FALSE(e->message.empty());
    if (e->message.empty()) {
        return;
    }
    CHECK(e->message.back() != '.');
    CHECK_FALSE((e->message.front() >= 'A' && e->message.front() <= 'Z'));
}

void check_valid(std::string_view input, std::size_t max_depth = max_depth_default) {
    CAPTURE(shown(input));
    CHECK(simdjson_accepts(input, max_depth));
    const auto e = locate_json_error(input, max_depth);
    CHECK_FALSE(e.has_value());
    if (e) {
        CAPTURE(e->offset);
        CAPTURE(e->message);
        FAIL("valid input reported as invalid");
    }
}

// A pretty-printed, 2-space-indented SDSC-like document (about 2 KB), with escapes and non-ASCII
// text so that truncations and mutations reach every part of the grammar.
const std::string sdsc_doc = R"({
  "3_add": {
    "debug_handle_": {
      "id": "8249498605557491263",
      "source": {
        "file": "/w/modèle/model.py",
        "start_line": 11,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.add.Tensor",
      "ir_chain": [
        "add",
        "buf0"
      ],
      "fused_from": [],
      "transform_history": [
        {
          "pass": "fuse",
          "note": "tab\there \"quoted\" \u00e9 \ud83d\ude00 €",
          "ok": true,
          "skipped": false
        }
      ]
    },
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "scale": 0.125,
    "bias": -1.5e-3,
    "big": 18446744073709551615,
    "small": -9223372036854775808,
    "dscs_": [
      {
        "add": {
          "numWkSlicesPerDim_": {
            "mb": 1,
            "out": 32
          },
          "primaryDsInfo_": {
            "INPUT": {
              "layoutDimOrder_": ["mb", "out"],
              "stickDimOrder_": ["out"],
              "stickSize_": [64]
            },
            "OUTPUT": {
              "layoutDimOrder_": ["mb", "out"],
              "stickDimOrder_": ["out"],
              "stickSize_": [64]
            }
          },
          "labeledDs_": [
            {
              "ldsIdx_": 0,
              "dsName_": "Tensor0",
              "dsType_": "INPUT",
              "scale_": [1.0, 1.0],
              "wordLength": 2,
              "dataFormat_": "SEN169_FP16",
              "memOrg_": {
                "hbm": {"isPresent": 1},
                "lx": {"isPresent": 0}
              }
            },
            {
              "ldsIdx_": 1,
              "dsName_": "Tensor1",
              "dsType_": "OUTPUT",
              "scale_": [1.0, 1.0],
              "wordLength": 2,
              "dataFormat_": "SEN169_FP16",
              "memOrg_": {
                "hbm": {"isPresent": 1},
                "lx": {"isPresent": 0}
              }
            }
          ],
          "computeOp_": [
            {
              "exUnit": "sfp",
              "opFuncName": "add",
              "attributes_": {"dataFormat_": "SEN169_FP16", "fidelity": "regular"},
              "location": "Inner",
              "inputLabeledDs": ["Tensor0-idx0", "Tensor1-idx0"],
              "outputLabeledDs": ["Tensor1-idx0"]
            }
          ]
        }
      }
    ]
  }
}
)";

// Cuts sdsc_doc right after the first occurrence of `marker` (minus `back` bytes).
std::string cut_after(std::string_view marker, std::size_t back = 0) {
    const std::size_t at = sdsc_doc.find(marker);
    REQUIRE(at != std::string::npos);
    return sdsc_doc.substr(0, at + marker.size() - back);
}

std::string repeated(std::string_view s, std::size_t n) {
    std::string r;
    r.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) {
        r += s;
    }
    return r;
}

// Deterministic pseudo-random numbers (64-bit LCG, top bits), so failures reproduce.
class Lcg {
public:
    explicit Lcg(std::uint64_t seed) : state_(seed) {}
    std::size_t below(std::size_t n) {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::size_t>((state_ >> 33) % n);
    }

private:
    std::uint64_t state_;
};

} // namespace

TEST_CASE("json_error: structure, with offset and message") {
    const InvalidCase cases[] = {
        {"", 0, "empty document"},
        {" \n\t\r ", at_end, "empty document"},
        {"\xEF\xBB\xBF{}", 0, "byte order mark is not allowed here"},
        {"[1, \xEF\xBB\xBF"
         "2]",
         4, "byte order mark is not allowed here"},
        {"{} \xEF\xBB\xBF", 3, "byte order mark is not allowed here"},
        {"{} x", 3, "unexpected content after the JSON value"},
        {"1 2", 2, "unexpected content after the JSON value"},
        {"[1]]", 3, "unexpected content after the JSON value"},
        {"\"a\"\"b\"", 3, "unexpected content after the JSON value"},
        {"[1]\0"s, 3, "unexpected content after the JSON value"},
        {"{} \xff", 3, "unexpected content after the JSON value"},
        {"[1 2]", 3, "expected ',' or ']' after array element, found '2'"},
        {"[1}", 2, "expected ',' or ']' after array element, found '}'"},
        {"{\"a\":1 \"b\":2}", 7, "expected ',' or '}' after object member, found '\"'"},
        {"{\"a\":1]", 6, "expected ',' or '}' after object member"},
        {"{\"a\" 1}", 5, "expected ':' after object key, found '1'"},
        {"{a:1}", 1, "expected string key or '}', found 'a'"},
        {"{'a':1}", 1, "expected string key"},
        {"{\"a\":1,}", 7, "expected string key after ',', found '}' (trailing comma)"},
        {"{\"a\":1,2}", 7, "expected string key after ','"},
        {"[1,]", 3, "expected a value after ',', found ']' (trailing comma)"},
        {"[1,,2]", 3, "expected a value after ','"},
        {"[,1]", 1, "expected a value or ']'"},
        {"{\"a\":}", 5, "expected a value after ':', found '}'"},
        {"]", 0, "expected a JSON value, found ']'"},
        {".5", 0, "expected a JSON value, found '.'"},
        {"+1", 0, "expected a JSON value, found '+'"},
        {"\x0c"
         "1",
         0, "found control character U+000C"},
        {"\0"s, 0, "found control character U+0000"},
        {"[\xc3\xa9]", 1, "expected a value or ']', found '\xc3\xa9'"},
    };
    for (const auto& c : cases) {
        check_invalid(c);
    }
}

TEST_CASE("json_error: truncated input") {
    const InvalidCase cases[] = {
        {"[", at_end, "unexpected end of input: expected a value or ']'"},
        {"[ \n", at_end, "unexpected end of input: expected a value or ']'"},
        {"{", at_end, "unexpected end of input: expected string key or '}'"},
        {"{\"a\"", at_end, "unexpected end of input: expected ':' after object key"},
        {"{\"a\":", at_end, "unexpected end of input: expected a value after ':'"},
        {"{\"a\":1", at_end, "unexpected end of input: expected ',' or '}' after object member"},
        {"{\"a\":1,", at_end, "unexpected end of input: expected string key after ','"},
        {"[1", at_end, "unexpected end of input: expected ',' or ']' after array element"},
        {"[1,", at_end, "unexpected end of input: expected a value after ','"},
        {"[[]", at_end, "unexpected end of input: expected ',' or ']' after array element"},
        {"\"abc", at_end, "unexpected end of input: unterminated string"},
        {"\"ab\\", at_end, "unexpected end of input: unterminated string"},
        {"\"\\u12", at_end, "unexpected end of input: unterminated string"},
        {"\"\\ud83d", at_end, "unexpected end of input: unterminated string"},
        {"\"\\ud83d\\", at_end, "unexpected end of input: unterminated string"},
        {"\"\\ud83d\\ude0", at_end, "unexpected end of input: unterminated string"},
        {"\"\xc3", at_end, "unexpected end of input: unterminated string"},
        {"\"\xf0\x9f\x98", at_end, "unexpected end of input: unterminated string"},
        {"{\"ke", at_end, "unexpected end of input: unterminated string"},
        {"-", at_end, "unexpected end of input: incomplete number '-'"},
        {"[1.", at_end, "unexpected end of input: incomplete number '1.'"},
        {"1e", at_end, "unexpected end of input: incomplete number '1e'"},
        {"[2E-", at_end, "unexpected end of input: incomplete number '2E-'"},
        {"tr", at_end, "unexpected end of input: incomplete literal 'tr'"},
        {"[fals", at_end, "unexpected end of input: incomplete literal 'fals'"},
        {"{\"a\":n", at_end, "unexpected end of input: incomplete literal 'n'"},
    };
    for (const auto& c : cases) {
        check_invalid(c);
    }
}

TEST_CASE("json_error: strings, escapes and UTF-8") {
    const InvalidCase cases[] = {
        {"\"\\q\"", 1, "invalid escape sequence '\\q'"},
        {"[\"ok\", \"a\\xb\"]", 9, "invalid escape sequence '\\x'"},
        {"\"\\\xc3\xa9\"", 1, "invalid escape sequence: '\\' followed by '\xc3\xa9'"},
        {"\"\\\n\"", 1, "invalid escape sequence: '\\' followed by control character U+000A"},
        {"\"\\\xff\"", 1, "invalid escape sequence: '\\' followed by byte 0xff"},
        {"\"\\u12G4\"", 1, "invalid escape sequence '\\u12G': expected 4 hex digits after '\\u'"},
        {"\"\\u12\"", 1, "expected 4 hex digits"},
        {"\"\\ud800\"", 1, "invalid escape sequence '\\ud800': unpaired UTF-16 surrogate"},
        {"\"\\uDC00\"", 1, "invalid escape sequence '\\uDC00': unpaired UTF-16 surrogate"},
        {"\"\\ud800\\u0041\"", 1, "unpaired UTF-16 surrogate"},
        {"\"\\ud800\\ud800\"", 1, "unpaired UTF-16 surrogate"},
        {"\"\\ud800\\n\"", 1, "unpaired UTF-16 surrogate"},
        {"\"\\ud800\\u00G1\"", 7, "expected 4 hex digits"},
        {"\"a\nb\"", 2, "control character U+000A in string"},
        {"\"\x1f\"", 1, "control character U+001F in string"},
        {"\"\0\""s, 1, "control character U+0000 in string"},
        {"{\"a\tb\":1}", 3, "control character U+0009 in string"},
        {"\"\xff\"", 1, "invalid UTF-8 byte 0xff"},
        {"\"\xf5\x80\x80\x80\"", 1, "invalid UTF-8 byte 0xf5"},
        {"\"ab\x80\"", 3, "invalid UTF-8 byte 0x80: unexpected continuation byte"},
        {"\"\xc0\x80\"", 1, "invalid UTF-8 byte 0xc0: overlong encoding"},
        {"\"\xc1\xbf\"", 1, "invalid UTF-8 byte 0xc1: overlong encoding"},
        {"\"\xe0\x80\x80\"", 1, "invalid UTF-8 byte 0xe0: overlong encoding"},
        {"\"\xf0\x8f\xbf\xbf\"", 1, "invalid UTF-8 byte 0xf0: overlong encoding"},
        {"\"\xed\xa0\x80\"", 1, "invalid UTF-8 byte 0xed: encoded surrogate"},
        {"\"\xed\xbf\xbf\"", 1, "invalid UTF-8 byte 0xed: encoded surrogate"},
        {"\"\xf4\x90\x80\x80\"", 1, "invalid UTF-8 byte 0xf4: code point above U+10FFFF"},
        {"\"\xc3x\"", 1, "invalid UTF-8 byte 0xc3: incomplete sequence"},
        {"\"\xe2\x82\"", 1, "invalid UTF-8 byte 0xe2: incomplete sequence"},
        {"\"\xf0\x9f\x98x\"", 1, "invalid UTF-8 byte 0xf0: incomplete sequence"},
        {"[\xff]", 1, "invalid UTF-8 byte 0xff"},
        {"{\"ok\": 1, \"\xfe\": 1}", 11, "invalid UTF-8 byte 0xfe"},
    };
    for (const auto& c : cases) {
        check_invalid(c);
    }
}

TEST_CASE("json_error: numbers and literals") {
    const InvalidCase cases[] = {
        {"18446744073709551616", 0, "integer out of range (more than 64 bits)"},
        {"[1, 99999999999999999999999]", 4, "integer out of range (more than 64 bits)"},
        {"100000000000000000000", 0, "integer out of range"},
        {"-9223372036854775809", 0, "integer out of range"},
        {"{\"n\": -18446744073709551615}", 6, "integer out of range"},
        {"1e400", 0, "number out of range"},
        {"{\"x\": -1.7976931348623159e308}", 6, "number out of range"},
        {"1.5e99999999999999999999", 0, "number out of range"},
        {"[0.0001e313]", 1, "number out of range"},
        {"01", 0, "invalid number '01': leading zeros are not allowed"},
        {"[-01]", 1, "leading zeros are not allowed"},
        {"-x", 0, "invalid number '-x': expected a digit after '-'"},
        {"1.x", 0, "invalid number '1.x': expected a digit after '.'"},
        {"1.e5", 0, "expected a digit after '.'"},
        {"1ex", 0, "invalid number '1ex': expected a digit in the exponent"},
        {"1e+]", 0, "expected a digit in the exponent"},
        {"[12a]", 1, "invalid number '12a': unexpected 'a'"},
        {"0x10", 0, "invalid number '0x10'"},
        {"1.2.3", 0, "invalid number '1.2.3': unexpected '.'"},
        {"1\0"s, 0, "invalid number"},
        {"truex", 0, "invalid literal 'truex', expected 'true'"},
        {"[nul]", 1, "invalid literal 'nul', expected 'null'"},
        {"[false1]", 1, "invalid literal 'false1', expected 'false'"},
        {"True", 0, "invalid literal 'True'"},
        {"{\"a\": NaN}", 6, "invalid literal 'NaN'"},
        {"[undefined]", 1, "invalid literal 'undefined'"},
    };
    for (const auto& c : cases) {
        check_invalid(c);
    }
}

TEST_CASE("json_error: valid documents") {
    const std::string cases[] = {
        "1",
        "\"x\"",
        "null",
        "true",
        "false",
        " 1 \n",
        "-0",
        "{}",
        "[]",
        " [ ] ",
        "{\"a\":[{},[],{\"b\":null}]}",
        "\t\r\n{\r\n\t\"a\" : 1\r\n}\r\n",
        "{\"a\":1,\"a\":2}", // duplicate keys
        "18446744073709551615",
        "-9223372036854775808",
        "[0, -0, 1.5e-400, 0e400, 0.0e99999999999999999999, -0.0e-999, 1E+2, 1e05]",
        "[1.7976931348623157e308, 1.7976931348623158e308, 10000000000000000000]",
        "123456789012345678901234567890.5",
        "[0.000000000000000000000000000001e330, 1e-99999999999999999999]",
        "\"\\ud83d\\ude00 \\uD83D\\uDE00 \\u00e9 \\u0000 \\/\\b\\f\\n\\r\\t\\\"\\\\\"",
        "\"\\udbff\\udfff\"",
        "\"\xf0\x9f\x98\x80 \xe2\x82\xac \xc3\xa9 \xef\xbf\xbe \xf4\x8f\xbf\xbf \x7f\"",
        "\"\xEF\xBB\xBF\"", // a BOM inside a string is just U+FEFF
        sdsc_doc,
    };
    for (const auto& c : cases) {
        check_valid(c);
    }
}

TEST_CASE("json_error: truncated SDSC documents") {
    const InvalidCase cases[] = {
        {cut_after("\"aten.ad"), at_end, "unexpected end of input: unterminated string"},
        {cut_after("\"/w/mod\xc3\xa8", 1), at_end,
         "unexpected end of input: unterminated string"}, // inside a two-byte character
        {cut_after("\\ud83d\\ude"), at_end, "unexpected end of input: unterminated string"},
        {cut_after("\"start_line\": 1"), at_end,
         "unexpected end of input: expected ',' or '}' after object member"},
        {cut_after("\"scale\": 0."), at_end, "unexpected end of input: incomplete number '0.'"},
        {cut_after("\"bias\": -1.5e-"), at_end,
         "unexpected end of input: incomplete number '-1.5e-'"},
        {cut_after("\"numCoresUsed_\": 32,"), at_end,
         "unexpected end of input: expected string key after ','"},
        {cut_after("\"numCoresUsed_\": 32,\n    "), at_end,
         "unexpected end of input: expected string key after ','"},
        {cut_after("\"dscs_\""), at_end, "unexpected end of input: expected ':' after object key"},
        {cut_after("\"dscs_\": "), at_end, "unexpected end of input: expected a value after ':'"},
        {cut_after("\"dscs_\": ["), at_end, "unexpected end of input: expected a value or ']'"},
        {cut_after("\"add\",\n"), at_end, "unexpected end of input: expected a value after ','"},
        {cut_after("\"end_line\": nu"), at_end, "unexpected end of input: incomplete literal 'nu'"},
        {sdsc_doc.substr(0, sdsc_doc.rfind('}')), at_end,
         "unexpected end of input: expected ',' or '}' after object member"},
    };
    for (const auto& c : cases) {
        check_invalid(c);
    }
}

TEST_CASE("json_error: every prefix of a valid document fails at the end of input") {
    // A prefix of a valid document has nothing wrong before its end, so the error must be there.
    std::size_t checked = 0;
    // sdsc_doc ends with "}\n": the prefixes stop before the closing brace.
    for (std::size_t n = 0; n + 1 < sdsc_doc.size(); ++n) {
        const std::string_view prefix = std::string_view{sdsc_doc}.substr(0, n);
        if (prefix.find_first_not_of(" \t\r\n") == std::string_view::npos) {
            continue;
        }
        const auto e = locate_json_error(prefix);
        CAPTURE(n);
        REQUIRE(e.has_value());
        CAPTURE(e->message);
        CHECK(e->offset == n);
        CHECK(e->message.rfind("unexpected end of input: ", 0) == 0);
        ++checked;
    }
    CHECK(checked == sdsc_doc.size() - 2); // all but the empty prefix
}

TEST_CASE("json_error: nesting depth") {
    SUBCASE("10,000 open brackets: rejected at the first bracket beyond the limit") {
        check_invalid({std::string(10000, '['), 1024, "nesting deeper than 1024 levels"});
        check_invalid({std::string(10000, '[') + std::string(10000, ']'), 1024,
                       "nesting deeper than 1024 levels"});
    }
    SUBCASE("1024 levels are accepted, 1025 are not") {
        // simdjson counts only non-empty containers: 1024 nested arrays are fine when the
        // innermost is empty, but not when it holds a value (which is then level 1025).
        check_valid(std::string(1024, '[') + std::string(1024, ']'));
        check_valid(std::string(1023, '[') + "1" + std::string(1023, ']'));
        check_invalid({std::string(1025, '[') + std::string(1025, ']'), 1024,
                       "nesting deeper than 1024 levels"});
        check_invalid({std::string(1024, '[') + "1" + std::string(1024, ']'), 1024,
                       "nesting deeper than 1024 levels"});
    }
    SUBCASE("objects") {
        check_valid(repeated("{\"a\":", 1023) + "{}" + std::string(1023, '}'));
        check_invalid({repeated("{\"a\":", 1024) + "{}" + std::string(1024, '}'), 5 * 1024,
                       "nesting deeper than 1024 levels"});
        // Level 1025 is the '[' of the 513th "[{"k":" group.
        check_invalid({repeated("[{\"k\":", 600), 512 * 6, "nesting deeper than 1024 levels"});
    }
    SUBCASE("a smaller max_depth") {
        check_valid("[[]]", 2);
        check_valid("{\"a\":{}}", 2);
        check_valid("[1]", 2);
        check_invalid({"[[1]]", 2, "nesting deeper than 2 levels"}, 2);
        check_invalid({"[[[]]]", 2, "nesting deeper than 2 levels"}, 2);
        check_invalid({"{\"a\":{\"b\":1}}", 10, "nesting deeper than 2 levels"}, 2);
        check_invalid({"[1]", 1, "nesting deeper than 1 levels"}, 1);
        check_valid("[]", 1);
        check_valid("7", 1);
    }
    SUBCASE("the depth error does not hide an earlier syntax error") {
        check_invalid({"[1 " + std::string(10000, '['), 3, "expected ',' or ']'"});
    }
}

TEST_CASE("json_error: agrees with simdjson on mutations of a valid document") {
    const std::string_view doc = sdsc_doc;
    REQUIRE(doc.size() > 2000);
    std::vector<std::string> inputs;
    // Truncations at every 7th offset, and also with the tail kept (a hole in the middle).
    for (std::size_t n = 0; n < doc.size(); n += 7) {
        inputs.emplace_back(doc.substr(0, n));
        inputs.push_back(std::string{doc.substr(0, n)} + std::string{doc.substr(n + 3)});
    }
    // Single-byte replacements, insertions and deletions at pseudo-random places, with bytes
    // chosen to hit structure, numbers, escapes and UTF-8.
    static constexpr char alphabet[] = "[]{}\",:\\ \n0123456789-+.eEtrufalsnu/\x01\x7f\x80"
                                       "\xbf\xc3\xa9\xed\xa0\xef\xbb\xf0\xf4\x90\xff";
    constexpr std::size_t alphabet_size = sizeof alphabet - 1;
    Lcg rng{20240601};
    for (int i = 0; i < 400; ++i) {
        std::string s{doc};
        const int edits = 1 + static_cast<int>(rng.below(2));
        for (int k = 0; k < edits; ++k) {
            const std::size_t at = rng.below(s.size());
            const char byte = alphabet[rng.below(alphabet_size)];
            switch (rng.below(4)) {
            case 0:
                s[at] = byte;
                break;
            case 1:
                s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), byte);
                break;
            case 2:
                s.erase(at, 1);
                break;
            default:
                s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
                break;
            }
        }
        inputs.push_back(std::move(s));
    }

    std::size_t accepted = 0;
    std::size_t rejected = 0;
    for (const auto& input : inputs) {
        CAPTURE(shown(input));
        const bool simdjson_rejects = !simdjson_accepts(input);
        const auto e = locate_json_error(input);
        if (e) {
            CAPTURE(e->message);
        }
        CHECK(e.has_value() == simdjson_rejects);
        if (e) {
            CHECK(e->offset <= input.size());
            CHECK_FALSE(e->message.empty());
        }
        (simdjson_rejects ? rejected : accepted) += 1;
    }
    // Not vacuous: both outcomes occur.
    CHECK(accepted >= 20);
    CHECK(rejected >= 300);
}
