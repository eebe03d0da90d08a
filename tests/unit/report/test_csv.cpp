// CSV's fields and records (report/csv_printers.hpp, docs/report-csv.md): what is quoted, what is
// kept byte for byte, how numbers and missing values are written; and scan's printer.
#include "sdscprov/report/csv_printers.hpp"

#include <doctest/doctest.h>
#include <sstream>

using namespace sdscprov;

namespace {

// The label column of a one-row ranking whose row has `label`.
std::string label_cell(const std::string& label) {
    ProfileReport report;
    ProfileRow row;
    row.label = label;
    row.time.ns = 5;
    row.time.events = 1;
    report.coverage.kernel_ns = 10;
    for (auto& ranking : report.rankings) {
        if (ranking.spec->word == "aten") {
            ranking.rows = {row};
        }
    }
    std::string csv = render_ranking_csv(report, ranking_spec(ProfileRanking::aten));
    csv = csv.substr(csv.find('\n') + 1);
    // The label cell, then the same again as the aten_op cell: the first half of "L,L,5,..."
    const auto tail = csv.rfind(",5,0.5,1,");
    REQUIRE(tail != std::string::npos);
    const std::string both = csv.substr(0, tail);
    REQUIRE(both.size() % 2 == 1);
    CHECK(both[both.size() / 2] == ',');
    CHECK(both.substr(0, both.size() / 2) == both.substr(both.size() / 2 + 1));
    return both.substr(0, both.size() / 2);
}

} // namespace

TEST_CASE("csv: a field is quoted only when it must be, its bytes kept") {
    struct Case {
        std::string label;
        std::string cell;
    };
    const Case cases[] = {
        {"aten.mm.default", "aten.mm.default"},
        {"a,b", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"cr\rhere", "\"cr\rhere\""},
        {" spaced", "\" spaced\""},
        {"tab\t", "\"tab\t\""},
        {"ctl\x01\x1b[31m", "ctl\x01\x1b[31m"},           // kept as it is, unquoted
        {"bidi\xE2\x80\xAE" "evil", "bidi\xE2\x80\xAE" "evil"}, // U+202E kept
        {"=HYPERLINK(\"x\")", "\"=HYPERLINK(\"\"x\"\")\""}, // never prefixed
        {"@SUM(A1)", "@SUM(A1)"},
        {"-2", "-2"},
        {"", "\"\""}, // empty, told from a missing value
    };
    for (const auto& c : cases) {
        const std::string label = c.label;
        CAPTURE(label);
        CHECK(label_cell(c.label) == c.cell);
    }
}

TEST_CASE("csv: scan's printer writes the header and one record per kernel") {
    std::ostringstream out;
    auto printer = make_csv_printer(out);
    KernelReport k;
    k.dir.path = "/c/inductor-spyre/a,b";
    k.dir.kernel = "sdsc_fused_add_0";
    k.dir.has_bundle = true;
    k.counts.files = 3;
    k.counts.populated = 2;
    k.counts.null = 1;
    k.counts.provenance[static_cast<std::size_t>(ProvenanceMember::debug_handle)] = 2;
    printer->item(k);
    KernelReport bare;
    bare.dir.path = "/c/x";
    printer->item(bare);
    Totals totals;
    const std::vector<Problem> none;
    printer->end({totals, none});
    const std::string csv = out.str();
    CHECK(csv.starts_with("dir,kernel,bundle,files,populated,null,absent,malformed,"
                          "compiler_generated,not_sdsc,invalid_json,unreadable,errors,warnings,"
                          "provenance.stack_trace,"));
    CHECK(csv.find("\n\"/c/inductor-spyre/a,b\",sdsc_fused_add_0,true,3,2,1,0,0,0,0,0,0,0,0,"
                   "0,0,0,0,0,0,0,2\n") != std::string::npos);
    CHECK(csv.ends_with("\n/c/x,,false,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"));
}
