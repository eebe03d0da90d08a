#include "sdscprov/report/explain_printers.hpp"

#include "handle/handle_json.hpp"
#include "handle/source_text_json.hpp"
#include "report/op_json.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/html.hpp"

#include <map>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov {

// ---- text ---------------------------------------------------------------------------------------

namespace {

constexpr const char* bold = "\x1b[1m";
constexpr const char* dim = "\x1b[2m";
constexpr const char* red = "\x1b[31m";
constexpr const char* green = "\x1b[32m";
constexpr const char* yellow = "\x1b[33m";

std::string location(const HandleSource& s) {
    return printable(s.file) + ":" + std::to_string(s.start_line);
}

std::string trimmed(std::string_view s) {
    auto first = s.find_first_not_of(" \t");
    return first == std::string_view::npos ? std::string() : printable(s.substr(first));
}

class TextExplainer {
public:
    TextExplainer(std::ostream& out, bool color) : out_(out), color_(color) {}

    void kernel(const ExplainKernel& k) {
        if (k.bundle) {
            bundle(k, *k.bundle);
        } else {
            out_ << paint(bold, "kernel " + (k.kernel ? printable(*k.kernel) : std::string("?")))
                 << "  " << paint(dim, quote_path(k.dir)) << '\n';
            std::size_t populated = static_cast<std::size_t>(
                std::count_if(k.ops.begin(), k.ops.end(),
                              [](const ExplainOp& op) { return op.handle.has_value(); }));
            out_ << k.ops.size() << " SDSC file" << (k.ops.size() == 1 ? "" : "s") << ", "
                 << populated << " with a populated debug_handle_\n";
        }
        if (!k.pre_grad_nodes.empty()) {
            out_ << "pre-grad nodes:  " << joined(k.pre_grad_nodes, ", ") << '\n';
        }
        if (!k.post_grad_nodes.empty()) {
            out_ << "post-grad nodes: " << joined(k.post_grad_nodes, ", ") << '\n';
        }
        if (!k.stack_traces.empty()) {
            // Kernel level: which of the kernel's ops each trace belongs to is not recorded.
            out_ << "stack traces (kernel level, from the mappings): " << k.stack_traces.size()
                 << '\n';
            for (const auto& t : k.stack_traces) {
                out_ << "  - ";
                source(t.source, t.source_line_text, "    ");
            }
        }
        for (const auto& op : k.ops) {
            out_ << '\n';
            op_block(k, op);
        }
    }

    // What was not read of the source files, once, after the kernels.
    void note(const SourceTextNote& note) {
        for (const auto& sentence : source_text_sentences(note)) {
            out_ << paint(dim, printable(sentence)) << '\n';
        }
    }

private:
    // A bundle in no kernel directory: what its sidecar says, and where directories were looked for.
    void bundle(const ExplainKernel& k, const ExplainBundle& b) {
        out_ << paint(bold, "kernel " + (k.kernel ? printable(*k.kernel) : std::string("?")))
             << "  " << paint(dim, "bundle " + printable(b.key)) << '\n';
        std::string roots;
        for (const auto& r : b.looked_in) {
            roots += (roots.empty() ? "" : ", ") + quote_path(r);
        }
        out_ << paint(yellow, "no kernel directory found") << " under "
             << (roots.empty() ? std::string("no cache") : roots) << ": shown from "
             << quote_path(b.sidecar) << ", " << k.ops.size() << " direct handle"
             << (k.ops.size() == 1 ? "" : "s") << '\n';
        out_ << "aten ops:        "
             << (b.aten_ops.empty() ? std::string("none") : joined(b.aten_ops, ", ")) << '\n';
    }

    std::string paint(const char* tone, const std::string& s) const {
        return color_ ? std::string(tone) + s + "\x1b[0m" : s;
    }

    static std::string joined(const std::vector<std::string>& items, std::string_view sep) {
        std::string s;
        for (const auto& item : items) {
            s += (s.empty() ? "" : std::string(sep)) + printable(item);
        }
        return s;
    }

    // The file's path relative to its kernel directory when it is below it.
    static std::string_view short_path(const ExplainKernel& k, std::string_view file) {
        if (file.size() > k.dir.size() + 1 && file.starts_with(k.dir) &&
            file[k.dir.size()] == '/') {
            return file.substr(k.dir.size() + 1);
        }
        return file;
    }

