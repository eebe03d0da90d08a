// The profiler's step spans: which events are steps, kernels attributed by their start (spans
// logged in any order, before or after the kernels), the time of an unpaired group moved to the
// overflow group, and the per-step rounding; and a comparison per step of hand-built reports.
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/steps.hpp"
#include "sdscprov/profile/trace.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

TraceEvent complete(std::string_view name, std::string_view cat, std::string_view ts,
                    std::string_view dur) {
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

TraceEvent kernel_at(std::string_view ts) {
    return complete("spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa#3", "kernel", ts, "1");
}

} // namespace

TEST_CASE("steps: ProfilerStep spans of the host are steps, nothing else") {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    CHECK(is_step_span(complete("ProfilerStep#4", "user_annotation", "10.5", "2.25"), start, end));
    CHECK(start == 10500);
    CHECK(end == 12750);
    CHECK(is_step_span(complete("ProfilerStep#4", "cpu_op", "1", "1"), start, end));
    CHECK_FALSE(
        is_step_span(complete("ProfilerStep#4", "gpu_user_annotation", "1", "1"), start, end));
    CHECK_FALSE(is_step_span(complete("ProfilerStepX", "user_annotation", "1", "1"), start, end));
    CHECK_FALSE(is_step_span(complete("ProfilerStep#4", "user_annotation", "-1", "1"), start, end));
    auto no_ts = complete("ProfilerStep#4", "user_annotation", "1", "1");
    no_ts.ts_state = FieldState::absent;
    CHECK_FALSE(is_step_span(no_ts, start, end));
    auto instant = complete("ProfilerStep#4", "user_annotation", "1", "1");
    instant.ph = "i";
    CHECK_FALSE(is_step_span(instant, start, end));
}

TEST_CASE("steps: kernels attributed by their start, spans in any order") {
    StepLog log;
    log.kernel(0, kernel_at("5"), 100); // before the first step
    log.kernel(0, kernel_at("10"), 7);  // at the first step's start: in it
    log.event(complete("ProfilerStep#2", "user_annotation", "20", "10")); // [20, 30) us
    log.kernel(1, kernel_at("19.999"), 11); // after the first step ended: in none
    log.kernel(1, kernel_at("29.999"), 13); // starts in the second, runs past its end: in it
    log.kernel(1, kernel_at("30"), 17);     // at the second's end: in none
    log.event(complete("ProfilerStep#1", "user_annotation", "10", "5")); // [10, 15) us
    auto no_ts = kernel_at("1");
    no_ts.ts_state = FieldState::absent;
    log.kernel(1, no_ts, 19);
    auto a = log.attribute(2);
    CHECK(a.summary.recorded);
    CHECK(a.summary.spans == 2);
    CHECK(a.ns == std::vector<std::uint64_t>{7, 13});
    CHECK(a.events == std::vector<std::uint64_t>{1, 1});
    CHECK(a.summary.events == 2);
    CHECK(a.summary.ns == 20);
    CHECK(a.summary.outside_events == 4);
    CHECK(a.summary.outside_ns == 100 + 11 + 17 + 19);
}

TEST_CASE("steps: a slot's time moved to the overflow group goes with it, later events stay") {
    StepLog log;
    log.event(complete("ProfilerStep#1", "user_annotation", "0", "100"));
    log.kernel(0, kernel_at("1"), 5);
    log.kernel(0, kernel_at("2"), 6);
    log.moved(0, 2); // slot 0's group left the table: slot 0 is another group's from here on
    log.kernel(0, kernel_at("3"), 7);
    log.kernel(2, kernel_at("4"), 1);
    auto a = log.attribute(3);
    CHECK(a.ns == std::vector<std::uint64_t>{7, 0, 12});
    CHECK(a.events == std::vector<std::uint64_t>{1, 0, 3});
}

TEST_CASE("steps: per-step figures rounded half up to the ns") {
    CHECK(per_step(10, 4) == 3); // 2.5
    CHECK(per_step(9, 4) == 2);  // 2.25
    CHECK(per_step(11, 4) == 3); // 2.75
    CHECK(per_step(12, 4) == 3);
    CHECK(per_step(5, 0) == 0);
    CHECK(per_step(~std::uint64_t{0}, 2) == std::uint64_t{1} << 63);
}

