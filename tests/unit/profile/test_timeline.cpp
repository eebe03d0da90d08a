// The time between kernels (timeline.hpp): gaps, host wait, launch latency, unattributed gaps,
// launch delays with clock skew, steps by the launch's start, per-step unions, queue delay only
// when consistent, and a slot's activities moved to the overflow group. The figures below are
// worked out by hand from the intervals (in microseconds) written beside each event.
#include "sdscprov/profile/timeline.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <charconv>
#include <doctest/doctest.h>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace sdscprov;

namespace {

struct Ev {
    std::string name, cat, ts, dur, correlation, device, pid, bytes, queued, submitted;
};

TraceEvent view(const Ev& x) {
    TraceEvent e;
    e.object = true;
    e.ph_state = FieldState::ok;
    e.ph = "X";
    e.name_state = FieldState::ok;
    e.name = x.name;
    e.cat_state = FieldState::ok;
    e.cat = x.cat;
    e.ts_state = FieldState::ok;
    e.ts = x.ts;
    e.dur_state = FieldState::ok;
    e.dur = x.dur;
    auto set = [](const std::string& v, FieldState& state, std::string_view& out) {
        if (!v.empty()) {
            state = FieldState::ok;
            out = v;
        }
    };
    set(x.device, e.device_state, e.device);
    set(x.pid, e.pid_state, e.pid);
    // The reader gives these as whole numbers (their texts are not kept).
    auto number = [&e](const std::string& v, FieldState& state, std::uint64_t& out,
                       ArgsNumber bit) {
        if (!v.empty()) {
            state = FieldState::ok;
            auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
            if (ec == std::errc{} && end == v.data() + v.size()) {
                e.args_numbers |= bit;
            }
        }
    };
    number(x.correlation, e.correlation_state, e.correlation_n, correlation_number);
    number(x.bytes, e.bytes_state, e.bytes_n, bytes_number);
    number(x.queued, e.queued_state, e.queued_n, queued_number);
    number(x.submitted, e.submitted_state, e.submitted_n, submitted_number);
    return e;
}

Ev launch(const std::string& ts, const std::string& correlation) {
    return {"aiuLaunchControlBlocks", "cuda_runtime", ts, "1", correlation, "", "9", "", "", ""};
}

Ev kernel(const std::string& ts, const std::string& dur, const std::string& correlation,
          const std::string& device, const std::string& pid) {
    return {"spyre_kernel_v1_x", "kernel", ts, dur, correlation, device, pid, "", "", ""};
}

Ev transfer(const std::string& ts, const std::string& dur, const std::string& correlation,
            const std::string& device, const std::string& pid, const std::string& bytes) {
    return {"Memcpy (HtoD)", "gpu_memcpy", ts, dur, correlation, device, pid, bytes, "", ""};
}

constexpr std::uint64_t us = 1000;

// The scenario: two steps, device 0 (args.device) and pid 7 (no args.device).
TimelineLog scenario(std::vector<Ev>& keep) {
    keep = {
        {"ProfilerStep#2", "user_annotation", "100", "150", "", "", "9", "", "", ""},
        {"ProfilerStep#1", "user_annotation", "0", "100", "", "", "9", "", "", ""},
        launch("5", "1"), launch("35", "2"), launch("37", "2"), launch("20", "3"),
        launch("95", "4"), launch("99", "5"), launch("101", "6"), launch("150", "7"),
        launch("290", "8"),
    };
    keep.push_back(kernel("10", "20", "1", "0", "1"));   // K1 slot 0 [10,30]
    keep.push_back(kernel("40", "10", "2", "0", "1"));   // K2 slot 1 [40,50]
    keep.push_back(transfer("45", "15", "3", "0", "1", "1000")); // T1 [45,60]
    keep.push_back(kernel("70", "10", "", "0", "1"));    // K3 slot 0 [70,80], no launch
    keep.push_back(kernel("90", "30", "4", "0", "1"));   // K4 slot 1 [90,120], launch at 95
    keep.push_back(kernel("130", "10", "5", "0", "1"));  // K5 slot 0 [130,140], launch at 99
    keep.push_back(kernel("105", "10", "6", "", "7"));   // K6 slot 0 [105,115]
    keep.push_back(transfer("120", "10", "", "", "7", "3000")); // T2 [120,130]
    keep.push_back(kernel("200", "10", "7", "", "7"));   // K7 slot 1 [200,210]
    keep.push_back(kernel("300", "5", "8", "", "7"));    // K8 slot 1 [300,305], in no step
    TimelineLog log;
    const std::uint32_t slots[] = {0, 1, TimelineLog::no_slot, 0, 1, 0, 0, TimelineLog::no_slot,
                                   1, 1};
    // Device events first, as Kineto writes them, then the host's (any order works).
    for (std::size_t i = 11; i < keep.size(); ++i) {
        auto e = view(keep[i]);
        log.activity(e, activity_kind(e).value(), slots[i - 11]);
    }
    for (std::size_t i = 0; i < 11; ++i) {
        log.event(view(keep[i]));
    }
    return log;
}

} // namespace

