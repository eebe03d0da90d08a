// Profile: a profiler trace's device kernel events paired with their provenance, and their device
// time ranked by model source line, by ATen op and by kernel. The pairing and the aggregation
// live here; the printers (report/profile_printers.hpp) only render a ProfileReport, which holds
// every figure they show. docs/profile.md describes the rules.
//
// Pairing of a kernel event `spyre_kernel_v1_<summary>_<key>#<step>`:
//  - with torch-spyre's spyre_provenance.json: kernelIdentities[key] -> its direct handles (their
//    fused_from expanded) and its kernelOccurrences -> compiler kernel names -> kernel
//    directories in the caches;
//  - without one (or for a key no sidecar has): the event's args.debug_handles looked up in the
//    caches' SDSC files, which also gives the kernel directory.
// A `#<step>` belongs to the whole bundle: an event's time is never split between its ops. A
// bundle counts fully for each of its source lines and each of its ATen ops, so the per-line
// and per-op totals can exceed the total device time.
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/join/handle_index.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/profile/spans.hpp"
#include "sdscprov/profile/steps.hpp"
#include "sdscprov/profile/timeline.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/profile/utilization.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// ---- time ---------------------------------------------------------------------------------------

// Integer nanoseconds from the JSON text of a number of microseconds (`dur`, `ts`), rounded half
// away from zero from the decimal digits themselves (never through a binary float): "12.3455" is
// 12346 ns. nullopt for a negative value, or one over max_event_ns.
inline constexpr std::uint64_t max_event_ns = std::uint64_t{1} << 62;
std::optional<std::uint64_t> microseconds_to_ns(std::string_view json_number);

// The form profilers write ("1712.345": digits without a needless leading zero, at most 16 of
// them, and at most three after a point): true, with the nanoseconds exactly as
// microseconds_to_ns gives them; false for any other text (microseconds_to_ns decides it).
bool plain_microseconds_to_ns(std::string_view json_number, std::uint64_t& ns);

// An event's dur and ts in nanoseconds: microseconds_to_ns of the text, or what the reader
// converted already (TraceEvent::dur_ns_known); nullopt when absent, not a number or out of range.
inline std::optional<std::uint64_t> event_dur_ns(const TraceEvent& e) {
    if (e.dur_state != FieldState::ok) {
        return std::nullopt;
    }
    return e.dur_ns_known ? std::optional(e.dur_ns) : microseconds_to_ns(e.dur);
}
inline std::optional<std::uint64_t> event_ts_ns(const TraceEvent& e) {
    if (e.ts_state != FieldState::ok) {
        return std::nullopt;
    }
    return e.ts_ns_known ? std::optional(e.ts_ns) : microseconds_to_ns(e.ts);
}

// The device's pipeline stages between the five counter readings of args.cycles_ts:
// DMI = TS2 - TS1, PREP = TS3 - TS2, CMPT = TS4 - TS3, DMO = TS5 - TS4 (modulo 2^32). A stage
// counts only when both of its readings are non-zero (0: not filled). Counter ticks, not seconds.
enum class Stage : std::uint8_t { dmi, prep, cmpt, dmo };
inline constexpr std::size_t stage_count = 4;
std::string_view to_string(Stage s); // "DMI", "PREP", "CMPT", "DMO"

struct StageTotals {
    std::array<std::uint64_t, stage_count> ticks{};  // summed (saturating)
    std::array<std::uint64_t, stage_count> events{}; // events that filled the stage
    void add(const StageTotals& other);
    bool operator==(const StageTotals&) const = default;
};

// The stages of one event's five readings.
StageTotals stages_of(const std::array<std::uint32_t, 5>& cycles_ts);

// Device time of a set of kernel events.
struct DeviceTime {
    std::uint64_t events = 0; // kernel events
    std::uint64_t ns = 0;     // summed dur (saturating at 2^64 - 1)
    StageTotals stages;
    IdealTime ideal; // of those whose bundle has an ideal (utilization.hpp)
    void add(const DeviceTime& other);
};

// ---- diagnostics --------------------------------------------------------------------------------

// What a kernel event's pairing or values ran into is a Problem of one of the event codes
// (first_event_code to last_event_code, core/problem.hpp), for a group of events (same code, same
// bundle): at the first one (path the trace, pos and first_event), and how many there are
// (events).

// ---- the report ---------------------------------------------------------------------------------

enum class Resolution : std::uint8_t { sidecar, caches, unresolved };
std::string_view to_string(Resolution r);

struct SourceLine {
    std::string file;
    std::int64_t line = 0;
    auto operator<=>(const SourceLine&) const = default;
    std::string label() const; // "file:line"
};

