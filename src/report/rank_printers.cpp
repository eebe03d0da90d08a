#include "sdscprov/report/rank_printers.hpp"

#include "report/html_model.hpp"
#include "report/profile_format.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/profile/ranks.hpp"
#include "sdscprov/report/html.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace sdscprov {

namespace {

using namespace profile_format;

// A spread (longest / shortest) with the digits it takes to differ from 1 when the times differ:
// two decimals, up to six ("1.004x" for a rank 4.4 ms slower in a second, never "1.00x").
std::string ratio_text(const RankSpread& s) {
    if (!s.ratio) {
        return "-";
    }
    char buf[32];
    for (int digits = 2;; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*f", digits, *s.ratio);
        if (s.lead_ns() == 0 || digits == 6 || std::strtod(buf, nullptr) != 1.0) {
            break;
        }
    }
    return std::string(buf) + "x";
}

// The slowest rank against the fastest: the gap in time and the spread.
std::string slowest_text(const ProfileReport& r, const RankSpread& s) {
    return "rank " + std::to_string(r.ranks[s.slowest].rank) + " (" +
           printable(r.ranks[s.slowest].trace) + "), " + milliseconds(s.max_ns) +
           " ms of device time, " + milliseconds(s.lead_ns()) + " ms more than the fastest (rank " +
           std::to_string(r.ranks[s.fastest].rank) + ", " + milliseconds(s.min_ns) +
           " ms): " + ratio_text(s) + " its time";
}

// A row's spread as a sort key: a rank without the row counts as infinitely faster.
double spread_key(const RankSpread& s) {
    return s.ratio ? *s.ratio : (s.lead_ns() > 0 ? std::numeric_limits<double>::infinity() : 1.0);
}

// The row of the largest spread among those every rank ran (then the largest lead); nullptr when
// no such row has a lead.
const ProfileRow* widest_row(const std::vector<ProfileRow>& rows) {
    const ProfileRow* best = nullptr;
    RankSpread best_s;
    for (const auto& row : rows) {
        RankSpread s = rank_spread(row.rank_ns);
        if (!s.ratio || s.lead_ns() == 0) {
            continue;
        }
        if (!best || *s.ratio > *best_s.ratio ||
            (*s.ratio == *best_s.ratio && s.lead_ns() > best_s.lead_ns())) {
            best = &row;
            best_s = s;
        }
    }
    return best;
}

class RankTextPrinter {
public:
    RankTextPrinter(const ProfileReport& r, const ProfileTextOptions& o)
        : r_(r), o_(o), width_(o.shorten ? o.width : std::numeric_limits<std::size_t>::max() / 4),
          columns_(r.ranks.size() <= rank_columns_max) {}

    std::string render() {
        header();
        rank_table();
        for (const RankingSpec* spec : rankings_shown(o_, r_)) {
            out_ += '\n';
            table(*spec);
        }
        return std::move(out_);
    }

private:
    std::string paint(const char* tone, const std::string& s) const {
        return o_.color ? std::string(tone) + s + "\x1b[0m" : s;
    }

    std::string rank_name(std::size_t i) const {
        return "rank " + std::to_string(r_.ranks[i].rank);
    }

    void header() {
        const auto& c = r_.coverage;
        std::size_t without = 0;
        for (const auto& k : r_.ranks) {
            without += k.distributed_rank ? 0 : 1;
        }
        std::string numbered =
            !r_.ranks_by_argument ? "ranks from each trace's distributedInfo.rank"
            : without > 0         ? "ranks numbered in argument order (" + std::to_string(without) +
                                " of them without distributedInfo.rank)"
                          : "ranks numbered in argument order (distributedInfo.rank repeats)";
        out_ += paint("\x1b[1m", fit("sdscprov profile: " + std::to_string(r_.ranks.size()) +
                                         " traces, " + numbered,
                                     width_, false)) +
                "\n";
        RankSpread s = rank_spread(rank_totals(r_));
        out_ += paint("\x1b[1m", "slowest: " + slowest_text(r_, s)) + "\n";
        for (const RankingSpec* spec : rankings_shown(o_, r_)) {
            const Ranking* ranking = r_.ranking(*spec);
            const ProfileRow* row = ranking != nullptr ? widest_row(ranking->rows) : nullptr;
            if (row == nullptr) {
                continue;
            }
            RankSpread w = rank_spread(row->rank_ns);
            std::string said = "largest spread by " + std::string(spec->column) + ": " +
                               ratio_text(w) + ", " + rank_name(w.slowest) + " " +
                               milliseconds(w.max_ns) + " ms, " + rank_name(w.fastest) + " " +
                               milliseconds(w.min_ns) + " ms: ";
            std::size_t room = width_ > said.size() + 12 ? width_ - said.size() : 12;
            out_ += said + fit(printable(row->label), room, spec->kind == RowKind::line) + "\n";
        }
        out_ += "kernel events: " + thousands(c.kernel_events) + " of " +
                thousands(c.trace_events) + " trace events, " + milliseconds(c.kernel_ns) +
                " ms of device time over all ranks\n";
        out_ += "paired: " + thousands(c.resolved_events) + " events (" +
                percent(c.resolved_events, c.kernel_events) + "%), " + milliseconds(c.resolved_ns) +
                " ms (" + percent(c.resolved_ns, c.kernel_ns) + "%)\n";
        out_ += inputs_lines(r_, width_);
    }

