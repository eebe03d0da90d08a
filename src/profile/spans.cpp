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

// A piece begins at `at`, holding what the piece it cuts held.
std::map<std::uint64_t, std::uint32_t>::iterator SpanLog::split(std::uint64_t at) {
    if (!pieces_.empty() && at > pieces_.rbegin()->first) {
        // After every cut so far, as spans mostly come: no search.
        return pieces_.emplace_hint(pieces_.end(), at, pieces_.rbegin()->second);
    }
    auto it = pieces_.upper_bound(at);
    if (it == pieces_.begin()) {
        return pieces_.emplace_hint(it, at, 0);
    }
    auto prev = std::prev(it);
    if (prev->first == at) {
        return prev;
    }
    return pieces_.emplace_hint(it, at, prev->second);
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
    auto first = split(start);
    split(end); // iterators stay valid as the map grows
    for (auto it = first; it != pieces_.end() && it->first < end; ++it) {
        it->second = with(it->second, id);
    }
}

const std::vector<std::uint32_t>* SpanLog::covering(std::uint64_t t) const {
    if (found_.valid && found_.from <= t && t < found_.to) {
        return &sets_[found_.set];
    }
    auto it = pieces_.upper_bound(t);
    if (it == pieces_.begin()) {
        return nullptr;
    }
    const auto piece = std::prev(it);
    found_ = {true, piece->first, it == pieces_.end() ? ~std::uint64_t{0} : it->first,
              piece->second};
    return &sets_[piece->second];
}

bool SpanLog::kept(std::uint64_t t) const {
    if (!filter_) {
        return true;
    }
    const auto* names = covering(t);
    return names != nullptr && std::any_of(names->begin(), names->end(), [this](std::uint32_t id) {
               return rows_[id].matches;
           });
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
