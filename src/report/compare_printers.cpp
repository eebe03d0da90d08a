#include "sdscprov/report/compare_printers.hpp"

#include "core/json_out.hpp"
#include "handle/source_text_json.hpp"
#include "report/ci_encoding.hpp"
#include "report/printer_parts.hpp"
#include "report/profile_format.hpp"
#include "report/span_printers.hpp"
#include "report/steps_compared.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/html.hpp"
#include "sdscprov/report/csv_printers.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <sstream>
#include <utility>

namespace sdscprov {

namespace {

using profile_format::fit;
using profile_format::pad_left;
using profile_format::width_of;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

// Nanoseconds as milliseconds with three decimals.
std::string ms(std::uint64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
    return buf;
}

std::string signed_ms(std::int64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.3f", static_cast<double>(ns) / 1e6);
    return buf;
}

std::string change_column(const RowChange& r) {
    if (r.is_new()) {
        return "new";
    }
    if (r.is_gone()) {
        return "gone";
    }
    auto pct = r.change_percent();
    if (!pct) {
        return "-";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f %%", *pct);
    return buf;
}

std::string_view status_of(const RowChange& r) {
    return r.is_new() ? "new" : r.is_gone() ? "gone" : r.change_ns() == 0 ? "same" : "changed";
}

template <class W>
void run_summary(W& w, const ProfileReport& r, const RunCompared& c, CompareBasis basis) {
    w.StartObject();
    json_out::key(w, "trace");
    json_out::path(w, r.trace);
    json_out::member(w, "kernel_events", r.coverage.kernel_events);
    json_out::member(w, "kernel_ns", r.coverage.kernel_ns);
    json_out::member(w, "resolved_ns", r.coverage.resolved_ns);
    json_out::member(w, "steps", c.steps);
    json_out::member(w, "compared_ns", c.ns);
    json_out::member(w, "compared_events", c.events);
    if (basis == CompareBasis::steps) {
        json_out::member(w, "outside_steps_events", c.outside_events);
        json_out::member(w, "outside_steps_ns", c.outside_ns);
    }
    span_printers::run_json(w, r.spans);
    w.EndObject();
}

template <class W> void comparison_member(W& w, const ProfileComparison& c) {
    json_out::key(w, "comparison");
    w.StartObject();
    json_out::key(w, "basis");
    w.String(to_string(c.basis).data());
    json_out::key(w, "note");
    json_out::optional_string(w, c.basis_note.empty() ? std::nullopt
                                                      : std::optional<std::string>(c.basis_note));
    json_out::member(w, "base_steps", c.base_run.steps);
    json_out::member(w, "new_steps", c.new_run.steps);
    json_out::key(w, "checkouts");
    if (c.checkouts) {
        w.StartObject();
        json_out::key(w, "base");
        json_out::path(w, c.checkouts->base);
        json_out::key(w, "new");
        json_out::path(w, c.checkouts->now);
        w.EndObject();
    } else {
        w.Null();
    }
    w.EndObject();
}

// What the header says of the basis: "per step: 10 steps in base, 12 in new; times are per
// step", or "totals (no step spans in the base trace)".
std::string basis_text(const ProfileComparison& c) {
    if (c.basis == CompareBasis::steps) {
        return "per step: " + std::to_string(c.base_run.steps) + " steps in base, " +
               std::to_string(c.new_run.steps) + " in new; times are per step";
    }
    return "totals (" + c.basis_note + ")";
}

// Per step: the kernel events each run left out (they started in no step), when any did.
std::string outside_text(const ProfileComparison& c) {
    if (c.basis != CompareBasis::steps ||
        (c.base_run.outside_events == 0 && c.new_run.outside_events == 0)) {
        return {};
    }
    return "  left out: kernel events that start in no step: " +
           std::to_string(c.base_run.outside_events) + " of base (" + ms(c.base_run.outside_ns) +
           " ms), " + std::to_string(c.new_run.outside_events) + " of new (" +
           ms(c.new_run.outside_ns) + " ms)";
}

template <class W> void percent_value(W& w, std::optional<double> pct) {
    if (pct) {
        w.Double(std::round(*pct * 100.0) / 100.0);
    } else {
        w.Null();
    }
}

std::optional<double> total_percent(const ProfileComparison& c) {
    if (c.base_run.ns == 0) {
        return std::nullopt;
    }
    double b = static_cast<double>(c.base_run.ns);
    return 100.0 * (static_cast<double>(c.new_run.ns) - b) / b;
}

std::int64_t total_change(const ProfileComparison& c) {
    return static_cast<std::int64_t>(c.new_run.ns) - static_cast<std::int64_t>(c.base_run.ns);
}

// What either run did not read of the source files.
SourceTextNote source_text_of(const ProfileComparison& c) {
    SourceTextNote note = c.base.source_text;
    note.merge(c.now.source_text);
    return note;
}

// One ranking's compared rows as a text table: the figures, then the row as people read it (a
// source line with its text below it, as the single run's tables show it).
std::string change_table(const RankingSpec& spec, const std::vector<RowChange>& rows,
                         const ProfileTextOptions& options, std::size_t width) {
    auto paint = [&options](const char* tone, const std::string& s) {
        return options.color ? std::string(tone) + s + "\x1b[0m" : s;
    };
    std::string out = paint("\x1b[1m", std::string(spec.change_title) +
                                           ", by the absolute change (" +
                                           std::to_string(rows.size()) + " rows)");
    out += "\n   base ms     new ms   change ms   change  row\n";
    constexpr std::size_t head = 44; // the columns before the row's label
    const std::size_t label_width = width > head + 12 ? width - head : 12;
    const bool lines = spec.kind == RowKind::line;
    std::size_t printed = 0;
    for (const auto& r : rows) {
        if (options.top != 0 && printed == options.top) {
            out += "  ... " + std::to_string(rows.size() - printed) +
                   " more rows (--top 0 shows all)\n";
            break;
        }
        ++printed;
        std::string cells = pad_left(signed_ms(r.change_ns()), 11) + " " +
                            pad_left(change_column(r), 8);
        if (r.change_ns() != 0) {
            cells = paint(r.change_ns() > 0 ? "\x1b[31m" : "\x1b[32m", cells);
        }
        out += pad_left(r.is_new() ? "-" : ms(r.base_ns()), 10) + " " +
               pad_left(r.is_gone() ? "-" : ms(r.new_ns()), 10) + " " + cells + "  " +
               fit(printable_text(r.shown_label()), label_width, lines) + "\n";
        const auto first = lines && r.text ? r.text->find_first_not_of(" \t") : std::string::npos;
        if (first != std::string::npos) {
            out += std::string(head + 2, ' ') +
                   paint("\x1b[2m", fit(printable(r.text->substr(first)),
                                        label_width > 2 ? label_width - 2 : 1, false)) +
                   "\n";
        }
    }
    return out;
}

} // namespace

std::string render_comparison_text(const ProfileComparison& c, const ProfileTextOptions& options) {
    // On a terminal, labels are shortened to the width (a source line keeps its end: the file
    // name and line number), titles are bold and a change is red when the row grew, green when it
    // shrank; piped, every byte of a label stays.
    const std::size_t width =
        options.shorten ? options.width : std::numeric_limits<std::size_t>::max() / 4;
    auto paint = [&options](const char* tone, const std::string& s) {
        return options.color ? std::string(tone) + s + "\x1b[0m" : s;
    };
    std::string out;
    const auto& b = c.base_run;
    const auto& n = c.new_run;
    std::string quantity(compared_quantity(c));
    quantity[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(quantity[0])));
    out += paint("\x1b[1m", fit(quantity + " compared " + basis_text(c), width, false)) + "\n";
    char pct[64] = "-";
    if (auto p = total_percent(c)) {
        std::snprintf(pct, sizeof pct, "%+.1f %%", *p);
    }
    const std::string unit = c.basis == CompareBasis::steps ? " ms per step (" : " ms (";
    // Each run on a line of its own: its trace (on a terminal, shortened to what the line
    // leaves, keeping the file name) and its device time.
    auto run_line = [&](const std::string& lead, const std::string& trace, const auto& run) {
        const std::string figures =
            ": " + ms(run.ns) + unit + std::to_string(run.events) + " kernel events)";
        const std::size_t used = width_of(lead) + width_of(figures);
        const std::size_t room = width > used + 12 ? width - used : 12;
        return lead + fit(printable_text(trace), room, true) + figures + "\n";
    };
    out += run_line("  base: ", c.base.trace, b);
    out += run_line("  new:  ", c.now.trace, n);
    out += "  change: " + signed_ms(total_change(c)) + " ms (" + pct + ")\n";
    if (c.checkouts) {
        out += fit("  two checkouts: source paths from base " + printable_text(c.checkouts->base) +
                       " and new " + printable_text(c.checkouts->now),
                   width, false) +
               "\n";
    }
    out += span_printers::comparison_line(c.base, c.now, width);
    if (const std::string outside = outside_text(c); !outside.empty()) {
        out += fit(outside, width, false) + "\n";
    }
    if (c.steps) {
        out += steps_compared::text(*c.steps, width, options.color);
    }
    std::vector<const RankingSpec*> shown = options.rankings;
    if (shown.empty()) {
        for (const auto& ranking : c.rankings) {
            if (!ranking.spec->needs_ideal) {
                shown.push_back(ranking.spec);
            }
        }
    }
    for (const RankingSpec* spec : shown) {
        out += "\n" + change_table(*spec, c.rows(*spec), options, width);
    }
    return out;
}

std::string render_comparison_json(const ProfileComparison& c) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 1);
    w.StartObject();
    json_out::member(w, "sdscprov_profile_comparison", 1);
    json_out::key(w, "compared");
    w.String(to_string(c.basis).data());
    comparison_member(w, c);
    json_out::key(w, "base");
    run_summary(w, c.base, c.base_run, c.basis);
    json_out::key(w, "new");
    run_summary(w, c.now, c.new_run, c.basis);
    json_out::member(w, "change_ns", total_change(c));
    json_out::key(w, "change_percent");
    percent_value(w, total_percent(c));
    steps_compared::json(w, c.steps);
    for (const auto& ranking : c.rankings) {
        json_out::key(w, ranking.spec->json_key);
        w.StartArray();
        for (const auto& r : ranking.rows) {
            w.StartObject();
            json_out::member(w, "label", r.label);
            if (r.line) {
                json_out::key(w, "file");
                json_out::path(w, r.line->file);
                json_out::member(w, "line", r.line->line);
                json_out::member(w, "text", r.text);
                json_out::key(w, "moved_from");
                if (r.moved_from) {
                    w.StartObject();
                    json_out::key(w, "file");
                    json_out::path(w, r.moved_from->file);
                    json_out::member(w, "line", r.moved_from->line);
                    w.EndObject();
                } else {
                    w.Null();
                }
            }
            json_out::member(w, "status", status_of(r));
            json_out::member(w, "base_ns", r.base_ns());
            json_out::member(w, "new_ns", r.new_ns());
            json_out::member(w, "base_events", r.base ? r.base->events : 0);
            json_out::member(w, "new_events", r.now ? r.now->events : 0);
            json_out::member(w, "change_ns", r.change_ns());
            json_out::key(w, "change_percent");
            percent_value(w, r.change_percent());
            w.EndObject();
        }
        w.EndArray();
    }
    json_out::source_text_member(w, source_text_of(c));
    w.EndObject();
    buffer.Put('\n');
    return {buffer.GetString(), buffer.GetSize()};
}

