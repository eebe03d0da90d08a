#include "sdscprov/profile/spans.hpp"

#include "profile/derived.hpp"
#include "profile/saturating.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/steps.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <span>
#include <tuple>

namespace sdscprov {

std::optional<SpanFilter> SpanFilter::compile(const std::string& pattern, std::string& error) {
    SpanFilter f;
    f.pattern_ = pattern;
    try {
        f.regex_ = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        error = std::string("not a regular expression (ECMAScript): ") + e.what();
        return std::nullopt;
    }
    return f;
}

bool SpanFilter::matches(const std::string& name) const {
    return regex_ && std::regex_search(name, *regex_);
}

bool is_host_span(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns) {
    // The cat first: it turns most events away.
    return cat_kind(e) == CatKind::user_annotation && e.ph_state == FieldState::ok && e.ph == "X" &&
           e.name_state == FieldState::ok && !e.name.empty() &&
           !e.name.starts_with("ProfilerStep#") && interval_of(e, start_ns, end_ns);
}

SpanLog::SpanLog(std::optional<SpanFilter> filter) : filter_(std::move(filter)) {
    if (filter_) {
        sum_.filter = filter_->pattern();
    }
}

std::optional<SpanLog::Place> SpanLog::last_at_or_before(std::uint64_t t) const {
    if (firsts_.empty() || t < firsts_.front()) {
        return std::nullopt;
    }
    // Its chunk: the one found last, the last one (where spans mostly come), else searched.
    const std::size_t n = firsts_.size();
    auto holds = [&](std::size_t c) {
        return c < n && firsts_[c] <= t && (c + 1 == n || t < firsts_[c + 1]);
    };
    std::size_t ci = hint_;
    if (!holds(ci)) {
        ci = t >= firsts_.back()
                 ? n - 1
                 : static_cast<std::size_t>(std::upper_bound(firsts_.begin(), firsts_.end(), t) -
                                            firsts_.begin()) -
                       1;
        hint_ = ci;
    }
    const auto& cuts = chunks_[ci];
    const auto p = std::upper_bound(cuts.begin(), cuts.end(), t,
                                    [](std::uint64_t v, const Cut& x) { return v < x.at; });
    return Place{ci, static_cast<std::size_t>(p - cuts.begin()) - 1}; // its first is at or before t
}

SpanLog::Place SpanLog::split(std::uint64_t at) {
    Place place{0, 0};
    Cut cut{at, 0};
    if (!chunks_.empty() && at > chunks_.back().back().at) {
        // After every cut so far, as spans mostly come: no search.
        place = {chunks_.size() - 1, chunks_.back().size()};
        cut.set = chunks_.back().back().set;
    } else if (auto found = last_at_or_before(at)) {
        const Cut& before = chunks_[found->chunk][found->at];
        if (before.at == at) {
            return *found;
        }
        cut.set = before.set;
        place = {found->chunk, found->at + 1};
    } else if (chunks_.empty()) { // the first cut
        chunks_.emplace_back();
        firsts_.push_back(at);
    }
    auto& cuts = chunks_[place.chunk];
    cuts.insert(cuts.begin() + static_cast<std::ptrdiff_t>(place.at), cut);
    firsts_[place.chunk] = cuts.front().at;
    if (cuts.size() > 2 * chunk) {
        std::vector<Cut> upper(cuts.begin() + chunk, cuts.end());
        cuts.resize(chunk);
        cuts.shrink_to_fit(); // spans mostly come in order: the lower half stays as it is
        const std::uint64_t first = upper.front().at;
        chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(place.chunk) + 1,
                       std::move(upper));
        firsts_.insert(firsts_.begin() + static_cast<std::ptrdiff_t>(place.chunk) + 1, first);
        if (place.at >= chunk) {
            place = {place.chunk + 1, place.at - chunk};
        }
    }
    return place;
}

namespace {

std::size_t mixed(std::uint64_t key) {
    key *= 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(key ^ (key >> 32));
}

} // namespace

