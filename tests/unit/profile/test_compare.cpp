// Comparison of two profiles: rows joined by label, new and gone rows, the ranking by the
// absolute change, and the gate's findings, on hand-built reports whose figures are spelled out.
#include "profile/utilization_rows.hpp"
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
    r.rows(ProfileRanking::aten) = std::move(by_aten);
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

// A run of `n` bundles, bundle i of `ns(i)` device time and of category `category(i)` ("" for an
// unpaired bundle), its category rows built as a single profile builds them.
template <class Ns, class Category>
ProfileReport category_run(std::size_t n, Ns ns, Category category) {
    ProfileReport r;
    for (std::size_t i = 0; i < n; ++i) {
        ProfileBundle b;
        b.label = "k" + std::to_string(i); // its kernel row, as every real bundle has
        b.time.ns = ns(i);
        b.time.events = 1;
        std::string cat = category(i);
        if (!cat.empty()) {
            b.resolution = Resolution::caches;
            b.ideal = BundleIdeal{};
            b.ideal->kernel.category = cat;
        }
        r.coverage.kernel_ns += b.time.ns;
        r.bundles.push_back(std::move(b));
    }
    r.rows(ProfileRanking::category) =
        ranking_rows(ranking_spec(ProfileRanking::category), r.bundles, {});
    return r;
}

} // namespace

TEST_CASE("compare: the category rows joined, one category slowed, new and gone categories") {
    // 12 bundles: i % 4 gives matmul, add, softmax, unpaired; bundle i takes 1000 + 10 i ns.
    auto base_category = [](std::size_t i) {
        return std::string(i % 4 == 0   ? "matmul"
                           : i % 4 == 1 ? "add"
                           : i % 4 == 2 ? "softmax"
                                        : "");
    };
    // The new run: matmul's kernels 30 % slower (exact to the ns), softmax's kernels become conv's.
    auto new_category = [&](std::size_t i) {
        auto c = base_category(i);
        return c == "softmax" ? std::string("conv") : c;
    };
    auto base_ns = [](std::size_t i) { return std::uint64_t(1000 + 10 * i); };
    auto new_ns = [&](std::size_t i) {
        return base_category(i) == "matmul" ? base_ns(i) * 13 / 10 : base_ns(i);
    };
    auto c = compare_profiles(category_run(12, base_ns, base_category),
                              category_run(12, new_ns, new_category));
    // matmul: bundles 0, 4, 8: 1000 + 1040 + 1080 = 3120 -> 1300 + 1352 + 1404 = 4056.
    // softmax (gone) and conv (new): bundles 2, 6, 10: 1020 + 1060 + 1100 = 3180.
    // add: 1, 5, 9: 3150; unresolved: 3, 7, 11: 3210, unchanged.
    REQUIRE(c.rows(ProfileRanking::category).size() == 5);
    std::vector<std::string> order;
    for (const auto& r : c.rows(ProfileRanking::category)) {
        order.push_back(r.label);
    }
    std::string unresolved(unresolved_label);
    CHECK(order == std::vector<std::string>{"conv", "softmax", "matmul", unresolved, "add"});
    const auto& mm = find(c.rows(ProfileRanking::category), "matmul");
    CHECK(mm.base_ns() == 3120);
    CHECK(mm.new_ns() == 4056);
    CHECK(mm.change_ns() == 936);
    CHECK(*mm.change_percent() == doctest::Approx(30.0));
    CHECK(find(c.rows(ProfileRanking::category), "conv").is_new());
    CHECK(find(c.rows(ProfileRanking::category), "conv").new_ns() == 3180);
    CHECK(find(c.rows(ProfileRanking::category), "softmax").is_gone());
    CHECK(find(c.rows(ProfileRanking::category), "softmax").change_ns() == -3180);
    CHECK(find(c.rows(ProfileRanking::category), "add").change_ns() == 0);
    CHECK(find(c.rows(ProfileRanking::category), unresolved).base_ns() == 3210);
    CHECK(find(c.rows(ProfileRanking::category), unresolved).change_ns() == 0);
    // The gate over the categories: matmul grew 30 %, conv is new.
    std::vector<std::string> found;
    for (const auto& f : gate_findings(c, c.rows(ProfileRanking::category), {10, 1})) {
        found.push_back(f.row->label);
    }
    CHECK(found == std::vector<std::string>{"conv", "matmul"});
}

TEST_CASE("compare: rows joined by label, new and gone, ranked by the absolute change") {
    auto c = compare_profiles(
        report(1000, {row("mm", 400), row("add", 300), row("relu", 200), row("gone", 100)}),
        report(1200, {row("mm", 700), row("add", 300), row("relu", 50), row("new", 150)}));
    REQUIRE(c.rows(ProfileRanking::aten).size() == 5);
    std::vector<std::string> order;
    for (const auto& r : c.rows(ProfileRanking::aten)) {
        order.push_back(r.label);
    }
    // |change|: mm 300, relu 150 (a shrink) and new 150 (a growth: first), gone 100, add 0.
    CHECK(order == std::vector<std::string>{"mm", "new", "relu", "gone", "add"});
    CHECK(find(c.rows(ProfileRanking::aten), "mm").base_ns() == 400);
    CHECK(find(c.rows(ProfileRanking::aten), "mm").new_ns() == 700);
    CHECK(find(c.rows(ProfileRanking::aten), "mm").change_ns() == 300);
    CHECK(*find(c.rows(ProfileRanking::aten), "mm").change_percent() == doctest::Approx(75.0));
    CHECK(find(c.rows(ProfileRanking::aten), "relu").change_ns() == -150);
    CHECK(find(c.rows(ProfileRanking::aten), "new").is_new());
    CHECK_FALSE(find(c.rows(ProfileRanking::aten), "new").change_percent());
    CHECK(find(c.rows(ProfileRanking::aten), "gone").is_gone());
    CHECK(find(c.rows(ProfileRanking::aten), "gone").change_ns() == -100);
    CHECK(find(c.rows(ProfileRanking::aten), "add").change_ns() == 0);
}

TEST_CASE("compare: the gate names rows grown over the limit with enough share") {
    // Base 10,000 ns; new 10,000 ns. min share 1 % = 100 ns of either run.
    auto c = compare_profiles(
        report(10000, {row("big", 5000), row("small", 50), row("exact", 1000), row("shrunk", 900)}),
        report(10000, {row("big", 6000), row("small", 90), row("exact", 1100), row("shrunk", 100),
                       row("new", 200), row("tiny_new", 20)}));
    auto labels = [&](double over, double share) {
        std::vector<std::string> out;
        for (const auto& f : gate_findings(c, c.rows(ProfileRanking::aten), {over, share})) {
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
    auto findings = gate_findings(c, c.rows(ProfileRanking::aten), {10, 1});
    REQUIRE(findings.size() == 2);
    CHECK(findings[0].base_share == doctest::Approx(50.0));
    CHECK(findings[0].new_share == doctest::Approx(60.0));
    CHECK(findings[0].message.find("grew by 20.0 %") != std::string::npos);
    // Identical runs: nothing, however tight the limit.
    auto same = compare_profiles(report(100, {row("a", 60), row("b", 40)}),
                                 report(100, {row("a", 60), row("b", 40)}));
    CHECK(gate_findings(same, same.rows(ProfileRanking::aten), {0, 0}).empty());
}
