#include "sdscprov/report/profile_printers.hpp"

#include "handle/handle_json.hpp"
#include "handle/source_text_json.hpp"
#include "report/printer_parts.hpp"
#include "report/profile_format.hpp"
#include "report/span_printers.hpp"
#include "report/timeline_printers.hpp"
#include "report/utilization_printers.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/profile/drill.hpp"
#include "sdscprov/report/csv_printers.hpp"
#include "sdscprov/report/html.hpp"
#include "sdscprov/report/rank_printers.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <ostream>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace sdscprov {

namespace {

using namespace profile_format;

// The fewest columns a ranking's label gets before the timeline's wait and launch columns give
// way to it.
constexpr std::size_t min_label = 24;

class TextPrinter {
public:
    TextPrinter(const ProfileReport& r, const ProfileTextOptions& o)
        : r_(r), o_(o), width_(o.shorten ? o.width : std::numeric_limits<std::size_t>::max() / 4),
          timeline_(timeline_printers::shown(r, o.order == ProfileOrder::idle)) {}

    std::string render() {
        header();
        if (r_.spans.nothing_kept()) {
            return std::move(out_); // the header said why
        }
        if (o_.drill != nullptr) {
            drill();
            return std::move(out_);
        }
        if (timeline_) {
            out_ += timeline_printers::text(r_, o_.top, width_, o_.color);
        }
        out_ += span_printers::text(r_, timeline_, o_.top, width_, o_.color);
        const auto shown = rankings_shown(o_, r_);
        bool line_texts = false; // a table that shows source line texts
        for (const RankingSpec* spec : shown) {
            line_texts |= spec->kind == RowKind::line;
            out_ += '\n';
            if (spec->needs_ideal) {
                out_ += utilization_printers::category_table(
                    r_, *spec, o_.top, width_, o_.order == ProfileOrder::lost, o_.color);
                continue;
            }
            const Ranking* ranking = r_.ranking(*spec);
            static const std::vector<ProfileRow> none;
            table(*spec, ranking != nullptr ? ranking->rows : none);
        }
        // Under the tables that show line texts (the rank and compared tables show none).
        if (line_texts) {
            out_ += source_text_lines(r_.source_text, o_.color);
        }
        next_step(shown);
        return std::move(out_);
    }

private:
    // The last line: the command that drills into the top row of the first table that has a
    // drill-down.
    void next_step(const std::vector<const RankingSpec*>& shown) {
        if (o_.command.empty()) {
            return;
        }
        for (const RankingSpec* spec : shown) {
            const Ranking* ranking = r_.ranking(*spec);
            if (spec->drill_option.empty() || ranking == nullptr || ranking->rows.empty()) {
                continue;
            }
            const ProfileRow& top = ranking->rows[order_of(ranking->rows).front()];
            out_ += '\n' + command_lines("", o_.command + " " + std::string(spec->drill_option) +
                                                 " " + shell_word(top.label));
            return;
        }
    }

    // The drill-down: the row's kernels (a source line's, an op's), or a kernel's source lines
    // and ops; each kernel with the command that explains it.
    void drill() {
        const RankingSpec& spec = *o_.drill;
        const Ranking* ranking = r_.ranking(spec);
        RowMatch m = ranking != nullptr ? find_row(*ranking, o_.drill_label) : RowMatch{};
        if (m.row == nullptr) { // the caller checks first (drill_missing); said here too
            out_ += '\n' + drill_missing(r_, spec, o_.drill_label).value_or("") + '\n';
            return;
        }
        const ProfileRow& row = *m.row;
        out_ += '\n' +
                paint("\x1b[1m", fit(std::string(spec.drill_option) + " " + printable(row.label) +
                                         ": " + milliseconds(row.time.ns) + " ms (" +
                                         percent(row.time.ns, r_.coverage.kernel_ns) +
                                         "% of the device time), " +
                                         thousands(row.time.events) + " events",
                                     width_, false)) +
                '\n';
        if (const auto first = row.text ? row.text->find_first_not_of(" \t") : std::string::npos;
            first != std::string::npos) { // as the tables show it: its indentation left out
            out_ += "  " + paint("\x1b[2m", fit(printable(row.text->substr(first)), width_ - 2,
                                                false)) +
                    '\n';
        }
        auto rows_of = [&](const RankingSpec& of, auto&& wanted) {
            std::vector<ProfileRow> rows;
            if (const Ranking* r = r_.ranking(of)) {
                for (const auto& x : r->rows) {
                    if (std::any_of(x.bundles.begin(), x.bundles.end(), wanted)) {
                        rows.push_back(x);
                    }
                }
            }
            return rows;
        };
        auto in_row = [&](std::uint32_t b) {
            return std::find(row.bundles.begin(), row.bundles.end(), b) != row.bundles.end();
        };
        if (spec.kind == RowKind::bundle) {
            out_ += paint("\x1b[2m", fit("(its source lines and ATen ops; a row's time is that of "
                                          "every kernel it counts in)",
                                          width_, false)) +
                    '\n';
            bool texts = false;
            for (ProfileRanking of : {ProfileRanking::line, ProfileRanking::aten}) {
                out_ += '\n';
                texts |= of == ProfileRanking::line;
                table(ranking_spec(of), rows_of(ranking_spec(of), in_row));
            }
            out_ += '\n' + command_lines("", explain_command(r_, row.label, o_.explain_words));
            if (texts) {
                out_ += source_text_lines(r_.source_text, o_.color);
            }
            return;
        }
        out_ += '\n';
        explain_rows_ = true;
        table(ranking_spec(ProfileRanking::kernel),
              rows_of(ranking_spec(ProfileRanking::kernel), in_row));
        explain_rows_ = false;
    }

