#include "sdscprov/profile/timeline.hpp"

#include "profile/derived.hpp"
#include "profile/launch_starts.hpp"
#include "profile/saturating.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/spans.hpp"
#include "sdscprov/profile/steps.hpp"
#include "sdscprov/profile/trace.hpp"

#include <algorithm>
#include <charconv>
#include <compare>
#include <iterator>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace sdscprov {

namespace {

std::optional<std::uint64_t> start_of(const TraceEvent& e) {
    return event_ts_ns(e);
}

// A union of intervals given in start order (one given out of it widens the last one).
struct Union {
    std::uint64_t closed = 0; // of the intervals before the open one
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    bool open = false;

    void add(std::uint64_t s, std::uint64_t e) {
        if (open && s <= end) {
            start = std::min(start, s);
            end = std::max(end, e);
            return;
        }
        if (open) {
            closed += end - start;
        }
        start = s;
        end = e;
        open = true;
    }
    std::uint64_t length() const { return closed + (open ? end - start : 0); }
};

} // namespace

void IdleTime::add(const IdleTime& other) {
    gaps += other.gaps;
    ns = saturating_add(ns, other.ns);
    host_wait_ns = saturating_add(host_wait_ns, other.host_wait_ns);
    launch_latency_ns = saturating_add(launch_latency_ns, other.launch_latency_ns);
    unattributed_ns = saturating_add(unattributed_ns, other.unattributed_ns);
}

void StepBundleTime::add(const StepBundleTime& other) {
    events += other.events;
    ns = saturating_add(ns, other.ns);
    idle_ns = saturating_add(idle_ns, other.idle_ns);
}

namespace {

// The k-th smallest of `part` (reordered so that it is at k).
template <class T>
std::uint64_t select_nth(std::vector<T>& part, std::size_t k) {
    auto at = part.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(part.begin(), at, part.end());
    return *at;
}

// The largest of `part`'s first k (k > 0).
template <class T>
std::uint64_t max_before(const std::vector<T>& part, std::size_t k) {
    return *std::max_element(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(k));
}

// The median of `low` and `high` taken together (both reordered), every value of `high` above
// every value of `low`: each middle value is looked for in its own part alone.
template <class Low, class High>
std::uint64_t median_of_parts(std::vector<Low>& low, std::vector<High>& high) {
    const std::size_t n = low.size() + high.size();
    if (n == 0) {
        return 0;
    }
    const std::size_t mid = n / 2;
    const bool in_low = mid < low.size();
    const std::size_t k = in_low ? mid : mid - low.size();
    const std::uint64_t upper = in_low ? select_nth(low, k) : select_nth(high, k);
    if (n % 2 == 1) {
        return upper;
    }
    // The one below: before it in its own part, else (the first of high) the largest of low.
    const std::uint64_t lower = in_low  ? max_before(low, k)
                                : k > 0 ? max_before(high, k)
                                        : max_before(low, low.size());
    return lower + (upper - lower) / 2;
}

} // namespace

std::uint64_t median_of(std::vector<std::uint64_t>& values) {
    std::vector<std::uint64_t> none;
    return median_of_parts(values, none);
}

void DelayValues::append(const DelayValues& other) {
    small_.insert(small_.end(), other.small_.begin(), other.small_.end());
    large_.insert(large_.end(), other.large_.begin(), other.large_.end());
}

std::uint64_t DelayValues::median() {
    return median_of_parts(small_, large_);
}

void DelayValues::release() {
    std::vector<std::uint32_t>().swap(small_);
    std::vector<std::uint64_t>().swap(large_);
}

std::optional<ActivityKind> activity_kind(const TraceEvent& e) {
    switch (cat_kind(e)) {
    case CatKind::kernel:
        return ActivityKind::kernel;
    case CatKind::transfer:
        return ActivityKind::transfer;
    default:
        return std::nullopt;
    }
}

// ---- the log ------------------------------------------------------------------------------------