    void rank_table() {
        out_ += '\n' + paint("\x1b[1m", "Ranks by device time") + '\n';
        out_ += paint("\x1b[2m", pad_left("rank", 8) + pad_left("time (ms)", 13) +
                                     pad_left("events", 10) + "  trace") +
                '\n';
        std::vector<std::size_t> order(r_.ranks.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return r_.ranks[a].kernel_ns > r_.ranks[b].kernel_ns;
        });
        std::size_t shown = o_.top == 0 ? order.size() : std::min(o_.top, order.size());
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& k = r_.ranks[order[i]];
            out_ += pad_left(std::to_string(k.rank), 8) + cell(milliseconds(k.kernel_ns), 13) +
                    cell(thousands(k.kernel_events), 10) + "  " +
                    fit(printable(k.trace), width_ > 33 ? width_ - 33 : 12, true) + '\n';
        }
        if (shown < order.size()) {
            out_ += "  (" + thousands(order.size() - shown) + " more ranks; --top 0 shows all)\n";
        }
    }

    std::string head() const {
        std::string h = pad_left("sum (ms)", 13) + pad_left("%", 7) + pad_left("slowest", 9) +
                        pad_left("max (ms)", 12) + pad_left("min (ms)", 12) + pad_left("spread", 9);
        if (columns_) {
            for (const auto& k : r_.ranks) {
                std::string name = std::to_string(k.rank);
                h += pad_left(name.insert(0, 1, 'r'), 12);
            }
        }
        return h + "  ";
    }

    std::string cells(const ProfileRow& row) const {
        RankSpread s = rank_spread(row.rank_ns);
        std::string line =
            pad_left(milliseconds(row.time.ns), 13) +
            cell(percent(row.time.ns, r_.coverage.kernel_ns), 7) +
            cell(s.lead_ns() == 0 ? std::string("-") : std::to_string(r_.ranks[s.slowest].rank),
                 9) +
            cell(milliseconds(s.max_ns), 12) + cell(milliseconds(s.min_ns), 12) +
            cell(ratio_text(s), 9);
        if (columns_) {
            for (auto ns : row.rank_ns) {
                line += cell(milliseconds(ns), 12);
            }
        }
        return line + "  ";
    }

    void table(const RankingSpec& spec) {
        const std::string title(spec.name);
        const std::string what(spec.column);
        static const std::vector<ProfileRow> none;
        const Ranking* ranking = r_.ranking(spec);
        const std::vector<ProfileRow>& rows = ranking != nullptr ? ranking->rows : none;
        const bool lines = spec.kind == RowKind::line;
        const bool by_spread = o_.order == ProfileOrder::spread;
        out_ +=
            paint("\x1b[1m", fit(title + (by_spread ? " by spread (max / min)"
                                                    : " by the slowest rank's lead (max - min)"),
                                 width_, false)) +
            '\n';
        out_ +=
            paint("\x1b[2m", fit("(sum: every rank; slowest: the rank of the longest time, - when "
                                 "every rank took as long; spread: longest / shortest)",
                                 width_, false)) +
            '\n';
        if (rows.empty()) {
            out_ += "  no kernel events\n";
            return;
        }
        std::string h = head();
        std::size_t label_width = width_ > h.size() + 12 ? width_ - h.size() : 12;
        out_ += paint("\x1b[2m", h + what) + '\n';
        std::vector<std::size_t> order(rows.size());
        std::vector<std::uint64_t> lead(rows.size());
        std::vector<double> spread(rows.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = i;
            RankSpread s = rank_spread(rows[i].rank_ns);
            lead[i] = s.lead_ns();
            spread[i] = spread_key(s);
        }
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            if (by_spread && spread[a] != spread[b]) {
                return spread[a] > spread[b];
            }
            return lead[a] > lead[b];
        });
        std::size_t shown = o_.top == 0 ? rows.size() : std::min(o_.top, rows.size());
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& row = rows[order[i]];
            std::string label = printable(row.label);
            out_ += cells(row) + fit(label, label_width, lines) + '\n';
        }
        if (shown < rows.size()) {
            out_ += "  (" + thousands(rows.size() - shown) + " more rows; --top 0 shows all)\n";
        }
    }

    const ProfileReport& r_;
    const ProfileTextOptions& o_;
    std::size_t width_;
    bool columns_; // each rank's own column
    std::string out_;
};

