// profile's CSV: a ranking (any row of the ranking table: the columns follow its kind), a
// comparison's rows, and acelyzer's category table. Each renders the report's figures; none
// counts again, but acelyzer's table re-adds the category rows' bundles under acelyzer's rule for
// events whose ideal exceeds their time (below).
#include "sdscprov/report/csv_printers.hpp"

#include "core/json_out.hpp"
#include "report/csv_cells.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace sdscprov {

namespace {

using csv::Record;

// A list as the JSON report writes it: a JSON array of strings, in one cell.
std::string json_list(const std::vector<std::string>& list) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    json_out::strings(w, list);
    return {buffer.GetString(), buffer.GetSize()};
}

bool is_placeholder(const std::string& label) {
    return label.size() > 1 && label.front() == '[' && label.back() == ']';
}

// The columns a row's kind adds after its label.
std::vector<std::string> kind_columns(const RankingSpec& spec) {
    switch (spec.kind) {
    case RowKind::line:
        return {"file", "line", "text"};
    case RowKind::name:
        return {std::string(spec.json_name)};
    case RowKind::bundle:
        return {"key", "kernels", "kernel_dirs"};
    }
    return {};
}

// The figures' columns: the JSON report's members of a row, joined by '.'.
std::vector<std::string> time_columns(const ProfileReport& r) {
    std::vector<std::string> names{"device_ns", "share", "events"};
    for (std::size_t i = 0; i < stage_count; ++i) {
        const std::string stage(to_string(static_cast<Stage>(i)));
        names.push_back("stages." + stage + ".ticks");
        names.push_back("stages." + stage + ".events");
    }
    for (const char* m : {"events", "measured_ns", "ideal_ns", "lost_ns", "ratio",
                          "over_100_events"}) {
        names.push_back(std::string("utilization.") + m);
    }
    for (const auto& rank : r.ranks) {
        names.push_back("rank_ns." + std::to_string(rank.rank));
    }
    return names;
}

std::optional<double> fraction(std::uint64_t part, std::uint64_t whole) {
    if (whole == 0) {
        return std::nullopt;
    }
    return static_cast<double>(part) / static_cast<double>(whole);
}

void kind_cells(Record& rec, const RankingSpec& spec, const ProfileRow& row,
                const std::vector<ProfileBundle>& bundles) {
    switch (spec.kind) {
    case RowKind::line:
        if (row.line) {
            rec.text(row.line->file).number(row.line->line);
        } else {
            rec.none().none();
        }
        rec.optional(row.text);
        return;
    case RowKind::name:
        if (is_placeholder(row.label)) {
            rec.none();
        } else {
            rec.text(row.label);
        }
        return;
    case RowKind::bundle:
        if (row.bundles.size() == 1 && row.bundles[0] < bundles.size()) {
            const ProfileBundle& b = bundles[row.bundles[0]];
            if (b.key.empty()) {
                rec.none();
            } else {
                rec.text(b.key);
            }
            rec.text(json_list(b.kernel_names)).text(json_list(b.kernel_dirs));
        } else {
            rec.none().none().none();
        }
        return;
    }
}

void time_cells(Record& rec, const ProfileReport& r, const DeviceTime& t,
                const std::vector<std::uint64_t>& rank_ns) {
    rec.number(t.ns).optional(fraction(t.ns, r.coverage.kernel_ns)).number(t.events);
    for (std::size_t i = 0; i < stage_count; ++i) {
        rec.number(t.stages.ticks[i]).number(t.stages.events[i]);
    }
    const IdealTime& i = t.ideal;
    rec.number(i.events).number(i.measured_ns).number(i.ideal_ns).number(i.lost_ns);
    rec.optional(utilization(i)).number(i.over_100_events);
    for (std::size_t k = 0; k < r.ranks.size(); ++k) {
        if (k < rank_ns.size()) {
            rec.number(rank_ns[k]);
        } else {
            rec.none();
        }
    }
}

// One file per ranking chosen, every ranking of `run` when none is.
template <class Run>
std::vector<OutputFile> csv_files(const Run& run, std::vector<const RankingSpec*> chosen,
                                  std::string (*render)(const Run&, const RankingSpec&)) {
    if (chosen.empty()) {
        for (const auto& ranking : run.rankings) {
            chosen.push_back(ranking.spec);
        }
    }
    std::vector<OutputFile> files;
    for (const RankingSpec* spec : chosen) {
        files.push_back({ranking_csv_name(*spec), render(run, *spec)});
    }
    return files;
}

} // namespace

std::string ranking_csv_name(const RankingSpec& spec) {
    return std::string(spec.word) + ".csv";
}

std::vector<OutputFile> ranking_csv_files(const ProfileReport& report,
                                          std::vector<const RankingSpec*> chosen) {
    return csv_files(report, std::move(chosen), render_ranking_csv);
}

std::vector<OutputFile> ranking_csv_files(const ProfileComparison& comparison,
                                          std::vector<const RankingSpec*> chosen) {
    return csv_files(comparison, std::move(chosen), render_comparison_csv);
}

std::string render_ranking_csv(const ProfileReport& r, const RankingSpec& spec) {
    std::vector<std::string> names{"label"};
    for (auto& n : kind_columns(spec)) {
        names.push_back(std::move(n));
    }
    for (auto& n : time_columns(r)) {
        names.push_back(std::move(n));
    }
    std::string out;
    csv::header(out, names);
    const Ranking* ranking = r.ranking(spec);
    if (ranking == nullptr) {
        return out;
    }
    for (const ProfileRow& row : ranking->rows) {
        Record rec(out);
        rec.text(row.label);
        kind_cells(rec, spec, row, r.bundles);
        time_cells(rec, r, row.time, row.rank_ns);
        rec.end();
    }
    return out;
}