    // "next: COMMAND" after `indent` (four spaces when the command would not fit after it), the
    // command's words whole (to paste): on one line when it fits or nothing is shortened
    // (piped), else broken between words with a shell's line continuation, the further lines
    // four spaces in.
    std::string command_lines(std::string indent, const std::string& command) const {
        const std::string text = printable(command);
        if (indent.size() > 4 && indent.size() + 6 + width_of(text) > width_) {
            indent = "    "; // under a column it would not fit: nearer the margin
        }
        std::vector<std::string> words(1);
        bool quoted = false; // inside '...': a space is part of the word
        for (std::size_t i = 0; i < text.size(); ++i) {
            char c = text[i];
            if (c == ' ' && !quoted) {
                words.emplace_back();
                continue;
            }
            if (c == '\'') {
                quoted = !quoted;
            } else if (c == '\\' && !quoted && i + 1 < text.size()) {
                words.back() += c;
                c = text[++i];
            }
            words.back() += c;
        }
        std::string out = indent + paint("\x1b[2m", "next: ");
        std::size_t used = indent.size() + 6;
        for (std::size_t i = 0; i < words.size(); ++i) {
            const std::size_t w = width_of(words[i]);
            if (i > 0 && used + 1 + w + 2 > width_) {
                out += " \\\n" + indent + "    ";
                used = indent.size() + 4;
            } else if (i > 0) {
                out += ' ';
                ++used;
            }
            out += words[i];
            used += w;
        }
        return out + '\n';
    }

