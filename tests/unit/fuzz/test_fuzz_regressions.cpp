// The fuzz targets' properties (fuzz/checks.hpp) on every input kept for them: the hand-written
// seeds (fuzz/seeds/<target>/), the demo cache's files of the target's format, and every input a
// fuzzer once crashed on (fuzz/regressions/<target>/, none yet is fine). Here without sanitizers,
// compiled by the ordinary build, so a fixed crash stays fixed.
#include "../../../fuzz/checks.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace sdscprov::fuzz;

namespace {

namespace fs = std::filesystem;

// tests/CMakeLists.txt gives the tests testdata/; fuzz/ is beside it.
const fs::path repo = fs::path(SDSCPROV_TESTDATA).parent_path();

// Regular files under `dir` (recursively), sorted; none when it does not exist.
std::vector<fs::path> files_under(const fs::path& dir) {
    std::vector<fs::path> out;
    if (fs::is_directory(dir)) {
        for (const auto& entry : fs::recursive_directory_iterator(dir)) {
            if (entry.is_regular_file()) {
                out.push_back(entry.path());
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Files of the demo cache (or of its subdirectory `under`) whose name `matches`.
std::vector<fs::path> testdata_files(bool (*matches)(const std::string& name),
                                     const fs::path& under = {}) {
    std::vector<fs::path> out;
    for (const auto& path : files_under(repo / "testdata" / under)) {
        if (matches(path.filename().string())) {
            out.push_back(path);
        }
    }
    return out;
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

using Check = void (PropertyChecks::*)(std::string_view);

// The seeds scripts/fuzz.sh starts `target` from: its own, the scan seeds for the writer too, and
// the demo cache's files of its format.
std::vector<fs::path> seeds_of(const std::string& target) {
    std::vector<fs::path> seeds = files_under(repo / "fuzz" / "seeds" / target);
    auto add = [&](std::vector<fs::path> more) {
        seeds.insert(seeds.end(), more.begin(), more.end());
    };
    if (target == "writer") {
        add(files_under(repo / "fuzz" / "seeds" / "scan"));
    }
    if (target == "scan" || target == "writer") {
        add(testdata_files(
            [](const std::string& n) { return n.starts_with("sdsc_") && n.ends_with(".json"); }));
    } else if (target == "origins") {
        add(testdata_files([](const std::string& n) { return n == "origins.json"; }));
    } else if (target == "bundle") {
        add(testdata_files([](const std::string& n) { return n == "bundle.mlir"; }));
    } else if (target == "spyre") {
        add(testdata_files([](const std::string& n) { return n.ends_with(".json"); }, "spyre"));
    }
    return seeds;
}

void check_inputs(const std::string& target, Check check) {
    PropertyChecks checks;
    std::vector<fs::path> seeds = seeds_of(target);
    REQUIRE_MESSAGE(!seeds.empty(), "no seeds for fuzz target " << target);
    std::vector<fs::path> inputs = seeds;
    for (const auto& path : files_under(repo / "fuzz" / "regressions" / target)) {
        inputs.push_back(path);
    }
    for (const auto& path : inputs) {
        CAPTURE(path.string());
        std::string bytes = read_bytes(path);
        try {
            (checks.*check)(bytes);
        } catch (const std::exception& e) {
            FAIL_CHECK(path.string() << ": " << std::string(e.what()));
        }
    }
}

} // namespace

TEST_CASE("fuzz regressions: scan") {
    check_inputs("scan", &PropertyChecks::scan);
}

TEST_CASE("fuzz regressions: handle") {
    check_inputs("handle", &PropertyChecks::handle);
}

TEST_CASE("fuzz regressions: origins") {
    check_inputs("origins", &PropertyChecks::origins);
}

TEST_CASE("fuzz regressions: bundle") {
    check_inputs("bundle", &PropertyChecks::bundle);
}

TEST_CASE("fuzz regressions: upstream") {
    check_inputs("upstream", &PropertyChecks::upstream);
}

TEST_CASE("fuzz regressions: writer") {
    check_inputs("writer", &PropertyChecks::writer);
}

TEST_CASE("fuzz regressions: spyre") {
    check_inputs("spyre", &PropertyChecks::spyre);
}

TEST_CASE("fuzz regressions: trace") {
    check_inputs("trace", &PropertyChecks::trace);
}

TEST_CASE("fuzz regressions: ideal") {
    check_inputs("ideal", &PropertyChecks::ideal);
}

// The reference of the ideal checks reads what the rules say, and refuses what they refuse.
TEST_CASE("fuzz regressions: the ideal reference follows the rules") {
    simdjson::dom::parser parser;
    auto walk = [&](const char* text) {
        simdjson::padded_string padded{std::string_view(text)};
        simdjson::dom::element root;
        REQUIRE(parser.parse(padded).get(root) == simdjson::SUCCESS);
        return ideal_by_dom_walk(root);
    };
    auto total = walk(R"([{"op_category": "a", "ideal_cycles": 3, "x": 1},
                          {"op_category": "TOTAL", "ideal_cycles": 2}])");
    REQUIRE(total);
    CHECK(total->cycles == 2);
    CHECK(total->rule == sdscprov::IdealRule::total_entry);
    CHECK(total->category == "a");
    CHECK(total->other_members == std::vector<std::string>{"x"});
    auto sum = walk(
        R"([{"op_category": "a", "ideal_cycles": 3}, {"op_category": "b", "ideal_cycles": 3}])");
    REQUIRE(sum);
    CHECK(sum->cycles == 6);
    CHECK(sum->rule == sdscprov::IdealRule::sum_of_entries);
    CHECK(sum->category == "a");
    for (
        const char* refused :
        {"[]", "{}", "[1]", R"([{"op_category": "a"}])", R"([{"ideal_cycles": 1}])",
         R"([{"op_category": "a", "ideal_cycles": -1}])",
         R"([{"op_category": "a", "ideal_cycles": 1, "ideal_cycles": 1}])",
         R"([{"op_category": "TOTAL", "ideal_cycles": 1}, {"op_category": "TOTAL", "ideal_cycles": 1}])",
         R"([{"op_category": "a", "ideal_cycles": 18446744073709551615}, {"op_category": "b", "ideal_cycles": 1}])"}) {
        CAPTURE(std::string(refused));
        CHECK_FALSE(walk(refused));
    }
}

// The checks are not vacuous: each of them rejects an input that breaks its property.
TEST_CASE("fuzz regressions: the checks catch a violated property") {
    CHECK_THROWS_AS(require(false, "x"), PropertyViolation);
    // A handle the writer cannot write (invalid UTF-8) is allowed only when it really is invalid.
    sdscprov::DebugHandle h = fixed_handle();
    CHECK(strings_valid_utf8(h));
    h.ir_chain.push_back("\xC3");
    CHECK_FALSE(strings_valid_utf8(h));
    // Positions outside the text are caught.
    CHECK_THROWS_AS(require_position("ab\ncd", sdscprov::TextPosition{3, 1}, "p"),
                    PropertyViolation);
    CHECK_NOTHROW(require_position("ab\ncd", sdscprov::TextPosition{2, 3}, "p"));
}

// The spyre checks are not vacuous either: each rejects a result or document that breaks it.
TEST_CASE("fuzz regressions: the spyre checks catch a violated property") {
    using namespace sdscprov;
    const std::string path = "fuzz/spyre_provenance.json";
    const std::string bytes = read_bytes(repo / "testdata" / "spyre" / "spyre_provenance.json");
    const SpyreReadResult good = parse_spyre_provenance(path, bytes);
    REQUIRE(good.doc);
    CHECK_NOTHROW(require_spyre_result(bytes, path, good));
    CHECK_NOTHROW(require_spyre_document(bytes, path, *good.doc));

    // The result: a document with an error, no document without one, a rejection by another
    // code, a problem outside the text or of another file.
    const Problem error =
        make_problem(path, TextPosition{1, 1}, ProblemCode::semantic_validation_failure, "m");
    SpyreReadResult r = good;
    r.problems = {error};
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);
    r.doc.reset();
    CHECK_NOTHROW(require_spyre_result(bytes, path, r));
    r.problems.clear();
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);
    r.problems = {make_problem(path, TextPosition{1, 1}, ProblemCode::bad_origins, "m")};
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);
    r.problems = {error};
    r.problems[0].pos = TextPosition{0, 0};
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);
    r.problems[0].pos = TextPosition{line_count(bytes) + 1, 1};
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);
    r.problems = {error};
    r.problems[0].path = "other.json";
    CHECK_THROWS_AS(require_spyre_result(bytes, path, r), PropertyViolation);

    // The document: a cycle, a dangling constituent, a dangling binding, a handle under
    // another id, an expansion that is not the stored handle, one too large to build.
    const std::string fused = "6228401983647898688"; // fused from two constituents
    SpyreProvenance doc = *good.doc;
    doc.handles.at(fused).fused_ids.push_back(fused);
    CHECK_THROWS_AS(require_fusion_acyclic(doc), PropertyViolation);
    doc = *good.doc;
    doc.handles.at(fused).fused_ids.push_back("12345");
    CHECK_THROWS_AS(require_fusion_acyclic(doc), PropertyViolation);
    doc = *good.doc;
    doc.identities.begin()->second.bindings.push_back(SpyreBinding{{9}, "12345", {1, 1}});
    doc.identities.rbegin()->second.bindings.push_back(SpyreBinding{{9}, "12345", {1, 1}});
    CHECK_THROWS_AS(require_spyre_document(bytes, path, doc), PropertyViolation);
    doc = *good.doc;
    doc.handles.at(fused).handle.id = "1";
    CHECK_THROWS_AS(require_spyre_document(bytes, path, doc), PropertyViolation);
    doc = *good.doc;
    DebugHandle expanded = expand_handle(doc, fused);
    CHECK(require_expansion(doc, fused, expanded) == 3);
    expanded.fused_from.pop_back();
    CHECK_THROWS_AS(require_expansion(doc, fused, expanded), PropertyViolation);
    doc = *good.doc;
    for (int i = 0; i < 40; ++i) { // handle i fused from i-1 and i-2: ~fib(40) handles expanded
        SpyreHandle h;
        h.handle.id = "9" + std::to_string(i);
        if (i >= 2) {
            h.fused_ids = {"9" + std::to_string(i - 1), "9" + std::to_string(i - 2)};
        }
        doc.handles[h.handle.id] = h;
    }
    CHECK_THROWS_AS(require_spyre_document(bytes, path, doc), PropertyViolation);
}