namespace {

struct Span {
    std::uint64_t start;
    std::uint64_t end;
    std::uint64_t number; // N of ProfilerStep#N
    auto operator<=>(const Span&) const = default;
};

// What a step (or the activities in no step) adds up as its activities leave their window.
struct StepAcc {
    StepTimeline fig;
    // Per device (by its index): the union of its kernels' intervals, and of its kernels' and
    // transfers'.
    std::vector<std::pair<Union, Union>> unions;
    DelayValues delays;
    std::uint64_t activities = 0;
    // Per slot: its kernels' count, device time and the gaps before them (bundle_at: 1 + the
    // slot's place in bundles, 0 for none).
    std::vector<StepBundleTime> bundles;
    std::vector<std::uint32_t> bundle_at;

    StepBundleTime& bundle(std::uint32_t slot) {
        if (slot >= bundle_at.size()) {
            bundle_at.resize(slot + 1, 0);
        }
        if (bundle_at[slot] == 0) {
            bundles.push_back({slot, 0, 0, 0});
            bundle_at[slot] = static_cast<std::uint32_t>(bundles.size());
        }
        return bundles[bundle_at[slot] - 1];
    }
};

// A kernel's queue delay as it comes, in one number: none (args.queued or args.submitted not
// given, or 0), not consistent with its ts (not queued <= submitted <= start), else its start
// minus submitted (below both marks: a start is at most max_event_ns).
constexpr std::uint64_t no_queue = ~std::uint64_t{0};
constexpr std::uint64_t queue_inconsistent = no_queue - 1;

std::uint64_t queue_delay(std::uint64_t queued, std::uint64_t submitted, std::uint64_t start) {
    if (queued == 0 || submitted == 0) {
        return no_queue;
    }
    return queued <= submitted && submitted <= start ? start - submitted : queue_inconsistent;
}

// An activity waiting in its device's window: a cache line.
struct alignas(64) Pending {
    std::uint64_t start;
    std::uint64_t end;
    std::uint64_t correlation;
    std::uint64_t bytes;
    std::uint64_t tag;   // TimelineLog::time_each()'s, else no_tag
    std::uint64_t queue; // a kernel's queue_delay(), else no_queue
    std::uint32_t slot;
    std::uint32_t epoch;    // of its slot when it came (moved())
    std::uint32_t deferred; // TimelineLog::filter()'s index, else no_slot
    bool transfer;
};
static_assert(sizeof(Pending) == 64);

// The window's order: by start, then end (Window::insert() keeps those alike in arrival order).
bool before(const Pending& a, const Pending& b) {
    return std::tie(a.start, a.end) < std::tie(b.start, b.end);
}

// How far behind the front of a window its activities are asked into the cache.
constexpr std::size_t prefetch_ahead = 8;

// A device's activities not yet counted, sorted by before(). They come nearly in start order,
// so most go to the back. A ring of places that grows to the window's size and no further: no
// allocation and no copy of the rest per activity.
class Window {
public:
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const Pending& front() const { return ring_[head_]; }
    // The front leaves; the one `ahead` places behind it is asked into the cache (a full window
    // was written long ago: each activity that leaves would wait for its line).
    void pop_front(std::size_t ahead) {
        head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
        --size_;
        if (ahead < size_) {
            std::size_t j = head_ + ahead;
            __builtin_prefetch(&ring_[j >= ring_.size() ? j - ring_.size() : j]);
        }
    }
    // Its place, found from the back (after those alike in before()'s order): a few steps for an
    // activity that came a little late. The ring grows to at most `most` places (more when it
    // holds that many already).
    void insert(const Pending& p, std::size_t most) {
        if (size_ == ring_.size()) {
            grow(most);
        }
        std::size_t i = size_;
        for (; i != 0 && before(p, at(i - 1)); --i) {
            at(i) = at(i - 1);
        }
        at(i) = p;
        ++size_;
    }

private:
    Pending& at(std::size_t i) {
        const std::size_t j = head_ + i;
        return ring_[j >= ring_.size() ? j - ring_.size() : j];
    }
    void grow(std::size_t most) {
        const std::size_t twice = std::max<std::size_t>(16, 2 * ring_.size());
        std::vector<Pending> bigger(std::max(size_ + 1, std::min(twice, most)));
        for (std::size_t i = 0; i < size_; ++i) {
            bigger[i] = at(i);
        }
        ring_.swap(bigger);
        head_ = 0;
    }

