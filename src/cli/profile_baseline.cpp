// `sdscprov profile --baseline BASE_TRACE TRACE [CACHES...]`: both traces profiled against the
// same caches and sidecars, their rows compared (include/sdscprov/profile/compare.hpp), and the
// gate of --fail-over. Options and wiring only.
#include "common.hpp"
#include "profile.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/compare.hpp"
#include "sdscprov/profile/handle_index.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/compare_printers.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

namespace sdscprov::cli {

namespace {

bool is_ci_format(Format f) {
    return f == Format::junit || f == Format::github || f == Format::sarif;
}

// A usage error of the comparison's options, or nullopt.
std::optional<std::string> misuse(const ProfileCli& o) {
    if (o.baseline.empty()) {
        if (!o.baseline_origins.empty() || !o.baseline_caches.empty()) {
            return std::string(o.baseline_origins.empty() ? "--baseline-cache"
                                                          : "--baseline-origins") +
                   " needs --baseline BASE_TRACE (the run it pairs)";
        }
        if (o.fail_over) {
            return "--fail-over needs --baseline BASE_TRACE (the run the new one is compared with)";
        }
        return "--format " + std::string(to_string(o.format)) +
               " needs --fail-over PCT and --baseline BASE_TRACE";
    }
    if (is_ci_format(o.format) && !o.fail_over) {
        return "--format " + std::string(to_string(o.format)) +
               " writes the gate's findings: give --fail-over PCT";
    }
    if (!o.annotate_trace.empty()) {
        return "--annotate-trace annotates one trace: run it without --baseline";
    }
    if (o.baseline == "-" && o.trace == "-") {
        return "only one of the two traces can be standard input (-)";
    }
    return std::nullopt;
}

// Each --baseline-cache a directory; false (said on stderr, with the path) when one is not.
bool baseline_caches_reachable(const std::vector<std::string>& dirs) {
    for (const auto& dir : dirs) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) {
            std::cerr << quote_path(dir)
                      << ": error: --baseline-cache cannot be accessed: " << std::strerror(errno)
                      << " [bad-argument]\n";
            return false;
        }
        if (!S_ISDIR(st.st_mode)) {
            std::cerr << quote_path(dir)
                      << ": error: --baseline-cache is not a directory (give the base run's "
                         "kernel cache) [bad-argument]\n";
            return false;
        }
    }
    return true;
}

// What the base trace pairs with: its own sidecars and caches where given, else TRACE's.
struct BaseSources {
    PairingSources own;
    std::vector<std::string> roots;
    const PairingSources* sources = nullptr;
    const std::vector<std::string>* used_roots = nullptr;
};

bool base_sources(const ProfileCli& o, const PairingSources& shared,
                  const std::vector<std::string>& shared_roots, BaseSources& out,
                  std::vector<Problem>& problems) {
    if (o.baseline_origins.empty() && o.baseline_caches.empty()) {
        out.sources = &shared;
        out.used_roots = &shared_roots;
        return true;
    }
    ProfileCli base = o;
    if (!o.baseline_origins.empty()) {
        base.origins = o.baseline_origins;
    }
    if (!o.baseline_caches.empty()) {
        base.caches = o.baseline_caches;
    }
    if (!pairing_sources(base, true, out.own, out.roots, problems)) {
        return false;
    }
    out.sources = &out.own;
    out.used_roots = &out.roots;
    return true;
}

// One trace profiled against `sources`; nullopt when it could not be read (reported).
std::optional<ProfileReport> profile_one(const ProfileCli& o, const PairingSources& sources,
                                         const std::string& trace,
                                         const std::vector<std::string>& roots,
                                         const std::vector<Problem>& problems) {
    auto report = profile_trace(o, sources, trace, "read the trace:", true);
    if (!report) {
        std::cerr << "sdscprov profile: the trace could not be read: no comparison\n";
        return std::nullopt;
    }
    report->caches = roots;
    report->problems.insert(report->problems.begin(), problems.begin(), problems.end());
    return report;
}

// The table the comparison shows and gates: the first --by names, else source lines.
ProfileRanking compared_table(const RankingChoice& by) {
    return by.tables.empty() ? ProfileRanking::line : by.tables.front();
}