std::string render_comparison_folded(const ProfileComparison& c) {
    bool stepwise = c.basis == CompareBasis::steps;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> stacks;
    auto add = [&](const ProfileReport& run, bool is_base) {
        for (const auto& b : run.bundles) {
            std::uint64_t ns = stepwise ? b.step_ns : b.time.ns;
            if (ns > 0) {
                auto& v = is_base ? stacks[profile_format::folded_stack(b)].first
                                  : stacks[profile_format::folded_stack(b)].second;
                v = saturating_add(v, ns);
            }
        }
    };
    add(c.base, true);
    add(c.now, false);
    std::string out;
    for (const auto& [stack, ns] : stacks) {
        auto [b, n] = ns;
        if (stepwise) { // summed per stack first, then per step: the same rounding as the rows
            b = per_step(b, c.base_run.steps);
            n = per_step(n, c.new_run.steps);
        }
        out += stack + " " + std::to_string(b) + " " + std::to_string(n) + "\n";
    }
    return out;
}

namespace {

constexpr std::string_view gate_rule = "fail-over";
constexpr std::string_view gate_rule_text =
    "a row's device time (with --by idle its idle time) grew by more than --fail-over percent";

// Where a finding points: the model file and line, else the trace (no line).
std::pair<std::string, TextPosition> place_of(const GateFinding& f, const std::string& trace) {
    if (f.row->where) {
        return {f.row->where->file, {static_cast<std::size_t>(f.row->where->line), 1}};
    }
    return {trace, {}};
}

std::string gate_sarif(const std::vector<GateFinding>& findings, const std::string& trace) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    ci_encoding::sarif_open(w, {{std::string(gate_rule), std::string(gate_rule_text)}});
    for (const auto& f : findings) {
        auto [path, pos] = place_of(f, trace);
        ci_encoding::sarif_result(w, gate_rule, 0, "error", f.message, path, pos);
    }
    ci_encoding::sarif_close(w);
    buffer.Put('\n');
    return {buffer.GetString(), buffer.GetSize()};
}