    std::vector<Pending> ring_;
    std::size_t head_ = 0; // the front's place
    std::size_t size_ = 0;
};

struct Device {
    Window window;
    bool started = false;       // an activity left the window
    std::uint64_t prev_end = 0; // the latest end of those that left
    std::uint64_t last_start = 0;
};

using launch_starts::LaunchStarts;
using launch_starts::no_correlation;

} // namespace

struct TimelineLog::Impl {
    std::size_t window;
    // Each device's index by its name: 'd' and args.device, else 'p' and the pid. The first few
    // are also in `known`, compared without making a name (most traces have a few devices).
    std::unordered_map<std::string, std::uint32_t> device_ids;
    struct Known {
        char by;
        std::string id;
        std::uint32_t index;
    };
    std::vector<Known> known;
    std::vector<Device> devices;
    std::string name_buf; // the name of a device looked up in device_ids
    LaunchStarts launches;
    std::uint64_t launch_events = 0;
    std::map<Span, StepAcc> steps;
    std::map<Span, StepAcc>::iterator last_step = steps.end(); // step_at()'s last found
    StepAcc outside; // the activities in no step (all of them, without step spans)
    std::uint64_t first_start = ~std::uint64_t{0};
    std::uint64_t last_end = 0;
    // Per slot.
    std::vector<IdleTime> slot_idle;
    std::vector<LaunchDelays> slot_launch;
    std::vector<DelayValues> slot_delays;
    std::vector<std::uint32_t> epoch;
    std::vector<std::uint32_t> moved_to;
    TimelineSummary sum;
    DelayValues queue_delays;
    SpanLog spans;
    Settled settled;
    Timed timed;
    std::optional<std::uint64_t> decided_until; // the latest time an activity was counted at

    explicit Impl(std::size_t w) : window(w == 0 ? 1 : w) {}

    // The index of an activity's device, a new one for a device not seen before.
    std::uint32_t device_of(const TraceEvent& e) {
        char by = 0;
        std::string_view id;
        if (e.device_state == FieldState::ok) {
            by = 'd';
            id = e.device;
        } else if (e.pid_state == FieldState::ok) {
            by = 'p';
            id = e.pid;
        }
        for (const Known& k : known) {
            if (k.by == by && k.id == id) {
                return k.index;
            }
        }
        name_buf.clear();
        if (by != 0) {
            name_buf.append(1, by).append(id);
        }
        auto [it, added] =
            device_ids.try_emplace(name_buf, static_cast<std::uint32_t>(devices.size()));
        if (added) {
            devices.emplace_back();
            if (known.size() < 16) {
                known.push_back({by, std::string(id), it->second});
            }
        }
        return it->second;
    }

    void ensure(std::uint32_t slot) {
        if (slot != no_slot && slot >= epoch.size()) {
            slot_idle.resize(slot + 1);
            slot_launch.resize(slot + 1);
            slot_delays.resize(slot + 1);
            epoch.resize(slot + 1, 0);
            moved_to.resize(slot + 1, no_slot);
        }
    }

    StepAcc& step_at(std::uint64_t t) {
        if (last_step != steps.end() && last_step->first.start <= t && t < last_step->first.end &&
            (std::next(last_step) == steps.end() || t < std::next(last_step)->first.start)) {
            return last_step->second; // the step found last (activities come in about time order)
        }
        auto it = steps.upper_bound(Span{t, ~std::uint64_t{0}, ~std::uint64_t{0}});
        if (it == steps.begin() || t >= std::prev(it)->first.end) {
            return outside;
        }
        last_step = std::prev(it);
        return last_step->second;
    }

    IdleTime gap(const Pending& p, std::uint32_t slot, std::optional<std::uint64_t> launch,
                 std::uint64_t prev_end, StepAcc& acc) {
        std::uint64_t ns = p.start > prev_end ? p.start - prev_end : 0;
        IdleTime g;
        if (ns == 0) {
            return g;
        }
        g.gaps = 1;
        g.ns = ns;
        if (launch) {
            std::uint64_t waited = *launch > prev_end ? *launch - prev_end : 0;
            g.host_wait_ns = std::min(ns, waited);
            g.launch_latency_ns = ns - g.host_wait_ns;
        } else {
            g.unattributed_ns = ns;
        }
        sum.idle.add(g);
        if (p.transfer) {
            sum.transfers_idle.add(g);
        } else if (slot == no_slot) {
            sum.unbundled_idle.add(g);
        } else {
            slot_idle[slot].add(g);
        }
        acc.fig.idle.add(g);
        return g;
    }

