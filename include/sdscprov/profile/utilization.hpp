// Utilization: device time set against the compiler's ideal (ideal.hpp, docs/profile.md). A
// kernel event's ideal is its bundle's: the ideal the perf/ideal_cycles.json of every one of the
// bundle's kernel directories gives (none when they differ), at the run's core clock. Per event,
// lost = max(0, dur - ideal); an event whose ideal exceeds its dur is counted (util-over-100).
// Events of bundles without an ideal carry neither: utilization is over the events that have one,
// and the report says how many those are (the coverage of the ideal).
//
// A `#<step>` belongs to the whole bundle, so utilization is per bundle; a source line's or an
// ATen op's is over the bundles it is part of, each counted fully.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/ideal.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// The ideal of a set of kernel events, and what they took beyond it.
struct IdealTime {
    std::uint64_t events = 0;          // measured kernel events whose bundle has an ideal
    std::uint64_t measured_ns = 0;     // their dur, summed
    std::uint64_t ideal_ns = 0;        // their ideal, summed (the bundle's, once per event)
    std::uint64_t lost_ns = 0;         // max(0, dur - ideal), summed
    std::uint64_t over_100_events = 0; // of them, those whose ideal exceeds their dur

    void add(const IdealTime& other); // sums saturate at 2^64 - 1
    // One event of `dur_ns` whose bundle's ideal is `ideal_ns`; whether the ideal exceeds it.
    bool add_event(std::uint64_t dur_ns, std::uint64_t ideal_ns);
    bool known() const { return events > 0; }
    bool operator==(const IdealTime&) const = default;
};

// ideal / measured: nullopt when no event has an ideal, or none took any time.
std::optional<double> utilization(const IdealTime& t);

// A bundle's ideal, from one kernel directory.
struct BundleIdeal {
    std::string kernel_dir; // whose perf/ideal_cycles.json gave it
    KernelIdeal kernel;     // cycles, rule, category
    std::uint64_t ns = 0;   // ideal_ns(kernel.cycles, the run's clock)
};

// The category row a bundle with this ideal falls in: the kernel's category (that of its largest
// entry, TOTAL aside), "[no category]" for a file holding only a TOTAL entry.
std::string category_label(const std::optional<BundleIdeal>& ideal, bool paired);
inline constexpr std::string_view no_category_label = "[no category]";
inline constexpr std::string_view no_ideal_label = "[no ideal]";
inline constexpr std::string_view unresolved_label = "[unresolved]";

struct UtilizationOptions {
    std::uint32_t core_mhz = default_core_mhz;
    IdealReadOptions read;
};

// What the run's kernel directories' files gave, for the report.
struct IdealSummary {
    std::uint32_t core_mhz = default_core_mhz;
    std::uint64_t dirs_read = 0;      // kernel directories of paired bundles looked at
    std::uint64_t dirs_by_total = 0;  // whose ideal is their TOTAL entry
    std::uint64_t dirs_by_sum = 0;    // whose ideal is the sum of their entries
    std::uint64_t dirs_malformed = 0; // whose file could not be used (a bad-ideal-cycles warning)
    std::uint64_t dirs_absent = 0;    // without the file
    std::uint64_t bundles_with_ideal = 0;
    std::uint64_t bundles_without_ideal = 0; // paired bundles none of whose directories gave one
    IdealTime time;                          // the whole run
    std::vector<std::string> other_members;  // the files' other member names, each once

    bool any() const { return dirs_by_total + dirs_by_sum > 0; }
};

// The ideals of a run's kernel directories, each directory's file read once, when the first
// bundle in it is paired (so only the directories the trace's events pair with are read).
class KernelIdeals {
public:
    explicit KernelIdeals(UtilizationOptions options);
    ~KernelIdeals();
    KernelIdeals(const KernelIdeals&) = delete;
    KernelIdeals& operator=(const KernelIdeals&) = delete;

    // The ideal of a bundle found in `kernel_dirs` (walk order): the one they all give (the
    // first directory's). When they do not agree (one has none, or two differ), none: `differing`
    // (when given) gets the directories, each a candidate. Counted in the summary as a bundle with
    // or without an ideal.
    std::optional<BundleIdeal> of_bundle(const std::vector<std::string>& kernel_dirs,
                                         std::vector<std::string>* differing = nullptr);

    std::uint32_t core_mhz() const;
    // What was read; `time` is left for the caller to fill.
    IdealSummary summary() const;
    // The bad-ideal-cycles warnings, one per unusable file, in the order read.
    std::vector<Problem> take_problems();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
