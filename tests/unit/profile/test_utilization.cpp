// Utilization (utilization.hpp): an event's ideal and lost time, the sums of a row, the ratio,
// the category a bundle falls in, and the kernel directories' files read once each, the first
// directory with an ideal giving a bundle's.
#include "sdscprov/profile/utilization.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <limits>
#include <string>
#include <vector>

using namespace sdscprov;

TEST_CASE("utilization: lost is the measured time beyond the ideal, never below zero") {
    IdealTime t;
    CHECK_FALSE(t.known());
    CHECK_FALSE(utilization(t));
    CHECK_FALSE(t.add_event(1000, 400)); // 600 lost
    CHECK(t.add_event(300, 500));        // over 100%: nothing lost
    CHECK_FALSE(t.add_event(700, 700));  // exactly the ideal: not over
    CHECK(t == IdealTime{3, 2000, 1600, 600, 1});
    REQUIRE(utilization(t));
    CHECK(*utilization(t) == doctest::Approx(0.8));

    IdealTime row;
    row.add(t);
    row.add(t);
    CHECK(row == IdealTime{6, 4000, 3200, 1200, 2});

    constexpr std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
    IdealTime saturated;
    saturated.add_event(big, 1);
    saturated.add_event(big, 1);
    CHECK(saturated.measured_ns == big);
    CHECK(saturated.lost_ns == big);

    IdealTime zero_time; // events of no time: no ratio to give
    zero_time.add_event(0, 5);
    CHECK(zero_time.known());
    CHECK_FALSE(utilization(zero_time));
}

TEST_CASE("utilization: a bundle's category row") {
    BundleIdeal ideal;
    ideal.kernel.category = "matmul";
    CHECK(category_label(ideal, true) == "matmul");
    CHECK(category_label(ideal, false) == unresolved_label);
    CHECK(category_label(std::nullopt, true) == no_ideal_label);
    ideal.kernel.category.reset(); // a file holding only a TOTAL entry
    CHECK(category_label(ideal, true) == no_category_label);
}

TEST_CASE("utilization: each directory's file read once, the ideal all of a bundle's give") {
    test::TempDir t("sdscprov-utilization");
    t.file("a/perf/ideal_cycles.json", R"([{"op_category": "TOTAL", "ideal_cycles": 2200}])");
    t.file("a2/perf/ideal_cycles.json", R"([{"op_category": "TOTAL", "ideal_cycles": 2200}])");
    t.file("b/perf/ideal_cycles.json",
           R"([{"op_category": "matmul", "ideal_cycles": 1000, "cores": 8},
               {"op_category": "add", "ideal_cycles": 100}])");
    t.file("bad/perf/ideal_cycles.json", "[1]");
    t.file("none/sdsc_0.json", "{}");
    auto dir = [&](const char* name) { return (t.root / name).string(); };

    UtilizationOptions options;
    options.core_mhz = 2000;
    KernelIdeals ideals(options);
    auto first = ideals.of_bundle({dir("b")});
    REQUIRE(first);
    CHECK(first->kernel_dir == dir("b"));
    CHECK(first->kernel.cycles == 1100);
    CHECK(first->kernel.rule == IdealRule::sum_of_entries);
    CHECK(first->kernel.category == "matmul");
    CHECK(first->ns == 550); // 1100 cycles at 2000 MHz
    std::vector<std::string> differing;
    auto second = ideals.of_bundle({dir("a"), dir("a2")}, &differing);
    REQUIRE(second); // two directories that agree
    CHECK(differing.empty());
    CHECK(second->kernel_dir == dir("a"));
    CHECK(second->ns == 1100);
    CHECK(second->kernel.rule == IdealRule::total_entry);
    // Two directories whose ideals differ, or one with an ideal and one without: none, and which.
    CHECK_FALSE(ideals.of_bundle({dir("a"), dir("b")}, &differing));
    CHECK(differing == std::vector<std::string>{dir("a"), dir("b")});
    differing.clear();
    CHECK_FALSE(ideals.of_bundle({dir("none"), dir("a2")}, &differing));
    CHECK(differing == std::vector<std::string>{dir("none"), dir("a2")});
    differing.clear();
    CHECK_FALSE(ideals.of_bundle({dir("bad"), dir("none")}, &differing));
    CHECK(differing.empty()); // neither has one: nothing differs
    CHECK_FALSE(ideals.of_bundle({}));

    IdealSummary s = ideals.summary();
    CHECK(s.core_mhz == 2000);
    CHECK(s.dirs_read == 5); // each once, however many bundles asked
    CHECK(s.dirs_by_total == 2);
    CHECK(s.dirs_by_sum == 1);
    CHECK(s.dirs_malformed == 1);
    CHECK(s.dirs_absent == 1);
    CHECK(s.bundles_with_ideal == 2);
    CHECK(s.bundles_without_ideal == 4);
    CHECK(s.other_members == std::vector<std::string>{"cores"});
    auto problems = ideals.take_problems();
    REQUIRE(problems.size() == 1); // the bad file, warned once
    CHECK(problems[0].path == dir("bad") + "/perf/ideal_cycles.json");
    CHECK(problems[0].code == ProblemCode::bad_ideal_cycles);
    CHECK(ideals.take_problems().empty());
}