    void delay(const Pending& p, std::uint32_t slot, std::uint64_t launch, StepAcc& acc) {
        std::uint64_t d = p.start >= launch ? p.start - launch : 0;
        bool skewed = p.start < launch;
        auto add = [d, skewed](LaunchDelays& l) {
            ++l.launched;
            l.skewed += skewed ? 1 : 0;
            l.total_ns = saturating_add(l.total_ns, d);
        };
        add(sum.launch);
        add(acc.fig.launch);
        acc.delays.add(d);
        if (!p.transfer && slot != no_slot) {
            add(slot_launch[slot]);
            slot_delays[slot].add(d);
        }
    }

    // The device is busy with `p` (counted or not): the latest end before it, none for the
    // device's first activity.
    std::optional<std::uint64_t> occupy(Device& d, const Pending& p, bool counted) {
        std::optional<std::uint64_t> prev;
        if (d.started) {
            if (counted && p.start < d.last_start) {
                ++sum.out_of_order; // it came after the window moved past its start
            }
            prev = d.prev_end;
            d.prev_end = std::max(d.prev_end, p.end);
        } else {
            d.started = true;
            d.prev_end = p.end;
        }
        d.last_start = std::max(d.last_start, p.start);
        return prev;
    }

    // An activity leaves its device's window: whether it counts (--span), its gap, delay, step
    // and spans.
    void leave(std::uint32_t device, const Pending& p) {
        std::uint32_t slot = p.slot;
        if (slot != no_slot && p.epoch != epoch[slot]) {
            slot = moved_to[slot];
            ensure(slot);
        }
        std::optional<std::uint64_t> launch;
        if (p.correlation != no_correlation) {
            launch = launches.find(p.correlation, device);
        }
        const std::uint64_t at = launch.value_or(p.start);
        const bool counted = spans.kept(at, device);
        decided_until = std::max(decided_until.value_or(0), at);
        auto prev = occupy(devices[device], p, counted);
        if (p.deferred != no_slot && settled) {
            settled(slot, p.deferred, counted, p.start);
        }
        if (!counted) {
            return;
        }
        StepAcc& acc = step_at(at);
        IdleTime g = prev ? gap(p, slot, launch, *prev, acc) : IdleTime{};
        if (launch) {
            delay(p, slot, *launch, acc);
        }
        spans.add(at, p.transfer, p.end - p.start, g, device);
        count(device, p, acc);
        if (!p.transfer && slot != no_slot) {
            acc.bundle(slot).add({slot, 1, p.end - p.start, g.ns});
        }
        if (p.tag != no_tag && timed) {
            ActivityTimes t;
            if (prev) {
                t.gap_ns = g.ns;
            }
            if (launch) {
                t.host_wait_ns = g.host_wait_ns;
                t.launch_delay_ns = p.start >= *launch ? p.start - *launch : 0;
            }
            timed(p.tag, t);
        }
    }

    // A counted activity's share of its step and of the trace.
    void count(std::uint32_t device, const Pending& p, StepAcc& acc) {
        ++sum.activities;
        first_start = std::min(first_start, p.start);
        last_end = std::max(last_end, p.end);
        ++acc.activities;
        if (device >= acc.unions.size()) {
            acc.unions.resize(device + 1);
        }
        auto& [kernels, all] = acc.unions[device];
        if (p.transfer) {
            ++acc.fig.transfers;
            acc.fig.transfer_bytes = saturating_add(acc.fig.transfer_bytes, p.bytes);
            acc.fig.transfer_active_ns =
                saturating_add(acc.fig.transfer_active_ns, p.end - p.start);
        } else {
            ++acc.fig.kernels;
            kernels.add(p.start, p.end);
            queue(p.queue);
        }
        all.add(p.start, p.end);
    }

    void pop(std::uint32_t device) {
        auto& w = devices[device].window;
        Pending p = w.front();
        w.pop_front(prefetch_ahead);
        leave(device, p);
    }