std::string gate_junit(const std::vector<GateFinding>& findings, const std::string& trace) {
    std::ostringstream out;
    std::size_t tests = findings.empty() ? 1 : findings.size();
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<testsuites name=\"sdscprov profile\" tests=\"" << tests << "\" failures=\""
        << findings.size() << "\" errors=\"0\">\n"
        << "  <testsuite name=\"sdscprov profile\" tests=\"" << tests << "\" failures=\""
        << findings.size() << "\" errors=\"0\">\n";
    if (findings.empty()) {
        out << "    <testcase classname=\"sdscprov.profile\" name=\"device time\"/>\n";
    }
    for (const auto& f : findings) {
        auto [path, pos] = place_of(f, trace);
        std::string where =
            pos.line > 0 ? quote_path(path) + ":" + std::to_string(pos.line) : quote_path(path);
        out << "    <testcase classname=\"sdscprov.profile\" name=\""
            << ci_encoding::xml_escaped(f.row->label) << "\">\n"
            << "      <failure message=\"" << ci_encoding::xml_escaped(f.message)
            << "\" type=\"" << gate_rule << "\">"
            << ci_encoding::xml_escaped(where + ": " + f.message + " [" +
                                        std::string(gate_rule) + "]")
            << "\n</failure>\n    </testcase>\n";
    }
    out << "  </testsuite>\n</testsuites>\n";
    return out.str();
}