    void op_block(const ExplainKernel& k, const ExplainOp& op) {
        if (k.bundle && op.handle) {
            out_ << paint(bold, "handle " + printable(op.handle->id)) << '\n';
            handle(*op.handle, op);
            return;
        }
        std::string head = quote_path(short_path(k, op.file));
        if (op.status != FileStatus::ok) {
            out_ << paint(bold, head) << "  " << paint(red, std::string(to_string(op.status)))
                 << '\n';
            problems(op);
            return;
        }
        out_ << paint(bold, head) << "  op " << printable(op.op_key) << "  opfunc "
             << printable(op.opfunc) << "  debug_handle_ ";
        switch (op.handle_state) {
        case HandleState::populated:
            out_ << paint(green, "populated") << '\n';
            break;
        case HandleState::absent:
            out_ << paint(yellow, "absent") << '\n'
                 << "  no debug_handle_: run sdscprov annotate with the compile's origins map\n";
            break;
        case HandleState::null:
            out_ << paint(yellow, "null") << '\n'
                 << "  debug_handle_ is null (provenance unknown when compiled): sdscprov annotate "
                    "with the compile's origins map fills it\n";
            break;
        case HandleState::malformed:
            out_ << paint(red, "malformed") << '\n'
                 << "  not of the documented shape (docs/formats.md): annotate never writes "
                    "over it; fix or remove it\n";
            break;
        }
        if (op.handle) {
            handle(*op.handle, op);
        }
        problems(op);
    }

    void source(const std::optional<HandleSource>& s, const std::optional<std::string>& text,
                std::string_view indent) {
        if (!s) {
            out_ << "none\n";
            return;
        }
        out_ << location(*s);
        if (!text) {
            out_ << paint(dim, " (not readable here)") << '\n';
            return;
        }
        out_ << '\n' << indent << paint(dim, "> ") << trimmed(*text) << '\n';
    }

    void handle(const DebugHandle& h, const ExplainOp& op) {
        out_ << "  source:     ";
        source(h.source, op.source_line_text, "              ");
        out_ << "  aten:       " << (h.aten_op ? printable(*h.aten_op) : std::string("none"))
             << '\n';
        out_ << "  ir_chain:   " << (h.ir_chain.empty() ? "none" : joined(h.ir_chain, " -> "))
             << '\n';
        if (h.fused_from.empty()) {
            out_ << "  fused from: none (one FX origin)\n";
        } else {
            out_ << "  fused from: " << h.fused_from.size() << " constituents\n";
            for (std::size_t i = 0; i < h.fused_from.size(); ++i) {
                const DebugHandle& c = h.fused_from[i];
                out_ << "    - "
                     << (c.aten_op ? printable(*c.aten_op) : std::string("(no aten op)"))
                     << "  ir_chain: " << (c.ir_chain.empty() ? "none" : joined(c.ir_chain, " -> "))
                     << "\n      source: ";
                source(c.source,
                       i < op.fused_source_line_texts.size() ? op.fused_source_line_texts[i]
                                                             : std::nullopt,
                       "        ");
            }
        }
        if (h.history_shape == HistoryShape::fusion_context) {
            out_ << "  fusion_context: "
                 << (h.fusion_context ? printable(*h.fusion_context) : std::string("null"))
                 << " (July 2026 handle)\n";
        } else if (h.transform_history.empty()) {
            out_ << "  transforms: none\n";
        } else {
            out_ << "  transforms:\n";
            for (std::size_t i = 0; i < h.transform_history.size(); ++i) {
                const auto& step = h.transform_history[i];
                out_ << "    " << i + 1 << ". " << printable(step.kind) << ' '
                     << printable(step.pass_name);
                if (step.reason) {
                    out_ << ": " << printable(*step.reason);
                }
                out_ << '\n';
            }
        }
        out_ << "  id:         " << printable(h.id) << '\n';
    }

    void problems(const ExplainOp& op) {
        for (const auto& p : op.problems) {
            out_ << "  "
                 << paint(p.severity == Severity::error ? red : yellow,
                          std::string(to_string(p.severity)))
                 << ": ";
            if (p.pos.line > 0) {
                out_ << p.pos.line << ':' << p.pos.col << ": ";
            }
            out_ << printable(p.message) << " [" << to_string(p.code) << "]\n";
        }
    }

    std::ostream& out_;
    bool color_;
};

} // namespace

void print_explain_text(std::ostream& out, const std::vector<ExplainKernel>& kernels, bool color) {
    TextExplainer printer(out, color);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        if (i > 0) {
            out << '\n';
        }
        printer.kernel(kernels[i]);
    }
}

// ---- JSON ---------------------------------------------------------------------------------------

namespace {

// Each op's members are the scan report's (report/op_json.hpp), in its order.
class JsonExplainer {
public:
    using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
    explicit JsonExplainer(Writer& writer) : w_(writer) {}

    void kernel(const ExplainKernel& k) {
        w_.StartObject();
        key("dir");
        path(k.dir);
        key("kernel");
        optional_string(k.kernel);
        key("bundle");
        bundle(k.bundle);
        key("ops");
        w_.StartArray();
        for (const auto& op : k.ops) {
            op_object(op);
        }
        w_.EndArray();
        key("pre_grad_nodes");
        strings(k.pre_grad_nodes);
        key("post_grad_nodes");
        strings(k.post_grad_nodes);
        key("stack_traces");
        w_.StartArray();
        for (const auto& t : k.stack_traces) {
            w_.StartObject();
            key("source");
            json_out::source(w_, t.source);
            key("source_line_text");
            optional_string(t.source_line_text);
            key("trace");
            string(t.trace);
            w_.EndObject();
        }
        w_.EndArray();
        w_.EndObject();
    }