TEST_CASE("timeline: medians") {
    std::vector<std::uint64_t> none;
    CHECK(median_of(none) == 0);
    std::vector<std::uint64_t> odd{9, 1, 5};
    CHECK(median_of(odd) == 5);
    std::vector<std::uint64_t> even{10, 0, 50, 5};
    CHECK(median_of(even) == 7); // (5 + 10) / 2 rounded down
}

// DelayValues keeps values below 2^32 in 4 bytes and the rest apart: its median is median_of's
// over the same values, wherever the middle falls (among the small, at the first large one,
// among the large), for odd and even counts, appended or added.
TEST_CASE("timeline: delay values' median across 4-byte and 8-byte values") {
    constexpr std::uint64_t big = std::uint64_t{1} << 32;
    std::mt19937_64 rng(42);
    for (int round = 0; round < 400; ++round) {
        const std::size_t smalls = rng() % 9;
        const std::size_t larges = rng() % 9;
        std::vector<std::uint64_t> all;
        for (std::size_t i = 0; i < smalls; ++i) {
            all.push_back(round % 2 == 0 ? rng() % 50 : (big - 1) - rng() % 3);
        }
        for (std::size_t i = 0; i < larges; ++i) {
            all.push_back(big + rng() % (round % 3 == 0 ? 3 : 1000000));
        }
        std::shuffle(all.begin(), all.end(), rng);
        DelayValues added;
        DelayValues first;
        DelayValues second;
        for (std::size_t i = 0; i < all.size(); ++i) {
            added.add(all[i]);
            (i % 2 == 0 ? first : second).add(all[i]);
        }
        first.append(second);
        CAPTURE(round);
        CHECK(added.size() == all.size());
        CHECK(first.size() == all.size());
        std::vector<std::uint64_t> copy = all;
        const std::uint64_t expected = median_of(copy);
        CHECK(added.median() == expected);
        CHECK(first.median() == expected);
        CHECK(first.median() == expected); // again, once reordered
    }
    DelayValues none;
    CHECK(none.median() == 0);
    DelayValues two;
    two.add(big - 1);
    two.add(big + 1);
    CHECK(two.median() == big); // the first large value and the largest small one
    two.release();
    CHECK(two.size() == 0);
}

