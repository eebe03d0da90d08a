#include "sdscprov/profile/compare.hpp"

#include "profile/saturating.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

namespace sdscprov {

namespace {

// The source line of most device time among a row's bundles (a bundle counts fully for each of
// its lines); ties go to the smaller line.
std::optional<SourceLine> heaviest_line(const ProfileReport& report, const ProfileRow& row) {
    std::map<SourceLine, std::uint64_t> ns;
    for (auto i : row.bundles) {
        if (i >= report.bundles.size()) {
            continue;
        }
        const auto& b = report.bundles[i];
        for (const auto& l : b.lines) {
            auto& n = ns[l];
            n = n > std::numeric_limits<std::uint64_t>::max() - b.time.ns
                    ? std::numeric_limits<std::uint64_t>::max()
                    : n + b.time.ns;
        }
    }
    std::optional<SourceLine> best;
    std::uint64_t best_ns = 0;
    for (const auto& [line, n] : ns) {
        if (!best || n > best_ns) {
            best = line;
            best_ns = n;
        }
    }
    return best;
}

// A row's time as compared: its own (totals), or that of its bundles' kernel events that started
// in a step, per step.
DeviceTime compared_time(const ProfileReport& run, const ProfileRow& r, CompareBasis basis) {
    if (basis == CompareBasis::totals) {
        return r.time;
    }
    if (basis == CompareBasis::idle) {
        DeviceTime t;
        t.ns = r.idle.ns;
        t.events = r.time.events;
        return t;
    }
    DeviceTime t;
    std::uint64_t ns = 0;
    for (auto i : r.bundles) {
        if (i < run.bundles.size()) {
            ns = saturating_add(ns, run.bundles[i].step_ns);
            t.events += run.bundles[i].step_events;
        }
    }
    t.ns = per_step(ns, run.steps.spans);
    return t;
}

// How many trailing path components two paths share ("a/b/c.py", "x/b/c.py": 2).
std::size_t shared_tail(std::string_view a, std::string_view b) {
    std::size_t n = 0;
    while (!a.empty() && !b.empty()) {
        auto sa = a.rfind('/');
        auto sb = b.rfind('/');
        auto ca = sa == std::string_view::npos ? a : a.substr(sa + 1);
        auto cb = sb == std::string_view::npos ? b : b.substr(sb + 1);
        if (ca != cb || ca.empty()) {
            break;
        }
        ++n;
        a = sa == std::string_view::npos ? std::string_view() : a.substr(0, sa);
        b = sb == std::string_view::npos ? std::string_view() : b.substr(0, sb);
    }
    return n;
}

// Of `candidates` (indexes into rows), the one whose file shares the most trailing components
// with `file`, when it alone does (and shares the file name at least).
std::optional<std::size_t> closest_file(const std::vector<RowChange>& rows,
                                        const std::vector<std::size_t>& candidates,
                                        const std::string& file) {
    std::optional<std::size_t> best;
    std::size_t best_n = 0;
    bool tie = false;
    for (auto i : candidates) {
        std::size_t n =
            rows[i].line->file == file ? std::string::npos : shared_tail(rows[i].line->file, file);
        if (n > best_n) {
            best = i;
            best_n = n;
            tie = false;
        } else if (n == best_n && n > 0) {
            tie = true;
        }
    }
    return tie ? std::nullopt : best;
}

// Gone and new source line rows of the same text and the same file, one each: one moved row
// (the new row with the base time; the gone row removed).
void match_moved(std::vector<RowChange>& rows) {
    std::map<std::string_view, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>>
        by_text;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (r.line && r.text && !r.text->empty() && (r.is_new() != r.is_gone())) {
            auto& side = by_text[*r.text];
            (r.is_gone() ? side.first : side.second).push_back(i);
        }
    }
    std::vector<bool> drop(rows.size(), false);
    for (const auto& [text, sides] : by_text) {
        const auto& [gone, added] = sides;
        for (auto g : gone) {
            auto n = closest_file(rows, added, rows[g].line->file);
            // Mutual: the gone row is also the new row's closest.
            if (!n || closest_file(rows, gone, rows[*n].line->file) != g) {
                continue;
            }
            rows[*n].base = rows[g].base;
            rows[*n].moved_from = rows[g].line;
            drop[g] = true;
        }
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!drop[i]) {
            if (kept != i) {
                rows[kept] = std::move(rows[i]);
            }
            ++kept;
        }
    }
    rows.resize(kept);
}

// A bundle's compared time: its own (totals), that of its kernel events that started in a step,
// per step, or the idle time before its events.
std::uint64_t compared_ns(const ProfileReport& run, const ProfileBundle& b, CompareBasis basis) {
    switch (basis) {
    case CompareBasis::totals:
        return b.time.ns;
    case CompareBasis::idle:
        return b.idle.ns;
    default:
        return per_step(b.step_ns, run.steps.spans);
    }
}