    // The order a ranking's rows are shown in: as built (device time), else by lost or idle time.
    std::vector<std::size_t> order_of(const std::vector<ProfileRow>& rows) const {
        std::vector<std::size_t> order(rows.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        if (o_.order == ProfileOrder::lost) {
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return rows[a].time.ideal.lost_ns > rows[b].time.ideal.lost_ns;
            });
        } else if (o_.order == ProfileOrder::idle) {
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return rows[a].idle.ns > rows[b].idle.ns;
            });
        }
        return order;
    }

    // `text` as lines of at most width_ columns, broken between words (a word longer than a
    // line is a line of its own), each after `indent` and the next ones two more spaces in.
    std::string wrap(const std::string& text, const std::string& indent) const {
        std::string out;
        std::string line = indent;
        std::size_t start = 0;
        while (start < text.size()) {
            auto end = text.find(' ', start);
            end = end == std::string::npos ? text.size() : end;
            std::string word = text.substr(start, end - start);
            bool first = line.size() == indent.size();
            if (!first && width_of(line) + 1 + width_of(word) > width_) {
                out += line + '\n';
                line = indent + "  " + word;
            } else {
                line += (first ? "" : " ") + word;
            }
            start = end + 1;
        }
        return out + line + '\n';
    }

    std::string paint(const char* tone, const std::string& s) const {
        return o_.color ? std::string(tone) + s + "\x1b[0m" : s;
    }

    // Why a report has no kernel event: none recorded, or recorded but none torch-spyre's
    // (a CUDA trace, say); nothing when --span kept none of them (its line says so).
    std::string no_kernel_hint() const {
        if (r_.spans.filter.has_value() && r_.spans.seen > 0) {
            return {};
        }
        if (r_.timeline.activities > 0) {
            return wrap("no torch-spyre kernel event in the trace: none of its " +
                            thousands(r_.timeline.activities) +
                            " device activities (cat kernel, gpu_memcpy, gpu_memset) is named "
                            "spyre_kernel_... or carries args.provenance_key (a trace of another "
                            "device?)",
                        "");
        }
        return wrap("no device kernel event found in the trace: torch-spyre writes them when the "
                    "profiler records ProfilerActivity.PrivateUse1 "
                    "(torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                    "ProfilerActivity.PrivateUse1]))",
                    "");
    }

    void header() {
        const auto& c = r_.coverage;
        out_ += paint("\x1b[1m",
                      fit("sdscprov profile: " + printable(r_.trace) + (r_.gzip ? " (gzip)" : ""),
                          width_, false)) +
                "\n";
        out_ += "kernel events: " + thousands(c.kernel_events) + " of " +
                thousands(c.trace_events) + " trace events, " + milliseconds(c.kernel_ns) +
                " ms of device time\n";
        if (c.kernel_events == 0) {
            out_ += no_kernel_hint();
        }
        out_ += "paired: " + thousands(c.resolved_events) + " events (" +
                percent(c.resolved_events, c.kernel_events) + "%), " + milliseconds(c.resolved_ns) +
                " ms (" + percent(c.resolved_ns, c.kernel_ns) + "%)\n";
        if (c.dirless_bundles > 0) {
            out_ +=
                wrap("in no kernel directory" +
                         std::string(r_.caches.empty() ? " (no cache read)" : " of the caches") +
                         ": " + thousands(c.dirless_bundles) + " of " +
                         thousands(c.paired_bundles) + " paired bundles, " +
                         thousands(c.dirless_events) + " events, " + milliseconds(c.dirless_ns) +
                         " ms (" + percent(c.dirless_ns, c.kernel_ns) + "%)",
                     "  ");
        }
        out_ += inputs_lines(r_, width_);
        if (c.unmeasured_events > 0) {
            out_ += "  " + thousands(c.unmeasured_events) +
                    (c.unmeasured_events == 1 ? " kernel event" : " kernel events") +
                    " without a usable dur: not in the times\n";
        }
        if (o_.stages) {
            std::uint64_t all = 0;
            for (auto t : r_.stages.ticks) {
                all += t;
            }
            out_ += "stages (counter ticks, not seconds):\n ";
            for (std::size_t i = 0; i < stage_count; ++i) {
                out_ += std::string(i == 0 ? " " : ", ") +
                        std::string(to_string(static_cast<Stage>(i))) + " " +
                        ticks(r_.stages.ticks[i]) + " (" + percent(r_.stages.ticks[i], all) + "%)";
            }
            out_ += "; " + thousands(c.counters_failed_events) + " events with failed counters\n";
        }
        out_ += utilization_printers::header_lines(r_, width_);
        out_ += span_printers::header_lines(r_, timeline_, width_);
    }

    // The column heads of a ranking: time, share, events, the timeline's (idle alone with
    // `idle_only`), the utilization and stage columns.
    std::string table_head(bool ideal, bool idle_only) const {
        std::string head = pad_left("time (ms)", 13) + pad_left("%", 7) + pad_left("events", 10);
        if (timeline_) {
            head += timeline_printers::columns_head(idle_only);
        }
        if (ideal) {
            head += utilization_printers::columns_head();
        }
        if (o_.stages) {
            for (std::size_t i = 0; i < stage_count; ++i) {
                head += pad_left(std::string(to_string(static_cast<Stage>(i))), 8);
            }
        }
        return head + "  ";
    }

    // How a ranking's rows are laid out.
    struct RowShape {
        std::size_t head;        // the width of the columns before the label
        std::size_t label_width; // what the label is shortened to
        bool kernels;            // the kernel ranking: names shortened in the middle, directories
        bool lines;              // source lines: shortened keeping the line number
        bool ideal;              // the utilization columns
        bool idle_only;          // of the timeline's columns, idle alone
    };

    // One row of a ranking, with its kernel's directories and its source line's text below it.
    void row_lines(const ProfileRow& row, const RowShape& shape) {
        std::string line = pad_left(milliseconds(row.time.ns), 13) +
                           cell(percent(row.time.ns, r_.coverage.kernel_ns), 7) +
                           cell(thousands(row.time.events), 10);
        if (timeline_) {
            line += timeline_printers::columns(row.idle, row.launch, shape.idle_only);
        }
        if (shape.ideal) {
            line += utilization_printers::columns(row.time);
        }
        if (o_.stages) {
            for (std::size_t s = 0; s < stage_count; ++s) {
                line += cell(row.time.stages.events[s] ? ticks(row.time.stages.ticks[s])
                                                       : std::string("-"),
                             8);
            }
        }
        std::string label = printable(row.label);
        label = shape.kernels ? fit_middle(label, shape.label_width)
                              : fit(label, shape.label_width, shape.lines);
        out_ += line + "  " + label + '\n';
        if (shape.kernels && row.bundles.size() == 1 && row.bundles[0] < r_.bundles.size()) {
            const auto& dirs = r_.bundles[row.bundles[0]].kernel_dirs;
            for (std::size_t d = 0; dirs.size() > 1 && d < dirs.size(); ++d) {
                std::string dir = fit(printable(dirs[d]),
                                      shape.label_width > 2 ? shape.label_width - 2 : 1, true);
                out_ += std::string(shape.head + 2, ' ') + paint("\x1b[2m", dir) + '\n';
            }
        }
        if (shape.kernels && explain_rows_) {
            out_ += command_lines(std::string(shape.head + 2, ' '),
                                  explain_command(r_, row.label, o_.explain_words));
        }
        if (row.text) {
            std::string text = *row.text;
            auto first = text.find_first_not_of(" \t");
            text = first == std::string::npos ? "" : printable(text.substr(first));
            out_ += std::string(shape.head + 2, ' ') +
                    paint("\x1b[2m",
                          fit(text, shape.label_width > 2 ? shape.label_width - 2 : 1, false)) +
                    '\n';
        }
    }

    void table(const RankingSpec& spec, const std::vector<ProfileRow>& rows) {
        const bool kernels = spec.kind == RowKind::bundle;
        const bool lines = spec.kind == RowKind::line;
        const bool counts_fully = !spec.one_row_per_bundle;
        const std::string what(spec.column);
        const std::string note =
            std::string(spec.note) + (spec.shares_whole ? " 100%" : "");
        const std::string heading =
            std::string(spec.name) +
            (o_.order == ProfileOrder::lost   ? " by time lost against the ideal"
             : o_.order == ProfileOrder::idle ? " by idle time before their activities"
                                              : " by device time");
        out_ += paint("\x1b[1m", fit(heading, width_, false)) + '\n';
        if (!note.empty()) {
            out_ += paint("\x1b[2m", fit("(" + note + ")", width_, false)) + '\n';
        }
        if (rows.empty()) {
            out_ += "  no kernel events\n";
            return;
        }
        const bool ideal = utilization_printers::has_columns(r_);
        // A terminal too narrow for a label of min_label columns beside the timeline's three
        // columns shows its idle column alone.
        const bool idle_only = timeline_ && width_ < table_head(ideal, false).size() + min_label;
        const std::string head = table_head(ideal, idle_only);
        std::size_t label_width = width_ > head.size() + 12 ? width_ - head.size() : 12;
        out_ += paint("\x1b[2m", head + what) + '\n';
        std::size_t shown = o_.top == 0 ? rows.size() : std::min(o_.top, rows.size());
        const std::vector<std::size_t> order = order_of(rows);
        for (std::size_t i = 0; i < shown; ++i) {
            row_lines(rows[order[i]], {head.size(), label_width, kernels, lines, ideal, idle_only});
        }
        if (shown < rows.size()) {
            // Only kernels add up (each event is in one kernel row): the rest's time.
            std::string rest_time;
            if (!counts_fully) {
                DeviceTime rest;
                for (std::size_t i = shown; i < rows.size(); ++i) {
                    rest.add(rows[order[i]].time);
                }
                rest_time = ": " + milliseconds(rest.ns) + " ms";
            }
            out_ += "  (" + thousands(rows.size() - shown) + " more " + std::string(spec.plural) +
                    rest_time +
                    "; --top 0 shows all)\n";
        }
        if (idle_only) {
            out_ += fit("  (wait, launch: not shown at this width; --format json has every figure)",
                        width_, false) +
                    '\n';
        }
    }

    const ProfileReport& r_;
    const ProfileTextOptions& o_;
    std::size_t width_; // what labels and paths are shortened to fit
    bool timeline_;     // the step table and the rows' idle columns (timeline_printers)
    bool explain_rows_ = false; // a drill-down's kernel rows: each with its explain command
    std::string out_;
};

