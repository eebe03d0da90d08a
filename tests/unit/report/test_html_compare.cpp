// The data of profile --baseline's page (render_comparison_html), read back from the page: the
// bundles of both runs as kernels with their time in either run, the compared rows with both
// times and their new/gone mark in the comparison's order, and each source line's time in both
// runs (the heat by change). On hand-built reports whose figures are spelled out.
#include "page_data.hpp"
#include "sdscprov/report/html.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <string>

using namespace sdscprov;

namespace {

ProfileBundle bundle(std::string label, std::uint64_t ns, std::uint64_t events) {
    ProfileBundle b;
    b.label = std::move(label);
    b.key = b.label + "key";
    b.event_name = "spyre_kernel_v1_" + b.label;
    b.resolution = Resolution::sidecar;
    b.time.ns = ns;
    b.time.events = events;
    return b;
}

ProfileRow row(std::string label, std::uint64_t ns, std::uint64_t events,
               std::vector<std::uint32_t> bundles, std::optional<SourceLine> line = {}) {
    ProfileRow r;
    r.label = std::move(label);
    r.time.ns = ns;
    r.time.events = events;
    r.bundles = std::move(bundles);
    r.line = std::move(line);
    return r;
}

// A run of bundles, each its own kernel row, all on the line `file`:7 (the line row's time: the
// bundles' sum).
ProfileReport run(std::string trace, std::vector<ProfileBundle> bundles) {
    ProfileReport r;
    r.trace = std::move(trace);
    std::uint64_t total = 0;
    std::uint64_t events = 0;
    std::vector<std::uint32_t> all;
    for (std::uint32_t i = 0; i < bundles.size(); ++i) {
        r.rows(ProfileRanking::kernel).push_back(
            row(bundles[i].label, bundles[i].time.ns, bundles[i].time.events, {i}));
        total += bundles[i].time.ns;
        events += bundles[i].time.events;
        all.push_back(i);
    }
    r.rows(ProfileRanking::line).push_back(row("model.py:7", total, events, all, SourceLine{"model.py", 7}));
    r.coverage.kernel_ns = total;
    r.coverage.kernel_events = events;
    r.coverage.resolved_ns = total;
    r.coverage.resolved_events = events;
    r.bundles = std::move(bundles);
    return r;
}

ProfileComparison two_runs() {
    // a: 100 -> 150 ns; gone: 50 -> none; new: none -> 30; same: 40 -> 40.
    return compare_profiles(
        run("base.json", {bundle("a", 100, 2), bundle("gone", 50, 1), bundle("same", 40, 1)}),
        run("new.json", {bundle("same", 40, 1), bundle("new", 30, 3), bundle("a", 150, 2)}));
}

} // namespace

TEST_CASE("the compared page: the new run's bundles, then the gone ones, with both times") {
    auto d = page_data(render_comparison_html(two_runs()));
    const auto& k = d["kernels"];
    REQUIRE(k.Size() == 4);
    std::vector<std::string> names;
    for (const auto& x : k.GetArray()) {
        names.emplace_back(x["name"].GetString());
    }
    CHECK(names == std::vector<std::string>{"same", "new", "a", "gone"});
    CHECK(k[0]["ns"].GetUint64() == 40);
    CHECK(k[0]["b"][0].GetUint64() == 40);
    CHECK(k[1]["ns"].GetUint64() == 30);
    CHECK(k[1]["ev"].GetUint64() == 3);
    CHECK_FALSE(k[1].HasMember("b")); // new
    CHECK(k[2]["ns"].GetUint64() == 150);
    CHECK(k[2]["b"][0].GetUint64() == 100);
    CHECK(k[2]["b"][1].GetUint64() == 2);
    CHECK_FALSE(k[3].HasMember("ns")); // gone
    CHECK(k[3]["b"][0].GetUint64() == 50);
    CHECK(d["compare"]["ns"].GetUint64() == 190);
    CHECK(d["compare"]["events"].GetUint64() == 4);
    CHECK(std::string(d["compare"]["basis"].GetString()) == "totals");
    CHECK(d["profile"]["ns"].GetUint64() == 220);
}

TEST_CASE("the compared rows: both times, the kernels of either run, the mark, by the change") {
    auto d = page_data(render_comparison_html(two_runs()));
    const auto& rankings = d["rankings"];
    REQUIRE(rankings.Size() == 3);
    const auto& kernel = rankings[2];
    CHECK(std::string(kernel["id"].GetString()) == "kernel");
    CHECK(kernel["cmp"].GetBool());
    // |change|: a +50 and gone -50 (the growth first), new +30, same 0. Each row: [label, new ns,
    // new events, [kernels], source, line, text, base ns, base events, mark].
    struct Want {
        std::string label;
        std::uint64_t now, base;
        unsigned kernel, mark;
    };
    std::vector<Want> want = {
        {"a", 150, 100, 2, 0}, {"gone", 0, 50, 3, 2}, {"new", 30, 0, 1, 1}, {"same", 40, 40, 0, 0}};
    const auto& rows = kernel["rows"];
    REQUIRE(rows.Size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(std::string(rows[i][0].GetString()) == want[i].label);
        CHECK(rows[i][1].GetUint64() == want[i].now);
        REQUIRE(rows[i][3].Size() == 1);
        CHECK(rows[i][3][0].GetUint() == want[i].kernel);
        CHECK(rows[i][7].GetUint64() == want[i].base);
        CHECK(rows[i][9].GetUint() == want[i].mark);
    }
    // The line row: the kernels of both runs' bundles on it, both times.
    const auto& line = rankings[0]["rows"][0];
    CHECK(std::string(line[0].GetString()) == "model.py:7");
    CHECK(line[1].GetUint64() == 220);
    CHECK(line[7].GetUint64() == 190);
    std::vector<unsigned> kernels;
    for (const auto& x : line[3].GetArray()) {
        kernels.push_back(x.GetUint());
    }
    CHECK(kernels == std::vector<unsigned>{0, 1, 2, 3});
}

TEST_CASE("the compared page: each line's time in both runs, and none on a page of one run") {
    auto c = two_runs();
    auto d = page_data(render_comparison_html(c));
    REQUIRE(d["sources"].Size() == 1);
    REQUIRE(d["sources"][0]["heat"].Size() == 1);
    const auto& s = d["sources"][0];
    CHECK(std::string(s["path"].GetString()) == "model.py");
    CHECK(s["heat"][0][0].GetInt64() == 7);
    CHECK(s["heat"][0][1].GetUint64() == 220);
    REQUIRE(s.HasMember("base"));
    REQUIRE(s["base"].Size() == 1);
    CHECK(s["base"][0][0].GetInt64() == 7);
    CHECK(s["base"][0][1].GetUint64() == 190);
    // The page of one run has neither the base times nor the comparison.
    auto one = page_data(render_profile_html(c.now));
    CHECK_FALSE(one.HasMember("compare"));
    CHECK_FALSE(one["sources"][0].HasMember("base"));
    CHECK_FALSE(one["kernels"][0].HasMember("b"));
    CHECK(render_comparison_html(c) == render_comparison_html(c));
}

TEST_CASE("the compared page keeps a hostile label out of the markup") {
    auto c = compare_profiles(run("base.json", {bundle("k</script><b>&", 10, 1)}),
                              run("new.json", {bundle("k</script><b>&", 20, 1)}));
    std::string page = render_comparison_html(c);
    CHECK(page.find("</script><b>") == std::string::npos);
    auto d = page_data(page);
    CHECK(std::string(d["rankings"][2]["rows"][0][0].GetString()) == "k</script><b>&");
}
