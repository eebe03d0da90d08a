// The text tables of the time between kernels (report/timeline_printers.hpp, span_printers.hpp,
// steps_compared.hpp) sized to their figures: a whole trace of hours or a step of days keeps every
// figure under its heading, two columns at least from the one before; on a narrow terminal the
// step table and the rankings leave out their least needed columns, and say so.
#include "report/profile_format.hpp"
#include "report/span_printers.hpp"
#include "report/steps_compared.hpp"
#include "report/timeline_printers.hpp"
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "text_lines.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace sdscprov;

namespace {

// The cells of a table's line: runs of text apart by two spaces or more, with the column each
// ends at (one space stays inside a cell: "wall (ms)").
std::vector<std::pair<std::string, std::size_t>> cells(const std::string& line) {
    std::vector<std::pair<std::string, std::size_t>> out;
    std::size_t at = 0;
    while (at < line.size()) {
        auto start = line.find_first_not_of(' ', at);
        if (start == std::string::npos) {
            break;
        }
        auto end = line.find("  ", start);
        end = end == std::string::npos ? line.size() : end;
        out.emplace_back(line.substr(start, end - start), end);
        at = end;
    }
    return out;
}

// The first line that holds `head`, and the `rows` lines after it.
std::vector<std::string> table(const std::string& text, const std::string& head, std::size_t rows) {
    auto all = lines_of(text);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].find(head) != std::string::npos && i + rows < all.size()) {
            return {all.begin() + static_cast<std::ptrdiff_t>(i),
                    all.begin() + static_cast<std::ptrdiff_t>(i + rows + 1)};
        }
    }
    FAIL("no line with " << head << " in:\n" << text);
    return {};
}

// Every line of `t` has the cells `want[i]`; in each row, the cells `from` to `to` (right-aligned
// figures) end in the column their heading ends in, the heading `shift` cells before them (the
// heading line has no cell over a row's name).
void check_aligned(const std::vector<std::string>& t,
                   const std::vector<std::vector<std::string>>& want, std::size_t from,
                   std::size_t to, std::size_t shift) {
    REQUIRE(t.size() == want.size());
    auto head = cells(t[0]);
    for (std::size_t i = 0; i < t.size(); ++i) {
        CAPTURE(t[i]);
        auto got = cells(t[i]);
        REQUIRE(got.size() == want[i].size());
        for (std::size_t c = 0; c < got.size(); ++c) {
            CHECK(got[c].first == want[i][c]);
        }
        for (std::size_t c = from; i > 0 && c < to; ++c) {
            CHECK(got[c].second == head[c - shift].second);
        }
    }
}

constexpr std::uint64_t big = 123'456'789'012'345; // 123,456,789.012 ms: 34 hours

} // namespace

TEST_CASE("table widths: a step table of figures of any size keeps them apart and aligned") {
    ProfileReport r;
    r.timeline.launch_events = 1;
    r.timeline.step_spans = true;
    StepTimeline slow;
    slow.name = "ProfilerStep#7";
    slow.wall_ns = big;
    slow.kernel_busy_ns = big / 3;
    slow.transfer_ns = big / 7;
    slow.idle = IdleTime{12, big, big / 2, big / 4, big / 4};
    slow.launch.launched = 12'345'678'901;
    slow.transfer_bytes = 1000;
    slow.transfer_active_ns = 10;
    StepTimeline quick;
    quick.name = "ProfilerStep#8";
    quick.wall_ns = 1'000'000;
    r.timeline.steps = {slow, quick};
    auto t = table(timeline_printers::text(r, 0, 200, false), "wall (ms)", 2);
    check_aligned(t,
                  {{"step", "wall (ms)", "kernel", "transfer", "idle", "wait", "latency", "unattr.",
                    "launches", "GB/s"},
                   {"ProfilerStep#7", "123,456,789.012", "41,152,263.004", "17,636,684.145",
                    "123,456,789.012", "61,728,394.506", "30,864,197.253", "30,864,197.253",
                    "12,345,678,901", "100.00"},
                   {"ProfilerStep#8", "1.000", "0.000", "0.000", "0.000", "0.000", "0.000", "0.000",
                    "0", "-"}},
                  1, 10, 0);
}

TEST_CASE(
    "table widths: a step table too wide for the report leaves out its least needed columns") {
    ProfileReport r;
    r.timeline.launch_events = 1;
    r.timeline.step_spans = true;
    StepTimeline step;
    // 2 + 14 columns, then 11, 5 x 9, 10 twice (two more than "transfer", "launches") and 8: 100
    step.name = "ProfilerStep#7";
    step.wall_ns = 15'848'000;
    r.timeline.steps = {step};
    r.timeline.step_min_ns = r.timeline.step_median_ns = r.timeline.step_max_ns = step.wall_ns;
    const std::vector<std::string> all = {"step", "wall (ms)", "kernel",  "transfer", "idle",
                                          "wait", "latency",   "unattr.", "launches", "GB/s"};
    const std::pair<std::size_t, std::vector<std::string>> widths[] = {
        {100, all},
        {99,
         {"step", "wall (ms)", "kernel", "transfer", "idle", "wait", "latency", "unattr.",
          "launches"}},
        {72, {"step", "wall (ms)", "kernel", "idle", "wait", "latency", "unattr."}},
        {71, {"step", "wall (ms)", "kernel", "idle", "wait", "latency"}},
        {20, {"step", "wall (ms)", "kernel", "idle"}},
    };
    for (const auto& row : widths) {
        const std::size_t width = row.first; // not a structured binding: clang cannot capture one
        const std::vector<std::string>& shown = row.second;
        CAPTURE(width);
        auto text = timeline_printers::text(r, 0, width, false);
        auto t = table(text, "wall (ms)", 1);
        std::vector<std::string> head;
        for (const auto& c : cells(t[0])) {
            head.push_back(c.first);
        }
        CHECK(head == shown);
        CHECK(cells(t[1]).size() == shown.size());
        std::string left_out;
        for (const auto& name : all) {
            if (std::find(shown.begin(), shown.end(), name) == shown.end()) {
                left_out += (left_out.empty() ? "" : ", ") + name;
            }
        }
        std::string joined = text; // the note's lines wrapped at the width, as one
        for (auto at = joined.find("\n  "); at != std::string::npos; at = joined.find("\n  ")) {
            joined.replace(at, 3, " ");
        }
        // the title wrapped, not cut: its end, the slowest step's time, is there
        CHECK(joined.find("median 15.848, max 15.848 ms\n") != std::string::npos);
        CHECK((joined.find("(not shown at this width: " + left_out + ";") != std::string::npos) ==
              !left_out.empty());
        if (width >= 72) {
            for (const auto& line : lines_of(text)) {
                CHECK(profile_format::width_of(line) <= width);
            }
        }
    }
}