// The events of one bundle identity (a provenance key), or of one group of unresolved events
// (same reason, same event name).
struct ProfileBundle {
    std::string key;        // the provenance key; empty when no key could be read
    std::string event_name; // the event name without #<step> (of the first event)
    Resolution resolution = Resolution::unresolved;
    std::optional<ProblemCode> reason;     // why it is unresolved
    std::vector<std::string> handle_ids;   // the direct handles, in the bundle's order
    std::vector<std::string> kernel_names; // compiler kernel names, sorted
    std::vector<std::string> kernel_dirs;  // in walk order
    std::vector<SourceLine> lines;         // of its handles and their constituents, sorted
    std::vector<std::string> aten_ops;     // likewise, sorted
    DeviceTime time;
    // Of `time`, the events that started in a step and their device time (steps.hpp; with
    // ProfileBuilder::record_steps() only).
    std::uint64_t step_events = 0;
    std::uint64_t step_ns = 0;
    std::optional<BundleIdeal> ideal; // paired bundles only, when a directory's file gives one
    // Paired, with handles, and every one of them a compiler-generated op's (a source-less
    // handle, compiler_generated.hpp): its time is compiler-generated, not of an unknown source.
    bool compiler_generated = false;
    // The gaps before its events and their launch delays (timeline.hpp).
    IdleTime idle;
    LaunchDelays launch;
    std::vector<std::uint64_t> rank_ns; // over several traces: its device time in each rank
    // The frames of its folded stack: source lines joined by '+' (or "[compiler-generated]",
    // "[no source]", "[unresolved]"), ATen ops joined by '+' (or "[no aten op]", "[unresolved]"),
    // and the compiler kernel names joined by '+' (or the event name).
    std::string root_label;
    std::string aten_label;
    std::string kernel_label;
    // Its row of the kernel ranking, the same in every format, and what `sdscprov explain`
    // takes: KERNEL@DIRECTORY-NAME when it is in one kernel directory, else KERNEL@KEY (in no
    // directory, or in several: the row lists them); KERNEL is kernel_label. Also KERNEL@KEY when
    // another bundle has the same KERNEL@DIRECTORY-NAME. Without a kernel name KERNEL is the event
    // name, which ends with the key: KERNEL alone instead of KERNEL@KEY. An unpaired group's is
    // its kernel_label (with " [reason]" when another group has that name).
    std::string label;
};

// One row of a ranking (a kernel row is one bundle: its label, its time, `bundles` its index).
struct ProfileRow {
    std::string label;               // "file:line", an ATen op, a bundle's label, or "[...]"
    std::optional<SourceLine> line;  // by line, unless a "[...]" row
    std::optional<std::string> text; // the source line's text, when read (read_line_texts)
    DeviceTime time;
    IdleTime idle;       // its bundles' (each counting fully, as their time does)
    LaunchDelays launch; // likewise; the median over its bundles' events (one trace only)
    std::vector<std::uint32_t> bundles; // indexes into ProfileReport::bundles
    std::vector<std::uint64_t> rank_ns; // over several traces: its device time in each rank
};

// One ranking of a report: its row of the ranking table, and its rows.
struct Ranking {
    const RankingSpec* spec = nullptr;
    std::vector<ProfileRow> rows;
};

// A ranking without rows for each row of `table`.
std::vector<Ranking> empty_rankings(RankingTable table);

struct ProfileCoverage {
    std::uint64_t trace_events = 0;    // elements of traceEvents
    std::uint64_t kernel_events = 0;   // device kernel events
    std::uint64_t resolved_events = 0; // of those, paired with provenance
    std::uint64_t kernel_ns = 0;       // their device time
    std::uint64_t resolved_ns = 0;
    std::uint64_t unmeasured_events = 0;      // kernel events without a usable dur
    std::uint64_t counters_failed_events = 0; // kernel events whose cycles_ts are all 0
    // Paired bundles, and those of them found in no kernel directory of the caches (explain
    // cannot show them): their count, events and device time.
    std::uint64_t paired_bundles = 0;
    std::uint64_t dirless_bundles = 0;
    std::uint64_t dirless_events = 0;
    std::uint64_t dirless_ns = 0;
};

// One trace of a report over several (the ranks of one run, or a fleet's traces): ranks
// (profile/ranks.hpp) says how they are ordered and numbered.
struct ProfileRank {
    std::int64_t rank = 0; // distributedInfo.rank when every trace has a distinct one, else the
                           // position in the argument order
    std::optional<std::int64_t> distributed_rank; // the trace's distributedInfo.rank
    std::string trace;
    bool gzip = false;
    std::uint64_t trace_bytes = 0;
    std::uint64_t trace_events = 0;
    std::uint64_t kernel_events = 0;
    std::uint64_t kernel_ns = 0;
};

