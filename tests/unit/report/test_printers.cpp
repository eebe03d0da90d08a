// The printers of every command behind one interface (report/printer.hpp): check's closing line
// and documents, strip's diffs and summary line, explain's, profile's and the comparison's
// formats.
#include "sdscprov/commands/check.hpp"
#include "sdscprov/report/check_printers.hpp"
#include "sdscprov/report/compare_printers.hpp"
#include "sdscprov/report/explain_printers.hpp"
#include "sdscprov/report/html.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/report/rank_printers.hpp"
#include "sdscprov/report/report.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>
#include <sstream>

using namespace sdscprov;

namespace {

// A kernel directory whose files are `docs` (sdsc_<i>.json), scanned.
KernelReport scanned(const std::string& path, std::optional<std::string> kernel,
                     const std::vector<std::string>& docs) {
    KernelReport k;
    k.dir.path = path;
    k.dir.kernel = std::move(kernel);
    Scanner scanner;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        SdscFile f{path + "/sdsc_" + std::to_string(i) + ".json",
                   SdscName{FileNaming::indexed, static_cast<std::uint64_t>(i), {}}};
        k.dir.files.push_back(f);
        k.files.push_back(scanner.scan_bytes(f, docs[i]));
        k.counts.add(k.files.back());
    }
    return k;
}

const std::string null_handle = R"({"0_add": {"debug_handle_": null}})";
const std::string no_handle = R"({"1_add": {"x": 1}})";

std::vector<KernelReport> check_run() {
    std::vector<KernelReport> run;
    run.push_back(scanned("c/k_a_1", "k_a", {null_handle, no_handle}));
    run.push_back(scanned("c/k_a_2", "k_a", {no_handle}));
    run.push_back(scanned("c/plain_dir", std::nullopt, {null_handle}));
    return run;
}

// Runs check's printer of `format` over check_run(); `summary` gets the closing line.
std::string run_check_printer(ReportFormat format, std::string* summary = nullptr) {
    std::ostringstream out;
    std::ostringstream diagnostics;
    auto printer = make_check_printer(format, out, diagnostics, {});
    CheckTally tally;
    Totals totals;
    for (const auto& k : check_run()) {
        auto checked = checked_kernel(k);
        tally.add(k, checked);
        totals.add(k);
        printer->item({k, checked});
    }
    std::vector<Problem> problems;
    const CheckEnd end{totals, problems, tally};
    printer->end(end);
    printer->summary(end);
    if (summary) {
        *summary = diagnostics.str();
    }
    return out.str();
}

} // namespace

TEST_CASE("printers: check's closing line counts findings, files, kernels and directories") {
    // Findings: the null handle of k_a_1 and plain_dir's (an absent member is one too).
    std::string summary;
    std::string text = run_check_printer(ReportFormat::text, &summary);
    CHECK(summary == "sdscprov check: 4 findings in 4 SDSC files; 2 kernels (3 directories) need "
                     "attention, of 2 kernels (3 directories)\n"
                     "sdscprov check: a populated debug_handle_ in 0.0 % of 4 judged SDSC ops\n");
    CHECK(text.find("c/k_a_1/sdsc_0.json:1:") != std::string::npos);
    CHECK(text.find("[null-handle]") != std::string::npos);
    CHECK(text.find("[missing-handle]") != std::string::npos);
}

TEST_CASE("printers: check's JSON document is written at the end with every kernel's findings") {
    std::string json = run_check_printer(ReportFormat::json);
    simdjson::dom::parser parser;
    auto doc = parser.parse(json);
    REQUIRE(!doc.error());
    CHECK(uint64_t(doc["files"]) == 4);
    CHECK(simdjson::dom::array(doc["findings"]).size() == 4);
    CHECK(std::string_view(doc["findings"].at(0)["rule"]) == "null-handle");
}

TEST_CASE(
    "printers: strip's text gives the diffs as kernels come, then one line of what was done") {
    KernelReport k = scanned("c/k", "k", {null_handle, no_handle});
    k.rewrite.emplace();
    k.rewrite->files.resize(2);
    k.rewrite->files[0].diff = "--- a\n+++ b\n";
    Totals totals;
    totals.counts.files = 6;
    totals.rewrites.stripped = 3;
    totals.rewrites.written = 2;
    totals.rewrites.kept = 2;
    totals.rewrites.failed = 1;
    std::vector<Problem> problems;

    std::ostringstream out;
    std::ostringstream summary;
    PrinterOptions dry;
    dry.dry_run = true;
    auto printer = make_strip_printer(ReportFormat::text, out, summary, dry, false);
    printer->item(k);
    CHECK(out.str() == "--- a\n+++ b\n");
    CHECK(summary.str().empty());
    printer->end({totals, problems});
    CHECK(summary.str() == "would strip: 3 files (set to null); 2 without a populated handle, of "
                           "6 SDSC files; 1 could not be written\n");

    std::ostringstream written;
    auto remove = make_strip_printer(ReportFormat::text, written, written, {}, true);
    totals.rewrites.failed = 0;
    remove->end({totals, problems});
    CHECK(written.str() == "stripped: 2 files (member removed); 2 without a handle, of 6 SDSC "
                           "files\n");
}

