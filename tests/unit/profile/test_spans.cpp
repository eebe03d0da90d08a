// Host spans: which events are spans, the pieces of the time axis they cut (nested, overlapping,
// a name nested in itself counted once), the filter, and the late count.
#include "sdscprov/profile/spans.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <doctest/doctest.h>
#include <iterator>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

TraceEvent span(std::string_view name, std::string_view ts, std::string_view dur,
                std::string_view cat = "user_annotation") {
    TraceEvent e;
    e.object = true;
    e.ph_state = FieldState::ok;
    e.ph = "X";
    e.name_state = FieldState::ok;
    e.name = name;
    e.cat_state = FieldState::ok;
    e.cat = cat;
    e.ts_state = FieldState::ok;
    e.ts = ts;
    e.dur_state = FieldState::ok;
    e.dur = dur;
    return e;
}

const SpanRow& row(const SpanSummary& s, const std::string& name) {
    for (const auto& r : s.rows) {
        if (r.name == name) {
            return r;
        }
    }
    FAIL("no row ", name);
    return s.rows.front();
}

// Spans of a few names at random (overlapping, nested, out of order), read into a log; the
// reference counts each name's activities over the spans themselves.
struct RandomSpans {
    struct Interval {
        std::uint64_t start, end;
        std::size_t name;
    };
    std::uint64_t seed;
    std::vector<Interval> spans;
    std::vector<std::string> texts;  // the events' text, alive while the log reads them
    std::vector<std::uint64_t> want; // per name, its activities

    RandomSpans(std::uint64_t s, std::size_t names) : seed(s), want(names, 0) {}
    std::uint64_t next(std::uint64_t n) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return (seed >> 33) % n;
    }
    // `count` spans starting before `until` us: one in `long_every` up to `long_us` long, the
    // others up to `short_us`.
    void read_into(SpanLog& log, int count, std::uint64_t until, int long_every,
                   std::uint64_t long_us, std::uint64_t short_us) {
        for (int i = 0; i < count; ++i) {
            std::uint64_t start = next(until),
                          dur = 1 + next(i % long_every == 0 ? long_us : short_us);
            spans.push_back({start, start + dur, static_cast<std::size_t>(next(want.size()))});
            texts.push_back(std::to_string(start));
            texts.push_back(std::to_string(dur));
        }
        for (std::size_t i = 0; i < spans.size(); ++i) {
            log.event(span("s" + std::to_string(spans[i].name), texts[2 * i], texts[2 * i + 1]),
                      std::nullopt);
        }
    }
    // An activity at `t` us: each name that holds it counts it once.
    void activity(std::uint64_t t) {
        std::vector<bool> in(want.size(), false);
        for (const auto& s : spans) {
            in[s.name] = in[s.name] || (s.start <= t && t < s.end);
        }
        for (std::size_t n = 0; n < want.size(); ++n) {
            want[n] += in[n] ? 1 : 0;
        }
    }
    void check(const SpanSummary& sum) const {
        for (std::size_t n = 0; n < want.size(); ++n) {
            CHECK(row(sum, "s" + std::to_string(n)).activities == want[n]);
        }
    }
};

} // namespace

TEST_CASE("spans: user_annotation spans with a name, not steps, not CPU ops") {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    CHECK(is_host_span(span("decode", "1.5", "2"), start, end));
    CHECK(start == 1500);
    CHECK(end == 3500);
    CHECK_FALSE(is_host_span(span("ProfilerStep#3", "1", "1"), start, end));
    CHECK_FALSE(is_host_span(span("aten::add", "1", "1", "cpu_op"), start, end));
    CHECK_FALSE(is_host_span(span("decode", "1", "1", "gpu_user_annotation"), start, end));
    CHECK_FALSE(is_host_span(span("", "1", "1"), start, end));
    CHECK_FALSE(is_host_span(span("decode", "-1", "1"), start, end));
}

TEST_CASE("spans: nested and overlapping, in any order, a name counted once per activity") {
    SpanLog log;
    log.event(span("attn", "20", "10"), std::nullopt);  // [20, 30) us
    log.event(span("model", "0", "100"), std::nullopt); // [0, 100)
    log.event(span("attn", "22", "2"), std::nullopt);   // [22, 24): attn in attn
    log.event(span("late", "50", "60"), std::nullopt);  // [50, 110): past model's end
    IdleTime gap;
    gap.gaps = 1;
    gap.ns = 7;
    gap.host_wait_ns = 7;
    log.add(23000, false, 5, gap);  // model, attn (once)
    log.add(30000, false, 11, {});  // model only: attn ends at 30
    log.add(105000, true, 13, gap); // late only; a transfer
    log.add(200000, false, 17, {}); // in none
    SpanSummary s = log.finish();
    CHECK(s.spans == 4);
    CHECK(s.kept == 4);
    CHECK(s.late == 0);
    CHECK(row(s, "attn").occurrences == 2);
    CHECK(row(s, "attn").kernels == 1);
    CHECK(row(s, "attn").kernel_ns == 5);
    CHECK(row(s, "attn").idle.ns == 7);
    CHECK(row(s, "model").kernels == 2);
    CHECK(row(s, "model").kernel_ns == 16);
    CHECK(row(s, "late").activities == 1);
    CHECK(row(s, "late").kernels == 0);
    CHECK(row(s, "late").idle.host_wait_ns == 7);
    // by kernel time, then activities, then name
    REQUIRE(s.rows.size() == 3);
    CHECK(s.rows[0].name == "model");
    CHECK(s.rows[1].name == "attn");
    CHECK(s.rows[2].name == "late");
}

