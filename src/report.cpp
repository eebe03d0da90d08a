#include "sdscprov/report.hpp"

#include "json_out.hpp"
#include "sdscprov/display.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <set>
#include <sstream>

namespace sdscprov {

void HandleCounts::add(const ScanResult& r) {
    ++files;
    switch (r.status) {
    case FileStatus::ok:
        switch (r.handle_state) {
        case HandleState::populated:
            ++populated;
            break;
        case HandleState::null:
            ++null;
            break;
        case HandleState::absent:
            ++absent;
            break;
        case HandleState::malformed:
            ++malformed;
            break;
        }
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            provenance[m] += r.has(static_cast<ProvenanceMember>(m)) ? 1 : 0;
        }
        break;
    case FileStatus::not_sdsc:
        ++not_sdsc;
        break;
    case FileStatus::invalid_json:
        ++invalid_json;
        break;
    case FileStatus::unreadable:
        ++unreadable;
        break;
    }
    for (const auto& p : r.problems) {
        errors += p.severity == Severity::error ? 1 : 0;
        warnings += p.severity == Severity::warning ? 1 : 0;
    }
}

void HandleCounts::add(const HandleCounts& o) {
    files += o.files;
    populated += o.populated;
    null += o.null;
    absent += o.absent;
    malformed += o.malformed;
    not_sdsc += o.not_sdsc;
    invalid_json += o.invalid_json;
    unreadable += o.unreadable;
    errors += o.errors;
    warnings += o.warnings;
    for (std::size_t m = 0; m < provenance_member_count; ++m) {
        provenance[m] += o.provenance[m];
    }
}

void AnnotateCounts::add(const KernelReport& k) {
    if (!k.annotation) {
        return;
    }
    const auto& a = *k.annotation;
    switch (a.match) {
    case KernelMatch::matched:
        ++kernels_matched;
        break;
    case KernelMatch::not_in_map:
        ++kernels_not_in_map;
        break;
    case KernelMatch::ambiguous:
        ++kernels_ambiguous;
        break;
    case KernelMatch::unusable:
        ++kernels_unusable;
        break;
    }
    lost_ops += a.lost_ops.size();
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        const auto& f = a.files[i];
        // A run counts what it did: a change whose write failed is `failed`, not `added`. A dry
        // run counts what it would do.
        bool done = f.changes && (a.dry_run || f.written);
        added += done && f.action == FileAction::add ? 1 : 0;
        filled += done && f.action == FileAction::fill ? 1 : 0;
        refreshed += done && f.action == FileAction::refresh ? 1 : 0;
        stripped +=
            done && (f.action == FileAction::strip || f.action == FileAction::remove) ? 1 : 0;
        failed += f.changes && !done ? 1 : 0;
        written += f.written ? 1 : 0;
        kept += f.action == FileAction::keep ? 1 : 0;
        differs += f.action == FileAction::differs ? 1 : 0;
        no_origin += f.action == FileAction::no_origin ? 1 : 0;
        opfunc_mismatch += f.action == FileAction::opfunc_mismatch ? 1 : 0;
        lacking += a.provided(i) ? 0 : 1;
        provided += a.provided(i) ? 1 : 0;
    }
}

Coverage coverage(std::uint64_t count, std::uint64_t total) {
    if (count == 0 || total == 0) {
        return Coverage::none;
    }
    return count >= total ? Coverage::all : Coverage::some;
}

std::string_view to_string(Coverage c) {
    return c == Coverage::all ? "all" : c == Coverage::none ? "none" : "some";
}

