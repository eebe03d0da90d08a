#include "sdscprov/profile/ranks.hpp"

#include "core/sha256.hpp"
#include "profile/aggregation.hpp"
#include "profile/saturating.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace sdscprov {

namespace {

// Each field ends with a NUL (no field holds one), each record with a newline.
void field(std::string& text, std::string_view value) {
    text.append(value);
    text += '\0';
}

} // namespace

std::string pairing_digest(const PairingSources& sources) {
    std::string text = "sidecars\n";
    for (const auto& doc : sources.sidecars) {
        for (const auto& [key, identity] : doc.identities) {
            field(text, key);
            field(text, identity.event_name_base);
            for (const auto& id : identity.direct_handle_ids) {
                field(text, id);
            }
            text += '\n';
        }
        for (const auto& [id, handle] : doc.handles) {
            field(text, id);
            for (const auto& fused : handle.fused_ids) {
                field(text, fused);
            }
            text += '\n';
        }
        for (const auto& [name, occurrence] : doc.occurrences) {
            field(text, name);
            field(text, occurrence.identity_key);
            field(text, occurrence.kernel_name);
            text += '\n';
        }
        text += "--\n";
    }
    text += "caches\n";
    std::vector<const std::pair<const std::string, IndexedHandle>*> handles;
    for (const auto& entry : sources.caches.handles) {
        handles.push_back(&entry);
    }
    std::sort(handles.begin(), handles.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* entry : handles) {
        field(text, entry->first);
        for (auto dir : entry->second.dirs) {
            field(text, dir < sources.caches.dirs.size()
                            ? std::string(base_name(sources.caches.dirs[dir].path))
                            : std::string());
        }
        text += '\n';
    }
    return "sha256:" + sha256_hex(text);
}

RankSpread rank_spread(const std::vector<std::uint64_t>& rank_ns) {
    RankSpread s;
    for (std::size_t i = 0; i < rank_ns.size(); ++i) {
        if (i == 0 || rank_ns[i] > s.max_ns) {
            s.max_ns = rank_ns[i];
            s.slowest = i;
        }
        if (i == 0 || rank_ns[i] < s.min_ns) {
            s.min_ns = rank_ns[i];
            s.fastest = i;
        }
    }
    if (s.min_ns > 0) {
        s.ratio = static_cast<double>(s.max_ns) / static_cast<double>(s.min_ns);
    }
    return s;
}

std::vector<std::uint64_t> rank_totals(const ProfileReport& report) {
    std::vector<std::uint64_t> out;
    for (const auto& r : report.ranks) {
        out.push_back(r.kernel_ns);
    }
    return out;
}

namespace {

// A report's traces, as ranks (one for a single trace's report).
std::vector<ProfileRank> ranks_of(const ProfileReport& r) {
    if (!r.ranks.empty()) {
        return r.ranks;
    }
    ProfileRank rank;
    rank.distributed_rank = r.distributed_rank;
    rank.trace = r.trace;
    rank.gzip = r.gzip;
    rank.trace_bytes = r.trace_bytes;
    rank.trace_events = r.coverage.trace_events;
    rank.kernel_events = r.coverage.kernel_events;
    rank.kernel_ns = r.coverage.kernel_ns;
    return {rank};
}

// Every report's ranks in one order; columns[k][c]: where report k's c-th rank went.
struct RankOrder {
    std::vector<ProfileRank> ranks;
    std::vector<std::vector<std::size_t>> columns;
    bool by_argument = false;
};

RankOrder order_ranks(const std::vector<ProfileReport>& reports) {
    RankOrder o;
    std::vector<std::pair<std::size_t, std::size_t>> from; // (report, its rank)
    for (std::size_t k = 0; k < reports.size(); ++k) {
        auto ranks = ranks_of(reports[k]);
        o.columns.emplace_back(ranks.size());
        for (std::size_t c = 0; c < ranks.size(); ++c) {
            o.ranks.push_back(std::move(ranks[c]));
            from.emplace_back(k, c);
        }
    }
    std::set<std::int64_t> seen;
    for (const auto& r : o.ranks) {
        if (!r.distributed_rank || !seen.insert(*r.distributed_rank).second) {
            o.by_argument = true;
        }
    }
    std::vector<std::size_t> order(o.ranks.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    if (!o.by_argument) {
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return *o.ranks[a].distributed_rank < *o.ranks[b].distributed_rank;
        });
    }
    std::vector<ProfileRank> sorted;
    for (std::size_t i = 0; i < order.size(); ++i) {
        auto [k, c] = from[order[i]];
        o.columns[k][c] = i;
        sorted.push_back(std::move(o.ranks[order[i]]));
        sorted.back().rank =
            o.by_argument ? static_cast<std::int64_t>(i) : *sorted.back().distributed_rank;
    }
    o.ranks = std::move(sorted);
    return o;
}

