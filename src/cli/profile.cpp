// `sdscprov profile TRACE [CACHES...] [--origins spyre_provenance.json ...]`: options and wiring
// only; the stage's work is in include/sdscprov/profile/.
#include "profile.hpp"

#include "common.hpp"
#include "progress.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/annotate_trace.hpp"
#include "sdscprov/profile/handle_index.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <ostream>
#include <streambuf>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov::cli {

namespace {

constexpr std::size_t printed_per_code = 10; // of one code on stderr (JSON has them all)

// Each problem on standard error; whether any is an error.
bool print_problems_of(const std::vector<Problem>& problems) {
    print_problems(problems);
    return any_error(problems);
}

// --by, its words turned into the tables and their order as they are parsed: line, aten, kernel,
// category (tables, in the order given) and time, lost (the order; the last one given counts).
void add_by_option(CLI::App& cmd, RankingChoice& by) {
    static const Choices<ProfileRanking> tables{{"line", ProfileRanking::line},
                                                {"aten", ProfileRanking::aten},
                                                {"kernel", ProfileRanking::kernel},
                                                {"category", ProfileRanking::category}};
    static const Choices<ProfileOrder> orders{{"time", ProfileOrder::time},
                                              {"lost", ProfileOrder::lost}};
    std::vector<std::string> names;
    for (const auto& choice : tables) {
        names.push_back(choice.first);
    }
    for (const auto& choice : orders) {
        names.push_back(choice.first);
    }
    cmd.add_option_function<std::vector<std::string>>(
           "--by",
           [&by](const std::vector<std::string>& words) {
               for (const auto& word : words) {
                   for (const auto& [name, table] : tables) {
                       if (name == word) {
                           by.tables.push_back(table);
                       }
                   }
                   for (const auto& [name, order] : orders) {
                       if (name == word) {
                           by.order = order;
                       }
                   }
               }
           },
           "Only these tables in text (line, aten, kernel, category), ranked by time "
           "(default) or lost (against the ideal); comma-separated or given again")
        ->delimiter(',')
        ->check(CLI::IsMember(names));
}

} // namespace

bool print_diagnostics(const std::vector<Problem>& diagnostics, bool quiet) {
    bool errors = false;
    std::map<ProblemCode, std::size_t> printed;
    std::map<ProblemCode, std::uint64_t> left_out;
    for (const auto& d : diagnostics) {
        errors |= d.severity == Severity::error;
        if (quiet && d.severity != Severity::error) {
            continue;
        }
        if (printed[d.code]++ >= printed_per_code) {
            ++left_out[d.code];
            continue;
        }
        std::cerr << problem_line(d) << '\n';
    }
    for (const auto& [code, n] : left_out) {
        std::cerr << "sdscprov profile: " << n << " more " << to_string(code)
                  << " diagnostics (--format json lists them all)\n";
    }
    return errors;
}

// The sidecars: torch-spyre's spyre_provenance.json only (the handles of a compile, per bundle
// identity); another kind of file is refused. Each is read once, with the same limits as every
// other input: a regular file of at most max_size.
bool read_spyre_sidecars(const std::vector<std::string>& paths, std::uint64_t max_size,
                         PairingSources& sources, std::vector<Problem>& problems) {
    bool ok = true;
    for (const auto& path : paths) {
        std::optional<SidecarKind> kind;
        auto read = read_spyre_sidecar(path, kind, max_size);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
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
        if (read.doc) {
            sources.sidecars.push_back(std::move(*read.doc));
        } else {
            ok = false;
        }
    }
    return ok;
}

