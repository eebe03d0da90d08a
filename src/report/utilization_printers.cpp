#include "report/utilization_printers.hpp"

#include "core/json_out.hpp"
#include "report/profile_format.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

namespace sdscprov::utilization_printers {

using namespace profile_format;

namespace {

// The utilization column: a percentage too wide for it (an ideal far longer than the kernel ran:
// 464358.1) without its decimal, so that the columns stay aligned.
std::string util_cell(const IdealTime& i) {
    std::string p = percent(i.ideal_ns, i.measured_ns);
    if (p.size() > 7) {
        p.erase(std::min(p.find('.'), p.size()));
    }
    return cell(p, 8);
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return thousands(n) + " " + (n == 1 ? one : many);
}

std::string paint(bool color, const char* tone, const std::string& s) {
    return color ? std::string(tone) + s + "\x1b[0m" : s;
}

} // namespace

// ---- text ---------------------------------------------------------------------------------------

bool has_columns(const ProfileReport& r) {
    return r.ideal.any();
}

namespace {

// When most kernels with an ideal ran faster than it (utilization over 100 %), the clock is
// likely wrong: the whole MHz at which the median kernel's utilization is 100 % (utilization
// scales as 1 / MHz), with that median. nullopt otherwise.
std::optional<std::pair<std::uint64_t, double>> clock_suggestion(const ProfileReport& r) {
    std::vector<double> utils;
    std::size_t over = 0;
    for (const auto& b : r.bundles) {
        const IdealTime& t = b.time.ideal;
        if (t.known() && t.measured_ns > 0) {
            utils.push_back(static_cast<double>(t.ideal_ns) / static_cast<double>(t.measured_ns));
            over += utils.back() > 1.0 ? 1 : 0;
        }
    }
    if (utils.empty() || over * 2 <= utils.size()) {
        return std::nullopt;
    }
    std::sort(utils.begin(), utils.end());
    std::size_t n = utils.size();
    double median = n % 2 == 1 ? utils[n / 2] : (utils[n / 2 - 1] + utils[n / 2]) / 2;
    auto mhz = static_cast<std::uint64_t>(std::llround(r.ideal.core_mhz * median));
    return std::make_pair(mhz, median);
}

} // namespace

std::string header_lines(const ProfileReport& r, std::size_t width) {
    const IdealSummary& s = r.ideal;
    const auto& c = r.coverage;
    const std::string file(ideal_cycles_path);
    std::string out = "ideal (core clock " + std::to_string(s.core_mhz) + " MHz): ";
    if (!s.any()) {
        out += s.dirs_read == 0 ? "no paired kernel directory to read " + file + " from"
                                : "no " + file + " in the " +
                                      plural(s.dirs_read, "paired kernel directory",
                                             "paired kernel directories");
        out = fit(out, width, false) + "\n";
        if (s.dirs_malformed > 0) {
            out += "  " + plural(s.dirs_malformed, "file", "files") + " unusable\n";
        }
    } else {
        out += thousands(s.time.events) + " of " + thousands(c.kernel_events) + " events (" +
               percent(s.time.events, c.kernel_events) + "%), " + milliseconds(s.time.measured_ns) +
               " of " + milliseconds(c.kernel_ns) + " ms (" +
               percent(s.time.measured_ns, c.kernel_ns) + "%)";
        out = fit(out, width, false) + "\n";
        out += fit("  kernel directories: " + thousands(s.dirs_by_total) + " by TOTAL, " +
                       thousands(s.dirs_by_sum) + " by sum, " + thousands(s.dirs_malformed) +
                       " unusable, " + thousands(s.dirs_absent) + " without " + file,
                   width, false) +
               "\n";
    }
    if (s.time.known()) {
        std::string line = "utilization: ideal " + milliseconds(s.time.ideal_ns) +
                           " ms / measured " + milliseconds(s.time.measured_ns) +
                           " ms = " + percent(s.time.ideal_ns, s.time.measured_ns) + "%; lost " +
                           milliseconds(s.time.lost_ns) + " ms";
        if (s.time.over_100_events > 0) {
            line += "; " + plural(s.time.over_100_events, "event", "events") + " over 100%";
        }
        out += fit(line, width, false) + "\n";
    }
    if (auto clock = clock_suggestion(r)) {
        char median[32];
        std::snprintf(median, sizeof median, "%.0f%%", clock->second * 100.0);
        out += fit("  most kernels ran faster than their ideal at " +
                       std::to_string(r.ideal.core_mhz) + " MHz (median utilization " + median +
                       "): --core-mhz " + std::to_string(clock->first) + " makes the median 100%",
                   width, false) +
               "\n";
    }
    return out;
}

std::string columns_head() {
    return cell("ideal (ms)", 12) + cell("util %", 8) + cell("lost (ms)", 12);
}

std::string columns(const DeviceTime& t) {
    const IdealTime& i = t.ideal;
    if (!i.known()) {
        return cell("-", 12) + cell("-", 8) + cell("-", 12);
    }
    return cell(milliseconds(i.ideal_ns), 12) + util_cell(i) +
           cell(milliseconds(i.lost_ns), 12);
}

std::string category_table(const ProfileReport& r, const RankingSpec& spec, std::size_t top,
                           std::size_t width, bool by_lost, bool color) {
    std::string title =
        std::string(spec.name) + (by_lost ? " by time lost against the ideal" : " by device time");
    std::string out = paint(color, "\x1b[1m", fit(title, width, false)) + '\n';
    out += paint(color, "\x1b[2m",
                 fit("(a kernel's category is that of its largest entry in " +
                         std::string(ideal_cycles_path) + ", TOTAL aside)",
                     width, false)) +
           '\n';
    static const std::vector<ProfileRow> none;
    const Ranking* ranking = r.ranking(spec);
    const auto& rows = ranking != nullptr ? ranking->rows : none;
    if (rows.empty()) {
        return out + "  no kernel events\n";
    }
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    if (by_lost) {
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return rows[a].time.ideal.lost_ns > rows[b].time.ideal.lost_ns;
        });
    }
    std::string head = cell("calls", 10) + cell("time (ms)", 13) + cell("share %", 9) +
                       cell("ideal (ms)", 12) + cell("of ideal %", 12) + cell("util %", 8) +
                       cell("lost (ms)", 12) + "  ";
    std::size_t label_width = width > head.size() + 12 ? width - head.size() : 12;
    out += paint(color, "\x1b[2m", head + std::string(spec.column)) + '\n';
    std::size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
    for (std::size_t k = 0; k < shown; ++k) {
        const ProfileRow& row = rows[order[k]];
        const IdealTime& i = row.time.ideal;
        std::string line = cell(thousands(row.time.events), 10) +
                           cell(milliseconds(row.time.ns), 13) +
                           cell(percent(row.time.ns, r.coverage.kernel_ns), 9);
        if (i.known()) {
            line += cell(milliseconds(i.ideal_ns), 12) +
                    cell(percent(i.ideal_ns, r.ideal.time.ideal_ns), 12) +
                    util_cell(i) + cell(milliseconds(i.lost_ns), 12);
        } else {
            line += cell("-", 12) + cell("-", 12) + cell("-", 8) + cell("-", 12);
        }
        out += line + "  " + fit(printable(row.label), label_width, false) + '\n';
    }
    if (shown < rows.size()) {
        out += "  (" + thousands(rows.size() - shown) + " more " + std::string(spec.plural) +
               "; --top 0 shows all)\n";
    }
    return out;
}

