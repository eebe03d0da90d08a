// Printers: JSON output parses and carries the totals; text and markdown give the same figures.
#include "sdscprov/report/report.hpp"

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
    printer->item(k);
    printer->end({totals, problems});
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

TEST_CASE("report: text has the totals, the coverage column and the kernels needing attention") {
    Totals totals;
    std::vector<Problem> problems;
    std::string text = render(ReportFormat::text, totals, problems);
    CHECK(text.find("4 SDSC files\ndebug_handle_: 1 populated, 1 null, 1 absent, 0 malformed") !=
          std::string::npos);
    // The problems themselves go to standard error (the CLI): the report counts them.
    CHECK(text.find("sdsc_3.json:1:11: error:") == std::string::npos);
    CHECK(text.find("1 error, 0 warnings, 0 notes (on standard error)") != std::string::npos);
    CHECK(text.find("debug_handle_  1/3") != std::string::npos);
    // The kernel by its name, once: its directory is not repeated on the row.
    CHECK(text.find("1 kernel (1 directory) needs attention") != std::string::npos);
    CHECK(text.find("    1      4          1      1       1          0         1  "
                    "sdsc_fused_add_0\n") != std::string::npos);
    CHECK(text.find("abcdefgh") == std::string::npos);
    CHECK(text.find("\x1b[") == std::string::npos); // no colour unless asked
}

namespace {

// A scanned directory of `files` files, `populated` of them with a handle, and `errors` problems.
KernelReport scanned(const std::string& kernel, int n, std::uint64_t files,
                     std::uint64_t populated, std::uint64_t errors = 0) {
    KernelReport k;
    k.dir.kernel = kernel;
    k.dir.path = "cache/inductor-spyre/" + kernel + "_" + std::to_string(10000000 + n);
    k.counts.files = files;
    k.counts.populated = populated;
    k.counts.absent = files - populated;
    k.counts.errors = errors;
    return k;
}

std::string text_of(const std::vector<KernelReport>& kernels, bool all, std::size_t width) {
    PrinterOptions options;
    options.all = all;
    options.width = width;
    std::ostringstream out;
    auto printer = make_printer(ReportFormat::text, out, options);
    Totals t;
    for (const auto& k : kernels) {
        printer->item(k);
        ++t.kernels;
        t.counts.add(k.counts);
    }
    printer->end({t, {}});
    return out.str();
}

} // namespace

TEST_CASE("report: text groups directories by kernel name, worst first, on one screen") {
    std::vector<KernelReport> kernels;
    // 30 kernel names lacking provenance, kernel i with i + 1 directories of 3 files, one of them
    // without a handle; a long name; a kernel with errors; 5 complete kernels.
    for (int i = 0; i < 30; ++i) {
        for (int d = 0; d <= i; ++d) {
            kernels.push_back(scanned("sdsc_fused_k" + std::to_string(i) + "_0", d, 3, 2));
        }
    }
    std::string long_name = "sdsc_fused_" + std::string(300, 'x') + "_0";
    kernels.push_back(scanned(long_name, 0, 100, 0));
    kernels.push_back(scanned("sdsc_fused_broken_0", 0, 1, 1, 1));
    for (int i = 0; i < 5; ++i) {
        kernels.push_back(scanned("sdsc_fused_ok" + std::to_string(i) + "_0", 0, 4, 4));
    }
    std::string text = text_of(kernels, false, 100);
    std::istringstream lines(text);
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);) {
        rows.push_back(line);
        CHECK(line.size() <= 100 + 2); // bytes: the ellipsis is one column, three bytes
    }
    CHECK(rows.size() <= 60);
    CHECK(text.find("32 kernels (467 directories) need attention, the worst first") !=
          std::string::npos);
    // Errors first, then the most files lacking: k29 (30 directories), k28, ...
    auto at = [&](const std::string& s) { return text.find(s); };
    CHECK(at("sdsc_fused_broken_0") < at("sdsc_fused_k29_0"));
    CHECK(at("    1    100          0      0     100") < at("   30     90         60      0      30"));
    CHECK(at("   30     90         60      0      30") < at("sdsc_fused_k28_0"));
    CHECK(at("sdsc_fused_k28_0") < at("sdsc_fused_k27_0"));
    CHECK(at("sdsc_fused_k1_0") == std::string::npos); // past the 20 rows
    CHECK(at("\xE2\x80\xA6 12 more (--all lists every directory)") != std::string::npos);
    CHECK(at("sdsc_fused_k11_0") == std::string::npos);
    CHECK(at("sdsc_fused_k12_0") != std::string::npos);
    CHECK(at("sdsc_fused_ok") == std::string::npos);
    // The long name is shortened in the middle to the width, two thirds of the room its tail's.
    CHECK(at("sdsc_fused_x\xE2\x80\xA6" + std::string(24, 'x') + "_0\n") != std::string::npos);
    CHECK(at(std::string(100, 'x')) == std::string::npos);

    // --all: every directory, one row each, its path last, within the width.
    std::string all = text_of(kernels, true, 140);
    std::size_t n = 0;
    const std::string row = "    3          2      0       1          0          0         0  cache/"
                            "inductor-spyre/sdsc_fused_k";
    for (std::size_t p = all.find(row); p != std::string::npos; p = all.find(row, p + 1)) {
        ++n;
    }
    CHECK(n == 465);
    for (int width : {80, 140}) {
        std::istringstream all_lines(text_of(kernels, true, static_cast<std::size_t>(width)));
        for (std::string line; std::getline(all_lines, line);) {
            CHECK(line.size() <= static_cast<std::size_t>(width) + 2);
        }
    }
    CHECK(all.find("need attention") == std::string::npos);
}

TEST_CASE("report: markdown gives the SuperDSC provenance section, per kernel") {
    Totals totals;
    std::vector<Problem> problems;
    std::string md = render(ReportFormat::markdown, totals, problems);
    CHECK(md.find("## SuperDSC provenance: 4 `sdsc_*.json` files (1 kernel)") == 0);
    CHECK(md.find("### `sdsc_fused_add_0`") != std::string::npos);
    CHECK(md.find("| `debug_handle_` | \xE2\x97\x90 1/3 |") != std::string::npos);
    CHECK(md.find("provenance in JSON: \xE2\x97\x90 1/3") != std::string::npos);
}
