#include "sdscprov/report/report.hpp"

#include "report/html_model.hpp"
#include "report/json_out.hpp"
#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <set>
#include <sstream>

namespace sdscprov {

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
        return "\xE2\x9C\x85"; // check mark
    case Coverage::none:
        return "\xE2\x9D\x8C"; // cross mark
    case Coverage::some:
        break;
    }
    return "\xE2\x97\x90 " + std::to_string(count) + "/" + std::to_string(total);
}

// "1 error", "2 warnings"; "1 directory", "2 directories" with the stem and its two endings.
std::string plural(std::uint64_t n, std::string_view noun, std::string_view one = "",
                   std::string_view many = "s") {
    return std::to_string(n) + " " + std::string(noun) + std::string(n == 1 ? one : many);
}

// Why the files of an annotated kernel directory still lack provenance, e.g. "kernel not in the
// origins map", added to `reasons` (reason -> files).
void lacking_reasons(const KernelReport& k, std::map<std::string, std::uint64_t>& reasons) {
    const auto& a = *k.annotation;
    if (a.match != KernelMatch::matched) {
        reasons[a.detail] += a.files.size();
        return;
    }
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
            case FileAction::strip:
            case FileAction::remove:
                break; // stripped on purpose
            default:
                ++reasons["not written (see problems)"];
                break;
            }
        }
    }
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

// The text report for people. By default it fits one screen whatever the cache size: the totals,
// the coverage column, then only the kernels that need attention, grouped by kernel name (a cache
// keeps every recompile, so one name has many directories), the worst first, at most
// `attention_rows` of them. `--all` gives one row per directory instead, streamed as found. Every
// line fits `options.width` columns: names too long are shortened in the middle, never wrapped.
class TextPrinter final : public ReportPrinter {
public:
    static constexpr std::size_t attention_rows = 20;

    TextPrinter(std::ostream& out, PrinterOptions options)
        : out_(out), options_(std::move(options)) {}

    void kernel(const KernelReport& k) override {
        if (options_.all) {
            directory_row(k);
            return;
        }
        std::string name = k.dir.kernel ? *k.dir.kernel : std::string(base_name(k.dir.path));
        auto [it, added] = groups_.try_emplace(name);
        it->second.add(k);
    }

    void finish(const Totals& t, const std::vector<Problem>& problems) override {
        if (options_.all && header_done_) {
            out_ << '\n';
        }
        const auto& c = t.counts;
        bool annotating = options_.command != "scan";
        prose(std::string(annotating ? "read" : "total") + ": " +
              plural(t.kernels, "kernel director", "y", "ies") + ", " +
              plural(c.files, "SDSC file"));
        std::string states = "debug_handle_: " + std::to_string(c.populated) + " populated, " +
                             std::to_string(c.null) + " null, " + std::to_string(c.absent) +
                             " absent, " + std::to_string(c.malformed) + " malformed";
        if (c.not_sdsc + c.invalid_json + c.unreadable > 0) {
            states += "; " + std::to_string(c.not_sdsc) + " not SDSC, " +
                      std::to_string(c.invalid_json) + " invalid JSON, " +
                      std::to_string(c.unreadable) + " unreadable";
        }
        prose(states);
        if (t.discovery.skipped_incomplete > 0) {
            prose("skipped " + plural(t.discovery.skipped_incomplete,
                                      "incomplete kernel-cache entr", "y", "ies") +
                  " (*.tmp.*, failed/); --include-incomplete scans them");
        }
        if (!problems.empty()) {
            // The problems themselves went to standard error, one path:line:col line each.
            std::uint64_t counts[3] = {};
            for (const auto& p : problems) {
                ++counts[static_cast<int>(p.severity)];
            }
            prose(plural(counts[0], "error") + ", " + plural(counts[1], "warning") + ", " +
                      plural(counts[2], "note") + " (on standard error)",
                  counts[0] > 0 ? red : yellow);
        }
        if (annotating) {
            annotate_totals(t);
        } else {
            coverage_column(c);
        }
        if (!options_.all) {
            attention(annotating);
        }
    }

private:
    // What one kernel name's directories add up to.
    struct Group {
        std::uint64_t dirs = 0;
        HandleCounts counts;
        AnnotateCounts annotate;
        std::map<std::string, std::uint64_t> reasons; // why files lack provenance (annotate)
        std::uint64_t lost = 0;                        // handles held only in the sidecar

        void add(const KernelReport& k) {
            ++dirs;
            counts.add(k.counts);
            counts.errors += count(k.problems, Severity::error);
            counts.warnings += count(k.problems, Severity::warning);
            if (k.annotation) {
                annotate.add(k);
                lacking_reasons(k, reasons);
                lost += k.annotation->lost.size();
            }
        }
        std::uint64_t lacking(bool annotating) const {
            return annotating ? annotate.lacking + annotate.differs
                              : counts.null + counts.absent + counts.malformed + counts.not_sdsc +
                                    counts.invalid_json + counts.unreadable;
        }
        std::uint64_t problems() const { return counts.errors + counts.warnings; }
    };

