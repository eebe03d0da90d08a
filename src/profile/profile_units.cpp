// The profile's units and names: trace times in nanoseconds, device stages, device time, and the
// names of diagnostics and resolutions (profile.hpp).
#include "profile/digits.hpp"
#include "profile/saturating.hpp"
#include "sdscprov/profile/profile.hpp"

#include <algorithm>
#include <limits>

namespace sdscprov {

// ---- time ---------------------------------------------------------------------------------------

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// The form profilers write: digits, and at most three after a point ("1712.345"): the
// nanoseconds exactly, without rounding, in one pass. false for any other form (a sign, an
// exponent, more fraction digits, over 16 digits before the point), which the general reading
// decides.
bool plain_microseconds(std::string_view t, std::uint64_t& ns) {
    const std::size_t n = t.size();
    if (n == 0 || n > 20) {
        return false;
    }
    std::uint64_t v = 0;
    std::size_t i = 0;
    read_digits(t, i, v, 17); // 17: one too many, turned away below
    std::size_t fraction = 0;
    if (i == 0 || i > 16) {
        return false;
    }
    if (i < n) {
        if (t[i] != '.') {
            return false;
        }
        ++i;
        for (; i < n && is_digit(t[i]) && fraction < 3; ++i, ++fraction) {
            v = v * 10 + static_cast<std::uint64_t>(t[i] - '0');
        }
        if (i != n || fraction == 0) {
            return false;
        }
    }
    for (; fraction < 3; ++fraction) {
        v *= 10;
    }
    ns = v; // under 10^16 * 10^3 (16 digits, 3 more): no overflow
    return v <= max_event_ns;
}

// Any JSON number of microseconds: nanoseconds rounded half away from zero.
std::optional<std::uint64_t> any_microseconds(std::string_view t) {
    std::size_t i = 0;
    bool negative = i < t.size() && t[i] == '-';
    i += negative ? 1 : 0;
    std::size_t int_begin = i;
    while (i < t.size() && is_digit(t[i])) {
        ++i;
    }
    std::size_t int_end = i;
    std::size_t frac_begin = i;
    std::size_t frac_end = i;
    if (i < t.size() && t[i] == '.') {
        frac_begin = ++i;
        while (i < t.size() && is_digit(t[i])) {
            ++i;
        }
        frac_end = i;
    }
    std::int64_t exponent = 0;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        bool exp_negative = i < t.size() && t[i] == '-';
        if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
            ++i;
        }
        if (i == t.size()) {
            return std::nullopt;
        }
        while (i < t.size() && is_digit(t[i])) {
            exponent = std::min<std::int64_t>(exponent * 10 + (t[i] - '0'), 1000000);
            ++i;
        }
        exponent = exp_negative ? -exponent : exponent;
    }
    if (i != t.size() || int_begin == int_end) {
        return std::nullopt; // not a JSON number
    }
    // The value is D * 10^(exponent - fraction digits) microseconds, D the digits without the
    // point; in nanoseconds, D * 10^shift.
    std::size_t int_len = int_end - int_begin;
    std::size_t total = int_len + (frac_end - frac_begin);
    auto digit = [&](std::size_t k) {
        return k < int_len ? t[int_begin + k] : t[frac_begin + (k - int_len)];
    };
    std::size_t lead = 0;
    while (lead < total && digit(lead) == '0') {
        ++lead;
    }
    if (lead == total) {
        return 0; // zero, "-0" included
    }
    if (negative) {
        return std::nullopt;
    }
    std::size_t significant = total - lead;
    std::int64_t shift = exponent - static_cast<std::int64_t>(frac_end - frac_begin) + 3;
    std::int64_t keep = static_cast<std::int64_t>(significant) + shift; // digits before the point
    if (keep > 19) {
        return std::nullopt; // at least 10^19 ns
    }
    if (keep <= 0) {
        // Below one nanosecond: rounds to 1 only from 0.5 (the first dropped digit is the first
        // significant one only when keep is 0).
        return keep == 0 && digit(lead) >= '5' ? 1 : 0;
    }
    std::uint64_t ns = 0;
    for (std::int64_t k = 0; k < keep; ++k) {
        auto index = static_cast<std::size_t>(k);
        ns = ns * 10 +
             (index < significant ? static_cast<std::uint64_t>(digit(lead + index) - '0') : 0);
    }
    auto kept = static_cast<std::size_t>(keep);
    if (kept < significant && digit(lead + kept) >= '5') {
        ++ns; // half away from zero: the first dropped digit decides
    }
    if (ns > max_event_ns) {
        return std::nullopt;
    }
    return ns;
}

} // namespace

std::optional<std::uint64_t> microseconds_to_ns(std::string_view t) {
    if (std::uint64_t ns = 0; plain_microseconds(t, ns)) {
        return ns;
    }
    return any_microseconds(t);
}

bool plain_microseconds_to_ns(std::string_view t, std::uint64_t& ns) {
    // JSON allows no digit after a leading zero ("007"): such a text is not this form.
    if (t.size() > 1 && t[0] == '0' && t[1] != '.') {
        return false;
    }
    return plain_microseconds(t, ns);
}

std::string_view to_string(Stage s) {
    static constexpr std::string_view names[] = {"DMI", "PREP", "CMPT", "DMO"};
    return names[static_cast<std::size_t>(s)];
}

void StageTotals::add(const StageTotals& other) {
    for (std::size_t i = 0; i < stage_count; ++i) {
        ticks[i] = saturating_add(ticks[i], other.ticks[i]);
        events[i] = saturating_add(events[i], other.events[i]);
    }
}

StageTotals stages_of(const std::array<std::uint32_t, 5>& ts) {
    StageTotals s;
    for (std::size_t i = 0; i < stage_count; ++i) {
        if (ts[i] != 0 && ts[i + 1] != 0) {
            s.ticks[i] = static_cast<std::uint32_t>(ts[i + 1] - ts[i]); // modulo 2^32
            s.events[i] = 1;
        }
    }
    return s;
}

void DeviceTime::add(const DeviceTime& other) {
    events = saturating_add(events, other.events);
    ns = saturating_add(ns, other.ns);
    stages.add(other.stages);
    ideal.add(other.ideal);
}

// ---- names --------------------------------------------------------------------------------------

std::string_view to_string(Resolution r) {
    switch (r) {
    case Resolution::sidecar:
        return "sidecar";
    case Resolution::caches:
        return "caches";
    case Resolution::unresolved:
        return "unresolved";
    }
    return "unresolved";
}

std::string SourceLine::label() const {
    return file + ":" + std::to_string(line);
}

} // namespace sdscprov
