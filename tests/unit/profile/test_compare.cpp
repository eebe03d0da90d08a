// Comparison of two profiles: rows joined by label, new and gone rows, the ranking by the
// absolute change, and the gate's findings, on hand-built reports whose figures are spelled out.
#include "sdscprov/profile/compare.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

ProfileRow row(std::string label, std::uint64_t ns, std::uint64_t events = 1) {
    ProfileRow r;
    r.label = std::move(label);
    r.time.ns = ns;
    r.time.events = events;
    return r;
}

ProfileReport report(std::uint64_t total, std::vector<ProfileRow> by_aten) {
    ProfileReport r;
    r.coverage.kernel_ns = total;
    r.by_aten = std::move(by_aten);
    return r;
}

const RowChange& find(const std::vector<RowChange>& rows, const std::string& label) {
    for (const auto& r : rows) {
        if (r.label == label) {
            return r;
        }
    }
    FAIL("no row " << label);
    return rows.front();
}

} // namespace

TEST_CASE("compare: rows joined by label, new and gone, ranked by the absolute change") {
    auto c = compare_profiles(
        report(1000, {row("mm", 400), row("add", 300), row("relu", 200), row("gone", 100)}),
        report(1200, {row("mm", 700), row("add", 300), row("relu", 50), row("new", 150)}));
    REQUIRE(c.by_aten.size() == 5);
    std::vector<std::string> order;
    for (const auto& r : c.by_aten) {
        order.push_back(r.label);
    }
    // |change|: mm 300, relu 150 (a shrink) and new 150 (a growth: first), gone 100, add 0.
    CHECK(order == std::vector<std::string>{"mm", "new", "relu", "gone", "add"});
    CHECK(find(c.by_aten, "mm").base_ns() == 400);
    CHECK(find(c.by_aten, "mm").new_ns() == 700);
    CHECK(find(c.by_aten, "mm").change_ns() == 300);
    CHECK(*find(c.by_aten, "mm").change_percent() == doctest::Approx(75.0));
    CHECK(find(c.by_aten, "relu").change_ns() == -150);
    CHECK(find(c.by_aten, "new").is_new());
    CHECK_FALSE(find(c.by_aten, "new").change_percent());
    CHECK(find(c.by_aten, "gone").is_gone());
    CHECK(find(c.by_aten, "gone").change_ns() == -100);
    CHECK(find(c.by_aten, "add").change_ns() == 0);
}

TEST_CASE("compare: the gate names rows grown over the limit with enough share") {
    // Base 10,000 ns; new 10,000 ns. min share 1 % = 100 ns of either run.
    auto c = compare_profiles(
        report(10000, {row("big", 5000), row("small", 50), row("exact", 1000), row("shrunk", 900)}),
        report(10000, {row("big", 6000), row("small", 90), row("exact", 1100), row("shrunk", 100),
                       row("new", 200), row("tiny_new", 20)}));
    auto labels = [&](double over, double share) {
        std::vector<std::string> out;
        for (const auto& f : gate_findings(c, c.by_aten, {over, share})) {
            out.push_back(f.row->label);
        }
        return out;
    };
    // big +20 %, exact +10 % (not more than 10), small +80 % but 0.9 % of the new run, new: no
    // base.
    CHECK(labels(10, 1) == std::vector<std::string>{"big", "new"});
    CHECK(labels(5, 1) == std::vector<std::string>{"big", "new", "exact"});
    CHECK(labels(10, 0) == std::vector<std::string>{"big", "new", "small", "tiny_new"});
    CHECK(labels(1000, 1) == std::vector<std::string>{"new"});
    auto findings = gate_findings(c, c.by_aten, {10, 1});
    REQUIRE(findings.size() == 2);
    CHECK(findings[0].base_share == doctest::Approx(50.0));
    CHECK(findings[0].new_share == doctest::Approx(60.0));
    CHECK(findings[0].message.find("grew by 20.0 %") != std::string::npos);
    // Identical runs: nothing, however tight the limit.
    auto same = compare_profiles(report(100, {row("a", 60), row("b", 40)}),
                                 report(100, {row("a", 60), row("b", 40)}));
    CHECK(gate_findings(same, same.by_aten, {0, 0}).empty());
}