// ---- JSON ---------------------------------------------------------------------------------------

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void stages_json(Writer& w, const StageTotals& s) {
    w.StartObject();
    for (std::size_t i = 0; i < stage_count; ++i) {
        json_out::key(w, to_string(static_cast<Stage>(i)));
        w.StartObject();
        json_out::member(w, "ticks", s.ticks[i]);
        json_out::member(w, "events", s.events[i]);
        w.EndObject();
    }
    w.EndObject();
}

void time_json(Writer& w, const DeviceTime& t) {
    json_out::member(w, "device_ns", t.ns);
    json_out::member(w, "events", t.events);
    json_out::key(w, "stages");
    stages_json(w, t.stages);
    utilization_printers::time_json(w, t.ideal);
}

// Over several traces: the time in each rank, in the order of "traces".
void rank_ns_json(Writer& w, const std::vector<std::uint64_t>& rank_ns) {
    if (rank_ns.empty()) {
        return;
    }
    json_out::key(w, "rank_ns");
    w.StartArray();
    for (auto ns : rank_ns) {
        w.Uint64(ns);
    }
    w.EndArray();
}

// One trace's own members, the same alone and over several traces.
void trace_members(Writer& w, const std::string& path, bool gzip, std::uint64_t bytes,
                   std::uint64_t events, const std::optional<std::int64_t>& distributed_rank) {
    json_out::member(w, "path", path);
    json_out::member(w, "gzip", gzip);
    json_out::member(w, "bytes", bytes);
    json_out::member(w, "events", events);
    json_out::member(w, "distributed_rank", distributed_rank);
}