    // A kernel's queue_delay().
    void queue(std::uint64_t delay) {
        if (delay == no_queue) {
            return;
        }
        ++sum.queue.kernels;
        if (delay != queue_inconsistent) {
            if (sum.queue.inconsistent == 0) {
                queue_delays.add(delay);
                sum.queue.total_ns = saturating_add(sum.queue.total_ns, delay);
            }
        } else {
            ++sum.queue.inconsistent;
            queue_delays.release(); // not given: nothing more to keep
            sum.queue.total_ns = 0;
        }
    }

    static StepTimeline figures(StepAcc& acc) {
        StepTimeline fig = acc.fig;
        for (const auto& u : acc.unions) {
            fig.kernel_busy_ns += u.first.length();
            fig.transfer_ns += u.second.length() - u.first.length();
        }
        fig.launch.median_ns = acc.delays.median();
        for (const auto& times : acc.bundles) {
            if (times.events > 0) { // a slot moved away (moved()) has none
                fig.bundles.push_back(times);
            }
        }
        std::sort(
            fig.bundles.begin(), fig.bundles.end(),
            [](const StepBundleTime& a, const StepBundleTime& b) { return a.bundle < b.bundle; });
        return fig;
    }

    void summarize() {
        auto& steps_out = sum.steps;
        if (steps.empty()) {
            StepTimeline whole = figures(outside);
            whole.name = "(whole trace)";
            if (last_end > 0 || first_start != ~std::uint64_t{0}) {
                whole.start_ns = first_start == ~std::uint64_t{0} ? 0 : first_start;
                whole.wall_ns = last_end - whole.start_ns;
            }
            steps_out.push_back(whole);
        } else {
            for (auto& [span, acc] : steps) {
                StepTimeline fig = figures(acc);
                fig.name = "ProfilerStep#" + std::to_string(span.number);
                fig.start_ns = span.start;
                fig.wall_ns = span.end - span.start;
                steps_out.push_back(fig);
            }
            sum.outside_activities = outside.activities;
            sum.outside_idle = outside.fig.idle;
        }
        std::vector<std::uint64_t> walls;
        for (const auto& st : steps_out) {
            walls.push_back(st.wall_ns);
        }
        sum.step_min_ns = *std::min_element(walls.begin(), walls.end());
        sum.step_max_ns = *std::max_element(walls.begin(), walls.end());
        sum.step_median_ns = median_of(walls);
        std::stable_sort(
            steps_out.begin(), steps_out.end(),
            [](const StepTimeline& a, const StepTimeline& b) { return a.wall_ns > b.wall_ns; });
        // Every launch delay is in one step's (or outside's): together once the steps' medians
        // are taken, each step's given up as it is added.
        DelayValues all;
        auto gather = [&all](StepAcc& acc) {
            all.append(acc.delays);
            acc.delays.release();
        };
        for (auto& [span, acc] : steps) {
            gather(acc);
        }
        gather(outside);
        sum.launch.median_ns = all.median();
        if (sum.queue.consistent()) {
            sum.queue.median_ns = queue_delays.median();
        }
    }
};

TimelineLog::TimelineLog(std::size_t window) : impl_(std::make_unique<Impl>(window)) {}
TimelineLog::~TimelineLog() = default;
TimelineLog::TimelineLog(TimelineLog&&) noexcept = default;
TimelineLog& TimelineLog::operator=(TimelineLog&&) noexcept = default;

void TimelineLog::filter(const SpanFilter& filter, Settled settled) {
    impl_->spans = SpanLog(filter);
    impl_->settled = std::move(settled);
}

void TimelineLog::event(const TraceEvent& e) {
    const CatKind kind = cat_kind(e);
    if (kind == CatKind::user_annotation || kind == CatKind::cpu_op) {
        if (kind == CatKind::user_annotation) {
            impl_->spans.event(e, impl_->decided_until);
        }
        Span s{};
        if (is_step_span(e, s.start, s.end)) {
            auto hash = e.name.find('#');
            s.number =
                whole_number(FieldState::ok, e.name.substr(hash + 1)).value_or(impl_->steps.size());
            impl_->steps.try_emplace(s);
        }
        return;
    }
    if (kind != CatKind::runtime) {
        return;
    }
    auto correlation = arg_number(e, correlation_number);
    auto start = start_of(e);
    if (!correlation || !start) {
        return;
    }
    ++impl_->launch_events;
    impl_->launches.add(*correlation, *start);
}

