// Comparison of two profiles of one model (`profile --baseline BASE TRACE`): every row of each
// ranking joined with the row of the same label in the other run, the change in device time, and
// the gate that fails a run when a row that matters grew too much. The printers
// (report/compare_printers.hpp) only render a ProfileComparison. docs/profile.md describes it.
//
// The two runs are compared by their totals: a row's time is summed over the whole trace of each
// run, so runs of different lengths give changes that say so.
#pragma once

#include "sdscprov/profile/profile.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// One label in either run. A row in one run only has no time in the other (`base` or `now` is
// nullopt): it is new (no base) or gone (no new time).
struct RowChange {
    std::string label;
    std::optional<SourceLine> line;  // by line, unless a "[...]" row
    std::optional<std::string> text; // the source line's text, when readable here
    std::optional<DeviceTime> base;
    std::optional<DeviceTime> now;
    // The model source line a finding about this row points at: the row's own line, else the
    // line of most new (then base) device time among the row's bundles; nullopt when none has one.
    std::optional<SourceLine> where;

    std::uint64_t base_ns() const { return base ? base->ns : 0; }
    std::uint64_t new_ns() const { return now ? now->ns : 0; }
    std::int64_t change_ns() const; // new - base, clamped to the int64 range
    // 100 * (new - base) / base; nullopt when the row is new or its base time is 0.
    std::optional<double> change_percent() const;
    bool is_new() const { return !base; }
    bool is_gone() const { return !now; }
};

struct ProfileComparison {
    ProfileReport base;
    ProfileReport now;
    // Each ranking's rows, by the absolute change, largest first (growth before a shrink of the
    // same size), then new time, largest first, then label.
    std::vector<RowChange> by_line;
    std::vector<RowChange> by_aten;
    std::vector<RowChange> by_kernel;
};

ProfileComparison compare_profiles(ProfileReport base, ProfileReport now);

// ---- the gate -----------------------------------------------------------------------------------

// A row that grew by more than the allowed percentage while holding at least the minimum share
// of the base or of the new total device time. A new row (no base time) has grown without bound.
struct GateFinding {
    const RowChange* row = nullptr;
    double base_share = 0; // percent of the base run's device time
    double new_share = 0;  // percent of the new run's
    std::string message;   // "grew by 31.2 % (12.000 ms -> 15.744 ms): aten.mm.default"
};

struct GateOptions {
    double fail_over_percent = 0;
    double min_share_percent = 1;
};

// The findings over `rows` (one ranking of `comparison`), in the rows' order.
std::vector<GateFinding> gate_findings(const ProfileComparison& comparison,
                                       const std::vector<RowChange>& rows,
                                       const GateOptions& options);

} // namespace sdscprov