namespace {

std::string_view base_name(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string coverage_text(std::uint64_t count, std::uint64_t total) {
    switch (coverage(count, total)) {
    case Coverage::all:
        return "all";
    case Coverage::none:
        return "none";
    case Coverage::some:
        break;
    }
    return std::to_string(count) + "/" + std::to_string(total);
}

std::string coverage_mark(std::uint64_t count, std::uint64_t total) {
    switch (coverage(count, total)) {
    case Coverage::all:
        return "\xE2\x9C\x85"; // check mark, as in the audit
    case Coverage::none:
        return "\xE2\x9D\x8C"; // cross mark
    case Coverage::some:
        break;
    }
    return "\xE2\x97\x90 " + std::to_string(count) + "/" + std::to_string(total);
}

// "1 error", "2 warnings".
std::string plural(std::uint64_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string location(const Problem& p) {
    return quoted_location(p.path, p.pos);
}

// Files in which any provenance member is populated.
std::uint64_t files_with_any_provenance(const KernelReport& k) {
    return static_cast<std::uint64_t>(
        std::count_if(k.files.begin(), k.files.end(), [](const ScanResult& r) {
            return r.status == FileStatus::ok && r.provenance != 0;
        }));
}

// ---- text --------------------------------------------------------------------------------------

class TextPrinter final : public ReportPrinter {
public:
    TextPrinter(std::ostream& out, PrinterOptions options) : out_(out), options_(options) {}

    void kernel(const KernelReport& k) override {
        if (k.annotation) {
            annotate_row(k);
            return;
        }
        if (!header_done_) {
            out_ << paint(bold, "files  populated   null  absent  malformed  problems  kernel")
                 << "  " << paint(dim, "directory") << '\n';
            header_done_ = true;
        }
        const auto& c = k.counts;
        char line[96];
        std::snprintf(
            line, sizeof line, "%5llu  %9llu  %5llu  %6llu  %9llu  %8llu  ",
            static_cast<unsigned long long>(c.files), static_cast<unsigned long long>(c.populated),
            static_cast<unsigned long long>(c.null), static_cast<unsigned long long>(c.absent),
            static_cast<unsigned long long>(c.malformed),
            static_cast<unsigned long long>(c.errors + c.warnings));
        const char* tone = c.errors > 0 ? red : c.populated == c.sdsc_documents() ? green : yellow;
        out_ << paint(tone, line) << (k.dir.kernel ? *k.dir.kernel : std::string("?")) << "  "
             << paint(dim, quote_path(k.dir.path)) << '\n';
    }

    void annotate_row(const KernelReport& k) {
        const auto& a = *k.annotation;
        for (const auto& f : a.files) {
            if (!f.diff.empty()) {
                out_ << f.diff;
            }
        }
        if (!header_done_) {
            out_ << paint(bold, a.dry_run
                                    ? "files  +add  +fill  +refresh  kept  lacking  kernel"
                                    : "files  added  filled  refreshed  kept  lacking  kernel")
                 << "  " << paint(dim, "directory") << '\n';
            header_done_ = true;
        }
        AnnotateCounts c;
        c.add(k);
        char line[96];
        std::snprintf(
            line, sizeof line,
            a.dry_run ? "%5llu  %4llu  %5llu  %8llu  %4llu  %7llu  "
                      : "%5llu  %5llu  %6llu  %9llu  %4llu  %7llu  ",
            static_cast<unsigned long long>(k.files.size()),
            static_cast<unsigned long long>(c.added), static_cast<unsigned long long>(c.filled),
            static_cast<unsigned long long>(c.refreshed), static_cast<unsigned long long>(c.kept),
            static_cast<unsigned long long>(c.lacking));
        const char* tone = c.lacking == 0 && c.differs == 0 ? green : yellow;
        out_ << paint(tone, line) << (k.dir.kernel ? *k.dir.kernel : std::string("?")) << "  "
             << paint(dim, quote_path(k.dir.path)) << '\n';
        std::string why = lacking_reasons(k);
        if (!why.empty()) {
            out_ << "       " << paint(yellow, "lacking: " + why) << '\n';
        }
        if (!a.lost.empty()) {
            out_ << "       " << a.lost.size()
                 << " de-duplicated OpSpec(s) share a file with an earlier one; their handles are "
                    "held only in the sidecar:\n";
            for (const auto& l : a.lost) {
                out_ << "         OpSpec " << l.op << " (" << quote_path(base_name(l.file))
                     << "): handle " << l.handle.id << " " << l.handle.aten_op.value_or("-")
                     << '\n';
            }
        }
        if (a.upstream) {
            auto join = [](const std::vector<std::string>& v) {
                std::string s;
                for (const auto& x : v) {
                    s += (s.empty() ? "" : ", ") + x;
                }
                return s.empty() ? std::string("-") : s;
            };
            out_ << "       "
                 << paint(dim, "upstream " + join(a.upstream->keys) + ": pre-grad " +
                                   join(a.upstream->pre_grad_nodes) + "; post-grad " +
                                   join(a.upstream->post_grad_nodes))
                 << '\n';
        }
    }

    // Why files of a kernel still lack provenance, e.g. "kernel not in the origins map".
    static std::string lacking_reasons(const KernelReport& k) {
        const auto& a = *k.annotation;
        if (a.match != KernelMatch::matched) {
            return a.detail;
        }
        std::map<std::string, std::size_t> reasons;
        for (std::size_t i = 0; i < a.files.size(); ++i) {
            const auto& f = a.files[i];
            if (f.action == FileAction::differs) {
                ++reasons["handle differs from the map's (--refresh replaces it)"];
            } else if (!a.provided(i)) {
                switch (f.action) {
                case FileAction::no_origin:
                    ++reasons["op without FX origins (compiler-generated)"];
                    break;
                case FileAction::opfunc_mismatch:
                    ++reasons["opfunc differs from the map's op"];
                    break;
                case FileAction::malformed:
                    ++reasons["malformed debug_handle_"];
                    break;
                case FileAction::no_op:
                    ++reasons["no OpSpec runs the file"];
                    break;
                case FileAction::bad_file:
                    ++reasons["file could not be scanned"];
                    break;
                default:
                    ++reasons["not written (see problems)"];
                    break;
                }
            }
        }
        std::string out;
        for (const auto& [reason, n] : reasons) {
            out += (out.empty() ? "" : "; ") + std::to_string(n) + " x " + reason;
        }
        return out;
    }

    void finish(const Totals& t, const std::vector<Problem>& problems) override {
        const auto& c = t.counts;
        if (!problems.empty()) {
            // The problems themselves went to standard error, one path:line:col line each.
            std::uint64_t counts[3] = {};
            for (const auto& p : problems) {
                ++counts[static_cast<int>(p.severity)];
            }
            out_ << '\n'
                 << paint(counts[0] > 0 ? red : yellow, plural(counts[0], "error") + ", " +
                                                            plural(counts[1], "warning") + ", " +
                                                            plural(counts[2], "note"))
                 << " (on standard error)\n";
        }
        out_ << '\n'
             << paint(bold, options_.command == "annotate" ? "read" : "total") << ": " << t.kernels
             << " kernel director" << (t.kernels == 1 ? "y" : "ies") << ", " << c.files
             << " SDSC file" << (c.files == 1 ? "" : "s") << ": " << c.populated << " populated, "
             << c.null << " null, " << c.absent << " absent, " << c.malformed << " malformed";
        if (c.not_sdsc + c.invalid_json + c.unreadable > 0) {
            out_ << "; " << c.not_sdsc << " not SDSC, " << c.invalid_json << " invalid JSON, "
                 << c.unreadable << " unreadable";
        }
        out_ << '\n';
        if (t.discovery.skipped_incomplete > 0) {
            out_ << "skipped " << t.discovery.skipped_incomplete << " incomplete kernel-cache entr"
                 << (t.discovery.skipped_incomplete == 1 ? "y" : "ies")
                 << " (*.tmp.*, failed/); --include-incomplete scans them\n";
        }
        if (options_.command == "annotate") {
            annotate_totals(t);
            return;
        }
        std::uint64_t docs = c.sdsc_documents();
        out_ << '\n'
             << paint(bold, "SuperDSC JSON provenance") << " (the audit's last column, FORMATS §6; "
             << docs << " SDSC document" << (docs == 1 ? "" : "s") << "):\n";
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            std::string name(to_string(static_cast<ProvenanceMember>(m)));
            name.resize(15, ' ');
            std::string cell = coverage_text(c.provenance[m], docs);
            const char* tone = coverage(c.provenance[m], docs) == Coverage::all    ? green
                               : coverage(c.provenance[m], docs) == Coverage::none ? red
                                                                                   : yellow;
            out_ << "  " << name << paint(tone, cell) << '\n';
        }
    }

private:
    void annotate_totals(const Totals& t) {
        const auto& a = t.annotate;
        const auto& c = t.counts;
        bool dry = options_.dry_run;
        out_ << paint(bold, dry ? "would write" : "written") << ": "
             << (dry ? a.changes() : a.written) << " file"
             << ((dry ? a.changes() : a.written) == 1 ? "" : "s") << " (" << a.added << " added, "
             << a.filled << " filled, " << a.refreshed << " refreshed); " << a.kept
             << " already right, " << a.differs << " differ from the map";
        if (a.failed > 0) {
            out_ << "; " << paint(red, plural(a.failed, "file") + " could not be written");
        }
        out_ << '\n';
        out_ << "kernels: " << a.kernels_matched << " matched, " << a.kernels_not_in_map
             << " not in the map, " << a.kernels_ambiguous << " ambiguous, " << a.kernels_unusable
             << " unusable\n";
        std::uint64_t docs = c.sdsc_documents();
        std::uint64_t after = a.provided;
        const char* tone = a.lacking == 0 ? green : yellow;
        out_ << '\n'
             << paint(bold, "SuperDSC JSON debug_handle_")
             << " (the audit's last column): " << coverage_text(c.populated, docs) << " before, "
             << paint(tone, coverage_text(after, docs)) << (dry ? " after (if written)" : " after")
             << "; " << a.lacking << " file" << (a.lacking == 1 ? "" : "s")
             << " still lack provenance\n";
    }

    static constexpr const char* bold = "\x1b[1m";
    static constexpr const char* dim = "\x1b[2m";
    static constexpr const char* red = "\x1b[31m";
    static constexpr const char* green = "\x1b[32m";
    static constexpr const char* yellow = "\x1b[33m";

    std::string paint(const char* code, const std::string& s) const {
        return options_.color ? code + s + "\x1b[0m" : s;
    }

    std::ostream& out_;
    PrinterOptions options_;
    bool header_done_ = false;
};

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
        string(options_.command);
        key("kernels");
        writer_.StartArray();
    }