TEST_CASE("timeline: gaps, host wait, launch latency and steps of a hand-worked trace") {
    std::vector<Ev> keep;
    TimelineLog log = scenario(keep);
    auto r = log.finish(2);
    const auto& s = r.summary;
    CHECK(s.devices == 2);
    CHECK(s.activities == 10);
    CHECK(s.launch_events == 9);
    CHECK(s.step_spans);
    CHECK(s.shown());
    REQUIRE(s.steps.size() == 2);
    // Slowest first.
    const StepTimeline& two = s.steps[0];
    const StepTimeline& one = s.steps[1];
    CHECK(two.name == "ProfilerStep#2");
    CHECK(two.wall_ns == 150 * us);
    CHECK(one.name == "ProfilerStep#1");
    CHECK(one.start_ns == 0);
    CHECK(s.step_min_ns == 100 * us);
    CHECK(s.step_median_ns == 125 * us);
    CHECK(s.step_max_ns == 150 * us);
    // Step 1: K1..K5 (K5 runs in step 2's span, launched in step 1's) and T1.
    CHECK(one.kernels == 5);
    CHECK(one.transfers == 1);
    CHECK(one.kernel_busy_ns == 80 * us);
    CHECK(one.transfer_ns == 10 * us); // [50,60] of T1
    CHECK(one.transfer_bytes == 1000);
    CHECK(one.transfer_active_ns == 15 * us);
    CHECK(one.idle == IdleTime{4, 40 * us, 15 * us, 15 * us, 10 * us});
    CHECK(one.launch == LaunchDelays{5, 1, 66 * us, 5 * us});
    // Step 2: K6, T2, K7 on pid 7.
    CHECK(two.kernels == 2);
    CHECK(two.transfers == 1);
    CHECK(two.kernel_busy_ns == 20 * us);
    CHECK(two.transfer_ns == 10 * us);
    CHECK(two.transfer_bytes == 3000);
    CHECK(two.idle == IdleTime{2, 75 * us, 20 * us, 50 * us, 5 * us});
    CHECK(two.launch == LaunchDelays{2, 0, 54 * us, 27 * us});
    // K8 in no step.
    CHECK(s.outside_activities == 1);
    CHECK(s.outside_idle == IdleTime{1, 90 * us, 80 * us, 10 * us, 0});
    // Everything; the gap before T2 is "[transfers]"'s.
    CHECK(s.idle == IdleTime{7, 205 * us, 115 * us, 75 * us, 15 * us});
    CHECK(s.transfers_idle == IdleTime{1, 5 * us, 0, 0, 5 * us});
    CHECK(s.unbundled_idle == IdleTime{});
    CHECK(s.launch == LaunchDelays{8, 1, 130 * us, 7500}); // (5 + 10) / 2 us
    // Per slot, as device time is charged.
    REQUIRE(r.idle.size() == 2);
    CHECK(r.idle[0] == IdleTime{2, 20 * us, 0, 10 * us, 10 * us});
    CHECK(r.idle[1] == IdleTime{4, 180 * us, 115 * us, 65 * us, 0});
    CHECK(r.launch[0] == LaunchDelays{3, 0, 40 * us, 5 * us});
    CHECK(r.launch[1] == LaunchDelays{4, 1, 65 * us, 7500});
    CHECK(r.delays[1].size() == 4);
    CHECK_FALSE(s.queue.consistent());
    CHECK(s.queue.kernels == 0);
}

TEST_CASE("timeline: each step's kernels per slot, their device time and the gaps before them") {
    std::vector<Ev> keep;
    TimelineLog log = scenario(keep);
    auto s = log.finish(2).summary;
    REQUIRE(s.steps.size() == 2);
    // Step 1: K1, K3, K5 (slot 0: gaps 10 before K3 and K5), K2, K4 (slot 1: 10 before each).
    CHECK(s.steps[1].bundles == std::vector<StepBundleTime>{{0, 3, 40 * us, 20 * us},
                                                            {1, 2, 40 * us, 20 * us}});
    // Step 2: K6 (its device's first), K7 (70 after T2); the transfers' gaps and K8 (in no step)
    // are no slot's in any step.
    CHECK(s.steps[0].bundles == std::vector<StepBundleTime>{{0, 1, 10 * us, 0},
                                                            {1, 1, 10 * us, 70 * us}});
}

