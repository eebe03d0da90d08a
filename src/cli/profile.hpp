// `sdscprov profile`: the command-line front of the profile stage. The options are parsed into a
// ProfileCli, converted once into the run's options and the printers' (profile_command), the run
// is one library call (profile/profile_run.hpp), and what it returns is printed.
#pragma once

#include "options.hpp"
#include "sdscprov/profile/profile_run.hpp"
#include "sdscprov/report/compare_printers.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov::cli {

// The command line as parsed.
struct ProfileCli {
    std::string trace;
    std::vector<std::string> caches; // and more traces: the run tells them apart by content
    std::vector<std::string> origins;
    Format format = Format::text;
    std::size_t top = 20;
    RankingChoice by;              // --by: tables (none: every ranking) and time or lost
    std::uint32_t core_mhz = default_core_mhz; // --core-mhz, from 1 to max_core_mhz
    FoldedValue value = FoldedValue::time; // --value of the folded stacks
    bool stages = false;
    std::string annotate_trace;
    std::string out_dir; // --out-dir: one CSV file per ranking there, instead of standard output
    // --line FILE:LINE, --op ATEN, --kernel LABEL: that row's kernels (or a kernel's lines).
    std::string drill_line;
    std::string drill_op;
    std::string drill_kernel;
    ColorMode color = ColorMode::automatic;
    bool quiet = false;
    bool all = false; // --all: every problem and diagnostic on standard error
    unsigned jobs = 0;
    DiscoverOptions discover;
    std::uint64_t max_file_size = std::uint64_t{1} << 30;
    // --baseline BASE_TRACE: compare TRACE with it; the base trace's own sidecars and caches
    // (--baseline-origins, --baseline-cache; each empty: the same as TRACE's); the gate.
    std::string baseline;
    std::vector<std::string> baseline_origins;
    std::vector<std::string> baseline_caches;
    std::optional<double> fail_over;
    double fail_min_share = 1;
    SourceTextCli source_text;
    std::optional<SpanFilter> span; // --span REGEX, compiled as it is parsed
};

// The command line as the run and the printers take it: converted once, right after parsing.
struct ProfileCommand {
    ProfileRunOptions run;
    Format format = Format::text;
    ProfilePrinterOptions report;        // one trace or several
    ComparisonPrinterOptions comparison; // --baseline
    std::size_t per_code = 10; // problems and diagnostics of one code on standard error (--all)
    std::string out_dir; // --out-dir with --format csv
};

void add_profile_options(CLI::App& profile, ProfileCli& options);
// nullopt, with the usage error's sentence in `misuse`, when the options do not go together
// (--fail-over without --baseline, a CI format without --fail-over, ...).
std::optional<ProfileCommand> profile_command(const ProfileCli& options, std::string& misuse);
int run_profile(const ProfileCli& options);

// The CSV formats (profile_csv.cpp): a usage error of --format csv, acelyzer-categories and
// --out-dir, or nullopt.
std::optional<std::string> csv_misuse(const ProfileCli& options);
// --out-dir: the rankings chosen (all without --by), of the report or of the comparison, each in
// its file; false, with the problems said, when they could not be written.
bool write_out_dir(const ProfileCommand& command, const ProfileRunResult& result);

} // namespace sdscprov::cli
