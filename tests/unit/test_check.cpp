// check: which files are findings, under which rule, at which position.
#include "sdscprov/check.hpp"

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
    KernelAnnotation a;
    a.files.resize(2);
    a.files[0].action = FileAction::keep;
    a.files[1].action = FileAction::differs;
    k.annotation = a;
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
