// The text report and the page of several traces (report/rank_printers.hpp): the slowest rank's
// gap in time and a spread with the digits it takes to differ from 1, the row of the largest
// spread named in the header, and --by spread ordering the rows by max / min. Two ranks of the
// testdata sidecar's bundles "relu" (lines 11, 12, 13) and "tail" (line 13): relu 4.4 ms slower
// in a second on rank 1 (1.0044x), tail 1.74x on rank 1 but of 0.174 ms.
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/rank_printers.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include "text_lines.hpp"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

const std::string relu = "spyre_kernel_v1_fused_addmm_linear_relu_mlpfcreluaaaaaa2";
const std::string tail = "spyre_kernel_v1_fused_addmm_mlpfcaddbbbbbbb3";

ProfileReport rank_report(const PairingSources& s, int rank, const std::string& relu_us,
                          const std::string& tail_us) {
    std::string text = "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
                       "}, \"traceEvents\": [\n{\"ph\": \"X\", \"name\": \"" + relu +
                       "\", \"dur\": " + relu_us + "},\n{\"ph\": \"X\", \"name\": \"" + tail +
                       "\", \"dur\": " + tail_us + "}\n]}\n";
    TraceReader reader;
    ProfileBuilder builder(s, "rank" + std::to_string(rank) + ".json", reader);
    auto read = reader.read_bytes(text, builder);
    REQUIRE_FALSE(read.error);
    ProfileReport r = builder.finish(read);
    r.sources_digest = pairing_digest(s);
    return r;
}

ProfileReport two_ranks() {
    PairingSources s;
    auto read =
        read_spyre_provenance(std::string(SDSCPROV_TESTDATA) + "/spyre/spyre_provenance.json");
    REQUIRE(read.doc);
    s.sidecars.push_back(std::move(*read.doc));
    std::optional<Problem> refusal;
    auto merged = merge_profiles(
        {rank_report(s, 0, "1000000", "100"), rank_report(s, 1, "1004400", "174")}, refusal);
    REQUIRE(merged);
    return std::move(*merged);
}

// The first row under the title `title` (the title, its note, the head, then the rows).
std::string first_row(const std::vector<std::string>& lines, const std::string& title) {
    for (std::size_t i = 0; i + 3 < lines.size(); ++i) {
        if (lines[i] == title) {
            return lines[i + 3];
        }
    }
    FAIL("no table " << title);
    return {};
}

} // namespace

TEST_CASE("ranks: the slowest rank's gap in time, its spread with the digits to differ from 1") {
    auto report = two_ranks();
    ProfileTextOptions o;
    o.width = 200;
    auto lines = lines_of(render_ranks_text(report, o));
    REQUIRE(lines.size() > 2);
    CHECK(lines[1] == "slowest: rank 1 (rank1.json), 1,004.574 ms of device time, 4.474 ms more "
                      "than the fastest (rank 0, 1,000.100 ms): 1.004x its time");
    // The kernel of the largest spread is the small one, not the one of the largest lead.
    bool said = false;
    for (const auto& line : lines) {
        if (line.rfind("largest spread by kernel: ", 0) == 0) {
            CHECK(line ==
                  "largest spread by kernel: 1.74x, rank 1 0.174 ms, rank 0 0.100 ms: " +
                      report.bundles[report.rows(ProfileRanking::kernel)[1].bundles[0]].label);
            said = true;
        }
    }
    CHECK(said);
    // Rows by lead: relu first (4.4 ms); its spread in the column with the digits to differ.
    std::string by_lead = first_row(lines, "Kernels by the slowest rank's lead (max - min)");
    CHECK(by_lead.find(" 1.004x ") != std::string::npos);
    CHECK(by_lead.find("mlpfcreluaaaaaa2") != std::string::npos);
}

TEST_CASE("ranks: --by spread orders the rows by the slowest rank's time over the fastest's") {
    auto report = two_ranks();
    ProfileTextOptions o;
    o.width = 200;
    o.order = ProfileOrder::spread;
    auto lines = lines_of(render_ranks_text(report, o));
    std::string first = first_row(lines, "Kernels by spread (max / min)");
    CHECK(first.find(" 1.74x ") != std::string::npos);
    CHECK(first.find("mlpfcaddbbbbbbb3") != std::string::npos);
    RankingChoice by;
    std::string unknown;
    REQUIRE(choose_by({"kernel", "spread"}, builtin_rankings(), by, unknown));
    CHECK(by.order == ProfileOrder::spread);
}

TEST_CASE("ranks: the page names the slowest rank's gap, the largest spreads and each rank") {
    auto report = two_ranks();
    std::string page = render_ranks_html(report);
    CHECK(page.find("4.474 ms more than the fastest (rank 0, 1,000.100 ms): 1.004x its time") !=
          std::string::npos);
    CHECK(page.find("largest spread by kernel") != std::string::npos);
    CHECK(page.find("\"ranks\":[0,1]") != std::string::npos);
    CHECK(page.find("\"rank_ns\":[[") != std::string::npos);
}
