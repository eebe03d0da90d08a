#include "sdscprov/profile/spans.hpp"

#include "profile/saturating.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/steps.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <iterator>
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
    return e.cat_state == FieldState::ok && e.cat == "user_annotation" &&
           e.ph_state == FieldState::ok && e.ph == "X" && e.name_state == FieldState::ok &&
           !e.name.empty() && !e.name.starts_with("ProfilerStep#") &&
           interval_of(e, start_ns, end_ns);
}

SpanLog::SpanLog(std::optional<SpanFilter> filter) : filter_(std::move(filter)) {
    if (filter_) {
        sum_.filter = filter_->pattern();
    }
}

std::optional<SpanLog::Place> SpanLog::last_at_or_before(std::uint64_t t) const {
    const auto c = std::upper_bound(firsts_.begin(), firsts_.end(), t);
    if (c == firsts_.begin()) {
        return std::nullopt;
    }
    const auto ci = static_cast<std::size_t>(c - firsts_.begin()) - 1;
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

std::uint32_t SpanLog::with(std::uint32_t set, std::uint32_t id) {
    const std::uint64_t key = (std::uint64_t{set} << 32) | id;
    if (auto known = with_.find(key); known != with_.end()) {
        return known->second;
    }
    std::vector<std::uint32_t> names = sets_[set];
    if (std::find(names.begin(), names.end(), id) == names.end()) {
        names.insert(std::upper_bound(names.begin(), names.end(), id), id);
    }
    auto [found, added] = set_ids_.try_emplace(names, static_cast<std::uint32_t>(sets_.size()));
    if (added) {
        sets_.push_back(std::move(names));
    }
    with_.emplace(key, found->second);
    return found->second;
}

void SpanLog::event(const TraceEvent& e, std::optional<std::uint64_t> decided_until) {
    std::uint64_t start = 0, end = 0;
    if (!is_host_span(e, start, end)) {
        return;
    }
    ++sum_.spans;
    auto at = ids_.find(e.name);
    if (at == ids_.end()) {
        std::string name(e.name);
        at = ids_.emplace(name, static_cast<std::uint32_t>(rows_.size())).first;
        SpanRow row;
        row.name = std::move(name);
        row.matches = filter_ && filter_->matches(row.name);
        rows_.push_back(std::move(row));
    }
    const std::uint32_t id = at->second;
    ++rows_[id].occurrences;
    sum_.matching += rows_[id].matches ? 1 : 0;
    if (decided_until && start <= *decided_until) {
        ++sum_.late;
    }
    if (end <= start) {
        return; // holds no time
    }
    found_.valid = false;
    split(start);
    split(end);
    // From the cut at start to the one at end (made above; a chunk may have split since).
    Place p = *last_at_or_before(start);
    while (chunks_[p.chunk][p.at].at < end) {
        Cut& cut = chunks_[p.chunk][p.at];
        cut.set = with(cut.set, id);
        if (++p.at == chunks_[p.chunk].size()) {
            p = {p.chunk + 1, 0}; // the cut at end follows: there is a next chunk
        }
    }
}

const std::vector<std::uint32_t>* SpanLog::covering(std::uint64_t t) const {
    if (found_.valid && found_.from <= t && t < found_.to) {
        return &sets_[found_.set];
    }
    const auto place = last_at_or_before(t);
    if (!place) {
        return nullptr;
    }
    const auto& cuts = chunks_[place->chunk];
    const Cut& cut = cuts[place->at];
    const std::uint64_t to = place->at + 1 < cuts.size()         ? cuts[place->at + 1].at
                             : place->chunk + 1 < chunks_.size() ? firsts_[place->chunk + 1]
                                                                 : ~std::uint64_t{0};
    found_ = {true, cut.at, to, cut.set};
    return &sets_[cut.set];
}

bool SpanLog::kept(std::uint64_t t) const {
    if (!filter_) {
        return true;
    }
    const auto* names = covering(t);
    return names != nullptr && std::any_of(names->begin(), names->end(),
                                           [this](std::uint32_t id) { return rows_[id].matches; });
}

void SpanLog::add(std::uint64_t t, bool transfer, std::uint64_t ns, const IdleTime& gap) {
    ++sum_.kept;
    const auto* names = covering(t);
    if (names == nullptr) {
        return;
    }
    for (auto id : *names) {
        SpanRow& row = rows_[id];
        ++row.activities;
        if (!transfer) {
            ++row.kernels;
            row.kernel_ns = saturating_add(row.kernel_ns, ns);
        }
        row.idle.add(gap);
    }
}

SpanSummary SpanLog::finish() {
    SpanSummary out = std::move(sum_);
    out.rows = std::move(rows_);
    std::sort(out.rows.begin(), out.rows.end(), [](const SpanRow& a, const SpanRow& b) {
        return std::tie(b.kernel_ns, b.activities, a.name) <
               std::tie(a.kernel_ns, a.activities, b.name);
    });
    return out;
}

} // namespace sdscprov