void add_ranks(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& stored,
               std::uint64_t ns, const std::vector<std::size_t>& columns) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
        std::uint64_t v = stored.empty() ? ns : (c < stored.size() ? stored[c] : 0);
        into[columns[c]] = saturating_add(into[columns[c]], v);
    }
}

// The bundles of every report added up by identity (a paired bundle's key; an unpaired group's
// key, name and reason), sorted and labelled as one run's; where[k][j]: report k's bundle j.
struct MergedBundles {
    std::vector<ProfileBundle> bundles;
    std::vector<std::vector<std::uint32_t>> where;
};

MergedBundles merge_bundles(const std::vector<ProfileReport>& reports, const RankOrder& order) {
    using Identity = std::tuple<bool, std::string, std::string, int>;
    std::map<Identity, std::uint32_t> found;
    MergedBundles m;
    for (std::size_t k = 0; k < reports.size(); ++k) {
        m.where.emplace_back();
        for (const auto& b : reports[k].bundles) {
            bool paired = b.resolution != Resolution::unresolved;
            Identity id{paired, b.key, paired ? std::string() : b.event_name,
                        b.reason ? static_cast<int>(*b.reason) : -1};
            auto [it, added] = found.emplace(id, static_cast<std::uint32_t>(m.bundles.size()));
            if (added) {
                m.bundles.push_back(b);
                m.bundles.back().time = {};
                m.bundles.back().rank_ns.assign(order.ranks.size(), 0);
            }
            ProfileBundle& into = m.bundles[it->second];
            into.time.add(b.time);
            add_ranks(into.rank_ns, b.rank_ns, b.time.ns, order.columns[k]);
            m.where.back().push_back(it->second);
        }
    }
    std::vector<std::uint32_t> sorted(m.bundles.size());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) {
        sorted[i] = i;
    }
    std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t x, std::uint32_t y) {
        const auto& a = m.bundles[x];
        const auto& b = m.bundles[y];
        if (a.time.ns != b.time.ns || a.time.events != b.time.events) {
            return heavier(a.time, b.time);
        }
        return std::tie(a.key, a.event_name, a.reason) < std::tie(b.key, b.event_name, b.reason);
    });
    std::vector<std::uint32_t> place(sorted.size());
    std::vector<ProfileBundle> bundles;
    for (std::uint32_t i = 0; i < sorted.size(); ++i) {
        place[sorted[i]] = i;
        bundles.push_back(std::move(m.bundles[sorted[i]]));
    }
    for (auto& w : m.where) {
        for (auto& i : w) {
            i = place[i];
        }
    }
    m.bundles = std::move(bundles);
    ProfileBuilder::label_bundles(m.bundles);
    return m;
}

// Each row's time per rank: the sum of its bundles' (a row's time is its bundles').
void rank_rows(std::vector<ProfileRow>& rows, const std::vector<ProfileBundle>& bundles,
               std::size_t ranks) {
    for (auto& row : rows) {
        row.rank_ns.assign(ranks, 0);
        for (auto b : row.bundles) {
            for (std::size_t c = 0; c < ranks && b < bundles.size(); ++c) {
                row.rank_ns[c] = saturating_add(row.rank_ns[c], bundles[b].rank_ns[c]);
            }
        }
    }
}