// The trace, or over several traces each one (its rank, its own totals) and how they are
// numbered.
void traces_json(Writer& w, const ProfileReport& r) {
    if (r.ranks.empty()) {
        json_out::key(w, "trace");
        w.StartObject();
        trace_members(w, r.trace, r.gzip, r.trace_bytes, r.coverage.trace_events,
                      r.distributed_rank);
        w.EndObject();
        return;
    }
    json_out::member(w, "ranks_by",
                     r.ranks_by_argument ? "argument order" : "distributedInfo.rank");
    json_out::key(w, "traces");
    w.StartArray();
    for (const auto& k : r.ranks) {
        w.StartObject();
        json_out::member(w, "rank", k.rank);
        trace_members(w, k.trace, k.gzip, k.trace_bytes, k.trace_events, k.distributed_rank);
        json_out::member(w, "kernel_events", k.kernel_events);
        json_out::member(w, "kernel_ns", k.kernel_ns);
        w.EndObject();
    }
    w.EndArray();
}

bool is_placeholder(const std::string& label) {
    return label.size() > 1 && label.front() == '[' && label.back() == ']';
}

void rows_json(Writer& w, const RankingSpec& spec, const std::vector<ProfileRow>& rows,
               const std::vector<ProfileBundle>& bundles, bool timeline) {
    json_out::key(w, spec.json_key);
    w.StartArray();
    for (const auto& row : rows) {
        w.StartObject();
        json_out::member(w, "label", row.label);
        if (spec.kind == RowKind::line) {
            json_out::key(w, "file");
            if (row.line) {
                json_out::string(w, row.line->file);
            } else {
                w.Null();
            }
            json_out::key(w, "line");
            if (row.line) {
                w.Int64(row.line->line);
            } else {
                w.Null();
            }
            json_out::member(w, "text", row.text);
        } else if (spec.kind == RowKind::name) {
            json_out::key(w, spec.json_name);
            if (is_placeholder(row.label)) {
                w.Null();
            } else {
                json_out::string(w, row.label);
            }
        }
        if (spec.kind == RowKind::bundle && row.bundles.size() == 1 &&
            row.bundles[0] < bundles.size()) {
            const auto& b = bundles[row.bundles[0]];
            json_out::key(w, "key");
            if (b.key.empty()) {
                w.Null();
            } else {
                json_out::string(w, b.key);
            }
            json_out::key(w, "kernels");
            json_out::strings(w, b.kernel_names);
            json_out::key(w, "kernel_dirs");
            json_out::strings(w, b.kernel_dirs);
        }
        time_json(w, row.time);
        if (timeline) {
            timeline_printers::row_json(w, row.idle, row.launch);
        }
        rank_ns_json(w, row.rank_ns);
        json_out::key(w, "bundles");
        w.StartArray();
        for (auto b : row.bundles) {
            w.Uint(b);
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
}

void coverage_json(Writer& w, const ProfileCoverage& c) {
    json_out::key(w, "coverage");
    w.StartObject();
    json_out::member(w, "kernel_events", c.kernel_events);
    json_out::member(w, "resolved_events", c.resolved_events);
    json_out::member(w, "kernel_ns", c.kernel_ns);
    json_out::member(w, "resolved_ns", c.resolved_ns);
    json_out::member(w, "unmeasured_events", c.unmeasured_events);
    json_out::member(w, "counters_failed_events", c.counters_failed_events);
    json_out::member(w, "paired_bundles", c.paired_bundles);
    json_out::member(w, "dirless_bundles", c.dirless_bundles);
    json_out::member(w, "dirless_events", c.dirless_events);
    json_out::member(w, "dirless_ns", c.dirless_ns);
    w.EndObject();
}

void bundles_json(Writer& w, const std::vector<ProfileBundle>& bundles, bool timeline) {
    json_out::key(w, "bundles");
    w.StartArray();
    for (const auto& b : bundles) {
        w.StartObject();
        json_out::key(w, "key");
        if (b.key.empty()) {
            w.Null();
        } else {
            json_out::string(w, b.key);
        }
        json_out::member(w, "label", b.label);
        json_out::member(w, "event_name", b.event_name);
        json_out::member(w, "paired_by", to_string(b.resolution));
        json_out::key(w, "reason");
        if (b.reason) {
            json_out::string(w, to_string(*b.reason));
        } else {
            w.Null();
        }
        json_out::key(w, "handles");
        json_out::strings(w, b.handle_ids);
        json_out::key(w, "kernels");
        json_out::strings(w, b.kernel_names);
        json_out::key(w, "kernel_dirs");
        json_out::strings(w, b.kernel_dirs);
        json_out::key(w, "source_lines");
        w.StartArray();
        for (const auto& l : b.lines) {
            w.StartObject();
            json_out::member(w, "file", l.file);
            json_out::member(w, "line", l.line);
            w.EndObject();
        }
        w.EndArray();
        json_out::key(w, "aten_ops");
        json_out::strings(w, b.aten_ops);
        json_out::member(w, "compiler_generated", b.compiler_generated);
        time_json(w, b.time);
        if (timeline) {
            timeline_printers::row_json(w, b.idle, b.launch);
        }
        rank_ns_json(w, b.rank_ns);
        utilization_printers::bundle_json(w, b);
        json_out::member(w, "folded", folded_stack(b));
        w.EndObject();
    }
    w.EndArray();
}

// The handles, the diagnostics and the problems.
void findings_json(Writer& w, const ProfileReport& r) {
    json_out::key(w, "handles");
    w.StartArray();
    for (const auto& h : r.handles) {
        json_out::handle(w, h);
    }
    w.EndArray();

    json_out::key(w, "diagnostics");
    w.StartArray();
    for (const auto& d : r.diagnostics) {
        w.StartObject();
        json_out::member(w, "path", d.path);
        json_out::key(w, "line");
        json_out::position(w, d.pos.line);
        json_out::key(w, "col");
        json_out::position(w, d.pos.col);
        json_out::member(w, "severity", to_string(d.severity));
        json_out::member(w, "code", to_string(d.code));
        json_out::member(w, "message", d.message);
        json_out::member(w, "events", d.events);
        json_out::member(w, "first_event", d.first_event);
        w.EndObject();
    }
    w.EndArray();
    json_out::key(w, "problems");
    w.StartArray();
    for (const auto& p : r.problems) {
        json_out::problem(w, p);
    }
    w.EndArray();
}

} // namespace

std::string render_profile_text(const ProfileReport& report, const ProfileTextOptions& options) {
    return TextPrinter(report, options).render();
}

std::string render_profile_json(const ProfileReport& r, bool timeline_asked) {
    const bool timeline = timeline_printers::shown(r, timeline_asked);
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.SetIndent(' ', 2);
    w.StartObject();
    json_out::member(w, "sdscprov_profile", 2);
    traces_json(w, r);
    json_out::member(w, "sources", r.sources_digest);
    json_out::key(w, "sidecars");
    json_out::strings(w, r.sidecars);
    json_out::key(w, "caches");
    json_out::strings(w, r.caches);

    coverage_json(w, r.coverage);
    json_out::key(w, "stages");
    stages_json(w, r.stages);
    utilization_printers::summary_json(w, r);
    if (timeline) {
        timeline_printers::timeline_json(w, r.timeline);
    }
    span_printers::spans_json(w, r, timeline);

    for (const auto& ranking : r.rankings) {
        rows_json(w, *ranking.spec, ranking.rows, r.bundles, timeline);
    }

    bundles_json(w, r.bundles, timeline);
    findings_json(w, r);
    json_out::source_text_member(w, r.source_text);
    w.EndObject();
    buffer.Put('\n');
    return {buffer.GetString(), buffer.GetSize()};
}

std::uint64_t folded_value(FoldedValue value, const DeviceTime& time, const IdleTime& idle,
                           const LaunchDelays& launch) {
    switch (value) {
    case FoldedValue::ideal:
        return time.ideal.ideal_ns;
    case FoldedValue::lost:
        return time.ideal.lost_ns;
    case FoldedValue::idle:
        return idle.ns;
    case FoldedValue::host_wait:
        return idle.host_wait_ns;
    case FoldedValue::launch:
        return launch.total_ns;
    default:
        return time.ns;
    }
}

std::string render_profile_folded(const ProfileReport& r, FoldedValue value) {
    std::map<std::string, std::uint64_t> stacks;
    auto add = [&stacks](const std::string& stack, std::uint64_t v) {
        if (v > 0) {
            auto& ns = stacks[stack];
            ns = ns > ~std::uint64_t{0} - v ? ~std::uint64_t{0} : ns + v;
        }
    };
    for (const auto& b : r.bundles) {
        add(folded_stack(b), folded_value(value, b.time, b.idle, b.launch));
    }
    // The gaps before transfers are charged to a stack of their own.
    add("[transfers];[transfers];[transfers]",
        folded_value(value, DeviceTime{}, r.timeline.transfers_idle, LaunchDelays{}));
    std::string out;
    for (const auto& [stack, ns] : stacks) {
        out += stack + " " + std::to_string(ns) + "\n";
    }
    return out;
}

} // namespace sdscprov

