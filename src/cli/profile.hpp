// `sdscprov profile`: the command-line front of the profile stage (include/sdscprov/profile/).
#pragma once

#include "options.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "stdout_sink.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov::cli {

struct ProfileCli {
    std::string trace;
    std::vector<std::string> caches;
    // The traces among trace and caches, told from the caches by content (classify_inputs):
    // trace is the first of them, caches what is left.
    std::vector<std::string> traces;
    std::vector<std::string> origins;
    Format format = Format::text;
    std::size_t top = 20;
    RankingChoice by;              // --by: tables (none: every ranking) and time or lost
    std::uint32_t core_mhz = default_core_mhz; // --core-mhz, from 1 to max_core_mhz
    FoldedValue value = FoldedValue::time; // --value of the folded stacks
    bool stages = false;
    std::string annotate_trace;
    ColorMode color = ColorMode::automatic;
    bool quiet = false;
    unsigned jobs = 0;
    DiscoverOptions discover;
    std::uint64_t max_file_size = std::uint64_t{1} << 30;
    // --baseline BASE_TRACE: compare TRACE with it (profile_baseline.cpp); the gate's options.
    std::string baseline;
    // The base trace's own sidecars and caches (--baseline-origins, --baseline-cache); each
    // empty: the same as TRACE's.
    std::vector<std::string> baseline_origins;
    std::vector<std::string> baseline_caches;
    std::optional<double> fail_over;
    double fail_min_share = 1;
    SourceTextCli source_text;
    // The source-text rule, converted once the inputs are told apart (run_profile): the line
    // texts of every report and the page are read under it.
    SourceTextOptions source_rule;
};

void add_profile_options(CLI::App& profile, ProfileCli& options);
int run_profile(const ProfileCli& options);

// Shared by profile.cpp and profile_baseline.cpp: the --origins sidecars read into `sources`
// (false when one is refused), diagnostics printed (true when one is an error), and the report
// written to standard output (false on a failed write, reported).
bool read_spyre_sidecars(const std::vector<std::string>& paths, std::uint64_t max_size,
                         PairingSources& sources, std::vector<Problem>& problems);
bool print_diagnostics(const std::vector<Problem>& diagnostics, bool quiet);
// The sidecars read and the caches indexed for pairing (false, said on stderr, when a sidecar is
// refused or a cache cannot be reached); `several`: the messages speak of the traces.
bool pairing_sources(const ProfileCli& o, bool several, PairingSources& sources,
                     std::vector<std::string>& roots, std::vector<Problem>& problems);
// `trace` read into `handler` (a ProfileBuilder, or a handler wrapping one), the progress line
// headed `progress_label` while it is read.
TraceReadResult read_trace(TraceReader& reader, TraceHandler& handler, const std::string& trace,
                           const char* progress_label);
// One trace profiled against `sources`, the progress line headed `progress_label`, the steps
// recorded when `record_steps`; nullopt when the trace cannot be read (said on stderr).
std::optional<ProfileReport> profile_trace(const ProfileCli& o, const PairingSources& sources,
                                           const std::string& trace, const char* progress_label,
                                           bool record_steps);

// The traces and the caches among the positional arguments (profile_ranks.cpp): a directory is
// a cache; a file is a trace when it is gzip, or JSON that starts a Chrome trace (its first MiB
// has traceEvents, or it is an array); a path that cannot be read keeps its place (the first
// one the trace). False, said on stderr, when no trace is left.
bool classify_inputs(ProfileCli& o);
// `profile T1 T2 ... [CACHES...]`: each trace profiled on its own, the reports added up by rank.
int run_profile_ranks(const ProfileCli& o);

// The report (of one trace or several) in --format on standard output, rendered straight into
// it; false when it could not be written (reported).
bool print_report(const ProfileCli& o, const ProfileReport& report);

// `profile --baseline BASE TRACE` and its gate (--fail-over): profile_baseline.cpp.
void add_baseline_options(CLI::App& cmd, ProfileCli& options);
bool wants_baseline(const ProfileCli& options); // --baseline, --fail-over or a CI format given
int run_profile_baseline(const ProfileCli& options);

} // namespace sdscprov::cli