TEST_CASE("timeline: without step spans the whole trace is one step, without launches gaps are "
          "unattributed") {
    TimelineLog log;
    const std::pair<std::string, std::string> spans[] = {
        {"10", "5"}, {"30", "10"}, {"32", "3"}, {"50", "1"}};
    for (const auto& span : spans) {
        Ev k = kernel(span.first, span.second, "4", "0", "1"); // view() points into it
        log.activity(view(k), ActivityKind::kernel, 0);
    }
    auto r = log.finish(1);
    const auto& s = r.summary;
    CHECK_FALSE(s.step_spans);
    CHECK_FALSE(s.shown());
    REQUIRE(s.steps.size() == 1);
    CHECK(s.steps[0].name == "(whole trace)");
    CHECK(s.steps[0].start_ns == 10 * us);
    CHECK(s.steps[0].wall_ns == 41 * us);
    CHECK(s.steps[0].kernel_busy_ns == 16 * us); // [10,15] [30,40] [50,51]
    // Gaps 15 (before 30) and 10 (before 50; [32,35] overlaps): no launch event.
    CHECK(s.idle == IdleTime{2, 25 * us, 0, 0, 25 * us});
    CHECK(s.launch == LaunchDelays{});
    CHECK(s.step_min_ns == 41 * us);
    CHECK(s.step_max_ns == 41 * us);
}

TEST_CASE("timeline: queue delay only when queued and submitted agree with ts") {
    auto run = [](const std::string& second_queued, const std::string& second_submitted) {
        TimelineLog log;
        Ev a = kernel("10", "20", "", "0", "1");
        a.queued = "1000";
        a.submitted = "2000"; // 8 us before its start at 10 us
        Ev b = kernel("40", "10", "", "0", "1");
        b.queued = second_queued;
        b.submitted = second_submitted;
        Ev c = kernel("60", "1", "", "0", "1"); // neither: not counted
        for (const Ev* x : {&a, &b, &c}) {
            log.activity(view(*x), ActivityKind::kernel, 0);
        }
        return log.finish(1).summary.queue;
    };
    auto q = run("30000", "38000");
    CHECK(q.consistent());
    CHECK(q.kernels == 2);
    CHECK(q.total_ns == 10000);
    CHECK(q.median_ns == 5000);
    // The bounds hold: queued = submitted, and submitted = start (a delay of 0).
    auto same = run("38000", "38000");
    CHECK(same.consistent());
    CHECK(same.total_ns == 10000);
    auto at_start = run("30000", "40000");
    CHECK(at_start.consistent());
    CHECK(at_start.total_ns == 8000);
    CHECK(at_start.median_ns == 4000);
    for (const auto& [queued, submitted] :
         {std::pair{"30000", "45000"},   // submitted after the start: another clock
          std::pair{"38001", "38000"}}) { // queued after submitted
        auto wrong = run(queued, submitted);
        CHECK_FALSE(wrong.consistent());
        CHECK(wrong.kernels == 2);
        CHECK(wrong.inconsistent == 1);
        CHECK(wrong.total_ns == 0);
    }
}

TEST_CASE("timeline: activities alike in start and end leave in the order they came") {
    // Two kernels of one device with the same start and end, after a gap of 9 us: the first to
    // come takes the gap, the second overlaps it (gap 0), whichever slot each is of and however
    // many wait in the window together.
    for (std::size_t window : {std::size_t{1}, std::size_t{8}}) {
        for (const auto& order : {std::pair{1U, 2U}, std::pair{2U, 1U}}) {
            const unsigned first = order.first;
            const unsigned second = order.second;
            CAPTURE(window);
            CAPTURE(first);
            TimelineLog log(window);
            log.activity(view(kernel("0", "1", "", "0", "1")), ActivityKind::kernel, 0);
            log.activity(view(kernel("10", "5", "", "0", "1")), ActivityKind::kernel, first);
            log.activity(view(kernel("10", "5", "", "0", "1")), ActivityKind::kernel, second);
            auto r = log.finish(3);
            CHECK(r.idle[first] == IdleTime{1, 9 * us, 0, 0, 9 * us});
            CHECK(r.idle[second] == IdleTime{});
        }
    }
}

