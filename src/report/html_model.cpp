// The HTML page's data (html_model.hpp), as JSON for the page's script (src/report/page/page.js).
#include "report/html_model.hpp"

#include "core/json_out.hpp"
#include "sdscprov/handle/compiler_generated.hpp"
#include "sdscprov/handle/source_text.hpp"

#include <algorithm>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace sdscprov {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The members every ranked table of the page starts with.
void ranking_head(Writer& w, std::string_view id, std::string_view title, std::string_view what,
                  std::string_view note) {
    w.StartObject();
    json_out::member(w, "id", id);
    json_out::member(w, "title", title);
    json_out::member(w, "what", what);
    json_out::member(w, "note", note);
}

// A JSON array written piece by piece, closed when the page's data is assembled.
struct JsonArray {
    rapidjson::StringBuffer buffer;
    Writer w{buffer};
    JsonArray() { w.StartArray(); }
    std::string_view close() {
        w.EndArray();
        return {buffer.GetString(), buffer.GetSize()};
    }
};

// `name`: [[line, ns]] of one source file's heat.
void heat_json(Writer& w, std::string_view name, const std::map<std::int64_t, std::uint64_t>& ns) {
    json_out::key(w, name);
    w.StartArray();
    for (const auto& [n, v] : ns) {
        w.StartArray();
        w.Int64(n);
        w.Uint64(v);
        w.EndArray();
    }
    w.EndArray();
}

} // namespace

struct HtmlModel::Buffers {
    std::string command;
    JsonArray summary;
    std::string coverage = "null";
    JsonArray kernels;
    JsonArray ops;
    JsonArray problems;
    std::string verdict = "null";
    std::string profile = "null";
    std::string compare; // profile --baseline only: the member is left out when empty
    std::string ranks;   // several traces only: the member is left out when empty
    std::string steps;   // a timeline shown only: the member is left out when empty
    JsonArray rankings;
    std::size_t kernel_count = 0;
    std::size_t op_count = 0;
};

HtmlModel::HtmlModel(std::string command, std::string title, const SourceTextOptions& source_text)
    : title_(std::move(title)), source_text_(source_text), b_(std::make_unique<Buffers>()) {
    b_->command = std::move(command);
}

HtmlModel::~HtmlModel() = default;

std::size_t HtmlModel::source_index(const std::string& file) {
    auto [it, inserted] = source_ids_.emplace(file, sources_.size());
    if (inserted) {
        sources_.push_back(file);
        source_lines_.emplace_back();
        heat_.emplace_back();
        lost_.emplace_back();
        base_.emplace_back();
        idle_.emplace_back();
    }
    return it->second;
}

void HtmlModel::summary(std::string label, std::string value) {
    Writer& w = b_->summary.w;
    w.StartArray();
    json_out::string(w, label);
    json_out::string(w, value);
    w.EndArray();
}

void HtmlModel::coverage(std::uint64_t files,
                         const std::array<std::uint64_t, provenance_member_count>& members) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    json_out::member(w, "files", files);
    json_out::key(w, "members");
    w.StartArray();
    for (std::size_t m = 0; m < provenance_member_count; ++m) {
        w.StartArray();
        json_out::string(w, to_string(static_cast<ProvenanceMember>(m)));
        w.Uint64(members[m]);
        json_out::string(w, to_string(sdscprov::coverage(members[m], files)));
        w.EndArray();
    }
    w.EndArray();
    w.EndObject();
    b_->coverage.assign(buffer.GetString(), buffer.GetSize());
}