    void kernel(const KernelReport& k) override {
        writer_.StartObject();
        key("dir");
        path(k.dir.path);
        key("kernel");
        optional_string(k.dir.kernel);
        key("bundle");
        writer_.Bool(k.dir.has_bundle);
        key("counts");
        counts(k.counts);
        if (k.annotation) {
            const auto& a = *k.annotation;
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
            file(k.files[i], k.annotation ? &k.annotation->files[i] : nullptr);
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

    void finish(const Totals& t, const std::vector<Problem>& problems) override {
        writer_.EndArray();
        key("problems");
        writer_.StartArray();
        std::vector<ProblemPlace> places;
        if (t.shard) {
            places = place_problems(*t.shard, placed_, problems.size());
        }
        for (std::size_t i = 0; i < problems.size(); ++i) {
            json_out::problem(writer_, problems[i], t.shard ? &places[i] : nullptr);
        }
        writer_.EndArray();
        const auto& c = t.counts;
        key("totals");
        writer_.StartObject();
        key("kernels");
        writer_.Uint64(t.kernels);
        key("files");
        writer_.Uint64(c.files);
        key("handles_populated");
        writer_.Uint64(c.populated);
        key("handles_null");
        writer_.Uint64(c.null);
        key("handles_absent");
        writer_.Uint64(c.absent);
        key("handles_malformed");
        writer_.Uint64(c.malformed);
        key("not_sdsc");
        writer_.Uint64(c.not_sdsc);
        key("invalid_json");
        writer_.Uint64(c.invalid_json);
        key("unreadable");
        writer_.Uint64(c.unreadable);
        key("errors");
        writer_.Uint64(c.errors);
        key("warnings");
        writer_.Uint64(c.warnings);
        key("skipped_incomplete");
        writer_.Uint64(t.discovery.skipped_incomplete);
        if (options_.command != "scan") { // annotate and strip
            const auto& a = t.annotate;
            key("annotate");
            writer_.StartObject();
            key("dry_run");
            writer_.Bool(options_.dry_run);
            const std::pair<const char*, std::uint64_t> fields[] = {
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
                {"lost_ops", a.lost_ops},
                {"kernels_matched", a.kernels_matched},
                {"kernels_not_in_map", a.kernels_not_in_map},
                {"kernels_ambiguous", a.kernels_ambiguous},
                {"kernels_unusable", a.kernels_unusable},
            };
            for (const auto& [name, value] : fields) {
                key(name);
                writer_.Uint64(value);
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
    void position(std::size_t v) {
        if (v == 0) {
            writer_.Null();
        } else {
            writer_.Uint64(v);
        }
    }

    void counts(const HandleCounts& c) {
        writer_.StartObject();
        key("files");
        writer_.Uint64(c.files);
        key("populated");
        writer_.Uint64(c.populated);
        key("null");
        writer_.Uint64(c.null);
        key("absent");
        writer_.Uint64(c.absent);
        key("malformed");
        writer_.Uint64(c.malformed);
        key("not_sdsc");
        writer_.Uint64(c.not_sdsc);
        key("invalid_json");
        writer_.Uint64(c.invalid_json);
        key("unreadable");
        writer_.Uint64(c.unreadable);
        key("errors");
        writer_.Uint64(c.errors);
        key("warnings");
        writer_.Uint64(c.warnings);
        writer_.EndObject();
    }

    void handle(const DebugHandle& h) { json_out::handle(writer_, h); }

    void file(const ScanResult& f, const FileOutcome* outcome) {
        writer_.StartObject();
        key("path");
        path(f.file.path);
        key("naming");
        string(to_string(f.file.name.naming));
        key("status");
        string(to_string(f.status));
        bool ok = f.status == FileStatus::ok;
        key("op");
        if (ok) {
            string(f.op_key);
        } else {
            writer_.Null();
        }
        key("index");
        if (ok && f.index) {
            writer_.Uint64(*f.index);
        } else {
            writer_.Null();
        }
        key("opfunc");
        if (ok && f.index) {
            string(f.opfunc);
        } else {
            writer_.Null();
        }
        key("line");
        position(ok ? f.op_key_pos.line : 0);
        key("col");
        position(ok ? f.op_key_pos.col : 0);
        key("handle");
        if (ok) {
            string(to_string(f.handle_state));
        } else {
            writer_.Null();
        }
        key("debug_handle");
        if (f.handle) {
            handle(*f.handle);
        } else {
            writer_.Null();
        }
        key("provenance");
        writer_.StartArray();
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            if (f.has(static_cast<ProvenanceMember>(m))) {
                string(to_string(static_cast<ProvenanceMember>(m)));
            }
        }
        writer_.EndArray();
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

// ---- Markdown: the audit's Stage 6 section, per kernel ------------------------------------------

class MarkdownPrinter final : public ReportPrinter {
public:
    MarkdownPrinter(std::ostream& out, PrinterOptions options) : out_(out), options_(options) {}

    void kernel(const KernelReport& k) override {
        const auto& c = k.counts;
        body_ << "### `" << (k.dir.kernel ? *k.dir.kernel : std::string("(unknown kernel)"))
              << "`\n\n";
        body_ << "- directory: `" << quote_path(k.dir.path) << "`\n";
        body_ << "- ops (" << c.sdsc_documents() << "): ";
        bool first = true;
        for (const auto& f : k.files) {
            if (f.status == FileStatus::ok) {
                body_ << (first ? "" : ", ") << '`' << f.op_key << '`';
                first = false;
            }
        }
        body_ << (first ? "none\n" : "\n");
        if (k.annotation) {
            annotation_lines(k);
        } else {
            body_ << "- `debug_handle_`: populated " << c.populated << ", null " << c.null
                  << ", absent " << c.absent << ", malformed " << c.malformed << '\n';
        }
        std::set<std::string> sources;
        for (const auto& f : k.files) {
            if (f.handle && f.handle->source) {
                sources.insert(f.handle->source->file + ":" +
                               std::to_string(f.handle->source->start_line));
            }
        }
        if (!sources.empty()) {
            body_ << "- source lines:";
            for (const auto& s : sources) {
                body_ << " `" << s << '`';
            }
            body_ << '\n';
        }
        if (c.errors + c.warnings > 0) {
            body_ << "- problems: " << c.errors << " errors, " << c.warnings << " warnings\n";
        }
        std::uint64_t with_provenance = files_with_provenance_after(k);
        body_ << "- `sdsc_*.json` files: " << c.files << " &nbsp; provenance in JSON: "
              << coverage_mark(with_provenance, c.sdsc_documents()) << "\n\n";
        any_provenance_ += with_provenance;
    }

    // annotate (and strip): the state after the run (in a dry run: if written), then what was
    // written, file by file; the state as read is given for comparison.
    void annotation_lines(const KernelReport& k) {
        const auto& a = *k.annotation;
        const auto& c = k.counts;
        std::uint64_t after = 0;
        std::string written;
        for (std::size_t i = 0; i < a.files.size(); ++i) {
            after += a.provided(i) ? 1 : 0;
            const auto& f = a.files[i];
            if (f.changes && (a.dry_run || f.written)) {
                written += std::string(written.empty() ? "" : ", ") + "`" +
                           std::string(base_name(k.files[i].file.path)) + "` (" +
                           std::string(to_string(f.action)) + ")";
            }
        }
        debug_handles_after_ += after;
        body_ << "- `debug_handle_`" << (a.dry_run ? " if written" : " after this run")
              << ": populated " << after << " of " << c.sdsc_documents() << " (as read: populated "
              << c.populated << ", null " << c.null << ", absent " << c.absent << ", malformed "
              << c.malformed << ")\n";
        body_ << "- " << (a.dry_run ? "would write" : "written") << ": "
              << (written.empty() ? std::string("nothing") : written) << '\n';
    }

    // Files in which any provenance member is populated after the run: as read, or given a
    // handle by it; a stripped file keeps only its other members.
    std::uint64_t files_with_provenance_after(const KernelReport& k) const {
        if (!k.annotation) {
            return files_with_any_provenance(k);
        }
        std::uint64_t n = 0;
        auto handle_bit =
            static_cast<std::uint8_t>(1U << static_cast<unsigned>(ProvenanceMember::debug_handle));
        for (std::size_t i = 0; i < k.files.size(); ++i) {
            const auto& r = k.files[i];
            bool others = r.status == FileStatus::ok && (r.provenance & ~handle_bit) != 0;
            n += others || k.annotation->provided(i) ? 1 : 0;
        }
        return n;
    }

    void finish(const Totals& t, const std::vector<Problem>& problems) override {
        const auto& c = t.counts;
        std::uint64_t docs = c.sdsc_documents();
        out_ << "## Stage 6 \xE2\x80\x94 SuperDSC: " << c.files << " `sdsc_*.json` file"
             << (c.files == 1 ? "" : "s") << " (" << t.kernels << " kernel"
             << (t.kernels == 1 ? "" : "s") << ")\n\n";
        out_ << "Provenance field present in any emitted `sdsc_*.json`: "
             << coverage_mark(any_provenance_, docs) << "\n\n";
        out_ << "| Field | SuperDSC JSON |\n| --- | --- |\n";
        bool annotated = options_.command != "scan";
        for (std::size_t m = 0; m < provenance_member_count; ++m) {
            auto member = static_cast<ProvenanceMember>(m);
            std::uint64_t n = annotated && member == ProvenanceMember::debug_handle
                                  ? debug_handles_after_
                                  : c.provenance[m];
            out_ << "| `" << to_string(member) << "` | " << coverage_mark(n, docs) << " |\n";
        }
        if (annotated) {
            const auto& a = t.annotate;
            out_ << "\n`debug_handle_`" << (options_.dry_run ? " if written" : " after this run")
                 << ": populated " << debug_handles_after_ << " of " << docs
                 << " SDSC documents (as read: populated " << c.populated << ", null " << c.null
                 << ", absent " << c.absent << ", malformed " << c.malformed << "); "
                 << (options_.dry_run ? "would write " : "written ")
                 << (options_.dry_run ? a.changes() : a.written) << " (" << a.added << " added, "
                 << a.filled << " filled, " << a.refreshed << " refreshed, " << a.stripped
                 << " stripped)"
                 << (a.failed > 0 ? ", " + plural(a.failed, "write") + " failed" : "") << "\n\n";
        } else {
            out_ << "\n`debug_handle_`: populated " << c.populated << ", null " << c.null
                 << ", absent " << c.absent << ", malformed " << c.malformed << " (of " << docs
                 << " SDSC documents)\n\n";
        }
        out_ << body_.str();
        if (!problems.empty()) {
            out_ << "### Problems\n\n";
            for (const auto& p : problems) {
                out_ << "- `" << location(p) << "`: " << to_string(p.severity) << ": "
                     << printable_text(p.message) << " (`" << to_string(p.code) << "`)\n";
            }
            out_ << '\n';
        }
    }

private:
    std::ostream& out_;
    PrinterOptions options_;
    std::ostringstream body_;
    std::uint64_t any_provenance_ = 0;
    std::uint64_t debug_handles_after_ = 0; // annotate: files with a populated handle after it
};

} // namespace

std::unique_ptr<ReportPrinter> make_printer(ReportFormat format, std::ostream& out,
                                            PrinterOptions options) {
    switch (format) {
    case ReportFormat::json:
        return std::make_unique<JsonPrinter>(out, std::move(options));
    case ReportFormat::markdown:
        return std::make_unique<MarkdownPrinter>(out, std::move(options));
    case ReportFormat::text:
        break;
    }
    return std::make_unique<TextPrinter>(out, std::move(options));
}

} // namespace sdscprov