TEST_CASE("table widths: the host span table of figures of any size keeps them apart and aligned") {
    ProfileReport r;
    r.timeline.launch_events = 1;
    SpanRow decode;
    decode.name = "decode";
    decode.occurrences = 9'876'543'210;
    decode.activities = 12'345'678'901;
    decode.kernel_ns = big;
    decode.idle = IdleTime{3, big * 2, big, 0, big};
    SpanRow small;
    small.name = "prefill";
    small.occurrences = 1;
    small.activities = 2;
    small.kernel_ns = 3'000'000;
    r.spans.spans = 9'876'543'211;
    r.spans.rows = {decode, small};
    auto t = table(span_printers::text(r, true, 0, 200, false), "kernel (ms)", 2);
    check_aligned(t,
                  {{"kernel (ms)", "idle (ms)", "wait (ms)", "activities", "spans", "span"},
                   {"123,456,789.012", "246,913,578.025", "123,456,789.012", "12,345,678,901",
                    "9,876,543,210", "decode"},
                   {"3.000", "0.000", "0.000", "2", "1", "prefill"}},
                  0, 5, 0);
}

TEST_CASE("table widths: the mean step compared keeps figures of any size apart and aligned") {
    StepsCompared s;
    s.base.steps = 1;
    s.base.wall_ns = big;
    s.now.steps = 1;
    s.now.wall_ns = 2 * big;
    auto t = table(steps_compared::text(s, 200, false), "base ms", 1);
    check_aligned(
        t,
        {{"base ms", "new ms", "change ms", "change"},
         {"step time", "123,456,789.012", "246,913,578.025", "+123456789.012", "+100.0 %"}},
        1, 5, 1);
}

TEST_CASE("table widths: a figure wider than its fixed column keeps a space before it") {
    using profile_format::cell;
    CHECK(cell("12.5", 6) == "  12.5");
    CHECK(cell("123,456", 7) == " 123,456");
    CHECK(cell("123,456,789", 7) == " 123,456,789");
    CHECK(cell("7", 4) + cell("1,234.567", 9) == "   7 1,234.567");
}

TEST_CASE("table widths: a ranking's figures too wide for their columns stay apart") {
    IdleTime idle{1, big, big, 0, 0};
    LaunchDelays launch;
    launch.launched = 1;
    launch.median_ns = big;
    auto line = timeline_printers::columns(idle, launch, false);
    CHECK(line == " 123,456,789.012 123,456,789.012 123,456,789.012");
    CHECK(timeline_printers::columns(idle, launch, true) == " 123,456,789.012");
}

TEST_CASE("table widths: a ranking too narrow for its label beside the idle columns keeps idle "
          "alone and says so") {
    ProfileReport r;
    r.timeline.launch_events = 1;
    ProfileRow row;
    row.label = "/home/ci-runner/work/llm/run_inference.py:98"; // 44 columns
    row.time.ns = 48'837'000;
    row.time.events = 60;
    row.idle = IdleTime{5, 15'363'000, 2'000'000, 0, 13'363'000};
    row.launch.launched = 60;
    row.launch.median_ns = 93'000;
    r.rows(ProfileRanking::line).push_back(row);
    r.coverage.kernel_ns = row.time.ns;
    ProfileTextOptions o;
    o.rankings = {&ranking_spec(ProfileRanking::line)};
    // time 13, % 7, events 10, idle 12, wait 11, launch 12, two spaces: 67 before the label
    const std::pair<std::size_t, bool> widths[] = {{91, false}, {90, true}, {80, true}};
    for (const auto& w : widths) {
        const std::size_t width = w.first;
        const bool idle_only = w.second;
        CAPTURE(width);
        o.width = width;
        auto text = render_profile_text(r, o);
        auto t = table(text, "source line", 1);
        CHECK((t[0].find("idle (ms)  wait (ms) launch (ms)  source line") != std::string::npos) ==
              !idle_only);
        CHECK((t[0].find("idle (ms)  source line") != std::string::npos) == idle_only);
        auto got = cells(t[1]);
        CHECK(got.size() == (idle_only ? 5 : 7));
        if (idle_only && width >= 90) { // 46 columns before the label, 44 of it: whole at 90
            CHECK(got.back().first == row.label);
        }
        CHECK((text.find("(wait, launch: not shown at this width") != std::string::npos) ==
              idle_only);
    }
}