void add_coverage(ProfileCoverage& into, const ProfileCoverage& c) {
    into.trace_events = saturating_add(into.trace_events, c.trace_events);
    into.kernel_events = saturating_add(into.kernel_events, c.kernel_events);
    into.resolved_events = saturating_add(into.resolved_events, c.resolved_events);
    into.kernel_ns = saturating_add(into.kernel_ns, c.kernel_ns);
    into.resolved_ns = saturating_add(into.resolved_ns, c.resolved_ns);
    into.unmeasured_events = saturating_add(into.unmeasured_events, c.unmeasured_events);
    into.counters_failed_events =
        saturating_add(into.counters_failed_events, c.counters_failed_events);
}

// The bundle counts of the coverage and of the ideal, counted again over the merged bundles.
void count_bundles(ProfileReport& r) {
    auto& c = r.coverage;
    c.paired_bundles = c.dirless_bundles = c.dirless_events = c.dirless_ns = 0;
    r.ideal.bundles_with_ideal = r.ideal.bundles_without_ideal = 0;
    for (const auto& b : r.bundles) {
        if (b.resolution == Resolution::unresolved) {
            continue;
        }
        ++c.paired_bundles;
        ++(b.ideal ? r.ideal.bundles_with_ideal : r.ideal.bundles_without_ideal);
        if (b.kernel_dirs.empty()) {
            ++c.dirless_bundles;
            c.dirless_events = saturating_add(c.dirless_events, b.time.events);
            c.dirless_ns = saturating_add(c.dirless_ns, b.time.ns);
        }
    }
}

// Directory counts are each run's own: the largest of any one, not a sum of reads of the same
// directories.
void add_ideal(IdealSummary& into, const IdealSummary& s) {
    into.dirs_read = std::max(into.dirs_read, s.dirs_read);
    into.dirs_by_total = std::max(into.dirs_by_total, s.dirs_by_total);
    into.dirs_by_sum = std::max(into.dirs_by_sum, s.dirs_by_sum);
    into.dirs_malformed = std::max(into.dirs_malformed, s.dirs_malformed);
    into.dirs_absent = std::max(into.dirs_absent, s.dirs_absent);
    into.time.add(s.time);
    for (const auto& m : s.other_members) {
        if (std::find(into.other_members.begin(), into.other_members.end(), m) ==
            into.other_members.end()) {
            into.other_members.push_back(m);
        }
    }
}

template <class T> void add_unique(std::vector<T>& into, const std::vector<T>& items) {
    for (const auto& item : items) {
        if (std::find(into.begin(), into.end(), item) == into.end()) {
            into.push_back(item);
        }
    }
}

bool same_problem(const Problem& a, const Problem& b) {
    return a.path == b.path && a.pos.line == b.pos.line && a.pos.col == b.pos.col &&
           a.severity == b.severity && a.code == b.code && a.message == b.message;
}

