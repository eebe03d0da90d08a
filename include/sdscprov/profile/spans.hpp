// Host spans: the record_function spans of the host (complete events of cat "user_annotation" with
// a name, ProfilerStep#N aside: those are steps), and what the device did for each. docs/profile.md
// states the rules; in short:
//  - an activity is in a span when its launch's start (timeline.hpp), else its own start, lies in
//    [ts, ts + dur); spans nest, and an activity counts for every span name that holds it (once
//    per name, however many occurrences of it hold it);
//  - per span name: its occurrences, the kernel time and activities in it, and the gaps charged to
//    them (IdleTime);
//  - `--span REGEX` (SpanFilter): only the activities in a span whose name matches (ECMAScript,
//    searched anywhere in the name) count, in every ranking, the utilization and the timeline.
// cpu_op events are not spans here: torch.profiler writes the CPU's ATen ops under that cat.
#pragma once

#include "sdscprov/profile/timeline.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sdscprov {

struct TraceEvent;

// `--span REGEX`, compiled once.
class SpanFilter {
public:
    // nullopt, with why in `error`, when `pattern` is not an ECMAScript regular expression.
    static std::optional<SpanFilter> compile(const std::string& pattern, std::string& error);
    const std::string& pattern() const { return pattern_; }
    bool matches(const std::string& name) const;

private:
    std::string pattern_;
    std::shared_ptr<const std::regex> regex_;
};

// One span name: its occurrences and what the activities in them add up to.
struct SpanRow {
    std::string name;
    std::uint64_t occurrences = 0;
    bool matches = false;         // with --span: the name matches it
    std::uint64_t activities = 0; // device activities in it (kernels and transfers)
    std::uint64_t kernels = 0;
    std::uint64_t kernel_ns = 0; // its kernels' durations, summed
    IdleTime idle;               // the gaps charged to its activities
};

struct SpanSummary {
    std::optional<std::string> filter; // --span's pattern
    std::uint64_t spans = 0;           // host span occurrences read
    std::uint64_t matching = 0;        // of them, whose name matches --span
    std::uint64_t seen = 0;            // device activities with a usable ts and dur
    std::uint64_t kept = 0;            // of them, in a matching span (all, without --span)
    std::uint64_t late = 0;    // spans that came after an activity at or after their start had been
                               // counted: they may miss activities (docs/profile.md, Memory)
    std::vector<SpanRow> rows; // by kernel time, then activities, then name
    bool shown() const { return spans > 0 || filter.has_value(); }
    bool nothing_kept() const { return filter.has_value() && kept == 0; }
};

// Whether `e` is a host span; its [start, end) in ns when it is.
bool is_host_span(const TraceEvent& e, std::uint64_t& start_ns, std::uint64_t& end_ns);

// The spans of a trace as it is read, and the figures of the activities in them. Memory grows with
// the span occurrences and how deeply they overlap, never with the device activities: the time
// axis is cut where a span starts or ends, and each piece refers to one set of names, each set
// kept once however many pieces share it.
class SpanLog {
public:
    explicit SpanLog(std::optional<SpanFilter> filter = std::nullopt);

    // A complete event: a host span is kept, anything else ignored. `decided_until`: the latest
    // time an activity was already counted at (a span starting at or before it came late).
    void event(const TraceEvent& e, std::optional<std::uint64_t> decided_until);
    bool filtering() const { return filter_.has_value(); }
    // Whether an activity at `t` counts: in a matching span, or any with no filter. `lane`: the
    // activity's device (any number; lanes kept apart find their pieces faster, as each lane's
    // activities come in about the order of their times).
    bool kept(std::uint64_t t, std::size_t lane = 0) const;
    // A device activity at `t` that counts: added to every span name that holds it.
    void add(std::uint64_t t, bool transfer, std::uint64_t ns, const IdleTime& gap,
             std::size_t lane = 0);
    void seen() { ++sum_.seen; }