void TimelineLog::time_each(Timed timed) {
    impl_->timed = std::move(timed);
}

bool TimelineLog::activity(const TraceEvent& e, ActivityKind kind, std::uint32_t slot,
                           std::uint32_t deferred, std::uint64_t tag) {
    const auto start_ns = start_of(e);
    const auto dur_ns = event_dur_ns(e);
    if (!start_ns || !dur_ns) {
        return false;
    }
    const std::uint64_t start = *start_ns;
    const std::uint64_t dur = *dur_ns;
    Impl& m = *impl_;
    const std::uint32_t dev = m.device_of(e);
    m.ensure(slot);
    const bool transfer = kind == ActivityKind::transfer;
    Pending p{start,
              saturating_add(start, dur),
              arg_number(e, correlation_number).value_or(no_correlation),
              transfer ? arg_number(e, bytes_number).value_or(0) : 0,
              tag,
              transfer ? no_queue
                       : queue_delay(arg_number(e, queued_number).value_or(0),
                                     arg_number(e, submitted_number).value_or(0), start),
              slot,
              slot == no_slot ? 0 : m.epoch[slot],
              deferred,
              transfer};
    m.spans.seen();
    auto& w = m.devices[dev].window;
    w.insert(p, m.window + 1);
    if (w.size() > m.window) {
        m.pop(dev);
    }
    return true;
}

void TimelineLog::moved(std::uint32_t from, std::uint32_t to) {
    Impl& m = *impl_;
    m.ensure(std::max(from, to));
    m.slot_idle[to].add(m.slot_idle[from]);
    m.slot_idle[from] = {};
    LaunchDelays& l = m.slot_launch[to];
    l.launched += m.slot_launch[from].launched;
    l.skewed += m.slot_launch[from].skewed;
    l.total_ns = saturating_add(l.total_ns, m.slot_launch[from].total_ns);
    m.slot_launch[from] = {};
    auto& d = m.slot_delays[from];
    m.slot_delays[to].append(d);
    d.release();
    auto move_step = [from, to](StepAcc& acc) {
        if (from < acc.bundle_at.size() && acc.bundle_at[from] != 0) {
            StepBundleTime& was = acc.bundles[acc.bundle_at[from] - 1];
            const StepBundleTime moved = was;
            was = {from, 0, 0, 0};
            acc.bundle(to).add(moved);
        }
    };
    for (auto& [span, acc] : m.steps) {
        move_step(acc);
    }
    move_step(m.outside);
    ++m.epoch[from]; // what is still in a window goes to `to` when it leaves
    m.moved_to[from] = to;
}

TimelineLog::Result TimelineLog::finish(std::size_t slots) {
    Impl& m = *impl_;
    for (std::uint32_t d = 0; d < m.devices.size(); ++d) {
        while (!m.devices[d].window.empty()) {
            m.pop(d);
        }
    }
    m.sum.devices = m.devices.size();
    m.sum.launch_events = m.launch_events;
    m.sum.step_spans = !m.steps.empty();
    m.summarize();
    Result r;
    r.summary = std::move(m.sum);
    m.ensure(slots == 0 ? 0 : static_cast<std::uint32_t>(slots - 1));
    r.idle.assign(m.slot_idle.begin(), m.slot_idle.begin() + static_cast<std::ptrdiff_t>(slots));
    r.launch.assign(m.slot_launch.begin(),
                    m.slot_launch.begin() + static_cast<std::ptrdiff_t>(slots));
    r.delays.assign(
        std::make_move_iterator(m.slot_delays.begin()),
        std::make_move_iterator(m.slot_delays.begin() + static_cast<std::ptrdiff_t>(slots)));
    for (std::size_t s = 0; s < slots; ++s) {
        r.launch[s].median_ns = r.delays[s].median();
    }
    r.spans = std::make_shared<SpanSummary>(m.spans.finish());
    return r;
}

} // namespace sdscprov
