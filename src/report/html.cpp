// The HTML page's data (html_model.hpp) and what each command puts in it: the printer of scan,
// annotate and check, explain's kernels, and profile's bundles.
#include "sdscprov/report/html.hpp"

#include "report/html_model.hpp"
#include "sdsc/json_out.hpp"
#include "sdscprov/commands/check.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/handle/source_text.hpp"

#include <ostream>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sstream>

namespace sdscprov {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

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

void strings(Writer& w, const std::vector<std::string>& list) {
    w.StartArray();
    for (const auto& s : list) {
        json_out::string(w, s);
    }
    w.EndArray();
}

// Source files longer than this show their first lines and the lines handles name past them.
constexpr std::int64_t max_shown_lines = 20000;

// A file's path in its kernel directory's row: the part below the directory.
std::string below(const std::string& dir, const std::string& path) {
    if (path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
        path[dir.size()] == '/') {
        return path.substr(dir.size() + 1);
    }
    return path;
}

} // namespace

struct HtmlModel::Buffers {
    std::string command;
    JsonArray summary;
    std::string coverage = "null";
    JsonArray kernels;
    JsonArray ops;
    JsonArray problems;
    std::size_t kernel_count = 0;
    std::size_t op_count = 0;
};

HtmlModel::HtmlModel(std::string command, std::string title)
    : title_(std::move(title)), b_(std::make_unique<Buffers>()) {
    b_->command = std::move(command);
}

HtmlModel::~HtmlModel() = default;

