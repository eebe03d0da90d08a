// Upstream PyTorch provenance mappings (docs/formats.md, "Sidecars"): both versions, the stack
// traces file, errors at line:col, and what they say about one kernel.
#include "sdscprov/sidecars/upstream.hpp"

#include <doctest/doctest.h>

using namespace sdscprov;

namespace {

const char* v2 = R"({"preToPost": {"x": ["permute", "mm_default_1"], "y": ["add_tensor"]},
 "postToPre": {"permute": ["x"], "mm_default_1": ["x"], "add_tensor": ["y"]},
 "cppCodeToPost": {"sdsc_fused_mm_1:1": ["permute", "mm_default_1"], "sdsc_fused_mm_1:3": ["add_tensor"],
                   "sdsc_fused_mm_10:2": ["add_tensor"]},
 "postToCppCode": {"permute": ["sdsc_fused_mm_1:1"]},
 "version": 2.0})";

const char* v1 = R"({"preToPost": {"x": ["addmm"]}, "postToPre": {"addmm": ["x", "w"]},
 "cppCodeToPost": {"sdsc_fused_mm_1": ["addmm"]}, "postToCppCode": {"addmm": ["sdsc_fused_mm_1"]}})";

const char* traces = R"({"sdsc_fused_mm_1:1": ["  File \"m.py\", line 3, in f\n    y = x @ w\n"]})";

UpstreamMappings parsed(const char* text) {
    auto r = parse_upstream_mappings("m.json", text);
    REQUIRE(r.problems.empty());
    REQUIRE(r.mappings);
    return *r.mappings;
}

} // namespace

TEST_CASE("upstream: version 2 with call ordinals, version 1 without, and stack traces") {
    auto two = parsed(v2);
    CHECK(two.version == 2.0);
    CHECK(two.code_to_post.size() == 3);
    auto one = parsed(v1);
    CHECK(one.version == 1.0); // no version: 1.0
    auto st = parsed(traces);
    CHECK(st.kernel_stack_traces.size() == 1);
    CHECK(st.code_to_post.empty());

    auto k = upstream_kernel({two, st}, "sdsc_fused_mm_1");
    // Both calls of the kernel, not sdsc_fused_mm_10.
    CHECK(k.keys == std::vector<std::string>{"sdsc_fused_mm_1:1", "sdsc_fused_mm_1:3"});
    CHECK(k.post_grad_nodes == std::vector<std::string>{"permute", "mm_default_1", "add_tensor"});
    CHECK(k.pre_grad_nodes == std::vector<std::string>{"x", "y"});
    REQUIRE(k.stack_traces.size() == 1);
    CHECK(k.stack_traces[0].find("line 3") != std::string::npos);

    auto old = upstream_kernel({one}, "sdsc_fused_mm_1");
    CHECK(old.keys == std::vector<std::string>{"sdsc_fused_mm_1"});
    CHECK(old.pre_grad_nodes == std::vector<std::string>{"x", "w"});
    CHECK(upstream_kernel({one, two}, "sdsc_other_0").keys.empty());
}

TEST_CASE("upstream: bad files are problems at their line and column") {
    struct Case {
        const char* text;
        ProblemCode code;
        std::size_t line, col;
    };
    const Case cases[] = {
        {"[1, 2]", ProblemCode::bad_mappings, 1, 1},
        {"{\"version\": \"2\"}", ProblemCode::bad_mappings, 1, 13},
        {"{\"version\": 3.0}", ProblemCode::bad_mappings, 1, 13},
        {"{\"version\": 2.0,\n \"nodes\": {}}", ProblemCode::bad_mappings, 2, 2},
        {"{\"preToPost\": {\"x\": [\"a\", 7]}}", ProblemCode::bad_mappings, 1, 27},
        {"{\"postToPre\": []}", ProblemCode::bad_mappings, 1, 15},
        // Neither kind: not read as stack traces.
        {"{\"k:1\": \"not a list\"}", ProblemCode::unknown_sidecar, 1, 1},
        {"{\"nodes\": {\"a\": 1}}", ProblemCode::unknown_sidecar, 1, 1},
        // Stack traces whose second kernel is not a list.
        {"{\"k:1\": [\"t\"],\n \"k:2\": 5}", ProblemCode::bad_mappings, 2, 9},
        {"{\"preToPost\": {", ProblemCode::parse_error, 1, 16},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        auto r = parse_upstream_mappings("m.json", c.text);
        CHECK_FALSE(r.mappings);
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].code == c.code);
        CHECK(r.problems[0].pos.line == c.line);
        CHECK(r.problems[0].pos.col == c.col);
    }
    auto missing = read_upstream_mappings("/nonexistent/m.json");
    REQUIRE(missing.problems.size() == 1);
    CHECK(missing.problems[0].code == ProblemCode::io_error);
}

TEST_CASE("upstream: files that name no kernel are read, with a warning") {
    // Both are real outputs of PyTorch's edge paths.
    for (const char* text : {"{}", "{\"version\": 2.0}", " {\"cppCodeToPost\": {}}"}) {
        CAPTURE(text);
        auto r = parse_upstream_mappings("m.json", text);
        REQUIRE(r.mappings);
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].code == ProblemCode::empty_sidecar);
        CHECK(r.problems[0].severity == Severity::warning);
        CHECK(r.problems[0].message.find("no kernels") != std::string::npos);
    }
    auto r = parse_upstream_mappings("m.json", v2);
    CHECK(r.problems.empty());
}