std::string render_comparison_csv(const ProfileComparison& c, const RankingSpec& spec) {
    // The JSON report's members of a compared row, in its order, then the fractions.
    std::vector<std::string> names{"label"};
    if (spec.kind == RowKind::line) {
        for (const char* n : {"file", "line", "text", "moved_from.file", "moved_from.line"}) {
            names.emplace_back(n);
        }
    }
    for (const char* n : {"status", "base_ns", "new_ns", "base_events", "new_events", "change_ns",
                          "change", "base_share", "new_share"}) {
        names.emplace_back(n);
    }
    std::string out;
    csv::header(out, names);
    for (const RowChange& row : c.rows(spec)) {
        Record rec(out);
        rec.text(row.label);
        if (spec.kind == RowKind::line) {
            if (row.line) {
                rec.text(row.line->file).number(row.line->line);
            } else {
                rec.none().none();
            }
            rec.optional(row.text);
            if (row.moved_from) {
                rec.text(row.moved_from->file).number(row.moved_from->line);
            } else {
                rec.none().none();
            }
        }
        // The JSON report's status words.
        rec.text(row.is_new()                ? "new"
                 : row.is_gone()             ? "gone"
                 : row.change_ns() == 0      ? "same"
                                             : "changed");
        rec.number(row.base_ns()).number(row.new_ns());
        rec.number(row.base ? row.base->events : 0).number(row.now ? row.now->events : 0);
        rec.number(row.change_ns());
        const auto change = row.change_percent();
        rec.optional(change ? std::optional<double>(*change / 100.0) : std::nullopt);
        rec.optional(fraction(row.base_ns(), c.base_run.ns));
        rec.optional(fraction(row.new_ns(), c.new_run.ns)).end();
    }
    return out;
}

// ---- acelyzer's category table ------------------------------------------------------------------

namespace {

// One category's figures as acelyzer adds them up: an event whose ideal exceeds its time adds
// its time and no ideal.
struct AcelyzerRow {
    std::uint64_t ns = 0;
    std::uint64_t calls = 0;
    std::uint64_t cycles = 0;
};

// Rounded to 4 decimals and written as Python writes a float: the shortest digits, at least one
// after the point.
std::string decimal4(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    std::string s = buf;
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') {
        s.pop_back();
    }
    return s;
}

// Integer nanoseconds as microseconds, exactly: "12.345", "7.0".
std::string microseconds(std::uint64_t ns) {
    std::string frac = std::to_string(ns % 1000);
    frac = std::string(3 - frac.size(), '0') + frac;
    while (frac.size() > 1 && frac.back() == '0') {
        frac.pop_back();
    }
    return std::to_string(ns / 1000) + "." + frac;
}

double ratio(double part, double whole) {
    return whole == 0 ? 0.0 : part / whole;
}

} // namespace

std::string render_acelyzer_categories(const ProfileReport& r) {
    std::map<std::string, AcelyzerRow> rows;
    const Ranking* ranking = r.ranking(ranking_spec(ProfileRanking::category));
    if (ranking != nullptr) {
        for (const ProfileRow& row : ranking->rows) {
            // What sdscprov keeps apart ([no ideal], [unresolved], [no category]) acelyzer
            // counts as "other": events of no kernel its table names.
            AcelyzerRow& a = rows[is_placeholder(row.label) ? std::string("other") : row.label];
            a.ns += row.time.ns;
            a.calls += row.time.events;
            for (auto index : row.bundles) {
                if (index >= r.bundles.size() || !r.bundles[index].ideal) {
                    continue;
                }
                const ProfileBundle& b = r.bundles[index];
                const IdealTime& i = b.time.ideal;
                a.cycles += (i.events - std::min(i.events, i.over_100_events)) *
                            b.ideal->kernel.cycles;
            }
        }
    }
    std::vector<std::pair<std::string, AcelyzerRow>> order(rows.begin(), rows.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.second.ns < b.second.ns; });
    AcelyzerRow total;
    for (const auto& [name, a] : order) {
        total.ns += a.ns;
        total.calls += a.calls;
        total.cycles += a.cycles;
    }
    order.emplace_back("Total", total);

    std::string out;
    csv::header(out, std::vector<std::string>{"Pid", "Phase", "Category", "Kernel_Time",
                                              "Frac_Time", "Calls", "Ideal_Time", "Ideal_Cyc",
                                              "Frac_Ideal", "PT_Util"});
    const double mhz = r.ideal.core_mhz;
    const double total_us = static_cast<double>(total.ns) / 1000.0;
    const double total_ideal = static_cast<double>(total.cycles) / mhz;
    for (const auto& [name, a] : order) {
        const double us = static_cast<double>(a.ns) / 1000.0;
        const double ideal = static_cast<double>(a.cycles) / mhz;
        Record rec(out);
        if (!r.ranks.empty()) {
            rec.none(); // the sum of several traces: no one trace's
        } else {
            rec.number(static_cast<std::int64_t>(r.distributed_rank.value_or(0)));
        }
        rec.text("UNKN").text(name);
        rec.cell(microseconds(a.ns)).cell(decimal4(ratio(us, total_us))).number(a.calls);
        rec.cell(decimal4(ideal)).number(a.cycles).cell(decimal4(ratio(ideal, total_ideal)));
        rec.cell(decimal4(ratio(ideal, us))).end();
    }
    return out;
}

} // namespace sdscprov