std::uint32_t SpanLog::with(std::uint32_t set, std::uint32_t id) {
    const std::uint64_t key = ((std::uint64_t{set} << 32) | id) + 1; // ids are under 2^32 - 1
    if (with_.empty()) {
        with_.resize(1024);
    }
    std::size_t mask = with_.size() - 1;
    std::size_t i = mixed(key) & mask;
    for (; with_[i].first != 0; i = (i + 1) & mask) {
        if (with_[i].first == key) {
            return with_[i].second;
        }
    }
    std::vector<std::uint32_t> names = sets_[set].names;
    if (std::find(names.begin(), names.end(), id) == names.end()) {
        names.insert(std::upper_bound(names.begin(), names.end(), id), id);
    }
    auto [found, added] = set_ids_.try_emplace(names, static_cast<std::uint32_t>(sets_.size()));
    if (added) {
        const bool matches = std::any_of(names.begin(), names.end(),
                                         [this](std::uint32_t n) { return rows_[n].matches; });
        sets_.push_back({std::move(names), matches, {}});
    }
    with_[i] = {key, found->second};
    if (++with_count_ * 2 > with_.size()) { // grown: every entry to its place in twice the room
        std::vector<std::pair<std::uint64_t, std::uint32_t>> old(with_.size() * 2);
        old.swap(with_);
        mask = with_.size() - 1;
        for (const auto& entry : old) {
            if (entry.first != 0) {
                std::size_t j = mixed(entry.first) & mask;
                while (with_[j].first != 0) {
                    j = (j + 1) & mask;
                }
                with_[j] = entry;
            }
        }
    }
    return found->second;
}

namespace {

// A span name's place in SpanLog's cache of names: from its length and its first and last eight
// bytes (names differ mostly at their ends: "launch_jobplan:<kernel>"), not from every byte.
std::size_t cache_place(std::string_view name, std::size_t places) {
    std::uint64_t head = 0;
    std::uint64_t tail = 0;
    const std::size_t n = std::min<std::size_t>(name.size(), 8);
    std::memcpy(&head, name.data(), n);
    std::memcpy(&tail, name.data() + name.size() - n, n);
    // Multiplying moves each byte's bits up, so the place is taken from the top bits.
    std::uint64_t h =
        head * 0x9E3779B97F4A7C15ULL + (tail ^ (tail >> 29)) * 0xC2B2AE3D27D4EB4FULL + name.size();
    h = (h ^ (h >> 32)) * 0xD6E8FEB86659FD93ULL;
    return static_cast<std::size_t>(h >> (64 - std::countr_zero(places)));
}

} // namespace

std::uint32_t SpanLog::name_id(std::string_view name) {
    std::uint32_t& cached = name_cache_[cache_place(name, name_cache_.size())];
    if (cached != 0) {
        const NameKey& key = keys_[cached - 1];
        if (key.size == name.size() &&
            std::memcmp(names_.data() + key.at, name.data(), key.size) == 0) {
            return cached - 1;
        }
    }
    auto at = ids_.find(name);
    if (at == ids_.end()) {
        at = ids_.emplace(std::string(name), static_cast<std::uint32_t>(rows_.size())).first;
        SpanRow row; // named at the end, from names_
        row.matches = filter_ && filter_->matches(at->first);
        rows_.push_back(row);
        keys_.push_back({names_.size(), name.size(), 0});
        names_.append(name);
    }
    cached = at->second + 1;
    return at->second;
}

void SpanLog::event(const TraceEvent& e, std::optional<std::uint64_t> decided_until) {
    std::uint64_t start = 0, end = 0;
    if (!is_host_span(e, start, end)) {
        return;
    }
    ++sum_.spans;
    const std::uint32_t id = name_id(e.name);
    ++keys_[id].occurrences;
    sum_.matching += filter_ && rows_[id].matches ? 1 : 0; // rows_ untouched without --span
    if (decided_until && start <= *decided_until) {
        ++sum_.late;
    }
    if (end <= start) {
        return; // holds no time
    }
    for (Found& found : std::span(found_).first(lanes_used_)) {
        if (start < found.to && found.from < end) {
            found.valid = false; // the piece found last changes (else it stays as it is)
        }
    }
    Place p = split(start);
    const std::size_t chunks = chunks_.size();
    split(end); // after start's cut: its place stays, unless a chunk split
    if (chunks_.size() != chunks) {
        p = *last_at_or_before(start);
    }
    // From the cut at start to the one at end.
    while (chunks_[p.chunk][p.at].at < end) {
        Cut& cut = chunks_[p.chunk][p.at];
        const std::uint32_t from = cut.set;
        if (sets_[from].last_id != id) {
            const std::uint32_t to = with(from, id); // may add a set
            sets_[from].last_id = id;
            sets_[from].last_with = to;
        }
        cut.set = sets_[from].last_with;
        if (++p.at == chunks_[p.chunk].size()) {
            p = {p.chunk + 1, 0}; // the cut at end follows: there is a next chunk
        }
    }
}