TEST_CASE("timeline: a slot's activities so far move to the overflow group") {
    TimelineLog log;
    log.activity(view(kernel("0", "1", "", "0", "1")), ActivityKind::kernel, 2);
    log.activity(view(kernel("3", "1", "", "0", "1")), ActivityKind::kernel, 2); // gap 2 us
    log.moved(2, 0);
    log.activity(view(kernel("10", "1", "", "0", "1")), ActivityKind::kernel, 2); // gap 6 us
    auto r = log.finish(3);
    CHECK(r.idle[0].ns == 2 * us);
    CHECK(r.idle[2].ns == 6 * us);
    REQUIRE(r.summary.steps.size() == 1);
    CHECK(r.summary.steps[0].bundles ==
          std::vector<StepBundleTime>{{0, 2, 2 * us, 2 * us}, {2, 1, 1 * us, 6 * us}});
}

TEST_CASE("timeline: what left the window moves with its slot, what is still in it when it leaves") {
    TimelineLog log(1); // a window of one activity per device
    log.activity(view(kernel("0", "1", "", "0", "1")), ActivityKind::kernel, 2);
    log.activity(view(kernel("3", "1", "", "0", "1")), ActivityKind::kernel, 2);  // [0,1] leaves
    log.activity(view(kernel("10", "1", "", "0", "1")), ActivityKind::kernel, 2); // gap 2 us: 2
    log.moved(2, 0);                                                               // 2's 2 us to 0
    log.activity(view(kernel("12", "1", "", "0", "1")), ActivityKind::kernel, 2); // gap 6 us: 0
    auto r = log.finish(3);                                                        // gap 1 us: 2
    CHECK(r.idle[0].ns == 8 * us);
    CHECK(r.idle[2].ns == 1 * us);
    CHECK(r.summary.out_of_order == 0);
    // The whole trace's step: [0,1] and [3,4] moved when 2 did, [10,11] as it left.
    REQUIRE(r.summary.steps.size() == 1);
    CHECK(r.summary.steps[0].bundles ==
          std::vector<StepBundleTime>{{0, 3, 3 * us, 8 * us}, {2, 1, 1 * us, 1 * us}});
}

TEST_CASE("timeline: an activity that comes after its window left is counted, its gap 0") {
    TimelineLog log(1);
    for (const char* ts : {"0", "10", "20", "5"}) { // [5,6] comes after [10,11] left
        log.activity(view(kernel(ts, "1", "", "0", "1")), ActivityKind::kernel, 0);
    }
    auto s = log.finish(1).summary;
    CHECK(s.out_of_order == 1);
    CHECK(s.idle.ns == 18 * us); // 9 + 0 + 9; in start order it would be 4 + 4 + 9
    TimelineLog wide(4);
    for (const char* ts : {"0", "10", "20", "5"}) {
        wide.activity(view(kernel(ts, "1", "", "0", "1")), ActivityKind::kernel, 0);
    }
    auto exact = wide.finish(1).summary;
    CHECK(exact.out_of_order == 0);
    CHECK(exact.idle.ns == 17 * us);
}

// The window is a ring of places: activities that come up to its size out of start order, over
// many turns of the ring and on two devices, are told the same gaps as when they come in order.
TEST_CASE("timeline: a window's ring keeps start order through late activities and wraps") {
    constexpr std::size_t n = 300;
    std::vector<std::uint64_t> order(n);
    for (std::size_t i = 0; i < n; ++i) {
        order[i] = i;
    }
    std::mt19937_64 rng(7);
    // Each block of 6 shuffled: at most 5 places late, within a window of 6.
    for (std::size_t i = 0; i + 6 <= n; i += 6) {
        std::shuffle(order.begin() + static_cast<std::ptrdiff_t>(i),
                     order.begin() + static_cast<std::ptrdiff_t>(i + 6), rng);
    }
    auto run = [](const std::vector<std::uint64_t>& tags) {
        std::vector<Ev> keep;
        for (std::uint64_t tag : tags) {
            // Activity `tag` on device tag % 2: starts at 10 * tag us, lasts 1 + tag % 7 us.
            keep.push_back(kernel(std::to_string(10 * tag), std::to_string(1 + tag % 7), "",
                                  std::to_string(tag % 2), "1"));
        }
        TimelineLog log(6);
        std::vector<std::optional<std::uint64_t>> gaps(tags.size());
        log.time_each([&](std::uint64_t tag, const ActivityTimes& t) { gaps[tag] = t.gap_ns; });
        for (std::size_t i = 0; i < tags.size(); ++i) {
            log.activity(view(keep[i]), ActivityKind::kernel, 0, TimelineLog::no_slot, tags[i]);
        }
        auto s = log.finish(1).summary;
        return std::make_tuple(gaps, s.out_of_order, s.idle.ns);
    };
    std::vector<std::uint64_t> in_order(n);
    for (std::size_t i = 0; i < n; ++i) {
        in_order[i] = i;
    }
    const auto [expected, expected_late, expected_idle] = run(in_order);
    const auto [gaps, late, idle] = run(order);
    CHECK(late == 0);
    CHECK(expected_late == 0);
    CHECK(idle == expected_idle);
    CHECK(gaps == expected);
    // Device 0's activities are 20 us apart: gap 20 us minus the one before's duration.
    CHECK(expected[4] == (20 - (1 + 2 % 7)) * us);
}

