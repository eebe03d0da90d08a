// The one function that shows a problem (core/display.hpp) and the one list of codes
// (core/problem.hpp) that every command's problems, profile's diagnostics, the trace reader's
// error and merge's refusal share.
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/problem.hpp"

#include <doctest/doctest.h>
#include <set>
#include <string>

using namespace sdscprov;

TEST_CASE("problem_line: path, position, severity, message and code") {
    Problem p = make_problem("cache/k/sdsc_1.json", {3, 14}, ProblemCode::parse_error,
                             "unexpected end of input");
    CHECK(problem_line(p) ==
          "cache/k/sdsc_1.json:3:14: error: unexpected end of input [parse-error]");
    p.pos = {};
    CHECK(problem_line(p) == "cache/k/sdsc_1.json: error: unexpected end of input [parse-error]");
}

TEST_CASE("problem_line: a hostile path is quoted and a message cannot reach the terminal raw") {
    Problem p = make_problem("t/odd\xff\n\x1b[31m/trace.json", {2, 1}, ProblemCode::unknown_key,
                             "key '\x1b]0;x\x07' is in no sidecar\n");
    CHECK(problem_line(p) == "\"t/odd\\377\\n\\033[31m/trace.json\":2:1: warning: key "
                             "'\\033]0;x\\a' is in no sidecar\\n [unknown-key]");
}

TEST_CASE("problem_line: the events of a diagnostic, counted when more than one") {
    Problem p =
        make_problem("trace.json", {5, 2}, ProblemCode::bad_duration, "dur is not a number");
    p.first_event = 7;
    p.events = 1;
    CHECK(problem_line(p) == "trace.json:5:2: error: dur is not a number [bad-duration]");
    p.events = 3;
    CHECK(problem_line(p) ==
          "trace.json:5:2: error: dur is not a number (3 events) [bad-duration]");
}

TEST_CASE("problem_line: a problem of no one input starts at its severity") {
    Problem p = make_problem({}, {}, ProblemCode::merge_refused, "no report to merge");
    CHECK(problem_line(p) == "error: no report to merge [merge-refused]");
}

TEST_CASE("problem codes: one list, each code printed as its own stable string") {
    CHECK(to_string(ProblemCode::io_error) == "io-error");
    CHECK(to_string(ProblemCode::nested_handle) == "nested-handle");
    CHECK(to_string(ProblemCode::carrier_conflict) == "carrier-conflict");
    CHECK(to_string(ProblemCode::native_handle_disagreement) == "native-handle-disagreement");
    CHECK(to_string(ProblemCode::util_over_100) == "util-over-100");
    CHECK(to_string(ProblemCode::not_a_trace) == "not-a-trace");
    CHECK(to_string(ProblemCode::value_too_large) == "value-too-large");
    CHECK(to_string(ProblemCode::bad_gzip) == "bad-gzip");
    CHECK(to_string(ProblemCode::merge_refused) == "merge-refused");
    std::set<std::string> seen;
    for (int c = 0; c <= static_cast<int>(ProblemCode::merge_refused); ++c) {
        auto name = std::string(to_string(static_cast<ProblemCode>(c)));
        CHECK(name != "unknown");
        CHECK(seen.insert(name).second);
    }
}

TEST_CASE("problem codes: profile's event diagnostics keep their severities") {
    for (auto c : {ProblemCode::carrier_conflict, ProblemCode::collision, ProblemCode::bad_duration,
                   ProblemCode::bad_cycles_ts, ProblemCode::not_a_trace, ProblemCode::bad_gzip,
                   ProblemCode::value_too_large, ProblemCode::merge_refused}) {
        CHECK(default_severity(c) == Severity::error);
    }
    for (int c = static_cast<int>(first_event_code); c <= static_cast<int>(last_event_code); ++c) {
        auto code = static_cast<ProblemCode>(c);
        if (code != ProblemCode::carrier_conflict && code != ProblemCode::collision &&
            code != ProblemCode::bad_duration && code != ProblemCode::bad_cycles_ts) {
            CHECK(default_severity(code) == Severity::warning);
        }
    }
}
