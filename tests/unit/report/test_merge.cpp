// merge: the shards' JSON reports give back the single run's bytes (scan's report and check's
// document); reports that do not belong together are refused with a reason.
#include "sdscprov/commands/check.hpp"
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/core/display.hpp"
#include "report/check_documents.hpp"
#include "sdscprov/report/merge.hpp"
#include "sdscprov/report/report.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sstream>

using namespace sdscprov;

namespace {

// 40 kernel directories in two layouts, a few truncated files and an index mismatch (problems).
struct Tree : test::TempDir {
    Tree() : test::TempDir("sdscprov-merge") {
        for (int k = 0; k < 40; ++k) {
            std::string dir = (k % 3 ? "inductor-spyre/sdsc_fused_k" : "a/b/sdsc_fused_k") +
                              std::to_string(k) + "_0_abcdefgh/";
            for (int i = 0; i <= k % 4; ++i) {
                std::string doc =
                    k % 9 == 0 && i == 1 ? std::string("{\"1_add\": {\"x\": [")
                    : k % 11 == 0        ? "{\"5_add\": {\"debug_handle_\": null}}"
                    : i % 2              ? "{\"" + std::to_string(i) + "_mul\": {\"x\": 1}}"
                                         : "{\"" + std::to_string(i) +
                                  "_add\": {\"debug_handle_\": null, \"stack_trace\": \"s\"}}";
                file(dir + "sdsc_" + std::to_string(i) + ".json", doc);
            }
        }
    }
    std::vector<std::string> roots() const {
        return {(root / "no-such-dir").string(), root.string(), (root / "gone").string()};
    }
};

// What a command prints: scan's JSON report, or check's JSON document. `run_problem`: a problem
// of the run itself, listed first (as annotate lists its origins maps' warnings).
std::string print(const std::vector<std::string>& roots, std::optional<Shard> shard,
                  bool check = false, const std::optional<Problem>& run_problem = std::nullopt) {
    PipelineOptions options;
    options.jobs = 2;
    options.shard = shard;
    std::ostringstream out;
    auto printer = make_printer(ReportFormat::json, out, {});
    CheckResult checked;
    auto result =
        run_pipeline(discover_source(roots, {}), options, scan_kernel, [&](const KernelReport& k) {
            if (check) {
                checked.kernels.push_back(checked_kernel(k));
            } else {
                printer->item(k);
            }
        });
    if (run_problem) {
        result.problems.insert(result.problems.begin(), *run_problem);
    }
    if (!check) {
        printer->end({result.totals, result.problems});
        return out.str();
    }
    checked.problems = result.problems;
    if (shard) {
        write_check_json(out, checked, *result.totals.shard);
    } else {
        std::vector<Finding> all;
        for (const auto& k : checked.kernels) {
            all.insert(all.end(), k.findings.begin(), k.findings.end());
        }
        write_check_json(out, all, checked.problems, checked.files());
    }
    return out.str();
}

std::vector<ShardReport> shards(const std::vector<std::string>& roots, std::uint32_t n,
                                bool check = false,
                                const std::optional<Problem>& run_problem = std::nullopt) {
    std::vector<ShardReport> reports;
    for (std::uint32_t i = 1; i <= n; ++i) {
        reports.push_back({"shard-" + std::to_string(i) + ".json",
                           print(roots, Shard{i, n}, check, run_problem)});
    }
    return reports;
}

std::string refusal(const std::vector<ShardReport>& reports) {
    auto merged = merge_reports(reports);
    CHECK(merged.report.empty());
    REQUIRE(merged.problem);
    CHECK(merged.problem->code == ProblemCode::merge_refused);
    return merged.problem->message;
}

// Edits a report's JSON with `edit`, written back as the printers write it.
template <class Edit> std::string edited(const std::string& json, Edit edit) {
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    REQUIRE_FALSE(doc.HasParseError());
    edit(doc);
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    doc.Accept(w);
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

} // namespace

TEST_CASE("merge: the shards of a scan give the single run's bytes, whatever their order") {
    Tree t;
    std::string single = print(t.roots(), std::nullopt);
    REQUIRE(single.find("parse-error") != std::string::npos);
    REQUIRE(single.find("bad-argument") != std::string::npos);
    REQUIRE(single.find("index-mismatch") != std::string::npos);
    for (std::uint32_t n : {1U, 2U, 3U, 7U}) {
        CAPTURE(n);
        auto reports = shards(t.roots(), n);
        for (const auto& r : reports) {
            CHECK(r.json != single);
            CHECK(r.json.find("\"shard\": {") != std::string::npos);
        }
        std::reverse(reports.begin(), reports.end());
        auto merged = merge_reports(reports);
        CHECK_FALSE(merged.problem);
        CHECK(merged.report == single);
    }
}

TEST_CASE("merge: the run's own problems are listed once, first") {
    Tree t;
    Problem map_warning =
        make_problem("origins.json", {3, 5}, ProblemCode::bad_origins, "unknown node 'n9'");
    map_warning.severity = Severity::warning;
    std::string single = print(t.roots(), std::nullopt, false, map_warning);
    auto merged = merge_reports(shards(t.roots(), 3, false, map_warning));
    CHECK_FALSE(merged.problem);
    CHECK(merged.report == single);

    // Shards run with different maps differ there: refused.
    auto reports = shards(t.roots(), 3, false, map_warning);
    reports[1].json = print(t.roots(), Shard{2, 3});
    CHECK(refusal(reports).find("differ in the run's own problems") != std::string::npos);
}

TEST_CASE("merge: check's JSON documents too") {
    Tree t;
    std::string single = print(t.roots(), std::nullopt, true);
    REQUIRE(single.find("\"missing-handle\"") != std::string::npos);
    for (std::uint32_t n : {1U, 3U, 5U}) {
        CAPTURE(n);
        auto reports = shards(t.roots(), n, true);
        std::rotate(reports.begin(), reports.begin() + 1, reports.end());
        auto merged = merge_reports(reports);
        CHECK_FALSE(merged.problem);
        CHECK(merged.report == single);
    }
}

TEST_CASE("merge: reports that do not belong together are refused") {
    Tree t;
    auto scan = shards(t.roots(), 3);
    auto check = shards(t.roots(), 3, true);

    CHECK(refusal({}) == "no report to merge");
    CHECK(refusal({{"x.json", "{\"sdscprov_report\": 1,"}}).find("x.json: not JSON") == 0);
    CHECK(refusal({{"x.json", "[1, 2]"}}).find("x.json: not an sdscprov JSON report") == 0);
    CHECK(refusal({{"x.json", "{\"kernels\": []}"}}).find("not an sdscprov JSON report") !=
          std::string::npos);
    CHECK(refusal({scan[0], {"single.json", print(t.roots(), std::nullopt)}, scan[2]})
              .find("single.json: made without --shard") == 0);
    CHECK(refusal({scan[0], check[1], scan[2]}).find("different commands") != std::string::npos);

    auto v2 = [](rapidjson::Document& d) { d["sdscprov_report"].SetInt(2); };
    CHECK(refusal({scan[0], {"v2.json", edited(scan[1].json, v2)}, scan[2]})
              .find("different schema versions") != std::string::npos);
    std::vector<ShardReport> all_v2;
    for (const auto& r : scan) {
        all_v2.push_back({r.source, edited(r.json, v2)});
    }
    CHECK(refusal(all_v2).find("version 2 is not one this sdscprov merges") != std::string::npos);
    auto other_tool = [](rapidjson::Document& d) { d["tool"]["version"].SetString("9.9.9"); };
    CHECK(refusal({scan[0], {"new.json", edited(scan[1].json, other_tool)}, scan[2]})
              .find("differ in 'tool'") != std::string::npos);

    CHECK(refusal({scan[0], scan[1]}).find("missing shard(s) 3/3") != std::string::npos);
    CHECK(refusal({scan[0], scan[1], scan[2], scan[1]}).find("overlapping shards") !=
          std::string::npos);
    auto halves = shards(t.roots(), 2);
    CHECK(refusal({scan[0], halves[1], scan[2]}).find("different shardings") != std::string::npos);
}

TEST_CASE("merge: kernel directories in the wrong shard, in two shards or cut out are refused") {
    Tree t;
    auto scan = shards(t.roots(), 3);
    rapidjson::Document donor;
    donor.Parse(scan[0].json.data(), scan[0].json.size());
    REQUIRE(donor["kernels"].Size() > 0);

    // Shard 1's first kernel directory, also listed in shard 2's report.
    auto add_foreign = [&](rapidjson::Document& d) {
        rapidjson::Value copy(donor["kernels"][0], d.GetAllocator());
        d["kernels"].PushBack(copy, d.GetAllocator());
    };
    const std::string foreign = donor["kernels"][0]["dir"].GetString();
    CHECK(refusal({scan[0], {"two.json", edited(scan[1].json, add_foreign)}, scan[2]}) ==
          "two.json: kernel directory " + quote_path(foreign) + " belongs to shard 1/3, not 2/3");

    // One kernel directory left out (and counted out) of shard 2's report.
    auto cut = [](rapidjson::Document& d) {
        REQUIRE(d["kernels"].Size() > 0);
        d["kernels"].PopBack();
        d["shard"]["kernels"].SetUint64(d["shard"]["kernels"].GetUint64() - 1);
    };
    CHECK(refusal({scan[0], {"cut.json", edited(scan[1].json, cut)}, scan[2]})
              .find("were the reports cut or edited?") != std::string::npos);

    // A kernel directory's position moved onto another shard's (one without problems: theirs
    // would no longer point at a kernel directory of the report, another refusal).
    rapidjson::Document third;
    third.Parse(scan[2].json.data(), scan[2].json.size());
    REQUIRE(third["kernels"].Size() > 0);
    auto taken = third["kernels"][0]["position"].GetUint64();
    rapidjson::SizeType clean = 0;
    for (; clean < donor["kernels"].Size(); ++clean) {
        const auto& counts = donor["kernels"][clean]["counts"];
        if (counts["errors"].GetUint64() + counts["warnings"].GetUint64() == 0) {
            break;
        }
    }
    REQUIRE(clean < donor["kernels"].Size());
    auto collide = [&](rapidjson::Document& d) {
        d["kernels"][clean]["position"].SetUint64(taken);
    };
    std::string why = refusal({{"moved.json", edited(scan[0].json, collide)}, scan[1], scan[2]});
    CHECK_MESSAGE(why.find("overlapping shards: moved.json and shard-3.json both hold position " +
                           std::to_string(taken)) == 0,
                  why);

    // A shard of another tree: a different walk.
    t.file("zz/sdsc_fused_new_0_abcdefgh/sdsc_0.json", "{\"0_add\": {}}");
    auto other = shards(t.roots(), 3);
    CHECK(refusal({scan[0], other[1], scan[2]}).find("saw different walks") != std::string::npos);
}