TEST_CASE("timeline: each tagged activity is told its own gap, host wait and launch delay") {
    std::vector<Ev> keep = {
        launch("5", "1"),
        launch("35", "2"),
        kernel("10", "20", "1", "0", "1"), // tag 0 [10,30]: the device's first, delay 5
        kernel("40", "10", "2", "0", "1"), // tag 1 [40,50]: gap 10, host wait 5, delay 5
        kernel("45", "2", "", "0", "1"),   // tag 2 [45,47]: overlaps, no launch
        kernel("60", "5", "", "0", "1"),   // untagged: never told
    };
    TimelineLog log(1); // each activity leaves its window as the next one comes
    std::vector<std::pair<std::uint64_t, ActivityTimes>> told;
    log.time_each([&](std::uint64_t tag, const ActivityTimes& t) { told.emplace_back(tag, t); });
    log.event(view(keep[0]));
    log.event(view(keep[1]));
    for (std::uint64_t tag = 0; tag < 4; ++tag) {
        auto e = view(keep[2 + tag]);
        log.activity(e, ActivityKind::kernel, 0, TimelineLog::no_slot,
                     tag < 3 ? tag : TimelineLog::no_tag);
    }
    (void)log.finish(1);
    REQUIRE(told.size() == 3);
    CHECK(told[0].first == 0);
    CHECK_FALSE(told[0].second.gap_ns);
    CHECK(told[0].second.host_wait_ns == 0);
    CHECK(told[0].second.launch_delay_ns == 5 * us);
    CHECK(told[1].first == 1);
    CHECK(told[1].second.gap_ns == 10 * us);
    CHECK(told[1].second.host_wait_ns == 5 * us);
    CHECK(told[1].second.launch_delay_ns == 5 * us);
    CHECK(told[2].first == 2);
    CHECK(told[2].second.gap_ns == 0);
    CHECK_FALSE(told[2].second.host_wait_ns);
    CHECK_FALSE(told[2].second.launch_delay_ns);
}

TEST_CASE("timeline: overlapping step spans: an activity belongs to the latest one started") {
    // ProfilerStep#1 [0,100) and #2 [50,150): an activity at 10 is step 1's, at 60 and 120
    // step 2's (the later one holds them), however the step found last would have it.
    std::vector<Ev> keep = {
        {"ProfilerStep#1", "user_annotation", "0", "100", "", "", "9", "", "", ""},
        {"ProfilerStep#2", "user_annotation", "50", "100", "", "", "9", "", "", ""},
    };
    TimelineLog log(1);
    for (const auto& step : keep) {
        log.event(view(step));
    }
    for (const char* ts : {"10", "60", "120"}) {
        log.activity(view(kernel(ts, "1", "", "0", "1")), ActivityKind::kernel, 0);
    }
    auto s = log.finish(1).summary;
    REQUIRE(s.steps.size() == 2);
    for (const auto& step : s.steps) {
        CAPTURE(step.name);
        CHECK(step.kernels == (step.name == "ProfilerStep#1" ? 1U : 2U));
    }
}