// Handles, diagnostics (by rank, then first event), problems (each once), sidecars, caches and
// the source files not read.
void merge_lists(ProfileReport& out, const std::vector<ProfileReport>& reports) {
    std::map<std::string, DebugHandle> handles;
    std::map<std::string, std::size_t> rank_of;
    for (std::size_t i = 0; i < out.ranks.size(); ++i) {
        rank_of.emplace(out.ranks[i].trace, i);
    }
    for (const auto& r : reports) {
        for (const auto& h : r.handles) {
            handles.try_emplace(h.id, h);
        }
        out.diagnostics.insert(out.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
        for (const auto& p : r.problems) {
            if (std::none_of(out.problems.begin(), out.problems.end(),
                             [&](const Problem& q) { return same_problem(p, q); })) {
                out.problems.push_back(p);
            }
        }
        add_unique(out.sidecars, r.sidecars);
        add_unique(out.caches, r.caches);
        out.source_text.merge(r.source_text);
    }
    for (auto& [id, h] : handles) {
        out.handles.push_back(std::move(h));
    }
    std::sort(out.handles.begin(), out.handles.end(),
              [](const DebugHandle& a, const DebugHandle& b) {
                  return a.id.size() != b.id.size() ? a.id.size() < b.id.size() : a.id < b.id;
              });
    auto rank = [&](const Problem& d) {
        auto it = rank_of.find(d.path);
        return it == rank_of.end() ? out.ranks.size() : it->second;
    };
    std::stable_sort(out.diagnostics.begin(), out.diagnostics.end(),
                     [&](const Problem& a, const Problem& b) { return rank(a) < rank(b); });
}

std::optional<std::string> refusal_of(const std::vector<ProfileReport>& reports) {
    for (std::size_t k = 1; k < reports.size(); ++k) {
        const auto& a = reports.front();
        const auto& b = reports[k];
        if (a.sources_digest != b.sources_digest) {
            return "the reports of " + quote_path(ranks_of(a).front().trace) + " and " +
                   quote_path(ranks_of(b).front().trace) +
                   " were paired with other caches or sidecars (sources " +
                   (a.sources_digest.empty() ? "unknown" : a.sources_digest) + " and " +
                   (b.sources_digest.empty() ? "unknown" : b.sources_digest) +
                   "): merge only reports of one compile's caches";
        }
        if (a.ideal.core_mhz != b.ideal.core_mhz) {
            return "the reports of " + quote_path(ranks_of(a).front().trace) + " and " +
                   quote_path(ranks_of(b).front().trace) + " use other core clocks (" +
                   std::to_string(a.ideal.core_mhz) + " and " + std::to_string(b.ideal.core_mhz) +
                   " MHz): profile them with the same --core-mhz";
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<ProfileReport> merge_profiles(std::vector<ProfileReport> reports,
                                            std::optional<Problem>& refusal) {
    if (auto refused = refusal_of(reports)) {
        refusal = make_problem("", {}, ProblemCode::merge_refused, std::move(*refused));
        return std::nullopt;
    }
    RankOrder order = order_ranks(reports);
    if (order.ranks.size() == 1) {
        return std::move(reports.front());
    }
    ProfileReport out;
    out.sources_digest = reports.empty() ? std::string() : reports.front().sources_digest;
    out.ranks_by_argument = order.by_argument;
    out.ranks = order.ranks;
    for (const auto& r : out.ranks) {
        out.trace += (out.trace.empty() ? "" : ", ") + r.trace;
        out.trace_bytes = saturating_add(out.trace_bytes, r.trace_bytes);
    }
    out.ideal.core_mhz = reports.front().ideal.core_mhz;
    for (const auto& r : reports) {
        add_coverage(out.coverage, r.coverage);
        out.stages.add(r.stages);
        add_ideal(out.ideal, r.ideal);
    }
    MergedBundles m = merge_bundles(reports, order);
    out.bundles = std::move(m.bundles);
    // The rows again over the summed bundles, by the rankings the reports have; a source line's
    // text as a report read it (the traces may have been profiled on other machines).
    std::map<SourceLine, std::string> texts;
    for (const auto& r : reports) {
        for (const auto& ranking : r.rankings) {
            for (const auto& row : ranking.rows) {
                if (row.line && row.text) {
                    texts.try_emplace(*row.line, *row.text);
                }
            }
        }
    }
    out.rankings.clear();
    for (const auto& ranking : reports.front().rankings) {
        auto rows = ranking_rows(*ranking.spec, out.bundles,
                                 [&texts](const SourceLine& line) -> std::optional<std::string> {
                                     auto it = texts.find(line);
                                     return it == texts.end() ? std::nullopt
                                                              : std::optional(it->second);
                                 });
        rank_rows(rows, out.bundles, out.ranks.size());
        out.rankings.push_back({ranking.spec, std::move(rows)});
    }
    count_bundles(out);
    merge_lists(out, reports);
    return out;
}

} // namespace sdscprov