// ---- JSON ---------------------------------------------------------------------------------------

void time_json(Writer& w, const IdealTime& t) {
    json_out::key(w, "utilization");
    w.StartObject();
    json_out::member(w, "events", t.events);
    json_out::member(w, "measured_ns", t.measured_ns);
    json_out::member(w, "ideal_ns", t.ideal_ns);
    json_out::member(w, "lost_ns", t.lost_ns);
    json_out::key(w, "ratio");
    if (auto u = utilization(t)) {
        w.Double(*u);
    } else {
        w.Null();
    }
    json_out::member(w, "over_100_events", t.over_100_events);
    w.EndObject();
}

void bundle_json(Writer& w, const ProfileBundle& b) {
    json_out::key(w, "ideal");
    if (!b.ideal) {
        w.Null();
        return;
    }
    const BundleIdeal& i = *b.ideal;
    w.StartObject();
    json_out::member(w, "kernel_dir", i.kernel_dir);
    json_out::member(w, "cycles", i.kernel.cycles);
    json_out::member(w, "ns", i.ns);
    json_out::member(w, "rule", to_string(i.kernel.rule));
    json_out::member(w, "category", i.kernel.category);
    w.EndObject();
}

void summary_json(Writer& w, const ProfileReport& r) {
    const IdealSummary& s = r.ideal;
    json_out::key(w, "ideal");
    w.StartObject();
    json_out::member(w, "file", ideal_cycles_path);
    json_out::member(w, "core_mhz", s.core_mhz);
    json_out::key(w, "kernel_dirs");
    w.StartObject();
    for (const auto& count : kernel_dir_counts) {
        json_out::member(w, count.name, s.*count.field);
    }
    w.EndObject();
    json_out::member(w, "bundles_with_ideal", s.bundles_with_ideal);
    json_out::member(w, "bundles_without_ideal", s.bundles_without_ideal);
    json_out::key(w, "other_members");
    w.StartArray();
    for (const auto& m : s.other_members) {
        json_out::string(w, m);
    }
    w.EndArray();
    time_json(w, s.time);
    w.EndObject();
}

} // namespace sdscprov::utilization_printers

namespace sdscprov {

std::vector<const RankingSpec*> rankings_shown(const ProfileTextOptions& options,
                                               const ProfileReport& report) {
    if (!options.rankings.empty()) {
        return options.rankings;
    }
    std::vector<const RankingSpec*> shown;
    for (const auto& ranking : report.rankings) {
        if (!ranking.spec->needs_ideal) {
            shown.push_back(ranking.spec);
        }
    }
    return shown;
}

void choose_rankings(ProfileTextOptions& options, const RankingChoice& by,
                     const ProfileReport& report) {
    options.order = by.order;
    if (!by.tables.empty()) {
        options.rankings = by.tables;
        return;
    }
    options.rankings.clear();
    for (const auto& ranking : report.rankings) {
        if (!ranking.spec->needs_ideal || report.ideal.any()) {
            options.rankings.push_back(ranking.spec);
        }
    }
}

} // namespace sdscprov