std::size_t HtmlModel::source_index(const std::string& file) {
    auto [it, inserted] = source_ids_.emplace(file, sources_.size());
    if (inserted) {
        sources_.push_back(file);
        source_lines_.emplace_back();
        heat_.emplace_back();
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
    json_out::key(w, "files");
    w.Uint64(files);
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

// {"id", "src": [source, line, col] | null, "aten", "ir", "ff", "th": [[kind, pass, reason]],
// "fc"}; sources by their index in the page's "sources".
template <class SourceIndex>
void handle_json(Writer& w, const DebugHandle& h, SourceIndex&& index) {
    w.StartObject();
    json_out::key(w, "id");
    json_out::string(w, h.id);
    json_out::key(w, "src");
    if (h.source) {
        w.StartArray();
        w.Uint64(index(*h.source));
        w.Int64(h.source->start_line);
        w.Int64(h.source->start_col);
        w.EndArray();
    } else {
        w.Null();
    }
    json_out::key(w, "aten");
    json_out::optional_string(w, h.aten_op);
    json_out::key(w, "ir");
    strings(w, h.ir_chain);
    json_out::key(w, "ff");
    w.StartArray();
    for (const auto& child : h.fused_from) {
        handle_json(w, child, index);
    }
    w.EndArray();
    if (h.history_shape == HistoryShape::fusion_context) {
        json_out::key(w, "fc");
        json_out::optional_string(w, h.fusion_context);
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

} // namespace

void HtmlModel::kernel(const HtmlKernel& k, const std::vector<HtmlOp>& ops) {
    auto index = [this](const HandleSource& s) {
        std::size_t i = source_index(s.file);
        source_lines_[i].insert(s.start_line);
        return static_cast<std::uint64_t>(i);
    };
    Writer& w = b_->kernels.w;
    w.StartObject();
    json_out::key(w, "name");
    json_out::string(w, k.name);
    json_out::key(w, "dir");
    json_out::string(w, k.dir);
    json_out::key(w, "bar");
    w.StartArray();
    for (auto n : {k.bar.populated, k.bar.null, k.bar.absent, k.bar.malformed}) {
        w.Uint64(n);
    }
    w.EndArray();
    json_out::key(w, "files");
    w.Uint64(k.files);
    json_out::key(w, "find");
    w.Uint64(k.findings);
    json_out::key(w, "ops");
    w.StartArray();
    w.Uint64(b_->op_count);
    w.Uint64(ops.size());
    w.EndArray();
    if (!k.note.empty()) {
        json_out::key(w, "note");
        json_out::string(w, k.note);
    }
    if (!k.pre_grad_nodes.empty() || !k.post_grad_nodes.empty()) {
        json_out::key(w, "pre");
        strings(w, k.pre_grad_nodes);
        json_out::key(w, "post");
        strings(w, k.post_grad_nodes);
    }
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
    if (k.ns) {
        json_out::key(w, "ns");
        w.Uint64(*k.ns);
        json_out::key(w, "ev");
        w.Uint64(k.events);
    }
    if (k.stage_ticks) {
        json_out::key(w, "st");
        w.StartArray();
        for (auto t : *k.stage_ticks) {
            w.Uint64(t);
        }
        w.EndArray();
    }
    w.EndObject();

    Writer& o = b_->ops.w;
    for (const auto& op : ops) {
        o.StartObject();
        json_out::key(o, "k");
        o.Uint64(b_->kernel_count);
        json_out::key(o, "f");
        json_out::string(o, op.file);
        json_out::key(o, "key");
        json_out::string(o, op.key);
        json_out::key(o, "st");
        json_out::string(o, op.state);
        json_out::key(o, "h");
        if (op.handle) {
            handle_json(o, *op.handle, index);
        } else {
            o.Null();
        }
        if (!op.notes.empty()) {
            json_out::key(o, "notes");
            strings(o, op.notes);
        }
        o.EndObject();
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

void HtmlModel::line_time(const std::string& file, std::int64_t line, std::uint64_t ns) {
    std::size_t i = source_index(file);
    source_lines_[i].insert(line);
    heat_[i][line] += ns;
}

std::string HtmlModel::json() {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartArray(); // the sources, written into the data below
    SourceLines text;
    for (std::size_t i = 0; i < sources_.size(); ++i) {
        w.StartObject();
        json_out::key(w, "path");
        json_out::string(w, sources_[i]);
        json_out::key(w, "lines");
        w.StartArray();
        auto line = [&](std::int64_t n) {
            return text.line(HandleSource{sources_[i], n, 0, std::nullopt, std::nullopt});
        };
        std::int64_t shown = 0;
        if (line(1)) { // readable: its lines, every one up to max_shown_lines
            for (std::int64_t n = 1; n <= max_shown_lines; ++n) {
                auto t = line(n);
                if (!t) {
                    break;
                }
                w.StartArray();
                w.Int64(n);
                json_out::string(w, *t);
                w.EndArray();
                shown = n;
            }
        }
        for (auto n : source_lines_[i]) {
            if (n > shown) {
                auto t = shown > 0 ? line(n) : std::nullopt;
                w.StartArray();
                w.Int64(n);
                json_out::optional_string(w, t);
                w.EndArray();
            }
        }
        w.EndArray();
        json_out::key(w, "heat");
        w.StartArray();
        for (const auto& [n, ns] : heat_[i]) {
            w.StartArray();
            w.Int64(n);
            w.Uint64(ns);
            w.EndArray();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();

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
    member("sources", {buffer.GetString(), buffer.GetSize()});
    member("problems", b_->problems.close());
    out += '}';
    return out;
}

// ---- scan, annotate and check -------------------------------------------------------------------

namespace {

std::string_view state_name(const ScanResult& s) {
    return s.status == FileStatus::ok ? to_string(s.handle_state) : to_string(s.status);
}

void add_to_bar(HandleBar& bar, std::string_view state) {
    if (state == "populated") {
        ++bar.populated;
    } else if (state == "null") {
        ++bar.null;
    } else if (state == "absent") {
        ++bar.absent;
    } else if (state == "malformed") {
        ++bar.malformed;
    }
}

class HtmlPrinter final : public ReportPrinter {
public:
    HtmlPrinter(std::ostream& out, PrinterOptions options)
        : out_(out), options_(std::move(options)),
          model_(options_.command, "sdscprov " + options_.command) {}

    void kernel(const KernelReport& k) override {
        HtmlKernel row;
        row.name = k.dir.kernel.value_or(k.dir.path);
        row.dir = k.dir.path;
        row.files = k.files.size();
        std::vector<HtmlOp> ops(k.files.size());
        for (std::size_t i = 0; i < k.files.size(); ++i) {
            const ScanResult& s = k.files[i];
            HtmlOp& op = ops[i];
            op.file = below(k.dir.path, s.file.path);
            op.key = s.op_key;
            op.state = state_name(s);
            op.handle = s.handle ? &*s.handle : nullptr;
        }
        if (k.annotation) { // the state after the run
            const KernelAnnotation& a = *k.annotation;
            row.note = std::string(to_string(a.match));
            if (!a.detail.empty()) {
                row.note += ": " + a.detail;
            }
            for (std::size_t i = 0; i < a.files.size() && i < ops.size(); ++i) {
                const FileOutcome& f = a.files[i];
                if (a.provided(i) && f.handle) {
                    ops[i].state = "populated";
                    ops[i].handle = &*f.handle;
                }
                std::string note(to_string(f.action));
                if (!f.detail.empty()) {
                    note += ": " + f.detail;
                }
                ops[i].notes.push_back(std::move(note));
            }
        }
        if (options_.command == "check") {
            for (const auto& f : check_kernel(k)) {
                model_.listed(f.path, f.pos, "finding", to_string(f.rule), f.message);
                ++row.findings;
                for (std::size_t i = 0; i < ops.size(); ++i) {
                    if (k.files[i].file.path == f.path) {
                        ops[i].notes.push_back(std::string(to_string(f.rule)) + ": " + f.message);
                    }
                }
            }
        }
        for (const auto& op : ops) {
            add_to_bar(row.bar, op.state);
            add_to_bar(after_, op.state);
        }
        model_.kernel(row, ops);
    }

    void finish(const Totals& totals, const std::vector<Problem>& problems) override {
        const HandleCounts& c = totals.counts;
        const bool after = options_.command == "annotate";
        model_.summary("kernel directories", std::to_string(totals.kernels));
        model_.summary("SDSC files", std::to_string(c.sdsc_documents()));
        model_.summary(after ? "populated (after)" : "populated", std::to_string(after_.populated));
        model_.summary("null", std::to_string(after_.null));
        model_.summary("absent", std::to_string(after_.absent));
        model_.summary("malformed", std::to_string(after_.malformed));
        if (after) {
            const AnnotateCounts& a = totals.annotate;
            model_.summary(options_.dry_run ? "would change" : "changed",
                           std::to_string(a.changes()));
            model_.summary("kept", std::to_string(a.kept));
            model_.summary("differs", std::to_string(a.differs));
            model_.summary("lacking", std::to_string(a.lacking));
        }
        model_.summary("errors", std::to_string(c.errors));
        model_.summary("warnings", std::to_string(c.warnings));
        model_.coverage(c.sdsc_documents(), c.provenance);
        for (const auto& p : problems) {
            model_.problem(p);
        }
        write_html_page(out_, model_.title(), model_.json());
    }

private:
    std::ostream& out_;
    PrinterOptions options_;
    HtmlModel model_;
    HandleBar after_;
};

} // namespace

std::unique_ptr<ReportPrinter> make_html_printer(std::ostream& out, PrinterOptions options) {
    return std::make_unique<HtmlPrinter>(out, std::move(options));
}

// ---- explain ------------------------------------------------------------------------------------

void print_explain_html(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems) {
    HtmlModel model("explain", "sdscprov explain");
    HandleBar all;
    std::uint64_t files = 0;
    for (const auto& k : kernels) {
        HtmlKernel row;
        row.name = k.kernel.value_or(k.dir);
        row.dir = k.dir;
        row.files = k.ops.size();
        row.pre_grad_nodes = k.pre_grad_nodes;
        row.post_grad_nodes = k.post_grad_nodes;
        for (const auto& t : k.stack_traces) {
            row.stack_traces.emplace_back(t.trace, t.source);
        }
        std::vector<HtmlOp> ops;
        for (const auto& op : k.ops) {
            HtmlOp o;
            o.file = below(k.dir, op.file);
            o.key = op.op_key;
            o.state = op.status == FileStatus::ok ? std::string(to_string(op.handle_state))
                                                  : std::string(to_string(op.status));
            o.handle = op.handle ? &*op.handle : nullptr;
            add_to_bar(row.bar, o.state);
            ops.push_back(std::move(o));
        }
        files += row.files;
        all.populated += row.bar.populated;
        all.null += row.bar.null;
        all.absent += row.bar.absent;
        all.malformed += row.bar.malformed;
        model.kernel(row, ops);
    }
    model.summary("kernel directories", std::to_string(kernels.size()));
    model.summary("SDSC files", std::to_string(files));
    model.summary("populated", std::to_string(all.populated));
    model.summary("null", std::to_string(all.null));
    model.summary("absent", std::to_string(all.absent));
    model.summary("malformed", std::to_string(all.malformed));
    for (const auto& k : kernels) {
        for (const auto& op : k.ops) {
            for (const auto& p : op.problems) {
                model.problem(p);
            }
        }
    }
    for (const auto& p : problems) {
        model.problem(p);
    }
    write_html_page(out, model.title(), model.json());
}

// ---- profile ------------------------------------------------------------------------------------

std::string render_profile_html(const ProfileReport& report) {
    HtmlModel model("profile", "sdscprov profile");
    const ProfileCoverage& c = report.coverage;
    model.summary("trace", report.trace);
    model.summary("kernel events", std::to_string(c.kernel_events));
    model.summary("paired events", std::to_string(c.resolved_events));
    model.summary("device time (ns)", std::to_string(c.kernel_ns));
    model.summary("paired device time (ns)", std::to_string(c.resolved_ns));
    model.summary("bundles", std::to_string(report.bundles.size()));
    model.summary("diagnostics", std::to_string(report.diagnostics.size()));
    std::map<std::string_view, const DebugHandle*> by_id;
    for (const auto& h : report.handles) {
        by_id.emplace(h.id, &h);
    }
    for (const auto& b : report.bundles) {
        HtmlKernel row;
        row.name = b.kernel_label;
        row.dir = b.kernel_dirs.empty() ? b.event_name : b.kernel_dirs.front();
        for (std::size_t i = 1; i < b.kernel_dirs.size(); ++i) {
            row.dir += " + " + b.kernel_dirs[i];
        }
        row.note = std::string(to_string(b.resolution));
        if (b.reason) {
            row.note += ": " + std::string(to_string(*b.reason));
        }
        if (!b.key.empty()) {
            row.note += " (key " + b.key + ")";
        }
        row.ns = b.time.ns;
        row.events = b.time.events;
        row.stage_ticks = b.time.stages.ticks;
        std::vector<HtmlOp> ops;
        for (const auto& id : b.handle_ids) {
            HtmlOp o;
            o.file = b.event_name;
            o.key = id;
            auto it = by_id.find(id);
            o.handle = it == by_id.end() ? nullptr : it->second;
            o.state = o.handle ? "populated" : "absent";
            add_to_bar(row.bar, o.state);
            ops.push_back(std::move(o));
        }
        row.files = ops.size();
        model.kernel(row, ops);
    }
    for (const auto& r : report.by_line) {
        if (r.line) {
            model.line_time(r.line->file, r.line->line, r.time.ns);
        }
    }
    for (const auto& p : report.problems) {
        model.problem(p);
    }
    for (const auto& d : report.diagnostics) {
        model.listed(d.path, d.pos, to_string(d.severity), to_string(d.code),
                     d.message + " (" + std::to_string(d.events) + " events)");
    }
    std::ostringstream out;
    write_html_page(out, model.title(), model.json());
    return out.str();
}

} // namespace sdscprov