// ---- the printer of a profile run ---------------------------------------------------------------

namespace sdscprov {

namespace {

std::string render_profile(ReportFormat format, const ProfilePrinterOptions& options,
                           const ProfileReport& report) {
    const bool ranks = !report.ranks.empty();
    switch (format) {
    case ReportFormat::json:
        return render_profile_json(report, options.by.order == ProfileOrder::idle);
    case ReportFormat::folded:
        return render_profile_folded(report, options.value);
    case ReportFormat::csv:
        // One ranking: the first chosen, else the report's first (--out-dir writes several).
        if (!options.by.tables.empty()) {
            return render_ranking_csv(report, *options.by.tables.front());
        }
        return report.rankings.empty() ? std::string()
                                       : render_ranking_csv(report, *report.rankings.front().spec);
    case ReportFormat::acelyzer_categories:
        return render_acelyzer_categories(report);
    case ReportFormat::html:
        return ranks ? render_ranks_html(report, options.source_text)
                     : render_profile_html(report, options.source_text);
    default:
        ProfileTextOptions text = options.text;
        if (text.drill != nullptr) {
            return render_profile_text(report, text);
        }
        choose_rankings(text, options.by, report);
        return ranks ? render_ranks_text(report, text) : render_profile_text(report, text);
    }
}

} // namespace

std::unique_ptr<Printer<NoItems, ProfileReport>>
make_profile_printer(ReportFormat format, std::ostream& out, ProfilePrinterOptions options) {
    return std::make_unique<report_parts::WholeResultPrinter<ProfileReport, ProfilePrinterOptions>>(
        render_profile, format, out, std::move(options));
}

} // namespace sdscprov