    void problem(const Problem& p) { json_out::problem(w_, p); }

private:
    void key(std::string_view k) { w_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
    void string(std::string_view s) { json_out::string(w_, s); }
    void path(std::string_view p) { json_out::path(w_, p); }
    void optional_string(const std::optional<std::string>& s) {
        if (s) {
            string(*s);
        } else {
            w_.Null();
        }
    }
    void strings(const std::vector<std::string>& items) {
        w_.StartArray();
        for (const auto& s : items) {
            string(s);
        }
        w_.EndArray();
    }

    void bundle(const std::optional<ExplainBundle>& b) {
        if (!b) {
            w_.Null();
            return;
        }
        w_.StartObject();
        key("key");
        string(b->key);
        key("sidecar");
        path(b->sidecar);
        key("aten_ops");
        strings(b->aten_ops);
        key("looked_in");
        w_.StartArray();
        for (const auto& r : b->looked_in) {
            path(r);
        }
        w_.EndArray();
        w_.EndObject();
    }

    void op_object(const ExplainOp& op) {
        w_.StartObject();
        key("file");
        path(op.file);
        json_out::OpFacts facts;
        facts.status = op.status;
        facts.op_key = op.op_key;
        facts.index = op.index;
        facts.opfunc = op.opfunc;
        facts.handle_state = op.handle_state;
        facts.handle = op.handle ? &*op.handle : nullptr;
        json_out::op_members(w_, facts);
        key("source_line_text");
        optional_string(op.source_line_text);
        key("fused_source_line_texts");
        w_.StartArray();
        for (const auto& text : op.fused_source_line_texts) {
            optional_string(text);
        }
        w_.EndArray();
        key("problems");
        w_.StartArray();
        for (const auto& p : op.problems) {
            problem(p);
        }
        w_.EndArray();
        w_.EndObject();
    }

    Writer& w_;
};

} // namespace

void print_explain_json(std::ostream& out, const std::vector<ExplainKernel>& kernels,
                        const std::vector<Problem>& problems, const SourceTextNote& source_text) {
    rapidjson::StringBuffer buffer;
    JsonExplainer::Writer writer(buffer);
    writer.SetIndent(' ', 2);
    JsonExplainer json(writer);
    writer.StartObject();
    writer.Key("sdscprov_explain");
    writer.Uint(1);
    writer.Key("kernels");
    writer.StartArray();
    for (const auto& k : kernels) {
        json.kernel(k);
    }
    writer.EndArray();
    writer.Key("problems");
    writer.StartArray();
    for (const auto& p : problems) {
        json.problem(p);
    }
    writer.EndArray();
    json_out::source_text_member(writer, source_text);
    writer.EndObject();
    buffer.Put('\n');
    out.write(buffer.GetString(), static_cast<std::streamsize>(buffer.GetSize()));
}

} // namespace sdscprov

// ---- the printers of an explain run -------------------------------------------------------------

namespace sdscprov {

namespace {

class ExplainText final : public Printer<ExplainKernel, ExplainEnd> {
public:
    ExplainText(std::ostream& out, bool color) : out_(out), text_(out, color) {}
    void item(const ExplainKernel& k) override {
        if (printed_++ > 0) {
            out_ << '\n';
        }
        text_.kernel(k);
    }
    void end(const ExplainEnd& run) override {
        if (printed_ > 0 && !source_text_sentences(run.source_text).empty()) {
            out_ << '\n';
        }
        text_.note(run.source_text);
    }

private:
    std::ostream& out_;
    TextExplainer text_;
    std::size_t printed_ = 0;
};

// json and html: the kernels kept, the document written at the end.
class ExplainDocument final : public Printer<ExplainKernel, ExplainEnd> {
public:
    ExplainDocument(bool html, std::ostream& out, const SourceTextOptions& source_text)
        : html_(html), out_(out), source_text_(source_text) {}
    void item(const ExplainKernel& k) override { kernels_.push_back(k); }
    void end(const ExplainEnd& run) override {
        if (html_) {
            print_explain_html(out_, kernels_, run.problems, source_text_);
        } else {
            print_explain_json(out_, kernels_, run.problems, run.source_text);
        }
    }

private:
    bool html_;
    std::ostream& out_;
    const SourceTextOptions& source_text_;
    std::vector<ExplainKernel> kernels_;
};

} // namespace

std::unique_ptr<Printer<ExplainKernel, ExplainEnd>>
make_explain_printer(ReportFormat format, std::ostream& out, bool color,
                     const SourceTextOptions& source_text) {
    if (format == ReportFormat::json || format == ReportFormat::html) {
        return std::make_unique<ExplainDocument>(format == ReportFormat::html, out, source_text);
    }
    return std::make_unique<ExplainText>(out, color);
}

} // namespace sdscprov
