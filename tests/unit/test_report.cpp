// Printers: JSON output parses and carries the totals; text and markdown say what the audit says.
#include "sdscprov/report.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>
#include <sstream>

using namespace sdscprov;

namespace {

KernelReport demo_kernel() {
    KernelReport k;
    k.dir.path = "cache/inductor-spyre/sdsc_fused_add_0_abcdefgh";
    k.dir.kernel = "sdsc_fused_add_0";
    Scanner scanner;
    const char* docs[] = {
        R"({"0_add": {"debug_handle_": null}})",
        R"({"1_add": {"x": 1}})",
        R"({"2_add": {"debug_handle_": {"id": "1", "source": null, "aten_op": null, "ir_chain": ["a"], "fused_from": [], "transform_history": []}}})",
        R"({"3_add": )",
    };
    int i = 0;
    for (const char* doc : docs) {
        SdscFile f{k.dir.path + "/sdsc_" + std::to_string(i) + ".json",
                   SdscName{FileNaming::indexed, static_cast<std::uint64_t>(i), {}}};
        k.dir.files.push_back(f);
        k.files.push_back(scanner.scan_bytes(f, doc));
        k.counts.add(k.files.back());
        ++i;
    }
    return k;
}

std::string render(ReportFormat format, Totals& totals, std::vector<Problem>& problems) {
    KernelReport k = demo_kernel();
    totals.kernels = 1;
    totals.counts = k.counts;
    for (const auto& f : k.files) {
        problems.insert(problems.end(), f.problems.begin(), f.problems.end());
    }
    std::ostringstream out;
    auto printer = make_printer(format, out, {});
    printer->kernel(k);
    printer->finish(totals, problems);
    return out.str();
}

} // namespace

TEST_CASE("report: coverage marks") {
    CHECK(coverage(0, 5) == Coverage::none);
    CHECK(coverage(5, 5) == Coverage::all);
    CHECK(coverage(2, 5) == Coverage::some);
    CHECK(coverage(0, 0) == Coverage::none);
}

TEST_CASE("report: JSON parses and carries totals, files and problems") {
    Totals totals;
    std::vector<Problem> problems;
    std::string json = render(ReportFormat::json, totals, problems);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    CHECK(int64_t(doc["sdscprov_report"]) == 1);
    CHECK(uint64_t(doc["totals"]["kernels"]) == 1);
    CHECK(uint64_t(doc["totals"]["files"]) == 4);
    CHECK(uint64_t(doc["totals"]["handles_populated"]) == 1);
    CHECK(uint64_t(doc["totals"]["handles_null"]) == 1);
    CHECK(uint64_t(doc["totals"]["handles_absent"]) == 1);
    CHECK(uint64_t(doc["totals"]["handles_malformed"]) == 0);
    CHECK(uint64_t(doc["totals"]["invalid_json"]) == 1);
    auto files = doc["kernels"].at(0)["files"];
    CHECK(std::string_view(files.at(0)["handle"]) == "null");
    CHECK(std::string_view(files.at(2)["handle"]) == "populated");
    CHECK(std::string_view(files.at(2)["debug_handle"]["ir_chain"].at(0)) == "a");
    CHECK(files.at(3)["handle"].is_null());
    auto problem = doc["problems"].at(0);
    CHECK(std::string_view(problem["code"]) == "parse-error");
    CHECK(uint64_t(problem["line"]) == 1);
    CHECK(std::string_view(doc["superdsc_json"]["members"]["debug_handle_"]["coverage"]) == "some");
}

TEST_CASE("report: text has one row per kernel, the totals and the audit column") {
    Totals totals;
    std::vector<Problem> problems;
    std::string text = render(ReportFormat::text, totals, problems);
    CHECK(text.find("sdsc_fused_add_0  cache/inductor-spyre/sdsc_fused_add_0_abcdefgh") !=
          std::string::npos);
    CHECK(text.find("4 SDSC files: 1 populated, 1 null, 1 absent, 0 malformed") !=
          std::string::npos);
    // The problems themselves go to standard error (the CLI): the report counts them.
    CHECK(text.find("sdsc_3.json:1:11: error:") == std::string::npos);
    CHECK(text.find("1 error, 0 warnings, 0 notes (on standard error)") != std::string::npos);
    CHECK(text.find("debug_handle_  1/3") != std::string::npos);
    CHECK(text.find("\x1b[") == std::string::npos); // no colour unless asked
}

TEST_CASE("report: markdown follows the audit's Stage 6 section") {
    Totals totals;
    std::vector<Problem> problems;
    std::string md = render(ReportFormat::markdown, totals, problems);
    CHECK(md.find("## Stage 6 \xE2\x80\x94 SuperDSC: 4 `sdsc_*.json` files (1 kernel)") == 0);
    CHECK(md.find("### `sdsc_fused_add_0`") != std::string::npos);
    CHECK(md.find("| `debug_handle_` | \xE2\x97\x90 1/3 |") != std::string::npos);
    CHECK(md.find("provenance in JSON: \xE2\x97\x90 1/3") != std::string::npos);
}
