#include "sdscprov/report/profile_merge.hpp"

#include "core/read_file.hpp"
#include "report/utilization_printers.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <initializer_list>
#include <limits>
#include <simdjson.h>
#include <utility>

namespace sdscprov {

namespace {

namespace dom = simdjson::dom;

// Reads the members of a report; the first one missing or of the wrong type is the error, and
// every read after it gives an empty value.
class ReportJson {
public:
    std::string error;

    dom::element at(dom::element object, const char* name) {
        dom::element v;
        if (error.empty() && object[name].get(v)) {
            error = std::string("no member \"") + name + "\" of the right type";
        }
        return v;
    }
    std::uint64_t u64(dom::element o, const char* name) {
        std::uint64_t v = 0;
        auto e = at(o, name);
        if (error.empty() && e.get(v)) {
            error = std::string("\"") + name + "\" is not an unsigned integer";
        }
        return v;
    }
    // Several unsigned members of one object, each into its field.
    void u64s(dom::element o,
              std::initializer_list<std::pair<const char*, std::uint64_t*>> members) {
        for (const auto& [name, field] : members) {
            *field = u64(o, name);
        }
    }
    std::optional<std::int64_t> opt_i64(dom::element o, const char* name) {
        auto e = at(o, name);
        std::int64_t v = 0;
        if (!error.empty() || e.is_null()) {
            return std::nullopt;
        }
        if (e.get(v)) {
            error = std::string("\"") + name + "\" is not an integer";
        }
        return v;
    }
    bool boolean(dom::element o, const char* name) {
        bool v = false;
        auto e = at(o, name);
        if (error.empty() && e.get(v)) {
            error = std::string("\"") + name + "\" is not true or false";
        }
        return v;
    }
    std::string str(dom::element o, const char* name) {
        std::string_view v;
        auto e = at(o, name);
        if (error.empty() && e.get(v)) {
            error = std::string("\"") + name + "\" is not a string";
        }
        return std::string(v);
    }
    std::optional<std::string> opt_str(dom::element o, const char* name) {
        auto e = at(o, name);
        if (!error.empty() || e.is_null()) {
            return std::nullopt;
        }
        return str(o, name);
    }
    // The elements (none once an error is found: a value read after one is never touched).
    std::vector<dom::element> array(dom::element o, const char* name) {
        std::vector<dom::element> out;
        dom::array a;
        auto e = at(o, name);
        if (error.empty() && e.get(a)) {
            error = std::string("\"") + name + "\" is not an array";
        }
        if (error.empty()) {
            for (auto item : a) {
                out.push_back(item);
            }
        }
        return out;
    }
    std::vector<std::string> strings(dom::element o, const char* name) {
        std::vector<std::string> out;
        for (auto item : array(o, name)) {
            std::string_view s;
            if (error.empty() && item.get(s)) {
                error = std::string("\"") + name + "\" holds a value that is not a string";
            }
            out.emplace_back(s);
        }
        return out;
    }
    std::vector<std::uint64_t> numbers(dom::element o, const char* name) {
        std::vector<std::uint64_t> out;
        for (auto item : array(o, name)) {
            std::uint64_t v = 0;
            if (error.empty() && item.get(v)) {
                error = std::string("\"") + name + "\" holds a value that is not a count";
            }
            out.push_back(v);
        }
        return out;
    }
    bool has(dom::element o, const char* name) {
        dom::element v;
        return error.empty() && !o[name].get(v);
    }
    // A value named by its to_string among the first `count` of the enum.
    template <class E> E named(dom::element o, const char* name, int count) {
        std::string s = str(o, name);
        for (int i = 0; i < count; ++i) {
            if (to_string(static_cast<E>(i)) == s) {
                return static_cast<E>(i);
            }
        }
        if (error.empty()) {
            error = std::string("\"") + name + "\" is not a known value: " + printable_text(s);
        }
        return E{};
    }
};

// Every code a report's problems, diagnostics and unresolved bundles may name.
constexpr int problem_codes = static_cast<int>(ProblemCode::merge_refused) + 1;

StageTotals read_stages(ReportJson& j, dom::element o) {
    StageTotals s;
    auto stages = j.at(o, "stages");
    for (std::size_t i = 0; i < stage_count; ++i) {
        std::string name(to_string(static_cast<Stage>(i)));
        auto stage = j.at(stages, name.c_str());
        s.ticks[i] = j.u64(stage, "ticks");
        s.events[i] = j.u64(stage, "events");
    }
    return s;
}

IdealTime read_ideal_time(ReportJson& j, dom::element o) {
    IdealTime t;
    auto u = j.at(o, "utilization");
    j.u64s(u, {{"events", &t.events},
               {"measured_ns", &t.measured_ns},
               {"ideal_ns", &t.ideal_ns},
               {"lost_ns", &t.lost_ns},
               {"over_100_events", &t.over_100_events}});
    return t;
}

DeviceTime read_time(ReportJson& j, dom::element o) {
    DeviceTime t;
    t.ns = j.u64(o, "device_ns");
    t.events = j.u64(o, "events");
    t.stages = read_stages(j, o);
    t.ideal = read_ideal_time(j, o);
    return t;
}

std::vector<std::uint64_t> read_rank_ns(ReportJson& j, dom::element o) {
    return j.has(o, "rank_ns") ? j.numbers(o, "rank_ns") : std::vector<std::uint64_t>{};
}

std::vector<ProfileRow> read_rows(ReportJson& j, dom::element doc, const char* name) {
    std::vector<ProfileRow> rows;
    for (auto item : j.array(doc, name)) {
        ProfileRow row;
        row.label = j.str(item, "label");
        if (j.has(item, "file") && j.has(item, "line")) {
            auto file = j.opt_str(item, "file");
            auto line = j.opt_i64(item, "line");
            if (file && line) {
                row.line = SourceLine{*file, *line};
            }
            row.text = j.opt_str(item, "text");
        }
        row.time = read_time(j, item);
        row.rank_ns = read_rank_ns(j, item);
        for (auto b : j.numbers(item, "bundles")) {
            row.bundles.push_back(static_cast<std::uint32_t>(b));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<BundleIdeal> read_bundle_ideal(ReportJson& j, dom::element o) {
    auto e = j.at(o, "ideal");
    if (!j.error.empty() || e.is_null()) {
        return std::nullopt;
    }
    BundleIdeal ideal;
    ideal.kernel_dir = j.str(e, "kernel_dir");
    ideal.kernel.cycles = j.u64(e, "cycles");
    ideal.ns = j.u64(e, "ns");
    ideal.kernel.rule = j.named<IdealRule>(e, "rule", 2);
    ideal.kernel.category = j.opt_str(e, "category");
    return ideal;
}

ProfileBundle read_bundle(ReportJson& j, dom::element o) {
    ProfileBundle b;
    b.key = j.opt_str(o, "key").value_or("");
    b.label = j.str(o, "label");
    b.event_name = j.str(o, "event_name");
    b.resolution = j.named<Resolution>(o, "paired_by", 3);
    if (j.opt_str(o, "reason")) {
        b.reason = j.named<ProblemCode>(o, "reason", problem_codes);
    }
    b.handle_ids = j.strings(o, "handles");
    b.kernel_names = j.strings(o, "kernels");
    b.kernel_dirs = j.strings(o, "kernel_dirs");
    for (auto l : j.array(o, "source_lines")) {
        b.lines.push_back(SourceLine{j.str(l, "file"), j.opt_i64(l, "line").value_or(0)});
    }
    b.aten_ops = j.strings(o, "aten_ops");
    b.compiler_generated = j.has(o, "compiler_generated") && j.boolean(o, "compiler_generated");
    b.time = read_time(j, o);
    b.rank_ns = read_rank_ns(j, o);
    b.ideal = read_bundle_ideal(j, o);
    ProfileBuilder::label_frames(b);
    return b;
}

void read_traces(ReportJson& j, dom::element doc, ProfileReport& r) {
    if (!j.has(doc, "traces")) {
        auto t = j.at(doc, "trace");
        r.trace = j.str(t, "path");
        r.gzip = j.boolean(t, "gzip");
        r.trace_bytes = j.u64(t, "bytes");
        r.coverage.trace_events = j.u64(t, "events");
        r.distributed_rank = j.opt_i64(t, "distributed_rank");
        return;
    }
    r.ranks_by_argument = j.str(doc, "ranks_by") != "distributedInfo.rank";
    for (auto t : j.array(doc, "traces")) {
        ProfileRank k;
        k.rank = j.opt_i64(t, "rank").value_or(0);
        k.trace = j.str(t, "path");
        k.gzip = j.boolean(t, "gzip");
        k.trace_bytes = j.u64(t, "bytes");
        k.trace_events = j.u64(t, "events");
        k.distributed_rank = j.opt_i64(t, "distributed_rank");
        k.kernel_events = j.u64(t, "kernel_events");
        k.kernel_ns = j.u64(t, "kernel_ns");
        r.trace += (r.trace.empty() ? "" : ", ") + k.trace;
        r.trace_bytes += k.trace_bytes;
        r.ranks.push_back(std::move(k));
    }
}

void read_coverage(ReportJson& j, dom::element doc, ProfileReport& r) {
    auto c = j.at(doc, "coverage");
    auto& v = r.coverage;
    j.u64s(c, {{"kernel_events", &v.kernel_events},
               {"resolved_events", &v.resolved_events},
               {"kernel_ns", &v.kernel_ns},
               {"resolved_ns", &v.resolved_ns},
               {"unmeasured_events", &v.unmeasured_events},
               {"counters_failed_events", &v.counters_failed_events},
               {"paired_bundles", &v.paired_bundles},
               {"dirless_bundles", &v.dirless_bundles},
               {"dirless_events", &v.dirless_events},
               {"dirless_ns", &v.dirless_ns}});
    r.stages = read_stages(j, doc);
}

void read_ideal(ReportJson& j, dom::element doc, ProfileReport& r) {
    auto i = j.at(doc, "ideal");
    auto& s = r.ideal;
    s.core_mhz = static_cast<std::uint32_t>(j.u64(i, "core_mhz"));
    auto dirs = j.at(i, "kernel_dirs");
    for (const auto& count : utilization_printers::kernel_dir_counts) {
        s.*count.field = j.u64(dirs, count.name);
    }
    j.u64s(i, {{"bundles_with_ideal", &s.bundles_with_ideal},
               {"bundles_without_ideal", &s.bundles_without_ideal}});
    s.other_members = j.strings(i, "other_members");
    s.time = read_ideal_time(j, i);
}

TextPosition read_position(ReportJson& j, dom::element o) {
    auto line = j.opt_i64(o, "line").value_or(0);
    auto col = j.opt_i64(o, "col").value_or(0);
    return {static_cast<std::size_t>(line), static_cast<std::size_t>(col)};
}

// The members every problem has, as json_out::problem_members writes them.
Problem read_problem(ReportJson& j, dom::element o) {
    Problem problem;
    problem.path = j.str(o, "path");
    problem.pos = read_position(j, o);
    problem.severity = j.named<Severity>(o, "severity", 3);
    problem.code = j.named<ProblemCode>(o, "code", problem_codes);
    problem.message = j.str(o, "message");
    return problem;
}

void read_findings(ReportJson& j, dom::element doc, ProfileReport& r) {
    for (auto h : j.array(doc, "handles")) {
        auto read = read_debug_handle(h);
        if (!read.handle) {
            if (j.error.empty()) {
                j.error = "a handle that does not read back: " + read.malformed_reason;
            }
            continue;
        }
        r.handles.push_back(std::move(*read.handle));
    }
    for (auto d : j.array(doc, "diagnostics")) {
        Problem diagnostic = read_problem(j, d);
        diagnostic.events = j.u64(d, "events");
        diagnostic.first_event = j.u64(d, "first_event");
        r.diagnostics.push_back(std::move(diagnostic));
    }
    for (auto p : j.array(doc, "problems")) {
        r.problems.push_back(read_problem(j, p));
    }
}

// What the report did not read of the source files (none said in a report written before the
// member was).
void read_source_text(ReportJson& j, dom::element doc, ProfileReport& r) {
    if (!j.has(doc, "source_text")) {
        return;
    }
    auto note = j.at(doc, "source_text");
    r.source_text.read = j.boolean(note, "read");
    for (auto item : j.array(note, "not_shown")) {
        std::string file = j.str(item, "file");
        r.source_text.not_shown.emplace(
            std::move(file),
            j.named<SourceRefusal>(item, "reason", static_cast<int>(source_refusal_count)));
    }
    for (auto& prefix : j.strings(note, "unreadable_prefixes")) {
        r.source_text.unreadable_prefixes.insert(std::move(prefix));
    }
}

} // namespace

bool is_profile_report(std::string_view json) {
    dom::parser parser;
    dom::element doc, version;
    return !parser.parse(json.data(), json.size()).get(doc) &&
           !doc["sdscprov_profile"].get(version);
}

namespace {

std::optional<ProfileReport> read_report(const std::string& source, dom::element doc,
                                         std::string& error) {
    ReportJson j;
    std::uint64_t version = j.u64(doc, "sdscprov_profile");
    if (!j.error.empty()) {
        error = quote_path(source) +
                ": not a profile report (sdscprov profile --format json): profile "
                "reports merge only with profile reports";
        return std::nullopt;
    }
    if (version != profile_report_version) {
        error = quote_path(source) + ": a profile report of version " + std::to_string(version) +
                ", and this sdscprov merges version " + std::to_string(profile_report_version) +
                " only: profile the trace again with this sdscprov";
        return std::nullopt;
    }
    ProfileReport r;
    read_traces(j, doc, r);
    r.sources_digest = j.str(doc, "sources");
    r.sidecars = j.strings(doc, "sidecars");
    r.caches = j.strings(doc, "caches");
    read_coverage(j, doc, r);
    read_ideal(j, doc, r);
    for (auto& ranking : r.rankings) {
        ranking.rows = read_rows(j, doc, std::string(ranking.spec->json_key).c_str());
    }
    for (auto b : j.array(doc, "bundles")) {
        r.bundles.push_back(read_bundle(j, b));
    }
    read_findings(j, doc, r);
    read_source_text(j, doc, r);
    if (!j.error.empty()) {
        error = quote_path(source) + ": not a profile report this sdscprov wrote: " + j.error;
        return std::nullopt;
    }
    return r;
}

} // namespace

std::optional<ProfileReport> read_profile_report(const std::string& source, std::string_view json,
                                                 std::string& error) {
    dom::parser parser;
    dom::element doc;
    if (auto e = parser.parse(json.data(), json.size()).get(doc)) {
        error = quote_path(source) + ": not JSON (" + simdjson::error_message(e) + ")";
        return std::nullopt;
    }
    return read_report(source, doc, error);
}

namespace {

// The reports' merge as printed, or why they cannot be merged.
ProfileMergeResult merged_result(std::vector<ProfileReport> reports, std::string error) {
    ProfileMergeResult out;
    if (!error.empty()) {
        out.refusal = make_problem("", {}, ProblemCode::merge_refused, std::move(error));
    } else if (auto merged = merge_profiles(std::move(reports), out.refusal)) {
        out.report = render_profile_json(*merged);
    }
    return out;
}

} // namespace

ProfileMergeFilesResult merge_profile_report_files(const std::vector<std::string>& paths,
                                                   std::string first,
                                                   const StreamWait& wait) {
    std::vector<ProfileReport> reports;
    std::string error;
    dom::parser parser; // one parser for every input: its buffers are reused
    for (std::size_t i = 0; i < paths.size() && error.empty(); ++i) {
        const auto& path = paths[i];
        dom::element doc;
        simdjson::error_code e{};
        if (i == 0) {
            e = parser.parse(first).get(doc);
            first = std::string(); // the parser holds what is needed
        } else {
            Problem problem;
            auto bytes = detail::read_named_input(path, std::numeric_limits<std::uint64_t>::max(),
                                                  "the report", problem, wait);
            if (!bytes) {
                ProfileMergeFilesResult out;
                out.unreadable = std::move(problem);
                return out;
            }
            e = parser.parse(*bytes).get(doc);
        }
        if (e) {
            error = quote_path(path) + ": not JSON (" + simdjson::error_message(e) + ")";
        } else if (auto report = read_report(path, doc, error)) {
            reports.push_back(std::move(*report));
        }
    }
    return {merged_result(std::move(reports), std::move(error)), std::nullopt};
}

ProfileMergeResult
merge_profile_reports(const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::vector<ProfileReport> reports;
    std::string error;
    for (const auto& [source, json] : inputs) {
        auto report = read_profile_report(source, json, error);
        if (!report) {
            break;
        }
        reports.push_back(std::move(*report));
    }
    if (error.empty() && reports.empty()) {
        error = "no report to merge";
    }
    return merged_result(std::move(reports), std::move(error));
}

} // namespace sdscprov