// A run's rows by label.
using RowsByLabel = std::unordered_map<std::string_view, const ProfileRow*>;
RowsByLabel rows_by_label(const std::vector<ProfileRow>& rows) {
    RowsByLabel out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
        out.emplace(r.label, &r);
    }
    return out;
}

// The labels of a compared row's bundles whose time grew from the base run to the new one (a
// bundle only in the new run grew from 0), the largest growth first, then by label. A moved line
// holds the base row of its old line.
std::vector<std::string> grown_bundles(const ProfileReport& base, const RowsByLabel& base_rows,
                                       const ProfileReport& now, const RowsByLabel& now_rows,
                                       const RowChange& row, CompareBasis basis) {
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> ns; // label -> base, new
    auto take = [&](const ProfileReport& run, const RowsByLabel& rows, const std::string& label,
                    bool is_base) {
        auto it = rows.find(label);
        if (it == rows.end()) {
            return;
        }
        for (auto i : it->second->bundles) {
            if (i < run.bundles.size()) {
                auto& [b, n] = ns[run.bundles[i].label];
                (is_base ? b : n) = compared_ns(run, run.bundles[i], basis);
            }
        }
    };
    take(now, now_rows, row.label, false);
    take(base, base_rows, row.moved_from ? row.moved_from->label() : row.label, true);
    std::vector<std::pair<std::uint64_t, std::string>> grew;
    for (const auto& [label, times] : ns) {
        if (times.second > times.first) {
            grew.emplace_back(times.second - times.first, label);
        }
    }
    std::stable_sort(grew.begin(), grew.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    out.reserve(grew.size());
    for (auto& g : grew) {
        out.push_back(std::move(g.second));
    }
    return out;
}

std::vector<RowChange> join(const ProfileReport& base, const std::vector<ProfileRow>& base_rows,
                            const ProfileReport& now, const std::vector<ProfileRow>& now_rows,
                            CompareBasis basis) {
    std::map<std::string, std::size_t> at; // label -> index in out
    std::vector<RowChange> out;
    out.reserve(std::max(base_rows.size(), now_rows.size()));
    // A row of one run, its time not yet set: the source line a finding points at is its own, else
    // the heaviest of its bundles in that run.
    auto change_of = [](const ProfileReport& run, const ProfileRow& r) {
        RowChange c;
        c.label = r.label;
        c.line = r.line;
        c.text = r.text;
        c.where = r.line ? r.line : heaviest_line(run, r);
        return c;
    };
    for (const auto& r : now_rows) {
        at.emplace(r.label, out.size());
        out.push_back(change_of(now, r));
        out.back().now = compared_time(now, r, basis);
    }
    for (const auto& r : base_rows) {
        auto it = at.find(r.label);
        if (it == at.end()) {
            out.push_back(change_of(base, r));
            out.back().base = compared_time(base, r, basis);
            continue;
        }
        auto& c = out[it->second];
        c.base = compared_time(base, r, basis);
        if (!c.text) {
            c.text = r.text;
        }
        if (!c.where) {
            c.where = heaviest_line(base, r);
        }
    }
    match_moved(out); // source line rows only: other rows have no line
    const RowsByLabel base_by_label = rows_by_label(base_rows);
    const RowsByLabel now_by_label = rows_by_label(now_rows);
    for (auto& c : out) {
        c.grown = grown_bundles(base, base_by_label, now, now_by_label, c, basis);
    }
    std::sort(out.begin(), out.end(), [](const RowChange& a, const RowChange& b) {
        std::int64_t ca = a.change_ns();
        std::int64_t cb = b.change_ns();
        // |change| without overflow: compare magnitudes as unsigned.
        auto mag = [](std::int64_t v) {
            return v < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(v)
                         : static_cast<std::uint64_t>(v);
        };
        if (mag(ca) != mag(cb)) {
            return mag(ca) > mag(cb);
        }
        if (ca != cb) {
            return ca > cb; // growth first
        }
        if (a.new_ns() != b.new_ns()) {
            return a.new_ns() > b.new_ns();
        }
        return a.label < b.label;
    });
    return out;
}

// Why the runs cannot be compared per step; empty when they can.
std::string why_totals(const ProfileReport& base, const ProfileReport& now) {
    bool b = base.steps.spans > 0;
    bool n = now.steps.spans > 0;
    if (!b && !n) {
        return "no step spans in either trace";
    }
    if (!b || !n) {
        return std::string("no step spans in the ") + (b ? "new" : "base") + " trace";
    }
    for (const auto* run : {&base, &now}) {
        if (run->steps.events == 0) {
            return std::string("no kernel event of the ") + (run == &base ? "base" : "new") +
                   " trace starts in one of its step spans";
        }
    }
    return {};
}

RunCompared run_compared(const ProfileReport& r, CompareBasis basis) {
    RunCompared c;
    c.steps = r.steps.spans;
    if (basis != CompareBasis::steps) {
        c.ns = basis == CompareBasis::idle ? r.timeline.idle.ns : r.coverage.kernel_ns;
        c.events = r.coverage.kernel_events;
        return c;
    }
    c.ns = per_step(r.steps.ns, r.steps.spans);
    c.events = r.steps.events;
    c.outside_events = r.steps.outside_events;
    c.outside_ns = r.steps.outside_ns;
    return c;
}

double share(std::uint64_t part, std::uint64_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string ms(std::uint64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
    return buf;
}

} // namespace

std::string RowChange::shown_label() const {
    if (!shown.empty()) {
        return shown;
    }
    if (!moved_from || !line) {
        return label;
    }
    std::string to = std::to_string(line->line);
    if (moved_from->file != line->file) {
        to = line->file + ":" + to;
    }
    return moved_from->label() + " -> " + to;
}

std::int64_t RowChange::change_ns() const {
    std::uint64_t b = base_ns();
    std::uint64_t n = new_ns();
    constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (n >= b) {
        return static_cast<std::int64_t>(std::min(n - b, max));
    }
    return -static_cast<std::int64_t>(std::min(b - n, max));
}

std::optional<double> RowChange::change_percent() const {
    if (!base || base->ns == 0) {
        return std::nullopt;
    }
    return 100.0 * static_cast<double>(change_ns()) / static_cast<double>(base->ns);
}

namespace {

// `path` without its last `n` components: the directory they lie in, with its '/'.
std::string head_of(std::string_view path, std::size_t n) {
    std::size_t end = path.size();
    for (std::size_t i = 0; i < n && end != std::string_view::npos; ++i) {
        end = end == 0 ? std::string_view::npos : path.rfind('/', end - 1);
    }
    return end == std::string_view::npos ? std::string() : std::string(path.substr(0, end + 1));
}

// The checkouts the moved lines show: of each moved line whose paths differ, the directories
// before the components they share; the pair most of them give (then the first in order).
std::optional<Checkouts> checkouts_of(const std::vector<RowChange>& rows) {
    std::map<std::pair<std::string, std::string>, std::size_t> pairs;
    for (const auto& r : rows) {
        if (!r.moved_from || !r.line || r.moved_from->file == r.line->file) {
            continue;
        }
        std::size_t n = shared_tail(r.moved_from->file, r.line->file);
        std::string base = head_of(r.moved_from->file, n);
        std::string now = head_of(r.line->file, n);
        if (n > 0 && !base.empty() && !now.empty() && base != now) {
            ++pairs[{std::move(base), std::move(now)}];
        }
    }
    const std::pair<std::string, std::string>* best = nullptr;
    std::size_t most = 0;
    for (const auto& [pair, count] : pairs) {
        if (count > most) {
            best = &pair;
            most = count;
        }
    }
    return best == nullptr ? std::nullopt : std::optional<Checkouts>({best->first, best->second});
}

// A path from its run's checkout: relative to it when under it, else whole.
std::string from_checkout(const std::string& file, const std::string& root) {
    return file.starts_with(root) && file.size() > root.size() ? file.substr(root.size()) : file;
}

// A row as people read it over two checkouts: each path from its run's checkout; a moved line
// with an arrow only when its path there or its line number changed.
std::string shown_over(const RowChange& r, const Checkouts& co) {
    if (!r.line) {
        return r.label;
    }
    const std::string to = from_checkout(r.line->file, r.is_gone() ? co.base : co.now);
    const std::string number = std::to_string(r.line->line);
    if (!r.moved_from) {
        return to + ":" + number;
    }
    const std::string from = from_checkout(r.moved_from->file, co.base);
    if (from == to) {
        return r.moved_from->line == r.line->line
                   ? to + ":" + number
                   : to + ":" + std::to_string(r.moved_from->line) + " -> " + number;
    }
    return from + ":" + std::to_string(r.moved_from->line) + " -> " + to + ":" + number;
}

} // namespace

std::string_view to_string(CompareBasis b) {
    return b == CompareBasis::steps ? "steps" : b == CompareBasis::idle ? "idle" : "totals";
}

std::string_view compared_quantity(const ProfileComparison& c) {
    return c.basis == CompareBasis::idle ? "idle time" : "device time";
}

ProfileComparison compare_profiles(ProfileReport base, ProfileReport now, bool idle) {
    ProfileComparison c;
    c.basis_note = idle ? "idle time before the activities, over the whole traces"
                        : why_totals(base, now);
    c.basis = idle                     ? CompareBasis::idle
              : c.basis_note.empty() ? CompareBasis::steps
                                     : CompareBasis::totals;
    c.base_run = run_compared(base, c.basis);
    c.new_run = run_compared(now, c.basis);
    // Every ranking of the new run, joined with the base run's of the same row of the table.
    static const std::vector<ProfileRow> none;
    for (const auto& ranking : now.rankings) {
        const Ranking* in_base = base.ranking(*ranking.spec);
        c.rankings.push_back(
            {ranking.spec, join(base, in_base ? in_base->rows : none, now, ranking.rows, c.basis)});
    }
    c.base = std::move(base);
    c.now = std::move(now);
    if (idle || c.base.timeline.shown() || c.now.timeline.shown()) {
        c.steps = StepsCompared{mean_step(c.base.timeline), mean_step(c.now.timeline)};
    }
    if (const auto* lines = &c.rows(ProfileRanking::line); !lines->empty()) {
        c.checkouts = checkouts_of(*lines);
    }
    if (c.checkouts) {
        for (auto& changes : c.rankings) {
            if (changes.spec->kind == RowKind::line) {
                for (auto& r : changes.rows) {
                    r.shown = shown_over(r, *c.checkouts);
                }
            }
        }
    }
    return c;
}

namespace {

// "; kernel K" or "; kernels K1, K2, K3 and N more": what grew.
std::string cause_text(const std::vector<std::string>& grown) {
    if (grown.empty()) {
        return {};
    }
    constexpr std::size_t named = 3;
    std::string out = grown.size() == 1 ? "; kernel " : "; kernels ";
    for (std::size_t i = 0; i < grown.size() && i < named; ++i) {
        out += (i == 0 ? "" : ", ") + grown[i];
    }
    if (grown.size() > named) {
        out += " and " + std::to_string(grown.size() - named) + " more";
    }
    return out;
}

// " and 4 more rows of the same grown kernels (b.py:7, c.py:9, ...)".
std::string also_text(const std::vector<const RowChange*>& also) {
    if (also.empty()) {
        return {};
    }
    constexpr std::size_t named = 5;
    std::string out = " and " + std::to_string(also.size()) + " more row" +
                      (also.size() == 1 ? "" : "s") + " of the same grown kernel (";
    for (std::size_t i = 0; i < also.size() && i < named; ++i) {
        out += (i == 0 ? "" : ", ") + also[i]->label;
    }
    return out + (also.size() > named ? ", ...)" : ")");
}

} // namespace

std::vector<GateFinding> gate_findings(const ProfileComparison& comparison,
                                       const std::vector<RowChange>& rows,
                                       const GateOptions& options) {
    std::vector<GateFinding> out;
    std::map<std::vector<std::string>, std::size_t> by_cause; // grown bundles -> finding
    for (const auto& r : rows) {
        if (r.is_gone() || r.change_ns() <= 0) {
            continue;
        }
        GateFinding f;
        f.row = &r;
        f.base_share = share(r.base_ns(), comparison.base_run.ns);
        f.new_share = share(r.new_ns(), comparison.new_run.ns);
        if (std::max(f.base_share, f.new_share) < options.min_share_percent) {
            continue;
        }
        auto pct = r.change_percent();
        if (pct && *pct <= options.fail_over_percent) {
            continue;
        }
        if (!r.grown.empty()) {
            auto [it, first] = by_cause.try_emplace(r.grown, out.size());
            if (!first) {
                out[it->second].also.push_back(&r);
                continue;
            }
        }
        out.push_back(std::move(f));
    }
    for (auto& f : out) {
        const RowChange& r = *f.row;
        auto pct = r.change_percent();
        char grew[96];
        if (pct) {
            std::snprintf(grew, sizeof grew, "grew by %.1f %%", *pct);
        } else {
            std::snprintf(grew, sizeof grew, "%s", r.is_new() ? "is new" : "grew from 0 ns");
        }
        char shares[96];
        std::snprintf(shares, sizeof shares, ", %.1f %% of the new %s", f.new_share,
                      std::string(compared_quantity(comparison)).c_str());
        f.message = std::string(compared_quantity(comparison)) + " " + grew + " (" +
                    ms(r.base_ns()) + " -> " + ms(r.new_ns()) + shares + "): " + r.label +
                    also_text(f.also) + cause_text(r.grown);
    }
    return out;
}

const std::vector<RowChange>& ProfileComparison::rows(const RankingSpec& spec) const {
    static const std::vector<RowChange> none;
    for (const auto& r : rankings) {
        if (r.spec == &spec) {
            return r.rows;
        }
    }
    return none;
}

const std::vector<RowChange>& ProfileComparison::rows(ProfileRanking r) const {
    return rows(ranking_spec(r));
}

} // namespace sdscprov