std::string gate_github(const std::vector<GateFinding>& findings, const std::string& trace) {
    std::ostringstream out;
    for (const auto& f : findings) {
        auto [path, pos] = place_of(f, trace);
        ci_encoding::github_line(out, "error", path, pos, "sdscprov " + std::string(gate_rule),
                                 f.message);
    }
    return out.str();
}

} // namespace

std::string render_gate_findings(const std::vector<GateFinding>& findings, ReportFormat format,
                                 const std::string& trace) {
    switch (format) {
    case ReportFormat::sarif:
        return gate_sarif(findings, trace);
    case ReportFormat::junit:
        return gate_junit(findings, trace);
    default:
        return gate_github(findings, trace);
    }
}

namespace {

std::string render_comparison(ReportFormat format, const ComparisonPrinterOptions& options,
                              const GatedComparison& run) {
    switch (format) {
    case ReportFormat::json:
        return render_comparison_json(run.comparison);
    case ReportFormat::folded:
        return render_comparison_folded(run.comparison);
    case ReportFormat::csv:
        return render_comparison_csv(run.comparison, compared_ranking(options.by));
    case ReportFormat::html:
        return render_comparison_html(run.comparison, options.source_text);
    case ReportFormat::junit:
    case ReportFormat::github:
    case ReportFormat::sarif:
        return render_gate_findings(run.findings, format, options.trace);
    default:
        ProfileTextOptions text = options.text;
        if (!options.by.tables.empty()) {
            text.rankings = {&compared_ranking(options.by)};
        }
        return render_comparison_text(run.comparison, text);
    }
}

} // namespace

std::unique_ptr<Printer<NoItems, GatedComparison>>
make_comparison_printer(ReportFormat format, std::ostream& out, ComparisonPrinterOptions options) {
    return std::make_unique<
        report_parts::WholeResultPrinter<GatedComparison, ComparisonPrinterOptions>>(
        render_comparison, format, out, std::move(options));
}

} // namespace sdscprov
