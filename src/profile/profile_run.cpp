#include "sdscprov/profile/profile_run.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/annotate_trace.hpp"
#include "sdscprov/join/handle_index.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/sidecars/sidecar.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <system_error>

namespace sdscprov {

namespace {

std::string errno_text(int err) {
    return std::generic_category().message(err);
}

// The positional inputs told apart: each trace opened once (its reader goes on from there), the
// caches as paths.
struct ProfileInputs {
    std::vector<TraceFile> traces;
    std::vector<std::string> caches;
};

// A directory is a cache; a file a trace when its first bytes say so (TraceFile); a path that
// cannot be told keeps its place when it is the first (the trace: its read says what is wrong).
// When no file reads as a trace, the first path that is not a directory is read as the trace.
// nullopt when no trace is left (every path is a directory).
std::optional<ProfileInputs> tell_inputs(const std::vector<std::string>& given) {
    std::vector<TraceFile> opened;
    opened.reserve(given.size());
    for (const auto& path : given) {
        opened.push_back(TraceFile::open(path));
    }
    ProfileInputs out;
    std::optional<std::size_t> first_file; // the first path that is not a directory
    std::vector<std::size_t> trace_at;
    for (std::size_t i = 0; i < opened.size(); ++i) {
        auto kind = opened[i].kind();
        if (kind != TraceFile::Kind::directory && !first_file) {
            first_file = i;
        }
        if (kind == TraceFile::Kind::trace || (kind == TraceFile::Kind::unknown && i == 0)) {
            trace_at.push_back(i);
        }
    }
    if (trace_at.empty() && first_file) {
        trace_at.push_back(*first_file);
    }
    if (trace_at.empty()) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < opened.size(); ++i) {
        if (std::find(trace_at.begin(), trace_at.end(), i) != trace_at.end()) {
            out.traces.push_back(std::move(opened[i]));
        } else {
            out.caches.push_back(given[i]);
        }
    }
    return out;
}

// torch-spyre's spyre_provenance.json only (the handles of a compile, per bundle identity); a
// file of another kind is refused. Each is read once, with the same limits as every other input.
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
        if (const SidecarUse& use = sidecar_use(SidecarCommand::profile); !takes(use, *kind)) {
            problems.push_back(
                make_problem(path, {}, ProblemCode::bad_argument, std::string(use.refused)));
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

// What a run pairs its events with: the sidecars read, the caches (given, else the default
// roots that exist) indexed.
struct Pairing {
    PairingSources sources;
    std::vector<std::string> roots;
};

// nullopt, with the sentence in `stopped` (maybe empty: the problem says it all), when a sidecar
// is refused or a cache cannot be reached; `what`: "trace" or "traces".
std::optional<Pairing> pairing_of(const std::vector<std::string>& origins,
                                  const std::vector<std::string>& caches,
                                  const ProfileReadOptions& o, const char* what, bool several,
                                  std::vector<Problem>& problems, std::string& stopped) {
    Pairing p;
    if (!read_spyre_sidecars(origins, o.max_file_size, p.sources, problems)) {
        stopped = std::string("fix the --origins file first: the ") + what +
                  (several ? " were" : " was") + " not read";
        return std::nullopt;
    }
    p.roots = caches;
    if (p.roots.empty()) {
        struct stat st {};
        for (auto& root : default_cache_roots()) {
            if (::stat(root.c_str(), &st) == 0) {
                p.roots.push_back(root);
            } else if (p.sources.sidecars.empty()) {
                stopped = "no --origins sidecar and no kernel cache at " + quote_path(root) +
                          " (give the caches on the command line): nothing to pair the " + what +
                          " with";
                return std::nullopt;
            }
        }
    } else {
        for (const auto& root : p.roots) {
            struct stat st {};
            if (::stat(root.c_str(), &st) != 0) {
                problems.push_back(make_problem(root, {}, ProblemCode::bad_argument,
                                                "cannot access: " + errno_text(errno)));
                stopped.clear();
                return std::nullopt;
            }
        }
    }
    p.sources.utilization.core_mhz = o.core_mhz;
    p.sources.utilization.read = IdealReadOptions{o.max_file_size, o.discover.follow_symlinks};
    if (!p.roots.empty()) {
        HandleIndexOptions index_options;
        index_options.discover = o.discover;
        index_options.max_file_size = o.max_file_size;
        index_options.jobs = o.jobs;
        auto indexed = index_handles(p.roots, index_options);
        p.sources.caches = std::move(indexed.index);
        problems.insert(problems.end(), indexed.problems.begin(), indexed.problems.end());
    }
    return p;
}

// Passes the trace on to `inner` and tells the callback how much of it was read.
class ReadingHandler final : public TraceHandler {
public:
    ReadingHandler(TraceHandler& inner, const ProfileRunCallbacks& callbacks, TraceReading at)
        : inner_(inner), callbacks_(callbacks), at_(at) {}
    void event(const TraceEvent& e) override { inner_.event(e); }
    void bytes(std::string_view text) override {
        inner_.bytes(text);
        at_.done += text.size();
        callbacks_.reading(at_);
    }
    void events_end(std::uint64_t offset) override { inner_.events_end(offset); }

private:
    TraceHandler& inner_;
    const ProfileRunCallbacks& callbacks_;
    TraceReading at_;
};

// `file` read into `handler`, the callback told as it goes.
TraceReadResult read_into(TraceReader& reader, TraceFile file, TraceHandler& handler,
                          const ProfileRunCallbacks& callbacks, std::size_t index,
                          std::size_t traces) {
    if (!callbacks.reading) {
        return reader.read(std::move(file), handler);
    }
    ReadingHandler counted(handler, callbacks, {index, traces, 0, file.text_size()});
    return reader.read(std::move(file), counted);
}

// One trace profiled against `sources` (the steps recorded when `record_steps`); nullopt, the
// read's error in `problems`, when it cannot be read.
std::optional<ProfileReport> profile_trace(TraceFile file, const Pairing& pairing,
                                           const ProfileReadOptions& o,
                                           const SourceTextOptions& source_text, bool record_steps,
                                           const std::optional<SpanFilter>& span,
                                           const ProfileRunCallbacks& callbacks,
                                           std::size_t index, std::size_t traces,
                                           std::vector<Problem>& problems) {
    TraceReader reader(TraceReaderOptions{.threads = o.jobs});
    const std::string path = file.path();
    ProfileBuilder builder(pairing.sources, path, reader);
    if (record_steps) {
        builder.record_steps();
    }
    if (span) {
        builder.span_filter(*span);
    }
    TraceReadResult read = read_into(reader, std::move(file), builder, callbacks, index, traces);
    if (read.error) {
        problems.push_back(*read.error);
        return std::nullopt;
    }
    ProfileReport report = builder.finish(read);
    read_line_texts(report, source_text);
    report.caches = pairing.roots;
    return report;
}

// The run's pairing (pairing_of with the run's sidecars and read options), or nullopt with why
// in `out` (its stopped sentence and problems).
std::optional<Pairing> run_pairing(const ProfileRunOptions& o,
                                   const std::vector<std::string>& caches, const char* what,
                                   bool several, std::vector<Problem>& problems,
                                   ProfileRunResult& out) {
    std::string stopped;
    auto pairing = pairing_of(o.origins, caches, o.read, what, several, problems, stopped);
    if (!pairing) {
        out.stopped = stopped;
        out.problems = std::move(problems);
    }
    return pairing;
}

void single_run(const ProfileRunOptions& o, TraceFile trace, std::vector<std::string> caches,
                const ProfileRunCallbacks& callbacks, ProfileRunResult& out) {
    std::vector<Problem> problems;
    auto pairing = run_pairing(o, caches, "trace", false, problems, out);
    if (!pairing) {
        return;
    }
    const std::string path = trace.path();
    TraceReader reader(TraceReaderOptions{.threads = o.read.jobs});
    const bool annotate = !o.annotate_trace.empty();
    ProfileBuilder builder(pairing->sources, path, reader, annotate);
    if (o.span) {
        builder.span_filter(*o.span);
    }
    std::optional<AnnotatedTrace> annotated;
    if (annotate) {
        annotated.emplace(builder, o.annotate_trace);
        AnnotateTraceInputs inputs;
        inputs.trace = path;
        inputs.sidecars = o.origins;
        inputs.caches = pairing->roots;
        inputs.discover = o.read.discover;
        if (auto refused = annotated->open(inputs)) {
            out.stopped = "";
            out.problems = {*refused};
            return;
        }
        problems.insert(problems.end(), annotated->notes().begin(), annotated->notes().end());
    }
    TraceHandler& handler = annotated ? static_cast<TraceHandler&>(*annotated) : builder;
    TraceReadResult read = read_into(reader, std::move(trace), handler, callbacks, 0, 1);
    if (read.error) {
        problems.push_back(*read.error);
        out.problems = std::move(problems);
        out.stopped = std::string("the trace could not be read: no report") +
                      (annotate ? ", no annotated trace" : "");
        return;
    }
    ProfileReport report = builder.finish(read);
    read_line_texts(report, o.source_text);
    report.caches = pairing->roots;
    report.sources_digest = pairing_digest(pairing->sources);
    report.problems.insert(report.problems.begin(), problems.begin(), problems.end());
    if (annotated) {
        if (auto problem = annotated->commit()) {
            report.problems.push_back(*problem);
        } else if (auto note = annotated->untimed_note()) {
            report.problems.push_back(*note);
        }
        out.annotated_to_stdout = annotated->to_stdout();
    }
    out.report = std::move(report);
}

void ranks_run(const ProfileRunOptions& o, std::vector<TraceFile> traces,
               std::vector<std::string> caches, const ProfileRunCallbacks& callbacks,
               ProfileRunResult& out) {
    if (!o.annotate_trace.empty() || o.baseline || o.span) {
        out.stopped = std::string(!o.annotate_trace.empty() ? "--annotate-trace"
                                  : o.baseline              ? "--baseline"
                                                            : "--span") +
                      " takes one trace, and " + std::to_string(traces.size()) +
                      " were given: profile the traces one by one";
        return;
    }
    std::vector<Problem> problems;
    auto pairing = run_pairing(o, caches, "traces", true, problems, out);
    if (!pairing) {
        return;
    }
    const std::string digest = pairing_digest(pairing->sources);
    std::vector<ProfileReport> reports;
    const std::size_t count = traces.size();
    for (std::size_t i = 0; i < count; ++i) {
        const std::string path = traces[i].path();
        std::vector<Problem> read_error;
        auto report = profile_trace(std::move(traces[i]), *pairing, o.read, o.source_text, false,
                                    std::nullopt, callbacks, i, count, read_error);
        if (!report) {
            problems.insert(problems.end(), read_error.begin(), read_error.end());
            out.problems = std::move(problems);
            out.stopped = "the trace " + quote_path(path) + " could not be read: no report";
            return;
        }
        report->sources_digest = digest;
        report->problems.insert(report->problems.begin(), problems.begin(), problems.end());
        reports.push_back(std::move(*report));
    }
    std::optional<Problem> refusal;
    auto merged = merge_profiles(std::move(reports), refusal);
    if (!merged) {
        out.stopped = "";
        out.problems = {*refusal};
        return;
    }
    out.report = std::move(*merged);
}

void baseline_run(const ProfileRunOptions& o, TraceFile trace, std::vector<std::string> caches,
                  const ProfileRunCallbacks& callbacks, ProfileRunResult& out) {
    const ProfileBaselineOptions& b = *o.baseline;
    if (b.trace == "-" && trace.path() == "-") {
        out.stopped = "only one of the two traces can be standard input (-)";
        return;
    }
    for (const auto& dir : b.caches) { // before any cache or trace is read
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0) {
            out.problems.push_back(make_problem(
                dir, {}, ProblemCode::bad_argument,
                "--baseline-cache cannot be accessed: " + errno_text(errno)));
        } else if (!S_ISDIR(st.st_mode)) {
            out.problems.push_back(make_problem(dir, {}, ProblemCode::bad_argument,
                                                "--baseline-cache is not a directory (give the "
                                                "base run's kernel cache)"));
        }
        if (!out.problems.empty()) {
            out.stopped = "";
            return;
        }
    }
    std::vector<Problem> problems;
    auto pairing = run_pairing(o, caches, "traces", true, problems, out);
    if (!pairing) {
        return;
    }
    // The base run's own sidecars and caches where given, else the trace's. Shared caches'
    // problems are reported once, with the new run; the base's own with it.
    std::vector<Problem> base_problems;
    std::optional<Pairing> own;
    if (!b.origins.empty() || !b.caches.empty()) {
        std::string stopped;
        own = pairing_of(b.origins.empty() ? o.origins : b.origins,
                         b.caches.empty() ? caches : b.caches, o.read, "traces", true,
                         base_problems, stopped);
        if (!own) {
            out.stopped = stopped;
            out.problems = std::move(base_problems);
            return;
        }
    }
    const Pairing& base_pairing = own ? *own : *pairing;
    auto read_run = [&](TraceFile file, const Pairing& with, std::vector<Problem>& run_problems,
                        std::size_t index) -> std::optional<ProfileReport> {
        std::vector<Problem> read_error;
        auto report =
            profile_trace(std::move(file), with, o.read, o.source_text, true, o.span, callbacks,
                          index, 2, read_error);
        if (!report) {
            out.problems = std::move(read_error);
            out.problems.insert(out.problems.end(), run_problems.begin(), run_problems.end());
            out.stopped = "the trace could not be read: no comparison";
            return std::nullopt;
        }
        report->problems.insert(report->problems.begin(), run_problems.begin(),
                                run_problems.end());
        return report;
    };
    auto base = read_run(TraceFile::open(b.trace), base_pairing, base_problems, 0);
    if (!base) {
        out.problems.insert(out.problems.end(), problems.begin(), problems.end());
        return;
    }
    auto now = read_run(std::move(trace), *pairing, problems, 1);
    if (!now) {
        return;
    }
    out.comparison = compare_profiles(std::move(*base), std::move(*now), b.idle);
    if (b.gate) {
        out.findings =
            gate_findings(*out.comparison, out.comparison->rows(*b.gated), *b.gate);
    }
}

} // namespace