    static std::uint64_t count(const std::vector<Problem>& problems, Severity s) {
        return static_cast<std::uint64_t>(std::count_if(
            problems.begin(), problems.end(), [&](const Problem& p) { return p.severity == s; }));
    }

    // --all: one row per directory, the directory's path last (it holds the kernel name).
    void directory_row(const KernelReport& k) {
        bool annotating = k.annotation.has_value();
        if (!header_done_) {
            header(annotating, "directory");
            header_done_ = true;
        }
        Group g;
        g.add(k);
        row(g, annotating, false, quote_path(k.dir.path), dim);
        if (!annotating) {
            return;
        }
        if (!g.reasons.empty()) {
            prose("  lacking: " + reason_text(g.reasons), yellow);
        }
        const auto& a = *k.annotation;
        for (const auto& l : a.lost) {
            prose("  OpSpec " + std::to_string(l.op) + " (" + quote_path(base_name(l.file)) +
                 ") shares its file with an earlier one: its handle " + l.handle.id + " " +
                 printable_text(l.handle.aten_op.value_or("-")) + " is held only in the sidecar");
        }
        if (a.upstream) {
            auto join = [](const std::vector<std::string>& v) {
                std::string s;
                for (const auto& x : v) {
                    s += (s.empty() ? "" : ", ") + printable_text(x);
                }
                return s.empty() ? std::string("-") : s;
            };
            prose("  upstream " + join(a.upstream->keys) + ": pre-grad " +
                     join(a.upstream->pre_grad_nodes) + "; post-grad " +
                     join(a.upstream->post_grad_nodes),
                 dim);
        }
    }

    // The column names are the same in every mode: a dry run says what would be written.
    void header(bool annotating, std::string_view last) {
        std::string h = annotating ? "files  added  filled  refreshed  kept  lacking  "
                                   : "files  populated   null  absent  malformed  problems  ";
        out_ << paint(bold, h + std::string(last)) << '\n';
    }