namespace {

// {"id", "src": [source, line, col] | null, "gen": true (a compiler-generated op's handle, no
// source by design; only then), "aten", "ir", "ff", "th": [[kind, pass, reason]], "fc"}; sources
// by their index in the page's "sources".
template <class SourceIndex>
void handle_json(Writer& w, const DebugHandle& h, SourceIndex&& index) {
    w.StartObject();
    json_out::member(w, "id", h.id);
    json_out::key(w, "src");
    if (h.source) {
        w.StartArray();
        w.Uint64(index(*h.source));
        w.Int64(h.source->start_line);
        w.Int64(h.source->start_col);
        w.EndArray();
    } else {
        w.Null();
        if (is_sourceless_handle(h)) {
            json_out::key(w, "gen");
            w.Bool(true);
        }
    }
    json_out::member(w, "aten", h.aten_op);
    json_out::key(w, "ir");
    json_out::strings(w, h.ir_chain);
    json_out::key(w, "ff");
    w.StartArray();
    for (const auto& child : h.fused_from) {
        handle_json(w, child, index);
    }
    w.EndArray();
    if (h.history_shape == HistoryShape::fusion_context) {
        json_out::member(w, "fc", h.fusion_context);
    } else {
        json_out::key(w, "th");
        w.StartArray();
        for (const auto& step : h.transform_history) {
            w.StartArray();
            json_out::string(w, step.kind);
            json_out::string(w, step.pass_name);
            json_out::optional_string(w, step.reason);
            w.EndArray();
        }
        w.EndArray();
    }
    w.EndObject();
}

// A kernel's stack traces: [[trace, [source, line] | null]].
template <class SourceIndex>
void kernel_traces(Writer& w, const HtmlKernel& k, SourceIndex&& index) {
    if (!k.stack_traces.empty()) {
        json_out::key(w, "traces");
        w.StartArray();
        for (const auto& [trace, source] : k.stack_traces) {
            w.StartArray();
            json_out::string(w, trace);
            if (source) {
                w.StartArray();
                w.Uint64(index(*source));
                w.Int64(source->start_line);
                w.EndArray();
            } else {
                w.Null();
            }
            w.EndArray();
        }
        w.EndArray();
    }
}

// A kernel's device time and events, stage ticks, and (compared runs) its base time.
void kernel_times(Writer& w, const HtmlKernel& k) {
    if (k.ns) {
        json_out::member(w, "ns", *k.ns);
        json_out::member(w, "ev", k.events);
    }
    if (k.stage_ticks) {
        json_out::key(w, "st");
        w.StartArray();
        for (auto t : *k.stage_ticks) {
            w.Uint64(t);
        }
        w.EndArray();
    }
    if (k.base) {
        json_out::key(w, "b");
        w.StartArray();
        w.Uint64(k.base->first);
        w.Uint64(k.base->second);
        w.EndArray();
    }
}

// {"k": kernel, "f", "key", "st", "h": handle | null, "notes"}.
template <class SourceIndex>
void op_json(Writer& o, const HtmlOp& op, std::uint64_t kernel, SourceIndex&& index) {
    o.StartObject();
    json_out::member(o, "k", kernel);
    json_out::member(o, "f", op.file);
    json_out::member(o, "key", op.key);
    json_out::member(o, "st", op.state);
    json_out::key(o, "h");
    if (op.handle) {
        handle_json(o, *op.handle, index);
    } else {
        o.Null();
    }
    if (!op.notes.empty()) {
        json_out::key(o, "notes");
        json_out::strings(o, op.notes);
    }
    o.EndObject();
}

} // namespace

void HtmlModel::kernel(const HtmlKernel& k, const std::vector<HtmlOp>& ops) {
    auto index = [this](const HandleSource& s) {
        std::size_t i = source_index(s.file);
        source_lines_[i].insert(s.start_line);
        return static_cast<std::uint64_t>(i);
    };
    Writer& w = b_->kernels.w;
    w.StartObject();
    json_out::member(w, "name", k.name);
    json_out::member(w, "dir", k.dir);
    json_out::key(w, "bar");
    w.StartArray();
    for (auto n : {k.bar.populated, k.bar.null, k.bar.absent, k.bar.malformed}) {
        w.Uint64(n);
    }
    w.EndArray();
    json_out::member(w, "files", k.files);
    json_out::member(w, "find", k.findings);
    if (k.errors + k.lacking + k.problems > 0) { // else [0, 0, 0]
        json_out::key(w, "rank");
        w.StartArray();
        for (auto n : {k.errors, k.lacking, k.problems}) {
            w.Uint64(n);
        }
        w.EndArray();
    }
    if (!k.key.empty()) {
        json_out::member(w, "key", k.key);
    }
    if (!k.next.empty() && k.next == k.dir) { // "x": the directory
        json_out::member(w, "x", 1);
    } else if (!k.next.empty()) {
        json_out::member(w, "next", k.next);
    }
    json_out::key(w, "ops");
    w.StartArray();
    w.Uint64(b_->op_count);
    w.Uint64(ops.size());
    w.EndArray();
    if (!k.note.empty()) {
        json_out::member(w, "note", k.note);
    }
    if (!k.pre_grad_nodes.empty() || !k.post_grad_nodes.empty()) {
        json_out::key(w, "pre");
        json_out::strings(w, k.pre_grad_nodes);
        json_out::key(w, "post");
        json_out::strings(w, k.post_grad_nodes);
    }
    kernel_traces(w, k, index);
    kernel_times(w, k);
    w.EndObject();

    for (const auto& op : ops) {
        op_json(b_->ops.w, op, b_->kernel_count, index);
    }
    b_->op_count += ops.size();
    ++b_->kernel_count;
}

