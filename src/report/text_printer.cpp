// The text report (report.hpp): for people, one screen by default.
#include "report/printer_parts.hpp"
#include "sdscprov/core/display.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace sdscprov::report_parts {

namespace {

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

// Why the files of an annotated kernel directory still lack provenance, e.g. "kernel not in the
// origins map", added to `reasons` (reason -> files).
void lacking_reasons(const KernelReport& k, std::map<std::string, std::uint64_t>& reasons) {
    const auto& a = *k.rewrite;
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        const auto& f = a.files[i];
        if (!a.provided(i) && i < k.files.size() && compiler_generated(k, i) != GeneratedForm::none) {
            ++reasons["compiler-generated op (no model source by design)"];
        } else if (a.join && a.join->match != KernelMatch::matched) {
            ++reasons[a.join->detail];
        } else if (f.action == FileAction::differs) {
            ++reasons["handle differs from the map's (--refresh replaces it)"];
        } else if (!a.provided(i)) {
            switch (f.action) {
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

// ---- text --------------------------------------------------------------------------------------

// The text report for people. By default it fits one screen whatever the cache size: the totals,
// the coverage column, then only the kernels that need attention, grouped by kernel name (a cache
// keeps every recompile, so one name has many directories), the worst first, at most
// `attention_rows` of them. `--all` gives one row per directory instead, streamed as found. Every
// line fits `options.width` columns: names too long are shortened in the middle, never wrapped
// (on a terminal only: elsewhere the width is unlimited_width and every name stays whole).
class TextPrinter final : public ReportPrinter {
public:
    static constexpr std::size_t attention_rows = 20;

    TextPrinter(std::ostream& out, PrinterOptions options)
        : out_(out), options_(std::move(options)) {}

    // Kernels and directories as docs/formats.md defines them: a kernel is a kernel name (a
    // directory without one, the kernel cache's <key>/, is a kernel of its own, by its key); each
    // of its compiles is a directory. The attention list counts the directories that need it.
    void item(const KernelReport& k) override {
        std::string name = k.dir.kernel ? *k.dir.kernel : std::string(file_name_of(k.dir.path));
        if (k.rewrite && k.rewrite->join) {
            // A kernel is matched when one of its directories is; else the first other state.
            const KernelMatch match = k.rewrite->join->match;
            auto [state, added] = matches_.try_emplace(name, match);
            if (match == KernelMatch::matched) {
                state->second = KernelMatch::matched;
            }
        } else {
            names_.insert(name);
        }
        if (options_.all) {
            directory_row(k);
            return;
        }
        Group one;
        one.add(k);
        bool annotating = k.rewrite.has_value();
        if (one.lacking(annotating) > 0 || one.problems() > 0) {
            groups_[name].add(k);
        }
    }

    void end(const RunEnd& run) override {
        const Totals& t = run.totals;
        const std::vector<Problem>& problems = run.problems;
        if (options_.all && header_done_) {
            out_ << '\n';
        }
        const auto& c = t.counts;
        bool annotating = options_.command != ReportCommand::scan;
        prose(std::string(annotating ? "read" : "total") + ": " +
              plural(annotating ? matches_.size() : names_.size(), "kernel") + " (" +
              plural(t.kernels, "director", "y", "ies") + "), " + plural(c.files, "SDSC file"));
        std::string states = "debug_handle_: " + std::to_string(c.populated) + " populated, " +
                             std::to_string(c.null) + " null, " + std::to_string(c.absent) +
                             " absent, " + std::to_string(c.malformed) + " malformed; " +
                             std::to_string(c.compiler_generated) + " compiler-generated";
        if (c.not_sdsc + c.invalid_json + c.unreadable > 0) {
            states += "; " + std::to_string(c.not_sdsc) + " not SDSC, " +
                      std::to_string(c.invalid_json) + " invalid JSON, " +
                      std::to_string(c.unreadable) + " unreadable";
        }
        prose(states);
        if (t.discovery.skipped_incomplete > 0) {
            prose(
                "skipped " +
                plural(t.discovery.skipped_incomplete, "incomplete kernel-cache entr", "y", "ies") +
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
        FileStateCounts counts;
        RewriteCounts rewrites;
        std::map<std::string, std::uint64_t> reasons; // why files lack provenance (annotate)
        std::uint64_t lost = 0;                       // handles held only in the sidecar

        void add(const KernelReport& k) {
            ++dirs;
            counts.add(k.counts);
            counts.errors += count(k.problems, Severity::error);
            counts.warnings += count(k.problems, Severity::warning);
            if (k.rewrite) {
                rewrites.add(k);
                lacking_reasons(k, reasons);
                lost += k.rewrite->join ? k.rewrite->join->lost.size() : 0;
            }
        }
        std::uint64_t lacking(bool annotating) const {
            // Compiler-generated ops without a handle need no attention: no fix gives them one.
            return annotating ? rewrites.lacking + rewrites.differs
                              : counts.null + counts.absent - counts.generated_unhandled +
                                    counts.malformed + counts.not_sdsc + counts.invalid_json +
                                    counts.unreadable;
        }
        std::uint64_t problems() const { return counts.errors + counts.warnings; }
    };

    static std::uint64_t count(const std::vector<Problem>& problems, Severity s) {
        return static_cast<std::uint64_t>(std::count_if(
            problems.begin(), problems.end(), [&](const Problem& p) { return p.severity == s; }));
    }

    // --all: one row per directory, the directory's path last (it holds the kernel name).
    void directory_row(const KernelReport& k) {
        bool annotating = k.rewrite.has_value();
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
        if (!k.rewrite->join) {
            return;
        }
        const JoinOutcome& a = *k.rewrite->join;
        for (const auto& l : a.lost) {
            prose("  OpSpec " + std::to_string(l.op) + " (" + quote_path(file_name_of(l.file)) +
                  ") shares its file with an earlier one: its handle " +
                  printable_text(l.handle.id) + " " +
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

    // The column names are the same in every mode: a dry run says what would be written. Scan's
    // "generated" column (compiler-generated ops) is there with --all, and in the attention list
    // when one of its kernels has such ops.
    void header(bool annotating, std::string_view last) {
        std::string h = annotating ? "files  added  filled  refreshed  kept  lacking  "
                                   : std::string("files  populated   null  absent  malformed  ") +
                                         (generated_column_ ? "generated  " : "") + "problems  ";
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
            const auto& a = g.rewrites;
            std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                          "%5llu  %5llu  %6llu  %9llu  %4llu  %7llu  ", u(g.counts.files),
                          u(a.added), u(a.filled), u(a.refreshed), u(a.kept), u(a.lacking));
        } else {
            const auto& c = g.counts;
            n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                               "%5llu  %9llu  %5llu  %6llu  %9llu  ", u(c.files), u(c.populated),
                               u(c.null), u(c.absent), u(c.malformed));
            if (generated_column_) {
                n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "%9llu  ",
                                   u(c.compiler_generated));
            }
            std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "%8llu  ",
                          u(g.problems()));
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
        generated_column_ = std::any_of(needy.begin(), needy.end(), [](const auto& entry) {
            return entry.second->counts.compiler_generated > 0;
        });
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
        line(plural(needy.size(), "kernel") + " (" + plural(dirs, "director", "y", "ies") + ") " +
                 (annotating ? (needy.size() == 1 ? "still lacks provenance" : "still lack provenance")
                             : (needy.size() == 1 ? "needs attention" : "need attention")) +
                 ", the worst first",
             bold);
        out_ << paint(bold, " dirs  ");
        header(annotating, "kernel");
        // Annotate gives each kernel a second line (why its files lack provenance).
        std::size_t shown =
            std::min(needy.size(), annotating ? attention_rows * 3 / 4 : attention_rows);
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

    void coverage_column(const FileStateCounts& c) {
        std::uint64_t docs = c.sdsc_documents();
        out_ << '\n'
             << paint(bold, "SuperDSC JSON provenance") << " (" << plural(docs, "SDSC document")
             << "):\n";
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
        const auto& a = t.rewrites;
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
        if (options_.command == ReportCommand::annotate) {
            std::uint64_t by_state[4] = {};
            for (const auto& [name, state] : matches_) {
                ++by_state[static_cast<int>(state)];
            }
            auto of = [](std::uint64_t kernels, std::uint64_t dirs) {
                return std::to_string(kernels) + " (" + plural(dirs, "director", "y", "ies") + ")";
            };
            prose("kernels: " +
                  of(by_state[static_cast<int>(KernelMatch::matched)], a.kernels_matched) +
                  " matched, " +
                  of(by_state[static_cast<int>(KernelMatch::not_in_map)], a.kernels_not_in_map) +
                  " not in the map, " +
                  of(by_state[static_cast<int>(KernelMatch::ambiguous)], a.kernels_ambiguous) +
                  " ambiguous, " +
                  of(by_state[static_cast<int>(KernelMatch::unusable)], a.kernels_unusable) +
                  " unusable");
        }
        if (a.lost_ops > 0) {
            prose(plural(a.lost_ops, "de-duplicated OpSpec") +
                  ": their handles are held only in the sidecar (--all lists them)");
        }
        std::uint64_t docs = c.sdsc_documents();
        out_ << '\n';
        std::string generated;
        if (a.generated_lacking > 0) {
            generated = " (";
            generated += std::to_string(a.generated_lacking);
            generated += " of them compiler-generated: no model source by design)";
        }
        prose("SuperDSC JSON debug_handle_: " + coverage_text(c.populated, docs) + " before, " +
                  coverage_text(a.provided, docs) + (dry ? " after (if written)" : " after") +
                  "; " + plural(a.lacking, "file") + " still lack provenance" + generated,
              a.lacking == 0 ? green : yellow);
    }

    static std::string reason_text(const std::map<std::string, std::uint64_t>& reasons) {
        std::string out;
        for (const auto& [reason, n] : reasons) {
            out += (out.empty() ? "" : "; ") + std::to_string(n) + " x " + printable_text(reason);
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
            if (display_width(rest) > room) {
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
    bool generated_column_ = true; // scan's, in the attention list: when a row has some
    std::map<std::string, Group> groups_; // by kernel: its directories that need attention
    std::set<std::string> names_;         // every kernel (scan)
    std::map<std::string, KernelMatch> matches_; // every kernel (annotate, strip)
};

} // namespace

std::unique_ptr<ReportPrinter> make_text_printer(std::ostream& out, PrinterOptions options) {
    return std::make_unique<TextPrinter>(out, std::move(options));
}

} // namespace sdscprov::report_parts