std::optional<SpanLog::Place> SpanLog::near_found(const Found& found, std::uint64_t t) const {
    if (!found.place) {
        return std::nullopt;
    }
    Place p = *found.place;
    if (p.chunk >= chunks_.size() || p.at >= chunks_[p.chunk].size() ||
        chunks_[p.chunk][p.at].at != found.from) {
        return std::nullopt; // cuts were made before it: its place moved
    }
    // Back, a few cuts (an activity a little out of order).
    for (int step = 0; chunks_[p.chunk][p.at].at > t; ++step) {
        if (step == near_back || (p.chunk == 0 && p.at == 0)) {
            return std::nullopt;
        }
        p = p.at > 0 ? Place{p.chunk, p.at - 1}
                     : Place{p.chunk - 1, chunks_[p.chunk - 1].size() - 1};
    }
    // On: the cuts are in order in memory, so walking them costs less than a search.
    for (int step = 0; step < near_on; ++step) {
        Place next{p.chunk, p.at + 1};
        if (next.at == chunks_[p.chunk].size()) {
            if (p.chunk + 1 == chunks_.size()) {
                return p; // the last cut
            }
            next = {p.chunk + 1, 0};
        }
        if (chunks_[next.chunk][next.at].at > t) {
            return p;
        }
        p = next;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> SpanLog::covering(std::uint64_t t, std::size_t lane) const {
    const std::size_t at = lane % lanes;
    lanes_used_ = std::max(lanes_used_, at + 1);
    Found& found = found_[at];
    if (found.valid && found.from <= t && t < found.to) {
        return found.set;
    }
    auto place = near_found(found, t);
    if (!place) {
        place = last_at_or_before(t);
    }
    if (!place) {
        return std::nullopt;
    }
    const auto& cuts = chunks_[place->chunk];
    const Cut& cut = cuts[place->at];
    const std::uint64_t to = place->at + 1 < cuts.size()         ? cuts[place->at + 1].at
                             : place->chunk + 1 < chunks_.size() ? firsts_[place->chunk + 1]
                                                                 : ~std::uint64_t{0};
    found = {true, cut.at, to, cut.set, place};
    return cut.set;
}

bool SpanLog::kept(std::uint64_t t, std::size_t lane) const {
    if (!filter_) {
        return true;
    }
    const auto set = covering(t, lane);
    return set && sets_[*set].matches;
}

void SpanLog::add(std::uint64_t t, bool transfer, std::uint64_t ns, const IdleTime& gap,
                  std::size_t lane) {
    ++sum_.kept;
    const auto set = covering(t, lane);
    if (!set) {
        return;
    }
    // Added up per set of names; each name gets the sums of the sets it is in at the end.
    Totals& totals = sets_[*set].totals;
    ++totals.activities;
    if (!transfer) {
        ++totals.kernels;
        totals.kernel_ns = saturating_add(totals.kernel_ns, ns);
    }
    if (gap.gaps != 0) {
        totals.idle.add(gap);
    }
}

SpanSummary SpanLog::finish() {
    for (std::size_t id = 0; id < rows_.size(); ++id) {
        rows_[id].name = names_.substr(keys_[id].at, keys_[id].size);
        rows_[id].occurrences = keys_[id].occurrences;
    }
    std::string().swap(names_);
    for (const NameSet& set : sets_) {
        for (auto id : set.names) {
            SpanRow& row = rows_[id];
            row.activities += set.totals.activities;
            row.kernels += set.totals.kernels;
            row.kernel_ns = saturating_add(row.kernel_ns, set.totals.kernel_ns);
            row.idle.add(set.totals.idle);
        }
    }
    SpanSummary out = std::move(sum_);
    out.rows = std::move(rows_);
    std::sort(out.rows.begin(), out.rows.end(), [](const SpanRow& a, const SpanRow& b) {
        return std::tie(b.kernel_ns, b.activities, a.name) <
               std::tie(a.kernel_ns, a.activities, b.name);
    });
    return out;
}

} // namespace sdscprov