void HtmlModel::problem(const Problem& p) {
    listed(p.path, p.pos, to_string(p.severity), to_string(p.code), p.message);
}

void HtmlModel::listed(const std::string& path, TextPosition pos, std::string_view severity,
                       std::string_view code, const std::string& message) {
    Writer& w = b_->problems.w;
    w.StartArray();
    json_out::string(w, path);
    w.Uint64(pos.line);
    w.Uint64(pos.col);
    json_out::string(w, severity);
    json_out::string(w, code);
    json_out::string(w, message);
    w.EndArray();
}

void HtmlModel::verdict(std::string_view tone, const std::string& text) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartArray();
    json_out::string(w, tone);
    json_out::string(w, text);
    w.EndArray();
    b_->verdict.assign(buffer.GetString(), buffer.GetSize());
}

namespace {

// The events and device time of a trace, paired or not: the head of the page's totals.
void coverage_members(Writer& w, const ProfileCoverage& c) {
    json_out::member(w, "trace_events", c.trace_events);
    json_out::member(w, "events", c.kernel_events);
    json_out::member(w, "paired_events", c.resolved_events);
    json_out::member(w, "ns", c.kernel_ns);
    json_out::member(w, "paired_ns", c.resolved_ns);
}

} // namespace

void HtmlModel::profile_totals(const ProfileCoverage& c, std::size_t bundles) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    coverage_members(w, c);
    json_out::member(w, "unmeasured", c.unmeasured_events);
    json_out::member(w, "bundles", bundles);
    w.EndObject();
    b_->profile.assign(buffer.GetString(), buffer.GetSize());
}

void HtmlModel::ranking(std::string_view id, std::string_view title, std::string_view what,
                        std::string_view note, const std::vector<ProfileRow>& rows, bool ideal) {
    Writer& w = b_->rankings.w;
    ranking_head(w, id, title, what, note);
    if (ideal) {
        json_out::member(w, "ideal", true);
    }
    // [label, ns, events, [bundle], source index or -1, line, text], with `ideal` then
    // ideal ns, lost ns and the ns of the events that have an ideal (null: none has one).
    json_out::key(w, "rows");
    w.StartArray();
    for (const auto& r : rows) {
        w.StartArray();
        json_out::string(w, r.label);
        w.Uint64(r.time.ns);
        w.Uint64(r.time.events);
        w.StartArray();
        for (auto b : r.bundles) {
            w.Uint(b);
        }
        w.EndArray();
        if (r.line) {
            std::size_t i = source_index(r.line->file);
            source_lines_[i].insert(r.line->line);
            w.Int64(static_cast<std::int64_t>(i));
            w.Int64(r.line->line);
        } else {
            w.Int64(-1);
            w.Int64(0);
        }
        json_out::optional_string(w, r.text);
        if (ideal) {
            const IdealTime& u = r.time.ideal;
            for (std::uint64_t v : {u.ideal_ns, u.lost_ns, u.measured_ns}) {
                if (u.known()) {
                    w.Uint64(v);
                } else {
                    w.Null();
                }
            }
        }
        w.EndArray();
    }
    w.EndArray();
    if (!b_->ranks.empty()) {
        json_out::key(w, "rank_ns");
        w.StartArray();
        for (const auto& r : rows) {
            w.StartArray();
            for (auto ns : r.rank_ns) {
                w.Uint64(ns);
            }
            w.EndArray();
        }
        w.EndArray();
    }
    w.EndObject();
}