    // The counts of a row, padded to the header's columns; with `dirs`, a directory count first.
    std::string numbers(const Group& g, bool annotating, bool dirs) const {
        char buf[160];
        auto u = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
        int n = 0;
        if (dirs) {
            n = std::snprintf(buf, sizeof buf, "%5llu  ", u(g.dirs));
        }
        if (annotating) {
            const auto& a = g.annotate;
            std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                          "%5llu  %5llu  %6llu  %9llu  %4llu  %7llu  ", u(g.counts.files),
                          u(a.added), u(a.filled), u(a.refreshed), u(a.kept), u(a.lacking));
        } else {
            const auto& c = g.counts;
            std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                          "%5llu  %9llu  %5llu  %6llu  %9llu  %8llu  ", u(c.files), u(c.populated),
                          u(c.null), u(c.absent), u(c.malformed), u(g.problems()));
        }
        return buf;
    }

    static const char* tone_of(const Group& g, bool annotating) {
        return g.counts.errors > 0 ? red : g.lacking(annotating) == 0 ? green : yellow;
    }

    // A row: the numbers, then the last cell shortened to what the width leaves.
    void row(const Group& g, bool annotating, bool dirs, const std::string& last,
             const char* last_tone = nullptr) {
        std::string n = numbers(g, annotating, dirs);
        std::size_t left = options_.width > n.size() + 10 ? options_.width - n.size() : 10;
        std::string cell = shorten_middle(last, left);
        out_ << paint(tone_of(g, annotating), n)
             << (last_tone != nullptr ? paint(last_tone, cell) : cell) << '\n';
    }

    // The kernels that need attention, worst first: errors, then the most files lacking
    // provenance, then problems; ties by name.
    void attention(bool annotating) {
        std::vector<std::pair<const std::string*, const Group*>> needy;
        std::uint64_t dirs = 0;
        for (const auto& [name, g] : groups_) {
            if (g.lacking(annotating) > 0 || g.problems() > 0) {
                needy.emplace_back(&name, &g);
                dirs += g.dirs;
            }
        }
        out_ << '\n';
        if (needy.empty()) {
            line(annotating ? "Every file of every kernel directory holds its handle."
                            : "Every SDSC file holds a populated debug_handle_.",
                 green);
            return;
        }
        std::sort(needy.begin(), needy.end(), [&](const auto& a, const auto& b) {
            auto key = [&](const Group& g) {
                return std::tuple(g.counts.errors, g.lacking(annotating), g.problems());
            };
            auto ka = key(*a.second);
            auto kb = key(*b.second);
            return ka != kb ? ka > kb : *a.first < *b.first;
        });
        line(std::string(annotating ? "Still lacking provenance: " : "Needs attention: ") +
                 plural(needy.size(), "kernel") + " in " +
                 plural(dirs, "director", "y", "ies") + ", the worst first",
             bold);
        out_ << paint(bold, " dirs  ");
        header(annotating, "kernel");
        // Annotate gives each kernel a second line (why its files lack provenance).
        std::size_t shown = std::min(needy.size(), annotating ? attention_rows * 3 / 4 : attention_rows);
        for (std::size_t i = 0; i < shown; ++i) {
            const Group& g = *needy[i].second;
            row(g, annotating, true, printable_text(*needy[i].first));
            if (annotating && !g.reasons.empty()) {
                prose("       " + reason_text(g.reasons), yellow);
            }
        }
        if (needy.size() > shown) {
            line("\xE2\x80\xA6 " + std::to_string(needy.size() - shown) +
                 " more (--all lists every directory)");
        }
    }

    void coverage_column(const HandleCounts& c) {
        std::uint64_t docs = c.sdsc_documents();
        out_ << '\n'
             << paint(bold, "SuperDSC JSON provenance") << " ("
             << plural(docs, "SDSC document") << "):\n";
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

    void annotate_totals(const Totals& t) {
        const auto& a = t.annotate;
        const auto& c = t.counts;
        bool dry = options_.dry_run;
        std::uint64_t files = dry ? a.changes() : a.written;
        prose(std::string(dry ? "would write" : "written") + ": " + plural(files, "file") + " (" +
              std::to_string(a.added) + " added, " + std::to_string(a.filled) + " filled, " +
              std::to_string(a.refreshed) + " refreshed, " + std::to_string(a.stripped) +
              " stripped)");
        prose("unchanged: " + std::to_string(a.kept) + " already right, " +
              std::to_string(a.differs) + " differ from the map");
        if (a.failed > 0) {
            prose(plural(a.failed, "file") + " could not be written (on standard error)", red);
        }
        if (dry) {
            prose("(a dry run: nothing was written; the counts say what a run would write)");
        }
        if (options_.command == "annotate") {
            prose("kernels: " + std::to_string(a.kernels_matched) + " matched, " +
                  std::to_string(a.kernels_not_in_map) + " not in the map, " +
                  std::to_string(a.kernels_ambiguous) + " ambiguous, " +
                  std::to_string(a.kernels_unusable) + " unusable");
        }
        if (a.lost_ops > 0) {
            prose(plural(a.lost_ops, "de-duplicated OpSpec") +
                  ": their handles are held only in the sidecar (--all lists them)");
        }
        std::uint64_t docs = c.sdsc_documents();
        out_ << '\n';
        prose("SuperDSC JSON debug_handle_: " + coverage_text(c.populated, docs) + " before, " +
                  coverage_text(a.provided, docs) + (dry ? " after (if written)" : " after") +
                  "; " + plural(a.lacking, "file") + " still lack provenance",
              a.lacking == 0 ? green : yellow);
    }

    static std::string reason_text(const std::map<std::string, std::uint64_t>& reasons) {
        std::string out;
        for (const auto& [reason, n] : reasons) {
            out += (out.empty() ? "" : "; ") + std::to_string(n) + " x " + reason;
        }
        return out;
    }

    // Prose, broken at spaces to fit the width; continuation lines indented by two.
    void prose(const std::string& text, const char* tone = nullptr) {
        std::size_t width = std::max<std::size_t>(options_.width, 20);
        std::string_view rest = text;
        bool first = true;
        // Continuation lines: the first line's indent and two more.
        std::string indent(std::min(text.find_first_not_of(' '), std::size_t{20}) + 2, ' ');
        while (!rest.empty()) {
            std::size_t room = first ? width : width - indent.size();
            std::string_view piece = rest;
            if (columns(rest) > room) {
                // The last space that leaves the piece within the room (bytes >= columns).
                std::size_t cut = rest.rfind(' ', room);
                piece = rest.substr(0, cut == std::string_view::npos || cut == 0 ? room : cut);
            }
            std::string out = (first ? std::string() : indent) + std::string(piece);
            out_ << (tone != nullptr ? paint(tone, out) : out) << '\n';
            rest.remove_prefix(piece.size());
            while (!rest.empty() && rest.front() == ' ') {
                rest.remove_prefix(1);
            }
            first = false;
        }
    }

    static std::size_t columns(std::string_view s) {
        return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    }

    // A line of names, shortened in the middle to the width.
    void line(const std::string& text, const char* tone = nullptr) {
        std::string s = shorten_middle(text, options_.width);
        out_ << (tone != nullptr ? paint(tone, s) : s) << '\n';
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
    std::map<std::string, Group> groups_; // by kernel name (default mode)
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

// ---- Markdown: the SuperDSC provenance section of a review, per kernel --------------------

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
        out_ << "## SuperDSC provenance: " << c.files << " `sdsc_*.json` file"
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
    case ReportFormat::html:
        return make_html_printer(out, std::move(options));
    case ReportFormat::text:
        break;
    }
    return std::make_unique<TextPrinter>(out, std::move(options));
}

} // namespace sdscprov
