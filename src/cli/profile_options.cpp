// `sdscprov profile`'s options: each converted, as it is parsed, into the type the run takes
// (--by into a RankingChoice, --format into a Format, ...); profile.cpp makes the run of them.
#include "common.hpp"
#include "profile.hpp"
#include "sdscprov/profile/ideal.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

namespace sdscprov::cli {

namespace {

// --by, its words turned into the rankings and their order as they are parsed: each ranking's
// word (tables, in the order given) and time, lost, spread (the order; the last one given counts).
void add_by_option(CLI::App& cmd, RankingChoice& by) {
    const RankingTable table = builtin_rankings();
    std::vector<std::string> words = by_words(table);
    std::string tables;
    for (const auto& spec : table) {
        tables += (tables.empty() ? "" : ", ") + std::string(spec.word);
    }
    cmd.add_option_function<std::vector<std::string>>(
           "--by",
           [&by, table](const std::vector<std::string>& given) {
               std::string unknown; // refused by IsMember before this runs
               choose_by(given, table, by, unknown);
           },
           "Only these tables in text and csv (" + tables +
               "), ranked by time (default), lost (against the ideal) or spread (several "
               "traces: the slowest rank's time over the fastest's); comma-separated or given "
               "again")
        ->delimiter(',')
        ->allow_extra_args(false) // `--by idle TRACE`: the trace is not another word
        ->check(CLI::IsMember(words));
}

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

// --span REGEX, compiled as it is parsed: an invalid one is a usage error.
void add_span_option(CLI::App& cmd, ProfileCli& o) {
    cmd.add_option_function<std::string>(
           "--span",
           [&o](const std::string& pattern) {
               std::string error;
               o.span = SpanFilter::compile(pattern, error);
               if (!o.span) {
                   throw CLI::ValidationError("--span", error);
               }
           },
           "Only the device activities launched inside a host record_function span whose name "
           "matches (ECMAScript, found anywhere in the name): every table, the utilization and "
           "the timeline cover them alone")
        ->type_name("REGEX");
}

// The drill-down into one row of the text report.
void add_drill_options(CLI::App& cmd, ProfileCli& o) {
    cmd.add_option("--line", o.drill_line,
                   "Show the kernels of one source line row (as the report prints it, or the "
                   "end of its path: mlp.py:12), each with the explain command that goes on")
        ->type_name("FILE:LINE");
    cmd.add_option("--op", o.drill_op, "Show the kernels of one ATen op row")->type_name("ATEN");
    cmd.add_option("--kernel", o.drill_kernel,
                   "Show one kernel row's source lines and ATen ops, and the explain command")
        ->type_name("LABEL");
}

} // namespace

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
                    std::string(sdscprov::sidecar_use(sdscprov::SidecarCommand::profile).help))
        ->allow_extra_args(false)
        ->check(CLI::ExistingFile);
    add_format_option(*cmd, o.format,
                      {Format::text, Format::json, Format::folded, Format::html, Format::csv,
                       Format::acelyzer_categories, Format::junit, Format::github, Format::sarif},
                      "text (ranked tables), json (docs/profile.md), folded (flame graph stacks), "
                      "html (a self-contained page), csv (one ranking: --by; several: --out-dir), "
                      "acelyzer-categories (aiu-trace-analyzer's _categories.csv); with "
                      "--fail-over also junit, github, sarif (the gate's findings)");
    cmd->add_option("--out-dir", o.out_dir,
                    "With --format csv: write each ranking (those --by names, else all) to "
                    "DIR/<ranking>.csv (line.csv, aten.csv, ...) instead of standard output; DIR "
                    "is made when absent")
        ->type_name("DIR");
    add_decimal_option(*cmd, "--top", o.top, WholeRange{}, "Rows per table in text (0: all)");
    add_by_option(*cmd, o.by);
    add_decimal_option(
        *cmd, "--core-mhz", o.core_mhz, WholeRange{1, max_core_mhz},
        "The core clock (whole MHz) turning ideal cycles (perf/ideal_cycles.json) into time")
        ->type_name("MHZ");
    add_choice_option(*cmd, "--value", o.value,
                      Choices<FoldedValue>{{"time", FoldedValue::time},
                                           {"ideal", FoldedValue::ideal},
                                           {"lost", FoldedValue::lost},
                                           {"idle", FoldedValue::idle},
                                           {"host-wait", FoldedValue::host_wait},
                                           {"launch", FoldedValue::launch}},
                      "The folded stacks' value: device, ideal or lost time against the ideal, "
                      "the idle gaps before the events, their host-wait part, or the launch "
                      "delays (ns)")
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
    add_span_option(*cmd, o);
    add_drill_options(*cmd, o);
    add_baseline_options(*cmd, o);
    add_source_text_options(*cmd, o.source_text);
    add_color_option(*cmd, o.color, "Colour in text");
    cmd->add_flag("-q,--quiet", o.quiet, "Print nothing but errors: no report, no warnings");
    cmd->add_flag("--all", o.all,
                  "Print every problem and diagnostic on standard error (default: the first 10 "
                  "of each code, then one line counting the rest)");
    add_decimal_option(*cmd, "-j,--jobs", o.jobs, WholeRange{1, max_jobs},
                       "Threads reading the caches and parsing the trace (default: all cores)");
    add_discover_options(*cmd, o.discover, "read", "Follow symbolic links to directories");
    add_max_file_size_option(*cmd, o.max_file_size,
                             "Larger SDSC files and sidecars are reported, not read (bytes)");
    cmd->footer("Example:\n  sdscprov profile spyre_trace.json --origins spyre_provenance.json\n"
                "  sdscprov profile trace.json.gz $TORCHINDUCTOR_CACHE_DIR --format folded | "
                "flamegraph.pl > flame.svg\n"
                "  sdscprov profile rank0.json rank1.json rank2.json rank3.json cache/\n"
                "  sdscprov profile trace.json cache/ --format csv --out-dir tables/\n"
                "Exit status: 0 done, 2 bad input (the trace, a sidecar or a cache; errors such "
                "as carrier-conflict), a usage error or an unwritable output, 3 internal error.");
}

} // namespace sdscprov::cli