void HtmlModel::ranks(const std::vector<std::int64_t>& numbers) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartArray();
    for (auto n : numbers) {
        w.Int64(n);
    }
    w.EndArray();
    b_->ranks.assign(buffer.GetString(), buffer.GetSize());
}

void HtmlModel::line_time(const std::string& file, std::int64_t line, std::uint64_t ns) {
    std::size_t i = source_index(file);
    source_lines_[i].insert(line);
    heat_[i][line] += ns;
}

void HtmlModel::line_lost(const std::string& file, std::int64_t line, std::uint64_t ns) {
    std::size_t i = source_index(file);
    source_lines_[i].insert(line);
    lost_[i][line] += ns;
    any_lost_ = true;
}

void HtmlModel::line_idle(const std::string& file, std::int64_t line, std::uint64_t ns) {
    std::size_t i = source_index(file);
    source_lines_[i].insert(line);
    idle_[i][line] += ns;
    any_idle_ = true;
}

void HtmlModel::steps(const TimelineSummary& timeline) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    // [name, start, wall, kernel busy, transfer, host wait, launch latency, unattributed, gaps,
    // kernels, transfers, launched, median launch delay, [[bundle, events, ns, idle]]] per step,
    // in the timeline's order (the slowest first).
    w.StartArray();
    for (const StepTimeline& s : timeline.steps) {
        w.StartArray();
        json_out::string(w, s.name);
        for (auto n : {s.start_ns, s.wall_ns, s.kernel_busy_ns, s.transfer_ns, s.idle.host_wait_ns,
                       s.idle.launch_latency_ns, s.idle.unattributed_ns, s.idle.gaps, s.kernels,
                       s.transfers, s.launch.launched, s.launch.median_ns}) {
            w.Uint64(n);
        }
        w.StartArray();
        for (const StepBundleTime& b : s.bundles) {
            w.StartArray();
            w.Uint(b.bundle);
            for (auto n : {b.events, b.ns, b.idle_ns}) {
                w.Uint64(n);
            }
            w.EndArray();
        }
        w.EndArray();
        w.EndArray();
    }
    w.EndArray();
    b_->steps.assign(buffer.GetString(), buffer.GetSize());
}

void HtmlModel::line_base(const std::string& file, std::int64_t line, std::uint64_t ns) {
    std::size_t i = source_index(file);
    source_lines_[i].insert(line);
    base_[i][line] += ns;
    any_base_ = true;
}

void HtmlModel::baseline_totals(const ProfileComparison& c) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    coverage_members(w, c.base.coverage);
    json_out::member(w, "bundles", c.base.bundles.size());
    json_out::member(w, "basis", to_string(c.basis));
    if (!c.basis_note.empty()) {
        json_out::member(w, "note", c.basis_note);
    }
    // [[steps, ns, events, events in no step, their ns]] of the base run, then the new: the
    // figures compared (per step: ns per step, the events of the steps).
    json_out::key(w, "runs");
    w.StartArray();
    for (const RunCompared* r : {&c.base_run, &c.new_run}) {
        w.StartArray();
        for (auto n : {r->steps, r->ns, r->events, r->outside_events, r->outside_ns}) {
            w.Uint64(n);
        }
        w.EndArray();
    }
    w.EndArray();
    w.EndObject();
    b_->compare.assign(buffer.GetString(), buffer.GetSize());
}

