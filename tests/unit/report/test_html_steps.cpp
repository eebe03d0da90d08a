// The steps on profile's page (render_profile_html): with runtime launch events, each step of the
// timeline with its figures and each bundle's time in it, and each source line's idle time (the
// heat by idle); without them, neither. On a hand-built report whose figures are spelled out.
#include "page_data.hpp"
#include "sdscprov/report/html.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

std::vector<std::uint64_t> numbers(const rapidjson::Value& a, rapidjson::SizeType from,
                                   rapidjson::SizeType to) {
    std::vector<std::uint64_t> out;
    for (auto i = from; i < to; ++i) {
        out.push_back(a[i].GetUint64());
    }
    return out;
}

// Two bundles on model.py:7 and :9; two steps, the slower first as the timeline gives them.
ProfileReport report(bool launches) {
    ProfileReport r;
    r.trace = "trace.json";
    for (const char* label : {"a", "b"}) {
        ProfileBundle b;
        b.label = label;
        b.key = std::string(label) + "key";
        b.resolution = Resolution::sidecar;
        b.time.ns = 100;
        b.time.events = 2;
        r.bundles.push_back(b);
    }
    for (std::uint32_t i = 0; i < 2; ++i) {
        ProfileRow row;
        row.label = "model.py:" + std::to_string(7 + 2 * i);
        row.line = SourceLine{"model.py", 7 + 2 * static_cast<std::int64_t>(i)};
        row.time = r.bundles[i].time;
        row.idle.ns = 30 + i; // 30 before a's kernels, 31 before b's
        row.bundles = {i};
        r.rows(ProfileRanking::line).push_back(row);
    }
    r.timeline.launch_events = launches ? 4 : 0;
    r.timeline.step_spans = true;
    StepTimeline slow;
    slow.name = "ProfilerStep#2";
    slow.start_ns = 1000;
    slow.wall_ns = 500;
    slow.kernel_busy_ns = 120;
    slow.transfer_ns = 7;
    slow.idle = IdleTime{3, 61, 20, 40, 1};
    slow.kernels = 3;
    slow.transfers = 1;
    slow.launch = LaunchDelays{3, 0, 12, 4};
    slow.bundles = {{0, 1, 40, 0}, {1, 2, 80, 31}};
    StepTimeline fast;
    fast.name = "ProfilerStep#1";
    fast.wall_ns = 400;
    fast.kernel_busy_ns = 60;
    fast.kernels = 1;
    fast.bundles = {{0, 1, 60, 30}};
    r.timeline.steps = {slow, fast};
    return r;
}

} // namespace

TEST_CASE("profile's page: each step's figures and its bundles' time, and each line's idle") {
    auto d = page_data(render_profile_html(report(true), SourceTextOptions{}));
    REQUIRE(d.HasMember("steps"));
    const auto& steps = d["steps"];
    REQUIRE(steps.Size() == 2);
    CHECK(std::string(steps[0][0].GetString()) == "ProfilerStep#2");
    // start, wall, busy, transfer, host wait, launch latency, unattributed, gaps, kernels,
    // transfers, launched, median launch delay.
    CHECK(numbers(steps[0], 1, 13) ==
          std::vector<std::uint64_t>{1000, 500, 120, 7, 20, 40, 1, 3, 3, 1, 3, 4});
    REQUIRE(steps[0][13].Size() == 2);
    CHECK(numbers(steps[0][13][0], 0, 4) == std::vector<std::uint64_t>{0, 1, 40, 0});
    CHECK(numbers(steps[0][13][1], 0, 4) == std::vector<std::uint64_t>{1, 2, 80, 31});
    CHECK(std::string(steps[1][0].GetString()) == "ProfilerStep#1");
    REQUIRE(steps[1][13].Size() == 1);
    CHECK(numbers(steps[1][13][0], 0, 4) == std::vector<std::uint64_t>{0, 1, 60, 30});
    REQUIRE(d["sources"].Size() == 1);
    const auto& idle = d["sources"][0]["idle"];
    REQUIRE(idle.Size() == 2);
    CHECK(numbers(idle[0], 0, 2) == std::vector<std::uint64_t>{7, 30});
    CHECK(numbers(idle[1], 0, 2) == std::vector<std::uint64_t>{9, 31});
}

TEST_CASE("profile's page: no steps and no idle heat without runtime launch events") {
    auto d = page_data(render_profile_html(report(false), SourceTextOptions{}));
    CHECK_FALSE(d.HasMember("steps"));
    REQUIRE(d["sources"].Size() == 1);
    CHECK_FALSE(d["sources"][0].HasMember("idle"));
}
