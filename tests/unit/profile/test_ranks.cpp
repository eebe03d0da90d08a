// Several traces in one report (profile/ranks.hpp): distributedInfo.rank read from the trace,
// reports added up by rank from small traces whose sums are spelled out here, the refusals, and
// the JSON read back (report/profile_merge.hpp) into the same bytes.
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/profile_merge.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

// The testdata sidecar's bundles "relu" (lines 11, 12, 13) and "tail" (line 13).
const std::string relu = "spyre_kernel_v1_fused_addmm_linear_relu_mlpfcreluaaaaaa2";
const std::string tail = "spyre_kernel_v1_fused_addmm_mlpfcaddbbbbbbb3";

PairingSources sources() {
    PairingSources s;
    auto read =
        read_spyre_provenance(std::string(SDSCPROV_TESTDATA) + "/spyre/spyre_provenance.json");
    REQUIRE(read.doc);
    s.sidecars.push_back(std::move(*read.doc));
    return s;
}

std::string kernel(const std::string& name, const std::string& dur) {
    return "{\"ph\": \"X\", \"name\": \"" + name + "\", \"dur\": " + dur + "}";
}

// The report of one trace `path` holding `events`; `before` is put ahead of traceEvents.
ProfileReport profile(const PairingSources& s, const std::string& path, const std::string& events,
                      const std::string& before = "") {
    std::string text = "{" + before + "\"traceEvents\": [\n" + events + "\n]}\n";
    TraceReader reader;
    ProfileBuilder builder(s, path, reader);
    auto read = reader.read_bytes(text, builder);
    REQUIRE_FALSE(read.error);
    ProfileReport r = builder.finish(read);
    r.sources_digest = pairing_digest(s);
    return r;
}

std::string rank(int n) {
    return "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(n) + "},\n";
}

const ProfileRow& line_row(const ProfileReport& r, std::int64_t line) {
    for (const auto& row : r.rows(ProfileRanking::line)) {
        if (row.line && row.line->line == line) {
            return row;
        }
    }
    FAIL("no row of line " << line);
    return r.rows(ProfileRanking::line).front();
}

const ProfileRow& kernel_row(const ProfileReport& r, const std::string& key) {
    for (const auto& row : r.rows(ProfileRanking::kernel)) {
        if (r.bundles[row.bundles.at(0)].key == key) {
            return row;
        }
    }
    FAIL("no kernel row of " << key);
    return r.rows(ProfileRanking::kernel).front();
}

using Ns = std::vector<std::uint64_t>;

} // namespace

TEST_CASE("the trace reader gives distributedInfo.rank, when it is an integer") {
    auto s = sources();
    CHECK(profile(s, "a", kernel(relu, "1"), rank(3)).distributed_rank == 3);
    std::string after = "{\"traceEvents\": [" + kernel(relu, "1") +
                        "], \"distributedInfo\": {\"rank\": 7, \"world_size\": 8}}";
    TraceReader reader;
    ProfileBuilder builder(s, "b", reader);
    CHECK(reader.read_bytes(after, builder).stats.distributed_rank == 7);
    CHECK_FALSE(profile(s, "c", kernel(relu, "1")).distributed_rank);
    CHECK_FALSE(profile(s, "d", kernel(relu, "1"), "\"distributedInfo\": {\"rank\": \"1\"},")
                    .distributed_rank);
    CHECK_FALSE(profile(s, "e", kernel(relu, "1"), "\"distributedInfo\": [1],").distributed_rank);
}

TEST_CASE("reports of several traces add up by rank, ordered by distributedInfo.rank") {
    auto s = sources();
    // Rank 1 given first: relu 10 us. Rank 0: relu 4 us and tail 3 us.
    auto one = profile(s, "one.json", kernel(relu + "#1", "10"), rank(1));
    auto zero =
        profile(s, "zero.json", kernel(relu + "#1", "4") + ",\n" + kernel(tail, "3"), rank(0));
    std::optional<Problem> refusal;
    auto merged = merge_profiles({one, zero}, refusal);
    REQUIRE(merged);
    CHECK_FALSE(refusal);
    REQUIRE(merged->ranks.size() == 2);
    CHECK_FALSE(merged->ranks_by_argument);
    CHECK(merged->ranks[0].trace == "zero.json");
    CHECK(merged->ranks[0].rank == 0);
    CHECK(merged->ranks[1].trace == "one.json");
    CHECK(merged->ranks[1].kernel_ns == 10000);
    CHECK(merged->coverage.kernel_ns == 17000);
    CHECK(merged->coverage.kernel_events == 3);
    // Line 13 is relu's and tail's; line 11 relu's only.
    CHECK(line_row(*merged, 13).rank_ns == Ns{7000, 10000});
    CHECK(line_row(*merged, 13).time.ns == 17000);
    CHECK(line_row(*merged, 11).rank_ns == Ns{4000, 10000});
    CHECK(kernel_row(*merged, "mlpfcreluaaaaaa2").rank_ns == Ns{4000, 10000});
    CHECK(kernel_row(*merged, "mlpfcaddbbbbbbb3").rank_ns == Ns{3000, 0});
    CHECK(merged->bundles.size() == 2);
    CHECK(merged->bundles[0].time.events == 2);

    auto spread = rank_spread(line_row(*merged, 11).rank_ns);
    CHECK(spread.slowest == 1);
    CHECK(spread.fastest == 0);
    CHECK(spread.lead_ns() == 6000);
    REQUIRE(spread.ratio);
    CHECK(*spread.ratio == doctest::Approx(2.5));
    CHECK_FALSE(rank_spread(kernel_row(*merged, "mlpfcaddbbbbbbb3").rank_ns).ratio);
}