void HtmlModel::change_ranking(std::string_view id, std::string_view title, std::string_view what,
                               std::string_view note, const std::vector<HtmlChangeRow>& rows) {
    Writer& w = b_->rankings.w;
    ranking_head(w, id, title, what, note);
    json_out::member(w, "cmp", true);
    // [label, new ns, new events, [kernel], source index or -1, line, text, base ns, base events,
    // 0 | 1 (new) | 2 (gone)]: a run without the row counts 0.
    json_out::key(w, "rows");
    w.StartArray();
    for (const auto& [r, kernels] : rows) {
        w.StartArray();
        json_out::string(w, r->shown_label());
        w.Uint64(r->new_ns());
        w.Uint64(r->now ? r->now->events : 0);
        w.StartArray();
        for (auto k : kernels) {
            w.Uint(k);
        }
        w.EndArray();
        if (r->line) {
            std::size_t i = source_index(r->line->file);
            source_lines_[i].insert(r->line->line);
            w.Int64(static_cast<std::int64_t>(i));
            w.Int64(r->line->line);
        } else {
            w.Int64(-1);
            w.Int64(0);
        }
        json_out::optional_string(w, r->text);
        w.Uint64(r->base_ns());
        w.Uint64(r->base ? r->base->events : 0);
        w.Uint(r->is_new() ? 1 : r->is_gone() ? 2 : 0);
        w.EndArray();
    }
    w.EndArray();
    w.EndObject();
}

std::string HtmlModel::sources_json(SourceTextNote& note) const {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartArray();
    SourceLines text(source_text_);
    std::vector<std::int64_t> window;
    for (std::size_t i = 0; i < sources_.size(); ++i) {
        w.StartObject();
        json_out::member(w, "path", sources_[i]);
        // [line, text | null]: the lines handles name, each with the lines around it when the
        // file is read (windows that meet are one); a line past the file's end is null.
        json_out::key(w, "lines");
        w.StartArray();
        window.clear();
        for (auto n : source_lines_[i]) {
            if (n < 1) {
                continue; // no such line
            }
            std::int64_t from = std::max<std::int64_t>(
                {n - source_window_lines, window.empty() ? 1 : window.back() + 1, 1});
            for (std::int64_t k = from; k <= n + source_window_lines; ++k) {
                window.push_back(k);
            }
        }
        for (auto n : window) {
            auto t = text.line(sources_[i], n);
            if (t || source_lines_[i].count(n) > 0) {
                w.StartArray();
                w.Int64(n);
                json_out::optional_string(w, t);
                w.EndArray();
            }
        }
        w.EndArray();
        heat_json(w, "heat", heat_[i]);
        if (any_lost_) {
            heat_json(w, "lost", lost_[i]);
        }
        if (any_base_) {
            heat_json(w, "base", base_[i]);
        }
        if (any_idle_) {
            heat_json(w, "idle", idle_[i]);
        }
        w.EndObject();
    }
    w.EndArray();
    note = text.note();
    return {buffer.GetString(), buffer.GetSize()};
}

std::string HtmlModel::json() {
    std::string out;
    auto member = [&out](std::string_view name, std::string_view value) {
        out += out.empty() ? "{\"" : ",\"";
        out += name;
        out += "\":";
        out += value;
    };
    rapidjson::StringBuffer head;
    Writer h(head);
    h.StartArray();
    json_out::string(h, "sdscprov " SDSCPROV_VERSION);
    json_out::string(h, b_->command);
    json_out::string(h, title_);
    h.EndArray();
    member("v", "1");
    member("head", {head.GetString(), head.GetSize()});
    member("summary", b_->summary.close());
    member("coverage", b_->coverage);
    member("kernels", b_->kernels.close());
    member("ops", b_->ops.close());
    SourceTextNote note;
    member("sources", sources_json(note));
    // What was not read of the source files, and why: the sentences of the text reports.
    rapidjson::StringBuffer said;
    Writer n(said);
    json_out::strings(n, source_text_sentences(note));
    member("srcnote", {said.GetString(), said.GetSize()});
    member("problems", b_->problems.close());
    member("verdict", b_->verdict);
    member("profile", b_->profile);
    if (!b_->compare.empty()) {
        member("compare", b_->compare);
    }
    if (!b_->ranks.empty()) {
        member("ranks", b_->ranks);
    }
    if (!b_->steps.empty()) {
        member("steps", b_->steps);
    }
    member("rankings", b_->rankings.close());
    out += '}';
    return out;
}

} // namespace sdscprov
