// The JSON report (docs/report-json.md): for tools, streamed kernel by kernel.
#include "handle/handle_json.hpp"
#include "report/op_json.hpp"
#include "report/printer_parts.hpp"
#include "sdscprov/core/display.hpp"
#include "walk/shard_json.hpp"

#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov::report_parts {

namespace {

// ---- JSON (docs/report-json.md) -------------------------------------------------------------

class JsonPrinter final : public ReportPrinter {
public:
    JsonPrinter(std::ostream& out, PrinterOptions options)
        : out_(out), writer_(buffer_), options_(std::move(options)) {
        writer_.SetIndent(' ', 2);
        writer_.StartObject();
        key("sdscprov_report");
        writer_.Int(1);
        key("tool");
        writer_.StartObject();
        key("name");
        string("sdscprov");
        key("version");
        string(SDSCPROV_VERSION);
        writer_.EndObject();
        key("command");
        string(to_string(options_.command));
        key("kernels");
        writer_.StartArray();
    }

    void item(const KernelReport& k) override {
        writer_.StartObject();
        key("dir");
        path(k.dir.path);
        key("kernel");
        optional_string(k.dir.kernel);
        key("bundle");
        writer_.Bool(k.dir.has_bundle);
        key("counts");
        counts(k.counts);
        if (k.rewrite && k.rewrite->join) { // annotate's join (strip has none)
            const JoinOutcome& a = *k.rewrite->join;
            key("annotate");
            writer_.StartObject();
            key("match");
            string(to_string(a.match));
            key("detail");
            string(a.detail);
            key("map_entry");
            string(a.map_entry);
            key("lost_ops");
            writer_.StartArray();
            for (auto op : a.lost_ops) {
                writer_.Uint64(op);
            }
            writer_.EndArray();
            key("lost");
            writer_.StartArray();
            for (const auto& l : a.lost) {
                writer_.StartObject();
                key("op");
                writer_.Uint64(l.op);
                key("spec_path");
                writer_.StartArray();
                for (auto i : l.spec_path) {
                    writer_.Uint64(i);
                }
                writer_.EndArray();
                key("file");
                path(l.file);
                key("handle");
                json_out::handle(writer_, l.handle);
                writer_.EndObject();
            }
            writer_.EndArray();
            key("upstream");
            if (a.upstream) {
                writer_.StartObject();
                const std::pair<const char*, const std::vector<std::string>*> lists[] = {
                    {"keys", &a.upstream->keys},
                    {"pre_grad_nodes", &a.upstream->pre_grad_nodes},
                    {"post_grad_nodes", &a.upstream->post_grad_nodes},
                    {"stack_traces", &a.upstream->stack_traces},
                };
                for (const auto& [name, list] : lists) {
                    key(name);
                    writer_.StartArray();
                    for (const auto& v : *list) {
                        string(v);
                    }
                    writer_.EndArray();
                }
                writer_.EndObject();
            } else {
                writer_.Null();
            }
            writer_.EndObject();
        }
        key("files");
        writer_.StartArray();
        for (std::size_t i = 0; i < k.files.size(); ++i) {
            file(k.files[i], k.rewrite ? &k.rewrite->files[i] : nullptr);
        }
        writer_.EndArray();
        if (k.dir.position) { // a sharded run
            key("position");
            writer_.Uint64(*k.dir.position);
            placed_.push_back({*k.dir.position, problem_count(k)});
        }
        writer_.EndObject();
        flush_when_full();
    }

    void end(const RunEnd& run) override {
        const Totals& t = run.totals;
        writer_.EndArray();
        key("problems");
        writer_.StartArray();
        std::vector<ProblemPlace> places;
        if (t.shard) {
            places = place_problems(*t.shard, placed_, run.problems.size());
        }
        for (std::size_t i = 0; i < run.problems.size(); ++i) {
            json_out::problem(writer_, run.problems[i], t.shard ? &places[i] : nullptr);
        }
        writer_.EndArray();
        const auto& c = t.counts;
        key("totals");
        writer_.StartObject();
        key("kernels");
        writer_.Uint64(t.kernels);
        key("files");
        writer_.Uint64(c.files);
        count_members(c, "handles_");
        key("skipped_incomplete");
        writer_.Uint64(t.discovery.skipped_incomplete);
        if (options_.command != ReportCommand::scan) { // annotate and strip
            const auto& a = t.rewrites;
            key("annotate");
            writer_.StartObject();
            key("dry_run");
            writer_.Bool(options_.dry_run);
            const std::pair<std::string, std::uint64_t> fields[] = {
                {"added", a.added},
                {"filled", a.filled},
                {"refreshed", a.refreshed},
                {"stripped", a.stripped},
                {"written", a.written},
                {"failed", a.failed},
                {"kept", a.kept},
                {"differs", a.differs},
                {"lacking", a.lacking},
                {"provided", a.provided},
                {"no_origin", a.no_origin},
                {"opfunc_mismatch", a.opfunc_mismatch},
            };
            uint_members(fields);
            if (options_.command == ReportCommand::annotate) { // the join's: strip has none
                const std::pair<std::string, std::uint64_t> join_fields[] = {
                    {"lost_ops", a.lost_ops},
                    {"kernels_matched", a.kernels_matched},
                    {"kernels_not_in_map", a.kernels_not_in_map},
                    {"kernels_ambiguous", a.kernels_ambiguous},
                    {"kernels_unusable", a.kernels_unusable},
                };
                uint_members(join_fields);
            }
            writer_.EndObject();
        }
        writer_.EndObject();
        key("superdsc_json");
        writer_.StartObject();
        key("documents");
        writer_.Uint64(c.sdsc_documents());
        key("members");
        writer_.StartObject();
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            key(to_string(static_cast<ProvenanceMember>(m)));
            writer_.StartObject();
            key("files");
            writer_.Uint64(c.provenance[m]);
            key("coverage");
            string(to_string(coverage(c.provenance[m], c.sdsc_documents())));
            writer_.EndObject();
        }
        writer_.EndObject();
        writer_.EndObject();
        if (t.shard) {
            json_out::shard(writer_, *t.shard);
        }
        writer_.EndObject();
        buffer_.Put('\n');
        flush();
        out_.flush();
    }

private:
    using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

