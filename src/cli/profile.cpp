// `sdscprov profile TRACE [CACHES...] [--origins spyre_provenance.json ...]`: options and wiring
// only; the stage's work is in include/sdscprov/profile/.
#include "profile.hpp"

#include "common.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/annotate_trace.hpp"
#include "sdscprov/profile/handle_index.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov::cli {

namespace {

constexpr std::size_t printed_per_code = 10; // of one code on stderr (JSON has them all)

void print_line(const std::string& path, TextPosition pos, Severity severity,
                const std::string& message, std::string_view code) {
    std::cerr << quoted_location(path, pos) << ": " << to_string(severity) << ": "
              << printable_text(message) << " [" << code << "]\n";
}

// Each problem on standard error; whether any is an error.
bool print_problems_of(const std::vector<Problem>& problems) {
    print_problems(problems);
    return any_error(problems);
}

} // namespace

bool print_diagnostics(const std::vector<ProfileDiagnostic>& diagnostics, bool quiet) {
    bool errors = false;
    std::map<ProfileCode, std::size_t> printed;
    std::map<ProfileCode, std::uint64_t> left_out;
    for (const auto& d : diagnostics) {
        errors |= d.severity == Severity::error;
        if (quiet && d.severity != Severity::error) {
            continue;
        }
        if (printed[d.code]++ >= printed_per_code) {
            ++left_out[d.code];
            continue;
        }
        std::string events = d.events == 1 ? "" : " (" + std::to_string(d.events) + " events)";
        print_line(d.path, d.pos, d.severity, d.message + events, to_string(d.code));
    }
    for (const auto& [code, n] : left_out) {
        std::cerr << "sdscprov profile: " << n << " more " << to_string(code)
                  << " diagnostics (--format json lists them all)\n";
    }
    return errors;
}