// The straggler line: among the source lines holding at least 1% of the device time, the one of
// the largest spread (longest / shortest rank, a rank without the line counting as infinite),
// then of the largest lead. nullptr when no line has a lead.
const ProfileRow* straggler_line(const ProfileReport& r) {
    const ProfileRow* best = nullptr;
    double best_ratio = 0;
    std::uint64_t best_lead = 0;
    for (const auto& row : r.rows(ProfileRanking::line)) {
        RankSpread s = rank_spread(row.rank_ns);
        if (s.lead_ns() == 0 || row.time.ns * 100 < r.coverage.kernel_ns) {
            continue;
        }
        double ratio = s.ratio ? *s.ratio : std::numeric_limits<double>::infinity();
        if (!best || ratio > best_ratio || (ratio == best_ratio && s.lead_ns() > best_lead)) {
            best = &row;
            best_ratio = ratio;
            best_lead = s.lead_ns();
        }
    }
    return best;
}

std::string rank_words(const ProfileReport& r, std::size_t i) {
    return "rank " + std::to_string(r.ranks[i].rank);
}

} // namespace

std::string render_ranks_html(const ProfileReport& report, const SourceTextOptions& source_text) {
    if (report.ranks.empty()) {
        return render_profile_html(report, source_text);
    }
    HtmlModel model("profile", "sdscprov profile", source_text);
    RankSpread total = rank_spread(rank_totals(report));
    std::string slowest = slowest_text(report, total);
    if (const ProfileRow* line = straggler_line(report)) {
        RankSpread s = rank_spread(line->rank_ns);
        model.verdict("note", "straggler line: " + printable(line->label) + ": " +
                                  rank_words(report, s.slowest) + " took " +
                                  milliseconds(s.max_ns) + " ms, " + ratio_text(s) +
                                  " the fastest (" + rank_words(report, s.fastest) + ", " +
                                  milliseconds(s.min_ns) + " ms)");
    } else {
        model.verdict("note", "no straggler line: no source line of 1% of the device time or "
                              "more took longer on one rank than on another");
    }
    std::vector<std::int64_t> numbers;
    for (const auto& k : report.ranks) {
        numbers.push_back(k.rank);
    }
    model.ranks(numbers);
    model.summary("traces", std::to_string(report.ranks.size()));
    model.summary("slowest rank", slowest);
    for (const auto& ranking : report.rankings) {
        if (ranking.spec->needs_ideal && !report.ideal.any()) {
            continue; // not on the page
        }
        if (const ProfileRow* row = widest_row(ranking.rows)) {
            RankSpread w = rank_spread(row->rank_ns);
            model.summary("largest spread by " + std::string(ranking.spec->column),
                          printable(row->label) + ": " + ratio_text(w) + ", " +
                              rank_words(report, w.slowest) + " " + milliseconds(w.max_ns) +
                              " ms, " + rank_words(report, w.fastest) + " " +
                              milliseconds(w.min_ns) + " ms");
        }
    }
    return profile_page(model, report);
}

std::string render_ranks_text(const ProfileReport& report, const ProfileTextOptions& options) {
    if (report.ranks.empty()) {
        return render_profile_text(report, options);
    }
    return RankTextPrinter(report, options).render();
}

} // namespace sdscprov