void print_findings(const std::vector<GateFinding>& findings, const std::string& trace) {
    for (const auto& f : findings) {
        const auto& where = f.row->where;
        std::string location =
            where ? quote_path(where->file) + ":" + std::to_string(where->line) : quote_path(trace);
        std::cerr << location << ": error: device time " << printable_text(f.message)
                  << " [fail-over]\n";
    }
}

} // namespace

void add_baseline_options(CLI::App& cmd, ProfileCli& o) {
    cmd.add_option("--baseline", o.baseline,
                   "Compare TRACE with this earlier trace of the same model: each row's base and "
                   "new device time and the change (the same caches and sidecars serve both)");
    cmd.add_option("--baseline-origins", o.baseline_origins,
                   "With --baseline: the base run's own spyre_provenance.json (instead of "
                   "--origins); may be given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    cmd.add_option("--baseline-cache", o.baseline_caches,
                   "With --baseline: the base run's own kernel cache (instead of CACHES); may be "
                   "given more than once")
        ->allow_extra_args(false);
    add_decimal_option(cmd, "--fail-over", o.fail_over, RealRange{},
                       "With --baseline: exit 1 when a row (source lines, or --by) holding at "
                       "least --fail-min-share of either run's device time grew by more than PCT "
                       "percent")
        ->type_name("PCT");
    add_decimal_option(cmd, "--fail-min-share", o.fail_min_share, RealRange{0, 100},
                       "The share (percent of a run's device time) under which --fail-over "
                       "ignores a row")
        ->type_name("PCT");
}

bool wants_baseline(const ProfileCli& o) {
    return !o.baseline.empty() || o.fail_over || is_ci_format(o.format) ||
           !o.baseline_origins.empty() || !o.baseline_caches.empty();
}

int run_profile_baseline(const ProfileCli& o) {
    if (auto error = misuse(o)) {
        std::cerr << "sdscprov profile: " << *error << '\n';
        return exit_bad_input;
    }
    if (!baseline_caches_reachable(o.baseline_caches)) {
        return exit_bad_input; // before any cache or trace is read
    }
    quiet_mode = o.quiet;
    std::vector<Problem> problems;
    PairingSources sources;
    std::vector<std::string> roots;
    if (!pairing_sources(o, true, sources, roots, problems)) {
        return exit_bad_input;
    }

    std::vector<Problem> base_problems;
    BaseSources base_pairing;
    if (!base_sources(o, sources, roots, base_pairing, base_problems)) {
        return exit_bad_input;
    }
    // Shared caches' problems are reported once, with the new run; the base's own with it.
    auto base =
        profile_one(o, *base_pairing.sources, o.baseline, *base_pairing.used_roots, base_problems);
    if (!base) {
        print_problems(base_problems);
        print_problems(problems);
        return exit_bad_input;
    }
    auto now = profile_one(o, sources, o.trace, roots, problems);
    if (!now) {
        print_problems(problems);
        return exit_bad_input;
    }
    ProfileComparison comparison = compare_profiles(std::move(*base), std::move(*now));

    std::vector<GateFinding> findings;
    if (o.fail_over) {
        findings = gate_findings(comparison, rows_of(comparison, compared_table(o.by)),
                                 {*o.fail_over, o.fail_min_share});
    }
    bool failed = false;
    if (!o.quiet) {
        ComparisonPrinterOptions options;
        options.text.top = o.top;
        if (!o.by.tables.empty()) {
            options.text.rankings = {compared_table(o.by)};
        }
        options.trace = o.trace;
        options.source_text = o.source_rule;
        failed |= !print_to_stdout([&](std::ostream& out) {
            make_comparison_printer(o.format, out, std::move(options))
                ->end(GatedComparison{comparison, findings});
        });
    }
    // Each run's problems and diagnostics (the base run's first).
    failed |= any_error(comparison.base.problems);
    failed |= any_error(comparison.now.problems);
    print_problems(comparison.base.problems);
    print_problems(comparison.now.problems);
    failed |= print_diagnostics(comparison.base.diagnostics, o.quiet);
    failed |= print_diagnostics(comparison.now.diagnostics, o.quiet);
    print_findings(findings, o.trace);
    if (failed) {
        return exit_bad_input;
    }
    return findings.empty() ? exit_ok : exit_changes_pending;
}

} // namespace sdscprov::cli