// The whole report to standard output, every failure (a full disk, a closed pipe) reported.
bool write_stdout(std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            std::cerr << "sdscprov profile: cannot write the report to standard output: "
                      << std::strerror(errno) << '\n';
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// The sidecars: torch-spyre's spyre_provenance.json only (the handles of a compile, per bundle
// identity); another kind of file is refused.
bool read_sidecars(const std::vector<std::string>& paths, std::uint64_t max_size,
                   PairingSources& sources, std::vector<Problem>& problems) {
    bool ok = true;
    for (const auto& path : paths) {
        // Read with the same limits as every other input: a regular file of at most max_size.
        auto kind = sidecar_kind_of_file(path, problems, max_size);
        if (!kind) {
            ok = false;
            continue;
        }
        if (*kind != SidecarKind::spyre_provenance) {
            problems.push_back(make_problem(
                path, {}, ProblemCode::bad_argument,
                "is not torch-spyre's spyre_provenance.json (profile pairs trace events through "
                "that sidecar's kernelIdentities)"));
            ok = false;
            continue;
        }
        auto read = read_spyre_provenance(path, max_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.doc) {
            sources.sidecars.push_back(std::move(*read.doc));
        } else {
            ok = false;
        }
    }
    return ok;
}

CLI::App* add_profile_command(CLI::App& app, ProfileCli& o) {
    auto* cmd = app.add_subcommand(
        "profile", "Rank a profiler trace's device time by model source line, ATen op and "
                   "kernel, pairing each kernel event with its provenance");
    cmd->add_option("trace", o.trace,
                    "The Chrome trace (prof.export_chrome_trace), plain or gzip (.json.gz); - "
                    "reads standard input")
        ->required();
    cmd->add_option("caches", o.caches,
                    "Kernel caches whose SDSC files hold the handles (default: "
                    "$TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_$USER)");
    cmd->add_option("--origins", o.origins,
                    "torch-spyre's spyre_provenance.json of the compile; may be given more than "
                    "once (the first that has a key gives it)")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    cmd->add_option("--format", o.format,
                    "text (ranked tables), json (docs/profile.md), folded (flame graph stacks), "
                    "html (a self-contained page); with --fail-over also junit, github, sarif "
                    "(the gate's findings)")
        ->check(CLI::IsMember({"text", "json", "folded", "html", "junit", "github", "sarif"}))
        ->capture_default_str();
    cmd->add_option("--top", o.top, "Rows per table in text (0: all)")->capture_default_str();
    cmd->add_option("--by", o.by,
                    "Only these tables in text (line, aten, kernel, category), ranked by time "
                    "(default) or lost (against the ideal); comma-separated or given again")
        ->delimiter(',')
        ->check(CLI::IsMember({"line", "aten", "kernel", "category", "time", "lost"}));
    cmd->add_option(
           "--core-mhz", o.core_mhz,
           "The core clock (whole MHz) turning ideal cycles (perf/ideal_cycles.json) into time")
        ->check([](const std::string& text) {
            std::string error;
            return parse_core_mhz(text, error) ? std::string() : error;
        })
        ->capture_default_str();
    cmd->add_option("--value", o.value,
                    "The folded stacks' value: device, ideal or lost time against the ideal (ns)")
        ->check(CLI::IsMember({"time", "ideal", "lost"}))
        ->type_name("QUANTITY")
        ->capture_default_str();
    cmd->add_flag("--stages", o.stages,
                  "Show the DMI / PREP / CMPT / DMO breakdown (device counter ticks) in text");
    cmd->add_option("--annotate-trace", o.annotate_trace,
                    "Also write a copy of the trace whose paired events gain args.sdscprov "
                    "(their bundle, described once: source lines, ATen ops, kernel, handles): "
                    "open it in Perfetto; - writes it to standard output instead of the report");
    add_baseline_options(*cmd, o);
    add_color_option(*cmd, o.color, "Colour in text");
    cmd->add_flag("-q,--quiet", o.quiet, "Print nothing but errors: no report, no warnings");
    cmd->add_option("-j,--jobs", o.jobs,
                    "Threads reading the caches and parsing the trace (default: all cores)")
        ->check(CLI::Range(1U, 1024U));
    cmd->add_flag("--include-incomplete", o.include_incomplete,
                  "Also read the kernel cache's temporary (*.tmp.*) and failed/ entries");
    cmd->add_flag("--follow-symlinks", o.follow_symlinks, "Follow symbolic links to directories");
    add_max_file_size_option(*cmd, o.max_file_size,
                             "Larger SDSC files and sidecars are reported, not read (bytes)");
    cmd->footer("Example:\n  sdscprov profile spyre_trace.json --origins spyre_provenance.json\n"
                "  sdscprov profile trace.json.gz $TORCHINDUCTOR_CACHE_DIR --format folded | "
                "flamegraph.pl > flame.svg\n"
                "Exit status: 0 done, 2 bad input (the trace, a sidecar or a cache; errors such "
                "as carrier-conflict), a usage error or an unwritable output, 3 internal error.");
    return cmd;
}

int run_profile(const ProfileCli& o) {
    if (wants_baseline(o)) {
        return run_profile_baseline(o);
    }
    quiet_mode = o.quiet;
    std::vector<Problem> problems;
    PairingSources sources;
    std::vector<std::string> roots;
    if (!pairing_sources(o, false, sources, roots, problems)) {
        return exit_bad_input;
    }

    TraceReaderOptions reader_options;
    reader_options.threads = o.jobs;
    TraceReader reader(reader_options);
    bool annotate = !o.annotate_trace.empty();
    ProfileBuilder builder(sources, o.trace, reader, annotate);
    std::optional<AnnotatedTrace> annotated;
    if (annotate) {
        annotated.emplace(builder, o.annotate_trace);
        AnnotateTraceInputs inputs;
        inputs.trace = o.trace;
        inputs.sidecars = o.origins;
        inputs.caches = roots;
        inputs.discover.include_incomplete = o.include_incomplete;
        inputs.discover.follow_symlinks = o.follow_symlinks;
        if (auto refused = annotated->open(inputs)) {
            print_problems({*refused});
            return exit_bad_input;
        }
        problems.insert(problems.end(), annotated->notes().begin(), annotated->notes().end());
    }
    TraceHandler& handler = annotated ? static_cast<TraceHandler&>(*annotated) : builder;
    Progress progress("read the trace:", false);
    TraceProgress counted(handler, progress, o.trace);
    TraceReadResult read = reader.read(o.trace, progress.enabled() ? counted : handler);
    progress.clear();
    if (read.error) {
        print_problems(problems);
        print_line(o.trace, read.error->pos, Severity::error, read.error->message,
                   read.error->code);
        std::cerr << "sdscprov profile: the trace could not be read: no report"
                  << (annotate ? ", no annotated trace" : "") << '\n';
        return exit_bad_input;
    }
    ProfileReport report = builder.finish(read);
    report.caches = roots;
    report.problems.insert(report.problems.begin(), problems.begin(), problems.end());
    bool failed = false;
    if (annotated) {
        if (auto problem = annotated->commit()) {
            report.problems.push_back(*problem);
        }
    }

    // The annotated copy on standard output takes the report's place there.
    if (!o.quiet && !(annotated && annotated->to_stdout())) {
        ProfilePrinterOptions options;
        options.value = folded_value(o.value);
        ProfileTextOptions& text = options.text;
        text.top = o.top;
        text.stages = o.stages;
        text.width = std::max<std::size_t>(text_width(STDOUT_FILENO), 60);
        text.shorten = ::isatty(STDOUT_FILENO) == 1; // piped names stay whole: pasteable
        text.color = use_color(o.color);
        choose_rankings(text, o.by, report);
        std::ostringstream out;
        make_profile_printer(report_format(o.format), out, std::move(options))->end(report);
        failed |= !write_stdout(out.view());
    }
    failed |= print_problems_of(report.problems);
    failed |= print_diagnostics(report.diagnostics, o.quiet);
    return failed ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
