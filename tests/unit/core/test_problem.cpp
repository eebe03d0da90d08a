#include "sdscprov/core/problem.hpp"

#include <doctest/doctest.h>

using namespace sdscprov;

TEST_CASE("problem: line and column of a byte offset") {
    struct Case {
        std::string_view text;
        std::size_t offset;
        std::size_t line;
        std::size_t col;
    };
    const Case cases[] = {
        {"", 0, 1, 1},
        {"abc", 0, 1, 1},
        {"abc", 3, 1, 4},
        {"a\nbc", 2, 2, 1},
        {"a\nbc", 3, 2, 2},
        {"a\r\nbc", 4, 2, 2},
        {"\xC3\xA9x", 2, 1, 2},      // é is one column
        {"\xEF\xBB\xBF{}", 3, 1, 1}, // the BOM takes no column
        {"\xEF\xBB\xBF{\n}", 5, 2, 1},
        {"ab", 99, 1, 3}, // past the end: clamped
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CAPTURE(c.offset);
        auto p = position_at(c.text, c.offset);
        CHECK(p.line == c.line);
        CHECK(p.col == c.col);
    }
}

TEST_CASE("problem: codes and severities are stable") {
    CHECK(to_string(ProblemCode::parse_error) == "parse-error");
    CHECK(to_string(ProblemCode::not_sdsc) == "not-sdsc");
    CHECK(default_severity(ProblemCode::parse_error) == Severity::error);
    CHECK(default_severity(ProblemCode::malformed_handle) == Severity::warning);
}

TEST_CASE("problem: LineIndex agrees with position_at") {
    const std::string_view texts[] = {"",
                                      "a",
                                      "\n",
                                      "ab\ncd\n\nef",
                                      "\xEF\xBB\xBFx\ny",
                                      "\xC3\xA9\xC3\xA9\n\xE2\x82\xAC!",
                                      "\r\n\r\nz"};
    for (auto text : texts) {
        LineIndex index(text);
        for (std::size_t offset = 0; offset <= text.size() + 1; ++offset) {
            CAPTURE(text);
            CAPTURE(offset);
            auto a = position_at(text, offset);
            auto b = index.position(offset);
            CHECK(a.line == b.line);
            CHECK(a.col == b.col);
        }
    }
}

TEST_CASE("problem: LineIndex on lines longer than its block") {
    // A BOM, then characters of 1 to 4 bytes (some straddle block boundaries): a first line that
    // crosses the first boundary, a second that starts mid-block and ends just before the next
    // boundary, and a third three blocks long. Every offset agrees with the plain count.
    std::string text = "\xEF\xBB\xBF";
    const std::string_view chars[] = {"ab", "\xC3\xA9", "\xE2\x82\xAC", "xyz", "\xF0\x9F\x98\x80"};
    auto fill_to = [&](std::size_t end) {
        for (std::size_t i = 0; text.size() < end; ++i) {
            text += chars[i % 5];
        }
    };
    fill_to(LineIndex::block + 1000);
    text += '\n';
    fill_to(2 * LineIndex::block - 1);
    text += '\n';
    fill_to(5 * LineIndex::block + 7);
    LineIndex index(text);
    for (std::size_t offset = 0; offset <= text.size(); ++offset) {
        auto a = position_at(text, offset);
        auto b = index.position(offset);
        if (a.line != b.line || a.col != b.col) {
            CAPTURE(offset);
            CHECK(a.line == b.line);
            CHECK(a.col == b.col);
            break;
        }
    }
}