    // Output goes through a buffer written out in blocks of at least 64 KiB (and at the end):
    // RapidJSON's ostream wrapper puts one character at a time, and a write per kernel is a
    // system call per kernel.
    void flush_when_full() {
        if (buffer_.GetSize() >= 64 * 1024) {
            flush();
        }
    }

    void flush() {
        out_.write(buffer_.GetString(), static_cast<std::streamsize>(buffer_.GetSize()));
        buffer_.Clear();
    }

    void key(std::string_view k) {
        writer_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    }
    void string(std::string_view s) { json_out::string(writer_, s); }
    void path(std::string_view p) { json_out::path(writer_, p); }
    void optional_string(const std::optional<std::string>& s) {
        if (s) {
            string(*s);
        } else {
            writer_.Null();
        }
    }
    void counts(const FileStateCounts& c) {
        writer_.StartObject();
        key("files");
        writer_.Uint64(c.files);
        count_members(c, "");
        writer_.EndObject();
    }

    // The counts after `files`, as both the kernels and the totals name them: the handle states
    // with `state_prefix` ("handles_" in the totals), then the file states and the problems.
    void count_members(const FileStateCounts& c, const std::string& state_prefix) {
        const std::pair<std::string, std::uint64_t> members[] = {
            {state_prefix + "populated", c.populated},
            {state_prefix + "null", c.null},
            {state_prefix + "absent", c.absent},
            {state_prefix + "malformed", c.malformed},
            {"compiler_generated", c.compiler_generated},
            {"not_sdsc", c.not_sdsc},
            {"invalid_json", c.invalid_json},
            {"unreadable", c.unreadable},
            {"errors", c.errors},
            {"warnings", c.warnings},
        };
        uint_members(members);
    }

    template <std::size_t N>
    void uint_members(const std::pair<std::string, std::uint64_t> (&members)[N]) {
        for (const auto& [name, value] : members) {
            key(name);
            writer_.Uint64(value);
        }
    }

    void file(const ScanResult& f, const FileOutcome* outcome) {
        writer_.StartObject();
        key("path");
        path(f.file.path);
        key("naming");
        string(to_string(f.file.name.naming));
        json_out::OpFacts op;
        op.status = f.status;
        op.op_key = f.op_key;
        op.index = f.index;
        op.opfunc = f.opfunc;
        op.op_key_pos = &f.op_key_pos;
        op.handle_state = f.handle_state;
        op.handle = f.handle ? &*f.handle : nullptr;
        json_out::op_members(writer_, op);
        key("provenance");
        writer_.StartArray();
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            if (f.has(static_cast<ProvenanceMember>(m))) {
                string(to_string(static_cast<ProvenanceMember>(m)));
            }
        }
        writer_.EndArray();
        key("compiler_generated"); // as the file shows it, or the map's op without FX origins
        writer_.Bool(compiler_generated(f) != GeneratedForm::none ||
                     (outcome && outcome->action == FileAction::no_origin));
        if (outcome) {
            key("action");
            string(to_string(outcome->action));
            key("changes");
            writer_.Bool(outcome->changes);
            key("written");
            writer_.Bool(outcome->written);
            key("detail");
            string(outcome->detail);
            if (!outcome->diff.empty()) {
                key("diff");
                string(outcome->diff);
            }
        }
        writer_.EndObject();
    }

    // The problems the pipeline lists for a kernel directory: its files', then its own.
    static std::size_t problem_count(const KernelReport& k) {
        std::size_t n = k.problems.size();
        for (const auto& f : k.files) {
            n += f.problems.size();
        }
        return n;
    }

    std::ostream& out_;
    rapidjson::StringBuffer buffer_;
    Writer writer_;
    PrinterOptions options_;
    std::vector<PlacedKernel> placed_; // a sharded run's kernel directories, for the problems
};

} // namespace

std::unique_ptr<ReportPrinter> make_json_printer(std::ostream& out, PrinterOptions options) {
    return std::make_unique<JsonPrinter>(out, std::move(options));
}

} // namespace sdscprov::report_parts
