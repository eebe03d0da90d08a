// Comparison of two profiles of one model (`profile --baseline BASE TRACE`): every row of each
// ranking joined with the row of the same label in the other run, the change in device time, and
// the gate that fails a run when a row that matters grew too much. The printers
// (report/compare_printers.hpp) only render a ProfileComparison. docs/profile.md describes it.
//
// When both traces have the profiler's step spans (steps.hpp) and kernels in them, the runs are
// compared per step: a row's time in each run is the device time of its kernel events that
// started in a step, divided by that run's steps (rounded half up to the ns), so runs of
// different lengths compare fairly. Otherwise by their totals: a row's time is summed over the
// whole trace of each run, and the comparison says why (basis_note).
#pragma once

#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// One label in either run. A row in one run only has no time in the other (`base` or `now` is
// nullopt): it is new (no base) or gone (no new time). Per step, a time's ns is per step and its
// events those that started in a step (all steps).
struct RowChange {
    std::string label;
    std::optional<SourceLine> line;  // by line, unless a "[...]" row
    std::optional<std::string> text; // the source line's text, when readable here
    std::optional<DeviceTime> base;
    std::optional<DeviceTime> now;
    // The model source line a finding about this row points at: the row's own line, else the
    // line of most new (then base) device time among the row's bundles; nullopt when none has one.
    std::optional<SourceLine> where;
    // A source line row matched as moved: the base run's line (and file) it was at. A base row
    // with no match and an unmatched new row are one moved line when their texts are equal (both
    // readable) and their files are the same file: equal paths, or the pair of paths sharing the
    // most trailing components (the file name at least) among the rows of that text, alone.
    std::optional<SourceLine> moved_from;
    // The labels of the row's bundles (the kernel ranking's rows) whose compared time grew, new
    // ones included, the largest growth first: what a finding about the row names as its cause.
    std::vector<std::string> grown;
    // As people read it (shown_label()), set by compare_profiles(); empty: not set.
    std::string shown;

    std::uint64_t base_ns() const { return base ? base->ns : 0; }
    std::uint64_t new_ns() const { return now ? now->ns : 0; }
    std::int64_t change_ns() const; // new - base, clamped to the int64 range
    // 100 * (new - base) / base; nullopt when the row is new or its base time is 0.
    std::optional<double> change_percent() const;
    bool is_new() const { return !base; }
    bool is_gone() const { return !now; }
    // The row as people read it: `shown` when set; else a moved line as "file:12 -> 14" (the
    // base line first), or "base-file:12 -> file:14" when the file moved too; any other row its
    // label.
    std::string shown_label() const;
};

// Two checkouts of one model: the directories under which the base run's files and the new
// run's are the same files ("/w/co_base/", "/w/co_new/"), learned from the moved lines whose paths
// differ only there (the pair most of them share).
struct Checkouts {
    std::string base;
    std::string now;
};

// What a row's compared time is: its device time over the whole traces (totals) or per step, or
// (`--by idle`) the idle time before its activities over the whole traces (timeline.hpp).
enum class CompareBasis : std::uint8_t { totals, steps, idle };
std::string_view to_string(CompareBasis b); // "totals", "steps", "idle"

// What of one run was compared.
struct RunCompared {
    std::uint64_t steps = 0;  // its step spans (0: none)
    std::uint64_t ns = 0;     // its device time as compared: the whole trace's, or per step
    std::uint64_t events = 0; // the kernel events counted in it: all, or those in a step
    // Per step: the kernel events that started in no step, left out of every figure.
    std::uint64_t outside_events = 0;
    std::uint64_t outside_ns = 0;
};

// One run's mean step, from its timeline (timeline.hpp): each figure of its steps summed and
// divided by their number, rounded half up to the ns (per_step); with no step span the whole
// trace is its one step. Idle, host wait and the rest are summed over the devices, as the steps
// table gives them.
struct MeanStep {
    std::uint64_t steps = 0;       // the steps averaged: the step spans, or 1 (the whole trace)
    bool step_spans = false;       // false: the whole trace is the one step
    std::uint64_t wall_ns = 0;     // the mean step time
    std::uint64_t min_ns = 0, median_ns = 0, max_ns = 0; // of the steps' wall times
    std::uint64_t kernel_busy_ns = 0;
    std::uint64_t transfer_ns = 0;
    IdleTime idle;                 // every member per step (gaps too)
    std::uint64_t launches = 0;    // launched activities per step
    std::uint64_t launch_median_ns = 0; // the median launch delay over every step's activities
};
MeanStep mean_step(const TimelineSummary& t);

// The two runs' mean steps: what profile --baseline shows of the time between kernels.
struct StepsCompared {
    MeanStep base;
    MeanStep now;
};

struct ProfileComparison {
    ProfileReport base;
    ProfileReport now;
    CompareBasis basis = CompareBasis::totals;
    std::string basis_note; // totals: why not per step, e.g. "no step spans in the base trace"
    RunCompared base_run;
    RunCompared new_run;
    // Each ranking of the new run (ranking.hpp), its rows joined with the base run's: by the
    // absolute change, largest first (growth before a shrink of the same size), then new time,
    // largest first, then label.
    struct Changes {
        const RankingSpec* spec = nullptr;
        std::vector<RowChange> rows;
    };
    std::vector<Changes> rankings;
    // When the runs' files lie in two checkouts: each row's path is shown from its run's
    // checkout, and a line is shown as moved only when it moved there (RowChange::shown).
    std::optional<Checkouts> checkouts;
    // When either trace has runtime launch events, or the rows are compared by idle time.
    std::optional<StepsCompared> steps;

    // The compared rows of one ranking (empty when the runs have none).
    const std::vector<RowChange>& rows(const RankingSpec& spec) const;
    const std::vector<RowChange>& rows(ProfileRanking r) const;
};

// `idle`: the rows compared by their idle time (CompareBasis::idle), else by device time.
ProfileComparison compare_profiles(ProfileReport base, ProfileReport now, bool idle = false);

// What the comparison compares, for its sentences: "device time" or "idle time".
std::string_view compared_quantity(const ProfileComparison& c);

// ---- the gate -----------------------------------------------------------------------------------

// A row that grew by more than the allowed percentage while holding at least the minimum share
// of the base or of the new total device time. A new row (no base time) has grown without bound.
// One finding of the gate: a row over the limit, and the rows over it whose grown bundles are the
// same (one slowed kernel grows each of its source lines alike: one finding, not one per line).
struct GateFinding {
    const RowChange* row = nullptr;     // the first of them in the ranking's order
    std::vector<const RowChange*> also; // the others, in that order
    double base_share = 0;              // percent of the base run's device time (of `row`)
    double new_share = 0;               // percent of the new run's
    // "device time grew by 31.2 % (12.000 ms -> 15.744 ms, 9.0 % of the new device time): a.py:12
    // and 3 more rows (b.py:7, ...); kernel K@dir" ("idle time ..." when compared by idle time)
    std::string message;
};

struct GateOptions {
    double fail_over_percent = 0;
    double min_share_percent = 1;
};

// The findings over `rows` (one ranking of `comparison`), in the rows' order; rows over the limit
// with the same grown bundles are one finding.
std::vector<GateFinding> gate_findings(const ProfileComparison& comparison,
                                       const std::vector<RowChange>& rows,
                                       const GateOptions& options);

} // namespace sdscprov
