// Internal: each correlation's earliest launch start, for the timeline (timeline.cpp). A profiler
// numbers its launches in turn, and a device's activities look them up in about that order: the
// launches are kept in one sorted array (16 bytes each, no hashing) and found from where the
// device's last one was. A launch that comes a little out of order (threads launching at once)
// is put in its place among the array's last few; one further out (a hostile trace) is searched
// for in the array and, not there, goes to a hash table, so that no order of launches or look-ups
// costs more than a search each. A correlation is in one of the two only (one given again is
// kept where it is), so a look-up that finds it in the array reads no place of the table: a
// place that is seldom in the cache.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace sdscprov::launch_starts {

// The correlation no launch is kept for: an empty place's mark in the hash table.
inline constexpr std::uint64_t no_correlation = ~std::uint64_t{0};

struct Launch {
    std::uint64_t correlation = no_correlation;
    std::uint64_t start = 0;
};

// Open addressing in one array of 16 bytes a place, at most 70 % full (no allocation a launch).
class Table {
public:
    // The earliest start given for `correlation` (not no_correlation) so far.
    void add(std::uint64_t correlation, std::uint64_t start) {
        if ((count_ + 1) * 10 > places_.size() * 7) {
            grow();
        }
        Launch& p = places_[index_of(correlation)];
        if (p.correlation == no_correlation) {
            p = {correlation, start};
            ++count_;
        } else {
            p.start = std::min(p.start, start);
        }
    }
    std::optional<std::uint64_t> find(std::uint64_t correlation) const {
        if (count_ == 0) {
            return std::nullopt;
        }
        const Launch& p = places_[index_of(correlation)];
        return p.correlation == correlation ? std::optional(p.start) : std::nullopt;
    }

private:
    // Its place, or the empty one where it would go.
    std::size_t index_of(std::uint64_t correlation) const {
        const std::size_t mask = places_.size() - 1;
        std::size_t i =
            static_cast<std::size_t>((correlation * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
        while (places_[i].correlation != no_correlation && places_[i].correlation != correlation) {
            i = (i + 1) & mask;
        }
        return i;
    }
    void grow() {
        std::vector<Launch> old(std::max<std::size_t>(places_.size() * 2, 1024));
        old.swap(places_);
        for (const Launch& p : old) {
            if (p.correlation != no_correlation) {
                places_[index_of(p.correlation)] = p;
            }
        }
    }
    std::vector<Launch> places_;
    std::size_t count_ = 0;
};

class LaunchStarts {
public:
    static constexpr std::size_t lanes = 8; // look-up positions kept, one per device (modulo)

    // The earliest start given for `correlation` so far; no_correlation is not kept.
    void add(std::uint64_t correlation, std::uint64_t start) {
        if (correlation == no_correlation) {
            return;
        }
        if (ordered_.empty() || correlation > ordered_.back().correlation) {
            ordered_.push_back({correlation, start}); // in turn, as mostly
            return;
        }
        // Its place: a few steps back from the end, where a launch that comes a little late goes.
        std::size_t i = ordered_.size();
        for (std::size_t step = 0; i > 0 && step < near && ordered_[i - 1].correlation > correlation;
             ++step) {
            --i;
        }
        if (i > 0 && ordered_[i - 1].correlation == correlation) {
            ordered_[i - 1].start = std::min(ordered_[i - 1].start, start);
        } else if (i == 0 || ordered_[i - 1].correlation < correlation) {
            ordered_.insert(ordered_.begin() + static_cast<std::ptrdiff_t>(i), {correlation, start});
        } else if (Launch* kept = before(correlation, i)) {
            kept->start = std::min(kept->start, start);
        } else {
            others_.add(correlation, start);
        }
    }
    // `lane`: the looking device (any number); each lane's look-ups start where its last ended.
    std::optional<std::uint64_t> find(std::uint64_t correlation, std::size_t lane = 0) const {
        if (correlation == no_correlation) {
            return std::nullopt;
        }
        if (auto start = find_ordered(correlation, cursor_[lane % lanes])) {
            return start;
        }
        return others_.find(correlation);
    }

private:
    static constexpr std::size_t near = 8; // the last places a launch is put in

    // Its place among ordered_'s first `n`, else nullptr.
    Launch* before(std::uint64_t correlation, std::size_t n) {
        const auto end = ordered_.begin() + static_cast<std::ptrdiff_t>(n);
        const auto at = std::lower_bound(
            ordered_.begin(), end, correlation,
            [](const Launch& l, std::uint64_t c) { return l.correlation < c; });
        return at != end && at->correlation == correlation ? &*at : nullptr;
    }

    // In ordered_, from `at` (the lane's last place, moved to the one found): a few steps on
    // from it, else a search from there, or before it when the correlation is before it.
    std::optional<std::uint64_t> find_ordered(std::uint64_t correlation, std::size_t& at) const {
        const auto before = [](const Launch& l, std::uint64_t c) { return l.correlation < c; };
        const std::size_t n = ordered_.size();
        const auto first = ordered_.begin();
        std::size_t i = 0;
        if (at < n && ordered_[at].correlation <= correlation) {
            i = at;
            for (int step = 0; i < n && ordered_[i].correlation < correlation && step < 8; ++step) {
                ++i;
            }
            if (i < n && ordered_[i].correlation < correlation) {
                i = static_cast<std::size_t>(
                    std::lower_bound(first + static_cast<std::ptrdiff_t>(i), ordered_.end(),
                                     correlation, before) -
                    first);
            }
        } else {
            const auto last = first + static_cast<std::ptrdiff_t>(std::min(at, n));
            i = static_cast<std::size_t>(std::lower_bound(first, last, correlation, before) -
                                         first);
        }
        if (i == n || ordered_[i].correlation != correlation) {
            return std::nullopt;
        }
        at = i;
        return ordered_[i].start;
    }

    std::vector<Launch> ordered_; // increasing correlations
    Table others_;
    mutable std::array<std::size_t, lanes> cursor_{};
};

} // namespace sdscprov::launch_starts
