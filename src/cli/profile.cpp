// `sdscprov profile TRACE [CACHES...]`: the options made into the run's and the printers' once
// (profile_command), the run (profile/profile_run.hpp), and what it gives printed: the report or
// the comparison on standard output, every problem and diagnostic on standard error.
#include "profile.hpp"

#include "common.hpp"
#include "messages.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/drill.hpp"
#include "stdout_sink.hpp"

#include <limits>
#include <memory>
#include <unistd.h>

namespace sdscprov::cli {

namespace {


bool is_ci_format(Format f) {
    return f == Format::junit || f == Format::github || f == Format::sarif;
}

// A usage error of the comparison's options, or nullopt.
std::optional<std::string> baseline_misuse(const ProfileCli& o) {
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
    return std::nullopt;
}

// The drill-down asked (--line, --op, --kernel): its ranking and label; a usage error when more
// than one is given or the report is not text of one run.
std::optional<std::string> drill_choice(const ProfileCli& o, ProfileTextOptions& text) {
    const std::pair<ProfileRanking, const std::string*> asked[] = {
        {ProfileRanking::line, &o.drill_line},
        {ProfileRanking::aten, &o.drill_op},
        {ProfileRanking::kernel, &o.drill_kernel}};
    for (const auto& [ranking, label] : asked) {
        if (label->empty()) {
            continue;
        }
        const RankingSpec& spec = ranking_spec(ranking);
        if (text.drill != nullptr) {
            return std::string(text.drill->drill_option) + " and " +
                   std::string(spec.drill_option) + " each show one row: give one of them";
        }
        if (o.format != Format::text || !o.baseline.empty()) {
            return std::string(spec.drill_option) +
                   " shows one row in the text report of one run: without --format and "
                   "--baseline";
        }
        text.drill = &spec;
        text.drill_label = *label;
    }
    return std::nullopt;
}

// Where source text is read, as the options' shell words (" --source-map /workspace=.").
std::string source_words(const SourceTextCli& o) {
    std::string words;
    for (const auto& root : o.roots) {
        words += " --source-root " + shell_word(root);
    }
    for (const auto& m : o.map) {
        words += " --source-map " + shell_word(m.from + "=" + m.to);
    }
    if (o.off) {
        words += " --no-source-text";
    }
    return words;
}

// The command that made the report, as shell words, for its last line: what it read, the clock
// and where source text is read (the drill-down adds its option).
std::string command_words(const ProfileCli& o) {
    std::string words = "sdscprov profile " + shell_word(o.trace);
    for (const auto& cache : o.caches) {
        words += ' ' + shell_word(cache);
    }
    for (const auto& sidecar : o.origins) {
        words += " --origins " + shell_word(sidecar);
    }
    if (o.core_mhz != default_core_mhz) {
        words += " --core-mhz " + std::to_string(o.core_mhz);
    }
    if (o.span) {
        words += " --span " + shell_word(o.span->pattern());
    }
    return words + source_words(o.source_text);
}

// Whether the drill-down's row is in the report; if not, says which rows it could mean.
bool drill_found(const ProfileTextOptions& text, const ProfileReport& report) {
    if (text.drill == nullptr) {
        return true;
    }
    auto missing = drill_missing(report, *text.drill, text.drill_label);
    if (missing) {
        messages::error("profile", *missing);
    }
    return !missing;
}

// A gate finding as a line: at its model source line (file:line), else at the trace.
void say_findings(const std::vector<GateFinding>& findings, const std::string& trace) {
    for (const auto& f : findings) {
        const auto& where = f.row->where;
        std::string location =
            where ? quote_path(where->file) + ":" + std::to_string(where->line) : quote_path(trace);
        messages::raw(location + ": error: " + printable_text(f.message) +
                      " [fail-over]\n");
    }
}

// The progress line while the traces are read, a new one for each trace: "read the trace:",
// or "read the traces:" for several (the ranks, a comparison's two).
struct TraceProgressLine {
    std::unique_ptr<Progress> line;
    std::size_t index = 0;
    void operator()(const TraceReading& at) {
        if (line && at.index != index) {
            line->clear();
            line.reset();
        }
        if (!line) {
            index = at.index;
            line = std::make_unique<Progress>(at.traces > 1 ? "read the traces:"
                                                            : "read the trace:",
                                              false);
        }
        line->bytes(at.done, at.total);
    }
    void clear() {
        if (line) {
            line->clear();
        }
    }
};

// What the run gave, printed; the exit status.
int print_run(const ProfileCommand& c, const ProfileRunResult& r) {
    if (r.stopped) {
        messages::problems(r.problems);
        if (!r.stopped->empty()) {
            messages::error("profile", *r.stopped);
        }
        return exit_bad_input;
    }
    bool failed = false;
    if (r.report) {
        // The annotated copy on standard output takes the report's place there.
        if (!c.out_dir.empty()) {
            failed |= !write_out_dir(c, r);
        } else if (!drill_found(c.report.text, *r.report)) {
            failed = true;
        } else if (!messages::quiet() && !r.annotated_to_stdout) {
            failed |= !print_to_stdout([&](std::ostream& out) {
                make_profile_printer(c.format, out, c.report)->end(*r.report);
            });
        }
        failed |= messages::capped("profile", {&r.report->problems, &r.report->diagnostics},
                                   c.per_code);
        return failed ? exit_bad_input : exit_ok;
    }
    const ProfileComparison& comparison = *r.comparison;
    if (!c.out_dir.empty()) {
        failed |= !write_out_dir(c, r);
    } else if (!messages::quiet()) {
        ComparisonPrinterOptions options = c.comparison;
        options.trace = r.trace;
        failed |= !print_to_stdout([&](std::ostream& out) {
            make_comparison_printer(c.format, out, std::move(options))
                ->end(GatedComparison{comparison, r.findings});
        });
    }
    // Each run's problems and diagnostics (the base run's first).
    failed |= messages::capped("profile", {&comparison.base.problems, &comparison.base.diagnostics},
                               c.per_code);
    failed |= messages::capped("profile", {&comparison.now.problems, &comparison.now.diagnostics},
                               c.per_code);
    say_findings(r.findings, r.trace);
    if (failed) {
        return exit_bad_input;
    }
    return r.findings.empty() ? exit_ok : exit_changes_pending;
}

} // namespace

std::optional<ProfileCommand> profile_command(const ProfileCli& o, std::string& misuse) {
    ProfileCommand c;
    c.format = o.format;
    c.per_code = o.all ? std::numeric_limits<std::size_t>::max() : 10;
    c.run.inputs.push_back(o.trace);
    c.run.inputs.insert(c.run.inputs.end(), o.caches.begin(), o.caches.end());
    c.run.origins = o.origins;
    c.run.read.core_mhz = o.core_mhz; // from 1 MHz, as it was parsed
    c.run.read.jobs = o.jobs;
    c.run.read.discover = o.discover;
    c.run.read.max_file_size = o.max_file_size;
    c.run.annotate_trace = o.annotate_trace;
    c.run.span = o.span;
    if (auto error = csv_misuse(o)) {
        misuse = *error;
        return std::nullopt;
    }
    c.out_dir = o.out_dir;
    if (!o.baseline.empty() || o.fail_over || is_ci_format(o.format) ||
        !o.baseline_origins.empty() || !o.baseline_caches.empty()) {
        if (auto error = baseline_misuse(o)) {
            misuse = *error;
            return std::nullopt;
        }
        ProfileBaselineOptions& b = c.run.baseline.emplace();
        b.trace = o.baseline;
        b.origins = o.baseline_origins;
        b.caches = o.baseline_caches;
        b.gated = &compared_ranking(o.by);
        b.idle = o.by.order == ProfileOrder::idle;
        if (o.fail_over) {
            b.gate = GateOptions{*o.fail_over, o.fail_min_share};
        }
    }
    // Source text is read under the paths read (traces, caches, sidecars), the current
    // directory, --source-root and --source-map's.
    c.run.source_text = source_text_options(o.source_text, paths_read(c.run));
    // The text of both reports: rows, width and colour for the terminal it goes to.
    ProfileTextOptions text;
    text.top = o.top;
    text.stages = o.stages;
    text.width = std::max<std::size_t>(text_width(STDOUT_FILENO), 60);
    text.shorten = ::isatty(STDOUT_FILENO) == 1; // piped names stay whole: pasteable
    text.color = use_color(o.color);
    if (auto error = drill_choice(o, text)) {
        misuse = *error;
        return std::nullopt;
    }
    if (o.out_dir.empty() && o.annotate_trace != "-") {
        text.command = command_words(o);
    }
    text.explain_words = source_words(o.source_text);
    c.report.text = text;
    c.report.by = o.by;
    c.report.value = o.value;
    c.report.source_text = c.run.source_text;
    c.comparison.text = text;
    c.comparison.by = o.by;
    c.comparison.source_text = c.run.source_text;
    return c;
}

int run_profile(const ProfileCli& o) {
    std::string misuse;
    auto command = profile_command(o, misuse);
    if (!command) {
        messages::error("profile", misuse);
        return exit_bad_input;
    }
    TraceProgressLine progress;
    ProfileRunCallbacks callbacks;
    callbacks.reading = [&](const TraceReading& at) { progress(at); };
    ProfileRunResult result = profile(command->run, callbacks);
    progress.clear();
    return print_run(*command, result);
}

} // namespace sdscprov::cli