void add_profile_options(CLI::App& profile_command, ProfileCli& o) {
    CLI::App* cmd = &profile_command;
    cmd->add_option("trace", o.trace,
                    "The Chrome trace (prof.export_chrome_trace), plain or gzip (.json.gz); - "
                    "reads standard input. Several traces (the ranks of one run) may be given "
                    "among the caches: each is told from a cache by its content")
        ->required();
    cmd->add_option("caches", o.caches,
                    "Kernel caches whose SDSC files hold the handles (default: "
                    "$TORCHINDUCTOR_CACHE_DIR, else /tmp/torchinductor_$USER), and more traces");
    cmd->add_option("--origins", o.origins,
                    "torch-spyre's spyre_provenance.json of the compile; may be given more than "
                    "once (the first that has a key gives it)")
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_format_option(*cmd, o.format,
                      {Format::text, Format::json, Format::folded, Format::html, Format::junit,
                       Format::github, Format::sarif},
                      "text (ranked tables), json (docs/profile.md), folded (flame graph stacks), "
                      "html (a self-contained page); with --fail-over also junit, github, sarif "
                      "(the gate's findings)");
    add_decimal_option(*cmd, "--top", o.top, WholeRange{}, "Rows per table in text (0: all)");
    add_by_option(*cmd, o.by);
    add_decimal_option(
        *cmd, "--core-mhz", o.core_mhz, WholeRange{1, max_core_mhz},
        "The core clock (whole MHz) turning ideal cycles (perf/ideal_cycles.json) into time")
        ->type_name("MHZ");
    add_choice_option(*cmd, "--value", o.value,
                      Choices<FoldedValue>{{"time", FoldedValue::time},
                                           {"ideal", FoldedValue::ideal},
                                           {"lost", FoldedValue::lost}},
                      "The folded stacks' value: device, ideal or lost time against the ideal (ns)")
        ->type_name("QUANTITY");
    cmd->add_flag("--stages", o.stages,
                  "Show the DMI / PREP / CMPT / DMO breakdown (device counter ticks) in text");
    cmd->add_option("--annotate-trace", o.annotate_trace,
                    "Also write a copy of the trace whose paired events gain args.sdscprov "
                    "(their bundle, described once: source lines, ATen ops, kernel, handles): "
                    "open it in Perfetto; - writes it to standard output instead of the report")
        ->check(CLI::Validator(
            [](const std::string& out) {
                // Empty, it would read as not given: nothing written, exit 0.
                return out.empty() ? std::string("'': no file has an empty name: the annotated "
                                                 "trace is not written")
                                   : std::string();
            },
            ""));
    add_baseline_options(*cmd, o);
    add_source_text_options(*cmd, o.source_text);
    add_color_option(*cmd, o.color, "Colour in text");
    cmd->add_flag("-q,--quiet", o.quiet, "Print nothing but errors: no report, no warnings");
    add_decimal_option(*cmd, "-j,--jobs", o.jobs, WholeRange{1, max_jobs},
                       "Threads reading the caches and parsing the trace (default: all cores)");
    add_discover_options(*cmd, o.discover, "read", "Follow symbolic links to directories");
    add_max_file_size_option(*cmd, o.max_file_size,
                             "Larger SDSC files and sidecars are reported, not read (bytes)");
    cmd->footer("Example:\n  sdscprov profile spyre_trace.json --origins spyre_provenance.json\n"
                "  sdscprov profile trace.json.gz $TORCHINDUCTOR_CACHE_DIR --format folded | "
                "flamegraph.pl > flame.svg\n"
                "  sdscprov profile rank0.json rank1.json rank2.json rank3.json cache/\n"
                "Exit status: 0 done, 2 bad input (the trace, a sidecar or a cache; errors such "
                "as carrier-conflict), a usage error or an unwritable output, 3 internal error.");
}

bool print_report(const ProfileCli& o, const ProfileReport& report) {
    ProfilePrinterOptions options;
    options.value = o.value;
    ProfileTextOptions& text = options.text;
    text.top = o.top;
    text.stages = o.stages;
    text.width = std::max<std::size_t>(text_width(STDOUT_FILENO), 60);
    text.shorten = ::isatty(STDOUT_FILENO) == 1; // piped names stay whole: pasteable
    text.color = use_color(o.color);
    choose_rankings(text, o.by, report);
    options.source_text = o.source_rule;
    return print_to_stdout([&](std::ostream& out) {
        make_profile_printer(o.format, out, std::move(options))->end(report);
    });
}

int run_profile(const ProfileCli& given) {
    ProfileCli o = given;
    if (!classify_inputs(o)) {
        return exit_bad_input;
    }
    std::vector<std::string> inputs = o.traces;
    for (const auto* paths : {&o.caches, &o.origins, &o.baseline_origins, &o.baseline_caches}) {
        inputs.insert(inputs.end(), paths->begin(), paths->end());
    }
    if (!o.baseline.empty()) {
        inputs.push_back(o.baseline);
    }
    o.source_rule = source_text_options(o.source_text, inputs);
    if (o.traces.size() > 1) {
        return run_profile_ranks(o);
    }
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

    TraceReader reader(TraceReaderOptions{.threads = o.jobs});
    bool annotate = !o.annotate_trace.empty();
    ProfileBuilder builder(sources, o.trace, reader, annotate);
    std::optional<AnnotatedTrace> annotated;
    if (annotate) {
        annotated.emplace(builder, o.annotate_trace);
        AnnotateTraceInputs inputs;
        inputs.trace = o.trace;
        inputs.sidecars = o.origins;
        inputs.caches = roots;
        inputs.discover = o.discover;
        if (auto refused = annotated->open(inputs)) {
            print_problems({*refused});
            return exit_bad_input;
        }
        problems.insert(problems.end(), annotated->notes().begin(), annotated->notes().end());
    }
    TraceHandler& handler = annotated ? static_cast<TraceHandler&>(*annotated) : builder;
    TraceReadResult read = read_trace(reader, handler, o.trace, "read the trace:");
    if (read.error) {
        problems.push_back(*read.error);
        print_problems(problems);
        std::cerr << "sdscprov profile: the trace could not be read: no report"
                  << (annotate ? ", no annotated trace" : "") << '\n';
        return exit_bad_input;
    }
    ProfileReport report = builder.finish(read);
    read_line_texts(report, o.source_rule);
    report.caches = roots;
    report.sources_digest = pairing_digest(sources);
    report.problems.insert(report.problems.begin(), problems.begin(), problems.end());
    bool failed = false;
    if (annotated) {
        if (auto problem = annotated->commit()) {
            report.problems.push_back(*problem);
        }
    }

    // The annotated copy on standard output takes the report's place there.
    if (!o.quiet && !(annotated && annotated->to_stdout())) {
        failed |= !print_report(o, report);
    }
    failed |= print_problems_of(report.problems);
    failed |= print_diagnostics(report.diagnostics, o.quiet);
    return failed ? exit_bad_input : exit_ok;
}

} // namespace sdscprov::cli