TEST_CASE("without a distinct distributedInfo.rank each, ranks follow the order given") {
    auto s = sources();
    auto a = profile(s, "a.json", kernel(relu, "2"), rank(4));
    auto b = profile(s, "b.json", kernel(relu, "5"));
    auto c = profile(s, "c.json", kernel(relu, "1"), rank(4));
    std::optional<Problem> refusal;
    for (const auto& reports : {std::vector<ProfileReport>{b, a}, {c, a}}) {
        auto merged = merge_profiles(reports, refusal);
        REQUIRE(merged);
        CHECK(merged->ranks_by_argument);
        CHECK(merged->ranks[0].trace == reports[0].trace);
        CHECK(merged->ranks[0].rank == 0);
        CHECK(merged->ranks[1].rank == 1);
        CHECK(line_row(*merged, 11).rank_ns ==
              Ns{reports[0].coverage.kernel_ns, reports[1].coverage.kernel_ns});
    }
}

TEST_CASE("reports of other sources or clocks are refused, one report is its own merge") {
    auto s = sources();
    auto a = profile(s, "a.json", kernel(relu, "2"), rank(0));
    auto b = profile(s, "b.json", kernel(relu, "5"), rank(1));
    std::optional<Problem> refusal;
    auto other = b;
    other.sources_digest = pairing_digest(PairingSources{});
    CHECK(other.sources_digest != a.sources_digest);
    CHECK_FALSE(merge_profiles({a, other}, refusal));
    REQUIRE(refusal);
    CHECK(refusal->code == ProblemCode::merge_refused);
    CHECK(refusal->message.find("were paired with other caches or sidecars") != std::string::npos);
    refusal.reset();
    other = b;
    other.ideal.core_mhz = 1000;
    CHECK_FALSE(merge_profiles({a, other}, refusal));
    REQUIRE(refusal);
    CHECK(refusal->message.find("other core clocks (1100 and 1000 MHz)") != std::string::npos);
    auto alone = merge_profiles({a}, refusal);
    REQUIRE(alone);
    CHECK(render_profile_json(*alone) == render_profile_json(a));
}

TEST_CASE("a profile report read back prints the same bytes, and merges as the reports did") {
    auto s = sources();
    auto a = profile(s, "a.json", kernel(relu + "#1", "10") + ",\n" + kernel(tail, "3"), rank(1));
    auto b = profile(s, "b.json", kernel(relu + "#2", "4"), rank(0));
    std::optional<Problem> refusal;
    auto merged = merge_profiles({a, b}, refusal);
    std::string error;
    REQUIRE(merged);
    for (const auto* r : {&a, &b, &*merged}) {
        std::string json = render_profile_json(*r);
        auto back = read_profile_report("r.json", json, error);
        REQUIRE_MESSAGE(back, error);
        CHECK(render_profile_json(*back) == json);
    }
    auto merged_back = merge_profile_reports(
        {{"b.json", render_profile_json(b)}, {"a.json", render_profile_json(a)}});
    CHECK_FALSE(merged_back.refusal);
    CHECK(merged_back.report == render_profile_json(*merged));
    CHECK(is_profile_report(merged_back.report));
    CHECK_FALSE(is_profile_report("{\"sdscprov_report\": 1}"));
}

TEST_CASE("ranks: reports that cannot be merged are refused with one merge-refused problem") {
    const std::pair<std::string, std::string> good{"a.json", render_profile_json(ProfileReport{})};
    const std::pair<std::string, std::string> refused[] = {
        {"shard.json", "{\"sdscprov_report\": 1}"},
        {"cut.json", "{\"sdscprov_profile\": "},
    };
    for (const auto& bad : refused) {
        auto merged = merge_profile_reports({good, bad});
        CHECK(merged.report.empty());
        REQUIRE(merged.refusal);
        CHECK(merged.refusal->code == ProblemCode::merge_refused);
        CHECK(merged.refusal->severity == Severity::error);
        CHECK(merged.refusal->path.empty());
        CHECK(merged.refusal->message.rfind(bad.first + ": ", 0) == 0);
    }
    auto none = merge_profile_reports({});
    REQUIRE(none.refusal);
    CHECK(none.refusal->message == "no report to merge");
}
