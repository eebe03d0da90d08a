// check: which files are findings, under which rule, at which position.
#include "sdscprov/commands/check.hpp"
#include "report/check_documents.hpp"

#include <doctest/doctest.h>
#include <sstream>

using namespace sdscprov;

namespace {

KernelReport kernel_of(const std::vector<std::string>& docs) {
    KernelReport k;
    k.dir.path = "c/sdsc_fused_add_0_abcdefgh";
    Scanner scanner;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        SdscFile f{k.dir.path + "/sdsc_" + std::to_string(i) + ".json",
                   SdscName{FileNaming::indexed, i, {}}};
        k.dir.files.push_back(f);
        k.files.push_back(scanner.scan_bytes(f, docs[i]));
    }
    return k;
}

const std::string populated =
    R"({"debug_handle_": {"id": "1", "source": null, "aten_op": null, "ir_chain": ["a"], "fused_from": [], "transform_history": []}})";

} // namespace

TEST_CASE("check: each handle state, and files that are not SDSC documents") {
    auto k = kernel_of({
        "{\"0_add\": {\"x\": 1}}", "{\"1_add\": {\n  \"x\": 1,\n  \"debug_handle_\": null}}",
        "{\"2_add\": {\"debug_handle_\": \"12\"}}", "{\"3_add\": " + populated + "}",
        "{\"4_add\": ",         // invalid JSON: a problem, not a finding
        "{\"a\": 1, \"b\": 2}", // not an SDSC document: a problem, not a finding
    });
    auto findings = check_kernel(k);
    REQUIRE(findings.size() == 3);
    CHECK(findings[0].rule == CheckRule::missing_handle);
    CHECK(findings[0].path == k.dir.files[0].path);
    CHECK(findings[0].pos.line == 1);
    CHECK(findings[0].pos.col == 2); // the op key
    CHECK(findings[1].rule == CheckRule::null_handle);
    CHECK(findings[1].pos.line == 3); // the handle's key
    CHECK(findings[1].pos.col == 3);
    CHECK(findings[2].rule == CheckRule::malformed_handle);
    CHECK(to_string(findings[2].rule) == "malformed-handle");
}

TEST_CASE("check: with an annotation, a handle other than the map's is stale") {
    auto k = kernel_of({"{\"0_add\": " + populated + "}", "{\"1_add\": " + populated + "}"});
    KernelRewrite a;
    a.join.emplace().match = KernelMatch::matched;
    a.files.resize(2);
    a.files[0].action = FileAction::keep;
    a.files[1].action = FileAction::differs;
    k.rewrite = std::move(a);
    auto findings = check_kernel(k);
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].rule == CheckRule::stale_handle);
    CHECK(findings[0].path == k.dir.files[1].path);
    CHECK(findings[0].message.find("id 1") != std::string::npos);
}

TEST_CASE("check: the JSON form") {
    std::ostringstream out;
    write_check_json(out,
                     {{"a/sdsc_0.json", {2, 3}, CheckRule::null_handle, "m"},
                      {"a/sdsc_1.json", {}, CheckRule::missing_handle, "n"}},
                     {}, 7);
    std::string s = out.str();
    CHECK(s.find("\"files\": 7") != std::string::npos);
    CHECK(s.find("\"rule\": \"null-handle\"") != std::string::npos);
    CHECK(s.find("\"line\": 2") != std::string::npos);
    CHECK(s.find("\"line\": null") != std::string::npos);
}

TEST_CASE("check: CI formats escape what their syntax reserves") {
    CheckResult r;
    CheckedKernel k;
    k.dir = "c/k <&> dir";
    k.files = 1;
    k.findings.push_back(
        {"c/a,b:c %1 <&>.json", {3, 4}, CheckRule::missing_handle, "line one\nline two 100%"});
    r.kernels.push_back(k);

    std::ostringstream github;
    write_check_github(github, r);
    CHECK(github.str() == "::error file=c/a%2Cb%3Ac %251 <&>.json,line=3,col=4,title=sdscprov "
                          "missing-handle::line one%0Aline two 100%25\n");

    std::ostringstream sarif;
    write_check_sarif(sarif, r);
    CHECK(sarif.str().find("\"uri\": \"c/a%2Cb%3Ac%20%251%20%3C%26%3E.json\"") !=
          std::string::npos);
    CHECK(sarif.str().find("\"startLine\": 3") != std::string::npos);

    std::ostringstream junit;
    write_check_junit(junit, r);
    CHECK(junit.str().find("name=\"c/k &lt;&amp;&gt; dir\"") != std::string::npos);
    CHECK(junit.str().find("tests=\"1\" failures=\"1\" errors=\"0\"") != std::string::npos);

    // A problem outside any kernel directory (a missing argument) gets a test case of its own.
    r.problems.push_back({"missing/", {}, Severity::error, ProblemCode::bad_argument, "gone"});
    std::ostringstream with_problem;
    write_check_junit(with_problem, r);
    CHECK(with_problem.str().find("name=\"(inputs)\"") != std::string::npos);
    CHECK(with_problem.str().find("tests=\"2\" failures=\"1\" errors=\"1\"") != std::string::npos);

    std::ostringstream summary;
    write_check_markdown_summary(summary, r, 0);
    CHECK(summary.str().find("1 finding in 1 SDSC file, 1 problem.") != std::string::npos);
    CHECK(summary.str().find("- ... and 1 more") != std::string::npos);
}