ProfileRunResult profile(const ProfileRunOptions& options, const ProfileRunCallbacks& callbacks) {
    ProfileRunResult out;
    auto inputs = tell_inputs(options.inputs);
    if (!inputs) {
        out.stopped = "no trace given (every path is a directory, read as a kernel cache): give "
                      "the profiler's trace file";
        return out;
    }
    out.trace = inputs->traces.front().path();
    if (options.span && !options.annotate_trace.empty()) {
        out.stopped = "--span and --annotate-trace do not go together: the annotated copy "
                      "describes every paired event";
        return out;
    }
    if (inputs->traces.size() > 1) {
        ranks_run(options, std::move(inputs->traces), std::move(inputs->caches), callbacks, out);
    } else if (options.baseline) {
        baseline_run(options, std::move(inputs->traces.front()), std::move(inputs->caches),
                     callbacks, out);
    } else {
        single_run(options, std::move(inputs->traces.front()), std::move(inputs->caches),
                   callbacks, out);
    }
    return out;
}

std::vector<std::string> paths_read(const ProfileRunOptions& options) {
    std::vector<std::string> paths = options.inputs;
    paths.insert(paths.end(), options.origins.begin(), options.origins.end());
    if (const auto& base = options.baseline) {
        if (!base->trace.empty()) {
            paths.push_back(base->trace);
        }
        paths.insert(paths.end(), base->origins.begin(), base->origins.end());
        paths.insert(paths.end(), base->caches.begin(), base->caches.end());
    }
    return paths;
}

} // namespace sdscprov