TEST_CASE("compare: per step when both runs have steps, the rows' time per step") {
    auto run = [](std::uint64_t spans, std::uint64_t step_ns, std::uint64_t total_ns) {
        ProfileReport r;
        r.coverage.kernel_ns = total_ns;
        r.coverage.kernel_events = 9;
        r.steps.recorded = true;
        r.steps.spans = spans;
        r.steps.ns = step_ns;
        r.steps.events = 4;
        r.steps.outside_events = 5;
        r.steps.outside_ns = total_ns - step_ns;
        ProfileBundle b;
        b.time.ns = total_ns;
        b.time.events = 9;
        b.step_ns = step_ns;
        b.step_events = 4;
        r.bundles.push_back(b);
        ProfileRow row;
        row.label = "aten.mm.default";
        row.time = b.time;
        row.bundles = {0};
        r.rows(ProfileRanking::aten).push_back(row);
        return r;
    };
    auto c = compare_profiles(run(10, 1005, 5000), run(12, 1206, 9000));
    CHECK(c.basis == CompareBasis::steps);
    CHECK(c.basis_note.empty());
    CHECK(c.base_run.ns == 101); // 100.5 rounded half up
    CHECK(c.new_run.ns == 101);  // 100.5
    CHECK(c.base_run.outside_events == 5);
    REQUIRE(c.rows(ProfileRanking::aten).size() == 1);
    CHECK(c.rows(ProfileRanking::aten)[0].base_ns() == 101);
    CHECK(c.rows(ProfileRanking::aten)[0].new_ns() == 101);
    CHECK(c.rows(ProfileRanking::aten)[0].base->events == 4);

    auto without = run(0, 0, 5000);
    without.steps.events = 0;
    auto t = compare_profiles(std::move(without), run(12, 1206, 9000));
    CHECK(t.basis == CompareBasis::totals);
    CHECK(t.basis_note == "no step spans in the base trace");
    CHECK(t.rows(ProfileRanking::aten)[0].base_ns() == 5000);
    CHECK(t.rows(ProfileRanking::aten)[0].new_ns() == 9000);
    auto outside = run(3, 0, 5000);
    outside.steps.events = 0;
    CHECK(compare_profiles(run(10, 1005, 5000), std::move(outside)).basis_note ==
          "no kernel event of the new trace starts in one of its step spans");
}

namespace {

ProfileRow line_row(std::string file, std::int64_t line, std::string text, std::uint64_t ns) {
    ProfileRow r;
    r.line = SourceLine{file, line};
    r.label = r.line->label();
    r.text = std::move(text);
    r.time.ns = ns;
    r.time.events = 1;
    return r;
}

ProfileReport lines_report(std::vector<ProfileRow> rows) {
    ProfileReport r;
    r.rows(ProfileRanking::line) = std::move(rows);
    return r;
}

const RowChange* row_labelled(const std::vector<RowChange>& rows, const std::string& label) {
    for (const auto& r : rows) {
        if (r.label == label) {
            return &r;
        }
    }
    return nullptr;
}

} // namespace

TEST_CASE("compare: moved lines matched by file and text, alone") {
    auto c = compare_profiles(
        lines_report({line_row("/m.py", 12, "y = f(x)", 100), line_row("/m.py", 20, "z = g(y)", 7),
                      line_row("/a/pkg/n.py", 3, "w = h(z)", 5),
                      line_row("/m.py", 30, "return y", 9)}),
        lines_report(
            {line_row("/m.py", 14, "y = f(x)", 150), line_row("/m.py", 21, "z = g(y)", 8),
             line_row("/m.py", 22, "z = g(y)", 8), line_row("/b/other/n.py", 3, "w = h(z)", 6),
             line_row("/b/pkg/n.py", 4, "w = h(z)", 6), line_row("/q.py", 30, "return y", 9)}));
    const auto* moved = row_labelled(c.rows(ProfileRanking::line), "/m.py:14");
    REQUIRE(moved != nullptr);
    REQUIRE(moved->moved_from);
    CHECK(moved->moved_from->line == 12);
    CHECK(moved->base_ns() == 100);
    CHECK(moved->new_ns() == 150);
    CHECK(row_labelled(c.rows(ProfileRanking::line), "/m.py:12") == nullptr);
    // Two new rows of that text in that file: which one is not known, none is matched.
    CHECK(row_labelled(c.rows(ProfileRanking::line), "/m.py:20")->is_gone());
    CHECK_FALSE(row_labelled(c.rows(ProfileRanking::line), "/m.py:21")->moved_from);
    // Another checkout: the path sharing the most trailing components.
    const auto* pkg = row_labelled(c.rows(ProfileRanking::line), "/b/pkg/n.py:4");
    REQUIRE(pkg->moved_from);
    CHECK(pkg->moved_from->file == "/a/pkg/n.py");
    CHECK(row_labelled(c.rows(ProfileRanking::line), "/b/other/n.py:3")->is_new());
    // Another file name: not the same file.
    CHECK(row_labelled(c.rows(ProfileRanking::line), "/m.py:30")->is_gone());
    CHECK(row_labelled(c.rows(ProfileRanking::line), "/q.py:30")->is_new());
    CHECK(c.rows(ProfileRanking::line).size() == 8); // 4 + 6 rows, two pairs joined
}