TEST_CASE("printers: explain's printers give what its print functions give") {
    std::vector<ExplainKernel> kernels(2);
    kernels[0].dir = "c/k_0";
    kernels[0].kernel = "k";
    kernels[1].dir = "c/k_1";
    ExplainOp op;
    op.file = "c/k_1/sdsc_0.json";
    op.status = FileStatus::ok;
    op.op_key = "0_add";
    op.opfunc = "add";
    op.index = 0;
    kernels[1].ops.push_back(op);
    std::vector<Problem> problems{make_problem("k", {}, ProblemCode::bad_argument, "odd")};
    for (auto format : {ReportFormat::text, ReportFormat::json}) {
        std::ostringstream expected;
        if (format == ReportFormat::text) {
            print_explain_text(expected, kernels, false);
        } else {
            print_explain_json(expected, kernels, problems);
        }
        std::ostringstream out;
        SourceTextOptions source_text;
        auto printer = make_explain_printer(format, out, false, source_text);
        for (const auto& k : kernels) {
            printer->item(k);
        }
        printer->end({problems, {}});
        CHECK(out.str() == expected.str());
    }
}

TEST_CASE("printers: profile's printer gives the report's render in each format") {
    ProfileReport report;
    report.trace = "t.json";
    ProfileBundle bundle; // its folded value differs by --value: 100 ns, 40 of them ideal
    bundle.root_label = "/m.py:1";
    bundle.aten_label = "aten.add.Tensor";
    bundle.kernel_label = "k";
    bundle.time.ns = 100;
    bundle.time.ideal.ideal_ns = 40;
    report.bundles.push_back(bundle);
    ProfilePrinterOptions options;
    options.value = FoldedValue::ideal;
    options.text.top = 3;
    const std::pair<ReportFormat, std::string> formats[] = {
        {ReportFormat::json, render_profile_json(report)},
        {ReportFormat::folded, render_profile_folded(report, FoldedValue::ideal)},
        {ReportFormat::text, render_profile_text(report, options.text)},
    };
    CHECK(formats[1].second != render_profile_folded(report));
    for (const auto& [format, expected] : formats) {
        std::ostringstream out;
        make_profile_printer(format, out, options)->end(report);
        CHECK(out.str() == expected);
    }
}

TEST_CASE("printers: a report of several traces is printed as the ranks' text and page") {
    ProfileReport report;
    report.trace = "rank0.json";
    for (std::int64_t i = 0; i < 2; ++i) {
        ProfileRank rank;
        rank.rank = i;
        rank.trace = "rank" + std::to_string(i) + ".json";
        rank.kernel_ns = 100 + 50 * static_cast<std::uint64_t>(i);
        rank.kernel_events = 1;
        report.ranks.push_back(rank);
    }
    ProfilePrinterOptions options;
    const std::pair<ReportFormat, std::string> formats[] = {
        {ReportFormat::text, render_ranks_text(report, options.text)},
        {ReportFormat::html, render_ranks_html(report)},
        {ReportFormat::json, render_profile_json(report)},
    };
    CHECK(formats[0].second != render_profile_text(report, options.text));
    CHECK(formats[1].second != render_profile_html(report));
    for (const auto& [format, expected] : formats) {
        std::ostringstream out;
        make_profile_printer(format, out, options)->end(report);
        CHECK(out.str() == expected);
    }
}

namespace {

ProfileReport one_row_run(std::string trace, std::uint64_t ns) {
    ProfileReport r;
    r.trace = std::move(trace);
    ProfileRow row;
    row.label = "aten.mm.default";
    row.time.ns = ns;
    row.time.events = 1;
    r.rows(ProfileRanking::aten).push_back(row);
    r.coverage.kernel_ns = ns;
    r.coverage.kernel_events = 1;
    return r;
}

} // namespace

TEST_CASE("printers: the comparison's printer gives each format, the CI ones of the findings") {
    ProfileComparison c =
        compare_profiles(one_row_run("base.json", 100), one_row_run("new.json", 150));
    const auto findings = gate_findings(c, c.rows(ProfileRanking::aten), {10, 0});
    REQUIRE(findings.size() == 1);
    ComparisonPrinterOptions options;
    options.text.rankings = {&ranking_spec(ProfileRanking::aten)};
    options.trace = "new.json";
    const std::pair<ReportFormat, std::string> formats[] = {
        {ReportFormat::text, render_comparison_text(c, options.text)},
        {ReportFormat::json, render_comparison_json(c)},
        {ReportFormat::folded, render_comparison_folded(c)},
        {ReportFormat::html, render_comparison_html(c)},
        {ReportFormat::junit, render_gate_findings(findings, ReportFormat::junit, "new.json")},
        {ReportFormat::github, render_gate_findings(findings, ReportFormat::github, "new.json")},
        {ReportFormat::sarif, render_gate_findings(findings, ReportFormat::sarif, "new.json")},
    };
    CHECK(formats[0].second.find("By ATen op") != std::string::npos);
    CHECK(formats[0].second.find("By model source line") == std::string::npos);
    CHECK(formats[4].second.find("<failure") != std::string::npos);
    CHECK(formats[5].second.rfind("::error file=new.json", 0) == 0);
    CHECK(formats[6].second.find("\"ruleId\": \"fail-over\"") != std::string::npos);
    for (const auto& [format, expected] : formats) {
        std::ostringstream out;
        make_comparison_printer(format, out, options)->end(GatedComparison{c, findings});
        CHECK(out.str() == expected);
    }
}