TEST_CASE("spans: the filter keeps what a matching name holds, late spans are counted") {
    std::string error;
    CHECK_FALSE(SpanFilter::compile("de(code", error));
    CHECK(error.find("regular expression") != std::string::npos);
    auto filter = SpanFilter::compile("^dec", error);
    REQUIRE(filter);
    SpanLog log(*filter);
    log.event(span("decode", "10", "10"), std::nullopt);
    log.event(span("predecode", "0", "100"), std::uint64_t{5000}); // starts before 5 us: late
    log.event(span("decode", "50", "1"), std::uint64_t{5000});
    CHECK(log.kept(10000));
    CHECK(log.kept(19999));
    CHECK_FALSE(log.kept(20000));
    CHECK(log.kept(50500));
    CHECK_FALSE(log.kept(5000));
    SpanSummary s = log.finish();
    CHECK(s.filter == std::optional<std::string>("^dec"));
    CHECK(s.matching == 2);
    CHECK(s.late == 1);
}

TEST_CASE("spans: a span read after an activity was looked up changes what a later one finds") {
    std::string error;
    SpanLog log(SpanFilter::compile("^decode$", error));
    log.event(span("model", "0", "100"), std::nullopt);  // [0, 100) us
    CHECK_FALSE(log.kept(50'000));                       // in model only
    log.event(span("decode", "40", "20"), std::nullopt); // [40, 60): holds 50 us now
    CHECK(log.kept(50'000));
    CHECK_FALSE(log.kept(70'000));
    log.event(span("decode", "65", "10"), std::nullopt); // [65, 75)
    CHECK(log.kept(70'000));
    CHECK_FALSE(log.kept(90'000));
}

TEST_CASE(
    "spans: thousands of spans in a scrambled order, each activity in the names that hold it") {
    // 3,000 spans of 7 names (the time axis is cut into many chunks, each split as it grows),
    // then activities at every 7 us.
    RandomSpans random(12345, 7);
    SpanLog log;
    random.read_into(log, 3000, 200'000, 10, 5'000, 60);
    for (std::uint64_t t = 0; t < 206'000; t += 7) {
        log.add(t * 1000, false, 1, IdleTime{});
        random.activity(t);
    }
    random.check(log.finish());
}

TEST_CASE("spans: activities looked up forwards and back, near and far, on two devices") {
    // 2,000 spans of 5 names (about a cut every 50 us), then activities whose times jump about:
    // back a little or a lot, on by a few cuts, by tens, by hundreds; two devices in turn, each
    // with its own last piece.
    RandomSpans random(777, 5);
    SpanLog log;
    random.read_into(log, 2000, 100'000, 20, 3'000, 80);
    const std::int64_t jumps[] = {-20'000, -400, -150, -30, 0, 40, 200, 700, 2'500, 9'000, 30'000};
    std::int64_t t[2] = {0, 50'000};
    for (int i = 0; i < 4000; ++i) {
        const std::size_t lane = static_cast<std::size_t>(i % 2);
        t[lane] = std::clamp<std::int64_t>(t[lane] + jumps[random.next(std::size(jumps))] +
                                               static_cast<std::int64_t>(random.next(40)),
                                           0, 103'000);
        const auto at = static_cast<std::uint64_t>(t[lane]);
        log.add(at * 1000, false, 1, IdleTime{}, lane);
        random.activity(at);
    }
    random.check(log.finish());
}

TEST_CASE("spans: tens of thousands of names, each kept apart however they look alike") {
    // More names than SpanLog's cache of names has places, alike in length and in their first
    // and last bytes: names sharing a place must never be taken for each other. The activities
    // come from three devices in turn, each span read between them.
    SpanLog log;
    constexpr int names = 40000;
    std::vector<std::string> text(names);
    std::vector<std::string> ts(names);
    for (int i = 0; i < names; ++i) {
        std::string n = std::to_string(i);
        text[i] = "launch_jobplan:sdsc_" + std::string(8 - n.size(), '0') + n + "_fused_add";
    }
    for (int round = 0; round < 2; ++round) { // each name twice, at two times, the cache warm
        for (int i = 0; i < names; ++i) {
            const int at = round * names + i;
            ts[i] = std::to_string(10 * at);
            const auto lane = static_cast<std::size_t>(i % 3);
            // In no span (after every cut) on the lane, before the span that then holds its time.
            log.add(static_cast<std::uint64_t>(10 * at) * 1000 - 2000, false, 1000000, {}, lane);
            log.event(span(text[i], ts[i], "5"), std::nullopt);
            log.add(static_cast<std::uint64_t>(10 * at) * 1000 + 1000, false,
                    static_cast<std::uint64_t>(i + 1), {}, lane);
        }
    }
    SpanSummary s = log.finish();
    REQUIRE(s.rows.size() == names);
    for (int i = 0; i < names; i += 997) {
        CAPTURE(text[i]);
        const SpanRow& r = row(s, text[i]);
        CHECK(r.occurrences == 2);
        CHECK(r.kernels == 2);
        CHECK(r.kernel_ns == 2 * static_cast<std::uint64_t>(i + 1));
    }
    std::uint64_t total = 0;
    for (const auto& r : s.rows) {
        CHECK(r.occurrences == 2);
        total += r.kernel_ns;
    }
    CHECK(total == 2 * static_cast<std::uint64_t>(names) * (names + 1) / 2);
}
