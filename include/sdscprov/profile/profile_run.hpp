// profile's whole run, as one call: the inputs told apart (traces from caches, by content), the
// sidecars read and the caches indexed, then one of three runs:
//  - one trace: its report (and, with annotate_trace, the annotated copy written in the same
//    pass);
//  - several traces (the ranks of one run): each profiled on its own, the reports added up by
//    rank (ranks.hpp);
//  - a baseline: the base trace and the new one profiled (each against its own sidecars and
//    caches when given), their rows compared (compare.hpp), and the gate's findings.
// Nothing is printed: the caller gets the report, the comparison or why there is none, with every
// problem, and hears the trace's bytes read through a callback (for a progress line).
#pragma once

#include "sdscprov/core/problem.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/ideal.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/walk/discover.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov {

// What the sidecars, the caches and the trace reader take: the same for every trace of a run.
struct ProfileReadOptions {
    std::uint32_t core_mhz = default_core_mhz; // ideal cycles to time
    unsigned jobs = 0;                         // threads indexing the caches, parsing the trace
    DiscoverOptions discover;
    std::uint64_t max_file_size = std::uint64_t{1} << 30; // SDSC files, sidecars, ideal files
};

// `--baseline BASE_TRACE`: the run the trace is compared with, and the gate.
struct ProfileBaselineOptions {
    std::string trace;
    // The base run's own sidecars and caches; each empty: the same as the trace's.
    std::vector<std::string> origins;
    std::vector<std::string> caches;
    // The gate (--fail-over): the ranking it judges and its thresholds; none without it.
    std::optional<GateOptions> gate;
    const RankingSpec* gated = &ranking_spec(ProfileRanking::line);
    bool idle = false; // --by idle: the rows compared (and gated) by their idle time
};

struct ProfileRunOptions {
    // The positional inputs as given: traces and kernel caches, told apart by their content
    // (TraceFile): a directory is a cache; a file is a trace when its first bytes say so. The
    // first path that cannot be told keeps its place as the trace (its read says what is wrong).
    // Without a cache: the default cache roots that exist (discover.hpp).
    std::vector<std::string> inputs;
    std::vector<std::string> origins; // torch-spyre's spyre_provenance.json, in precedence order
    ProfileReadOptions read;
    // --annotate-trace OUT (annotate_trace.hpp); empty: none. One trace only, no baseline.
    std::string annotate_trace;
    // Where the text of the source lines the reports show may be read (source_text.hpp).
    SourceTextOptions source_text;
    std::optional<ProfileBaselineOptions> baseline;
    // --span REGEX: only the device activities in a host span whose name matches count
    // (spans.hpp); one trace, or both runs of a baseline. Not with several traces nor
    // --annotate-trace.
    std::optional<SpanFilter> span;
};

// Every path the run reads: its inputs and sidecars, then the base run's trace, sidecars and
// caches. Source text is read under them; no output of the run (--out-dir's files) replaces one.
std::vector<std::string> paths_read(const ProfileRunOptions& options);

// The trace being read, for a progress line: the index-th of `traces`, `done` bytes of its text
// read of `total` (0: not known before the end: gzip, standard input, a pipe).
struct TraceReading {
    std::size_t index = 0;
    std::size_t traces = 1;
    std::uint64_t done = 0;
    std::uint64_t total = 0;
};

struct ProfileRunCallbacks {
    std::function<void(const TraceReading&)> reading;
};

struct ProfileRunResult {
    // Why there is no report, as a sentence ("the trace could not be read: no report"): a usage
    // error found in the inputs, a sidecar refused, a trace that could not be read. `problems`
    // then says the rest (the sidecars', the caches', the trace's error), in the order found.
    std::optional<std::string> stopped;
    std::vector<Problem> problems;
    // One trace, or several added up by rank; its problems and diagnostics are its own.
    std::optional<ProfileReport> report;
    // With a baseline: the two runs (each with its problems and diagnostics) and the gate's
    // findings over the gated ranking, in its rows' order.
    std::optional<ProfileComparison> comparison;
    std::vector<GateFinding> findings;
    // The new trace (a finding without a source line points at it).
    std::string trace;
    // The annotated copy went to standard output: the report must not.
    bool annotated_to_stdout = false;
};

ProfileRunResult profile(const ProfileRunOptions& options,
                         const ProfileRunCallbacks& callbacks = {});

} // namespace sdscprov