struct ProfileReport {
    std::string trace;
    bool gzip = false;
    std::uint64_t trace_bytes = 0;
    std::optional<std::int64_t> distributed_rank; // the trace's distributedInfo.rank
    // What the events were paired with (pairing_digest, profile/ranks.hpp): reports merge only
    // when theirs are equal.
    std::string sources_digest;
    // Over several traces: each one, in rank order; the rows' and bundles' rank_ns follow it.
    // Empty for one trace. `ranks_by_argument`: numbered by their order, not distributedInfo.
    std::vector<ProfileRank> ranks;
    bool ranks_by_argument = false;
    std::vector<std::string> sidecars;
    std::vector<std::string> caches;
    ProfileCoverage coverage;
    StageTotals stages;
    StepSummary steps;        // with ProfileBuilder::record_steps() only
    TimelineSummary timeline; // of one trace (timeline.hpp)
    SpanSummary spans;        // of one trace: its host spans, and --span (spans.hpp)
    // Sorted by device time (then events, key, event name), largest first; the rankings too
    // (then label).
    std::vector<ProfileBundle> bundles;
    // One per row of the ranking table the report was built with, in its order (ranking.hpp);
    // the built-in ones, empty, until it is built.
    std::vector<Ranking> rankings = empty_rankings(builtin_rankings());
    // Against the compiler's ideal: the clock, what the files gave (the category ranking puts
    // every bundle in the row of its kernel's category, category_label).
    IdealSummary ideal;
    std::vector<DebugHandle> handles; // the bundles' direct handles (fused_from nested), by id
    std::vector<Problem> diagnostics; // of the event codes, by first event
    std::vector<Problem> problems;    // the sidecars', the caches' and the trace's
    SourceTextNote source_text;       // what read_line_texts did not read, and why

    // The rows of a built-in ranking (empty when the report has none), and of any ranking.
    const std::vector<ProfileRow>& rows(ProfileRanking r) const;
    std::vector<ProfileRow>& rows(ProfileRanking r);
    const Ranking* ranking(const RankingSpec& spec) const;
};

// The rankings of `report.bundles` by every row of `table` (ranking.hpp), a source line row's
// text from `text_of`.
void build_rankings(ProfileReport& report, RankingTable table, const LineText& text_of);

// The text of every source line row (of every ranking) read under `source_text` (source_text.hpp),
// and what was not read, and why, in report.source_text.
void read_line_texts(ProfileReport& report, const SourceTextOptions& source_text);

// ---- pairing and aggregation --------------------------------------------------------------------

struct PairingSources {
    std::vector<SpyreProvenance> sidecars; // the first one that has a key gives it
    HandleIndex caches;
    UtilizationOptions utilization; // the ideal files of the caches' kernel directories
};

// Receives a trace's events (as the TraceReader's handler) and aggregates them. Memory grows
// with the number of distinct paired kernels, never with the trace nor with the number of
// distinct unpaired names: at most max_unresolved_groups unresolved groups are kept apart (the
// largest by device time: when the table is full, the least one leaves it for one overflow group,
// which takes every later event of that name), and at most 1,000 distinct diagnostics per code.
class ProfileBuilder final : public TraceHandler {
public:
    static constexpr std::size_t max_unresolved_groups = 10000;

    // `reader` gives the positions of diagnostics; `annotate` makes annotated_bundle() available.
    ProfileBuilder(const PairingSources& sources, std::string trace_path, TraceReader& reader,
                   bool annotate = false);
    ~ProfileBuilder() override;
    ProfileBuilder(const ProfileBuilder&) = delete;
    ProfileBuilder& operator=(const ProfileBuilder&) = delete;

    void event(const TraceEvent& e) override;

    // Before the trace is read: attribute each kernel event to the step it starts in
    // (steps.hpp), giving ProfileBundle::step_ns and ProfileReport::steps. Keeps 24 bytes per
    // kernel event until finish().
    void record_steps();

    // Before the trace is read: only the device activities in a host span matching `filter`
    // count (spans.hpp), in every figure of the report. Their device time is added as they
    // leave the timeline's window (timeline.hpp).
    void span_filter(const SpanFilter& filter);

    // With `annotate`: the bundle of the event last given to event() when the annotated copy
    // describes it (valid until the next event()), or nullptr when it is not a paired kernel event
    // (or was annotated before).
    const ProfileBundle* annotated_bundle() const;
    // With `annotate`, before the trace is read: the figures of the n-th event annotated (n from
    // 0, in the order annotated_bundle() gave them) as the timeline settles it (timeline.hpp),
    // by the end of finish() at the latest. An event the timeline did not take (no usable ts and
    // dur) is never told: annotated_timed() is false for it.
    void time_annotated(TimelineLog::Timed timed);
    bool annotated_timed() const;

    // The report, once the whole trace was read: rankings sorted (the rows' texts are left to
    // read_line_texts).
    ProfileReport finish(const TraceReadResult& read);

    // The rules finish() applies, for reports made of others (profile/ranks.hpp): a bundle's
    // folded frames (root_label, aten_label, kernel_label) from its lines, ops and kernels, and
    // every bundle's row label, told apart from the others'.
    static void label_frames(ProfileBundle& bundle);
    static void label_bundles(std::vector<ProfileBundle>& bundles);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