    SpanSummary finish();

private:
    // The set of names (an index into sets_) of the piece holding `t`; none before every cut.
    std::optional<std::uint32_t> covering(std::uint64_t t, std::size_t lane) const;
    // Where a cut is: its chunk and its place in it.
    struct Place {
        std::size_t chunk;
        std::size_t at;
    };
    // The last cut at or before `t`; none when every cut is after it.
    std::optional<Place> last_at_or_before(std::uint64_t t) const;
    // The cut at `at`, made (the piece it cuts in two holds the same names on both sides) when
    // there is none.
    Place split(std::uint64_t at);
    // The set of `set`'s names and `id`.
    std::uint32_t with(std::uint32_t set, std::uint32_t id);

    std::optional<SpanFilter> filter_;
    // Looked up by the event's name as it is (a string_view), without a copy per occurrence.
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> ids_;
    // A name's id, looked up in name_cache_ first (1 + the id of the name last seen at its place;
    // 0: none), then in ids_; a new name gets a row.
    std::uint32_t name_id(std::string_view name);
    std::vector<std::uint32_t> name_cache_ = std::vector<std::uint32_t>(16384, 0); // a power of two
    // What a span occurrence reads of its name, by id, apart from rows_ (named and read at the
    // end): the name's bytes in names_, next to the other names', and its occurrences so far.
    struct NameKey {
        std::size_t at; // in names_
        std::size_t size;
        std::uint64_t occurrences;
    };
    std::vector<NameKey> keys_;
    std::string names_;
    std::vector<SpanRow> rows_;
    // The time axis cut where a span starts or ends: each cut's time and the set of span names
    // that hold the piece from it to the next cut (an index into sets_), in order, in chunks of
    // at most 2 * chunk cuts (each sorted and before the next; firsts_: each one's first time).
    // A cut is found and made in O(log n + chunk), with 16 bytes a cut and no allocation of its
    // own, however the spans come.
    struct Cut {
        std::uint64_t at;
        std::uint32_t set;
    };
    static constexpr std::size_t chunk = 256;
    std::vector<std::vector<Cut>> chunks_;
    std::vector<std::uint64_t> firsts_;
    mutable std::size_t hint_ = 0; // the chunk last_at_or_before() found last
    // The piece covering() found last for a lane (its device's number modulo the lanes),
    // [from, to) and its set (a device's activities come in about the order of their times);
    // forgotten when a span changes the pieces.
    // Its cut's place is kept too (still its place while the cut there is at `from`): the next
    // activity's piece is looked for up to near_on cuts on from it (or near_back back) before it
    // is searched.
    struct Found {
        bool valid = false;
        std::uint64_t from = 0;
        std::uint64_t to = 0;
        std::uint32_t set = 0;
        std::optional<Place> place;
    };
    static constexpr std::size_t lanes = 8;
    mutable std::array<Found, lanes> found_;
    mutable std::size_t lanes_used_ = 1; // the lanes found_ holds pieces of (from 0)
    static constexpr int near_on = 64;
    static constexpr int near_back = 8;
    std::optional<Place> near_found(const Found& found, std::uint64_t t) const;
    // The sets of names pieces refer to (the first: none), each with what the activities in its
    // pieces add up to (each of its names gets that at the end: one sum an activity, however
    // many names hold it); a set with one more name by the set's index and the name's; each set's
    // index by its names.
    struct Totals {
        std::uint64_t activities = 0;
        std::uint64_t kernels = 0;
        std::uint64_t kernel_ns = 0;
        IdleTime idle;
    };
    struct NameSet {
        std::vector<std::uint32_t> names; // sorted
        bool matches = false;             // one of them matches --span
        Totals totals;
        // with()'s last answer from this set: a name's spans mostly come inside the same ones.
        std::uint32_t last_id = ~std::uint32_t{0};
        std::uint32_t last_with = 0;
    };
    std::vector<NameSet> sets_{NameSet{}};
    // with()'s answers by (set << 32 | name) + 1 (0: an empty place), open addressing, at most
    // half full.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> with_;
    std::size_t with_count_ = 0;
    std::map<std::vector<std::uint32_t>, std::uint32_t> set_ids_{{{}, 0}};
    SpanSummary sum_;
};

} // namespace sdscprov
